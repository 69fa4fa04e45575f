"""Properties of the vectorised bootstrap of interval widths (Section 5, Figure 6)."""

import numpy as np
import pytest

from debias.data import as_judgments
from debias.stats.checks.bootstrap import (
    CurveResult,
    bootstrap_ci_widths,
    bootstrap_ci_widths_from_draws,
    bootstrap_data_efficiency,
)
from debias.stats.common.resampling import draw_resamples, setting_seed
from debias.stats.ratings.control_variates import control_variates_estimate
from debias.stats.ratings.metric_correlation import correlation
from debias.stats.ratings.theory import theory_data_efficiency
from debias.stats.ratings.variance import resampling_components

#: The intervals' nominal coverage in these checks.
LEVEL = 0.8

CURVES = ("n", "mean", "cv", "noiseless", "perfect")


def judgment_counts(judgments):
    return as_judgments(judgments).counts


def synthetic_population(rng, n_items, sigma2_f, sigma2_a, rhos, k_choices=(2, 3)):
    """Finite population from the Gaussian model: f per item, k_i noisy judgments, metrics.

    Metric m is standard normal with correlation ``rhos[m]`` to f.
    """
    f = np.sqrt(sigma2_f) * rng.standard_normal(n_items)
    z = f / np.sqrt(sigma2_f)
    metrics = np.stack([r * z + np.sqrt(1 - r**2) * rng.standard_normal(n_items) for r in rhos])
    k = rng.choice(k_choices, size=n_items)
    judgments = np.full((n_items, max(k_choices)), np.nan)
    for i, ki in enumerate(k):
        judgments[i, :ki] = f[i] + np.sqrt(sigma2_a) * rng.standard_normal(ki)
    return judgments, metrics


def reference_widths(judgments, metrics, items, cols, level=0.8):
    """Slow, literal version: loop over replicates and prefix sizes, Algorithm 1 each time."""
    n_rep, n_items = items.shape
    item_mean = np.nanmean(judgments, axis=1)
    q = [(1 - level) / 2, (1 + level) / 2]

    def widths(y_all, g_all, g_mean, g_var):
        est = np.empty((n_rep, n_items))
        for b in range(n_rep):
            for n in range(1, n_items + 1):
                if g_all is None:
                    est[b, n - 1] = np.mean(y_all[b, :n])
                else:
                    est[b, n - 1] = control_variates_estimate(y_all[b, :n], g_all[b, :n], g_mean, g_var)[0]
        lo, hi = np.quantile(est, q, axis=0)
        return hi - lo

    y = judgments[items, cols]
    ym = item_mean[items]
    out = {"mean": widths(y, None, 0, 0)}
    out["cv"] = np.array([widths(y, m[items], m.mean(), m.var()) for m in metrics])
    out["noiseless"] = np.array([widths(ym, m[items], m.mean(), m.var()) for m in metrics])
    out["perfect"] = widths(y, ym, item_mean.mean(), item_mean.var())
    return out


def test_setting_seed_is_stable_and_name_sensitive():
    assert setting_seed(2018, "cdm", "seq2seq", "Overall") == 3507997056386980650
    seeds = {
        setting_seed(2018, "cdm", "seq2seq", "Overall"),
        setting_seed(2018, "cdm", "seq2seq", "Edit"),
        setting_seed(2018, "cdm", "Overall", "seq2seq"),
        setting_seed(2019, "cdm", "seq2seq", "Overall"),
        setting_seed(2018, "cdm", "seq2seqOverall"),
        setting_seed(2018, "cdms", "eq2seq", "Overall"),
        setting_seed(2018),
    }
    assert len(seeds) == 7
    assert all(0 <= s < 2**63 for s in seeds)


def test_draws_respect_judgment_counts_and_are_uniform():
    k = np.array([1, 2, 3, 3])
    items, cols = draw_resamples(k, 20000, np.random.default_rng(0))
    assert items.shape == cols.shape == (20000, 4)
    assert np.all(cols < k[items]) and np.all(cols >= 0)
    np.testing.assert_allclose(np.bincount(items.ravel(), minlength=4) / items.size, 0.25, atol=0.01)
    third = cols[items == 3]
    np.testing.assert_allclose(np.bincount(third, minlength=3) / third.size, 1 / 3, atol=0.01)


