"""Style control, Davidson's ties and win rates against a baseline, each checked against a direct fit."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize
from scipy.special import expit, log_expit

import debias
from debias.data import JudgedPairs
from debias.io.rules import InputError
from debias.stats.preferences.battles import Battles
from debias.stats.preferences.bradley_terry import bradley_terry
from debias.stats.preferences.design import design_fit, outcome_statistics
from debias.stats.preferences.estimands import preference_estimates
from debias.stats.preferences.style import adjusted_estimates, baseline_estimates, covariate_differences

ROOT = Path(__file__).resolve().parents[1]
COLUMNS = dict(item="q", system_a="A", system_b="B", verdict="winner")


def world(seed=0, n_systems=5, n_battles=3000, beta=0.4, nu=None, human_share=0.3, cluster_size=1):
    """Battles with a length covariate, verdicts from Bradley-Terry (ties at random, 15%) or
    Davidson's model (``nu``), a judge right 70% of the time, people on a random share."""
    rng = np.random.default_rng(seed)
    names = [f"m{k}" for k in range(n_systems)]
    truth = np.linspace(-1, 1, n_systems)
    a = rng.integers(0, n_systems, n_battles)
    b = (a + rng.integers(1, n_systems, n_battles)) % n_systems
    sides = rng.lognormal(6.0, 0.5, (n_battles, 2))
    z = sides[:, 0] - sides[:, 1]
    z = z / np.sqrt(np.mean(z**2))
    eta = truth[a] - truth[b] + beta * z
    u = rng.random(n_battles)
    if nu is None:
        p = expit(eta)
        verdict = np.where(u < 0.85 * p, "model_a", np.where(u < 0.85 * p + 0.15, "tie", "model_b"))
    else:
        pa, pb = np.exp(eta / 2), np.exp(-eta / 2)
        total = pa + pb + nu
        verdict = np.where(u < pa / total, "model_a", np.where(u < (pa + nu) / total, "tie", "model_b"))
    judge = np.where(rng.random(n_battles) < 0.7, verdict, rng.choice(["model_a", "model_b", "tie"], n_battles))
    human = np.where(rng.random(n_battles) < human_share, verdict, None)
    frame = pd.DataFrame(
        {
            "q": np.arange(n_battles).astype(str),
            "c": (np.arange(n_battles) // cluster_size).astype(str),
            "A": [names[k] for k in a],
            "B": [names[k] for k in b],
            "winner": human,
            "j": judge,
            "k": np.where(rng.random(n_battles) < 0.6, verdict, "model_a"),
            "len_a": sides[:, 0],
            "len_b": sides[:, 1],
        }
    )
    return frame


def read(frame, judges=("j",), **extra):
    return debias.read_pairs(frame, **COLUMNS, judges=list(judges), covariates={"length": ("len_a", "len_b")}, **extra)


def score(verdicts):
    return np.select([verdicts == "model_a", verdicts == "model_b"], [1.0, 0.0], 0.5)


# --- the design fit is the plain fit when there is nothing to adjust for -------------------------


@pytest.mark.parametrize("estimator", ["human", "judge:j", "ppi++:j", "ppi++:combined"])
@pytest.mark.parametrize("cluster_size", [1, 3])
def test_no_covariate_is_the_plain_fit(estimator, cluster_size):
    pairs = read(world(cluster_size=cluster_size, n_battles=1500), judges=("j", "k"), cluster="c")
    plain = bradley_terry(pairs, estimator, level=0.9)
    (adjusted,) = adjusted_estimates(Battles.of(pairs), estimator, level=0.9, covariates=[])
    np.testing.assert_allclose(adjusted.estimate, plain.estimate, atol=1e-10)
    np.testing.assert_allclose(adjusted.covariance, plain.covariance, atol=1e-12, rtol=1e-8)
    np.testing.assert_allclose(adjusted.weights, plain.weights, atol=1e-10)


# --- against direct fits -------------------------------------------------------------------------


def direct_design(pairs, features):
    """Maximum likelihood of the fractional logistic model by a general optimiser, with the
    last system's strength as the reference; returns the centred strengths, the coefficients
    and the sandwich covariance of the coefficients (which the reference does not change)."""
    lab = pairs.labelled
    a, b, v = pairs.system_a[lab], pairs.system_b[lab], pairs.human_mean[lab]
    z = features[lab]
    s = pairs.n_systems
    x = np.zeros((a.size, s - 1 + z.shape[1]))
    for i, (p, q) in enumerate(zip(a, b)):  # a literal loop over the battles
        if p < s - 1:
            x[i, p] += 1.0
        if q < s - 1:
            x[i, q] -= 1.0
    x[:, s - 1 :] = z

    def loss(w):
        eta = x @ w
        return -np.mean(v * log_expit(eta) + (1 - v) * log_expit(-eta))

    def grad(w):
        return x.T @ (expit(x @ w) - v) / v.size

    w = minimize(loss, np.zeros(x.shape[1]), jac=grad, method="BFGS", options={"gtol": 1e-12, "maxiter": 10000}).x
    theta = np.append(w[: s - 1], 0.0)
    p = expit(x @ w)
    hessian = (x * (p * (1 - p))[:, None]).T @ x / v.size
    scores = x * (p - v)[:, None]
    meat = np.cov(scores.T, ddof=1) / v.size
    inverse = np.linalg.inv(hessian)
    sandwich = inverse @ meat @ inverse
    return theta - theta.mean(), w[s - 1 :], sandwich[s - 1 :, s - 1 :]


def test_style_control_equals_a_direct_fit():
    pairs = read(world(seed=3))
    features = covariate_differences(pairs, ["length"])
    strength, coefficient = adjusted_estimates(Battles.of(pairs), "human", level=0.9, covariates=["length"])
    theta, beta, cov = direct_design(pairs, features)
    np.testing.assert_allclose(strength.estimate, theta, atol=1e-6)
    np.testing.assert_allclose(coefficient.estimate, beta, atol=1e-6)
    # small-sample widening is by t with 1,000-odd degrees of freedom: compare the plain sandwich
    fit = design_fit(
        pairs.system_a,
        pairs.system_b,
        pairs.n_systems,
        features,
        pairs.labelled,
        outcome_statistics(pairs.human_mean, None, "half"),
        [],
    )
    np.testing.assert_allclose(fit.covariance[-1, -1], cov[0, 0], rtol=1e-6)
    assert 0.25 < beta[0] < 0.55  # the covariate's effect, 0.4 in the world


def test_davidson_equals_a_direct_fit():
    frame = world(seed=5, nu=0.7, beta=0.3, human_share=0.5)
    pairs = read(frame)
    strength, coefficient, tie = adjusted_estimates(
        Battles.of(pairs, "davidson"), "human", level=0.9, ties="davidson", covariates=["length"]
    )
    lab = pairs.labelled
    a, b = pairs.system_a[lab], pairs.system_b[lab]
    v, t = pairs.human_mean[lab], pairs.human_share(0.5)[lab]
    z = covariate_differences(pairs, ["length"])[lab, 0]
    s = pairs.n_systems

    def loss(w):
        theta = np.append(w[: s - 1], 0.0)
        eta = theta[a] - theta[b] + w[s - 1] * z
        tau = w[s]
        log_d = np.logaddexp(np.logaddexp(eta / 2, -eta / 2), tau)
        win, lose = v - t / 2, 1 - v - t / 2
        return -np.mean(win * (eta / 2 - log_d) + lose * (-eta / 2 - log_d) + t * (tau - log_d))

    w = minimize(loss, np.zeros(s + 1), method="BFGS", options={"gtol": 1e-11, "maxiter": 10000}).x
    theta = np.append(w[: s - 1], 0.0)
    np.testing.assert_allclose(strength.estimate, theta - theta.mean(), atol=1e-5)
    np.testing.assert_allclose(coefficient.estimate, [w[s - 1]], atol=1e-5)
    np.testing.assert_allclose(tie.estimate, [np.exp(w[s])], rtol=1e-5)
    assert tie.ci_low[0] < 0.7 < tie.ci_high[0] or abs(tie.estimate[0] - 0.7) < 0.15
    assert tie.estimand == "tie_parameter" and tie.systems == ("",)


def test_length_controlled_win_rate_equals_alpacaeval_definition():
    """Per system, a logistic fit of its score against the baseline on [1, tanh(delta / sd)],
    delta its length less the baseline's, sd (ddof 1) over its battles with the baseline,
    read at delta = 0: sigma(intercept)."""
    frame = world(seed=11, human_share=1.0)
    pairs = read(frame)
    (plain, lc) = baseline_estimates(Battles.of(pairs), "human", level=0.9, baseline="m2", length_controlled=True)
    verdict = score(frame["winner"].to_numpy())
    for m in ["m0", "m1", "m3", "m4"]:
        mine_a = (frame["A"] == m) & (frame["B"] == "m2")
        mine_b = (frame["B"] == m) & (frame["A"] == "m2")
        y = np.concatenate([verdict[mine_a], 1 - verdict[mine_b]])
        delta = np.concatenate(
            [
                (frame["len_a"] - frame["len_b"])[mine_a].to_numpy(),
                (frame["len_b"] - frame["len_a"])[mine_b].to_numpy(),
            ]
        )
        x = np.column_stack([np.ones(y.size), np.tanh(delta / np.std(delta, ddof=1))])

        def loss(w, x=x, y=y):
            eta = x @ w
            return -np.mean(y * log_expit(eta) + (1 - y) * log_expit(-eta))

        w = minimize(loss, np.zeros(2), method="BFGS", options={"gtol": 1e-12}).x
        k = pairs.systems.index(m)
        assert abs(lc.estimate[k] - expit(w[0])) < 1e-6
        assert abs(plain.estimate[k] - y.mean()) < 1e-12
    base = pairs.systems.index("m2")
    assert np.isnan(lc.estimate[base]) and lc.notes[base] == "the baseline itself"


# --- Arena parity --------------------------------------------------------------------------------


def arena_pairs():
    with gzip.open(ROOT / "data" / "arena" / "human.jsonl.gz", "rt") as handle:
        frame = pd.DataFrame([json.loads(line) for line in handle])
    rng = np.random.default_rng(2024)
    sides = {
        "length": rng.lognormal(7.0, 0.6, (len(frame), 2)).round(),
        "headers": rng.poisson(1.5, (len(frame), 2)) * 1.0,
    }
    for name, value in sides.items():
        frame[f"{name}_a"], frame[f"{name}_b"] = value[:, 0], value[:, 1]
    return debias.read_pairs(
        frame,
        item="num",
        system_a="model_a",
        system_b="model_b",
        verdict="winner",
        covariates={name: (f"{name}_a", f"{name}_b") for name in sides},
    )


def test_arena_strengths_equal_arena_rank():
    """Stored arena-rank 0.1.1 fits (benchmarks/bench_style_control.py reference, float64): plain
    and style-controlled with the same two covariates, no penalty, no reweighting. With its L-BFGS
    stopping rule tightened the two agree to 1e-7; with its default rule (ftol = gtol = 1e-9) to
    its own precision, 3e-5 (its mean gradient there is 1e-7, ours 1e-15)."""
    reference = json.loads((ROOT / "tests" / "data" / "arena_rank_reference.json").read_text())
    pairs = arena_pairs()
    order = [pairs.systems.index(name) for name in reference["systems"]]
    plain = bradley_terry(pairs, level=0.95).estimate[order]
    strength, *coefficients = adjusted_estimates(
        Battles.of(pairs), "human", level=0.95, covariates=reference["covariates"]
    )
    styled = strength.estimate[order]
    beta = np.array([c.estimate[0] for c in coefficients])
    for suffix, tolerance in (("_tight", 1e-6), ("", 1e-4)):
        assert np.max(np.abs(plain - reference[f"plain{suffix}"])) < tolerance
        assert np.max(np.abs(styled - reference[f"style{suffix}"])) < tolerance
        assert np.max(np.abs(beta - reference[f"coefficients{suffix}"])) < tolerance


def test_arena_rank_live():
    """The same against arena-rank itself, where it is installed (it pins its own numpy, so it
    lives in an environment of its own: benchmarks/bench_style_control.py)."""
    pytest.importorskip("arena_rank")
    import sys

    sys.path.append(str(ROOT / "benchmarks"))
    from bench_style_control import TIGHT, arena_rank_fit, features_of, synthetic_sides

    pairs = arena_pairs()
    with gzip.open(ROOT / "data" / "arena" / "human.jsonl.gz", "rt") as handle:
        frame = pd.DataFrame([json.loads(line) for line in handle])
    features = features_of(synthetic_sides(len(frame)))
    names, styled, beta = arena_rank_fit(frame, features, solver=TIGHT)
    strength, *coefficients = adjusted_estimates(
        Battles.of(pairs), "human", level=0.95, covariates=["length", "headers"]
    )
    order = [pairs.systems.index(name) for name in names]
    assert np.max(np.abs(strength.estimate[order] - styled)) < 1e-6
    assert np.max(np.abs(np.array([c.estimate[0] for c in coefficients]) - beta)) < 1e-6


# --- what the tables and the API say -------------------------------------------------------------


def test_api_rows_and_names():
    frame = world(seed=2)
    table = debias.preferences(
        frame, **COLUMNS, judges=["j", "k"], covariates={"length": ("len_a", "len_b")}, baseline="m0", level=0.9
    )
    estimands = set(table["estimand"])
    assert {"strength", "coefficient:length", "baseline_win_rate", "lc_baseline_win_rate"} <= estimands
    rows = table[table["estimand"] == "coefficient:length"]
    assert set(rows["estimator"]) == {"human", "judge:j", "ppi++:j", "judge:k", "ppi++:k", "ppi++:combined"}
    assert (rows["system"] == "").all() and rows["estimate"].notna().all()
    davidson = debias.preferences(read(frame), ties="davidson", level=0.9)
    assert (davidson["estimand"] == "tie_parameter").sum() == 3  # human, judge:j, ppi++:j
    again = debias.preferences(read(frame), covariates=["length"], level=0.9)
    assert "coefficient:length" in set(again["estimand"])
    from debias.tables.leaderboard import preferences_leaderboard

    estimates = preference_estimates(read(frame), level=0.9, covariates=["length"], baseline="m0")
    ranked = [e for e in estimates if len(e.systems) > 1]
    board = preferences_leaderboard(ranked, level=0.9, seed=0, names=("evaluation",))
    strengths = board[(board["estimand"] == "strength") & (board["estimator"] == "human")]
    adjusted = table[(table["estimand"] == "strength") & (table["estimator"] == "human")]
    merged = strengths.merge(adjusted, on="system")
    np.testing.assert_allclose(merged["estimate_x"], merged["estimate_y"])
    assert (strengths["rank_low"] <= strengths["rank_high"]).all() and "baseline_win_rate" in set(board["estimand"])


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (dict(covariates={"size": ("size_a", "size_b")}), "size_b"),  # a column the frame lacks
        (dict(covariates={"length": ("len_a", "nope")}), "nope"),
        (dict(baseline="gpt-9"), "gpt-9"),
    ],
)
def test_clear_errors(change, words):
    frame = world(seed=1, n_battles=300)
    frame["size_a"] = 1.0
    with pytest.raises(InputError) as error:
        debias.preferences(frame, **COLUMNS, **change)
    assert words in str(error.value) and "Traceback" not in str(error.value)


