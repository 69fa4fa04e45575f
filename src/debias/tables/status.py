"""A question's status as a table (``debias status``, the workflow's ``status.csv``) and its
summary (``status.json``), and the status of a question on ratings (:func:`ratings_status`):
the ratings' joint estimates of one prompt fed to the same
:func:`debias.stats.common.status.question_status` as pairwise verdicts' win rates. With
clustered data the table also says each system's clusters and design effect, from the joint
estimate behind the status (:func:`status_joint`)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from debias.stats.common.sequential import OPTIMAL_AT
from debias.stats.common.status import QuestionError, QuestionStatus, question_status
from debias.stats.common.vocabulary import describe
from debias.tables.columns import CI_HIGH, CI_LOW, NOTE, cluster_values, with_cluster_columns

__all__ = [
    "STATUS_COLUMNS",
    "ratings_outputs",
    "ratings_prompt",
    "ratings_status",
    "status_joint",
    "status_summary",
    "status_table",
]

#: Columns of the status table.
STATUS_COLUMNS = [
    "system",
    "versus",
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


def status_table(state, joint=None) -> pd.DataFrame:
    """The rows of a :class:`~debias.stats.common.status.QuestionStatus`, best first: one per
    system (``versus`` empty) and per contrast ``system - versus``, with its anytime-valid interval (``ci_low``,
    ``ci_high``), the votes behind it, whether it is resolved, what is settled in words
    (``status``), the further votes it needs (``more_votes``) and why there is no estimate or
    decision (``note``).

    ``joint`` is the joint estimate behind the status (:func:`status_joint`): when it rests on
    clustered data (its ``n_clusters`` set), each system's row also has its ``clusters`` and
    ``design_effect`` (empty on the contrasts' rows); otherwise the table has neither column."""
    with_clusters = joint is not None and joint.n_clusters is not None
    where = {name: k for k, name in enumerate(joint.systems)} if with_clusters else {}
    rows = [
        {
            "system": r.first,
            "versus": r.second,
            "estimate": r.estimate,
            CI_LOW: r.ci_low,
            CI_HIGH: r.ci_high,
            "votes": _count(r.votes),
            "resolved": r.resolved,
            "status": r.status,
            "more_votes": _count(r.more_votes),
            **(cluster_values(joint, where[r.first]) if not r.second and r.first in where else {}),
            NOTE: r.note,
        }
        for r in state.rows
    ]
    return with_cluster_columns(pd.DataFrame(rows), STATUS_COLUMNS, clustered=with_clusters)


def more_votes_words(state, what: str = "votes") -> str:
    """What a status says of the further ``what`` (``"votes"``, ``"judged items"``) it expects
    to need: about how many, or why it cannot say (a system without an estimate, and its note;
    for ``within:W`` the intervals still wider than W; else a gap of 0 or draws that never reach it)."""
    more = state.more_votes
    if np.isnan(more):
        note = next((r.note for r in state.rows if not np.isfinite(r.estimate) and r.note), "")
        return f"no estimate of the {what} still needed (a system without an estimate{': ' + note if note else ''})"
    if np.isinf(more) and state.question.kind == "within":
        wide = [r for r in state.rows if not r.resolved and np.isfinite(r.ci_high - r.ci_low)]
        half = max(((r.ci_high - r.ci_low) / 2 for r in wide), default=np.nan)
        widest = [r.first for r in wide if (r.ci_high - r.ci_low) / 2 >= half * (1 - 1e-9)]
        return (
            f"every interval must narrow to ±{state.question.width:g} (the widest is ±{half:.4g}: "
            f"{', '.join(widest[:5])}{', ...' if len(widest) > 5 else ''}), which takes more {what} of each open"
            " system; no total is given: debias next draws for the widest systems first and reaches the others"
            " only later"
        )
    if np.isinf(more):
        return (
            f"no number of {what} is expected to settle it (the {what} next would draw cannot reach a system"
            " still open)"
        )
    return f"about {int(np.ceil(more)):,} more {what} in all, drawn as debias next draws them (a plug-in guide)"


def status_summary(state) -> dict:
    """The answer and its settings, JSON-ready (infinite or unknown vote counts as null, with
    the reason in ``more_votes_note``)."""
    more = state.more_votes
    note = "" if np.isfinite(more) else more_votes_words(state)
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


def ratings_prompt(table, prompt: str | None) -> str:
    """The prompt a question on ratings is about: ``prompt``, or the ratings' only one; a
    :class:`~debias.stats.common.status.QuestionError` naming the prompts otherwise."""
    prompts = list(table.prompts)
    if prompt is None:
        if len(prompts) == 1:
            return prompts[0]
        named = ", ".join(prompts)
        raise QuestionError("", f"the ratings have {len(prompts)} prompts ({named}): name one", "for_prompt")
    if prompt not in prompts:
        raise QuestionError(prompt, f"no such prompt; the prompts: {', '.join(prompts)}", "for_prompt")
    return prompt


def ratings_status(
    table,
    question,
    *,
    level: float,
    estimator: str | None = None,
    prompt: str | None = None,
    optimal_at: float = OPTIMAL_AT,
) -> QuestionStatus:
    """The status of ``question`` on ratings (an :class:`~debias.io.reader.EvaluationTable`): the
    systems' mean scores on ``prompt`` (:func:`ratings_prompt`) by ``estimator`` (default
    :func:`debias.stats.ratings.default_estimator` of the ratings' metrics), their joint
    covariance from the items the systems share (:func:`debias.stats.ratings.ratings_estimates`),
    and the anytime-valid sequences of :func:`debias.stats.common.status.question_status`: the
    votes are judged items. A system without an estimate keeps a row with the reason. With
    ratings where a lower score is better, "better" and the top K are the lowest."""
    full = _ratings_joint(table, prompt, estimator, level)
    counts = full.n_judged
    if not table.higher_is_better:
        full = replace(full, estimate=-full.estimate, ci_low=-full.ci_high, ci_high=-full.ci_low)
    output_system, judged, _ = ratings_outputs(table, prompt)

    def shares(open_systems):  # where debias next would send the next judgments
        s = len(full.systems)
        if tuple(full.systems) != tuple(table.systems):  # not the table's systems: own votes
            return np.ones(s)
        eligible = ~judged & np.asarray(open_systems, dtype=bool)[output_system]
        if not eligible.any():
            return np.zeros(s)
        return np.bincount(output_system[eligible], minlength=s) / eligible.sum()

    state = question_status(
        full, question, level=level, optimal_at=optimal_at, n_votes=int(np.sum(counts)), shares=shares
    )
    if table.higher_is_better:
        return state
    rows = tuple(replace(r, estimate=-r.estimate, ci_low=-r.ci_high, ci_high=-r.ci_low) for r in state.rows)
    return replace(state, rows=rows)


def ratings_outputs(table, prompt: str | None):
    """``(output_system, judged, clusters)`` of a ratings table for a question on ``prompt``
    (:func:`ratings_prompt`): each output's system (an index into ``table.systems``), whether
    it has a judgment on that prompt, and its cluster number when items share documents
    (``None`` otherwise): what :func:`debias.stats.ratings.next_outputs` draws from."""
    from debias.stats.common.clusters import cluster_codes

    index = table.prompts.index(ratings_prompt(table, prompt))
    judged = np.zeros(len(table.output_system), dtype=bool)
    judged[table.judgment_output[table.judgment_prompt == index]] = True
    clusters = table.output_cluster
    if clusters is not None:  # items sharing documents: whole clusters arrive
        (codes,), n_clusters = cluster_codes(clusters)
        clusters = codes if n_clusters < codes.size else None
    return np.asarray(table.output_system, dtype=np.int64), judged, clusters


def _ratings_joint(table, prompt: str | None, estimator: str | None, level: float):
    """The joint estimate of the systems' mean scores on ``prompt`` by ``estimator`` (default
    :func:`debias.stats.ratings.default_estimator`) that a question on ratings reads."""
    from debias.stats.ratings import RATINGS, default_estimator
    from debias.tables.joined import iter_cells, join_evaluation_table
    from debias.tables.leaderboard import rated_systems

    prompt = ratings_prompt(table, prompt)
    metrics = list(table.metrics)
    estimator = default_estimator(metrics) if estimator is None else estimator
    try:
        info = describe(estimator)
    except ValueError as error:
        raise QuestionError(estimator, str(error), "estimator") from None
    if "ratings" not in info.family.shapes or info.check_only:
        expected = "not an estimator of ratings (mean, cv:<metric>, cv:combined, ppi++:<metric>)"
        raise QuestionError(estimator, expected, "estimator")
    if info.proxy is not None and info.proxy not in metrics:
        raise QuestionError(estimator, f"no metric {info.proxy!r}; the metrics: {metrics or 'none'}", "estimator")
    joined = join_evaluation_table(table, table.task)
    cells = [(system, outputs, judged) for _, system, _, outputs, judged in iter_cells(joined, {table.task: [prompt]})]
    data = rated_systems(cells, metrics)
    if estimator not in RATINGS.estimator_names(data):
        raise QuestionError(estimator, "no system has this estimate (PPI++ needs outputs nobody judged)", "estimator")
    (full,) = [r for r in RATINGS.estimates(data, level=level) if r.estimator == estimator]
    return full


def status_joint(data, state, *, ties: str = "half", prompt: str | None = None):
    """The joint estimate behind ``state`` (a status of ``data``: pairwise verdicts read by
    :func:`debias.read_pairs`, with ``ties``, or ratings read by :func:`debias.read_ratings`, on
    ``prompt``) when the data have clusters, for :func:`status_table`'s cluster columns; ``None``
    for data of independent judgments (then nothing is computed again)."""
    from debias.data import JudgedPairs

    if isinstance(data, JudgedPairs):
        if not data.clustered:
            return None
        from debias.stats.preferences import preference_estimates

        (joint,) = preference_estimates(
            data, level=state.level, ties=ties, estimands=(state.estimand,), estimators=(state.estimator,)
        )
        return joint
    if getattr(data, "item_cluster", None) is None:
        return None
    return _ratings_joint(data, prompt, state.estimator, state.level)