def test_vectorised_matches_reference_given_same_draws():
    rng = np.random.default_rng(11)
    judgments = np.array(
        [[1, 2, np.nan], [3, np.nan, np.nan], [2, 2, 3], [1, 3, np.nan], [3, 2, 1], [2, np.nan, np.nan], [1, 1, 2]],
        dtype=float,
    )
    metrics = np.stack([rng.normal(size=7), np.full(7, 0.25), 5.0 + 100.0 * np.nanmean(judgments, axis=1)])
    items, cols = draw_resamples(judgment_counts(judgments), 9, rng)
    fast = bootstrap_ci_widths_from_draws(judgments, metrics, items, cols, level=0.6)
    slow = reference_widths(judgments, metrics, items, cols, level=0.6)
    np.testing.assert_array_equal(fast.n, np.arange(1, 8))
    assert isinstance(fast, CurveResult)
    for key in ("mean", "cv", "noiseless", "perfect"):
        assert getattr(fast, key).shape == slow[key].shape
        np.testing.assert_allclose(getattr(fast, key), slow[key], rtol=1e-10, atol=1e-12, err_msg=key)
    # The draws are not degenerate: the control variate changes the widths.
    assert not np.allclose(fast.cv[0], fast.mean)


def test_wrapper_uses_draw_resamples_with_the_given_generator():
    rng_data = np.random.default_rng(5)
    judgments, metrics = synthetic_population(rng_data, 30, 1.0, 0.5, [0.5, 0.1])
    direct = bootstrap_ci_widths(judgments, metrics, n_replicates=50, rng=np.random.default_rng(9), level=LEVEL)
    items, cols = draw_resamples(judgment_counts(judgments), 50, np.random.default_rng(9))
    via_draws = bootstrap_ci_widths_from_draws(judgments, metrics, items, cols, level=LEVEL)
    for key in CURVES:
        np.testing.assert_array_equal(getattr(direct, key), getattr(via_draws, key))


def test_seeding_reproducible_and_common_random_numbers():
    judgments, metrics = synthetic_population(np.random.default_rng(1), 60, 1.0, 0.5, [0.6, 0.2])
    seed = setting_seed(0, "test")
    a = bootstrap_ci_widths(judgments, metrics, n_replicates=200, rng=np.random.default_rng(seed), level=LEVEL)
    b = bootstrap_ci_widths(judgments, metrics, n_replicates=200, rng=np.random.default_rng(seed), level=LEVEL)
    c = bootstrap_ci_widths(judgments, metrics, n_replicates=200, rng=np.random.default_rng(seed + 1), level=LEVEL)
    for key in CURVES:
        np.testing.assert_array_equal(getattr(a, key), getattr(b, key))
    assert not np.allclose(a.mean, c.mean)
    # Metrics consume no randomness: the baseline is the same with or without them,
    # and so is the first metric's curve when others are added.
    none = bootstrap_ci_widths(
        judgments, np.empty((0, 60)), n_replicates=200, rng=np.random.default_rng(seed), level=LEVEL
    )
    one = bootstrap_ci_widths(judgments, metrics[:1], n_replicates=200, rng=np.random.default_rng(seed), level=LEVEL)
    np.testing.assert_array_equal(none.mean, a.mean)
    np.testing.assert_array_equal(none.perfect, a.perfect)
    assert none.cv.shape == none.noiseless.shape == (0, 60)
    np.testing.assert_array_equal(one.cv[0], a.cv[0])
    # A constant metric gives back the baseline exactly.
    flat = bootstrap_ci_widths(
        judgments, np.ones((1, 60)), n_replicates=200, rng=np.random.default_rng(seed), level=LEVEL
    )
    np.testing.assert_array_equal(flat.cv[0], a.mean)


def test_widths_shrink_like_inverse_sqrt_n():
    judgments, metrics = synthetic_population(np.random.default_rng(2), 400, 1.0, 0.5, [0.7])
    w = bootstrap_ci_widths(judgments, metrics, n_replicates=600, rng=np.random.default_rng(3), level=LEVEL)
    n = w.n
    for curve in (w.mean, w.cv[0], w.noiseless[0], w.perfect):
        at = {m: curve[n == m][0] for m in (25, 100, 400)}
        assert at[25] > at[100] > at[400]
        assert at[400] / at[100] == pytest.approx(0.5, rel=0.15)
        # Averaged over blocks of 50 prefix sizes the curve decreases everywhere.
        assert np.all(np.diff(curve.reshape(8, 50).mean(axis=1)) < 0)
    # For the sample mean the width is ~2 z_0.9 sqrt(Var(one draw) / n).
    s2a, s2f = resampling_components(judgments)
    expected = 2 * 1.2815515655446004 * np.sqrt((s2a + s2f) / 200)
    assert w.mean[n == 200][0] == pytest.approx(expected, rel=0.1)


