r"""The head-to-head matrix: every pair's win rate with intervals simultaneous over the pairs shown.

The win rate of system A against system B is A's mean score over their battles (ties half a
win; with ``ties="drop"`` the share of their decisive battles A wins). It is computed through
the contract of :mod:`debias.stats.preferences.win_rate`, unchanged: each battle of A against B
becomes a battle between two *cells*, "A against B" and "B against A", so that the win rate of
the cell "A against B" is A's win rate against B. Every estimator (``human``, ``judge:<j>``,
``ppi++:<j>``, ``ppi++:combined``), the cluster-robust covariance (battles sharing a cluster),
the small-sample widening and the notes then apply to the cells as they apply to systems; PPI++
tunes one weight per judge over all cells.

Simultaneous intervals (Šidák): the cells "A against B" and "B against A" are one estimate
(:math:`\hat\theta_{BA} = 1 - \hat\theta_{AB}`), so the family is the m unordered pairs shown
that have an interval. Each interval is built at the level :math:`(1 - \alpha)^{1/m}`
(:func:`debias.stats.common.multiplicity.sidak_level`); for estimates that are jointly normal
with any correlation, two-sided intervals at that level cover together with probability at least
:math:`1 - \alpha` (Šidák 1967), exactly so for independent pairs (disjoint battles without
shared clusters). Building each interval at the adjusted level keeps every rule of the single
intervals (the Agresti-Coull containment at small n, t on the clusters) at that level.

Reference: Z. Šidák. Rectangular confidence regions for the means of multivariate normal
distributions. *Journal of the American Statistical Association* 62(318):626-633, 1967.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from debias.data import JudgedPairs
from debias.stats.common.intervals import check_level
from debias.stats.common.joint import JointEstimate
from debias.stats.common.multiplicity import sidak_level
from debias.stats.preferences.battles import Battles, check_pairs, resolve
from debias.stats.preferences.win_rate import win_rate_estimate

__all__ = ["MAX_SYSTEMS", "NO_BATTLES", "HeadToHead", "head_to_head", "strength_order"]

#: The matrix shows at most this many systems by default (the strongest): beyond it a figure's
#: labels no longer read and the joint covariance of the cells grows as the fourth power.
MAX_SYSTEMS = 30
NO_BATTLES = "no battles between them"


@dataclass(frozen=True, eq=False)
class HeadToHead:
    """One estimator's head-to-head matrix (:func:`head_to_head`).

    Attributes
    ----------
    estimator : str
    systems : tuple of str
        The systems shown, strongest first.
    estimate, se, ci_low, ci_high : numpy.ndarray, shape (S, S)
        Row system's win rate against the column system, with its simultaneous interval; NaN on
        the diagonal and where the note says why.
    n_judged, n_battles : numpy.ndarray of int, shape (S, S)
        The pair's battles with a human verdict (decisive ones with ties left out) and all its
        battles.
    notes : numpy.ndarray of str, shape (S, S)
        Why a cell has no estimate or no interval, or what it rests on ("" otherwise).
    level : float
        The simultaneous level over the pairs shown.
    pair_level : float
        The level each interval is built at (Šidák's, module notes).
    n_pairs : int
        The unordered pairs the intervals are simultaneous over (m).
    omitted : tuple of str
        Systems left out of the matrix (beyond ``max_systems``).
    cells : JointEstimate or None
        The estimate of the cells, with their joint covariance (``None`` without battles): a
        SciPy sparse array (a cell covaries with the other cell of its pair alone), or a dense
        array when the battles are in clusters.
    """

    estimator: str
    systems: tuple[str, ...]
    estimate: np.ndarray
    se: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    n_judged: np.ndarray
    n_battles: np.ndarray
    notes: np.ndarray
    level: float
    pair_level: float
    n_pairs: int
    omitted: tuple[str, ...]
    cells: JointEstimate | None


def strength_order(pairs: JudgedPairs | Battles, *, ties: str = "half", level: float = 0.9) -> list[str]:
    """The systems strongest first: by the people's Bradley-Terry strength
    (:func:`debias.stats.preferences.bradley_terry.strength_estimate`), then those without one by
    their human win rate, then the others in the battles' order."""
    from debias.stats.preferences.bradley_terry import strength_estimate

    battles = Battles.of(pairs, ties)
    systems = battles.pairs.systems
    strength = strength_estimate(battles, "human", level=level, ties=ties).estimate
    rate = win_rate_estimate(battles, "human", level=level, ties=ties).estimate
    key = [
        (0, -s, k) if np.isfinite(s) else (1, -r, k) if np.isfinite(r) else (2, 0.0, k)
        for k, (s, r) in enumerate(zip(strength, rate))
    ]
    return [systems[k] for *_, k in sorted(key)]


def _cell_pairs(pairs: JudgedPairs, shown: Sequence[int]) -> tuple[JudgedPairs, np.ndarray, np.ndarray]:
    """The battles between shown systems as battles between cells, and per cell its row and
    column system (positions in ``shown``)."""
    n = len(shown)
    position = np.full(pairs.n_systems, -1, dtype=np.int64)
    position[np.asarray(shown, dtype=np.int64)] = np.arange(n)
    pa, pb = position[pairs.system_a], position[pairs.system_b]
    keep = (pa >= 0) & (pb >= 0)
    sub = pairs.take(keep)
    pa, pb = pa[keep], pb[keep]
    present = np.zeros(n * n, dtype=bool)
    present[pa * n + pb] = True
    present[pb * n + pa] = True
    cells = np.flatnonzero(present)
    index = np.full(n * n, -1, dtype=np.int64)
    index[cells] = np.arange(cells.size)
    relabelled = JudgedPairs(
        tuple(str(k) for k in range(cells.size)),
        index[pa * n + pb],
        index[pb * n + pa],
        sub.human,
        sub.human_counts,
        sub.judges,
        sub.judge_verdicts,
        sub.items,
        sub.judge_unknown,
        sub.task,
        sub.clusters,
    )
    return relabelled, cells // n, cells % n


def head_to_head(
    pairs: JudgedPairs | Battles,
    estimator: str = "human",
    *,
    level: float,
    ties: str = "half",
    systems: Sequence[str] | None = None,
    max_systems: int | None = MAX_SYSTEMS,
) -> HeadToHead:
    r"""Every pair's win rate by one estimator, with intervals simultaneous over the pairs shown.

    Parameters
    ----------
    pairs : JudgedPairs
    estimator : str
        ``human``, ``judge:<j>``, ``ppi++:<j>`` or ``ppi++:combined``.
    level : float
        The simultaneous coverage over the pairs shown (module notes).
    ties : {"half", "drop"}
    systems : sequence of str, optional
        The systems to show, in order; default every system strongest first
        (:func:`strength_order`), at most ``max_systems`` of them.
    max_systems : int or None
        With more systems than this (and ``systems`` not given), only the strongest are shown
        and the others are listed in :attr:`HeadToHead.omitted`; ``None``: no limit.

    Returns
    -------
    HeadToHead

    Examples
    --------
    >>> from debias.data import JudgedPairs
    >>> pairs = JudgedPairs.from_arrays(["x", "x", "y", "x"], ["y", "z", "z", "y"], [1, 0.5, 0, 1])
    >>> matrix = head_to_head(pairs, level=0.9)
    >>> matrix.systems, matrix.estimate.round(2).tolist()[0]
    (('x', 'z', 'y'), [nan, 0.5, 1.0])
    """
    check_level(level)
    battles = Battles.of(pairs, ties)
    pairs = battles.pairs
    resolve(estimator, pairs.judges)
    omitted: tuple[str, ...] = ()
    if systems is None:
        order = strength_order(battles, ties=ties, level=level)
        if max_systems is not None and len(order) > max_systems:
            order, rest = order[:max_systems], order[max_systems:]
            omitted = tuple(rest)
    else:
        from debias.data import find_name, shown_name, shown_names

        order = []
        for name in map(str, systems):
            spelled = find_name(name, pairs.systems)
            if spelled is None:
                raise ValueError(f"no system {shown_name(name)} in the battles (systems: {shown_names(pairs.systems)})")
            order.append(spelled)
        if len(set(order)) != len(order):
            raise ValueError("systems: each system once")
    shown = [pairs.systems.index(s) for s in order]
    n = len(shown)
    estimate, se, low, high = (np.full((n, n), np.nan) for _ in range(4))
    n_judged, n_battles = np.zeros((n, n), dtype=np.int64), np.zeros((n, n), dtype=np.int64)
    notes = np.full((n, n), NO_BATTLES, dtype=object)
    np.fill_diagonal(notes, "")
    cells, pair_level, m = None, float(level), 0
    cell_pairs, rows, columns = _cell_pairs(pairs, shown)
    if cell_pairs.n_battles:
        check_pairs(cell_pairs, ties)
        cell_battles = Battles(cell_pairs)
        # m: the unordered pairs with an interval, known from a first pass at the nominal level
        first = win_rate_estimate(cell_battles, estimator, level=level, ties=ties, sparse=True)
        upper = rows < columns
        m = int(np.sum(upper & np.isfinite(first.ci_low) & np.isfinite(first.ci_high)))
        pair_level = sidak_level(level, max(m, 1))
        cells = win_rate_estimate(cell_battles, estimator, level=pair_level, ties=ties, sparse=True)
        estimate[rows, columns] = cells.estimate
        se[rows, columns] = cells.se
        low[rows, columns] = cells.ci_low
        high[rows, columns] = cells.ci_high
        n_judged[rows, columns] = cells.n_judged
        counted = np.bincount(cell_pairs.system_a, minlength=rows.size)
        counted += np.bincount(cell_pairs.system_b, minlength=rows.size)
        n_battles[rows, columns] = counted
        notes[rows, columns] = list(cells.notes)
    return HeadToHead(
        estimator=estimator,
        systems=tuple(order),
        estimate=estimate,
        se=se,
        ci_low=low,
        ci_high=high,
        n_judged=n_judged,
        n_battles=n_battles,
        notes=notes.astype(str),
        level=float(level),
        pair_level=float(pair_level),
        n_pairs=m,
        omitted=omitted,
        cells=cells,
    )
