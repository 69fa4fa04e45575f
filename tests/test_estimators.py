"""Properties of the estimators of a system's mean human score and of their intervals."""

import numpy as np
import pandas as pd
import pytest

from debias.data import EvalSample
from debias.stats.checks.coverage import coverage_experiment, resolve_sample_sizes
from debias.stats.common.intervals import fold_labels, t_interval
from debias.stats.common.resampling import draw_samples
from debias.stats.ratings.combined import combined_terms
from debias.stats.ratings.control_variates import cv_terms
from debias.stats.ratings.estimate import estimate_mean
from debias.stats.ratings.estimators import REGISTRY, estimator_names, resolve_estimator
from debias.stats.ratings.theory import theory_variance
from debias.stats.ratings.variance import item_noise

#: The intervals' nominal coverage in these checks.
LEVEL = 0.8


# The estimators on arrays, as a notebook user calls them: one EvalSample, one registry name.
def sample_mean_ci(judgments, *, n_outputs, level=0.8, annotator_variance=None):
    sample = EvalSample.from_arrays(judgments, n_outputs=n_outputs)
    return estimate_mean(sample, "mean", level=level, annotator_variance=annotator_variance)


def cv_mean_ci(judgments, scores, all_scores, *, level=0.8, annotator_variance=None):
    sample = EvalSample.from_arrays(judgments, scores, all_scores=all_scores)
    return estimate_mean(sample, "cv:m0", level=level, annotator_variance=annotator_variance)


def cv_combined_mean_ci(judgments, scores, all_scores, *, level=0.8, annotator_variance=None, **options):
    sample = EvalSample.from_arrays(judgments, scores, all_scores=all_scores)
    return estimate_mean(sample, "cv:combined", level=level, annotator_variance=annotator_variance, **options)


def ppi_tuned_mean_ci(judgments, scores, unjudged_scores, *, level=0.8):
    sample = EvalSample.from_arrays(judgments, scores, unjudged_scores=unjudged_scores)
    return estimate_mean(sample, "ppi++:m0", level=level)


SIGMA2_F, SIGMA2_A, MU = 0.5, 0.3, 1.0


def gaussian(rng, reps, n, rho):
    """(reps, n) one-judgment samples: g ~ N(0, 1), f = MU + rho sigma_f g + ..., y = f + noise."""
    sigma_f = np.sqrt(SIGMA2_F)
    g = rng.standard_normal((reps, n))
    f = MU + rho * sigma_f * g + sigma_f * np.sqrt(1 - rho**2) * rng.standard_normal((reps, n))
    return f + np.sqrt(SIGMA2_A) * rng.standard_normal((reps, n)), g


@pytest.mark.parametrize("rho", [0.0, 0.7, -0.8])
def test_cv_is_unbiased_with_the_variance_of_eq6(rho):
    rng = np.random.default_rng(1)
    n, reps = 20, 100000
    y, g = gaussian(rng, reps, n, rho)
    terms, extra = cv_terms(y, g, 0.0, 1.0, n_outputs=10**12)
    result = t_interval(terms, fitted=2, n_outputs=10**12, noise=SIGMA2_A, level=0.8, extra_variance=extra)
    theory = theory_variance(SIGMA2_F, SIGMA2_A, rho, n)
    se = np.sqrt(theory / reps)
    assert abs(result.estimate.mean() - MU) < 4 * se + 0.25 / n  # O(1/n) bias at most (Prop. 3.1)
    # Eq. (6) plus the plug-in coefficient's O(1/n^2) cost, which the interval includes.
    plug_in = (SIGMA2_F + SIGMA2_A + rho**2 * SIGMA2_F) / n**2
    assert result.estimate.var() == pytest.approx(theory + plug_in, rel=0.02)
    assert np.mean(result.variance) == pytest.approx(result.estimate.var(), rel=0.02)
    covered = (result.ci_low <= MU) & (MU <= result.ci_high)
    assert covered.mean() == pytest.approx(0.8, abs=0.01)


