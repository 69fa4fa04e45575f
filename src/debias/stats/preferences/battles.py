r"""Battles, coded for the estimators: verdicts as per-battle sources, battles grouped, per-system sums.

A :class:`~debias.data.JudgedPairs` holds battles (system A against system B on one item) with
human verdicts on some and the verdicts of LLM judges. Every per-battle quantity the estimators
of :mod:`debias.stats.preferences.win_rate` and :mod:`debias.stats.preferences.bradley_terry` need is an *affine form*
``(alpha, beta)`` in a few per-battle *sources* (a verdict, or the shares of A's and B's wins)
whose coefficients are the same for every battle of a group: battles with the same (A, B) and
the same labelled flag. So the battles are summed once per group (counts, sums of the sources
and of their products, :class:`Groups`) and every estimator works on the groups, however many
battles there are. A battle written B-then-A is counted written A-then-B (its sources mapped by
:func:`reversal`), so that there are at most twice as many groups as unordered pairs of systems.

:class:`Battles` is a JudgedPairs checked once (:func:`check_pairs`) with its groupings built
on first use and kept on the object, so that every estimator of one analysis groups the
battles once. This module also holds the scatter sums per system (:func:`per_system`,
:func:`pair_matrix`), the human and judge counts, the resolution of a preference estimator's
name into its description and the judges it uses (:func:`resolve`: the estimators branch on the
description of :mod:`debias.stats.common.vocabulary`, never on a spelling), and the assembly of a
result (:func:`joint_estimate`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

import numpy as np

from debias.data import JudgedPairs
from debias.stats.common.clusters import cluster_df, design_effect, few_clusters
from debias.stats.common.intervals import normal_interval, small_sample_scale
from debias.stats.common.joint import JointEstimate, is_sparse, nearest_covariance, variances
from debias.stats.common.vocabulary import EstimatorInfo, UnknownEstimator, check_ties, describe, estimator_name

__all__ = [
    "ALL_TIES",
    "JUDGE_ALL_TIES",
    "FEW_BATTLES",
    "FEW_CLUSTERED",
    "FEW_HUMAN",
    "NO_HUMAN",
    "NO_JUDGE",
    "ZERO_VARIANCE",
    "Battles",
    "ClusterSummary",
    "Clustered",
    "Groups",
    "battle_cells",
    "check_pairs",
    "cluster_totals",
    "covered",
    "credit_forms",
    "decisive_counts",
    "few_battles",
    "filled",
    "group_battles",
    "group_cross",
    "group_total",
    "human_counts",
    "joint_estimate",
    "judge_counts",
    "labelled_groups",
    "pair_matrix",
    "per_system",
    "plus",
    "pool_design",
    "preference_estimator_names",
    "resolve",
    "reversal",
    "scaled",
    "source_columns",
    "studentised_clusters",
    "system_estimate",
]

NO_HUMAN = "no human verdict in its battles: no unbiased estimate"
FEW_HUMAN = "one human battle: no interval"
FEW_CLUSTERED = "its human battles all share one cluster: no interval"
NO_JUDGE = "the judge answered none of its battles"
ALL_TIES = "every human verdict in its battles is a tie: nothing to estimate without ties"
JUDGE_ALL_TIES = "every verdict of the judge in its battles is a tie: nothing to estimate without ties"
ZERO_VARIANCE = "no variation in the verdicts behind it (every one the same): no interval"
#: An interval resting on fewer battles than this carries a note (:func:`few_battles`).
FEW_BATTLES = 10
#: Up to this many judges, the counts of who answered come from one pass over the battles
#: (:attr:`Battles.human_counts`, :meth:`Battles.judge_counts`).
COUNTED_JUDGES = 10
#: A source column that is 0 on all but this share of the battles is summed over the others only.
SPARSE_SOURCE = 0.25
#: A standard error at most this (times the estimate's size, at least 1) is 0 up to rounding.
ROUNDING = 1e-9


def few_battles(n: float, what: str = "human battles") -> str:
    """The note of an interval resting on ``n`` (fewer than :data:`FEW_BATTLES`) battles."""
    count = int(n) if float(n).is_integer() else round(float(n), 1)
    return f"{count} {what} (fewer than {FEW_BATTLES}): its interval rests on few battles"


def check_pairs(pairs: JudgedPairs, ties: str = "half") -> None:
    """Refuse anything but a :class:`~debias.data.JudgedPairs` with battles, a tie rule not in
    :data:`~debias.stats.common.vocabulary.TIES`, and a judge's probabilities with ties left out."""
    if not isinstance(pairs, JudgedPairs):
        raise TypeError(f"pairs must be a JudgedPairs, got {type(pairs).__name__}")
    check_ties(ties, models=True)
    if pairs.n_battles == 0:
        raise ValueError("no battles")
    if ties == "davidson" and pairs.continuous_judges:
        raise ValueError(
            f"judge {pairs.continuous_judges[0]!r} gives probabilities that A is better, not verdicts: Davidson's"
            " tie model needs each verdict's tie; use ties='half', or map the judge's answers to a/b/tie"
        )
    if ties == "drop" and pairs.continuous_judges:
        raise ValueError(
            f"judge {pairs.continuous_judges[0]!r} gives probabilities that A is better, not verdicts: with ties left"
            " out (ties='drop') a probability cannot be split into a win, a loss and a tie; use ties='half' (a tie"
            " is half a win), or map the judge's answers to a/b/tie"
        )


