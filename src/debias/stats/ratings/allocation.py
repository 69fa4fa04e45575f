r"""Which outputs to have judged next: outputs nobody judged, of the systems a question leaves open.

Given a question's status (:func:`debias.stats.common.status.question_status` on the ratings'
joint estimates), ``open_pairs`` marks the contrasts still open that matter to it. A system's
mean score is a mean over its own outputs, so what narrows an open contrast of i and j is more
judged outputs of i or of j: the *open systems* are those in an open contrast, and every output
of an open system that nobody judged on the prompt is eligible. Drawn uniformly from those,
each open system's judged items stay a uniform draw of its own outputs whatever the earlier
looks made the rule choose, so its estimate (and every open contrast's confidence sequence)
keeps its target and its validity (:mod:`debias.stats.common.sequential`). Unlike a win rate, a
system's mean score does not depend on which other systems were judged, so a system no longer
in an open contrast keeps an untilted estimate.

:func:`next_outputs` draws the budget uniformly at random, without replacement, from the
eligible outputs, from an explicit ``numpy.random.Generator``: the same seed and data give the
same outputs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from debias.stats.common.status import QuestionStatus, draw_next

__all__ = ["OutputAllocation", "next_outputs"]


@dataclass(frozen=True)
class OutputAllocation:
    """The outputs to have judged next: ``outputs`` (their indices, in the table's order),
    ``eligible`` (the unjudged outputs of open systems there were to choose from), ``budget``
    and ``note`` (why fewer than the budget were chosen, ``""`` when it was met)."""

    outputs: np.ndarray
    eligible: int
    budget: int
    note: str


def next_outputs(
    output_system, judged, status: QuestionStatus, budget: int, rng: np.random.Generator, clusters=None
) -> OutputAllocation:
    """Draw ``budget`` outputs nobody judged from the systems ``status`` leaves open (module
    notes); all of them when fewer are left, none when the question is settled.

    Parameters
    ----------
    output_system : array_like of int, shape (N,)
        Each output's system, an index into ``status.systems``.
    judged : array_like of bool, shape (N,)
        Whether the output has a judgment on the question's prompt.
    clusters : array_like of int, shape (N,), optional
        Each output's cluster number, when items share documents: whole clusters are drawn
        (:func:`debias.stats.common.status.draw_next`).
    """
    output_system = np.asarray(output_system, dtype=np.int64)
    judged = np.asarray(judged, dtype=bool)
    if output_system.shape != judged.shape:
        raise ValueError(f"{output_system.size} outputs' systems for {judged.size} judged flags")
    if output_system.size and (output_system.min() < 0 or output_system.max() >= len(status.systems)):
        raise ValueError("an output's system is not one of the status's systems")
    open_systems = np.asarray(status.open_systems, dtype=bool)
    eligible = np.flatnonzero(~judged & open_systems[output_system])
    remedy = "add outputs of them (rows without a judgment)"
    among = np.asarray(clusters, dtype=np.int64)[eligible] if clusters is not None else None
    chosen, note = draw_next(
        eligible,
        budget,
        rng,
        status,
        unit="output",
        unjudged="nobody judged",
        among="open systems",
        remedy=remedy,
        clusters=among,
    )
    return OutputAllocation(chosen.astype(np.int64), int(eligible.size), int(budget), note)