def test_sample_mean_variance_is_eq2():
    rng = np.random.default_rng(2)
    y, _ = gaussian(rng, 40000, 25, 0.5)
    result = t_interval(y, fitted=1, n_outputs=10**12, noise=SIGMA2_A, level=0.9)
    theory = theory_variance(SIGMA2_F, SIGMA2_A, 0.0, 25)
    assert result.estimate.var() == pytest.approx(theory, rel=0.03)
    assert np.mean(result.variance) == pytest.approx(theory, rel=0.03)
    assert np.mean((result.ci_low <= MU) & (MU <= result.ci_high)) == pytest.approx(0.9, abs=0.008)


def test_negatively_correlated_metric_helps():
    rng = np.random.default_rng(3)
    y, g = gaussian(rng, 4000, 50, -0.8)
    terms, extra = cv_terms(y, g, 0.0, 1.0, n_outputs=10**12)
    cv = t_interval(terms, fitted=2, n_outputs=10**12, noise=SIGMA2_A, level=0.8, extra_variance=extra)
    mean = t_interval(y, fitted=1, n_outputs=10**12, noise=SIGMA2_A, level=0.8)
    ratio = np.mean(mean.width**2) / np.mean(cv.width**2)
    gamma = SIGMA2_A / SIGMA2_F
    assert ratio > 1.5
    assert ratio == pytest.approx((1 + gamma) / (1 - 0.64 + gamma), rel=0.08)


def finite_world(rng, n_items=60, k=3):
    """A fixed set of items, each with k judgments around its own mean, and a correlated metric."""
    f = rng.normal(0, 1, n_items)
    judgments = f[:, None] + rng.normal(0, 0.7, (n_items, k))
    metric = f + rng.normal(0, 0.8, n_items)
    return judgments, metric


def test_finite_population_correction_keeps_annotator_noise():
    rng = np.random.default_rng(4)
    judgments, metric = finite_world(rng)
    n_items = len(judgments)
    noise = np.mean(np.var(judgments, axis=1))  # what one uniformly drawn judgment carries
    items, values = draw_samples(judgments, 20000, rng)
    theta = judgments.mean(axis=1).mean()
    for n in (20, 45, n_items):
        result = t_interval(values[:, :n], fitted=1, n_outputs=n_items, noise=noise, level=0.8)
        expected = theory_variance(judgments.mean(axis=1).var(), noise, 0.0, n, n_population=n_items)
        assert result.estimate.var() == pytest.approx(expected, rel=0.05)
        assert np.mean(result.variance) == pytest.approx(expected, rel=0.06)
        assert np.mean((result.ci_low <= theta) & (theta <= result.ci_high)) == pytest.approx(0.8, abs=0.025)
    # n = N, one judgment each: only the annotators' noise is left, and the interval keeps it.
    everything = sample_mean_ci(values[0][:, None], n_outputs=n_items, annotator_variance=noise, level=0.8)
    assert everything.se == pytest.approx(np.sqrt(noise / n_items), rel=0.35)
    assert everything.width > 0.5 * 2 * 1.28 * np.sqrt(noise / n_items)


def test_noise_is_estimated_from_items_judged_more_than_once():
    judgments = np.array([[1.0, 3.0], [2.0, np.nan], [0.0, 2.0]])
    assert item_noise(judgments) == pytest.approx(2.0 * np.mean([0.5, 1.0, 0.5]))
    assert item_noise(judgments[:, :1]) is None  # unknown: no correction for sampling without replacement
    assert item_noise(judgments[:, :1], 0.4) == pytest.approx(0.4)
    wide = sample_mean_ci(judgments[:, :1], n_outputs=3)
    corrected = sample_mean_ci(judgments[:, :1], n_outputs=3, annotator_variance=0.0)
    assert wide.width > corrected.width == pytest.approx(0.0)


def test_public_cv_matches_algorithm_1():
    rng = np.random.default_rng(5)
    judgments, metric = finite_world(rng, n_items=200)
    sample = rng.choice(200, 30, replace=False)
    result = cv_mean_ci(judgments[sample], metric[sample], metric, level=0.8)
    y, g = judgments[sample].mean(axis=1), metric[sample]
    alpha = np.mean((y - y.mean()) * (g - g.mean())) / metric.var()
    assert result.estimate == pytest.approx(y.mean() - alpha * (g.mean() - metric.mean()))
    assert (result.n_judged, result.n_outputs, result.df) == (30, 200, 28.0)
    assert result.ci_low < result.estimate < result.ci_high


