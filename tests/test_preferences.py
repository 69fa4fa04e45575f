"""Pairwise preferences: the verdict reader, the pair table, and the estimators against ppi-python
and a direct maximum-likelihood fit; degenerate data give rows with reasons, never a crash."""

from __future__ import annotations

import json
from importlib.util import find_spec

import numpy as np
import pandas as pd
import pytest
from ppi_py import ppi_logistic_ci, ppi_logistic_pointestimate, ppi_mean_ci
from scipy.optimize import minimize
from scipy.special import expit, log_expit, ndtri

import debias
from debias.data import JudgedPairs, verdict_codes
from debias.data.pairs import UnknownVerdicts
from debias.io.canonical import InputError
from debias.stats.common.intervals import proportion_covariance
from debias.stats.common.ppi import PopulationSums, ppi_tuned_mean_ci
from debias.stats.preferences.estimands import (
    ALL_TIES,
    NO_HUMAN,
    NO_JUDGE,
    bradley_terry,
    data_efficiency,
    judge_agreement,
    preference_estimates,
    preference_estimator_names,
    win_rate_draws,
    win_rates,
)

# Verdicts ------------------------------------------------------------------------------------


def test_spellings_of_the_public_datasets():
    values = ["model_a", "MODEL_B", " tie ", "Tie (bothbad)", "tie(bothbad)", "a", "B", None, "", np.nan]
    assert verdict_codes(values).codes.tolist()[:7] == [1.0, 0.0, 0.5, 0.5, 0.5, 1.0, 0.0]
    assert np.isnan(verdict_codes(values).codes[7:]).all()


def test_unknown_human_verdicts_are_an_error_listing_them_with_counts():
    with pytest.raises(UnknownVerdicts) as error:
        verdict_codes(["a", "draw", "b", "draw", "both bad!", "a"])
    assert error.value.counts == {"draw": 2, "both bad!": 1}
    assert error.value.first == 1
    assert "'draw' (2x)" in str(error.value) and "'both bad!' (1x)" in str(error.value)


def test_numeric_codes_need_a_mapping():
    with pytest.raises(UnknownVerdicts, match="explicit mapping"):
        verdict_codes([1, 2, 0])
    mapping = {1: "a", 2: "b", 0: "tie"}
    assert verdict_codes([1, 2.0, 0, "1"], mapping=mapping).codes.tolist() == [1.0, 0.0, 0.5, 1.0]
    assert verdict_codes(["left", "right"], mapping={"Left": 1, "RIGHT": 0}).codes.tolist() == [1.0, 0.0]
    with pytest.raises(ValueError, match="target"):
        verdict_codes(["x"], mapping={"x": 0.3})


def test_a_judges_garbage_is_refused_unless_mapped_to_no_verdict_and_then_counted_never_a_tie():
    values = ["a", "I cannot decide", "tie", "I cannot decide", 7]
    with pytest.raises(UnknownVerdicts) as error:
        verdict_codes(values, judge="j")
    assert error.value.counts == {"I cannot decide": 2, 7: 1} and error.value.judge == "j"
    assert "verdicts of judge 'j'" in str(error.value) and "None (no verdict)" in str(error.value)
    coded = verdict_codes(values, judge="j", mapping={"I cannot decide": None, 7: "missing"})
    assert coded.codes[[0, 2]].tolist() == [1.0, 0.5]
    assert np.isnan(coded.codes[[1, 3, 4]]).all()
    assert coded.unknown == {"I cannot decide": 2, 7: 1} and not coded.continuous


# The pair table -----------------------------------------------------------------------------


def _frame():
    return pd.DataFrame(
        {
            "q": ["q1", "q1", "q2", "q3", "q4"],
            "A": ["x ", "x", "y", "x", "z"],
            "B": ["y", " y", "z", "z", "y"],
            "winner": ["model_a", "tie", "b", None, "a"],
            "who": ["r1", "r2", "r1", "", "r1"],
            "j": ["a", "a", "tie", "b", None],
        }
    )


def test_pair_table_trims_names_groups_raters_and_keeps_pool_rows():
    from debias.io.pairs import read_pair_table

    frame = _frame().assign(j=["a", "a", "tie", "b", "garbage"])
    pairs = read_pair_table(
        frame, item="q", system_a="A", system_b="B", verdict="winner", rater="who", judges=["j"],
        judge_mappings={"j": {"garbage": None}},
    )  # fmt: skip
    assert pairs.systems == ("x", "y", "z")
    assert pairs.human_counts.tolist() == [2, 1, 0, 1]
    assert pairs.human_mean[0] == 0.75 and np.isnan(pairs.human_mean[2])
    assert pairs.judge_unknown.tolist() == [1]
    assert np.isnan(pairs.judge_verdicts[3, 0])
    assert pairs.rater_variance == pytest.approx(0.125)  # (1 - 0.75)^2 + (0.5 - 0.75)^2 over 1 dof


