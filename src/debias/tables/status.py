"""A question's status as a table (``debias status``, the workflow's ``status.csv``) and its
summary (``status.json``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from debias.tables.columns import CI_HIGH, CI_LOW, NOTE

__all__ = ["STATUS_COLUMNS", "status_summary", "status_table"]

#: Columns of the status table.
STATUS_COLUMNS = [
    "system_a",
    "system_b",
    "estimate",
    CI_LOW,
    CI_HIGH,
    "votes",
    "resolved",
    "status",
    "more_votes",
    NOTE,
]


def _count(x: float):
    """A vote count as an integer when finite (rounded up), else as it is (inf, NaN)."""
    return int(np.ceil(x)) if np.isfinite(x) else x


def status_table(state) -> pd.DataFrame:
    """The rows of a :class:`~debias.stats.common.status.QuestionStatus`: one per system (``system_b``
    empty) and per contrast ``system_a - system_b``, with its anytime-valid interval (``ci_low``,
    ``ci_high``), the votes behind it, whether it is resolved, what is settled in words
    (``status``), the further votes it needs (``more_votes``) and why there is no estimate or
    decision (``note``)."""
    rows = [
        {
            "system_a": r.first,
            "system_b": r.second,
            "estimate": r.estimate,
            CI_LOW: r.ci_low,
            CI_HIGH: r.ci_high,
            "votes": _count(r.votes),
            "resolved": r.resolved,
            "status": r.status,
            "more_votes": _count(r.more_votes),
            NOTE: r.note,
        }
        for r in state.rows
    ]
    return pd.DataFrame(rows, columns=STATUS_COLUMNS)


def status_summary(state) -> dict:
    """The answer and its settings, JSON-ready (infinite or unknown vote counts as null, with
    the reason in ``more_votes_note``)."""
    more = state.more_votes
    note = ""
    if np.isnan(more):
        note = "no estimate of the votes needed (a system without an estimate)"
    elif np.isinf(more):
        note = "an open pair's estimated gap is 0: no finite number of votes is expected to settle it"
    return {
        "question": state.question.text,
        "resolved": bool(state.resolved),
        "answer": state.answer,
        "level": state.level,
        "optimal_at": state.optimal_at,
        "estimand": state.estimand,
        "estimator": state.estimator,
        "votes": int(state.n_votes),
        "more_votes": _count(more) if np.isfinite(more) else None,
        "more_votes_note": note,
    }