# Estimator names ----------------------------------------------------------------------------------


def preference_estimator_names(judges: Sequence[str]) -> list[str]:
    """``human``, then ``judge:<j>`` and ``ppi++:<j>`` per judge, then ``ppi++:combined`` (two or
    more judges)."""
    names = [estimator_name("human")]
    for judge in judges:
        names += [estimator_name("judge", judge), estimator_name("ppi++", judge)]
    if len(judges) >= 2:
        names.append(estimator_name("ppi++"))
    return names


def resolve(estimator: str, judges: Sequence[str]) -> tuple[EstimatorInfo, list[int]]:
    """``(info, judge columns)`` of a preference estimator's name: its description
    (:func:`debias.stats.common.vocabulary.describe`: ``people_only``, ``proxy_only``, ...) and the
    columns of the judges it uses (none for people alone, every judge for ``combined``); a
    ``ValueError`` for a name that is no preference estimator or names a judge not in ``judges``."""
    judges = list(judges)
    try:
        info = describe(estimator)
    except UnknownEstimator:
        info = None
    if info is not None and "preferences" in info.family.shapes:
        if info.people_only:
            return info, []
        if info.combined:
            if len(judges) < 2:
                raise ValueError(f"{estimator} needs at least two judges, got {len(judges)}")
            return info, list(range(len(judges)))
        if info.proxy in judges:
            return info, [judges.index(info.proxy)]
    raise ValueError(f"unknown estimator {estimator!r}; available: {preference_estimator_names(judges)}")


# Verdict coding -----------------------------------------------------------------------------------


def source_columns(verdicts, ties: str) -> np.ndarray:
    """A provider's source columns from its per-battle verdicts (NaN kept): the score of A with
    ties as half a win, else the shares of verdicts for A and for B."""
    if ties == "half":
        return verdicts[:, None]
    return np.column_stack([(verdicts == 1.0).astype(float), (verdicts == 0.0).astype(float)])


def credit_forms(offset: int, n_sources: int, ties: str):
    """``(w_A, w_B, d)``, A's and B's win credit and the battle's weight, as affine forms
    ``(alpha, beta)`` in the sources, for the provider whose columns start at ``offset``."""
    unit = np.eye(n_sources)
    if ties == "half":
        score = unit[offset]
        return (0.0, score), (1.0, -score), (1.0, np.zeros(n_sources))
    share_a, share_b = unit[offset], unit[offset + 1]
    return (0.0, share_a), (0.0, share_b), (0.0, share_a + share_b)


def filled(columns, answered, ties: str):
    """Source columns with each column's mean over the answered battles where the judge gave no
    verdict (its prediction when it abstains); a judge that never answered predicts a tie (ties
    half a win) or nothing (ties left out), the same for every battle."""
    columns = np.array(columns, dtype=float)
    for k in range(columns.shape[1]):
        fill = float(columns[answered, k].mean()) if answered.any() else (0.5 if ties == "half" else 0.0)
        columns[~answered, k] = fill
    return columns


class Groups(NamedTuple):
    """Battles summed per group (A, B, labelled flag, and cluster when the battles are
    clustered): groups run along the axis G, every leading axis of ``count``, ``sums`` and
    ``products`` is a separate labelling.

    With ``weight`` (G,) every battle of a group counts ``weight`` times in the estimating
    equations (:func:`pool_design`): ``count`` and ``sums`` are then the weighted sums and
    ``products`` carries the weight squared, so that :func:`group_total` is a weighted sum and
    :func:`group_cross` the sum of the products of weighted forms (what a variance needs)."""

    a: np.ndarray  # (G,)
    b: np.ndarray  # (G,)
    labelled: np.ndarray  # (G,) 0 or 1
    count: np.ndarray  # (..., G)
    sums: np.ndarray  # (..., G, K)
    products: np.ndarray  # (..., G, K, K)
    n_systems: int
    cluster: np.ndarray | None = None  # (G,) each group's cluster, when the battles are clustered
    weight: np.ndarray | None = None  # (G,) each group's battles' weight (pool_design), else 1

    def select(self, keep, renumber, n_systems):
        """The groups in ``keep`` with their systems renumbered."""
        return Groups(
            renumber[self.a[keep]],
            renumber[self.b[keep]],
            self.labelled[keep],
            self.count[..., keep],
            self.sums[..., keep, :],
            self.products[..., keep, :, :],
            n_systems,
            None if self.cluster is None else self.cluster[keep],
            None if self.weight is None else self.weight[keep],
        )


def reversal(n_providers: int, ties: str):
    """``(offset, matrix)``: the affine map ``s -> offset + matrix s`` of a battle's sources
    (``n_providers`` providers' columns, :func:`source_columns`) when the battle is written the
    other way round: a score ``v`` becomes ``1 - v``, the shares for A and for B swap."""
    if ties == "half":
        return np.ones(n_providers), -np.eye(n_providers)
    swap = np.array([[0.0, 1.0], [1.0, 0.0]])
    return np.zeros(2 * n_providers), np.kron(np.eye(n_providers), swap)