@pytest.mark.parametrize(
    ("change", "where", "what"),
    [
        ({"who": ["r1", "r1", "r1", "", "r1"]}, "table: row 3", "rater 'r1' judged this battle twice"),
        ({"winner": ["model_a", "tie", "b", None, "left"]}, "table: row 6", "'left' (1x)"),
        ({"B": ["y", "y", "y", "z", "y"]}, "table: row 4", "name the same system 'y'"),
        ({"j": ["a", "b", "tie", "b", "a"]}, "table: row 3", "differs from the one on the battle's first row"),
        ({"A": ["x", "  ", "y", "x", "z"]}, "table: row 3", "column 'A' is empty"),
    ],
)
def test_pair_table_errors_name_row_and_column(change, where, what):
    frame = _frame().assign(**change)
    with pytest.raises(InputError) as error:
        debias.preferences(frame, item="q", system_a="A", system_b="B", verdict="winner", rater="who", judges=["j"])
    assert error.value.where == where
    assert what in error.value.message


def _read(frame, **options):
    from debias.io.pairs import read_pair_table

    columns = dict(item="q", system_a="A", system_b="B", verdict="winner", rater="who", judges=["j"])
    return read_pair_table(frame, **{**columns, **options})


@pytest.mark.parametrize("empty", ["", "  ", None, np.nan])
def test_a_verdict_without_a_rater_is_refused_naming_its_row_and_column(empty):
    """An empty or null rater is not one more rater (nor the rater 'None'): on a row with a
    verdict it is refused, as the ratings reader refuses a judgment without its rater."""
    frame = _frame().astype(object)
    frame.loc[2, "who"] = empty
    with pytest.raises(InputError) as error:
        _read(frame, source="t.csv")
    assert (error.value.file, error.value.row, error.value.column) == ("t.csv", 4, "who")
    assert error.value.message == "column 'who' is empty"
    # the only row without a verdict (q3) may leave its rater empty or null: a battle of the pool
    for missing in ("", None, np.nan):
        pairs = _read(_frame().astype(object).assign(who=["r1", "r2", "r1", missing, "r1"]))
        assert pairs.human_counts.tolist() == [2, 1, 0, 1]


def test_pair_names_and_raters_are_trimmed_by_the_readers_rules():
    """'  r1 ' is the rater 'r1': padded raters are one rater (judging q1 twice here), and a table
    whose every name is padded reads as the trimmed one."""
    padded = _frame().assign(who=["  r1 ", "r1", "r1", "", "r1"])
    with pytest.raises(InputError) as error:
        _read(padded, source="t.csv")
    assert (error.value.file, error.value.row, error.value.column) == ("t.csv", 3, "who")
    assert error.value.message == "rater 'r1' judged this battle twice (first on row 2)"
    frame = _frame().assign(who=["r1", "r2", "r1", "", "r1"])
    spaced = frame.assign(**{c: " " + frame[c] + "\t" for c in ("q", "A", "B", "who")})
    a, b = _read(frame), _read(spaced)
    assert a.systems == b.systems and a.items.tolist() == b.items.tolist() == ["q1", "q2", "q3", "q4"]
    np.testing.assert_array_equal(a.human_mean, b.human_mean)
    assert a.rater_variance == b.rater_variance


def test_a_rater_judging_a_battle_twice_is_named_with_both_rows():
    frame = pd.DataFrame(
        {
            "q": ["q1", "q2", "q1", "q2", "q1"],
            "A": ["x", "y", "x", "y", "x"],
            "B": ["y", "x", "y", "x", "y"],
            "winner": ["a", "b", "tie", "a", "b"],
            "who": ["r1", "r2", "r2", "r3", " r2"],
            "j": ["a", "b", "a", "b", "a"],
        }
    )
    with pytest.raises(InputError) as error:
        _read(frame, source="t.csv")
    assert (error.value.row, error.value.column) == (6, "who")
    assert error.value.message == "rater 'r2' judged this battle twice (first on row 4)"
    assert str(error.value) == "t.csv: row 6: rater 'r2' judged this battle twice (first on row 4)"


@pytest.mark.parametrize(
    ("column", "value", "found"),
    [
        ("who", ["r1"], 'a list ["r1"]'),
        ("q", {"id": 1}, 'an object {"id": 1}'),
        ("B", ["y", "z"], "a list"),
        ("winner", {"verdict": "a"}, "an object"),
        ("j", ["a"], "a list"),
    ],
)
def test_a_nested_value_in_a_pair_column_is_an_error_naming_row_and_column(column, value, found):
    frame = _frame().astype(object)
    frame.at[2, column] = value
    with pytest.raises(InputError) as error:
        _read(frame, source="t.jsonl")
    assert (error.value.file, error.value.row, error.value.column) == ("t.jsonl", 4, column)
    assert error.value.message.startswith(f"column {column!r}: expected a single value, found {found}")


def test_a_pool_row_is_named_in_the_pool_and_json_nulls_read_from_a_file(tmp_path):
    from debias.io.reader import read_long_table

    pool = pd.DataFrame({"q": ["q8", "q9"], "A": ["y", " "], "B": ["x", "z"], "j": ["a", "b"]})
    with pytest.raises(InputError) as error:
        _read(_frame(), pool=pool)
    assert (error.value.file, error.value.row, error.value.column) == ("pool", 3, "A")
    lines = [
        {"q": "q1", "A": "x", "B": "y", "winner": "a", "who": "r1", "j": "a"},
        {"q": "q1", "A": "x", "B": "y", "winner": "b", "who": None, "j": "a"},
    ]
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    with pytest.raises(InputError) as error:
        _read(read_long_table(path), source=str(path))
    assert (error.value.row, error.value.column, error.value.message) == (3, "who", "column 'who' is empty")
    path.write_text(path.read_text().replace('"who": null', '"who": ["r2"]'))
    with pytest.raises(InputError, match=r"row 3: column 'who': expected a single value, found a list"):
        _read(read_long_table(path), source=str(path))