def test_cross_fitting_never_uses_an_items_own_judgment():
    rng = np.random.default_rng(6)
    y = rng.normal(size=25)
    g = rng.normal(size=(3, 25)) + y
    g_cov = np.cov(g, ddof=0)
    for labels in (None, fold_labels(25, 5, np.random.default_rng(0))):
        for shrink in (True, False):
            base = combined_terms(y, g, g.mean(axis=1), g_cov, labels=labels, shrink=shrink)
            changed = y.copy()
            changed[7] += 10.0
            moved = combined_terms(changed, g, g.mean(axis=1), g_cov, labels=labels, shrink=shrink)
            assert moved[7] - base[7] == pytest.approx(10.0)  # item 7's correction ignores y_7


def test_leave_one_out_matches_a_literal_loop():
    rng = np.random.default_rng(7)
    y = rng.normal(size=15)
    g = rng.normal(size=(2, 15)) + 0.5 * y
    mean, cov = g.mean(axis=1), np.cov(g, ddof=0)
    terms = combined_terms(y, g, mean, cov, shrink=False)
    for i in range(15):
        keep = np.arange(15) != i
        sgy = np.mean((g[:, keep] - g[:, keep].mean(axis=1, keepdims=True)) * (y[keep] - y[keep].mean()), axis=1)
        alpha = np.linalg.solve(cov, sgy)
        assert terms[i] == pytest.approx(y[i] - alpha @ (g[:, i] - mean))


def test_combined_shrinks_to_the_mean_without_signal_and_helps_with_it():
    rng = np.random.default_rng(8)
    noise_only = rng.normal(size=(5, 400))
    y = rng.normal(size=400)
    terms = combined_terms(y[None, :40], noise_only[:, :40][None], noise_only.mean(1), np.cov(noise_only, ddof=0))
    plain = combined_terms(y[:40], noise_only[:, :40], noise_only.mean(1), np.cov(noise_only, ddof=0), shrink=False)
    assert np.var(terms - y[:40]) < np.var(plain - y[:40])
    f = rng.normal(size=400)
    metrics = np.stack([f + rng.normal(0, s, 400) for s in (0.5, 0.7, 1.0)])
    judged = f + rng.normal(0, 0.3, 400)
    result = cv_combined_mean_ci(judged[:100, None], metrics[:, :100].T, metrics.T, level=0.8)
    mean = sample_mean_ci(judged[:100, None], n_outputs=400, annotator_variance=0.09, level=0.8)
    assert result.width < 0.75 * mean.width


def test_ppi_wrapper_reports_the_packages_interval():
    from ppi_py import ppi_mean_ci, ppi_mean_pointestimate

    rng = np.random.default_rng(9)
    judgments, metric = finite_world(rng, n_items=120)
    y = judgments[:40].mean(axis=1)
    result = ppi_tuned_mean_ci(judgments[:40], metric[:40], metric[40:], level=0.9)
    low, high = ppi_mean_ci(y, metric[:40], metric[40:], alpha=0.1)
    assert (result.ci_low, result.ci_high) == pytest.approx((float(low[0]), float(high[0])))
    assert result.estimate == pytest.approx(float(np.squeeze(ppi_mean_pointestimate(y, metric[:40], metric[40:]))))
    assert result.n_outputs == 120
    # no unjudged output: lambda = 0, the judged items' mean with its normal interval (no fpc)
    alone = ppi_tuned_mean_ci(judgments[:40], metric[:40], metric[:0], level=0.9)
    assert float(alone.estimate) == pytest.approx(float(y.mean()), abs=1e-15)
    assert float(alone.se) == pytest.approx(float(y.std() / np.sqrt(40)))


