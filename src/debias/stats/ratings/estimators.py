r"""The estimators of a system's mean human score, behind one registry.

A real evaluation has N system outputs, free automatic metrics on all of them, and human
judgments of a random sample of n of them (one or several judgments each): an
:class:`~debias.data.EvalSample`. Every estimator is a small object in :data:`REGISTRY` that
says how it turns the judged items' values :math:`y_i` (their mean judgments) and metric scores
into per-item *terms* whose mean is the estimate, how many parameters it fitted, and what extra
variance its plug-in coefficients add; one interval routine (:func:`debias.stats.common.intervals.t_interval`)
serves them all, for one evaluation and for thousands of resampled ones alike (leading axes).
Adding an estimator touches this file only.

Names: ``mean``; ``cv:<metric>`` (Algorithm 1 with one metric); ``cv:combined`` (every metric
as a vector control variate, two or more metrics); ``ppi++:<metric>`` (the PPI++ peer, which
needs unjudged outputs) and ``ppi++fpc:<metric>`` (its estimate with the finite-population
t-interval, in the coverage check).

The interval's variance estimate is

.. math::

    \widehat{\operatorname{Var}} = \frac{(1 - n/N)(\hat S^2 - \bar\nu) + \bar\nu}{n},

the finite-population correction of sampling n of N outputs applied to the items' part only:
:math:`\hat S^2` is the sample variance of the terms and :math:`\bar\nu` the annotator variance
of one item's value (:func:`debias.stats.ratings.variance.item_noise`), which fresh judgments bring
however many outputs are judged. For ``mean`` this is Eq. (2) of the paper, for ``cv`` Eq. (6).
The interval is centred by Johnson's (1978) skewness shift
(:func:`debias.stats.common.intervals.skewness_shift`).

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

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from debias.stats.common.intervals import MeanEstimate, fold_labels, t_interval
from debias.stats.common.ppi import PopulationSums, ppi_fpc_terms, ppi_tuned_mean_ci
from debias.stats.common.vocabulary import UnknownEstimator, describe
from debias.stats.ratings.combined import combined_terms, combined_terms_standardised, metric_coordinates
from debias.stats.ratings.control_variates import cv_terms

__all__ = [
    "REGISTRY",
    "Estimator",
    "MeanEstimate",
    "Population",
    "Terms",
    "estimator_names",
    "resolve_estimator",
]

#: Repeats per call of the combined control variate's kernel on resampled data (cache-sized).
REPEAT_BLOCK = 64


@dataclass(frozen=True, eq=False)
class Population:
    """What an evaluation knows for free: the metrics on all N outputs, and their moments.

    ``scores`` is (N, M), judged outputs included. The moments (ddof 0) and the metrics'
    principal coordinates are computed once, on first use.
    """

    scores: np.ndarray

    @property
    def n_outputs(self) -> int:
        return int(self.scores.shape[0])

    @cached_property
    def mean(self) -> np.ndarray:
        return self.scores.mean(axis=0)

    @cached_property
    def var(self) -> np.ndarray:
        return self.scores.var(axis=0)

    @cached_property
    def cov(self) -> np.ndarray:
        if self.scores.shape[1] == 0:
            return np.zeros((0, 0))
        return np.atleast_2d(np.cov(self.scores.T, ddof=0))

    @cached_property
    def coordinates(self):
        """``(keep, sd, vectors, eigenvalues, h)``: :func:`metric_coordinates` and every output's
        principal coordinates h, (P, N)."""
        keep, sd, vectors, eigenvalues = metric_coordinates(self.cov)
        h = vectors.T @ ((self.scores.T[keep] - self.mean[keep, None]) / sd[keep, None])
        return keep, sd, vectors, eigenvalues, h

    @cached_property
    def sums(self) -> list[PopulationSums]:
        """Each metric's sums over all N outputs, for PPI++ (:class:`debias.stats.common.ppi.PopulationSums`)."""
        return [PopulationSums.of(self.scores[:, j]) for j in range(self.scores.shape[1])]


@dataclass(frozen=True)
class Terms:
    """Per-item terms (last axis) whose mean is the estimate, the parameters fitted from them
    (the ddof of their variance and the t quantile's n - fitted degrees of freedom), and the
    variance a plug-in coefficient adds beyond what the terms show. PPI++ keeps the judged
    items' values and the ``scores`` of its ``metric`` instead and builds its interval itself."""

    values: np.ndarray
    fitted: int
    extra_variance: float | np.ndarray = 0.0
    scores: np.ndarray | None = None
    metric: int | None = None


