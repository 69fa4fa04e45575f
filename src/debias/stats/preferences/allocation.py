r"""Where to send the next votes: battles of the judge-only pool that can still settle a question.

Given a question's status (:func:`debias.stats.common.status.question_status`), ``open_pairs`` marks
the contrasts still open that matter to it: for ``better`` the pair asked about, for ``top:K``
the undecided contrasts touching a system whose membership is undecided, for ``ranks`` every
undecided contrast, for ``within:W`` every pair touching a system not yet within W. Which
battles narrow an open contrast depends on the estimand:

* a **win rate** is a system's expected score over *all* its battles (the pool's mix of
  opponents), so the votes that narrow the contrast of i and j are the battles of i or of j:
  the *open systems* are those in an open contrast, and every battle of an open system is
  eligible. Drawn uniformly from those battles, each open system's votes stay a uniform draw of
  its own battles whatever the earlier votes made the rule choose, so its win rate (and every
  open contrast's sequence) keeps its target and its validity. A system no longer in any open
  contrast then gets votes only against open systems: its estimate leans towards those
  opponents, which is why a decision is to be kept once taken (it stays valid) rather than
  re-read from later looks.
* a **Bradley-Terry strength** difference does not depend on which pairs meet (when the model
  holds): the eligible battles are those of the open pairs themselves (head-to-head). When no
  battle of the open pairs is left to judge, the battles of their systems are eligible: they
  still move the difference through the fit, and the question does not stall (the note says
  so).

:func:`next_battles` draws the budget uniformly at random, without replacement, from the
eligible battles of the pool (no human verdict yet), from an explicit
``numpy.random.Generator``: the same seed and data give the same battles.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from debias.data import JudgedPairs
from debias.stats.common.status import QuestionStatus, draw_next

__all__ = ["Allocation", "eligible_battles", "first_battles", "next_battles", "open_battles", "stream_shares"]


@dataclass(frozen=True)
class Allocation:
    """The battles to put in front of people next.

    ``battles``: their indices in the :class:`~debias.data.JudgedPairs` (in its order);
    ``eligible``: the pool battles there were to choose from (module notes); ``by``:
    ``"systems"`` (win rates: every battle of an open system) or ``"pairs"`` (strengths: battles
    of the open pairs); ``note``: why fewer than the budget were chosen ("" when it was met)."""

    battles: np.ndarray
    eligible: int
    budget: int
    by: str
    note: str


def first_battles(pairs: JudgedPairs, budget: int, rng: np.random.Generator) -> Allocation:
    """A first batch when no battle has a human verdict yet (a cold start): ``budget`` battles
    drawn uniformly from all of them (whole clusters when the battles are clustered), which is
    what every later status assumes of the first votes."""
    eligible = np.arange(pairs.n_battles)
    clusters = pairs.cluster_codes if pairs.clustered else None
    words = {"unit": "battle", "unjudged": "", "remedy": "add battles"}
    chosen, note = draw_next(eligible, budget, rng, None, among="battles", clusters=clusters, **words)
    return Allocation(chosen.astype(np.int64), int(eligible.size), int(budget), "systems", note)


def eligible_battles(pairs: JudgedPairs, status: QuestionStatus) -> tuple[np.ndarray, str]:
    """``(indices, by)``: the battles without a human verdict that :func:`next_battles` draws
    from (module notes), and ``"systems"`` or ``"pairs"``: which rule chose them."""
    if tuple(status.systems) != tuple(pairs.systems):
        raise ValueError("the status is of other systems than these battles")
    return open_battles(
        pairs, status.open_pairs, status.estimand, settled=status.resolved, open_systems=status.open_systems
    )


def open_battles(
    pairs: JudgedPairs, open_pairs, estimand: str, *, settled: bool = False, open_systems=None
) -> tuple[np.ndarray, str]:
    """:func:`eligible_battles` from the open pairs (S, S), the open systems (S,; default
    those in an open pair) and the estimand alone."""
    open_pairs = np.asarray(open_pairs, dtype=bool)
    a, b = pairs.system_a, pairs.system_b
    open_systems = open_pairs.any(axis=1) if open_systems is None else np.asarray(open_systems, dtype=bool)
    unjudged = ~pairs.labelled
    if estimand == "strength":
        by, wanted = "pairs", open_pairs[a, b]
        if not settled and not np.any(unjudged & wanted):
            # no battle of the open pairs left: the battles of their systems still move the
            # strengths' difference through the fit, so the question does not stall
            by, wanted = "systems", open_systems[a] | open_systems[b]
    else:
        by = "systems"
        wanted = open_systems[a] | open_systems[b]
    return np.flatnonzero(unjudged & wanted), by


def stream_shares(pairs: JudgedPairs, open_pairs, estimand: str, open_systems=None) -> tuple[np.ndarray, np.ndarray]:
    """``(contrast_share (S, S), system_share (S,))``: the share of the battles :func:`next_battles`
    would draw from (:func:`open_battles`) that lands in each contrast's stream (a win rate's:
    the battles of i or of j; a strength's: every battle, the fit uses them all) and in each
    system's (its battles); zeros when none is left to draw."""
    s = pairs.n_systems
    eligible, _ = open_battles(pairs, open_pairs, estimand, open_systems=open_systems)
    if eligible.size == 0:
        return np.zeros((s, s)), np.zeros(s)
    a, b = pairs.system_a[eligible], pairs.system_b[eligible]
    touching = np.bincount(a, minlength=s) + np.bincount(b, minlength=s)
    if estimand == "strength":
        contrast = np.full((s, s), float(eligible.size))
    else:
        shared = np.zeros((s, s))
        np.add.at(shared, (a, b), 1.0)
        shared = shared + shared.T
        contrast = touching[:, None] + touching[None, :] - shared
    return contrast / eligible.size, touching / eligible.size


def next_battles(pairs: JudgedPairs, status: QuestionStatus, budget: int, rng: np.random.Generator) -> Allocation:
    """Draw ``budget`` battles without a human verdict from those that can still settle what
    ``status`` leaves open (module notes, :func:`eligible_battles`); all of them when fewer are
    left, none when the question is settled."""
    eligible, by = eligible_battles(pairs, status)
    words = {"unit": "battle", "unjudged": "without a human verdict", "remedy": "add battles of them to the pool"}
    clusters = pairs.cluster_codes[eligible] if pairs.clustered else None  # questions arrive whole
    chosen, note = draw_next(eligible, budget, rng, status, among=f"open {by}", clusters=clusters, **words)
    if status.estimand == "strength" and by == "systems" and chosen.size:
        note = "; ".join(x for x in ("no battle of the open pairs left: drawn among their systems' battles", note) if x)
    return Allocation(chosen.astype(np.int64), int(eligible.size), int(budget), by, note)