def test_coverage_kernel_equals_a_literal_loop():
    rng = np.random.default_rng(10)
    judgments, metric = finite_world(rng, n_items=30)
    judgments[::4, 2] = np.nan  # some items with two judgments
    metrics = {"a": metric, "b": metric**2 + rng.normal(size=30)}
    table = pd.DataFrame(
        coverage_experiment(
            judgments, metrics, sample_sizes=[5, 12, "0.5N"], n_repeats=40, level=0.8, rng=np.random.default_rng(3)
        )
    )
    items, values = draw_samples(judgments, 40, np.random.default_rng(3))
    theta = np.nanmean(judgments, axis=1).mean()
    within = np.nanmean((judgments - np.nanmean(judgments, axis=1, keepdims=True)) ** 2, axis=1).mean()
    every = np.stack([metrics["a"], metrics["b"]], axis=1)
    for n in (5, 12, 15):
        found = {name: [] for name in ("mean", "cv:a", "cv:b", "cv:combined", "ppi++:a", "ppi++:b")}
        for r in range(40):
            sample, y = items[r, :n], values[r, :n, None]
            found["mean"].append(sample_mean_ci(y, n_outputs=30, annotator_variance=within))
            for j, name in enumerate("ab"):
                found[f"cv:{name}"].append(cv_mean_ci(y, every[sample, j], every[:, j], annotator_variance=within))
                unjudged = every[items[r, n:], j]
                found[f"ppi++:{name}"].append(ppi_tuned_mean_ci(y, every[sample, j], unjudged))
            found["cv:combined"].append(cv_combined_mean_ci(y, every[sample], every, annotator_variance=within))
        base = np.mean([e.width**2 for e in found["mean"]])
        for name, results in found.items():
            row = table[(table["n"] == n) & (table["estimator"] == name)].iloc[0]
            covered = np.mean([e.ci_low <= theta <= e.ci_high for e in results])
            assert row["coverage"] == pytest.approx(covered)
            assert row["mean_width"] == pytest.approx(np.mean([e.width for e in results]))
            assert row["de"] == pytest.approx(base / np.mean([e.width**2 for e in results]))


def test_sample_sizes():
    assert resolve_sample_sizes([20, 50, 100, "0.5N", "0.8N"], 520) == [20, 50, 100, 260, 416]
    assert resolve_sample_sizes([2, 20, 50, "1N"], 30) == [20, 30]
    for bad in ("half", "1.5N", "xN"):
        with pytest.raises(ValueError):
            resolve_sample_sizes([bad], 100)


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        ((np.ones((2, 1)),), {}, "at least 3"),
        ((np.ones((5, 2, 1)),), {}, r"\(n, K\)"),
        ((np.array([[1.0], [np.inf], [2.0]]),), {}, "finite"),
        ((np.array([[np.nan, 1.0], [1.0, 2.0], [2.0, 3.0]]),), {}, "NaN-padded"),
        ((np.ones((4, 1)),), {"level": 1.0}, "level"),
        ((np.ones((4, 1)),), {"level": float("nan")}, "level"),
        ((np.ones((4, 1)),), {"annotator_variance": -1.0}, "annotator_variance"),
        ((np.ones((4, 1)), np.ones(3), np.ones(10)), {}, r"scores must have shape \(4, M\)"),
        ((np.ones((4, 1)), np.ones(4), np.ones(3)), {}, "fewer than"),
        ((np.ones((4, 1)), np.ones((4, 2)), np.ones((10, 3))), {}, "has 3 metrics, scores 2"),
        ((np.ones((4, 1)), np.array([1, 2, np.nan, 4.0]), np.ones(10)), {}, "finite"),
    ],
)
def test_input_checks(args, kwargs, message):
    level = kwargs.pop("level", 0.8)
    with pytest.raises(ValueError, match=message):
        judgments, *scores = args
        if scores:
            sample = EvalSample.from_arrays(judgments, scores[0], all_scores=scores[1])
        else:
            sample = EvalSample.from_arrays(judgments, n_outputs=10)
        estimate_mean(sample, "cv:m0" if scores else "mean", level=level, **kwargs)


def test_the_population_is_given_once():
    with pytest.raises(ValueError, match="once"):
        EvalSample.from_arrays(np.ones((4, 1)), np.ones(4), all_scores=np.ones(10), unjudged_scores=np.ones(6))
    with pytest.raises(ValueError, match="without the judged items' scores"):
        EvalSample.from_arrays(np.ones((4, 1)), unjudged_scores=np.ones(6))