class Estimator:
    """One family of estimators: ``mean``, ``cv``, ``cv:combined`` or ``ppi++``.

    ``per_metric`` families are named ``<family>:<metric>``; ``min_metrics`` metrics are needed,
    and the family is listed by default from ``listed_from`` metrics on; ``needs_unjudged``
    families need outputs nobody judged; ``check_only`` families are listed in the coverage
    check, not among a sample's estimates; ``options`` names the keyword options its
    :meth:`terms` accepts (cross-fitting folds, their generator, shrinkage). :meth:`terms` takes the judged items'
    values ``y`` (..., n) and their metric scores ``g`` (..., M, n) (``metric``: the column a
    per-metric family uses); :meth:`terms_at` the same with the items given as ``rows`` of the
    population (resampling experiments). :meth:`interval` turns them into a
    :class:`~debias.stats.common.intervals.MeanEstimate`.
    """

    family: str = ""
    per_metric: bool = False
    min_metrics: int = 0
    listed_from: int = 0
    needs_unjudged: bool = False
    check_only: bool = False
    options: tuple[str, ...] = ()

    def name(self, metric: str | None = None) -> str:
        return f"{self.family}:{metric}" if self.per_metric else self.family

    def terms(self, y, g, population: Population, metric: int | None = None, **options) -> Terms:
        raise NotImplementedError

    def terms_at(self, y, rows, population: Population, metric: int | None = None) -> Terms:
        g = np.moveaxis(population.scores[rows], -1, -2)
        return self.terms(y, g, population, metric)

    def interval(self, terms: Terms, population: Population, *, noise, level: float) -> MeanEstimate:
        return t_interval(
            terms.values,
            fitted=terms.fitted,
            n_outputs=population.n_outputs,
            noise=noise,
            level=level,
            extra_variance=terms.extra_variance,
        )


class SampleMean(Estimator):
    r"""``mean``: :math:`\hat\mu = \bar y`, Eq. (2) of the paper (one parameter fitted)."""

    family = "mean"

    def terms(self, y, g, population, metric=None, **options):
        return Terms(np.asarray(y, dtype=float), 1)

    def terms_at(self, y, rows, population, metric=None):
        return Terms(np.asarray(y, dtype=float), 1)


class ControlVariate(Estimator):
    r"""``cv:<metric>``: Algorithm 1, :math:`\bar y - \hat\alpha(\bar g - \mu_g)`, α unclipped.

    Its variance is Eq. (6); the terms are the residuals :math:`y_i - \hat\alpha(g_i - \mu_g)`
    (two parameters fitted) plus the O(1/n²) cost of the plug-in α
    (:func:`debias.stats.ratings.control_variates.alpha_estimation_variance`). A metric constant over
    the N outputs carries no information: the estimator is then ``mean`` (terms :math:`y_i`,
    one parameter), and the tables' log says why.
    """

    family = "cv"
    per_metric = True
    min_metrics = 1

    def terms(self, y, g, population, metric=None, **options):
        if not population.var[metric] > 0:  # a constant metric: the mean (no coefficient fitted)
            return Terms(np.asarray(y, dtype=float), 1)
        values, extra = cv_terms(
            y, np.asarray(g)[..., metric, :], population.mean[metric], population.var[metric], population.n_outputs
        )
        return Terms(values, 2, extra)

    def terms_at(self, y, rows, population, metric=None):
        if not population.var[metric] > 0:
            return Terms(np.asarray(y, dtype=float), 1)
        g = population.scores[:, metric][rows]
        values, extra = cv_terms(y, g, population.mean[metric], population.var[metric], population.n_outputs)
        return Terms(values, 2, extra)


class CombinedControlVariate(Estimator):
    r"""``cv:combined``: every metric at once as a vector control variate, cross-fitted.

    The estimate is :math:`\frac1n\sum_i [y_i - \hat\alpha_{-i}^\top(g_i - \mu_g)]` with
    :math:`\hat\alpha_{-i}` fitted without item i (or its fold) and shrunk by an empirical-Bayes
    ridge (:func:`debias.stats.ratings.combined.combined_terms`); the interval uses the terms' sample
    variance (one parameter fitted), which includes the coefficient's estimation noise. With
    every output judged (n = N) the terms are the item values: the cross-fitted coefficients
    differ from item to item, so their correction would not vanish although the judged items'
    metrics average to the population's; the estimate is then the mean, as for every estimator.
    """

    family = "cv:combined"
    min_metrics = 1
    options = ("folds", "rng", "shrink")
    listed_from = 2  # with one metric it is cv:<metric> with a cross-fitted, shrunk coefficient

    def terms(self, y, g, population, metric=None, *, folds=None, rng=None, shrink=True):
        if np.shape(y)[-1] == population.n_outputs:  # every output judged: nothing left to estimate
            return Terms(np.array(y, dtype=float), 1)
        labels = fold_labels(np.shape(y)[-1], folds, rng)
        values = combined_terms(y, g, population.mean, population.cov, labels=labels, shrink=shrink)
        return Terms(values, 1)

    def terms_at(self, y, rows, population, metric=None):
        _, _, vectors, eigenvalues, h_all = population.coordinates
        y = np.asarray(y, dtype=float)
        if y.ndim == 1:
            h = h_all[:, rows]
            return Terms(combined_terms_standardised(y, None, vectors, eigenvalues, h=h), 1)
        values = np.empty_like(y)
        for block in range(0, y.shape[0], REPEAT_BLOCK):  # blocks that stay in the processor's cache
            part = slice(block, block + REPEAT_BLOCK)
            h = np.moveaxis(h_all[:, rows[part]], 0, 1)
            values[part] = combined_terms_standardised(y[part], None, vectors, eigenvalues, h=h)
        return Terms(values, 1)