def test_missing_constant_and_collinear_covariates():
    frame = world(seed=1, n_battles=300)
    missing = frame.assign(len_a=frame["len_a"].where(frame.index != 7))
    with pytest.raises(InputError, match="len_a"):
        debias.preferences(missing, **COLUMNS, covariates={"length": ("len_a", "len_b")})
    constant = frame.assign(same=3.0)
    with pytest.raises(InputError, match="constant"):
        debias.preferences(constant, **COLUMNS, covariates={"length": ("same", "same")})
    # a covariate that is 1 where m0 is A and -1 where it is B: m0's contrast itself
    m0 = frame.assign(c_a=(frame["A"] == "m0") * 1.0, c_b=(frame["B"] == "m0") * 1.0)
    with pytest.raises(InputError, match="collinear"):
        debias.preferences(m0, **COLUMNS, covariates={"m0": ("c_a", "c_b")})
    with pytest.raises(InputError, match="not read|read without"):
        debias.preferences(read(frame), covariates=["headers"])


def test_edges_give_a_number_or_a_reason():
    frame = world(seed=4, n_battles=400, human_share=1.0)
    ties = frame.assign(winner="tie")
    table = debias.preferences(ties, **COLUMNS, ties="davidson", level=0.9)
    human = table[table["estimator"] == "human"]
    tie = human[human["estimand"] == "tie_parameter"]
    assert tie["estimate"].isna().all() and "infinite" in tie["note"].iloc[0]
    assert human.loc[human["estimand"] == "strength", "note"].str.contains("not estimable").all()
    decisive = frame[frame["winner"] != "tie"]
    table = debias.preferences(decisive, **COLUMNS, ties="davidson", level=0.9)
    tie = table[(table["estimand"] == "tie_parameter") & (table["estimator"] == "human")]
    assert tie["estimate"].iloc[0] == 0.0 and "boundary" in tie["note"].iloc[0]
    three = pd.DataFrame(
        {"q": ["1", "2", "3"], "A": ["x", "y", "x"], "B": ["y", "x", "y"], "winner": ["model_a", "model_b", "tie"]}
    ).assign(len_a=[10.0, 20.0, 30.0], len_b=[12.0, 25.0, 20.0])
    table = debias.preferences(three, **COLUMNS, covariates={"length": ("len_a", "len_b")}, ties="davidson", level=0.9)
    for _, row in table.iterrows():
        assert np.isfinite(row["estimate"]) or row["note"], row.to_dict()