def test_registry_names_and_resolution():
    assert estimator_names(["a", "b"], unjudged=True) == ["mean", "cv:a", "cv:b", "cv:combined", "ppi++:a", "ppi++:b"]
    assert estimator_names(["a"]) == ["mean", "cv:a"]  # no combined with one metric, no PPI++ without unjudged
    assert resolve_estimator("cv:b", ["a", "b"]) == (REGISTRY["cv"], 1)
    assert resolve_estimator("cv:x:y", ["x:y"]) == (REGISTRY["cv"], 0)  # metric names may hold a colon
    assert resolve_estimator("cv:combined", ["a"]) == (REGISTRY["cv:combined"], None)
    for bad in ("cv:z", "median", "ppi++", "cv:combined:a"):
        with pytest.raises(ValueError, match="unknown estimator"):
            resolve_estimator(bad, ["a"])
    with pytest.raises(ValueError, match="needs at least 1 metric, got 0"):
        resolve_estimator("cv:combined", [])


def test_folds_need_a_generator_and_other_argument_errors():
    judgments, metric = finite_world(np.random.default_rng(11))
    with pytest.raises(ValueError, match="rng"):
        cv_combined_mean_ci(judgments[:20], metric[:20, None], metric[:, None], folds=5)
    result = cv_combined_mean_ci(
        judgments[:20], metric[:20, None], metric[:, None], folds=5, rng=np.random.default_rng(0)
    )
    assert result.n_judged == 20 and np.isfinite(result.se)
    with pytest.raises(ValueError, match="unknown estimator 'cv:m2'"):
        estimate_mean(
            EvalSample.from_arrays(judgments[:20], np.ones((20, 2)), all_scores=np.ones((60, 2))), "cv:m2", level=LEVEL
        )
    with pytest.raises(ValueError, match="n_outputs"):
        sample_mean_ci(judgments[:20], n_outputs=10)


def test_skewness_shift_is_johnsons_and_balances_the_tails():
    from debias.stats.common.intervals import skewness_shift

    rng = np.random.default_rng(11)
    y = rng.exponential(size=(20000, 20))  # skewness 2
    plain = t_interval(y, fitted=1, n_outputs=10**12, noise=None, level=0.8, skewness=False)
    shifted = t_interval(y, fitted=1, n_outputs=10**12, noise=None, level=0.8)
    assert shifted.width == pytest.approx(plain.width)  # the shift moves the interval, not its width
    # Johnson (1978): the centre moves by mu3 / (6 s^2 n) with the sample's k3 and s^2
    s2 = y[0].var(ddof=1)
    k3 = np.sum((y[0] - y[0].mean()) ** 3) * 20 / (19 * 18)
    assert shifted.ci_low[0] - plain.ci_low[0] == pytest.approx(k3 / (6 * s2 * 20))
    assert skewness_shift(k3, np.sqrt(s2 / 20), 20, 0.5) == 0.0  # at f = 1/2 the mean has no skewness
    missed_low = [np.mean(r.ci_high < 1.0) for r in (plain, shifted)]  # the long right tail missed
    missed_high = [np.mean(r.ci_low > 1.0) for r in (plain, shifted)]
    assert missed_low[1] < missed_low[0] - 0.005 and missed_high[1] > missed_high[0]
    assert abs(missed_low[1] - missed_high[1]) < abs(missed_low[0] - missed_high[0])


def test_combined_keeps_the_one_informative_metric_among_collinear_ones():
    """Eight nearly collinear metrics, one of them informative: at n = 50 the combined control
    variate's variance stays within 10% of Algorithm 1's with the informative metric."""
    rng = np.random.default_rng(12)
    n_items, n, reps = 2000, 50, 2000
    common = rng.normal(size=n_items)
    quality = 0.5 * common + rng.normal(size=n_items)
    metrics = np.stack([common + 0.3 * rng.normal(size=n_items) for _ in range(7)] + [quality + common])
    judged = quality + rng.normal(size=n_items)
    sample = rng.permuted(np.tile(np.arange(n_items), (reps, 1)), axis=1)[:, :n]
    y, g = judged[sample], np.moveaxis(metrics[:, sample], 0, 1)
    combined = combined_terms(y, g, metrics.mean(1), np.cov(metrics, ddof=0)).mean(-1)
    single, _ = cv_terms(y, g[:, -1], metrics[-1].mean(), metrics[-1].var(), n_items)
    assert np.mean((combined - judged.mean()) ** 2) < 1.1 * np.mean((single.mean(-1) - judged.mean()) ** 2)
    assert np.var(combined) < 0.85 * np.var(y.mean(-1))