def test_missing_column_and_pool_table():
    frame = _frame().drop(columns="who")
    with pytest.raises(InputError, match="no column 'rater'"):
        debias.preferences(frame, item="q", system_a="A", system_b="B", verdict="winner", rater="rater")
    pool = pd.DataFrame({"q": ["q9"], "A": ["y"], "B": ["x"], "j": ["model_b"]})
    table = debias.preferences(
        frame.iloc[[0, 2, 4]], item="q", system_a="A", system_b="B", verdict="winner", judges=["j"], pool=pool
    )
    judge_rows = table.query("estimator == 'judge:j' and estimand == 'win_rate'").set_index("system")
    assert judge_rows.loc["x", "n_judge"] == 2  # q1 and the pool's q9
    assert judge_rows.loc["x", "estimate"] == 1.0


def test_level_defaults_to_the_configured_one_at_call_time(monkeypatch):
    import debias.api

    frame = _frame()
    args = dict(item="q", system_a="A", system_b="B", verdict="winner", rater="who")
    assert set(debias.preferences(frame, **args)["level"]) == {0.95}
    monkeypatch.setattr(debias.api, "section_defaults", lambda section: {"level": 0.9})
    assert set(debias.preferences(frame, **args)["level"]) == {0.9}


# A synthetic world ----------------------------------------------------------------------------


def _world(seed, *, n_battles=3000, n_systems=5, n_labelled=400, ties=True, n_judges=2, missing=0.0):
    """Battles from a Bradley-Terry model with ties, judges that agree with people more or less."""
    rng = np.random.default_rng(seed)
    strength = np.linspace(-1, 1, n_systems)
    a = rng.integers(0, n_systems, n_battles)
    b = (a + rng.integers(1, n_systems, n_battles)) % n_systems
    p = expit(strength[a] - strength[b])
    u = rng.random(n_battles)
    tie = 0.2 if ties else 0.0
    human = np.where(u < tie, 0.5, (u < tie + (1 - tie) * p).astype(float))
    judges = {}
    for j in range(n_judges):
        agree = rng.random(n_battles) < 0.8 - 0.2 * j
        other = rng.choice([0.0, 0.5, 1.0], n_battles)
        verdict = np.where(agree, human, other)
        verdict[rng.random(n_battles) < missing] = np.nan
        judges[f"j{j}"] = verdict
    labelled = np.zeros(n_battles, bool)
    labelled[rng.choice(n_battles, n_labelled, replace=False)] = True
    names = [f"s{k}" for k in range(n_systems)]
    pairs = JudgedPairs.from_arrays(
        [names[k] for k in a], [names[k] for k in b], np.where(labelled, human, np.nan), judges, systems=names
    )
    return pairs, labelled


def _design(pairs, reference=0):
    x = np.zeros((pairs.n_battles, pairs.n_systems))
    x[np.arange(pairs.n_battles), pairs.system_a] = 1
    x[np.arange(pairs.n_battles), pairs.system_b] = -1
    return np.delete(x, reference, axis=1)


def _scores(pairs, mask, s):
    """System s's human scores in its battles within ``mask``."""
    as_a, as_b = mask & (pairs.system_a == s), mask & (pairs.system_b == s)
    return np.r_[pairs.human_mean[as_a], 1 - pairs.human_mean[as_b]]


def _differences(theta):
    return theta[:, None] - theta[None, :]


# Bradley-Terry against a direct fit and ppi-python --------------------------------------------

#: ppi-python's logistic fits start from scikit-learn, which warns about an argument it passes.
pytestmark = pytest.mark.filterwarnings("ignore:'penalty' was deprecated:FutureWarning")


def test_human_strengths_are_the_logistic_maximum_likelihood_fit_with_ties_as_half_wins():
    pairs, labelled = _world(1)
    x, y = _design(pairs)[labelled], pairs.human_mean[labelled]

    def loss(beta):
        z = x @ beta
        return -np.sum(y * log_expit(z) + (1 - y) * log_expit(-z))

    def gradient(beta):
        return x.T @ (expit(x @ beta) - y)

    direct = minimize(loss, np.zeros(x.shape[1]), jac=gradient, method="BFGS", options={"gtol": 1e-11}).x
    direct = np.concatenate([[0.0], direct])
    ours = bradley_terry(pairs, "human", level=0.9).estimate
    assert np.max(np.abs(_differences(ours) - _differences(direct))) < 1e-6
    assert abs(ours.mean()) < 1e-12  # centred
    assert np.any(y == 0.5)


def test_human_strengths_equal_ppi_python_without_ties():
    pairs, labelled = _world(2, ties=False)
    x = _design(pairs)
    theirs = ppi_logistic_pointestimate(
        x[labelled],
        pairs.human_mean[labelled],
        pairs.judge_verdicts[labelled, 0],
        x[~labelled],
        pairs.judge_verdicts[~labelled, 0],
        lam=0,
    )
    ours = bradley_terry(pairs, "human", level=0.9).estimate
    assert np.max(np.abs(_differences(ours) - _differences(np.concatenate([[0.0], theirs])))) < 1e-6