def test_bootstrap_data_efficiency_matches_theory():
    rng = np.random.default_rng(20180601)
    judgments, metrics = synthetic_population(rng, 500, 1.0, 0.6, [0.75, 0.4, 0.0])
    w = bootstrap_ci_widths(judgments, metrics, n_replicates=1000, rng=np.random.default_rng(4), level=LEVEL)
    s2a, s2f = resampling_components(judgments)
    gamma = s2a / s2f
    item_mean = np.nanmean(judgments, axis=1)
    rhos = np.array([correlation(item_mean, m) for m in metrics])

    de_cv = bootstrap_data_efficiency(w.mean, w.cv, w.n)
    de_noiseless = bootstrap_data_efficiency(w.mean, w.noiseless, w.n)
    de_perfect = bootstrap_data_efficiency(w.mean, w.perfect, w.n)
    assert de_cv.shape == de_noiseless.shape == (3,)

    # Tolerances cover the spread over data and bootstrap seeds (about 3% sd).
    np.testing.assert_allclose(de_cv, theory_data_efficiency(rhos, gamma), rtol=0.1)
    # Noiseless humans: sigma2_a = 0 in the estimator, baseline keeps it.
    np.testing.assert_allclose(de_noiseless, (1 + gamma) / (1 - rhos**2), rtol=0.1)
    # Perfect metric: rho = 1. This one tells the resampling components from
    # ddof-1 ones, which would predict about 2.9 here instead of about 4.3.
    assert de_perfect == pytest.approx(theory_data_efficiency(1.0, gamma), rel=0.12)
    # The uncorrelated metric buys nothing; the best one buys a lot.
    assert de_cv[2] == pytest.approx(1.0, abs=0.05)
    assert de_cv[0] > 1.3


def test_perfect_metric_beats_mean_when_annotator_noise_is_small():
    judgments, metrics = synthetic_population(np.random.default_rng(8), 300, 1.0, 0.05, [0.3])
    w = bootstrap_ci_widths(judgments, metrics, n_replicates=400, rng=np.random.default_rng(8), level=LEVEL)
    middle = (w.n >= 60) & (w.n <= 270)
    assert np.all(w.perfect[middle] < 0.5 * w.mean[middle])
    assert bootstrap_data_efficiency(w.mean, w.perfect, w.n) > 5


def test_data_efficiency_window_and_broadcasting():
    n = np.arange(1, 11)
    base = np.full(10, 2.0)
    base[0] = 1000.0  # n = 1 and n = 10 lie outside [0.2 N, 0.9 N] and must be ignored
    base[9] = 1000.0
    cond = np.stack([np.full(10, 1.0), np.full(10, 2.0)])
    np.testing.assert_allclose(bootstrap_data_efficiency(base, cond, n), [4.0, 1.0])
    assert isinstance(bootstrap_data_efficiency(base, cond[0], n), float)
    # Ratio of mean squares, not mean of ratios.
    b = np.array([1.0, 3.0])
    c = np.array([1.0, 1.0])
    assert bootstrap_data_efficiency(b, c, np.array([1, 2]), lo=0.0, hi=1.0) == pytest.approx(5.0)
    with pytest.raises(ValueError):
        bootstrap_data_efficiency(base, cond, n, lo=0.95, hi=0.99)


def test_resampling_variance_components_exact():
    judgments = np.array([[1.0, 3.0, np.nan], [2.0, np.nan, np.nan], [0.0, 3.0, 3.0]])
    s2a, s2f = resampling_components(judgments)
    # item means 2, 2, 2 -> sigma2_f = 0; within (ddof 0): 1, 0, 2 -> sigma2_a = 1.
    assert s2f == pytest.approx(0.0)
    assert s2a == pytest.approx(1.0)

    rng = np.random.default_rng(4)
    judgments, _ = synthetic_population(rng, 50, 1.0, 0.5, [0.0], k_choices=(1, 2, 3, 4))
    s2a, s2f = resampling_components(judgments)
    # Exact variance of one bootstrap draw: item uniform, then judgment uniform within it.
    k = judgment_counts(judgments)
    weights = np.where(np.isnan(judgments), 0.0, 1.0 / (len(k) * k[:, None]))
    values = np.nan_to_num(judgments)
    mean = np.sum(weights * values)
    var_draw = np.sum(weights * (values - mean) ** 2)
    assert s2a + s2f == pytest.approx(var_draw, rel=1e-12)
    assert s2f == pytest.approx(np.nanmean(judgments, axis=1).var(), rel=1e-12)


def test_input_validation():
    good = np.array([[1.0, 2.0], [3.0, np.nan]])
    with pytest.raises(ValueError):
        judgment_counts(np.array([[np.nan, 1.0], [1.0, 2.0]]))  # padding not at the end
    with pytest.raises(ValueError):
        judgment_counts(np.array([[np.nan, np.nan], [1.0, 2.0]]))  # item without judgments
    with pytest.raises(ValueError):
        bootstrap_ci_widths(good, np.ones((1, 3)), n_replicates=5, rng=np.random.default_rng(0), level=LEVEL)
    with pytest.raises(ValueError):
        bootstrap_ci_widths(good, np.array([[1.0, np.nan]]), n_replicates=5, rng=np.random.default_rng(0), level=LEVEL)
