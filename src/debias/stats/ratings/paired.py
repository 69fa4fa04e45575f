r"""Is system B better than system A? Paired differences of two systems judged on the same inputs.

When both systems were run on the same N inputs and the same judged items are judged for both,
the per-item difference of their mean judgments,

.. math::

    d_i = \bar y_{B,i} - \bar y_{A,i},

is one "judgment" of the item-level difference, and the mean of :math:`d_i` over the judged
items estimates :math:`\mu_B - \mu_A` over the shared outputs. The item effect common to both
systems (an easy or a hard input) cancels in :math:`d_i`, which is why pairing needs fewer
judgments than two separate samples. A metric's difference :math:`h_i = g_{B,i} - g_{A,i}`,
scored on all N shared outputs, is a control variate for :math:`d_i` like any metric for a
system's judgments. So the estimators of :mod:`debias.stats.ratings.estimators` apply
unchanged: ``mean`` is the sample mean of :math:`d`, ``cv:<metric>`` is Algorithm 1 with
:math:`h`, ``cv:combined`` is the vector control variate with every metric's difference. The
annotator noise of :math:`d_i` is :math:`\sigma_{a,A}^2/k_{A,i} + \sigma_{a,B}^2/k_{B,i}`
(independent annotators), and 0 when both lines name the same ``judged_output`` (one judgment
of an output both systems produced: :math:`d_i = 0` exactly). When items share documents
(``clusters`` of the :class:`~debias.data.PairedSample`), the difference's interval is
cluster-robust (:mod:`debias.stats.ratings.clustered`): pairing takes out the item effect the
two systems share, the clusters what is left of the documents' effect on the difference.

References
----------
A. Chaganty, S. Mussmann and P. Liang. The price of debiasing automatic metrics in natural
language evaluation. In *Proceedings of the 56th Annual Meeting of the Association for
Computational Linguistics (ACL)*, pages 643-653, Melbourne, 2018.
"""

from __future__ import annotations

import numpy as np
from scipy.special import stdtr

from debias.data import PairedSample
from debias.stats.common.intervals import MeanEstimate, check_level
from debias.stats.common.vocabulary import describe
from debias.stats.ratings.clustered import clustered_interval, influence_of
from debias.stats.ratings.estimators import Population, estimator_names, resolve_estimator
from debias.stats.ratings.variance import annotator_variance

__all__ = ["PairedSample", "difference_noise", "paired_difference_ci", "paired_difference_estimates", "p_value"]


def difference_noise(pair: PairedSample) -> float | None:
    """Average annotator variance of :math:`d_i`: :math:`\\sigma_{a,A}^2/k_{A,i} + \\sigma_{a,B}^2/k_{B,i}`,
    0 for items whose two lines share one judgment; each system's :math:`\\sigma_a^2` pooled over
    its items judged more than once (``None`` when a system has none: unknown)."""
    parts = []
    for judgments in (pair.judgments_a, pair.judgments_b):
        own = judgments.take(~pair.same_judgment)
        if own.n_items == 0:
            parts.append(np.zeros(0))
            continue
        sigma2 = annotator_variance(own)
        if not np.isfinite(sigma2):
            return None
        parts.append(sigma2 / own.counts)
    noise = np.zeros(pair.n_shared)
    noise[~pair.same_judgment] = parts[0] + parts[1]
    return float(noise.mean()) if noise.size else None


def p_value(estimate, se, df) -> float:
    """Two-sided p-value of the t statistic ``estimate / se`` with ``df`` degrees of freedom."""
    if not se > 0:
        return 1.0 if estimate == 0 else 0.0
    return float(2.0 * stdtr(df, -abs(estimate) / se))


def paired_difference_ci(pair: PairedSample, estimator: str, *, level: float) -> MeanEstimate:
    """One estimator of :math:`\\mu_B - \\mu_A` with its interval.

    ``estimator`` is ``mean``, ``cv:<metric>`` (a metric of ``pair.metrics``) or ``cv:combined``
    (the registry of :mod:`debias.stats.ratings.estimators`, applied to the differences as the module
    notes say).
    """
    check_level(level)
    if not (describe(estimator).people_only or describe(estimator).control_variate):
        raise ValueError("paired differences take mean, cv:<metric> and cv:combined")
    if pair.n_shared < 3:
        raise ValueError(f"an interval needs at least 3 shared judged items, got {pair.n_shared}")
    family, metric = resolve_estimator(estimator, pair.metrics)
    population = Population(pair.all_b - pair.all_a)
    scores = pair.scores_b - pair.scores_a
    terms = family.terms(pair.differences, scores.T, population, metric)
    result = family.interval(terms, population, noise=difference_noise(pair), level=level)
    if pair.clustered:  # items sharing a document: the cluster-robust interval of the difference
        influence = influence_of(
            pair.differences, terms.values, scores, population.scores, pair.clusters, pair.population_clusters
        )
        result = clustered_interval(float(result.estimate), influence, level=level, n_outputs=pair.n_outputs)
    return result


def paired_difference_estimates(pair: PairedSample, *, level: float) -> list[dict]:
    """Every estimator of the difference on one pair: rows with ``estimator, n_shared, difference,
    ci_low, ci_high, p_value``."""
    rows = []
    for name in estimator_names(pair.metrics):
        result = paired_difference_ci(pair, name, level=level)
        rows.append(
            {
                "estimator": name,
                "n_shared": pair.n_shared,
                "difference": float(result.estimate),
                "ci_low": float(result.ci_low),
                "ci_high": float(result.ci_high),
                "p_value": p_value(float(result.estimate), float(result.se), result.df),
            }
        )
    return rows