@pytest.mark.parametrize("n_systems", [2, 4])
def test_ppi_strengths_equal_ppi_pythons_logistic_ppi(n_systems):
    """Same estimator: one weight minimising the trace of the covariance, which for two systems is
    the same in any parametrisation; for more systems the weight is compared through the interval
    ppi-python gives at our weight."""
    pairs, labelled = _world(3 + n_systems, ties=False, n_systems=n_systems, n_judges=1)
    x = _design(pairs)
    args = (x[labelled], pairs.human_mean[labelled], pairs.judge_verdicts[labelled, 0], x[~labelled])
    unlabelled = pairs.judge_verdicts[~labelled, 0]
    ours = bradley_terry(pairs, "ppi++:j0", level=0.9, small_sample=False)  # ppi-python's sandwich
    lam = float(ours.weights[0])
    assert 0 < lam < 1
    if n_systems == 2:
        theirs = ppi_logistic_pointestimate(*args, unlabelled, lam=None)
        assert abs((ours.estimate[1] - ours.estimate[0]) - theirs[0]) < 1e-6
    theirs = ppi_logistic_pointestimate(*args, unlabelled, lam=lam)
    assert np.max(np.abs(_differences(ours.estimate) - _differences(np.concatenate([[0.0], theirs])))) < 1e-6
    low, high = ppi_logistic_ci(*args, unlabelled, alpha=0.1, lam=lam)
    c = ours.covariance
    se_difference = np.sqrt(c.diagonal()[1:] + c[0, 0] - 2 * c[0, 1:])
    np.testing.assert_allclose(se_difference * 2 * 1.6448536269514722, high - low, rtol=1e-5)


def test_small_sample_correction_widens_only_what_few_human_battles_carry():
    """The t-type widening: by the Satterthwaite factor of each system, so that the interval is
    the sandwich one with Student's t in place of the normal quantile; systems with many human
    battles barely move, the estimate never does."""
    from scipy.stats import norm, t

    from debias.stats.preferences.bradley_terry import satterthwaite_df, small_sample_scale

    pairs, _ = _world(5, ties=False, n_systems=4, n_judges=1)
    for name in ("human", "ppi++:j0"):
        plain = bradley_terry(pairs, name, level=0.9, small_sample=False)
        wide = bradley_terry(pairs, name, level=0.9)
        np.testing.assert_array_equal(plain.estimate, wide.estimate)
        ratio = wide.se / plain.se
        assert np.all(ratio > 1.0) and np.all(ratio < 1.2)
    assert satterthwaite_df([1.0], [0.0], [5])[0] == 4.0  # people alone: m - 1
    assert satterthwaite_df([1.0], [1.0], [5])[0] == 16.0  # half from the pool: (m - 1) * 4
    assert satterthwaite_df([0.0], [1.0], [1])[0] == np.inf
    np.testing.assert_allclose(small_sample_scale([4.0], 0.9), t.ppf(0.95, 4) / norm.ppf(0.95))
    assert small_sample_scale([0.0], 0.9)[0] == np.inf


def test_a_strength_resting_on_one_human_battle_has_no_interval_and_says_so():
    from debias.stats.preferences.battles import FEW_HUMAN

    rng = np.random.default_rng(4)
    a = list(rng.choice(["x", "y", "z"], 300))
    b = [{"x": "y", "y": "z", "z": "x"}[s] for s in a] + ["w"] * 40
    a = a + list(rng.choice(["x", "y"], 40))
    human = rng.integers(0, 2, 340).astype(float)
    human[300:] = np.nan
    human[300] = 0.5  # w ties its one human battle (a win or a loss alone leaves it unidentifiable)
    judge = rng.integers(0, 2, 340).astype(float)
    pairs = JudgedPairs.from_arrays(a, b, human, {"j": judge})
    fit = bradley_terry(pairs, "ppi++:j", level=0.9)
    w = fit.systems.index("w")
    assert np.isfinite(fit.estimate[w]) and np.isnan(fit.se[w]) and fit.notes[w] == FEW_HUMAN
    assert np.all(np.isfinite(np.delete(fit.se, w)))


def test_combined_weights_beat_each_judge_on_the_trace_they_minimise():
    pairs, _ = _world(11, n_judges=3)
    total = {
        name: np.nansum(bradley_terry(pairs, name, level=0.9).se ** 2)
        for name in ["ppi++:j0", "ppi++:j1", "ppi++:combined"]
    }
    assert total["ppi++:combined"] <= min(total["ppi++:j0"], total["ppi++:j1"]) * 1.01


# Win rates against ppi-python -------------------------------------------------------------------


