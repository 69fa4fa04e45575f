r"""Where to send the next votes: battles of the judge-only pool from the pairs still open.

Given a question's status (:func:`debias.stats.status.question_status`), the battles that can
still change the answer are those of the pairs it marks open (``open_pairs``: for ``better``
the pair asked about, for ``top:K`` the undecided contrasts touching a system whose membership
is undecided, for ``ranks`` every undecided contrast, for ``within:W`` every battle of a system
not yet within W). :func:`next_battles` draws the budget uniformly at random, without
replacement, from the pool's battles (no human verdict yet) of those pairs, from an explicit
``numpy.random.Generator``: the same seed and data give the same battles.

Validity under this choice (:mod:`debias.stats.sequential`, assumptions): within a pair the
battles sent are a uniform draw from that pair's pool, whatever the past votes made the rule
choose; a contrast's sequence in its own votes therefore stays valid when its pair is chosen
adaptively, and a decision once taken stays valid. What the choice changes is each system's mix
of opponents: a win rate is then that against the opponents its votes actually met, whereas
the Bradley-Terry strengths' differences (when the model holds) do not depend on which pairs
meet.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from debias.data import JudgedPairs
from debias.stats.status import QuestionStatus

__all__ = ["Allocation", "next_battles"]


@dataclass(frozen=True)
class Allocation:
    """The battles to put in front of people next.

    ``battles``: their indices in the :class:`~debias.data.JudgedPairs` (in its order);
    ``eligible``: the pool battles of open pairs there were to choose from; ``note``: why fewer
    than the budget were chosen ("" when the budget was met)."""

    battles: np.ndarray
    eligible: int
    budget: int
    note: str


def next_battles(pairs: JudgedPairs, status: QuestionStatus, budget: int, rng: np.random.Generator) -> Allocation:
    """Draw ``budget`` battles without a human verdict from the pairs ``status`` leaves open
    (module notes); all of them when fewer are left, none when the question is settled."""
    if isinstance(budget, bool) or not isinstance(budget, int | np.integer) or budget < 1:
        raise ValueError(f"budget must be a whole number of battles >= 1, got {budget!r}")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    if tuple(status.systems) != tuple(pairs.systems):
        raise ValueError("the status is of other systems than these battles")
    open_pairs = np.asarray(status.open_pairs, dtype=bool)
    pool = ~pairs.labelled
    eligible = np.flatnonzero(pool & open_pairs[pairs.system_a, pairs.system_b])
    note = ""
    if status.resolved:
        note = f"the question is settled ({status.answer}): no battle needed"
        chosen = np.zeros(0, dtype=np.int64)
    elif eligible.size == 0:
        note = "no battle without a human verdict left in the open pairs: add battles of those pairs to the pool"
        chosen = np.zeros(0, dtype=np.int64)
    elif eligible.size <= budget:
        chosen = eligible
        if eligible.size < budget:
            note = f"only {eligible.size} battles without a human verdict in the open pairs (budget {budget})"
    else:
        chosen = np.sort(rng.choice(eligible, size=budget, replace=False))
    return Allocation(chosen.astype(np.int64), int(eligible.size), int(budget), note)