def test_preference_estimates_keep_the_plain_path():
    pairs = read(world(seed=9, n_battles=800))
    before = preference_estimates(pairs, level=0.9)
    assert [r.estimand for r in before] == ["win_rate"] * 3 + ["strength"] * 3
    with_baseline = preference_estimates(pairs, level=0.9, baseline="m1")
    assert [r.estimand for r in with_baseline][-3:] == ["baseline_win_rate"] * 3


def test_covariates_survive_take():
    pairs = read(world(seed=9, n_battles=50))
    sub = pairs.take(np.arange(10))
    np.testing.assert_array_equal(sub.covariates["length"], pairs.covariates["length"][:10])
    assert isinstance(pairs, JudgedPairs)


def test_style_counted_from_response_texts():
    from debias.io.style import style_counts

    texts = ["## Plan\n1. first\n2. **second**\n  - nested\n__note__", "short answer", "#not a header\n-no list"]
    counts = style_counts(texts)
    assert counts["headers"].tolist() == [1, 0, 0]
    assert counts["lists"].tolist() == [3, 0, 0]
    assert counts["bold"].tolist() == [2, 0, 0]
    assert counts["length"].tolist() == [len(t) for t in texts]
    rng = np.random.default_rng(0)
    n = 400
    frame = pd.DataFrame(
        {
            "q": np.arange(n).astype(str),
            "A": rng.choice(["x", "y", "z"], n),
            "winner": rng.choice(["model_a", "model_b", "tie"], n),
            "ra": ["# h\n" * int(k) + "- item\n" * int(m) + "word " * int(w) for k, m, w in rng.integers(0, 5, (n, 3))],
            "rb": ["**b** " * int(k) + "word " * int(w) for k, w in rng.integers(0, 5, (n, 2))],
        }
    )
    frame["B"] = np.where(frame["A"] == "x", "y", np.where(frame["A"] == "y", "z", "x"))
    table = debias.preferences(frame, **COLUMNS, covariates={"style": ("ra", "rb")}, level=0.9)
    coefficients = {e for e in table["estimand"] if e.startswith("coefficient:")}
    assert coefficients == {"coefficient:length", "coefficient:headers", "coefficient:lists", "coefficient:bold"}
    missing = frame.assign(ra=frame["ra"].where(frame.index != 5))
    with pytest.raises(InputError, match="ra"):
        debias.preferences(missing, **COLUMNS, covariates={"style": ("ra", "rb")})


