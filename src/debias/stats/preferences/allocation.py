r"""Where to send the next votes: battles of the judge-only pool that can still settle a question.

Given a question's status (:func:`debias.stats.common.status.question_status`), ``open_systems``
marks the systems whose battles the next votes go to: for ``better`` the two asked about; for
``top:K`` the two of the most ambiguous contrast (between a system inside the estimated top K
and one outside, the interval whose lower end is lowest, as LUCB chooses);
for ``ranks`` every system in an undecided contrast; for ``within:W`` the widest systems not yet
within W. Every battle of such a system without a human verdict is eligible, for win rates and
strengths alike: a system's battles move its win rate, and its strength through the fit.

A status weights each pair's judged battles back to the table's design
(:func:`debias.stats.preferences.battles.pool_design`), so the quantities it estimates do not
depend on which pairs the votes went to; what the rule needs for the sequences to stay valid is
that, within a pair, the votes are a uniform draw of its battles. Drawing uniformly among the
eligible battles keeps that.

:func:`next_battles` draws the budget uniformly at random, without replacement, from the
eligible battles of the pool (no human verdict yet), from an explicit
``numpy.random.Generator``: the same seed and data give the same battles. When the votes go to
one contrast of win rates (``better``, and ``top:K``'s most ambiguous), it shares the budget
out among the pairs of the two systems where it shrinks the variance of their difference most
(:func:`contrast_draw`) and draws uniformly within each pair.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from debias.data import JudgedPairs
from debias.stats.common.status import QuestionStatus, draw_next

__all__ = [
    "Allocation",
    "contrast_draw",
    "eligible_battles",
    "first_battles",
    "next_battles",
    "open_battles",
    "stream_shares",
]


@dataclass(frozen=True)
class Allocation:
    """The battles to put in front of people next.

    ``battles``: their indices in the :class:`~debias.data.JudgedPairs` (in its order);
    ``eligible``: the pool battles there were to choose from (module notes); ``note``: why
    fewer than the budget were chosen ("" when it was met)."""

    battles: np.ndarray
    eligible: int
    budget: int
    note: str


def first_battles(pairs: JudgedPairs, budget: int, rng: np.random.Generator) -> Allocation:
    """A first batch when no battle has a human verdict yet (a cold start): ``budget`` battles
    drawn uniformly from all of them (whole clusters when the battles are clustered), which is
    what every later status assumes of the first votes."""
    eligible = np.arange(pairs.n_battles)
    clusters = pairs.cluster_codes if pairs.clustered else None
    words = {"unit": "battle", "unjudged": "", "remedy": "add battles"}
    chosen, note = draw_next(eligible, budget, rng, None, among="battles", clusters=clusters, **words)
    return Allocation(chosen.astype(np.int64), int(eligible.size), int(budget), note)


def eligible_battles(pairs: JudgedPairs, status: QuestionStatus) -> tuple[np.ndarray, str]:
    """``(indices, note)``: the battles without a human verdict that :func:`next_battles` draws
    from (module notes). The targeted systems' battles first; when every one of those has a
    human verdict, those of every system in an open pair; for strengths, when those too are
    all judged, every battle left (each moves the fit). ``note`` says when it fell back."""
    if tuple(status.systems) != tuple(pairs.systems):
        raise ValueError("the status is of other systems than these battles")
    eligible = open_battles(pairs, status.open_systems)
    if eligible.size or status.resolved:
        return eligible, ""
    in_play = np.asarray(status.open_pairs, dtype=bool).any(axis=1)
    eligible = open_battles(pairs, in_play)
    if eligible.size:
        return eligible, "the targeted systems' battles all have a human verdict: drawn among every open pair's systems"
    if status.estimand == "strength":
        eligible = np.flatnonzero(~pairs.labelled)
        return (
            eligible,
            "the open pairs' systems have no battle left: drawn among every battle left (each moves the fit)",
        )
    return eligible, ""


def open_battles(pairs: JudgedPairs, open_systems) -> np.ndarray:
    """The battles without a human verdict of the systems ``open_systems`` (S,) marks."""
    open_systems = np.asarray(open_systems, dtype=bool)
    wanted = open_systems[pairs.system_a] | open_systems[pairs.system_b]
    return np.flatnonzero(~pairs.labelled & wanted)


def stream_shares(pairs: JudgedPairs, open_systems) -> np.ndarray:
    """The share of the battles :func:`next_battles` would draw from (:func:`open_battles` of
    ``open_systems``) that are each system's (S,): what a next vote adds to a system's votes on
    average (a battle of two systems counts for both); zeros when none is left to draw."""
    eligible = open_battles(pairs, open_systems)
    if eligible.size == 0:
        return np.zeros(pairs.n_systems)
    a, b = pairs.system_a[eligible], pairs.system_b[eligible]
    touching = np.bincount(a, minlength=pairs.n_systems) + np.bincount(b, minlength=pairs.n_systems)
    return touching / eligible.size


def next_battles(pairs: JudgedPairs, status: QuestionStatus, budget: int, rng: np.random.Generator) -> Allocation:
    """Draw ``budget`` battles without a human verdict from those that can still settle what
    ``status`` leaves open (module notes, :func:`eligible_battles`); all of them when fewer are
    left, none when the question is settled."""
    eligible, fallback = eligible_battles(pairs, status)
    contrast = _win_rate_contrast(status)
    if contrast is not None and not fallback and not pairs.clustered and isinstance(budget, int | np.integer):
        if 1 <= budget < eligible.size:
            chosen = contrast_draw(pairs, eligible, contrast, int(budget), rng)
            return Allocation(chosen, int(eligible.size), int(budget), "")
    words = {"unit": "battle", "unjudged": "without a human verdict", "remedy": "add battles of them to the pool"}
    clusters = pairs.cluster_codes[eligible] if pairs.clustered else None  # questions arrive whole
    chosen, note = draw_next(eligible, budget, rng, status, among="open systems", clusters=clusters, **words)
    if not chosen.size and not status.resolved and status.estimand == "win_rate":
        note = (
            "every battle of the systems still open has a human verdict: a win rate moves only with its own"
            " battles, so nothing left in the pool can settle it; add battles of them to the pool"
        )
    note = "; ".join(x for x in (fallback if chosen.size else "", note) if x)
    return Allocation(chosen.astype(np.int64), int(eligible.size), int(budget), note)


def _win_rate_contrast(status: QuestionStatus) -> tuple[int, int] | None:
    """The two systems of the one contrast the next votes go to (``better:A,B``, or ``top:K``'s
    most ambiguous), for win rates; ``None`` otherwise."""
    if status.estimand != "win_rate" or status.resolved or status.question.kind not in ("better", "top"):
        return None
    targets = np.flatnonzero(status.open_systems)
    return (int(targets[0]), int(targets[1])) if targets.size == 2 else None


def contrast_draw(pairs: JudgedPairs, eligible, contrast: tuple[int, int], budget: int, rng) -> np.ndarray:
    r"""``budget`` of the ``eligible`` battles (of the two systems of ``contrast``, i and j),
    chosen to shrink the variance of the difference of their win rates most.

    A status's win rate of i is the table's mix of i's pairs: :math:`\hat\theta_i = \sum_o
    (N_{io}/N_i)\,\hat p_{io}`, :math:`N_{io}` the battles of the pair in the table,
    :math:`N_i` those of i, :math:`\hat p_{io}` i's share of wins among the pair's battles with a
    human verdict (:func:`debias.stats.preferences.battles.pool_design`). In
    :math:`\hat\theta_i - \hat\theta_j` a pair (i, o) therefore weighs :math:`c = N_{io}/N_i`,
    (j, o) :math:`N_{jo}/N_j` and (i, j) the sum of both, and its term's variance is
    :math:`c^2 v / n` after n votes, v a verdict's variance in the pair (:math:`\tilde p(1 -
    \tilde p)`, :math:`\tilde p` its share of wins with one win and one loss added). The batch
    goes one vote at a time to the pair whose next vote lowers that the most, :math:`c^2 v /
    ((n + 1)(n + 2))` (a pair without a vote yet counted as one), while it has eligible
    battles; within each pair the battles are drawn uniformly without replacement, which is all
    the status's weighting needs (module notes). A uniform draw over the two systems' battles
    gives each pair votes in proportion to its battles instead: too many to the more frequent
    system, too few to the battles of the two against each other."""
    import heapq

    eligible = np.asarray(eligible, dtype=np.int64)
    i, j = contrast
    s = pairs.n_systems
    a, b = pairs.system_a, pairs.system_b
    touched = np.flatnonzero((a == i) | (b == i) | (a == j) | (b == j))
    low, high = np.minimum(a[touched], b[touched]), np.maximum(a[touched], b[touched])
    keys, pair = np.unique(low * s + high, return_inverse=True)
    pair = pair.reshape(-1)
    first, second = keys // s, keys % s
    in_table = np.bincount(pair, minlength=keys.size).astype(float)
    labelled = pairs.labelled[touched]
    judged = np.bincount(pair, labelled, keys.size)
    won = np.where(a[touched] == low, pairs.human_mean[touched], 1.0 - pairs.human_mean[touched])
    wins = np.bincount(pair, np.where(labelled, won, 0.0), keys.size)
    share = (wins + 1.0) / (judged + 2.0)
    n_i = max(in_table[(first == i) | (second == i)].sum(), 1.0)
    n_j = max(in_table[(first == j) | (second == j)].sum(), 1.0)
    weight = np.where((first == i) | (second == i), in_table / n_i, 0.0)
    weight = weight + np.where((first == j) | (second == j), in_table / n_j, 0.0)
    value = weight**2 * share * (1.0 - share)
    where = np.searchsorted(touched, eligible)  # every eligible battle touches i or j
    battles_of = [eligible[pair[where] == q] for q in range(keys.size)]
    n = judged.copy()
    quota = np.zeros(keys.size, dtype=np.int64)
    heap = [(-value[q] / ((n[q] + 1.0) * (n[q] + 2.0)), q) for q in range(keys.size) if battles_of[q].size]
    heapq.heapify(heap)
    for _ in range(budget):
        _, q = heapq.heappop(heap)
        quota[q] += 1
        n[q] += 1.0
        if quota[q] < battles_of[q].size:
            heapq.heappush(heap, (-value[q] / ((n[q] + 1.0) * (n[q] + 2.0)), q))
    chosen = [rng.choice(battles_of[q], size=quota[q], replace=False) for q in range(keys.size) if quota[q]]
    return np.sort(np.concatenate(chosen)).astype(np.int64)