def every_estimator(metrics):
    """Every name of every registered family, the check-only and unjudged-only ones included."""
    return estimator_names(metrics, unjudged=True, check=True)


def test_every_estimator_is_the_mean_when_every_output_is_judged():
    # n = N: the judged items are the population; nothing is left for a metric to estimate.
    # Skewed judgments with three raters, three metrics correlated with them and one constant.
    rng = np.random.default_rng(26)
    n = 96
    truth = rng.gamma(2.0, 1.0, n)
    judgments = np.round(truth[:, None] + rng.normal(0, 1.0, (n, 3)))
    scores = np.column_stack([truth + rng.normal(0, s, n) for s in (0.5, 1.0, 2.0)] + [np.full(n, 100.0)])
    metrics = ["a", "b", "c", "constant"]
    sample = EvalSample.from_arrays(judgments, scores, all_scores=scores, metrics=metrics)
    mean = estimate_mean(sample, "mean", level=0.8)
    names = every_estimator(metrics)
    assert {name.partition(":")[0] for name in names} | {"cv:combined"} >= set(REGISTRY)
    assert "cv:combined" in names and "ppi++:a" in names and "ppi++fpc:a" in names
    for name in names:
        for options in ({}, {"folds": 4, "rng": np.random.default_rng(1)}) if name == "cv:combined" else ({},):
            result = estimate_mean(sample, name, level=0.8, **options)
            assert float(result.estimate) == pytest.approx(float(mean.estimate), rel=0, abs=1e-12), name
    # the combined control variate exactly, and its interval is the mean's
    combined = estimate_mean(sample, "cv:combined", level=0.8)
    assert float(combined.estimate) == float(mean.estimate)
    assert (float(combined.ci_low), float(combined.ci_high)) == (float(mean.ci_low), float(mean.ci_high))
    # a constant metric's control variate is the mean, interval and all
    constant = estimate_mean(sample, "cv:constant", level=0.8)
    assert (float(constant.ci_low), float(constant.ci_high), constant.df) == (
        float(mean.ci_low),
        float(mean.ci_high),
        mean.df,
    )


def test_combined_still_moves_the_estimate_below_n_equal_to_N():
    # the n = N case is the only one where cv:combined is the mean: one unjudged output suffices
    rng = np.random.default_rng(3)
    n = 60
    truth = rng.normal(0, 1, n + 1)
    scores = (truth + rng.normal(0, 0.3, n + 1))[:, None] * np.array([1.0, 0.5]) + rng.normal(0, 0.2, (n + 1, 2))
    sample = EvalSample.from_arrays(truth[:n, None], scores[:n], all_scores=scores, metrics=["a", "b"])
    assert float(estimate_mean(sample, "cv:combined", level=0.8).estimate) != float(
        estimate_mean(sample, "mean", level=0.8).estimate
    )


def test_combined_terms_in_blocks_equal_one_block_exactly(monkeypatch):
    """Blocks of samples are a cache-sized schedule only: the leave-one-out terms are the same
    numbers as those of all samples at once, whatever the block."""
    from debias.stats.ratings import combined

    rng = np.random.default_rng(11)
    base = rng.normal(size=(4, 4))
    g_cov = base @ base.T
    g = rng.normal(size=(37, 4, 30))
    y = g[:, 0, :] + rng.normal(size=(37, 30))
    whole = combined.combined_terms(y, g, np.zeros(4), g_cov)
    for samples in (1, 3, 8, 36):
        monkeypatch.setattr(combined, "BLOCK_ELEMENTS", 4 * 30 * samples)
        blocked = combined.combined_terms(y, g, np.zeros(4), g_cov)
        assert blocked.shape == (37, 30)
        assert np.array_equal(blocked, whole), samples
