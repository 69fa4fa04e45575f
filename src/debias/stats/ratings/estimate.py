"""Estimates from one evaluation sample: any estimator of the registry
(:mod:`debias.stats.ratings.estimators`) on an :class:`~debias.data.EvalSample`."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from debias.data import EvalSample
from debias.stats.common.intervals import MeanEstimate, check_level
from debias.stats.common.ppi import ppi_fpc_terms
from debias.stats.ratings.clustered import cluster_influence, clustered_interval
from debias.stats.ratings.estimators import Population, estimator_names, resolve_estimator
from debias.stats.ratings.variance import item_noise

__all__ = ["check_level", "estimate_all", "estimate_mean", "estimate_with_terms"]


def estimate_mean(
    sample: EvalSample,
    estimator: str = "mean",
    *,
    level: float,
    annotator_variance: float | None = None,
    folds: int | None = None,
    rng: np.random.Generator | None = None,
    shrink: bool = True,
) -> MeanEstimate:
    r"""One estimate of a system's mean human score with its confidence interval.

    Parameters
    ----------
    sample : EvalSample
        The judged items, their metric scores and every output's scores.
    estimator : str
        ``mean``, ``cv:<metric>``, ``cv:combined`` or ``ppi++:<metric>`` (module notes).
    level : float
        Nominal coverage of the interval, in (0, 1).
    annotator_variance : float, optional
        Variance of one judgment around its item's mean; by default pooled over the items judged
        more than once, and unknown without such items (then nothing is taken off for sampling
        without replacement).
    folds, rng, shrink
        ``cv:combined`` only: cross-fit with ``folds`` random folds drawn by ``rng`` (default:
        leave one out), and the empirical-Bayes ridge (default) or the plain coefficient.

    Returns
    -------
    MeanEstimate

    Examples
    --------
    >>> from debias.data import EvalSample
    >>> sample = EvalSample.from_arrays([[4, 5], [3, 3], [5], [2, 3]], [0.9, 0.4, 0.8, 0.2],
    ...                                 unjudged_scores=[0.5, 0.7], metrics=["bleu"])
    >>> round(float(estimate_mean(sample, "cv:bleu", level=0.8).estimate), 3)
    3.79
    """
    result, _ = estimate_with_terms(
        sample, estimator, level=level, annotator_variance=annotator_variance, folds=folds, rng=rng, shrink=shrink
    )
    return result


def estimate_with_terms(
    sample: EvalSample,
    estimator: str = "mean",
    *,
    level: float,
    annotator_variance: float | None = None,
    folds: int | None = None,
    rng: np.random.Generator | None = None,
    shrink: bool = True,
) -> tuple[MeanEstimate, np.ndarray]:
    """:func:`estimate_mean` and the estimate's per-item terms (n,), whose mean is the estimate
    up to a constant (PPI++: :func:`debias.stats.common.ppi.ppi_fpc_terms`); what the joint covariance
    of several systems' estimates is computed from (:mod:`debias.stats.common.joint`)."""
    check_level(level)
    if annotator_variance is not None and not (np.isfinite(annotator_variance) and annotator_variance >= 0):
        raise ValueError(f"annotator_variance must be a finite number >= 0, got {annotator_variance}")
    if sample.n_judged < 3:
        raise ValueError(f"an interval needs at least 3 judged items, got {sample.n_judged}")
    family, metric = resolve_estimator(estimator, sample.metrics)
    population = Population(sample.population)
    given = {"folds": folds, "rng": rng, "shrink": shrink}
    options = {key: given[key] for key in family.options}
    terms = family.terms(sample.judgments.item_means, sample.scores.T, population, metric, **options)
    noise = item_noise(sample.judgments, annotator_variance)
    result = family.interval(terms, population, noise=noise, level=level)
    if terms.scores is not None:  # PPI++ keeps y and g: its estimate as a mean of terms
        values, _ = ppi_fpc_terms(terms.values, terms.scores, population.sums[terms.metric])
    else:
        values = np.asarray(terms.values, dtype=float)
    if sample.clustered:  # items sharing a document: the cluster-robust interval
        influence = cluster_influence(sample, values)
        result = clustered_interval(float(result.estimate), influence, level=level, n_outputs=sample.n_outputs)
    return result, values


def estimate_all(sample: EvalSample, *, level: float, estimators: Sequence[str] | None = None, **options):
    """Every estimator of :func:`estimator_names` (or those named) on one sample, as a dict
    name -> :class:`MeanEstimate`; ``options`` go to :func:`estimate_mean`."""
    unjudged = sample.unjudged is not None and sample.unjudged.shape[0] > 0
    names = estimator_names(sample.metrics, unjudged=unjudged) if estimators is None else list(estimators)
    return {name: estimate_mean(sample, name, level=level, **options) for name in names}
