"""The array-operation paths of the readers and of the battle counts equal the plain ones they
replace: names trimmed and coded, battles' counts per judge, the pairs the human battles cover,
battles grouped per unordered pair and sums over a sparse source."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from debias.data import JudgedPairs
from debias.io.pairs import read_pair_table
from debias.io.rules import WHITESPACE, Rows, code_names, trimmed_names
from debias.stats.preferences import battles as battles_module
from debias.stats.preferences.battles import (
    Battles,
    Groups,
    covered,
    group_battles,
    human_counts,
    judge_counts,
    labelled_groups,
    reversal,
    source_columns,
)


def _plain_code_names(values: pd.Series) -> tuple[np.ndarray, list[str]]:
    """Each distinct value written as text, trimmed by Python one at a time, coded again."""
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    texts = pd.Series([str(v).strip() for v in pd.Index(uniques).astype(str)], dtype=object)
    merged, names = pd.factorize(texts.where(texts != ""), use_na_sentinel=True)
    return np.append(merged, -1).astype(np.int32)[codes], [str(n) for n in names]


# (names that only look alike, "d\u200b" and "\u200bd" or "é" and "e\u0301", are refused:
# tests/test_preferences.py)
HOSTILE = [
    ["a", " a", "a ", "\ta\n", "b", "\u3000b\u2003", "c\x1c", "\x85c", "d\u200b", "\u200be"],
    ["x", "x\xa0", "\u2028x\u2029", "y", "\u202fy\u205f", "z", "Z", "é", "o\u0301"],
    [10, 20, 10, 30],
    [1.0, 2.0, 1.0],
    ["only"] * 5,
]


CASES = [(values, object) for values in HOSTILE] + [
    (values, "str") for values in HOSTILE if all(isinstance(v, str) for v in values)
]


@pytest.mark.parametrize(("values", "dtype"), CASES)
def test_code_names_equals_python_trimming(values, dtype):
    series = pd.Series(values, dtype=dtype)
    codes, names = code_names(series, "name", Rows.of(("table", len(series))))
    plain_codes, plain_names = _plain_code_names(series)
    assert list(names) == plain_names
    assert codes.tolist() == plain_codes.tolist()


def test_values_of_different_types_written_alike_are_refused_with_both_rows():
    series = pd.Series(["1", 1, " 1", 2.5, "2.5", True, "True", "t"], dtype=object)
    with pytest.raises(Exception, match=r"row 3: column 'name': 1 \(a number\) and '1' \(text, table: row 2\)"):
        code_names(series, "name", Rows.of(("table", len(series))))
    same_type = pd.Series(["1", " 1", "2.5", "True", "t"], dtype=object)  # text alone: trimmed and merged
    codes, names = code_names(same_type, "name", Rows.of(("table", len(same_type))))
    assert list(names) == ["1", "2.5", "True", "t"] and codes.tolist() == [0, 0, 1, 2, 3]


def test_code_names_empty_after_trimming_is_refused_on_its_row():
    series = pd.Series(["a", "b", " \u3000 "], dtype="str")
    with pytest.raises(Exception, match="row 4"):
        code_names(series, "name", Rows.of(("table", 3)))
    codes, names = code_names(series, "name", Rows.of(("table", 3)), empty_ok=np.array([False, False, True]))
    assert codes.tolist() == [0, 1, -1] and list(names) == ["a", "b"]


def test_whitespace_is_what_python_strips():
    assert WHITESPACE == "".join(c for c in map(chr, range(0x110000)) if c.isspace())


def test_trimmed_names_equals_python_trimming():
    values = pd.Series([" a", None, "b\u3000", 3, "\u200bc "], dtype=object)
    out = trimmed_names(values, "name", Rows.of(("table", 5)))
    expected = [None if v is None else str(v).strip() for v in values]
    assert [None if pd.isna(v) else v for v in out] == expected


def _pair_frame(rng, n: int, unique_items: bool) -> pd.DataFrame:
    systems = np.array(["m1", " m1", "m2", "m3\u3000", "m4"], dtype=object)
    a = rng.integers(0, 5, n)
    b = (a + rng.integers(1, 4, n)) % 5
    same = np.char.strip(systems[a].astype(str)) == np.char.strip(systems[b].astype(str))
    b = np.where(same, (b + 1) % 5, b)
    same = np.char.strip(systems[a].astype(str)) == np.char.strip(systems[b].astype(str))
    b = np.where(same, (b + 1) % 5, b)
    items = np.arange(n) if unique_items else rng.integers(0, n // 3, n)
    verdicts = np.array(["model_a", "model_b", "tie", None], dtype=object)
    return pd.DataFrame(
        {
            "q": [f" q{i}" if i % 7 == 0 else f"q{i}" for i in items],
            "a": systems[a],
            "b": systems[b],
            "winner": verdicts[rng.integers(0, 4, n)],
            "judge": verdicts[rng.integers(0, 4, n)],
        }
    )


def test_unique_items_read_as_their_own_battles():
    """Every item on one row (the battle-number shortcut) reads as the general grouping does."""
    rng = np.random.default_rng(3)
    frame = _pair_frame(rng, 300, unique_items=True)
    fast = read_pair_table(frame, item="q", system_a="a", system_b="b", verdict="winner", judges=["judge"])
    twice = pd.concat([frame, frame.iloc[:1].assign(winner="tie")], ignore_index=True)  # one item on two rows
    general = read_pair_table(twice, item="q", system_a="a", system_b="b", verdict="winner", judges=["judge"])
    assert general.n_battles == fast.n_battles
    assert fast.items.tolist() == general.items.tolist()
    np.testing.assert_array_equal(fast.system_a, general.system_a)
    np.testing.assert_array_equal(fast.judge_verdicts, general.judge_verdicts)
    assert fast.systems == general.systems and set(fast.systems) == {"m1", "m2", "m3", "m4"}


def _pairs(rng, n_battles=400, n_systems=6, n_judges=3) -> JudgedPairs:
    a = rng.integers(0, n_systems, n_battles)
    b = (a + rng.integers(1, n_systems, n_battles)) % n_systems
    counts = rng.integers(0, 3, n_battles)
    human = rng.choice([0.0, 0.5, 1.0], int(counts.sum()))
    verdicts = rng.choice([0.0, 0.5, 1.0, np.nan], (n_battles, n_judges))
    return JudgedPairs(
        tuple(f"s{k}" for k in range(n_systems)), a, b, human, counts, tuple(f"j{k}" for k in range(n_judges)), verdicts
    )


def test_battle_counts_from_one_pass_equal_the_direct_counts():
    rng = np.random.default_rng(5)
    pairs = _pairs(rng)
    battles = Battles.of(pairs)
    np.testing.assert_array_equal(battles.human_counts, human_counts(pairs))
    for columns in ([], [0], [1], [2], [0, 2], [0, 1, 2]):
        for mine, direct in zip(battles.judge_counts(columns), judge_counts(pairs, columns)):
            assert mine.dtype == direct.dtype
            np.testing.assert_array_equal(mine, direct)


def _plain_covered(groups: Groups) -> np.ndarray:
    """The pairs' incidence matrix, as a dense matrix product."""
    low, high = np.minimum(groups.a, groups.b), np.maximum(groups.a, groups.b)
    _, pair = np.unique(low * groups.n_systems + high, return_inverse=True)
    incidence = np.zeros((pair.size, int(pair.max()) + 1 if pair.size else 0))
    incidence[np.arange(pair.size), pair] = 1.0
    labelled = (groups.count * groups.labelled) @ incidence
    return ((labelled > 0).astype(float) @ incidence.T > 0).astype(float)


