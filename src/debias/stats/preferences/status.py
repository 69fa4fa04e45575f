r"""A question about pairwise preferences and its status: the battles' estimates fed to the
shared :func:`debias.stats.common.status.question_status`, the votes behind each contrast, the
estimator a status uses unless told, and the status as the votes arrived (:func:`status_path`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from debias.stats.common.intervals import check_level
from debias.stats.common.sequential import MIN_VOTES, OPTIMAL_AT
from debias.stats.common.status import Question, QuestionError, QuestionStatus, parse_question, question_status

__all__ = [
    "StatusPath",
    "arrival_order_note",
    "contrast_times",
    "default_estimator",
    "first_votes",
    "pairs_status",
    "status_path",
]


def default_estimator(judges) -> str:
    """The estimator a status uses unless told: PPI++ with every judge (two or more), with the
    one judge, or people alone."""
    from debias.stats.common.vocabulary import estimator_name

    judges = list(judges)
    if len(judges) >= 2:
        return estimator_name("ppi++")
    if judges:
        return estimator_name("ppi++", judges[0])
    return estimator_name("human")


def contrast_times(pairs, estimand: str, ties: str = "half") -> np.ndarray:
    """Votes behind each contrast (S, S): for win rates the battles with a human verdict of i or
    of j (a contrast's stream); for strengths every battle with a human verdict (the fit uses
    them all). With clustered battles (:attr:`~debias.data.JudgedPairs.clustered`) the clusters
    holding such battles: the cluster is what arrives. With ties left out (``ties="drop"``) the
    votes are the decisive battles (:func:`voted`): a tie moves nothing."""
    labelled = voted(pairs, ties)
    s = pairs.n_systems
    a, b = pairs.system_a[labelled], pairs.system_b[labelled]
    if pairs.clustered:
        codes = pairs.cluster_codes[labelled]
        n_clusters = pairs.n_clusters
        if estimand == "strength":
            return np.full((s, s), float(np.unique(codes).size))
        member = np.zeros((n_clusters, s), dtype=bool)
        member[codes, a] = member[codes, b] = True
        return (member[:, :, None] | member[:, None, :]).sum(axis=0).astype(float)
    if estimand == "strength":
        return np.full((s, s), float(labelled.sum()))
    n = np.bincount(a, minlength=s) + np.bincount(b, minlength=s)
    shared = np.zeros((s, s))
    np.add.at(shared, (a, b), 1.0)
    shared = shared + shared.T
    return (n[:, None] + n[None, :] - shared).astype(float)


def voted(pairs, ties: str = "half") -> np.ndarray:
    """The battles that are votes (B,): those with a human verdict, and with ties left out
    (``ties="drop"``) those with a decisive one (a battle whose verdicts are all ties moves
    nothing)."""
    labelled = pairs.labelled
    if ties == "drop":
        labelled = labelled & (np.nan_to_num(pairs.human_share(0.5), nan=1.0) < 1.0)
    return labelled


def pairs_status(
    pairs,
    question,
    *,
    level: float,
    estimand: str = "win_rate",
    estimator: str | None = None,
    ties: str = "half",
    optimal_at: float = OPTIMAL_AT,
) -> QuestionStatus:
    """:func:`question_status` of battles (:class:`~debias.data.JudgedPairs`): ``estimand``
    ``win_rate`` or ``strength`` by ``estimator`` (default :func:`default_estimator`)."""
    from debias.stats.common.vocabulary import describe
    from debias.stats.preferences.battles import Battles, resolve
    from debias.stats.preferences.estimands import ESTIMANDS

    check_level(level)
    if estimand not in ESTIMANDS:
        raise QuestionError(estimand, f"unknown estimand; available: {list(ESTIMANDS)}", "estimand")
    question = parse_question(question).check(pairs.systems)
    estimator = default_estimator(pairs.judges) if estimator is None else estimator
    try:
        biased = describe(estimator).biased
    except ValueError:
        biased = False
    if biased:
        raise QuestionError(
            estimator, "rests on a judge alone: it says nothing about people; use human or ppi++", "estimator"
        )
    try:
        resolve(estimator, pairs.judges)
    except ValueError as error:
        raise QuestionError(estimator, str(error), "estimator") from None
    if not pairs.labelled.any():
        raise ValueError("no battle has a human verdict: nothing to say about people yet")
    joint = ESTIMANDS[estimand](Battles.of(pairs, ties, pool_weighted=True), estimator, level=level, ties=ties)
    times = contrast_times(pairs, estimand, ties)

    def shares(open_systems):  # where debias next would send the next votes
        from debias.stats.preferences.allocation import stream_shares

        return stream_shares(pairs, open_systems)

    return question_status(
        joint,
        question,
        level=level,
        optimal_at=optimal_at,
        times=times,
        n_votes=int(voted(pairs, ties).sum()),
        shares=shares,
    )


@dataclass(frozen=True, eq=False)
class StatusPath:
    """A question's sequences as the votes arrived: the status at each of L looks over the
    battles with a human verdict in the order of the table (of its order column, when given).

    ``votes`` (L,): votes at each look (clusters, with clustered battles); ``estimate``,
    ``ci_low``, ``ci_high`` (L, S): each system's estimate and anytime-valid interval (all S
    together); ``contrast`` (L, 3) for ``better``: the estimate and interval of A - B (NaN
    otherwise); ``resolved`` (L,): the question settled at that look, or at an earlier one (a
    decision is kept once taken); ``status``: the last look's; ``note``: why the table's order
    may not be an order of arrival (:func:`arrival_order_note`), ``""`` otherwise."""

    question: Question
    systems: tuple[str, ...]
    votes: np.ndarray
    estimate: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    contrast: np.ndarray
    resolved: np.ndarray
    status: QuestionStatus
    note: str = ""


def arrival_order_note(pairs) -> str:
    r"""Why the order the path reads the votes in may not be the order they arrived (``""`` when
    nothing says so).

    Without an order column the path reads the battles with a human verdict in the order of the
    table, as if they had arrived in that order. A table sorted by pair of systems, or by first
    system, reads as votes that came one pair (or one system) at a time, and the votes at which
    the question settled then say little about a study that samples at random. Consecutive
    votes share their pair (their first system) about as often as two votes drawn at random do,
    :math:`\sum_k p_k^2` with :math:`p_k` the shares; well above it, the note names the key. A
    table with a cluster column sorted by it (the questions or categories arriving in the order
    of their names) is the same: the clusters as they first come (with clustered battles the
    path's units) follow their names' order, as text or with the numbers in them read as
    numbers, at nine steps in ten or more of at least ten clusters, where a random order would
    take about one step in two.

    With an order column (:attr:`~debias.data.JudgedPairs.arrival`) the order is the table's
    statement and is not second-guessed; but when more than half the votes share their value
    with the vote before, the order column leaves most of the order to the table, and the note
    says so."""
    labelled = pairs.labelled
    if labelled.sum() < 10:
        return ""
    tail = (
        ": the path reads the rows in this order as the order the votes arrived, so the votes at which it settles"
        " describe that order; shuffle the rows, sort them by when the votes came, or name the column that says"
        " when (order)"
    )
    arrival = getattr(pairs, "arrival", None)
    if arrival is not None:
        when = arrival[labelled]
        tied = float(np.mean(when[1:] == when[:-1]))
        if tied > 0.5:
            return (
                f"{tied:.0%} of the votes share their place in the order column with the vote before: the path reads"
                " votes of equal order in the table's order, so the votes at which it settles describe that order"
                " as much as the order column's; give the order column a finer value (a time to the second, a"
                " sequence number)"
            )
        return ""
    a, b = pairs.system_a[labelled], pairs.system_b[labelled]
    low, high = np.minimum(a, b), np.maximum(a, b)
    keys = {"pair of systems": low * pairs.n_systems + high, "first system": a}
    for what, key in keys.items():
        adjacent = float(np.mean(key[1:] == key[:-1]))
        shares = np.bincount(key) / key.size
        chance = float(shares @ shares)
        if adjacent > max(2.0 * chance, chance + 0.3):
            return (
                f"the table's rows look sorted by {what} ({adjacent:.0%} of consecutive votes share it, against"
                f" {chance:.0%} in a random order){tail}"
            )
    in_order = _names_in_order(pairs.clusters[labelled]) if pairs.clusters is not None else None
    if in_order is not None and in_order >= 0.9:
        return (
            f"the table's rows look sorted by cluster ({in_order:.0%} of the clusters, as they first come, follow"
            f" the one before in the order of their names, against about 50% in a random order){tail}"
        )
    return ""


def _names_in_order(labels) -> float | None:
    """The share of the steps between distinct names, in order of first appearance, that keep
    the names' order (rising or falling, as text or with their numbers read as numbers,
    whichever is most); ``None`` with fewer than ten names."""
    import re

    labels = np.asarray(labels, dtype=str)
    first = np.sort(np.unique(labels, return_index=True)[1])
    names = labels[first].tolist()
    if len(names) < 10:
        return None

    def natural(name: str):
        return [(int(part), "") if part.isdigit() else (-1, part) for part in re.findall(r"\d+|\D+", name)]

    best = 0.0
    for key in (str, natural):
        keys = [key(name) for name in names]
        rising = sum(x < y for x, y in zip(keys, keys[1:])) / (len(keys) - 1)
        best = max(best, rising, 1.0 - rising)
    return best


def arrived(pairs) -> int:
    """What has arrived: the battles with a human verdict, or with clustered battles the clusters
    holding one (:attr:`~debias.data.JudgedPairs.clustered`)."""
    if pairs.clustered:
        return int(np.unique(pairs.cluster_codes[pairs.labelled]).size)
    return int(pairs.labelled.sum())


def first_votes(pairs, t: int):
    """``pairs`` with only the first ``t`` battles that have a human verdict keeping it (the
    others join the pool): the data as it stood after t votes, the battles' order being the
    order of arrival (with an order column, :attr:`~debias.data.JudgedPairs.arrival`, the
    reader has sorted them by it). With clustered battles, the
    battles of the first t clusters to hold a human verdict (a cluster arrives whole)."""
    from debias.data import JudgedPairs

    order = np.flatnonzero(pairs.labelled)
    keep = np.zeros(pairs.n_battles, dtype=bool)
    if pairs.clustered:
        codes = pairs.cluster_codes
        first = np.unique(codes[order], return_index=True)[1]
        arrived_first = codes[order][np.sort(first)][:t]
        keep = pairs.labelled & np.isin(codes, arrived_first)
    else:
        keep[order[:t]] = True
    counts = np.where(keep, pairs.human_counts, 0)
    verdicts = pairs.human[np.repeat(keep, pairs.human_counts)]
    return JudgedPairs(
        pairs.systems,
        pairs.system_a,
        pairs.system_b,
        verdicts,
        counts,
        pairs.judges,
        pairs.judge_verdicts,
        pairs.items,
        pairs.judge_unknown,
        pairs.task,
        pairs.clusters,
        pairs.arrival,
        pairs.covariates,
        pairs.facets,
    )


def status_path(
    pairs,
    question,
    *,
    level: float,
    looks: int = 20,
    estimand: str = "win_rate",
    estimator: str | None = None,
    ties: str = "half",
    optimal_at: float = OPTIMAL_AT,
) -> StatusPath:
    """:func:`pairs_status` at ``looks`` looks spread evenly over the battles with a human
    verdict, in the order of the table, or of its order column when it had one (the first look
    after :data:`MIN_VOTES` votes; with clustered battles, looks at whole clusters,
    :func:`first_votes`)."""
    if isinstance(looks, bool) or not isinstance(looks, int | np.integer) or looks < 1:
        raise ValueError(f"looks must be a whole number >= 1, got {looks!r}")
    n = arrived(pairs)
    if n == 0:
        raise ValueError("no battle has a human verdict: nothing to say about people yet")
    start = min(n, MIN_VOTES)
    votes = np.unique(np.rint(np.linspace(start, n, looks)).astype(np.int64))
    question = parse_question(question).check(pairs.systems)
    s = pairs.n_systems
    estimate, low, high = (np.full((votes.size, s), np.nan) for _ in range(3))
    contrast = np.full((votes.size, 3), np.nan)
    resolved = np.zeros(votes.size, dtype=bool)
    state = None
    for look, t in enumerate(votes):
        state = pairs_status(
            first_votes(pairs, int(t)) if t < n else pairs,
            question,
            level=level,
            estimand=estimand,
            estimator=estimator,
            ties=ties,
            optimal_at=optimal_at,
        )
        rows = {r.first: r for r in state.rows if not r.second}
        for i, name in enumerate(pairs.systems):
            if name in rows:
                row = rows[name]
                estimate[look, i], low[look, i], high[look, i] = row.estimate, row.ci_low, row.ci_high
        if question.kind == "better":
            row = state.rows[0]
            contrast[look] = (row.estimate, row.ci_low, row.ci_high)
        resolved[look] = state.resolved or (look > 0 and resolved[look - 1])
    return StatusPath(
        question, pairs.systems, votes, estimate, low, high, contrast, resolved, state, arrival_order_note(pairs)
    )
