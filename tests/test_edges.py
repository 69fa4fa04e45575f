"""Intervals and rank-sets at the edges: few battles, no variance, judge-only strata, the order
of the systems, and a level that is not a number."""

from __future__ import annotations

import numpy as np
import pytest

from debias.config.settings import key_rules, schema_problem
from debias.data import JudgedPairs
from debias.stats.common.ranking import rank_sets
from debias.stats.preferences.battles import ZERO_VARIANCE
from debias.stats.preferences.estimands import NO_HUMAN, preference_estimates, win_rates
from debias.tables.leaderboard import preferences_leaderboard


def _battles(kind: str, seed: int, n_systems: int = 5, n: int = 120) -> JudgedPairs:
    """Battles whose verdicts have no variance: every human verdict a tie, three raters saying
    a, b and tie on every battle, or a judge answering tie everywhere (half the battles labelled)."""
    rng = np.random.default_rng(seed)
    names = [f"s{i}" for i in range(n_systems)]
    a = rng.integers(0, n_systems, n)
    b = (a + rng.integers(1, n_systems, n)) % n_systems
    unlabelled = rng.random(n) < 0.5
    other = rng.choice([0.0, 0.5, 1.0], n)
    if kind == "human ties":
        human, judge = np.where(unlabelled, np.nan, 0.5), other
    elif kind == "raters disagree":
        human, judge = [None if u else [1.0, 0.0, 0.5] for u in unlabelled], other
    else:  # a judge that says tie everywhere
        human, judge = np.where(unlabelled, np.nan, rng.choice([0.0, 0.5, 1.0], n)), np.full(n, 0.5)
    judges = {"j": judge, "k": rng.choice([0.0, 0.5, 1.0], n)}
    return JudgedPairs.from_arrays([names[i] for i in a], [names[i] for i in b], human, judges)


@pytest.mark.parametrize("kind", ["human ties", "raters disagree", "judge ties"])
@pytest.mark.parametrize("seed", range(4))
def test_verdicts_without_variance_never_stop_the_estimates_or_the_leaderboard(kind, seed):
    pairs = _battles(kind, seed)
    results = preference_estimates(pairs, level=0.9)
    table = preferences_leaderboard(results, level=0.9)  # used to fail: "covariance must be positive semi-definite"
    for result in results:
        finite = np.isfinite(np.diag(result.covariance))
        assert np.all(np.linalg.eigvalsh(result.covariance[np.ix_(finite, finite)]) > -1e-12)
        for s, note in enumerate(result.notes):
            if np.isfinite(result.estimate[s]) and not np.isfinite(result.se[s]):
                assert note  # no interval: a reason
            if np.isfinite(result.se[s]):
                assert result.se[s] > 0 or note
    win = table[table["estimand"] == "win_rate"]
    assert win["rank"].notna().all()  # every win rate ranked: its variance is never 0 with battles behind it
    assert (win["upper"] > win["lower"]).all()
    unranked = table[table["rank"].isna()]
    assert unranked["note"].str.len().gt(0).all()
    if kind != "judge ties":  # people agree on nothing: strengths all 0, no interval, and the reason
        human = next(r for r in results if r.estimand == "strength" and r.estimator == "human")
        assert set(human.notes) == {ZERO_VARIANCE}


def test_a_sweep_of_three_battles_is_not_certain():
    pairs = JudgedPairs.from_arrays(["x"] * 3, ["y"] * 3, [1, 1, 1])
    result = win_rates(pairs, level=0.9)
    assert result.estimate.tolist() == [1.0, 0.0]  # the estimate is the share won
    assert result.se[0] > 0.3 and result.ci_low[0] < 0.5 and result.ci_high[0] == 1.0
    assert all("3 human battles" in note for note in result.notes)
    table = preferences_leaderboard([result], level=0.9)
    assert table["rank_low"].tolist() == [1, 1] and table["rank_high"].tolist() == [2, 2]
    assert table["note"].str.contains("rests on few battles").all()


def test_the_interval_contains_the_agresti_coull_interval():
    for wins, n in [(0, 3), (2, 5), (7, 10), (30, 40)]:
        pairs = JudgedPairs.from_arrays(["x"] * n, ["y"] * n, [1.0] * wins + [0.0] * (n - wins))
        result = win_rates(pairs, level=0.9)
        z2 = 1.6448536269514722**2
        centre = (wins + z2 / 2) / (n + z2)
        half = np.sqrt(z2 * centre * (1 - centre) / (n + z2))
        assert result.ci_low[0] <= max(centre - half, 0.0) + 1e-12
        assert result.ci_high[0] >= min(centre + half, 1.0) - 1e-12
        assert result.covariance[0, 1] == pytest.approx(-result.covariance[0, 0])  # x's wins are y's losses


