r"""Vectorised cores of the estimators of a system's mean human score, with their t-intervals.

Every estimator here is the mean of per-item *terms* (the item's value, minus what the metric
predicts of it), so one interval routine serves them all. The sample runs along the last axis
and every leading axis is a separate sample (Monte-Carlo repeats, sample sizes): the coverage
experiment evaluates thousands of samples in one call. :mod:`debias.stats.ratings.estimators` wraps these
cores with input checks for a single evaluation.

The variance of a mean of n terms drawn without replacement from N outputs, each term an item
value carrying annotator noise of average variance :math:`\bar\nu` (:math:`\sigma_a^2 / k` for k
judgments per item), is estimated by

.. math::

    \widehat{\operatorname{Var}} = \frac{(1 - n/N)\,(\hat S^2 - \bar\nu) + \bar\nu}{n},
    \qquad \hat S^2 \ge \bar\nu,

where :math:`\hat S^2` is the terms' sample variance (ddof = parameters fitted). Its expectation
is :math:`\hat S^2`'s item part times the finite-population correction plus the full annotator
part, Eq. (2)/(6) of the paper for sampling without replacement
(:func:`debias.stats.ratings.theory.theory_variance`). The floor :math:`\hat S^2 \ge \bar\nu` says that
a term varies at least by its own annotator noise. The interval
:math:`\hat\mu + b\sqrt{\widehat{\operatorname{Var}}} \pm t_{n-p}\sqrt{\widehat{\operatorname{Var}}}`
is moved towards the terms' long tail by Johnson's skewness shift b (:func:`skewness_shift`).
The vector control variate's terms are in :mod:`debias.stats.ratings.combined`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri, stdtrit

from debias.stats.common.joint import is_sparse, variances
from debias.stats.common.vocabulary import MIN_LEVEL

__all__ = [
    "MeanEstimate",
    "check_level",
    "effective_n",
    "fold_labels",
    "normal_interval",
    "proportion_covariance",
    "skewness_shift",
    "small_sample_scale",
    "t_interval",
]


def check_level(level: float) -> None:
    """Refuse a nominal coverage outside [:data:`MIN_LEVEL`, 1) (NaN and infinity included)."""
    if not (isinstance(level, int | float | np.floating) and MIN_LEVEL <= float(level) < 1.0):
        raise ValueError(f"level must be a number in [{MIN_LEVEL:g}, 1) (0.95: 95% intervals), got {level!r}")


@dataclass(frozen=True)
class MeanEstimate:
    """An estimate of a mean human score with its confidence interval.

    Fields are floats for one evaluation and arrays (over the leading axes of the samples) from
    the vectorised cores.

    Attributes
    ----------
    estimate, ci_low, ci_high : float or numpy.ndarray
        The point estimate and the interval's ends.
    level : float
        Nominal coverage of the interval.
    se : float or numpy.ndarray
        Estimated standard error; ``se**2`` is the estimated variance.
    df : float
        Degrees of freedom of the t quantile (``inf``: normal quantile).
    n_judged, n_outputs : int
        Judged items used, and outputs of the system (judged or not).
    """

    estimate: float | np.ndarray
    ci_low: float | np.ndarray
    ci_high: float | np.ndarray
    level: float
    se: float | np.ndarray
    df: float
    n_judged: int
    n_outputs: int

    @property
    def variance(self):
        return self.se**2

    @property
    def width(self):
        return self.ci_high - self.ci_low


def t_interval(
    terms, *, fitted: int, n_outputs: int, noise, level: float, extra_variance=0.0, skewness: bool = True
) -> MeanEstimate:
    r"""Mean of the per-item ``terms`` (last axis) with its finite-population t-interval.

    ``fitted`` parameters were estimated from the terms (1 for a mean, 2 with a fitted
    coefficient): the variance uses ddof = ``fitted`` and the t quantile ``n - fitted`` degrees
    of freedom. ``noise`` is the average annotator variance of one term (broadcasts against the
    leading axes); ``None`` means unknown, and then nothing is taken off for sampling without
    replacement (the conservative choice). ``extra_variance`` is added as is. ``skewness``
    (default) centres the interval for the terms' skewness (:func:`skewness_shift`).
    """
    terms = np.asarray(terms, dtype=float)
    n = terms.shape[-1]
    estimate = terms.mean(axis=-1)
    deviations = terms - estimate[..., None]
    squares = deviations * deviations
    s2 = np.sum(squares, axis=-1) / (n - fitted)
    fraction = 0.0
    if noise is None:
        variance = s2 / n
    else:
        noise = np.asarray(noise, dtype=float)
        s2 = np.maximum(s2, noise)
        fraction = n / n_outputs
        variance = ((1.0 - fraction) * s2 + fraction * noise) / n
    se = np.sqrt(variance + extra_variance)
    df = float(n - fitted)
    half = stdtrit(df, 0.5 + level / 2.0) * se
    centre = estimate
    if skewness and n > 2:
        third = np.sum(squares * deviations, axis=-1) * n / ((n - 1.0) * (n - 2.0))  # k-statistic k3
        centre = estimate + skewness_shift(third, se, n, fraction)
    return MeanEstimate(estimate, centre - half, centre + half, level, se, df, n, n_outputs)


def small_sample_scale(df, level: float) -> np.ndarray:
    r"""Per system, :math:`t_{\nu, (1+\text{level})/2} / z_{(1+\text{level})/2}`: how much wider
    a Student-t interval with :math:`\nu` degrees of freedom is than the normal one (1 for
    :math:`\nu = \infty`, infinite for :math:`\nu = 0`)."""
    df = np.asarray(df, dtype=float)
    q = 0.5 + level / 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = stdtrit(np.where(df > 0, df, 1.0), q) / ndtri(q)
    return np.where(np.isinf(df), 1.0, np.where(df > 0, scale, np.inf))


def skewness_shift(third, se, n: int, fraction: float):
    r"""Johnson's (1978) skewness correction of the t-interval's centre, for sampling n of N.

    Parameters
    ----------
    third : array_like
        Third central moment of one term (unbiased k-statistic :math:`k_3`).
    se : array_like
        The estimate's standard error :math:`\sqrt{\hat V}` (same shape).
    n : int
        Terms in the sample.
    fraction : float
        :math:`f = n/N` when :math:`\hat V` carries the finite-population correction, else 0.

    Returns
    -------
    numpy.ndarray
        The shift :math:`b\sqrt{\hat V}` added to the estimate to centre the interval
        :math:`\hat\mu + b\sqrt{\hat V} \pm t_{n-p}\sqrt{\hat V}` (0 where :math:`\hat V = 0`).

    Notes
    -----
    Write :math:`s = k_3 / (n^2 \hat V^{3/2})`. A sample of n of N terms drawn without
    replacement has :math:`\kappa_3(\bar t) = (1-f)(1-2f)\mu_3/n^2` and
    :math:`\operatorname{Cov}(\bar t, \hat S^2) = (1-f)\mu_3/n`, and :math:`\hat V` moves with
    :math:`(1-f)\hat S^2/n`. Expanding the studentised mean :math:`T = (\hat\mu - \mu)/\sqrt{\hat V}`
    to first order in :math:`\hat V/V - 1` gives its cumulants :math:`\kappa_1(T) = -(1-f)^2 s/2`
    and :math:`\kappa_3(T) = -(1-f)(2-f)s`; Johnson's modified statistic
    :math:`T + aT^2 + b` with :math:`a = -\kappa_3/6` and :math:`b = -\kappa_1 - a` has neither
    bias nor skewness to this order, and dropping :math:`aT^2` as Johnson does for the interval
    leaves the shift

    .. math:: b = \frac{(1-f)(1-2f)}{6}\,s .

    With :math:`f = 0` and :math:`\hat V = \hat S^2/n` the shift is Johnson's
    :math:`\hat\mu_3/(6\hat S^2 n)`. It moves the interval towards the long tail without
    changing its width. The annotator noise, which no finite-population correction touches, is
    taken as symmetric. Hall's (1992) monotone cubic transformation keeps the :math:`aT^2`
    term as well; on the released data it over-covers binary judgments (AnyCorrect) and, like
    any correction from the sample's own third moment, cannot see a heavy tail the sample
    missed (docs/methods.md, "Estimating your systems").

    References
    ----------
    N. J. Johnson. Modified t tests and confidence intervals for asymmetrical populations.
    *Journal of the American Statistical Association* 73(363):536-544, 1978.

    P. Hall. On the removal of skewness by transformation. *Journal of the Royal Statistical
    Society, Series B* 54(1):221-228, 1992.
    """
    third = np.asarray(third, dtype=float)
    se = np.asarray(se, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(se > 0, third / (n**2 * se**3), 0.0)
    return (1.0 - fraction) * (1.0 - 2.0 * fraction) / 6.0 * np.nan_to_num(s) * se


def fold_labels(n: int, folds: int | None, rng: np.random.Generator | None) -> np.ndarray | None:
    """Random balanced fold labels for ``folds``-fold cross-fitting; ``None`` = leave-one-out."""
    if folds is None or folds >= n:
        return None
    if folds < 2:
        raise ValueError("folds must be at least 2 (or None for leave-one-out)")
    if rng is None:
        raise ValueError("k-fold cross-fitting draws its folds at random: pass rng (a numpy Generator)")
    return rng.permutation(n) % folds


def normal_interval(estimate, covariance, level: float):
    r"""Standard errors and normal intervals of estimates with a joint covariance.

    ``estimate`` is (..., S) and ``covariance`` (..., S, S); returns ``(se, ci_low, ci_high)``,
    each (..., S): :math:`\hat\theta_s \pm z_{(1 + \text{level})/2}\,\hat\Sigma_{ss}^{1/2}`, a
    negative variance (rounding) read as 0, NaN where the estimate or its variance is NaN.
    """
    se = np.sqrt(np.maximum(variances(covariance), 0.0))
    half = ndtri(0.5 + level / 2.0) * se
    return se, estimate - half, estimate + half


def effective_n(n_baseline, baseline_variance, variance):
    r"""The effective number of human judgments of an estimate: how many the people-only
    baseline would need for the same variance, :math:`n_0\,V_0/V` with :math:`n_0` and
    :math:`V_0` the baseline's judgments (items or battles) and variance.

    Element-wise over arrays. When both variances are 0 (every judgment the same) the estimate
    does as well as the baseline: :math:`n_0`; when only :math:`V` is 0 it is infinite; NaN where
    either variance is NaN.
    """
    n_baseline = np.asarray(n_baseline, dtype=float)
    baseline_variance = np.asarray(baseline_variance, dtype=float)
    variance = np.asarray(variance, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = n_baseline * baseline_variance / variance
    out = np.where(variance > 0, ratio, np.where(baseline_variance == 0, n_baseline, np.inf))
    out = np.where(np.isnan(variance) | np.isnan(baseline_variance), np.nan, out)
    return out if out.ndim else float(out)


def proportion_covariance(estimate, covariance, n, level: float, shared=None) -> np.ndarray:
    r"""The covariance of estimated proportions (win rates) widened for small samples, so that
    each interval about its estimate contains the Agresti-Coull interval.

    Parameters
    ----------
    estimate : array_like, shape (..., S)
        Each system's estimated proportion :math:`\hat\theta_s` (a win rate: the mean score of
        its battles, ties half a win, or the share of its decisive battles won), from n_s
        observations (battles with a verdict; decisive battles when ties are left out).
    covariance : array_like, shape (..., S, S)
        Their estimated joint covariance :math:`\hat\Sigma` (the sandwich of
        :mod:`debias.stats.preferences.win_rate`); or a sparse (S, S) matrix
        (:func:`debias.stats.common.joint.is_sparse`), ``shared`` then sparse too, and so is
        the result.
    n : array_like, shape (..., S)
        :math:`n_s`, the observations behind each estimate.
    level : float
        Nominal coverage of the intervals, in (0, 1).
    shared : array_like, shape (..., S, S), optional
        :math:`n_{st}`, the observations two estimates share (battles of s against t: one's
        win is the other's loss); default none.

    Returns
    -------
    numpy.ndarray, shape (..., S, S)
        :math:`\tilde\Sigma = \hat\Sigma + F` (the estimates are unchanged; rows with
        :math:`n_s = 0` too).

    Notes
    -----
    With :math:`z = z_{(1+\text{level})/2}` and :math:`k = z^2/2`, join each system's
    observations with k pseudo-observations of score 1 and k of score 0 (Agresti and Coull
    1998): :math:`\tilde n_s = n_s + z^2`, :math:`w_s = n_s/\tilde n_s`, the adjusted centre
    :math:`\tilde\theta_s = w_s\hat\theta_s + (1 - w_s)/2` and its variance

    .. math::

        a_s = w_s^2\hat\Sigma_{ss} + \frac{n_s(\hat\theta_s - \tilde\theta_s)^2
          + k\,[(1-\tilde\theta_s)^2 + \tilde\theta_s^2]}{\tilde n_s^2},

    the variance of the scores joined by the pseudo-observations, about :math:`\tilde\theta_s`.
    For a mean of binary scores (:math:`\hat\Sigma_{ss} = \hat\theta_s(1-\hat\theta_s)/n_s`)
    :math:`a_s = \tilde\theta_s(1-\tilde\theta_s)/\tilde n_s` and
    :math:`\tilde\theta_s \pm z\sqrt{a_s}` is the Agresti-Coull interval, the simple form of
    Wilson's (1927) score interval :math:`(x + z^2/2 \pm z\sqrt{x(n-x)/n + z^2/4})/(n + z^2)`,
    with its centre and its coverage at small n (Brown, Cai and DasGupta 2001); with ties (scores
    1/2) it is the same construction on the scores. A PPI++ estimate is treated alike, its
    pseudo-observations being labelled battles whose judge verdict is the judge's mean (they
    leave its rectifier unchanged). The estimate keeps its value (PPI++ stays unbiased) and its
    standard error becomes the smallest that makes :math:`\hat\theta_s \pm z\,\tilde\sigma_s`
    contain the Agresti-Coull interval, and never less than the sandwich's:

    .. math::

        \tilde\sigma_s^2 = \max\Bigl(\hat\Sigma_{ss},\;
          \bigl(\sqrt{a_s} + |\hat\theta_s - \tilde\theta_s|/z\bigr)^2\Bigr), \qquad
        F_{ss} = f_s = \tilde\sigma_s^2 - \hat\Sigma_{ss}, \qquad
        F_{st} = -\sqrt{f_s f_t}\,\frac{n_{st}}{\sqrt{n_s n_t}} .

    The off-diagonal of F gives the added variance the structure of the battles, as the sandwich
    has it: a battle of s against t moves their win rates in opposite directions (two systems
    that only met each other have win rates adding up to 1, and F keeps their sum exact).
    :math:`F = D_f^{1/2}(I - D_n^{-1/2} N D_n^{-1/2})D_f^{1/2}` with :math:`N = (n_{st})` and
    :math:`n_s = \sum_t n_{st}` is positive semi-definite (a normalised graph Laplacian), so
    :math:`\tilde\Sigma` is. The Wald interval :math:`\hat\theta_s \pm z\hat\Sigma_{ss}^{1/2}`
    gives a sweep of 3 battles of 3 the interval [1, 1], and rank-sets built on it declare two
    equal systems compared in a few battles different far more often than 1 - level; with
    :math:`\tilde\Sigma` they stay within it (``benchmarks/bench_edges.py``), and the variance
    is never 0 where :math:`n_s > 0`. The price at large n is a standard error larger by about
    :math:`z|1 - 2\hat\theta_s|/(2\sqrt{n_s}\,\sigma_1)` (:math:`\sigma_1^2` the variance of
    one score): nothing at :math:`\hat\theta_s = 1/2`, a few per cent at a win rate of 0.7 with
    a hundred battles.

    References
    ----------
    E. B. Wilson. Probable inference, the law of succession, and statistical inference. *Journal
    of the American Statistical Association* 22(158):209-212, 1927.

    A. Agresti and B. A. Coull. Approximate is better than "exact" for interval estimation of
    binomial proportions. *The American Statistician* 52(2):119-126, 1998.

    L. D. Brown, T. T. Cai and A. DasGupta. Interval estimation for a binomial proportion.
    *Statistical Science* 16(2):101-133, 2001.
    """
    check_level(level)
    theta = np.asarray(estimate, dtype=float)
    sigma = covariance if is_sparse(covariance) else np.asarray(covariance, dtype=float)
    n = np.broadcast_to(np.asarray(n, dtype=float), theta.shape)
    z = float(ndtri(0.5 + level / 2.0))
    k = z * z / 2.0
    size = n + z * z
    w = n / size
    centre = w * theta + (1.0 - w) * 0.5
    own = variances(sigma)
    with np.errstate(invalid="ignore"):
        agresti = w * w * own + (n * (theta - centre) ** 2 + k * ((1.0 - centre) ** 2 + centre**2)) / size**2
        wide = (np.sqrt(agresti) + np.abs(theta - centre) / z) ** 2
        extra = np.where(n > 0, np.maximum(wide - own, 0.0), 0.0)
    extra = np.nan_to_num(extra)
    if is_sparse(sigma):  # (S, S) alone
        out = sigma.tocsr(copy=True)
        if shared is not None:
            scale = np.sqrt(extra / np.where(n > 0, n, 1.0))
            out = out - shared.multiply(scale[:, None]).multiply(scale[None, :]).tocsr()
        out.setdiag(own + extra)
        return out
    out = sigma.copy()
    if shared is not None:
        scale = np.sqrt(extra / np.where(n > 0, n, 1.0))
        out -= scale[..., :, None] * np.asarray(shared, dtype=float) * scale[..., None, :]
    index = np.arange(theta.shape[-1])
    out[..., index, index] = own + extra
    return out