def test_style_counts_that_never_differ_are_left_out_with_their_reason_and_length_is_still_fitted():
    rng = np.random.default_rng(3)
    n = 300
    frame = pd.DataFrame(
        {
            "q": np.arange(n).astype(str),
            "A": rng.choice(["x", "y", "z"], n),
            "winner": rng.choice(["model_a", "model_b"], n),
            "ra": ["word " * int(w) for w in rng.integers(1, 40, n)],  # plain text: no headers, lists or bold
            "rb": ["word " * int(w) for w in rng.integers(1, 40, n)],
        }
    )
    frame["B"] = np.where(frame["A"] == "x", "y", np.where(frame["A"] == "y", "z", "x"))
    table = debias.preferences(frame, **COLUMNS, covariates={"style": ("ra", "rb")}, level=0.9)
    rows = table[table["estimand"].str.startswith("coefficient:")].set_index("estimand")
    people = rows[rows["estimator"] == "human"]
    assert np.isfinite(people.loc["coefficient:length", "estimate"])
    for count in ("headers", "lists", "bold"):
        assert np.isnan(people.loc[f"coefficient:{count}", "estimate"])
        assert "same on both sides of every battle" in people.loc[f"coefficient:{count}", "note"]
    alone = frame.assign(la=0.0, lb=0.0)  # a covariate named on its own that never differs is still refused
    with pytest.raises((InputError, ValueError), match="constant"):
        debias.preferences(alone, **COLUMNS, covariates={"flat": ("la", "lb")})
