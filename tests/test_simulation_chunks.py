"""The coverage checks in chunks: rows independent of the memory setting, memory bounded by it;
the comparisons' check resamples the pairs adjacent in the ranking plus the named ones."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest

from debias.data import Judgments
from debias.stats.coverage import coverage_experiment, repeat_chunks
from debias.tables.comparisons import checked_pairs, comparison_coverage_table, paired_sample


def world(rng, n):
    truth = rng.normal(0, 1, n)
    lists = [list(truth[i] + rng.normal(0, 0.7, 1 + i % 3)) for i in range(n)]
    return Judgments.from_lists(lists), {"a": truth + rng.normal(0, 1, n), "b": rng.normal(size=n)}


def system(name, shift, n=60, seed=0):
    rng = np.random.default_rng(seed)
    values = rng.normal(shift, 1, (n, 2))
    return pd.DataFrame(
        {
            "task": "t",
            "system": name,
            "id": [f"{i:03d}" for i in range(n)],
            "prompt": "p",
            "judged_output": "",
            "n_judgments": 2,
            "mean_judgment": values.mean(axis=1),
            "judgments": ["[" + ", ".join(map(str, v)) + "]" for v in values],
            "m": values.mean(axis=1) + rng.normal(0, 1, n),
        }
    )


def test_repeat_chunks_cover_every_repeat_once_within_the_memory():
    chunks = repeat_chunks(1000, 3 * 2**20, 10)
    assert [len(c) for c in chunks] == [3] * 333 + [1]
    assert [r for c in chunks for r in c] == list(range(1000))
    assert len(repeat_chunks(5, 1e12, 1)) == 5  # one repeat per chunk at least
    with pytest.raises(ValueError, match="memory"):
        repeat_chunks(5, 100, 0)


def test_coverage_rows_do_not_depend_on_the_chunk_size():
    judgments, metrics = world(np.random.default_rng(1), 80)
    tables = [
        coverage_experiment(
            judgments,
            metrics,
            sample_sizes=[10, "0.5N"],
            n_repeats=60,
            level=0.8,
            rng=np.random.default_rng(2),
            ppi=False,
            memory_mb=memory,
        )
        for memory in (0.01, 1000)
    ]
    assert tables[0] == tables[1]
    assert {row["estimator"] for row in tables[0]} == {"mean", "cv:a", "cv:b", "cv:combined"}


def test_coverage_holds_its_level_in_chunks():
    judgments, metrics = world(np.random.default_rng(3), 300)
    rows = coverage_experiment(
        judgments,
        metrics,
        sample_sizes=[50],
        n_repeats=2000,
        level=0.8,
        rng=np.random.default_rng(4),
        ppi=False,
        memory_mb=0.5,
    )
    for row in rows:  # s.e. 0.009
        assert 0.77 < row["coverage"] < 0.83, row


def test_memory_of_the_coverage_check_is_bounded_by_the_setting():
    judgments, metrics = world(np.random.default_rng(5), 4000)
    peaks = []
    for repeats in (50, 200):
        tracemalloc.start()
        coverage_experiment(
            judgments,
            metrics,
            sample_sizes=["0.8N"],
            n_repeats=repeats,
            level=0.8,
            rng=np.random.default_rng(6),
            ppi=False,
            memory_mb=8,
        )
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    assert peaks[1] < 1.5 * peaks[0]  # four times the repeats, not four times the memory
    assert peaks[1] < 30 * 2**20


def test_adjacent_pairs_in_the_ranking_plus_the_named_ones():
    frames = [system("a", 0.0), system("b", 2.0, seed=1), system("c", 1.0, seed=2), system("d", 3.0, seed=3)]
    # ranking by mean: a < c < b < d
    assert checked_pairs("t", frames, "p", []) == {frozenset("ac"), frozenset("cb"), frozenset("bd")}
    assert frozenset("ad") in checked_pairs("t", frames, "p", [["a", "d"], ["x", "a"]])
    assert checked_pairs("t", frames, "p", "all") is None
    spec = {"sample_sizes": [20], "repeats": 20, "level": 0.8, "pairs": [], "chunk_mb": 1}
    table = comparison_coverage_table(frames, {"t": ["p"]}, ["m"], spec, seed=1)
    assert set(zip(table["system_a"], table["system_b"])) == {("a", "c"), ("b", "c"), ("b", "d")}
    every = comparison_coverage_table(frames, {"t": ["p"]}, ["m"], {**spec, "pairs": "all"}, seed=1)
    assert len(set(zip(every["system_a"], every["system_b"]))) == 6
    # a pair's rows are the same whichever other pairs run and whatever the chunk size
    small = comparison_coverage_table(frames, {"t": ["p"]}, ["m"], {**spec, "chunk_mb": 0.001}, seed=1)
    pd.testing.assert_frame_equal(
        small,
        every[
            every.set_index(["system_a", "system_b"]).index.isin(list(zip(table["system_a"], table["system_b"])))
        ].reset_index(drop=True),
    )


def test_paired_sample_world_is_unchanged():
    pair = paired_sample(system("a", 0.0), system("b", 1.0, seed=1), "p", ["m"])
    assert pair.n_shared == 60
