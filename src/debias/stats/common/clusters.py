r"""Cluster-robust covariances: judgments that share a question are not independent.

Most evaluations reuse a fixed set of questions: every pair of systems answers the same prompts,
a document carries several items, a conversation several turns. Judgments that share a question
(a *cluster*) share its difficulty, so treating them as independent understates the variance.
Every estimator here is, to first order, a sum of per-judgment *influence* values
:math:`\psi_i \in \mathbb R^S` (the judgment's contribution to the S systems' estimates:
an M-estimator's :math:`\hat H^{-1}g_i/n`, a mean's :math:`(y_i - \bar y)/n`). With G clusters
:math:`c = 1, \dots, G` and :math:`U_c = \sum_{i \in c}\psi_i`, the cluster-robust covariance is

.. math::

    \hat\Sigma_{\text{CR}} = \frac{G}{G - 1}\sum_{c=1}^{G} U_c U_c^\top,

the sandwich with the scores summed within each cluster (Liang and Zeger 1986), with the
small-sample factor :math:`G/(G-1)` (CR1), each estimate's own: :math:`G_s/(G_s - 1)` with
:math:`G_s` the clusters behind system s's estimate (those holding its human battles or judged
items). Intervals then use Student's t with :math:`G_s - 1` degrees of freedom (Cameron and
2015, section VI: CR1 with :math:`t_{G-1}` critical values). With one judgment per cluster this
is the independent-judgment sandwich up to the factor :math:`G/(G-1)`; the estimators keep their
own independent-judgment formulas then, so that data without shared questions give the numbers
they gave before.

What clustering cost is the **design effect**: each estimate's clustered variance over the
variance the same influence values give as if every judgment were its own cluster,
:math:`\sum_c (\sum_{i\in c}\psi_{is})^2 / \sum_i \psi_{is}^2` (1: nothing; 1 + (m - 1)ICC for
clusters of m judgments with intra-cluster correlation ICC, Kish 1965). Fewer than
:data:`FEW_CLUSTERS` clusters behind an estimate earn a note: the t correction is then the
only protection, and it is approximate.

The target of a clustered interval is the population the questions were drawn from (new
questions would give another sample), not the finite set of outputs at hand: there is no
finite-population correction.

References
----------
K.-Y. Liang and S. L. Zeger. Longitudinal data analysis using generalized linear models.
*Biometrika* 73(1):13-22, 1986.

A. C. Cameron and D. L. Miller. A practitioner's guide to cluster-robust inference. *Journal of
Human Resources* 50(2):317-372, 2015.

L. Kish. *Survey Sampling*. Wiley, 1965.

E. Miller. Adding error bars to evals: A statistical approach to language model evaluations.
arXiv:2411.00640, 2024.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix

__all__ = [
    "FEW_CLUSTERS",
    "cluster_codes",
    "cluster_df",
    "cluster_robust_covariance",
    "cluster_sums",
    "design_effect",
    "few_clusters",
]

#: An estimate resting on fewer clusters than this carries a note (:func:`few_clusters`).
FEW_CLUSTERS = 20


def cluster_codes(*labels) -> tuple[list[np.ndarray], int]:
    """The clusters named by one or more label arrays as numbers 0, 1, ... in one code space
    (order of first appearance across the arrays); returns ``(codes per array, G)``."""
    arrays = [np.asarray(x, dtype=str).reshape(-1) for x in labels]
    sizes = [a.size for a in arrays]
    joined = np.concatenate(arrays) if arrays else np.zeros(0, dtype=str)
    if joined.size == 0:
        return [np.zeros(0, dtype=np.int64) for _ in arrays], 0
    _, first, inverse = np.unique(joined, return_index=True, return_inverse=True)
    order = np.empty(first.size, dtype=np.int64)
    order[np.argsort(first, kind="stable")] = np.arange(first.size)
    codes = order[inverse.reshape(-1)]
    return list(np.split(codes, np.cumsum(sizes)[:-1])), int(first.size)


def cluster_sums(values, codes, n_clusters: int) -> np.ndarray:
    """Per cluster, the sum of per-judgment ``values`` (..., n, S) over its judgments; ``codes``
    (n,) number the clusters 0..G-1. Returns (..., G, S)."""
    values = np.asarray(values, dtype=float)
    codes = np.asarray(codes, dtype=np.int64).reshape(-1)
    n = codes.size
    if values.shape[-2] != n:
        raise ValueError(f"{values.shape[-2]} values for {n} cluster codes")
    membership = csr_matrix((np.ones(n), (codes, np.arange(n))), shape=(n_clusters, n))
    lead, width = values.shape[:-2], values.shape[-1]
    flat = np.moveaxis(values.reshape(-1, n, width), 1, 0).reshape(n, -1)  # (n, rows * S)
    summed = np.asarray(membership @ flat).reshape(n_clusters, -1, width)
    return np.moveaxis(summed, 0, 1).reshape(*lead, n_clusters, width)


def cluster_robust_covariance(totals, n_clusters=None) -> np.ndarray:
    r""":math:`\frac{G}{G-1}\sum_c U_c U_c^\top` from the cluster totals ``totals`` (..., G, S)
    (module notes). ``n_clusters`` is G (default: the length of the cluster axis), or per system
    (..., S) the clusters behind each estimate, :math:`G_s`, the clusters its t interval counts:
    entry (s, t) then takes :math:`\sqrt{f_s f_t}` with :math:`f_s = G_s/(G_s - 1)`, so that
    each variance has its own estimate's factor. A factor is 0 for fewer than 2 clusters."""
    totals = np.asarray(totals, dtype=float)
    g = np.asarray(totals.shape[-2] if n_clusters is None else n_clusters, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.where(g >= 2, g / (g - 1.0), 0.0)
    outer = np.einsum("...cs,...ct->...st", totals, totals)
    if factor.ndim == 0:
        return float(factor) * outer
    root = np.sqrt(factor)
    return outer * root[..., :, None] * root[..., None, :]


def cluster_df(present) -> np.ndarray:
    """Per system, :math:`G_s - 1`: ``present`` (..., G, S) says which clusters hold judgments
    behind each system's estimate (0 where there are none)."""
    count = np.sum(np.asarray(present, dtype=bool), axis=-2)
    return np.maximum(count - 1.0, 0.0)


def design_effect(clustered_variance, independent_variance) -> np.ndarray:
    """Each estimate's clustered over its independent-judgment variance: 1 where both are 0
    (every judgment the same: the clusters cost nothing), NaN where only the latter is 0 or
    either is NaN."""
    clustered = np.asarray(clustered_variance, dtype=float)
    independent = np.asarray(independent_variance, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(independent > 0, clustered / independent, np.nan)
    return np.where((independent == 0) & (clustered == 0), 1.0, ratio)


def few_clusters(n: float) -> str:
    """The note of an estimate resting on ``n`` (fewer than :data:`FEW_CLUSTERS`) clusters."""
    if not 0 < n < FEW_CLUSTERS:
        return ""
    return f"{int(n)} clusters (fewer than {FEW_CLUSTERS}): its clustered interval is approximate"