def test_rank_sets_do_not_depend_on_the_order_of_the_systems():
    rng = np.random.default_rng(3)
    names = [f"m{i}" for i in range(8)]
    a = rng.integers(0, 8, 400)
    b = (a + rng.integers(1, 8, 400)) % 8
    strength = np.linspace(-0.4, 0.4, 8)
    win = rng.random(400) < 1 / (1 + np.exp(strength[b] - strength[a]))
    verdicts = np.where(rng.random(400) < 0.15, 0.5, win.astype(float))
    sa, sb = [names[i] for i in a], [names[i] for i in b]
    tables = []
    for order in (names, names[::-1], list(rng.permutation(names))):
        pairs = JudgedPairs.from_arrays(sa, sb, verdicts, systems=order)
        table = preferences_leaderboard(preference_estimates(pairs, level=0.9), level=0.9, seed=1)
        tables.append(table.sort_values(["estimand", "estimator", "system"]).reset_index(drop=True))
    first = tables[0]
    for other in tables[1:]:  # the same rank-sets; numbers equal up to the rounding of another order of sums
        for column in ("rank", "rank_low", "rank_high", "system", "note", "tied_with"):
            assert other[column].tolist() == first[column].tolist()
        for column in ("estimate", "lower", "upper", "factor_to_separate_next"):
            np.testing.assert_allclose(other[column], first[column], rtol=1e-9, atol=1e-12)
    theta = np.array([0.1, 0.12, 0.3, 0.31])
    sigma = np.diag([1e-3, 2e-3, 1e-3, 3e-3]) + 4e-4
    one = rank_sets(theta, sigma, level=0.9, systems=list("abcd"), canonical=True)
    order = [2, 0, 3, 1]
    two = rank_sets(theta[order], sigma[np.ix_(order, order)], level=0.9, systems=[*"cadb"], canonical=True)
    assert one.critical_value == two.critical_value


def test_a_system_only_the_judges_saw_moves_no_unbiased_estimate():
    rng = np.random.default_rng(5)
    n = 400
    x_y = np.arange(n) < 300  # 300 battles of x against y, 100 of x against z
    a = np.array(["x"] * n)
    b = np.where(x_y, "y", "z")
    human = np.where(x_y, rng.choice([0.0, 0.5, 1.0], n, p=[0.5, 0.2, 0.3]), 1.0)
    labelled = x_y & (rng.random(n) < 0.55)  # people judged x against y only
    judge = np.where(rng.random(n) < 0.8, human, rng.choice([0.0, 0.5, 1.0], n))
    judge[~x_y] = 0.0  # the judge says x loses to z: were it pooled, x's rate would drop
    full = JudgedPairs.from_arrays(a, b, np.where(labelled, human, np.nan), {"j": judge})
    keep = x_y
    covered = JudgedPairs.from_arrays(
        a[keep], b[keep], np.where(labelled, human, np.nan)[keep], {"j": judge[keep]}, systems=["x", "y", "z"]
    )
    for estimator in ("human", "ppi++:j"):
        with_z, without = win_rates(full, estimator, level=0.9), win_rates(covered, estimator, level=0.9)
        np.testing.assert_allclose(with_z.estimate[:2], without.estimate[:2], atol=1e-12)
        np.testing.assert_allclose(with_z.se[:2], without.se[:2], atol=1e-12)
        assert with_z.notes[2] == NO_HUMAN
    ppi = win_rates(full, "ppi++:j", level=0.9)
    assert "100 judge-only battles" in ppi.notes[0]


def test_a_level_that_is_not_a_number_is_refused_with_its_key():
    problem = schema_problem({"estimates": {"level": float("nan")}}, key_rules())
    assert problem is not None and problem.startswith("config key estimates.level:")
    assert schema_problem({"estimates": {"level": 0.9}}, key_rules()) is None
    with pytest.raises(ValueError, match="level"):
        win_rates(JudgedPairs.from_arrays(["x"], ["y"], [1.0]), level=float("nan"))
