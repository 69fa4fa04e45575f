"""Properties of the estimators and their theory (Section 3, Appendix B)."""

import numpy as np
import pytest

from debias.stats.ratings.control_variates import control_variates_estimate, sample_mean
from debias.stats.ratings.metric_correlation import correlation
from debias.stats.ratings.theory import theory_data_efficiency, theory_variance


def gaussian_model(rng, reps, n, mu, sigma2_f, sigma2_a, rho):
    """Draw (reps, n) samples of the Gaussian model of Lemma B.2.

    g ~ N(0, 1); f = mu + alpha g + independent noise, with alpha = rho sigma_f
    so that Var(f) = sigma2_f and Cov(f, g) = alpha; y = f + N(0, sigma2_a).
    """
    sigma_f = np.sqrt(sigma2_f)
    g = rng.standard_normal((reps, n))
    f = mu + rho * sigma_f * g + sigma_f * np.sqrt(1 - rho**2) * rng.standard_normal((reps, n))
    y = f + np.sqrt(sigma2_a) * rng.standard_normal((reps, n))
    return y, g


def many_estimates(y, g, g_mean=0.0, g_var=1.0):
    est = np.empty(y.shape[0])
    alphas = np.empty(y.shape[0])
    for r in range(y.shape[0]):
        est[r], alphas[r] = control_variates_estimate(y[r], g[r], g_mean, g_var)
    return est, alphas


def test_hand_computed_example():
    # ybar = 2.5, gbar = 1, (1/n) sum (y - ybar)(g - gbar) = 3 / 4, alpha = 0.75 / 0.5.
    est, alpha = control_variates_estimate([1, 2, 3, 4], [0, 1, 1, 2], g_mean=0.5, g_var=0.5)
    assert alpha == pytest.approx(1.5)
    assert est == pytest.approx(2.5 - 1.5 * (1.0 - 0.5))
    assert sample_mean([1, 2, 3, 4]) == pytest.approx(2.5)


def test_constant_metric_falls_back_to_sample_mean():
    est, alpha = control_variates_estimate([1.0, 5.0, 6.0], [2.0, 2.0, 2.0], g_mean=3.0, g_var=0.0)
    assert alpha == 0.0
    assert est == pytest.approx(4.0)


def test_single_judgment_gives_that_judgment():
    est, alpha = control_variates_estimate([0.7], [3.0], g_mean=0.0, g_var=2.0)
    assert alpha == 0.0 and est == pytest.approx(0.7)


def test_invariant_to_affine_rescaling_of_metric():
    rng = np.random.default_rng(3)
    y = rng.normal(size=20)
    g = rng.normal(size=20) + y
    base = control_variates_estimate(y, g, g_mean=0.1, g_var=1.3)
    scaled = control_variates_estimate(y, -4.0 * g + 7.0, g_mean=-4.0 * 0.1 + 7.0, g_var=16.0 * 1.3)
    assert scaled[0] == pytest.approx(base[0], rel=1e-12)
    assert scaled[1] == pytest.approx(-base[1] / 4.0, rel=1e-12)


def test_rejects_mismatched_inputs():
    with pytest.raises(ValueError):
        control_variates_estimate([1.0, 2.0], [1.0], 0.0, 1.0)
    with pytest.raises(ValueError):
        control_variates_estimate([], [], 0.0, 1.0)


SETTING = dict(mu=0.6, sigma2_f=0.3, sigma2_a=0.2, rho=0.8)


def test_unbiased_and_variance_matches_theory_on_gaussian_model():
    rng = np.random.default_rng(20180715)
    reps, n = 12000, 150
    y, g = gaussian_model(rng, reps, n, **SETTING)
    est, alphas = many_estimates(y, g)
    means = y.mean(axis=1)

    var_cv = theory_variance(SETTING["sigma2_f"], SETTING["sigma2_a"], SETTING["rho"], n)
    var_mean = theory_variance(SETTING["sigma2_f"], SETTING["sigma2_a"], 0.0, n)
    assert var_mean == pytest.approx((0.3 + 0.2) / n)
    assert var_cv == pytest.approx((0.3 * (1 - 0.64) + 0.2) / n)

    # Unbiased: within 4 Monte-Carlo standard errors of mu.
    assert abs(est.mean() - SETTING["mu"]) < 4 * np.sqrt(var_cv / reps)
    assert abs(means.mean() - SETTING["mu"]) < 4 * np.sqrt(var_mean / reps)

    # Variances: sd of a sample variance is ~sqrt(2 / reps) ~ 1.3%; the plug-in
    # alpha inflates the variance by O(1/n), ~1.5% at this n.
    assert est.var() == pytest.approx(var_cv, rel=0.06)
    assert means.var() == pytest.approx(var_mean, rel=0.06)
    # The plug-in alpha is centred on Cov(f, g) = rho sigma_f.
    assert alphas.mean() == pytest.approx(SETTING["rho"] * np.sqrt(SETTING["sigma2_f"]), rel=0.03)

    # Empirical data efficiency against Eq. (7); here it is 1.93, far from 1.
    gamma = SETTING["sigma2_a"] / SETTING["sigma2_f"]
    de_theory = theory_data_efficiency(SETTING["rho"], gamma)
    assert de_theory == pytest.approx(var_mean / var_cv)
    assert means.var() / est.var() == pytest.approx(de_theory, rel=0.08)


def test_uncorrelated_metric_gives_no_gain():
    rng = np.random.default_rng(7)
    reps, n = 12000, 150
    setting = dict(SETTING, rho=0.0)
    y, g = gaussian_model(rng, reps, n, **setting)
    est, _ = many_estimates(y, g)
    assert theory_data_efficiency(0.0, 0.5) == pytest.approx(1.0)
    # Fitting alpha to pure noise costs a little (~1/n), never a large gain.
    de = y.mean(axis=1).var() / est.var()
    assert 0.93 < de < 1.03


def test_theory_data_efficiency_shape_and_limits():
    rho = np.array([0.0, 0.5, 1.0])[:, None]
    gamma = np.array([0.0, 0.5, 1.0])[None, :]
    de = theory_data_efficiency(rho, gamma)
    assert de.shape == (3, 3)
    np.testing.assert_allclose(de[0], 1.0)
    # rho = 1: capped by (1 + gamma) / gamma (Section 3.2).
    assert np.isinf(de[2, 0])
    np.testing.assert_allclose(de[2, 1:], [(1 + 0.5) / 0.5, 2.0])
    # DE of 2 needs rho >= sqrt(2)/2 when gamma = 0.
    assert theory_data_efficiency(np.sqrt(2) / 2, 0.0) == pytest.approx(2.0)
    # Monotone: better metric, better; noisier annotators, worse.
    assert np.all(np.diff(de[:, 1]) > 0) and np.all(np.diff(de[1, :]) < 0)


def test_correlation():
    x = np.arange(10.0)
    assert correlation(x, 3 * x + 1) == pytest.approx(1.0)
    assert correlation(x, -x) == pytest.approx(-1.0)
    assert np.isnan(correlation(x, np.ones(10)))
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=50), rng.normal(size=50)
    assert correlation(a, b) == pytest.approx(np.corrcoef(a, b)[0, 1], rel=1e-12)