def battle_cells(a, b, n_systems: int) -> tuple[np.ndarray, np.ndarray]:
    """``(cells, cell)``: the ordered pairs of systems that have battles (``A * S + B``,
    ascending), and each battle's index among them."""
    cells, cell = np.unique(np.asarray(a, dtype=np.int64) * n_systems + b, return_inverse=True)
    return cells, cell.reshape(-1)


def group_battles(a, b, n_systems: int, labelled, sources, reverse=None, cells=None, clusters=None) -> Groups:
    """Sum the battles' sources (B, K) and their products per group; ``labelled`` is (..., B).

    With ``reverse`` (:func:`reversal`), the sources of a battle written the other way round,
    every battle counts as written with the lower-numbered system as A: one group per unordered
    pair (and labelled flag) instead of two. The groups of B-then-A battles are summed as they
    are written and mapped once: a form's sum over a group does not depend on how its battles
    are written, up to rounding. ``cells`` is :func:`battle_cells` of the battles, if known.
    With ``clusters`` (each battle's cluster number, :attr:`debias.data.JudgedPairs.cluster_codes`)
    the groups are also split by cluster (:attr:`Groups.cluster`), for the cluster-robust
    covariances (:func:`cluster_totals`).
    """
    labelled = np.asarray(labelled, dtype=bool)
    sources = np.asarray(sources, dtype=float)
    cells, cell = battle_cells(a, b, n_systems) if cells is None else cells
    unit_cluster = None
    if clusters is not None:  # a group per (ordered pair, cluster, labelled flag)
        clusters = np.asarray(clusters, dtype=np.int64)
        n_clusters = int(clusters.max()) + 1 if clusters.size else 1
        units, cell = np.unique(cell * n_clusters + clusters, return_inverse=True)
        cell = cell.reshape(-1)
        cells, unit_cluster = cells[units // n_clusters], units % n_clusters
    n_groups = 2 * cells.size
    lead = labelled.shape[:-1]
    rows = int(np.prod(lead)) if lead else 1
    group = cell * 2 + labelled.reshape(rows, -1)
    if rows > 1:
        group += (np.arange(rows) * n_groups)[:, None]
    group = group.ravel()
    size = rows * n_groups
    n_sources = sources.shape[1]
    # each source column once, NaN as 0, with the battles where it is not 0 when they are few (a
    # human column is 0 on every battle without a human verdict): a sum over them is the same sum
    columns, support = [], []
    for k in range(n_sources):
        column = np.array(sources[:, k])
        column[np.isnan(column)] = 0.0
        sparse = rows == 1 and np.count_nonzero(column) < SPARSE_SOURCE * column.size
        columns.append(column)
        support.append(np.flatnonzero(column) if sparse else None)

    def summed(values, where=None):
        """Per group, the sum of a per-battle quantity: ``values`` (B,), or its values on the
        battles ``where`` only."""
        if where is not None:
            return np.bincount(group[where], values, size)
        if rows > 1:
            values = np.broadcast_to(values, (rows, values.size)).ravel()
        return np.bincount(group, values, size)

    def at(k, where):
        return columns[k] if where is None else columns[k][where]

    count = np.bincount(group, minlength=size).astype(float)
    sums = np.zeros((size, n_sources))
    products = np.zeros((size, n_sources, n_sources))
    for k in range(n_sources):
        sums[:, k] = summed(at(k, support[k]), support[k])
        for m in range(k, n_sources):
            known = [where for where in (support[k], support[m]) if where is not None]
            where = min(known, key=len) if known else None
            products[:, k, m] = products[:, m, k] = summed(at(k, where) * at(m, where), where)
    shape = (*lead, n_groups)
    count = count.reshape(shape)
    sums, products = sums.reshape(*shape, n_sources), products.reshape(*shape, n_sources, n_sources)
    first, second = cells // n_systems, cells % n_systems
    if reverse is not None and np.any(first > second):
        return _lower_first(first, second, n_systems, count, sums, products, reverse, unit_cluster)
    cluster = None if unit_cluster is None else np.repeat(unit_cluster, 2)
    return Groups(
        np.repeat(first, 2),
        np.repeat(second, 2),
        np.tile([0.0, 1.0], cells.size),
        count,
        sums,
        products,
        n_systems,
        cluster,
    )


def _lower_first(first, second, n_systems: int, count, sums, products, reverse, cluster=None) -> Groups:
    """Groups of ordered cells (``first`` against ``second``, two groups a cell; ``cluster``, each
    cell's cluster when the groups are split by cluster) merged into groups of unordered pairs,
    the B-then-A cells' sums mapped by ``reverse`` (:func:`group_battles`)."""
    offset, matrix = reverse
    low, high = np.minimum(first, second), np.maximum(first, second)
    key = low * n_systems + high
    n_clusters = 1
    if cluster is not None:
        n_clusters = int(cluster.max()) + 1 if cluster.size else 1
        key = key * n_clusters + cluster
    units, pair = np.unique(key, return_inverse=True)
    pair = pair.reshape(-1)
    pairs = units // n_clusters
    flipped = first > second
    at = (2 * pair[:, None] + np.arange(2)).ravel()  # each cell's two groups, in the pairs' groups
    mine = np.repeat(~flipped, 2)
    lead = count.shape[:-1]
    merged_count = np.zeros((*lead, 2 * pairs.size))
    merged_sums = np.zeros((*lead, 2 * pairs.size, sums.shape[-1]))
    merged_products = np.zeros((*lead, 2 * pairs.size, *products.shape[-2:]))
    merged_count[..., at[mine]] = count[..., mine]
    merged_sums[..., at[mine], :] = sums[..., mine, :]
    merged_products[..., at[mine], :, :] = products[..., mine, :, :]
    # the other way round: s' = c + T s, so sum s' = n c + T sum s and
    # sum s' s'^T = n c c^T + c (T sum s)^T + (T sum s) c^T + T (sum s s^T) T^T
    other = ~mine
    n = count[..., other]
    total = sums[..., other, :] @ matrix.T
    outer = n[..., None, None] * np.outer(offset, offset) + offset[:, None] * total[..., None, :]
    outer = outer + total[..., :, None] * offset
    merged_count[..., at[other]] += n
    merged_sums[..., at[other], :] += n[..., None] * offset + total
    merged_products[..., at[other], :, :] += outer + matrix @ products[..., other, :, :] @ matrix.T
    return Groups(
        np.repeat(pairs // n_systems, 2),
        np.repeat(pairs % n_systems, 2),
        np.tile([0.0, 1.0], pairs.size),
        merged_count,
        merged_sums,
        merged_products,
        n_systems,
        None if cluster is None else np.repeat(units % n_clusters, 2),
    )


def covered(groups: Groups) -> np.ndarray:
    """Per group (..., G), 1 where its pair of systems (either order) has a labelled battle in
    the same labelling, else 0: the strata of the pool that the human sample covers. PPI++ is
    unbiased when the labelled battles are a random sample of all; a pair present in the pool
    and absent from the labelled battles says they are not, so its pool battles are left out."""
    low, high = np.minimum(groups.a, groups.b), np.maximum(groups.a, groups.b)
    _, pair = np.unique(low * groups.n_systems + high, return_inverse=True)
    pair = pair.reshape(-1)
    n_pairs = int(pair.max()) + 1 if pair.size else 0
    count = np.asarray(groups.count, dtype=float)
    rows = int(np.prod(count.shape[:-1])) if count.ndim > 1 else 1
    # the labelled battles per pair and labelling: one scatter sum (counts are whole numbers)
    index = ((np.arange(rows) * n_pairs)[:, None] + pair).ravel()
    labelled = np.bincount(index, (count * groups.labelled).reshape(rows, -1).ravel(), rows * n_pairs)
    return (labelled.reshape(rows, n_pairs)[:, pair] > 0).astype(float).reshape(count.shape)


def group_total(groups: Groups, form):
    """Per group, the sum over its battles of an affine form ``(alpha, beta)``."""
    alpha, beta = form
    return groups.count * alpha + np.einsum("...k,...k->...", groups.sums, beta)


def group_cross(groups: Groups, f, h):
    """Per group, the sum over its battles of the product of two affine forms (each battle's
    forms times its weight, with :attr:`Groups.weight`)."""
    (af, bf), (ah, bh) = f, h
    quadratic = np.einsum("...k,...k->...", bf, np.einsum("...kl,...l->...k", groups.products, bh))
    linear = af * np.einsum("...k,...k->...", groups.sums, bh) + ah * np.einsum("...k,...k->...", groups.sums, bf)
    constant = groups.count * af * ah + linear  # count and sums carry the weight once
    return (constant if groups.weight is None else groups.weight * constant) + quadratic


def pool_design(groups: Groups) -> Groups:
    r"""The groups with every labelled battle weighted back to the pool's design.

    Battles chosen for people by looking at earlier verdicts (:mod:`debias.stats.preferences.allocation`)
    are a uniform draw *within* each pair of systems but not across pairs: a system whose
    questions are settled meets only the systems still open. A win rate (a mean over a system's
    battles) or a Bradley-Terry fit (whose target, where the model does not hold exactly,
    depends on which pairs meet) would then estimate something else at every look. Weighting
    each labelled battle of the pair :math:`p` by

    .. math::

        \omega_p = rac{N_p / n_p}{N / n},

    :math:`N_p` the pair's battles in the table (with a human verdict or not), :math:`n_p`
    those with one, :math:`N` and :math:`n` their sums over the pairs with a human verdict,
    makes every estimate the one of the table's own mix of pairs (post-stratification by pair):
    which battles people saw changes only the estimates' precision. The weights average 1 over
    the labelled battles. PPI++'s judge-only side becomes every battle of the table, labelled or
    not, at weight 1 (the table's design; the battles left without a human verdict are, under
    an allocation, another mix). With
    battles drawn uniformly from the table, :math:`\omega_p pprox 1`. A pair without a human
    verdict has no weight to give: it is outside the estimate until its first verdict, as
    without weights. One labelling only (no leading axes)."""
    count = np.asarray(groups.count, dtype=float)
    if count.ndim != 1:
        raise ValueError("pool_design weights one labelling at a time")
    s = groups.n_systems
    low, high = np.minimum(groups.a, groups.b), np.maximum(groups.a, groups.b)
    _, pair = np.unique(low * s + high, return_inverse=True)
    pair = pair.reshape(-1)
    n_pairs = int(pair.max()) + 1 if pair.size else 0
    labelled = groups.labelled > 0
    in_table = np.bincount(pair, count, n_pairs)
    judged = np.bincount(pair, np.where(labelled, count, 0.0), n_pairs)
    covered = judged > 0
    if not covered.any():
        return groups
    scale = judged[covered].sum() / in_table[covered].sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        per_pair = np.where(covered, in_table / judged * scale, 1.0)
    weight = np.where(labelled, per_pair[pair], 1.0)
    # the judge-only side is the table's design: every battle, labelled or not. The groups come
    # in pairs (without, with a human verdict) of one pair of systems and cluster
    unlabelled = np.flatnonzero(~labelled)
    if not (np.array_equal(unlabelled + 1, np.flatnonzero(labelled)) and labelled.size % 2 == 0):
        raise ValueError("pool_design expects the groups of group_battles: two per pair of systems and cluster")
    pool_count, pool_sums, pool_products = count.copy(), np.array(groups.sums), np.array(groups.products)
    pool_count[unlabelled] += count[unlabelled + 1]
    pool_sums[unlabelled] += groups.sums[unlabelled + 1]
    pool_products[unlabelled] += groups.products[unlabelled + 1]
    return groups._replace(
        count=pool_count * weight,
        sums=pool_sums * weight[:, None],
        products=pool_products * (weight**2)[:, None, None],
        weight=weight,
    )


def scaled(form, scale):
    alpha, beta = form
    return alpha * scale, np.asarray(beta) * np.asarray(scale)[..., None]


def plus(f, h):
    return f[0] + h[0], f[1] + h[1]


def labelled_groups(pairs: JudgedPairs, ties: str, labelled, cells=None, clusters=None):
    """The battles grouped by the labelling ``labelled`` ((..., B): every leading axis a separate
    labelling), with the human sources first and every judge's (filled) sources after; the
    provider forms ``(human, [judge, ...])``."""
    human = pairs.human_mean if ties == "half" else None
    if ties == "half":
        columns = [human[:, None]]
    else:
        columns = [np.column_stack([pairs.human_share(1.0), pairs.human_share(0.0)])]
    for j in range(len(pairs.judges)):
        verdicts = pairs.judge_verdicts[:, j]
        columns.append(filled(source_columns(verdicts, ties), ~np.isnan(verdicts), ties))
    sources = np.empty((pairs.n_battles, sum(c.shape[1] for c in columns)), order="F")  # a column at a time
    for k, column in enumerate(c for block in columns for c in block.T):
        sources[:, k] = column
    width = columns[0].shape[1]
    forms = [credit_forms(k * width, sources.shape[1], ties) for k in range(len(columns))]
    reverse = reversal(len(columns), ties)
    groups = group_battles(pairs.system_a, pairs.system_b, pairs.n_systems, labelled, sources, reverse, cells, clusters)
    return groups, forms


def judge_groups(pairs: JudgedPairs, j: int, ties: str, cells=None, clusters=None):
    """The battles grouped by whether judge j answered them, with its sources and forms."""
    verdicts = pairs.judge_verdicts[:, j]
    sources = source_columns(verdicts, ties)
    reverse = reversal(1, ties)
    answered = ~np.isnan(verdicts)
    groups = group_battles(pairs.system_a, pairs.system_b, pairs.n_systems, answered, sources, reverse, cells, clusters)
    return groups, [credit_forms(0, sources.shape[1], ties)]


@dataclass(frozen=True, eq=False)
class Battles:
    """A :class:`~debias.data.JudgedPairs` checked, with its groupings built once.

    Build it with :meth:`of`; the estimand functions take it and ask it for the groups they
    need, which it builds on first use and keeps per ``ties`` (and judge): one analysis groups
    its battles once, whatever the number of estimators. With ``pool_weighted`` the battles
    with a human verdict are weighted back to the table's mix of pairs (:func:`pool_design`):
    what a status uses, whose votes may have been chosen by looking.
    """

    pairs: JudgedPairs
    pool_weighted: bool = False
    _groupings: dict = field(default_factory=dict, init=False, repr=False)

    @classmethod
    def of(cls, pairs: JudgedPairs | Battles, ties: str = "half", *, pool_weighted: bool = False) -> Battles:
        """``pairs`` checked (:func:`check_pairs`); a :class:`Battles` is returned as it is."""
        if isinstance(pairs, Battles):
            check_pairs(pairs.pairs, ties)
            if pairs.pool_weighted != pool_weighted:
                return cls(pairs.pairs, pool_weighted)
            return pairs
        check_pairs(pairs, ties)
        return cls(pairs, pool_weighted)

    def _memo(self, key, build):
        if key not in self._groupings:
            self._groupings[key] = build()
        return self._groupings[key]

    def labelled(self, ties: str):
        """:func:`labelled_groups` of the battles' own labelling (battles with a human verdict)."""

        def build():
            groups, forms = labelled_groups(self.pairs, ties, self.pairs.labelled, self.cells, self.clusters)
            return (pool_design(groups) if self.pool_weighted else groups), forms

        return self._memo(("labelled", ties), build)

    def judged_by(self, j: int, ties: str):
        """:func:`judge_groups` of judge j."""
        return self._memo(("judge", j, ties), lambda: judge_groups(self.pairs, j, ties, self.cells, self.clusters))

    @property
    def clusters(self) -> np.ndarray | None:
        """Each battle's cluster number when some cluster holds two battles or more
        (:attr:`debias.data.JudgedPairs.clustered`), else ``None``: independent battles."""
        return self.pairs.cluster_codes if self.pairs.clustered else None

    @cached_property
    def cells(self) -> tuple[np.ndarray, np.ndarray]:
        """:func:`battle_cells` of the battles, shared by every grouping."""
        return battle_cells(self.pairs.system_a, self.pairs.system_b, self.pairs.n_systems)

    @cached_property
    def _answer_counts(self) -> np.ndarray | None:
        """Per system (S, 2^(J+1)), its battles by who answered them: bit 0 people, bit j + 1
        judge j; one pass over the battles serves every count below (``None`` with more than
        :data:`COUNTED_JUDGES` judges: the counts are then taken battle by battle)."""
        pairs = self.pairs
        n_judges = len(pairs.judges)
        if n_judges > COUNTED_JUDGES:
            return None
        pattern = pairs.labelled.astype(np.int64)
        for j in range(n_judges):
            pattern |= (~np.isnan(pairs.judge_verdicts[:, j])).astype(np.int64) << (j + 1)
        size = 2 ** (n_judges + 1)
        index = np.concatenate([pairs.system_a * size + pattern, pairs.system_b * size + pattern])
        return np.bincount(index, minlength=pairs.n_systems * size).reshape(pairs.n_systems, size)

    @cached_property
    def human_counts(self) -> np.ndarray:
        """Per system, its battles with a human verdict (:func:`human_counts`)."""
        counts = self._answer_counts
        if counts is None:
            return human_counts(self.pairs)
        return counts[:, 1::2].sum(axis=1).astype(np.int64)

    def judge_counts(self, columns) -> tuple[np.ndarray, np.ndarray]:
        """:func:`judge_counts` of the judges ``columns``, from the one pass of :attr:`_answer_counts`."""
        counts = self._answer_counts
        if counts is None:
            return judge_counts(self.pairs, columns)
        mask = sum(1 << (int(j) + 1) for j in np.atleast_1d(np.asarray(columns, dtype=np.int64)))
        answered = (np.arange(counts.shape[1]) & mask) != 0
        n_judge = counts[:, answered].sum(axis=1).astype(np.int64)
        n_missing = counts[:, ~answered].sum(axis=1).astype(np.int64) if mask else np.zeros_like(n_judge)
        return n_judge, n_missing


# Scatter sums -------------------------------------------------------------------------------------


def per_system(qa, qb, a, b, n_systems: int) -> np.ndarray:
    """Per system, the sum of ``qa`` over the battles (or groups) where it is A plus ``qb`` where
    it is B; the last axis is the battles, every leading axis a separate set of sums."""
    qa, qb = np.broadcast_arrays(np.asarray(qa, float), np.asarray(qb, float))
    lead = qa.shape[:-1]
    rows = int(np.prod(lead)) if lead else 1
    offset = (np.arange(rows) * n_systems)[:, None]
    index = np.concatenate([(offset + a).ravel(), (offset + b).ravel()])
    values = np.concatenate([qa.reshape(rows, -1).ravel(), qb.reshape(rows, -1).ravel()])
    return np.bincount(index, values, rows * n_systems).reshape(*lead, n_systems)


class Clustered(NamedTuple):
    """The cluster-robust covariance of an estimator (..., S, S) and which clusters hold human
    battles of each system (..., C, S), when the battles are clustered."""

    covariance: np.ndarray
    present: np.ndarray


class ClusterSummary(NamedTuple):
    """Per system: the clusters behind its estimate and its design effect (clustered over
    independent variance); what a clustered result reports (:func:`joint_estimate`)."""

    n_clusters: np.ndarray
    design_effect: np.ndarray


def studentised_clusters(covariance, independent, clustered: Clustered, level: float):
    r"""A clustered covariance widened for few clusters, and its :class:`ClusterSummary`.

    ``covariance`` is the cluster-robust covariance as the estimand uses it (a win rate's is
    widened at small n, :func:`debias.stats.common.intervals.proportion_covariance`);
    ``independent`` the covariance of independent battles, for the design effect
    (:func:`debias.stats.common.clusters.design_effect`: of the sandwiches, before any
    widening). Each system's standard error is multiplied by
    :math:`t_{G_s - 1,(1+	ext{level})/2}/z_{(1+	ext{level})/2}`, :math:`G_s` the clusters
    holding its human battles (:func:`debias.stats.common.intervals.small_sample_scale`), and
    the covariance with it (:math:`D\hat\Sigma D`, still positive semi-definite); a system in
    one cluster keeps an infinite scale, which :func:`joint_estimate` reports as no interval.
    Returns ``(covariance, scale, summary)``.
    """
    count = np.sum(np.asarray(clustered.present, dtype=bool), axis=-2)
    scale = small_sample_scale(cluster_df(clustered.present), level)
    finite = np.where(np.isfinite(scale), scale, 1.0)
    widened = np.asarray(covariance, dtype=float) * finite[..., :, None] * finite[..., None, :]
    effect = design_effect(np.einsum("...ss->...s", clustered.covariance), np.einsum("...ss->...s", independent))
    return widened, scale, ClusterSummary(count, effect)


def cluster_totals(groups: Groups, total_a, total_b) -> np.ndarray:
    """Per cluster and system (..., C, S): the groups' ``total_a`` (..., G) credited to each
    group's A and ``total_b`` to its B, summed over the groups of each cluster; what the
    cluster-robust covariance is made of (:mod:`debias.stats.common.clusters`)."""
    n_systems = groups.n_systems
    n_clusters = int(groups.cluster.max()) + 1 if groups.cluster.size else 1
    offset = groups.cluster * n_systems
    sums = per_system(total_a, total_b, offset + groups.a, offset + groups.b, n_clusters * n_systems)
    return sums.reshape(*sums.shape[:-1], n_clusters, n_systems)


def pair_matrix(diag_a, diag_b, cross, a, b, n_systems: int, *, sparse: bool = False) -> np.ndarray:
    """The (S, S) matrix :math:`\\sum_i` of a battle's contributions: ``diag_a`` at (A, A),
    ``diag_b`` at (B, B) and ``cross`` at (A, B) and (B, A); leading axes as in :func:`per_system`.
    With ``sparse`` (no leading axes), a SciPy CSR array holding the pairs that met alone."""
    diag_a, diag_b, cross = np.broadcast_arrays(*(np.asarray(q, float) for q in (diag_a, diag_b, cross)))
    if sparse:
        from scipy.sparse import csr_array

        rows, columns = np.concatenate([a, b, a, b]), np.concatenate([a, b, b, a])
        values = np.concatenate([diag_a, diag_b, cross, cross])
        return csr_array((values, (rows, columns)), shape=(n_systems, n_systems))
    lead = diag_a.shape[:-1]
    rows = int(np.prod(lead)) if lead else 1
    size = n_systems * n_systems
    offset = (np.arange(rows) * size)[:, None]
    off = np.bincount((offset + a * n_systems + b).ravel(), cross.reshape(rows, -1).ravel(), rows * size).reshape(
        rows, n_systems, n_systems
    )
    diagonal = per_system(diag_a.reshape(rows, -1), diag_b.reshape(rows, -1), a, b, n_systems)
    matrix = off + np.swapaxes(off, 1, 2)  # nothing on the diagonal: a system never meets itself
    index = np.arange(n_systems)
    matrix[:, index, index] = diagonal
    return matrix.reshape(*lead, n_systems, n_systems)


# Counts ------------------------------------------------------------------------------------------


def judge_counts(pairs: JudgedPairs, columns):
    """Per system: battles with a verdict of any of the judges ``columns``, and battles with a
    verdict of none of them (both 0 without judges), so that both count battles."""
    a, b, n_systems = pairs.system_a, pairs.system_b, pairs.n_systems
    answered = ~np.isnan(pairs.judge_verdicts[:, columns])
    any_answer = answered.any(axis=1).astype(float)
    unanswered = (1.0 - any_answer) if len(columns) else np.zeros_like(any_answer)
    return (
        per_system(any_answer, any_answer, a, b, n_systems).astype(np.int64),
        per_system(unanswered, unanswered, a, b, n_systems).astype(np.int64),
    )


def decisive_counts(pairs: JudgedPairs) -> np.ndarray:
    """Per system, its battles with a human verdict that is not a tie (at least one rater's):
    what a win rate with ties left out rests on."""
    decisive = (pairs.labelled & (np.nan_to_num(pairs.human_share(0.5), nan=1.0) < 1.0)).astype(float)
    return per_system(decisive, decisive, pairs.system_a, pairs.system_b, pairs.n_systems).astype(np.int64)


def human_counts(pairs: JudgedPairs):
    """Per system, its battles with a human verdict."""
    labelled = pairs.labelled.astype(float)
    return per_system(labelled, labelled, pairs.system_a, pairs.system_b, pairs.n_systems).astype(np.int64)


# Results -----------------------------------------------------------------------------------------


def system_estimate(
    estimand: str,
    estimator: str,
    battles: Battles,
    info: EstimatorInfo,
    columns,
    theta,
    covariance,
    level: float,
    notes,
    weights,
    *,
    n_human=None,
    few: bool = True,
    remarks=None,
    bounds=None,
    clusters: ClusterSummary | None = None,
) -> JointEstimate:
    """:func:`joint_estimate` of a per-system fit by one estimator (``info``, ``columns`` as
    :func:`resolve` gives them) on ``battles``, with the counts behind each system: its human
    battles (or ``n_human``), and the battles the judges ``columns`` answered and left without a
    verdict. With ``few``, an interval resting on few battles (the judge's answered ones for a
    judge alone, else the human ones) has the remark :func:`few_battles`, before the other
    ``remarks`` (per system)."""
    n_human = battles.human_counts if n_human is None else n_human
    n_judge, n_missing = battles.judge_counts(columns)
    if few:
        count, what = (n_judge, "battles the judge answered") if info.proxy_only else (n_human, "human battles")
        own = [few_battles(c, what) if 0 < c < FEW_BATTLES else "" for c in count]
        remarks = own if remarks is None else ["; ".join(x for x in (o, r) if x) for o, r in zip(own, remarks)]
    return joint_estimate(
        estimand,
        estimator,
        battles.pairs,
        theta,
        covariance,
        level,
        notes,
        weights,
        (n_human, n_judge, n_missing),
        remarks=remarks,
        bounds=bounds,
        clusters=clusters,
    )


def _blanked(covariance, live):
    """A sparse covariance (:func:`joint_estimate`) with the ``live`` systems' part made positive
    semi-definite and NaN on the other systems' diagonal and on the entries stored in their rows
    and columns (the pairs that met)."""
    from scipy.sparse import coo_array, csr_array

    entries = coo_array(covariance)
    entries.sum_duplicates()
    both = live[entries.row] & live[entries.col]
    index = np.flatnonzero(live)
    position = np.full(live.size, -1, dtype=np.int64)
    position[index] = np.arange(index.size)
    inner = csr_array(
        (entries.data[both], (position[entries.row[both]], position[entries.col[both]])), shape=(index.size,) * 2
    )
    near = coo_array(nearest_covariance(inner))
    dead = np.flatnonzero(~live)
    blank = ~both
    rows = np.concatenate([index[near.row], entries.row[blank], dead])
    columns = np.concatenate([index[near.col], entries.col[blank], dead])
    values = np.concatenate([near.data, np.full(int(blank.sum()) + dead.size, np.nan)])
    out = coo_array((values, (rows, columns)), shape=covariance.shape)
    out.sum_duplicates()  # a dead system's stored diagonal and the one added: NaN either way
    return out.tocsr()


def joint_estimate(
    estimand,
    estimator,
    pairs,
    theta,
    covariance,
    level,
    notes,
    weights,
    counts,
    *,
    remarks=None,
    bounds=None,
    clusters: ClusterSummary | None = None,
) -> JointEstimate:
    """The result of an estimand: the systems with a note blanked (only the interval for one
    human battle) and their normal intervals (:func:`debias.stats.common.intervals.normal_interval`);
    ``counts`` is ``(n_judged, n_judge, n_missing)``.

    A system whose variance is 0 up to rounding (every verdict behind it the same) gets the
    note :data:`ZERO_VARIANCE` and no interval; the covariance of the others is made symmetric
    and positive semi-definite (:func:`debias.stats.common.joint.nearest_covariance`), so that rounding
    never stops the rank-sets. ``remarks`` (per system, optional) say what an interval rests on
    (:func:`few_battles`): they fill ``notes`` where there is no other note and blank nothing.
    ``bounds`` clip the intervals (win rates: ``(0, 1)``). ``clusters`` (clustered battles,
    :func:`studentised_clusters`) fills the result's clusters and design effects, and adds the
    remark of an estimate resting on few clusters
    (:func:`debias.stats.common.clusters.few_clusters`). A sparse ``covariance``
    (:func:`debias.stats.common.joint.is_sparse`) stays sparse: a system without an interval has
    NaN on its diagonal and on the entries stored in its row and column.
    """
    theta = np.array(theta, dtype=float)
    sparse = is_sparse(covariance)
    covariance = covariance.tocsr(copy=True).astype(float) if sparse else np.array(covariance, dtype=float)
    notes = list(notes)
    none = np.array([bool(r) and r not in (FEW_HUMAN, FEW_CLUSTERED) for r in notes])
    theta[none] = np.nan
    variance = variances(covariance).copy()
    flat = np.isfinite(theta) & np.isfinite(variance)
    flat &= np.sqrt(np.maximum(variance, 0.0)) <= ROUNDING * np.maximum(1.0, np.abs(np.nan_to_num(theta)))
    for s in np.flatnonzero(flat):
        notes[s] = notes[s] or ZERO_VARIANCE
    no_interval = np.array([bool(r) for r in notes])
    live = ~no_interval
    if sparse:
        covariance = _blanked(covariance, live)
    else:
        if live.any():
            covariance[np.ix_(live, live)] = nearest_covariance(covariance[np.ix_(live, live)])
        covariance[no_interval, :] = np.nan
        covariance[:, no_interval] = np.nan
    se, ci_low, ci_high = normal_interval(theta, covariance, level)
    if bounds is not None:
        ci_low, ci_high = np.clip(ci_low, *bounds), np.clip(ci_high, *bounds)
    if clusters is not None:
        few = [few_clusters(g) for g in clusters.n_clusters]
        remarks = few if remarks is None else ["; ".join(x for x in (r, f) if x) for r, f in zip(remarks, few)]
    if remarks is not None:
        notes = [note or str(remark or "") for note, remark in zip(notes, remarks)]
    n_judged, n_judge, n_missing = counts
    return JointEstimate(
        estimand=estimand,
        estimator=estimator,
        systems=pairs.systems,
        estimate=theta,
        covariance=covariance,
        se=se,
        ci_low=ci_low,
        ci_high=ci_high,
        level=float(level),
        n_judged=n_judged,
        n_judge=n_judge,
        n_missing=n_missing,
        notes=tuple(notes),
        weights=np.asarray(weights, dtype=float).ravel(),
        n_clusters=None if clusters is None else np.asarray(clusters.n_clusters, dtype=np.int64),
        design_effect=None if clusters is None else np.where(no_interval, np.nan, clusters.design_effect),
    )
