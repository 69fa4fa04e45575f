"""Paired comparisons: the paired difference is unbiased, its interval holds its level on a
Gaussian simulation, and the resampling check agrees with the design's expected saving."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from debias.data import PairedSample
from debias.stats.checks.paired_coverage import expected_de_vs_independent, paired_coverage_experiment
from debias.stats.ratings.paired import paired_difference_ci, paired_difference_estimates
from debias.tables.comparisons import paired_sample

#: The intervals' nominal coverage in these checks.
LEVEL = 0.8


def simulated_pair(rng, n_items=400, shift=0.3, sigma_f=1.0, sigma_a=0.6, rho=0.7, same=0):
    """Two systems sharing an item effect; the metric difference tracks the true difference."""
    item = rng.normal(0, sigma_f, n_items)
    own_a, own_b = rng.normal(0, 0.5, n_items), rng.normal(0, 0.5, n_items)
    f_a, f_b = item + own_a, item + shift + own_b
    k = rng.integers(1, 4, size=(2, n_items))
    ja, jb = (np.full((n_items, 3), np.nan) for _ in range(2))
    for i in range(n_items):
        ja[i, : k[0, i]] = f_a[i] + rng.normal(0, sigma_a, k[0, i])
        jb[i, : k[1, i]] = f_b[i] + rng.normal(0, sigma_a, k[1, i])
    shared = np.zeros(n_items, bool)
    shared[:same] = True
    jb[shared] = ja[shared]
    d = f_b - f_a
    g = rho * (d - d.mean()) / d.std() + np.sqrt(1 - rho**2) * rng.normal(0, 1, n_items)
    g_a = rng.normal(0, 1, n_items)
    scores_a, scores_b = np.c_[g_a, rng.normal(size=n_items)], np.c_[g_a + g, rng.normal(size=n_items)]
    return PairedSample(ja, jb, shared, scores_a, scores_b, scores_a, scores_b, ("good", "noise"))


def subsample(pair, idx):
    return PairedSample(
        pair.judgments_a.take(idx),
        pair.judgments_b.take(idx),
        pair.same_judgment[idx],
        pair.scores_a[idx],
        pair.scores_b[idx],
        pair.all_a,
        pair.all_b,
        pair.metrics,
    )


def test_paired_difference_is_unbiased_for_every_estimator():
    rng = np.random.default_rng(1)
    world = simulated_pair(rng, n_items=600)
    theta = world.differences.mean()
    estimates = {"mean": [], "cv:good": [], "cv:combined": []}
    for _ in range(400):
        sample = subsample(world, rng.choice(600, 60, replace=False))
        for name in estimates:
            estimates[name].append(paired_difference_ci(sample, name, level=0.8).estimate)
    for name, values in estimates.items():
        values = np.array(values)
        se = values.std(ddof=1) / np.sqrt(values.size)
        assert abs(values.mean() - theta) < 4 * se, name  # unbiased within 4 Monte-Carlo s.e.
    # the metric that tracks the difference narrows it: smaller spread than the paired mean
    assert np.var(estimates["cv:good"]) < 0.85 * np.var(estimates["mean"])  # rho 0.7 with the truth


def test_gaussian_coverage_of_the_difference_interval():
    # 2000 repeats: Monte-Carlo s.e. 0.009 at 0.8; tolerance 0.03 (> 3 s.e.)
    rng = np.random.default_rng(2)
    world = simulated_pair(rng, n_items=300, same=30)
    table = pd.DataFrame(paired_coverage_experiment(world, sample_sizes=[30, 150], n_repeats=2000, level=0.8, rng=rng))
    assert set(table["estimator"]) == {"mean", "cv:good", "cv:noise", "cv:combined"}
    assert table["coverage"].between(0.77, 0.83).all(), table
    at150 = table[table["n"] == 150].set_index("estimator")["de_vs_independent"]
    expected = expected_de_vs_independent(world, 150)
    # the design's expected saving is what the resampling measures (exact for mean)
    assert at150["mean"] == pytest.approx(expected["mean"], rel=0.05)
    assert at150["cv:good"] > at150["mean"] > 1.5  # shared item effect: pairing saves


def test_shared_judgment_has_no_noise_and_unknown_pairs_raise():
    rng = np.random.default_rng(3)
    world = simulated_pair(rng, n_items=50, same=50)
    result = paired_difference_ci(world, "mean", level=LEVEL)
    assert result.estimate == 0 and result.ci_low == result.ci_high == 0
    with pytest.raises(ValueError, match="unknown estimator"):
        paired_difference_ci(world, "cv:missing", level=LEVEL)
    table = pd.DataFrame(paired_difference_estimates(world, level=LEVEL))
    assert list(table["estimator"]) == ["mean", "cv:good", "cv:noise", "cv:combined"]
    assert (table["p_value"] == 1.0).all()


def test_paired_sample_aligns_ids_and_ignores_unshared():
    def frame(system, ids, judged):
        return pd.DataFrame(
            {
                "task": "t",
                "system": system,
                "id": ids,
                "prompt": "p",
                "judged_output": "",
                "n_judgments": [1 if j else 0 for j in judged],
                "mean_judgment": [1.0 if j else np.nan for j in judged],
                "judgments": ["1.0" if j else "" for j in judged],
                "m": np.arange(len(ids), dtype=float),
            }
        )

    a = frame("a", ["1", "2", "3", "4"], [True, True, False, True])
    b = frame("b", ["4", "2", "3", "5"], [True, True, True, True])
    pair = paired_sample(a, b, "p", ["m"])
    assert pair.n_shared == 2 and pair.n_outputs == 3  # ids 2, 4 judged in both; 2, 3, 4 shared
    assert pair.scores_a[:, 0].tolist() == [1.0, 3.0] and pair.scores_b[:, 0].tolist() == [1.0, 0.0]


def test_coverage_check_resamples_adjacent_pairs_and_the_named_ones():
    from debias.tables.comparisons import checked_pairs

    def frame(system, means):
        return pd.DataFrame(
            {
                "task": "t",
                "system": system,
                "prompt": "q",
                "n_judgments": 1,
                "mean_judgment": means,
            }
        )

    joined = [frame("a", [3.0, 3.0]), frame("b", [1.0, 1.0]), frame("c", [2.0, 2.0]), frame("d", [4.0, 4.0])]
    prompts = {"t": ["q"]}
    # ranking b < c < a < d: adjacent pairs (b, c), (c, a), (a, d), in input order
    assert checked_pairs(joined, prompts, []) == {("t", "q", "b", "c"), ("t", "q", "a", "c"), ("t", "q", "a", "d")}
    assert ("t", "q", "b", "d") in checked_pairs(joined, prompts, [["d", "b"]])
    assert len(checked_pairs(joined, prompts, "all")) == 6


def test_cached_pairs_give_the_same_table_and_only_new_pairs_are_resampled(tmp_path, monkeypatch):
    from debias.io.atomic import write_csv
    from debias.tables import comparisons

    rng = np.random.default_rng(5)
    truth = rng.normal(size=60)

    def frame(system, shift):
        judged = truth + shift + rng.normal(scale=0.5, size=(2, 60))
        return pd.DataFrame(
            {
                "task": "t",
                "system": system,
                "id": [str(i) for i in range(60)],
                "prompt": "q",
                "judged_output": "",
                "n_judgments": 2,
                "mean_judgment": judged.mean(axis=0),
                "judgments": [json.dumps(pair) for pair in judged.T.tolist()],
                "m": truth + shift + rng.normal(scale=0.7, size=60),
            }
        )

    joined = [frame("a", 0.0), frame("b", 0.3), frame("c", 0.6)]
    spec = {"sample_sizes": [20, "0.5N"], "repeats": 40, "level": 0.8, "memory_mb": None, "pairs": []}

    def table(frames, cache):
        out = tmp_path / f"out{len(list(tmp_path.iterdir()))}.csv"
        made = comparisons.comparison_coverage_table(
            frames, {"t": ["q"]}, ["m"], spec, seed=3, min_items=10, cache_dir=cache
        )
        write_csv(made, out)
        return out.read_bytes()

    plain = table(joined, None)
    cache = tmp_path / "cache"
    assert table(joined, cache) == plain  # computed and stored
    assert len(list(cache.iterdir())) == 2  # the adjacent pairs (a, b), (b, c)
    resampled = []
    original = comparisons._experiment
    monkeypatch.setattr(comparisons, "_experiment", lambda *args: resampled.append(args[1:4]) or original(*args))
    assert table(joined, cache) == plain  # read back: the same bytes, nothing resampled
    assert resampled == []
    with_d = [*joined, frame("d", 0.45)]  # ranked a < b < d < c: pairs (a, b), (b, d), (c, d)
    cached = table(with_d, cache)
    assert resampled == [("q", "b", "d"), ("q", "c", "d")]  # the new pairs only
    assert cached == table(with_d, None)