def test_win_rate_ppi_equals_ppi_mean_ci_on_two_systems():
    pairs, labelled = _world(5, n_systems=2, n_judges=1)
    ours = win_rates(pairs, "ppi++:j0", level=0.9)
    for s in range(2):
        score = np.where(pairs.system_a == s, pairs.human_mean, 1 - pairs.human_mean)
        judge = np.where(pairs.system_a == s, pairs.judge_verdicts[:, 0], 1 - pairs.judge_verdicts[:, 0])
        low, high = ppi_mean_ci(score[labelled], judge[labelled], judge[~labelled], alpha=0.1)
        mine = ppi_tuned_mean_ci(score[labelled], judge[labelled], PopulationSums.of(judge), level=0.9)
        assert ours.estimate[s] == pytest.approx(float(mine[0]), abs=1e-12)
        # ppi_py's Wald interval, widened only to contain the Agresti-Coull interval
        sandwich = (float(high[0]) - float(low[0])) / (2 * ndtri(0.95))
        n = int(labelled.sum())
        wider = proportion_covariance(ours.estimate[s : s + 1], [[sandwich**2]], [n], 0.9)
        assert ours.se[s] == pytest.approx(float(np.sqrt(wider[0, 0])), rel=1e-9)
        assert ours.ci_low[s] <= float(low[0]) + 1e-12 and ours.ci_high[s] >= float(high[0]) - 1e-12
        assert sandwich <= ours.se[s] < 1.15 * sandwich
    # the two win rates add up to 1: their covariance is singular, with correlation -1
    assert ours.estimate.sum() == pytest.approx(1.0)
    assert ours.covariance[0, 1] == pytest.approx(-ours.covariance[0, 0])


def test_win_rates_of_many_systems_are_per_system_means_with_joint_covariance():
    pairs, labelled = _world(6)
    human = win_rates(pairs, "human", level=0.9)
    judge = win_rates(pairs, "judge:j0", level=0.9)
    for s in range(pairs.n_systems):
        mine = np.r_[
            pairs.human_mean[labelled & (pairs.system_a == s)], 1 - pairs.human_mean[labelled & (pairs.system_b == s)]
        ]
        assert human.estimate[s] == pytest.approx(mine.mean())
        wald = mine.std() / np.sqrt(mine.size)
        wider = proportion_covariance([mine.mean()], [[wald**2]], [mine.size], 0.9)
        assert human.se[s] == pytest.approx(float(np.sqrt(wider[0, 0])))
        assert wald * (1 - 1e-12) <= human.se[s] < 1.15 * wald
        verdicts = pairs.judge_verdicts[:, 0]
        theirs = np.r_[verdicts[pairs.system_a == s], 1 - verdicts[pairs.system_b == s]]
        assert judge.estimate[s] == pytest.approx(theirs.mean())
    assert np.allclose(human.covariance, human.covariance.T)
    assert np.all(np.linalg.eigvalsh(human.covariance) > -1e-12)
    # systems that met in battles covary negatively (one's win is the other's loss)
    assert np.all(human.covariance[~np.eye(pairs.n_systems, dtype=bool)] < 0)
    assert judge.biased and not human.biased


def test_win_rate_draws_agree_with_one_call_per_draw():
    pairs, _ = _world(7, n_labelled=3000)  # every battle labelled
    rng = np.random.default_rng(0)
    masks = np.zeros((3, pairs.n_battles), bool)
    for r in range(3):
        masks[r, rng.choice(pairs.n_battles, 300, replace=False)] = True
    draws = win_rate_draws(pairs, masks, ["human", "ppi++:j0", "ppi++:combined"], level=0.9)
    for r in range(3):
        one = pairs.without_human(~masks[r])
        for name, (estimate, covariance, n_human) in draws.items():
            single = win_rates(one, name, level=0.9)
            np.testing.assert_allclose(estimate[r], single.estimate, atol=1e-12)
            np.testing.assert_allclose(covariance[r], single.covariance, atol=1e-12)
            np.testing.assert_array_equal(n_human[r], single.n_judged)


def test_ties_dropped_is_the_share_of_decisive_battles_won():
    pairs, labelled = _world(8)
    result = win_rates(pairs, "human", ties="drop", level=0.9)
    s = 2
    score = np.r_[
        pairs.human_mean[labelled & (pairs.system_a == s)], 1 - pairs.human_mean[labelled & (pairs.system_b == s)]
    ]
    decisive = score[score != 0.5]
    assert result.estimate[s] == pytest.approx(decisive.mean())
    assert result.se[s] == pytest.approx(decisive.std() / np.sqrt(decisive.size), rel=1e-9)


# Degenerate data ------------------------------------------------------------------------------


def test_a_system_without_human_battles_gets_a_reason_not_a_crash():
    pairs, labelled = _world(9)
    silent = pairs.without_human((pairs.system_a == 4) | (pairs.system_b == 4))
    for result in preference_estimates(silent, level=0.9):
        if result.biased:
            assert np.isfinite(result.estimate).all()
        else:
            assert result.notes[4] == NO_HUMAN and np.isnan(result.estimate[4])
            assert np.isfinite(result.estimate[:4]).all() and np.isfinite(result.covariance[:4, :4]).all()


def test_all_ties_one_battle_and_a_judge_answering_garbage():
    ties = JudgedPairs.from_arrays(["x", "y", "x"], ["y", "z", "z"], [0.5, 0.5, 0.5], {"j": [1, np.nan, 0]})
    assert win_rates(ties, level=0.9).estimate.tolist() == [0.5, 0.5, 0.5]
    assert np.allclose(bradley_terry(ties, level=0.9).estimate, 0.0)
    assert win_rates(ties, ties="drop", level=0.9).notes == (ALL_TIES,) * 3
    one = JudgedPairs.from_arrays(["x"], ["y"], [1.0])
    for result in preference_estimates(one, level=0.9):
        assert all(result.notes) and not np.isfinite(result.ci_high).any()
    garbage = JudgedPairs(
        ("x", "y"), [0, 1, 0, 1], [1, 0, 1, 0], [1, 0, 0.5], [1, 1, 1, 0], ("j",), np.full((4, 1), np.nan), None, [4]
    )
    judge = win_rates(garbage, "judge:j", level=0.9)
    assert judge.notes == (NO_JUDGE, NO_JUDGE) and judge.n_missing.tolist() == [4, 4]
    ppi = win_rates(garbage, "ppi++:j", level=0.9)
    np.testing.assert_allclose(ppi.estimate, win_rates(garbage, "human", level=0.9).estimate)
    assert judge_agreement(garbage, level=0.9)[0].n_unknown == 4


