r"""Cluster-robust intervals of a system's mean human score, when items share a document or question.

Every estimator of :mod:`debias.stats.ratings.estimators` is, to first order,

.. math::

    \hat\mu = \frac1n\sum_{i \in J} t_i, \qquad
    t_i = y_i - \beta^\top (g_i - \bar g_N),

a mean over the n judged items J of terms that take off what the metrics g predict
(:math:`\beta = 0` for ``mean``, :math:`\hat\alpha` for ``cv``, :math:`\hat\lambda N/N_u` for
PPI++), with :math:`\bar g_N` the metrics' mean over all N outputs. The estimate moves with each
judged item's term and, through :math:`\bar g_N`, with every output's metrics: the influence of
judged item i is :math:`(t_i - \bar t)/n` and that of output o (judged or not)
:math:`\beta^\top(g_o - \bar g_N)/N`. :math:`\beta` is read off the terms themselves, by least
squares of :math:`y_i - t_i` on :math:`g_i - \bar g_N` (exact for ``cv`` and PPI++, the average
cross-fitted coefficient for ``cv:combined``). Summing the influences within each cluster gives
the cluster-robust variance (:mod:`debias.stats.common.clusters`), and the interval is
:math:`\hat\mu \pm t_{G-1}\,\widehat{\operatorname{se}}` with G the clusters holding judged items.

The target is the system's mean over the population the documents (questions) come from, so there
is no finite-population correction: with every output judged the interval still says how far
another draw of documents could move the mean. Annotator noise is inside the terms and needs no
separate part.
"""

from __future__ import annotations

import numpy as np
from scipy.special import stdtrit

from debias.data import EvalSample
from debias.stats.common.clusters import cluster_codes, cluster_robust_covariance, cluster_sums, design_effect
from debias.stats.common.intervals import MeanEstimate

__all__ = ["ClusterInfluence", "cluster_influence", "clustered_covariance", "clustered_interval", "influence_of"]


class ClusterInfluence:
    """One system's influence values on its estimate: ``judged`` (n,) on the judged items and
    ``outputs`` (N,) on every output, with the items' and outputs' cluster labels."""

    def __init__(self, judged, outputs, judged_clusters, output_clusters):
        self.judged = np.asarray(judged, dtype=float)
        self.outputs = np.asarray(outputs, dtype=float)
        self.judged_clusters = np.asarray(judged_clusters, dtype=str)
        self.output_clusters = np.asarray(output_clusters, dtype=str)

    @property
    def independent_variance(self) -> float:
        """The variance the same influences give as if every item and output were its own
        cluster: the denominator of the design effect."""
        return float(self.judged @ self.judged + self.outputs @ self.outputs)


def cluster_influence(sample: EvalSample, terms) -> ClusterInfluence:
    """The influence values of an estimate of ``sample`` whose judged items' ``terms`` (n,) have
    the estimate as their mean, up to a constant (module notes)."""
    if sample.clusters is None:
        raise ValueError("the sample has no clusters")
    return influence_of(
        sample.judgments.item_means, terms, sample.scores, sample.population, sample.clusters,
        sample.population_clusters,
    )  # fmt: skip


def influence_of(values, terms, scores, population, clusters, population_clusters) -> ClusterInfluence:
    """:func:`cluster_influence` from arrays: the judged items' ``values`` (n,) (their mean
    judgments, or two systems' differences), their ``terms`` (n,), metric ``scores`` (n, M),
    every output's metrics ``population`` (N, M) and the clusters of both."""
    terms = np.asarray(terms, dtype=float)
    scores, population = np.asarray(scores, dtype=float), np.asarray(population, dtype=float)
    n, n_outputs = terms.size, population.shape[0]
    judged = (terms - terms.mean()) / n
    outputs = np.zeros(n_outputs)
    if scores.shape[1]:  # the metrics' mean over every output moves the estimate
        centre = population.mean(axis=0)
        predicted = np.asarray(values, dtype=float) - terms  # beta' (g_i - mean g), up to rounding
        beta = np.linalg.lstsq(scores - centre, predicted, rcond=None)[0]
        outputs = (population - centre) @ beta / n_outputs
    if population_clusters is None:
        population_clusters, outputs = np.array([], dtype=str), np.zeros(0)
    return ClusterInfluence(judged, outputs, clusters, population_clusters)


def _totals(influences, labels_judged, labels_outputs) -> tuple[np.ndarray, int, list]:
    """Per cluster and system (G, S), the sums of the systems' influence values in one code space."""
    codes, n_clusters = cluster_codes(*labels_judged, *labels_outputs)
    s = len(influences)
    totals = np.zeros((n_clusters, s))
    for k, influence in enumerate(influences):
        judged_codes, output_codes = codes[k], codes[s + k]
        values = np.zeros((judged_codes.size + output_codes.size, s))
        values[: judged_codes.size, k] = influence.judged
        values[judged_codes.size :, k] = influence.outputs
        totals += cluster_sums(values, np.concatenate([judged_codes, output_codes]), n_clusters)
    return totals, n_clusters, codes[:s]


def clustered_covariance(influences) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""The joint cluster-robust covariance (S, S) of S systems' estimates from their
    :class:`ClusterInfluence`, the clusters holding each system's judged items (S,) and each
    estimate's design effect (S,). The small-sample factor is each system's own,
    :math:`\sqrt{f_s f_t}` with :math:`f_s = G_s/(G_s - 1)` and :math:`G_s` the clusters holding
    its judged items (those its t interval counts: the unjudged outputs' clusters, many more,
    would make the factor 1 while the information about people comes from the judged ones), so
    that the diagonal is each estimate's own clustered variance."""
    totals, n_clusters, judged_codes = _totals(
        influences, [x.judged_clusters for x in influences], [x.output_clusters for x in influences]
    )
    clusters = np.array([np.unique(c).size for c in judged_codes], dtype=np.int64)  # G_s, as the t's
    covariance = cluster_robust_covariance(totals, clusters)
    independent = np.array([x.independent_variance for x in influences])
    return covariance, clusters, design_effect(np.diag(covariance), independent)


def clustered_interval(estimate: float, influence: ClusterInfluence, *, level: float, n_outputs: int) -> MeanEstimate:
    """The cluster-robust interval of one estimate (module notes): ``estimate`` plus or minus
    :math:`t_{G-1}` standard errors, G the clusters holding judged items."""
    covariance, clusters, _ = clustered_covariance([influence])
    se = float(np.sqrt(max(covariance[0, 0], 0.0)))
    df = float(max(clusters[0] - 1, 0))
    half = stdtrit(df, 0.5 + level / 2.0) * se if df > 0 else np.nan  # one cluster: no interval
    return MeanEstimate(estimate, estimate - half, estimate + half, level, se, df, influence.judged.size, n_outputs)
