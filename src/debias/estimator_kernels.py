r"""Vectorised cores of the estimators of a system's mean human score, with their t-intervals.

Every estimator here is the mean of per-item *terms* (the item's value, minus what the metric
predicts of it), so one interval routine serves them all. The sample runs along the last axis
and every leading axis is a separate sample (Monte-Carlo repeats, sample sizes): the coverage
experiment evaluates thousands of samples in one call. :mod:`debias.estimators` wraps these
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
(:func:`debias.control_variates.theory_variance`). The floor :math:`\hat S^2 \ge \bar\nu` says that
a term varies at least by its own annotator noise.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from .control_variates import alpha_estimation_variance, control_variates_alpha

__all__ = ["MeanEstimate", "combined_terms", "cv_terms", "fold_labels", "t_interval"]


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


def t_interval(terms, *, fitted: int, n_outputs: int, noise, level: float, extra_variance=0.0) -> MeanEstimate:
    """Mean of the per-item ``terms`` (last axis) with its finite-population t-interval.

    ``fitted`` parameters were estimated from the terms (1 for a mean, 2 with a fitted
    coefficient): the variance uses ddof = ``fitted`` and the t quantile ``n - fitted`` degrees
    of freedom. ``noise`` is the average annotator variance of one term (broadcasts against the
    leading axes); ``None`` means unknown, and then nothing is taken off for sampling without
    replacement (the conservative choice). ``extra_variance`` is added as is.
    """
    terms = np.asarray(terms, dtype=float)
    n = terms.shape[-1]
    estimate = terms.mean(axis=-1)
    s2 = np.sum((terms - estimate[..., None]) ** 2, axis=-1) / (n - fitted)
    if noise is None:
        variance = s2 / n
    else:
        noise = np.asarray(noise, dtype=float)
        s2 = np.maximum(s2, noise)
        fraction = n / n_outputs
        variance = ((1.0 - fraction) * s2 + fraction * noise) / n
    se = np.sqrt(variance + extra_variance)
    df = float(n - fitted)
    half = stats.t.ppf(0.5 + level / 2.0, df) * se
    return MeanEstimate(estimate, estimate - half, estimate + half, level, se, df, n, n_outputs)


def cv_terms(y, g, g_mean, g_var, n_outputs: int):
    """Algorithm 1's terms ``y_i - alpha (g_i - mu_g)`` and the variance its plug-in alpha adds.

    ``y`` and ``g`` hold the sample on the last axis; ``g_mean``/``g_var`` are the metric's
    population mean and variance over all ``n_outputs`` outputs. Returns ``(terms, extra)``
    with ``extra`` from :func:`debias.control_variates.alpha_estimation_variance`.
    """
    y = np.asarray(y, dtype=float)
    g = np.asarray(g, dtype=float)
    alpha = control_variates_alpha(y, g, g_var)
    terms = y - alpha[..., None] * (g - g_mean)
    extra = alpha_estimation_variance(y.var(axis=-1, ddof=1), alpha, g_var, y.shape[-1], n_outputs)
    return terms, extra


def fold_labels(n: int, folds: int | None, rng: np.random.Generator | None) -> np.ndarray | None:
    """Random balanced fold labels for ``folds``-fold cross-fitting; ``None`` = leave-one-out."""
    if folds is None or folds >= n:
        return None
    if folds < 2:
        raise ValueError("folds must be at least 2 (or None for leave-one-out)")
    if rng is None:
        raise ValueError("k-fold cross-fitting draws its folds at random: pass rng (a numpy Generator)")
    return rng.permutation(n) % folds


def _principal_coordinates(g, g_mean, g_cov):
    """Metrics standardised with their population moments and rotated to principal axes."""
    g_mean = np.asarray(g_mean, dtype=float)
    g_cov = np.atleast_2d(np.asarray(g_cov, dtype=float))
    sd = np.sqrt(np.diag(g_cov))
    keep = sd > 0  # a constant metric carries no information
    corr = g_cov[np.ix_(keep, keep)] / np.outer(sd[keep], sd[keep])
    eigenvalues, vectors = np.linalg.eigh(corr)
    rank = eigenvalues > 1e-10 * eigenvalues.max() if eigenvalues.size else eigenvalues > 0
    z = (g[..., keep, :] - g_mean[keep, None]) / sd[keep, None]
    return np.einsum("mp,...mn->...pn", vectors[:, rank], z), eigenvalues[rank]


def _held_out_sums(values, labels):
    """Per held-out unit (an item for leave-one-out, else a fold) the sum of ``values``
    over the unit, broadcast back to its items; the last axis is the items."""
    if labels is None:
        return values
    one_hot = (labels[:, None] == np.arange(labels.max() + 1)).astype(float)
    return (values @ one_hot) @ one_hot.T


def combined_terms(y, g, g_mean, g_cov, *, labels=None, shrink: bool = True):
    r"""Cross-fitted terms of the vector control variate over several metrics.

    Parameters
    ----------
    y : array_like, shape (..., n)
        Item values.
    g : array_like, shape (..., M, n)
        The items' metric scores.
    g_mean, g_cov : array_like, shapes (M,) and (M, M)
        Population mean and covariance (ddof 0) of the metrics over all outputs.
    labels : numpy.ndarray or None
        Fold of each item (:func:`fold_labels`); ``None``: leave-one-out.
    shrink : bool
        Empirical-Bayes ridge coefficient (default) or the plain :math:`\Sigma_{gg}^{-1}\hat\Sigma_{gy}`.

    Returns
    -------
    numpy.ndarray, shape (..., n)
        Terms whose mean is the estimate; term i uses a coefficient fitted without item i.

    Notes
    -----
    With the metrics standardised (correlation matrix C, known from all outputs) the
    coefficient is :math:`\hat\beta = (C + \lambda I)^{-1}\hat c`, :math:`\hat c` the sample
    covariance of the standardised metrics with y on the training items (n_t of them). With
    :math:`\lambda = 0` it is :math:`\Sigma_{gg}^{-1}\hat\Sigma_{gy}`. Under the exchangeable prior
    :math:`\beta \sim N(0, \tau^2 I)` and :math:`\hat c \mid \beta \sim N(C\beta, C s^2 / n_t)`, the
    posterior mean has :math:`\lambda = s^2 / (n_t \tau^2)`; :math:`\tau^2` is estimated by moments,
    :math:`\hat\tau^2 = \max(0, (\lVert\hat c\rVert^2 - s^2 \operatorname{tr} C / n_t) / \operatorname{tr} C^2)`
    (:math:`\hat\tau^2 = 0`: no evidence of a signal, coefficient 0). Estimating M coefficients
    costs about M/n of the variance; the shrinkage spends it only where the data show a signal.
    Because no term uses its own item, the estimate stays unbiased whatever the coefficient
    (cross-fitting), and the terms' spread includes the coefficient's noise, so their sample
    variance is an honest variance estimate.
    """
    y = np.asarray(y, dtype=float)
    h, eigenvalues = _principal_coordinates(np.asarray(g, dtype=float), g_mean, g_cov)
    n = y.shape[-1]
    if eigenvalues.size == 0:
        return y.copy()
    counts = np.full(n, 1.0) if labels is None else np.bincount(labels)[labels].astype(float)
    n_train = n - counts
    train_y = y.sum(-1, keepdims=True) - _held_out_sums(y, labels)
    train_y2 = (y**2).sum(-1, keepdims=True) - _held_out_sums(y**2, labels)
    train_h = h.sum(-1, keepdims=True) - _held_out_sums(h, labels)
    train_hy = (h * y[..., None, :]).sum(-1, keepdims=True) - _held_out_sums(h * y[..., None, :], labels)
    cov = train_hy / n_train - train_h * (train_y / n_train**2)[..., None, :]  # (..., P, n)
    if shrink:
        s2 = np.maximum(train_y2 - train_y**2 / n_train, 0.0) / (n_train - 1)
        signal = np.sum(cov**2, axis=-2) - s2 * eigenvalues.sum() / n_train
        tau2 = np.maximum(signal, 0.0) / np.sum(eigenvalues**2)
        # beta_p = cov_p / (lambda_p + s2 / (n_t tau2)), written so that tau2 = 0 gives 0
        weight = (n_train * tau2)[..., None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            beta = cov * weight / (eigenvalues[:, None] * weight + s2[..., None, :])
        beta = np.nan_to_num(beta)
    else:
        beta = cov / eigenvalues[:, None]
    return y - np.sum(beta * h, axis=-2)