def test_a_pool_of_one_battle_gives_estimates_not_a_crash():
    pairs, labelled = _world(13, n_battles=300, n_labelled=299, n_systems=4)
    for estimator in ["ppi++:j0", "ppi++:combined"]:
        strength, human = bradley_terry(pairs, estimator, level=0.9), bradley_terry(pairs, "human", level=0.9)
        assert np.isfinite(strength.estimate).all() and np.isfinite(strength.se).all()
        assert np.all(strength.se < 2 * human.se)
        assert np.isfinite(win_rates(pairs, estimator, level=0.9).se).all()


def test_data_efficiency_and_agreement_on_a_good_judge():
    pairs, _ = _world(10, n_battles=6000, n_labelled=600)
    human = win_rates(pairs, "human", level=0.9)
    good = win_rates(pairs, "ppi++:j0", level=0.9)
    assert data_efficiency(human, human) == 1.0
    assert data_efficiency(good, human) > 1.2
    agreement = {a.judge: a for a in judge_agreement(pairs, level=0.9)}
    assert agreement["j0"].accuracy > agreement["j1"].accuracy
    assert 0 < agreement["j1"].kappa < agreement["j0"].kappa < 1
    assert np.all(agreement["j0"].bias_ci_low <= agreement["j0"].bias_ci_high)


def test_estimator_names_and_unknown_ones():
    assert preference_estimator_names(["g"]) == ["human", "judge:g", "ppi++:g"]
    assert preference_estimator_names(["g", "c"])[-1] == "ppi++:combined"
    pairs, _ = _world(12, n_judges=1)
    with pytest.raises(ValueError, match="ppi\\+\\+:combined needs at least two judges"):
        win_rates(pairs, "ppi++:combined", level=0.9)
    with pytest.raises(ValueError, match="unknown estimator"):
        bradley_terry(pairs, "cv:j0", level=0.9)
    with pytest.raises(ValueError, match="level"):
        win_rates(pairs, level=1.5)


# The command ------------------------------------------------------------------------------------


def test_command_prints_rows_and_names_file_row_and_column_on_bad_input(tmp_path, capsys):
    from debias.cli.analyse import main

    path = tmp_path / "battles.csv"
    _frame().to_csv(path, index=False)
    args = ["preferences", str(path), "--item", "q", "--system-a", "A", "--system-b", "B", "--verdict", "winner"]
    assert main([*args, "--rater", "who", "--judge", "j", "--level", "0.9"]) == 0
    table = pd.read_csv(__import__("io").StringIO(capsys.readouterr().out))
    assert list(table.columns) == debias.tables.preferences.PREFERENCE_COLUMNS
    assert len(table) == 3 * 2 * 3 and set(table["level"]) == {0.9}
    if find_spec("matplotlib") is not None:  # the figures are the extra 'workflow' (make test-oldest: core only)
        assert main([*args, "--judge", "j", "--figure", str(tmp_path / "rates")]) == 0
        assert (tmp_path / "rates.pdf").stat().st_size > 0 and (tmp_path / "rates.png").stat().st_size > 0
        capsys.readouterr()
    assert main([*args, "--judge", "j", "--agreement"]) == 0
    assert "kappa" in capsys.readouterr().out
    _frame().assign(winner=["model_a", "tie", "b", None, "left"]).to_csv(path, index=False)
    assert main([*args, "--rater", "who", "--judge", "j"]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"debias preferences: error: {path}: row 6: column 'winner': unknown human verdicts")


def test_figure_draws_one_bar_per_estimator_and_system():
    pytest.importorskip("matplotlib")
    from debias.plots import draw_preferences

    pairs, _ = _world(14, n_systems=4)
    from debias.tables.preferences import preference_table

    table = preference_table(pairs, level=0.8)
    fig = draw_preferences(table, title="synthetic")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()][::-1] == list(
        table.query("estimand == 'win_rate' and estimator == 'human'").sort_values("estimate")["system"]
    )
    assert len(ax.containers) == len(preference_estimator_names(pairs.judges))
    assert all(len(c.lines[0].get_xdata()) == 4 for c in ax.containers)
    assert "80% intervals" in fig._suptitle.get_text()
    with pytest.raises(ValueError, match="no rows of estimator"):
        draw_preferences(table, estimators=["cv:bleu"])
    assert ax.get_xlabel() == "win rate (ties counted as half a win)"
    dropped = draw_preferences(preference_table(pairs, level=0.8, ties="drop"), ties="drop")
    assert dropped.axes[0].get_xlabel() == "win rate (ties left out of the win rates)"  # the rule drawn
    from debias.plots import draw_preference_leaderboard
    from debias.stats.preferences import preference_estimates
    from debias.tables.leaderboard import preferences_leaderboard

    board = preferences_leaderboard(preference_estimates(pairs, level=0.8, ties="drop"), level=0.8)
    labels = [a.get_xlabel() for a in draw_preference_leaderboard(board, title="t", ties="drop").axes]
    assert "win rate (ties left out of the win rates)" in labels


