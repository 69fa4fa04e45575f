r"""Unbiased estimates of a system's mean human score, with confidence intervals.

A real evaluation has N system outputs, a free automatic metric on all of them, and human
judgments of a random sample of n of them (one or several judgments each). Every estimator here
takes exactly that:

- ``judgments``: (n, K) array, row i holding the judgments of judged item i first and NaN
  after them (:func:`debias.tables.joined.judgment_matrix` builds it);
- ``scores``: the judged items' metric scores, (n,) or (n, M);
- ``all_scores``: the metric's scores of all N outputs, judged and unjudged, (N,) or (N, M);
  their mean and variance are what makes the metric useful (Section 3.3 of the paper).

Each returns a :class:`~debias.stats.intervals.MeanEstimate`. The estimand is the mean
human score over the N outputs. The interval is a t-interval whose variance estimate,

.. math::

    \widehat{\operatorname{Var}} = \frac{(1 - n/N)(\hat S^2 - \bar\nu) + \bar\nu}{n},

applies the finite-population correction of sampling n of N outputs without replacement to the
items' part of the variance only: :math:`\hat S^2` is the sample variance of the estimator's
per-item terms and :math:`\bar\nu` the annotator variance of one item's value
(:math:`\sigma_a^2 / k_i` averaged over items), which fresh judgments bring however many of the
outputs are judged. For ``mean`` this is Eq. (2) of the paper, for ``cv`` Eq. (6), each with the
correction (:func:`debias.stats.control_variates.theory_variance`). The interval
:math:`\hat\mu + b\sqrt{\hat V} \pm t_{n-p}\sqrt{\hat V}` is centred by Johnson's (1978)
skewness shift :math:`b = (1-f)(1-2f)\,k_3/(6 n^2 \hat V^{3/2})`, f = n/N and :math:`k_3` the
terms' third central moment (:func:`debias.stats.intervals.skewness_shift`).

References
----------
A. Chaganty, S. Mussmann and P. Liang. The price of debiasing automatic metrics in natural
language evaluation. In *Proceedings of the 56th Annual Meeting of the Association for
Computational Linguistics (ACL)*, pages 643-653, Melbourne, 2018.

A. N. Angelopoulos, J. C. Duchi and T. Zrnic. PPI++: Efficient prediction-powered inference.
arXiv:2311.01453, 2023.

N. J. Johnson. Modified t tests and confidence intervals for asymmetrical populations.
*Journal of the American Statistical Association* 73(363):536-544, 1978.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtri

from debias.stats.bootstrap import judgment_counts
from debias.stats.intervals import MeanEstimate, combined_terms, cv_terms, fold_labels, t_interval
from debias.stats.variance import annotator_variance as pooled_annotator_variance

__all__ = [
    "MeanEstimate",
    "check_estimator_inputs",
    "cv_combined_mean_ci",
    "cv_mean_ci",
    "item_noise",
    "ppi_tuned_mean_ci",
    "sample_mean_ci",
]


def check_estimator_inputs(judgments, scores=None, all_scores=None, *, level=0.8, annotator_variance=None):
    """Validate and convert the inputs shared by every estimator.

    Returns ``(judgments, scores, all_scores)`` as float arrays, scores as (n, M) and
    all_scores as (N, M) (``None`` stays ``None``). Raises ``ValueError`` naming the problem.
    """
    judgments = np.asarray(judgments, dtype=float)
    if judgments.ndim == 1:
        judgments = judgments[:, None]
    if judgments.ndim != 2:
        raise ValueError(f"judgments must be an (n, K) array, got shape {judgments.shape}")
    if np.any(np.isinf(judgments)):
        raise ValueError("judgments must be finite (NaN only as padding)")
    judgment_counts(judgments)  # every item judged, NaN only as trailing padding
    n = judgments.shape[0]
    if n < 3:
        raise ValueError(f"an interval needs at least 3 judged items, got {n}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")
    if annotator_variance is not None and not (np.isfinite(annotator_variance) and annotator_variance >= 0):
        raise ValueError(f"annotator_variance must be a finite number >= 0, got {annotator_variance}")
    if (scores is None) != (all_scores is None):
        raise ValueError("scores and all_scores go together")
    if scores is None:
        return judgments, None, None
    scores, all_scores = (np.asarray(a, dtype=float) for a in (scores, all_scores))
    scores = scores[:, None] if scores.ndim == 1 else scores
    all_scores = all_scores[:, None] if all_scores.ndim == 1 else all_scores
    if scores.ndim != 2 or scores.shape[0] != n:
        raise ValueError(f"scores must have one row per judged item ({n}), got shape {scores.shape}")
    if all_scores.ndim != 2 or all_scores.shape[1] != scores.shape[1]:
        raise ValueError(f"all_scores must be (N, {scores.shape[1]}), got shape {all_scores.shape}")
    if all_scores.shape[0] < n:
        raise ValueError(f"all_scores has {all_scores.shape[0]} outputs, fewer than the {n} judged items")
    if not (np.all(np.isfinite(scores)) and np.all(np.isfinite(all_scores))):
        raise ValueError("metric scores must be finite")
    return judgments, scores, all_scores


def item_noise(judgments, annotator_variance=None):
    """Average annotator variance of the judged items' values, mean of sigma_a^2 / k_i.

    ``annotator_variance`` (of one judgment) defaults to the pooled within-item variance of the
    items judged more than once (:func:`debias.stats.variance.annotator_variance`); with no such item
    and no value given it is unknown and ``None`` is returned (the interval then takes nothing
    off for sampling without replacement).
    """
    counts = judgment_counts(judgments)
    if annotator_variance is None:
        annotator_variance = pooled_annotator_variance(judgments)
        if not np.isfinite(annotator_variance):
            return None
    return float(annotator_variance * np.mean(1.0 / counts))


def _item_values(judgments):
    return np.nanmean(judgments, axis=1)


def sample_mean_ci(judgments, *, n_outputs: int, level: float = 0.8, annotator_variance=None) -> MeanEstimate:
    """The sample mean of the judged items' values (``mean``) with its t-interval.

    Parameters
    ----------
    judgments : array_like, shape (n, K)
        Judgments of each judged item, NaN-padded; an item's value is their mean.
    n_outputs : int
        Number N of outputs the judged items were sampled from (N >= n).
    level : float
        Nominal coverage (default 0.8).
    annotator_variance : float, optional
        Variance of one judgment around its item's mean; estimated from the items judged more
        than once when not given (see :func:`item_noise`).

    Returns
    -------
    MeanEstimate

    Notes
    -----
    :math:`\\hat\\mu = \\bar y`, Eq. (2) of the paper; interval as in the module notes with ddof 1
    and n - 1 degrees of freedom.
    """
    judgments, _, _ = check_estimator_inputs(judgments, level=level, annotator_variance=annotator_variance)
    if n_outputs < judgments.shape[0]:
        raise ValueError(f"n_outputs ({n_outputs}) is smaller than the number of judged items")
    noise = item_noise(judgments, annotator_variance)
    return t_interval(_item_values(judgments), fitted=1, n_outputs=n_outputs, noise=noise, level=level)


def cv_mean_ci(judgments, scores, all_scores, *, level: float = 0.8, annotator_variance=None) -> MeanEstimate:
    """Algorithm 1 with one metric (``cv:<metric>``) and its t-interval.

    Parameters
    ----------
    judgments : array_like, shape (n, K)
        Judgments of each judged item, NaN-padded.
    scores : array_like, shape (n,)
        The metric on the judged items.
    all_scores : array_like, shape (N,)
        The metric on all N outputs, judged or not.
    level, annotator_variance
        As in :func:`sample_mean_ci`.

    Returns
    -------
    MeanEstimate

    Notes
    -----
    :math:`\\tilde\\mu = \\bar y - \\hat\\alpha(\\bar g - \\mu_g)` with
    :math:`\\hat\\alpha = \\frac1n\\sum_i (y_i - \\bar y)(g_i - \\bar g) / \\sigma_g^2`, unclipped, and
    :math:`\\mu_g, \\sigma_g^2` over all N outputs. Its variance is Eq. (6),
    :math:`(\\sigma_f^2(1-\\rho^2) + \\sigma_a^2)/n` for independent draws, estimated from the
    residuals :math:`y_i - \\hat\\alpha g_i` (ddof 2, n - 2 degrees of freedom) with the
    finite-population correction of the module notes, plus the O(1/n^2) cost of the plug-in
    :math:`\\hat\\alpha` (:func:`debias.stats.control_variates.alpha_estimation_variance`).
    """
    judgments, scores, all_scores = check_estimator_inputs(
        judgments, scores, all_scores, level=level, annotator_variance=annotator_variance
    )
    if scores.shape[1] != 1:
        raise ValueError("cv_mean_ci takes one metric; use cv_combined_mean_ci for several")
    n_outputs = all_scores.shape[0]
    terms, extra = cv_terms(
        _item_values(judgments), scores[:, 0], all_scores[:, 0].mean(), all_scores[:, 0].var(), n_outputs
    )
    noise = item_noise(judgments, annotator_variance)
    return t_interval(terms, fitted=2, n_outputs=n_outputs, noise=noise, level=level, extra_variance=float(extra))


def cv_combined_mean_ci(
    judgments,
    scores,
    all_scores,
    *,
    level: float = 0.8,
    annotator_variance=None,
    folds: int | None = None,
    rng: np.random.Generator | None = None,
    shrink: bool = True,
) -> MeanEstimate:
    """All metrics at once as a vector control variate (``cv:combined``), cross-fitted.

    Parameters
    ----------
    judgments : array_like, shape (n, K)
        Judgments of each judged item, NaN-padded.
    scores : array_like, shape (n, M)
        The M metrics on the judged items.
    all_scores : array_like, shape (N, M)
        The M metrics on all N outputs.
    level, annotator_variance
        As in :func:`sample_mean_ci`.
    folds : int, optional
        Cross-fit with this many random folds; ``None`` (default) leaves one item out at a time
        (closed form, the largest training sets, no randomness).
    rng : numpy.random.Generator, optional
        Draws the folds; required when ``folds`` is given.
    shrink : bool
        Empirical-Bayes ridge coefficient, its penalty by maximum marginal likelihood (default);
        ``False`` gives the plain
        :math:`\\alpha = \\Sigma_{gg}^{-1}\\hat\\Sigma_{gy}`.

    Returns
    -------
    MeanEstimate

    Notes
    -----
    The estimate is :math:`\\frac1n\\sum_i [y_i - \\hat\\alpha_{-i}^\\top(g_i - \\mu_g)]` with
    :math:`\\hat\\alpha_{-i}` fitted on the items outside i's fold, :math:`\\Sigma_{gg}` and
    :math:`\\mu_g` over all N outputs (see :func:`debias.stats.combined.combined_terms`); with
    the population coefficient its variance is Eq. (6) with :math:`\\rho^2` the squared multiple
    correlation. The interval uses the terms' sample variance (ddof 1, n - 1 degrees of
    freedom), which includes the coefficient's estimation noise.
    """
    judgments, scores, all_scores = check_estimator_inputs(
        judgments, scores, all_scores, level=level, annotator_variance=annotator_variance
    )
    n = judgments.shape[0]
    labels = fold_labels(n, folds, rng)
    g_cov = np.atleast_2d(np.cov(all_scores.T, ddof=0))
    terms = combined_terms(
        _item_values(judgments), scores.T, all_scores.mean(axis=0), g_cov, labels=labels, shrink=shrink
    )
    noise = item_noise(judgments, annotator_variance)
    return t_interval(terms, fitted=1, n_outputs=all_scores.shape[0], noise=noise, level=level)


def ppi_tuned_mean_ci(judgments, scores, unjudged_scores, *, level: float = 0.8) -> MeanEstimate:
    """The peer: prediction-powered inference with power tuning (PPI++), from ``ppi-python``.

    Parameters
    ----------
    judgments : array_like, shape (n, K)
        Judgments of each judged item, NaN-padded; the labels are the items' mean judgments.
    scores : array_like, shape (n,)
        The metric on the judged items (the "predictions" of the labelled data).
    unjudged_scores : array_like, shape (N - n,)
        The metric on the outputs nobody judged (the unlabelled data); at least one.
    level : float
        Nominal coverage.

    Returns
    -------
    MeanEstimate
        ``ppi_py.ppi_mean_ci``'s interval as it comes (a normal interval, no finite-population
        correction); the estimate is its centre, ``ppi_py.ppi_mean_pointestimate``'s value.

    Notes
    -----
    PPI++ estimates :math:`\\lambda\\,\\overline{g}_{\\text{unjudged}} + \\overline{(y - \\lambda g)}` with
    :math:`\\lambda` tuned for variance and clipped to [0, 1], so a metric on another scale than
    the judgments, or negatively correlated with them, cannot help it as much as Algorithm 1's
    unclipped :math:`\\alpha`.
    """
    from ppi_py import ppi_mean_ci  # imported here: it loads numba and statsmodels (about 2 s)

    judgments, scores, unjudged = check_estimator_inputs(judgments, scores, np.r_[scores, unjudged_scores], level=level)
    n = judgments.shape[0]
    unjudged = unjudged[n:, 0]
    if unjudged.size == 0:
        raise ValueError("PPI++ needs at least one unjudged output")
    low, high = (
        float(np.squeeze(v)) for v in ppi_mean_ci(_item_values(judgments), scores[:, 0], unjudged, alpha=1.0 - level)
    )
    se = (high - low) / (2.0 * ndtri(0.5 + level / 2.0))
    return MeanEstimate((low + high) / 2.0, low, high, level, se, float("inf"), n, n + unjudged.size)