class PredictionPowered(Estimator):
    r"""``ppi++:<metric>``: prediction-powered inference with power tuning (the peer).

    PPI++ estimates :math:`\lambda\,\bar g_{\text{unjudged}} + \overline{(y - \lambda g)}` with
    :math:`\lambda` tuned for variance and clipped to [0, 1], and gives a normal interval with no
    finite-population correction: ``ppi_py.ppi_mean_ci``'s, computed by
    :func:`debias.stats.common.ppi.ppi_tuned_mean_ci` for many samples at once.
    """

    family = "ppi++"
    per_metric = True
    min_metrics = 1
    needs_unjudged = True

    def terms(self, y, g, population, metric=None, **options):
        return Terms(np.asarray(y, dtype=float), 0, 0.0, np.asarray(g, dtype=float)[..., metric, :], metric)

    def terms_at(self, y, rows, population, metric=None):
        return Terms(np.asarray(y, dtype=float), 0, 0.0, population.scores[:, metric][rows], metric)

    def interval(self, terms, population, *, noise, level):
        estimate, low, high, se, _ = ppi_tuned_mean_ci(
            terms.values, terms.scores, population.sums[terms.metric], level=level
        )
        n = terms.values.shape[-1]
        return MeanEstimate(estimate, low, high, level, se, float("inf"), n, population.n_outputs)


class PredictionPoweredFpc(PredictionPowered):
    r"""``ppi++fpc:<metric>``: PPI++'s estimate with the finite-population t-interval of the other
    estimators (:func:`debias.stats.common.ppi.ppi_fpc_terms`: terms :math:`y_i - \hat\lambda N/N_u\,g_i`,
    two parameters fitted). Listed in the coverage check beside ``ppi++``."""

    family = "ppi++fpc"
    check_only = True

    def interval(self, terms, population, *, noise, level):
        values, shift = ppi_fpc_terms(terms.values, terms.scores, population.sums[terms.metric])
        r = t_interval(values, fitted=2, n_outputs=population.n_outputs, noise=noise, level=level)
        return MeanEstimate(
            r.estimate + shift, r.ci_low + shift, r.ci_high + shift, level, r.se, r.df, r.n_judged, r.n_outputs
        )


#: Every estimator family by name; :func:`estimator_names` lists a sample's estimators in this order.
REGISTRY: dict[str, Estimator] = {
    e.family: e
    for e in (SampleMean(), ControlVariate(), CombinedControlVariate(), PredictionPowered(), PredictionPoweredFpc())
}


def estimator_names(
    metrics: Sequence[str], *, unjudged: bool = False, families: Sequence[str] | None = None, check: bool = False
) -> list[str]:
    """The estimators of a sample with these metrics: ``mean``, ``cv:<metric>`` for each metric,
    ``cv:combined`` with two or more, ``ppi++:<metric>`` when some outputs are ``unjudged``, and
    with ``check`` (the coverage check) the ``check_only`` families too (``ppi++fpc:<metric>``).
    ``families`` restricts the list (default: every family of :data:`REGISTRY`)."""
    names = []
    for family, estimator in REGISTRY.items():
        if families is not None and family not in families:
            continue
        if estimator.check_only and not check:
            continue
        if len(metrics) < max(estimator.min_metrics, estimator.listed_from) or (
            estimator.needs_unjudged and not unjudged
        ):
            continue
        names += [estimator.name(m) for m in metrics] if estimator.per_metric else [estimator.name()]
    return names


def resolve_estimator(name: str, metrics: Sequence[str]) -> tuple[Estimator, int | None]:
    """The registry entry of an estimator name and the index of its metric (``None``: all/none);
    the name is read by :func:`debias.stats.common.vocabulary.describe`, the one reader of names."""
    metrics = list(metrics)
    try:
        info = describe(name)
    except UnknownEstimator:
        info = None
    key = None if info is None else (name if info.combined else info.family.family)
    estimator = REGISTRY.get(key)
    if estimator is not None and not estimator.per_metric:
        if len(metrics) < estimator.min_metrics:
            needed = estimator.min_metrics
            raise ValueError(f"'{name}' needs at least {needed} metric{'s' * (needed > 1)}, got {len(metrics)}")
        return estimator, None
    if estimator is not None and info.proxy in metrics:
        return estimator, metrics.index(info.proxy)
    known = ", ".join(estimator_names(metrics, unjudged=True)) or "mean"
    raise ValueError(f"unknown estimator '{name}' (for metrics {metrics}: {known})")