# The statistics core's shared pieces ---------------------------------------------------------------


def test_power_tuned_weights_one_rule_for_one_and_several_proxies():
    from debias.stats.common.ppi import power_tuned_weights

    cross = np.array([[0.3], [2.0], [-1.0], [0.5]])
    variance = np.array([[[0.6]], [[1.0]], [[1.0]], [[0.0]]])
    assert power_tuned_weights(cross, variance)[:, 0].tolist() == [0.5, 1.0, 0.0, 0.0]
    a = np.array([[2.0, 0.5], [0.5, 1.0]])
    c = np.array([1.0, -3.0])
    np.testing.assert_allclose(power_tuned_weights(c, a), np.linalg.solve(a, c))  # not clipped
    stacked = power_tuned_weights(np.stack([c, 2 * c]), np.stack([a, a]))
    np.testing.assert_allclose(stacked[1], 2 * np.linalg.solve(a, c))


def test_effective_n_and_the_unknown_estimator_message():
    from debias.stats.common.intervals import effective_n

    assert effective_n(100, 0.04, 0.02) == 200.0
    # every judgment the same: both variances 0, the estimate does as well as the baseline
    assert effective_n(np.array([5, 5, 5]), np.array([0.0, 0.1, np.nan]), np.array([0.0, 0.0, 0.1])).tolist()[:2] == [
        5.0,
        np.inf,
    ]
    assert np.isnan(effective_n(5, np.nan, 0.1))
    pairs, _ = _world(12, n_judges=2)
    with pytest.raises(ValueError, match=r"available: \['human', 'judge:j0', 'ppi\+\+:j0'"):
        win_rates(pairs, "mean", level=0.9)
    with pytest.raises(ValueError, match="unknown estimator 'judge:j9'"):
        win_rates(pairs, "judge:j9", level=0.9)


def test_one_analysis_groups_its_battles_once(monkeypatch):
    import debias.stats.preferences.battles as battles

    calls = []
    original = battles.group_battles
    monkeypatch.setattr(battles, "group_battles", lambda *args: calls.append(1) or original(*args))
    pairs, _ = _world(14, n_battles=400, n_labelled=100)
    results = preference_estimates(pairs, level=0.9)
    assert len(results) == 2 * len(preference_estimator_names(pairs.judges))
    assert len(calls) == 1 + len(pairs.judges)  # the human labelling, and each judge's answers once
    assert results[1].biased and results[1].info.proxy == "j0" and not results[0].biased


def test_with_ties_left_out_a_win_rate_rests_on_its_decisive_battles():
    frame = pd.DataFrame({"q": [f"q{i}" for i in range(65)], "A": "x", "B": "y", "w": ["tie"] * 60 + ["a"] * 5})
    pairs = debias.read_pairs(frame, item="q", system_a="A", system_b="B", verdict="w")
    table = debias.preferences(pairs, ties="drop")
    rates = table[table["estimand"] == "win_rate"]
    assert rates["n_judged"].tolist() == [5, 5] and rates["note"].str.contains("5 human battles").all()
    assert debias.preferences(pairs)["n_judged"].tolist() == [65] * 4  # ties half a win: every battle
    many = pd.DataFrame({"q": [f"q{i}" for i in range(412)], "A": "x", "B": "y", "w": ["tie"] * 400 + ["a"] * 12})
    state = debias.status(
        debias.read_pairs(many, item="q", system_a="A", system_b="B", verdict="w"), "better:x,y", ties="drop"
    )
    assert not state.resolved and state.rows[0].votes == 12  # 12 decisive votes: below the guard


def test_mappings_refuse_a_value_given_twice_and_read_none_as_no_verdict():
    from debias.data.pairs import parse_mapping

    with pytest.raises(ValueError, match="'1' is mapped twice"):
        parse_mapping("1=a,1=b")
    assert parse_mapping("1=a,2=none") == {"1": "a", "2": None}
    with pytest.raises(ValueError, match="keys 1 and '1' are the same value"):
        verdict_codes([1, 2], mapping={1: "a", "1": "b"})


def test_names_that_look_the_same_but_differ_are_refused_with_their_rows():
    for twin in ("cafe\u0301", "caf\u00e9\u200b"):
        frame = pd.DataFrame({"q": ["q1", "q2"], "A": ["caf\u00e9", "z"], "B": ["z", twin], "w": ["a", "b"]})
        with pytest.raises(ValueError, match=r"row 3: column 'B': .* looks the same as 'café' \(table: row 2\)"):
            debias.read_pairs(frame, item="q", system_a="A", system_b="B", verdict="w")


def test_a_system_whose_name_holds_a_comma_can_be_asked_about_quoted():
    frame = pd.DataFrame({"q": [f"q{i}" for i in range(40)], "A": "x, y", "B": "z", "w": ["a", "b"] * 20})
    pairs = debias.read_pairs(frame, item="q", system_a="A", system_b="B", verdict="w")
    assert debias.status(pairs, 'better:"x, y",z').rows[0].first == "x, y"
    with pytest.raises(ValueError, match="quote a name holding a comma"):
        debias.status(pairs, "better:x, y,z")