@pytest.mark.parametrize("lead", [(), (4,), (2, 3)])
def test_covered_equals_the_incidence_product(lead):
    rng = np.random.default_rng(7)
    pairs = _pairs(rng, n_battles=60, n_systems=7)
    labelled = rng.random((*lead, pairs.n_battles)) < 0.2
    groups = group_battles(pairs.system_a, pairs.system_b, pairs.n_systems, labelled, np.ones((pairs.n_battles, 1)))
    mine = covered(groups)
    assert mine.shape == groups.count.shape
    np.testing.assert_array_equal(mine, _plain_covered(groups))


def test_bounded_blas_limits_the_threads_inside_and_restores_them(monkeypatch):
    from threadpoolctl import threadpool_info

    from debias.stats.common.threads import blas_threads, bounded_blas

    def seen():
        return {pool["filepath"]: pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"}

    before = seen()
    assert bounded_blas(seen)() == {path: 1 for path in before}
    assert seen() == before
    nested = bounded_blas(lambda: bounded_blas(seen)())  # an inner call keeps the outer bound
    assert nested() == {path: 1 for path in before}
    assert seen() == before
    monkeypatch.setenv("DEBIAS_BLAS_THREADS", "3")
    assert blas_threads() == 3
    monkeypatch.setenv("DEBIAS_BLAS_THREADS", "none")
    with pytest.raises(ValueError, match="DEBIAS_BLAS_THREADS"):
        blas_threads()


def test_bounded_calls_inside_a_bounded_call_do_not_look_the_libraries_up_again(monkeypatch):
    import threadpoolctl

    from debias.stats.common.threads import bounded_blas

    entered = []
    real = threadpoolctl.threadpool_limits

    def counting(*args, **kwargs):
        entered.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(threadpoolctl, "threadpool_limits", counting)
    inner = bounded_blas(lambda: 1)
    assert bounded_blas(lambda: sum(inner() for _ in range(5)))() == 5
    assert len(entered) == 1
    with pytest.raises(ZeroDivisionError):  # the flag is cleared when the call fails
        bounded_blas(lambda: 1 / 0)()
    assert inner() == 1 and len(entered) == 3


def _literal_groups(pairs: JudgedPairs, labelled: np.ndarray, sources: np.ndarray, reverse):
    """Every battle rewritten with the lower-numbered system as A (its sources mapped one battle
    at a time), then summed per (pair, labelled flag) with a dictionary."""
    offset, matrix = reverse
    sums: dict = {}
    for i in range(pairs.n_battles):
        a, b, s = int(pairs.system_a[i]), int(pairs.system_b[i]), np.nan_to_num(sources[i])
        if a > b:
            a, b, s = b, a, offset + matrix @ s
        count, total, product = sums.get((a, b, bool(labelled[i])), (0.0, 0.0, 0.0))
        sums[(a, b, bool(labelled[i]))] = (count + 1.0, total + s, product + np.outer(s, s))
    return sums


@pytest.mark.parametrize("ties", ["half", "drop"])
def test_battles_grouped_per_unordered_pair_equal_each_battle_rewritten(ties):
    rng = np.random.default_rng(11)
    pairs = _pairs(rng, n_battles=300, n_systems=5, n_judges=2)
    groups, _ = labelled_groups(pairs, ties, pairs.labelled)
    human = (
        pairs.human_mean[:, None]
        if ties == "half"
        else np.column_stack([pairs.human_share(1.0), pairs.human_share(0.0)])
    )
    verdicts = [pairs.judge_verdicts[:, j] for j in range(2)]
    judges = [battles_module.filled(source_columns(v, ties), ~np.isnan(v), ties) for v in verdicts]
    sources = np.concatenate([human, *judges], axis=1)
    expected = _literal_groups(pairs, pairs.labelled, sources, reversal(3, ties))
    assert np.all(groups.a < groups.b)  # one group per unordered pair and flag
    seen = set()
    for g in range(groups.a.size):
        key = (int(groups.a[g]), int(groups.b[g]), bool(groups.labelled[g]))
        seen.add(key)
        count, total, product = expected.get(key, (0.0, 0.0, 0.0))
        assert groups.count[g] == count
        np.testing.assert_allclose(groups.sums[g], total, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(groups.products[g], product, rtol=1e-12, atol=1e-12)
    assert set(expected) <= seen


def test_battles_grouped_per_unordered_pair_keep_each_labelling_apart():
    rng = np.random.default_rng(12)
    pairs = _pairs(rng, n_battles=120, n_systems=4, n_judges=1)
    labelled = rng.random((3, pairs.n_battles)) < 0.3
    sources = np.column_stack([pairs.judge_verdicts[:, 0], rng.random(pairs.n_battles)])
    reverse = reversal(2, "half")
    stacked = group_battles(pairs.system_a, pairs.system_b, pairs.n_systems, labelled, sources, reverse)
    for r in range(3):
        one = group_battles(pairs.system_a, pairs.system_b, pairs.n_systems, labelled[r], sources, reverse)
        np.testing.assert_array_equal(stacked.count[r], one.count)
        np.testing.assert_allclose(stacked.sums[r], one.sums, rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(stacked.products[r], one.products, rtol=1e-13, atol=1e-13)


def test_a_sparse_source_summed_over_its_nonzero_battles_gives_the_same_sums(monkeypatch):
    rng = np.random.default_rng(13)
    pairs = _pairs(rng, n_battles=500, n_systems=6, n_judges=2)
    sources = np.column_stack(
        [
            np.where(rng.random(pairs.n_battles) < 0.1, rng.random(pairs.n_battles), np.nan),
            rng.random(pairs.n_battles),
            rng.random(pairs.n_battles),
        ]
    )
    group = lambda: group_battles(pairs.system_a, pairs.system_b, pairs.n_systems, pairs.labelled, sources)  # noqa: E731
    monkeypatch.setattr(battles_module, "SPARSE_SOURCE", 0.0)  # every column summed over every battle
    dense = group()
    monkeypatch.setattr(battles_module, "SPARSE_SOURCE", 0.25)
    sparse = group()
    for field in ("count", "sums", "products"):
        np.testing.assert_array_equal(getattr(sparse, field), getattr(dense, field))


def test_the_mean_human_verdict_of_battles_judged_once_is_the_verdict():
    once = JudgedPairs.from_arrays(["x", "y", "x"], ["y", "z", "z"], [1.0, np.nan, 0.5])
    twice = JudgedPairs.from_arrays(["x", "y", "x"], ["y", "z", "z"], [[1.0, 1.0], None, [0.5]])
    np.testing.assert_array_equal(once.human_mean, [1.0, np.nan, 0.5])
    np.testing.assert_array_equal(twice.human_mean, once.human_mean)


def _reversed(pairs: JudgedPairs, which: np.ndarray) -> JudgedPairs:
    """``pairs`` with the battles ``which`` written the other way round, verdicts flipped."""
    a = np.where(which, pairs.system_b, pairs.system_a)
    b = np.where(which, pairs.system_a, pairs.system_b)
    human = np.where(np.repeat(which, pairs.human_counts), 1.0 - pairs.human, pairs.human)
    judges = np.where(which[:, None], 1.0 - pairs.judge_verdicts, pairs.judge_verdicts)
    return JudgedPairs(pairs.systems, a, b, human, pairs.human_counts, pairs.judges, judges)


@pytest.mark.parametrize("ties", ["half", "drop"])
def test_every_estimate_is_the_same_whichever_way_round_the_battles_are_written(ties):
    from debias.stats.preferences.estimands import preference_estimates

    rng = np.random.default_rng(21)
    pairs = _pairs(rng, n_battles=600, n_systems=5, n_judges=2)
    # judges answering every battle: an abstention is predicted by the judge's mean score of the
    # battles' first-written system, which does depend on how they are written
    answered = np.where(np.isnan(pairs.judge_verdicts), 0.5, pairs.judge_verdicts)
    pairs = JudgedPairs(
        pairs.systems, pairs.system_a, pairs.system_b, pairs.human, pairs.human_counts, pairs.judges, answered
    )
    estimands = ("win_rate", "strength") if ties == "half" else ("win_rate",)
    expected = preference_estimates(pairs, level=0.9, ties=ties, estimands=estimands)
    for which in (rng.random(pairs.n_battles) < 0.5, np.ones(pairs.n_battles, bool)):
        got = preference_estimates(_reversed(pairs, which), level=0.9, ties=ties, estimands=estimands)
        for mine, theirs in zip(got, expected):
            assert (mine.estimand, mine.estimator, mine.notes) == (theirs.estimand, theirs.estimator, theirs.notes)
            np.testing.assert_allclose(mine.estimate, theirs.estimate, rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(mine.covariance, theirs.covariance, rtol=1e-7, atol=1e-14)