def test_a_frame_whose_column_labels_are_numbers_reads_by_those_labels():
    frame = pd.DataFrame({0: ["q1", "q2", "q3"], 1: ["x", "y", "x"], 2: ["y", "x", "z"], 3: ["a", "b", "tie"]})
    pairs = debias.read_pairs(frame, item=0, system_a=1, system_b=2, verdict=3)
    assert pairs.systems == ("x", "y", "z") and pairs.n_battles == 3
    ratings = debias.read_ratings(pd.DataFrame({0: ["s1", "s2", "s3"], 1: [3, 4, 5]}), item=0, judgment=1)
    assert ratings.systems and len(ratings.prompts) == 1
    with pytest.raises(ValueError, match="expected a column name, found 7"):
        debias.read_pairs(frame, item=7, system_a=1, system_b=2, verdict=3)
    with pytest.raises(ValueError, match="the same once written as text"):
        debias.read_pairs(frame.rename(columns={3: "1"}), item=0, system_a=1, system_b=2, verdict="1")


def test_a_judges_probability_out_of_range_is_named_alone_at_its_row():
    frame = pd.DataFrame(
        {"q": ["q1", "q2", "q3", "q4"], "A": ["x", "y", "x", "y"], "B": ["y", "x", "y", "x"], "w": "a"}
    ).assign(j=[0.2, 0.7, 1.5, 0.4])
    with pytest.raises(ValueError, match=r"row 4: column 'j': .*: 1\.5 \(1x\);") as error:
        debias.read_pairs(frame, item="q", system_a="A", system_b="B", verdict="w", judges=["j"])
    assert "0.2" not in str(error.value).split(";")[0]


def test_next_draws_a_first_batch_before_any_human_verdict():
    frame = pd.DataFrame(
        {"q": [f"q{i}" for i in range(30)], "A": ["x", "y", "z"] * 10, "B": ["y", "z", "x"] * 10, "w": ""}
    )
    pairs = debias.read_pairs(frame, item="q", system_a="A", system_b="B", verdict="w")
    first = debias.next_battles(pairs, "top:1", 5, seed=1)
    assert len(first.battles) == 5 and first.battles["item"].is_unique
    assert first.answer.startswith("no human verdict yet")
    again = debias.next_battles(pairs, "top:1", 5, seed=1)
    pd.testing.assert_frame_equal(first.battles, again.battles)
    with pytest.raises(ValueError, match="top:9"):
        debias.next_battles(pairs, "top:9", 5)
    with pytest.raises(ValueError, match="nothing to say about people yet"):
        debias.status(pairs, "top:1")


def test_next_for_strengths_does_not_stall_when_the_open_pair_has_no_battle_left():
    rng = np.random.default_rng(0)
    beta = {"a": 0.3, "b": 0.25, "c": -0.5, "d": -0.6}
    rows = []
    for first, second in [("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"), ("c", "d")]:
        for k in range(60):
            won = rng.random() < 1 / (1 + np.exp(beta[second] - beta[first]))
            judged = (first, second) == ("a", "b") or k < 30  # every battle of a-b judged already
            rows.append(
                {"q": f"{first}{second}{k}", "A": first, "B": second, "w": ("a" if won else "b") if judged else ""}
            )
    pairs = debias.read_pairs(pd.DataFrame(rows), item="q", system_a="A", system_b="B", verdict="w")
    state = debias.status(pairs, "better:a,b", estimand="strength")
    assert not state.resolved
    chosen = debias.next_battles(pairs, "better:a,b", 10, estimand="strength")
    assert len(chosen.battles) == 10 and chosen.note == ""  # every battle of a or b is eligible
    sides = zip(chosen.battles["system_a"], chosen.battles["system_b"])
    assert all({first, second} & {"a", "b"} for first, second in sides)


def test_the_table_lists_each_estimand_and_estimator_best_first_ties_by_name():
    from debias.tables.preferences import preference_table

    rng = np.random.default_rng(11)
    names = ["delta", "alpha", "charlie", "bravo"]
    a = rng.integers(0, 4, 300)
    b = (a + rng.integers(1, 4, 300)) % 4
    human = np.where(rng.random(300) < 1 / (1 + np.exp(0.5 * (a - b))), 1.0, 0.0)
    judge = np.where(rng.random(300) < 0.8, human, 1.0 - human)
    pairs = JudgedPairs.from_arrays([names[k] for k in a], [names[k] for k in b], human, {"j": judge})
    table = preference_table(pairs, level=0.9)
    blocks = list(dict.fromkeys(zip(table["estimand"], table["estimator"])))
    assert [e for e, _ in blocks] == ["win_rate"] * 3 + ["strength"] * 3  # the estimands' order
    for estimand, estimator in blocks:
        rows = table[(table["estimand"] == estimand) & (table["estimator"] == estimator)]
        assert len(rows) == 4 and np.all(np.diff(rows["estimate"].to_numpy()) <= 0)
    # equal estimates (every battle a tie): in the order of the names
    even = JudgedPairs.from_arrays(["b", "c", "a"], ["c", "a", "b"], [0.5, 0.5, 0.5])
    rows = preference_table(even, level=0.9).query("estimand == 'win_rate'")
    assert rows["system"].tolist() == ["a", "b", "c"]
