r"""A question about the systems and its status now: what the confidence sequences settle.

Questions (:func:`parse_question`):

``better:A,B``
    Is A better than B? One contrast, tested alone (the whole :math:`\alpha` on it).
``top:K``
    Which are the top K? Settled when K systems are each surely better than S - K others
    (their rank-sets' upper ends at most K); every pairwise contrast tested together.
``ranks``
    Every system's rank: settled when every rank-set is a single rank.
``within:W``
    Every system's score within :math:`\pm W`: settled when every system's sequence (all S
    together) has a half-width at most W.

Rank-sets come from the pairwise sequences of :func:`debias.stats.common.sequential.contrast_sequences`
(a union bound over the contrasts) as :func:`debias.stats.common.ranking.rank_bounds` forms them.
Because every sequence holds at every look at once, what is settled at one look stays valid
later; a status is one look (it keeps no history, so a decision seen at an earlier look is
still valid even if the current interval reaches back over 0). "Unresolved so far" is an
answer: the data do not settle it yet at this level. The votes still needed are a plug-in
guide (:func:`plan_votes`).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, replace

import numpy as np

from debias.stats.common.intervals import check_level
from debias.stats.common.joint import JointEstimate
from debias.stats.common.sequential import (
    MIN_VOTES,
    OPTIMAL_AT,
    ConfidenceSequence,
    check_optimal_at,
    contrast_sequences,
    system_sequences,
    votes_to_resolve,
)

__all__ = [
    "BudgetError",
    "best_first",
    "draw_next",
    "KINDS",
    "Question",
    "QuestionError",
    "QuestionStatus",
    "StatusRow",
    "parse_question",
    "plan_votes",
    "question_status",
    "ranked_rows",
]

#: The kinds of question and how each is written.
KINDS = {"better": "better:A,B", "top": "top:K", "ranks": "ranks", "within": "within:W"}


class QuestionError(ValueError):
    """A question (or the estimand or estimator to answer it with) that cannot be asked of these
    systems: ``option`` names which, ``text`` is what was given."""

    def __init__(self, text, message: str, option: str = "question"):
        self.text = str(text)
        self.message = message
        self.option = option
        super().__init__(f"{option} {text}: {message}")


@dataclass(frozen=True)
class Question:
    """A question about the systems (module notes): ``kind`` one of :data:`KINDS`; ``systems``
    (A, B) for ``better``; ``k`` for ``top``; ``width`` (the half-width W) for ``within``."""

    kind: str
    systems: tuple[str, ...] = ()
    k: int = 0
    width: float = 0.0

    @property
    def text(self) -> str:
        if self.kind == "better":
            return f"better:{self.systems[0]},{self.systems[1]}"
        if self.kind == "top":
            return f"top:{self.k}"
        if self.kind == "within":
            return f"within:{self.width:g}"
        return "ranks"

    def check(self, systems) -> Question:
        """The question with its systems named as ``systems`` spell them (a name written in
        another Unicode normalisation is the table's name, :func:`debias.io.rules.find_name`);
        a question about a system not in ``systems``, or a K out of range, is refused."""
        from debias.data import find_name, shown_name, shown_names

        systems = list(systems)
        if self.kind == "top" and not 1 <= self.k < len(systems):
            raise QuestionError(self.text, f"K must be between 1 and {len(systems) - 1} for {len(systems)} systems")
        if self.kind != "better":
            return self
        found = []
        for name in self.systems:
            spelled = find_name(name, systems)
            if spelled is None:
                raise QuestionError(
                    self.text, f"unknown system {shown_name(name)}; the systems: {shown_names(systems)}"
                )
            found.append(spelled)
        if found[0] == found[1]:
            raise QuestionError(self.text, "name two different systems")
        return replace(self, systems=tuple(found))


def parse_question(text) -> Question:
    """A question from its written form (:data:`KINDS`); a :class:`QuestionError` (a
    ``ValueError``) saying what was expected otherwise."""
    if isinstance(text, Question):
        return text
    if not isinstance(text, str) or not text.strip():
        raise QuestionError(text, f"expected one of {', '.join(KINDS.values())}")
    kind, _, rest = text.strip().partition(":")
    kind = kind.strip().lower()
    if kind == "ranks" and not rest:
        return Question("ranks")
    if kind == "better":
        try:  # a name holding a comma is quoted: better:"x, y",z
            names = [x.strip() for x in next(csv.reader([rest], skipinitialspace=True))]
        except (csv.Error, StopIteration):
            names = []
        if len(names) != 2 or not all(names):
            raise QuestionError(
                text,
                "expected better:A,B (two system names separated by a comma; quote a name holding a comma:"
                ' better:"x, y",z)',
            )
        if names[0] == names[1]:
            raise QuestionError(text, "name two different systems")
        return Question("better", systems=(names[0], names[1]))
    if kind == "top":
        try:
            k = int(rest)
        except ValueError:
            raise QuestionError(text, "expected top:K with K a whole number >= 1") from None
        if k < 1:
            raise QuestionError(text, "expected top:K with K a whole number >= 1")
        return Question("top", k=k)
    if kind == "within":
        try:
            width = float(rest)
        except ValueError:
            raise QuestionError(text, "expected within:W with W a number > 0") from None
        if not (np.isfinite(width) and width > 0):
            raise QuestionError(text, "expected within:W with W a number > 0")
        return Question("within", width=width)
    raise QuestionError(text, f"unknown question; expected one of {', '.join(KINDS.values())}")


@dataclass(frozen=True)
class StatusRow:
    """One part of the answer: a system (``second`` empty) or a contrast ``first - second``.

    ``estimate``, ``ci_low``, ``ci_high``: the estimate and its anytime-valid interval; ``votes``:
    the votes behind it; ``resolved`` and ``status`` (what is settled, in words);
    ``more_votes``: the further votes the plug-in guide (:func:`plan_votes`) expects this row
    alone to need, counted in all the votes of the next batches when the status knows where they
    go (``shares`` of :func:`question_status`), else in its own (0 when resolved, ``inf`` when the
    batches never reach it, NaN when it cannot say);
    ``note``: why there is no estimate or no decision."""

    first: str
    second: str
    estimate: float
    ci_low: float
    ci_high: float
    votes: float
    resolved: bool
    status: str
    more_votes: float
    note: str = ""


@dataclass(frozen=True)
class QuestionStatus:
    """The status of a question now.

    Attributes
    ----------
    question : Question
    resolved : bool
        The whole question is settled.
    answer : str
        The answer in words ("unresolved so far" when it is not settled).
    rows : tuple of StatusRow
        Per system (and per contrast still open, or the one asked about).
    more_votes : float
        The further votes, in all, that a plan feeding the rows the next votes go to would buy
        (:func:`plan_votes`; 0 when resolved): for ``top:K`` the open pairs with one system
        inside the estimated top K and one outside (those that confirm it), otherwise every
        open row.
    level, optimal_at : float
        Simultaneous level of the sequences and their :math:`t^\\star`.
    estimand, estimator : str
    n_votes : int
        Votes (battles with a human verdict) behind the status.
    open_pairs : numpy.ndarray of bool, shape (S, S)
        Pairs of systems still open that matter to the question (symmetric): their contrasts
        are among the rows.
    systems : tuple of str
    open_systems : numpy.ndarray of bool, shape (S,)
        Systems whose battles the next votes go to first: those in an open pair, or for
        ``top:K`` the two of its most ambiguous contrast and for ``within:W`` the widest open
        systems.
    """

    question: Question
    resolved: bool
    answer: str
    rows: tuple[StatusRow, ...]
    more_votes: float
    level: float
    optimal_at: float
    estimand: str
    estimator: str
    n_votes: int
    open_pairs: np.ndarray
    systems: tuple[str, ...]
    open_systems: np.ndarray | None = None

    def __post_init__(self):
        if self.open_systems is None:
            object.__setattr__(self, "open_systems", np.asarray(self.open_pairs, dtype=bool).any(axis=1))


def _row(first, second, cs: ConfidenceSequence, index, resolved, status, more, note="") -> StatusRow:
    return StatusRow(
        first,
        second,
        float(cs.estimate[index]),
        float(cs.ci_low[index]),
        float(cs.ci_high[index]),
        float(cs.n[index]),
        bool(resolved),
        status,
        float(more),
        note,
    )


def question_status(
    joint: JointEstimate,
    question,
    *,
    level: float,
    optimal_at: float = OPTIMAL_AT,
    times=None,
    n_votes: int | None = None,
    shares=None,
) -> QuestionStatus:
    """The status of ``question`` (:func:`parse_question`) from one estimator's estimates.

    Parameters
    ----------
    joint : JointEstimate
        Win rates, strengths or mean ratings of the systems, with their joint covariance.
    question : str or Question
    level : float
        Simultaneous coverage of the sequences the question uses, at every look.
    optimal_at : float
        :math:`t^\\star` of the sequences (fixed in advance).
    times : array_like, shape (S, S), optional
        Votes behind each contrast (default
        :func:`~debias.stats.common.sequential.contrast_sequences`'s).
    n_votes : int, optional
        Total votes, for the record (default half the sum of ``joint.n_judged``).
    shares : callable, optional
        ``shares(open_systems) -> system_share (S,)``: the share of each next vote, sent to the
        battles (outputs) of the systems ``open_systems`` marks, that lands in each system's
        battles. With it, ``more_votes`` counts all the votes of the next batches
        (:func:`plan_votes`); without, a row's own votes.

    Returns
    -------
    QuestionStatus
    """
    check_level(level)
    optimal_at = check_optimal_at(optimal_at)
    question = parse_question(question).check(joint.systems)
    systems = joint.systems
    s = len(systems)
    alpha = 1.0 - level
    n_votes = int(np.sum(joint.n_judged) // 2) if n_votes is None else int(n_votes)
    notes = tuple(joint.notes)
    # what arrives, one at a time: a cluster, a judged item of ratings (their mean), a vote
    unit = "clusters" if joint.n_clusters is not None else "judged items" if joint.estimand == "mean" else "votes"
    each = _bounded(
        system_sequences(joint, level=level, optimal_at=optimal_at, simultaneous=question.kind != "better"),
        joint.estimand,
        1.0,
    )
    open_pairs = np.zeros((s, s), dtype=bool)

    if question.kind == "within":
        half = each.half_width
        alpha_each = alpha / s
        sd = each.se * np.sqrt(each.n)
        needed = votes_to_resolve(question.width, sd, each.n, alpha=alpha_each, optimal_at=optimal_at)
        estimated = np.isfinite(half)
        ok = estimated & (half <= question.width) & (each.n >= MIN_VOTES)
        open_systems = ~ok
        own = np.where(ok, 0.0, np.maximum(needed - each.n, 1.0))  # each system's own further votes
        resolved = not open_systems.any()
        # the next votes go to the widest: the open systems that need at least half what the
        # neediest one needs (and those without an estimate), the others settle on the way
        widest = open_systems & ~estimated
        finite = open_systems & estimated & np.isfinite(own)
        if finite.any():
            widest |= finite & (own >= own[finite].max() / 2.0)
        widest |= open_systems & estimated & ~np.isfinite(own)
        if open_systems.any() and not widest.any():
            widest = open_systems
        open_pairs = widest[:, None] | widest[None, :]
        np.fill_diagonal(open_pairs, False)
        share = _system_shares(shares, widest, s)
        rows = []
        for i, name in enumerate(systems):
            if not estimated[i]:
                rows.append(_row(name, "", each, i, False, "no estimate", np.nan, notes[i] or "no interval"))
                continue
            status = f"within ±{question.width:g}" if ok[i] else f"±{half[i]:.4g}: unresolved so far"
            note = "" if ok[i] or each.n[i] >= MIN_VOTES else f"fewer than {MIN_VOTES} {unit}"
            alone = np.where(np.arange(s) == i, own[i], 0.0)
            rows.append(_row(name, "", each, i, ok[i], status, plan_votes(alone, share), note))
        answer = (
            f"every system within ±{question.width:g}"
            if resolved
            else f"unresolved so far: {int(open_systems.sum())} of {s} systems not yet within ±{question.width:g}"
        )
        more = plan_votes(np.where(estimated, own, np.nan), share)
        return _result(question, resolved, answer, rows, level, optimal_at, joint, n_votes, open_pairs, more, widest)

    live = None
    if question.kind == "better":
        a, b = systems.index(question.systems[0]), systems.index(question.systems[1])
        live = np.zeros((s, s), dtype=bool)
        live[a, b] = live[b, a] = True
    contrasts = contrast_sequences(joint, level=level, optimal_at=optimal_at, times=times, live=live)
    cs, better = _bounded(contrasts.sequence, joint.estimand, 2.0), contrasts.better
    position = {(int(i), int(j)): p for p, (i, j) in enumerate(zip(contrasts.first, contrasts.second))}

    def table(pairs) -> _Pending:
        return _pending(pairs, cs, position, joint.arrivals, alpha=alpha, optimal_at=optimal_at)

    def contrast_row(pending: _Pending, e: int, share) -> StatusRow:
        i, j, p = int(pending.first[e]), int(pending.second[e]), int(pending.position[e])
        est, low, high = pending.estimate[e], pending.low[e], pending.high[e]
        decided = better[i, j] or better[j, i]
        if np.isnan(est):
            without = [k for k in (i, j) if not np.isfinite(joint.covariance[k, k])]  # whose interval is missing
            note = next((notes[k] for k in without if notes[k]), "") or notes[i] or notes[j] or "no estimate"
            return StatusRow(systems[i], systems[j], est, low, high, float(cs.n[p]), False, "no estimate", np.nan, note)
        if decided:
            status = f"{systems[i]} better" if better[i, j] else f"{systems[j]} better"
            more = 0.0
        else:
            status = "unresolved so far"
            more = plan_votes(pending.need[e], share)
        few = min(cs.n[p], joint.arrivals[i], joint.arrivals[j]) < MIN_VOTES
        note = f"fewer than {MIN_VOTES} {unit} of a system: nothing is declared yet" if few else ""
        return StatusRow(
            systems[i], systems[j], float(est), float(low), float(high), float(cs.n[p]), bool(decided), status,
            float(more), note,
        )  # fmt: skip

    if question.kind == "better":
        open_pairs[a, b] = open_pairs[b, a] = True
        pending = table(open_pairs)
        row = contrast_row(pending, 0, _system_shares(shares, open_pairs.any(axis=1), s))
        if a > b:  # as asked: A - B
            row = replace(row, first=row.second, second=row.first, estimate=-row.estimate, ci_low=-row.ci_high,
                          ci_high=-row.ci_low)  # fmt: skip
        resolved = row.resolved
        if resolved:
            open_pairs[:] = False
        answer = row.status if resolved else f"unresolved so far: {systems[a]} vs {systems[b]}"
        return _result(question, resolved, answer, [row], level, optimal_at, joint, n_votes, open_pairs, row.more_votes)

    rank_low, rank_high = contrasts.rank_bounds()
    estimable = np.isfinite(joint.estimate)
    rows = []
    pending = None  # one table of the open contrasts: their rows, where the next votes go, the guide
    targets = None  # the systems the next votes go to (default: every system of an open pair)
    fed = None  # the open contrasts whose needs the votes guide adds up (default: all)
    if question.kind == "top":
        k = question.k
        surely_in = (rank_high <= k) & estimable
        surely_out = (rank_low > k) & estimable
        resolved = int(surely_in.sum()) == k
        undecided = ~surely_in & ~surely_out
        for i, name in enumerate(systems):
            if not estimable[i]:
                status = "no estimate"
            elif surely_in[i]:
                status = f"in the top {k}"
            elif surely_out[i] or resolved:
                status = f"not in the top {k}"
            else:
                status = "unresolved so far"
            rows.append(_system_row(name, each, i, surely_in[i] or surely_out[i] or resolved, status, notes[i]))
        if not resolved:
            # contrasts still open that touch a system whose membership is undecided
            # (a system without an estimate stays undecided: its battles are what it needs)
            touch = undecided[:, None] | undecided[None, :]
            pending_pairs = touch & ~(better | better.T)
            np.fill_diagonal(pending_pairs, False)
            # the open pairs that straddle the estimated top K (one inside, one outside) must all
            # be settled for that set to be confirmed: the next votes go there, and the votes
            # needed are theirs (a pair inside the top K, or outside it, settles nothing)
            inside = np.zeros(s, dtype=bool)
            inside[np.argsort(-np.where(estimable, joint.estimate, -np.inf), kind="stable")[:k]] = True
            straddle = pending_pairs & (inside[:, None] != inside[None, :])
            open_pairs = straddle if straddle.any() else pending_pairs
            pending = table(open_pairs)
            focus = _most_ambiguous(pending, inside)  # the next votes go there, batch after batch
            if focus.any():
                targets = focus
            fed = inside[pending.first] != inside[pending.second]  # all of them when none straddles
            fed = fed if fed.any() else None
        ranked = np.flatnonzero(surely_in)  # best first: a list of names reads as a ranking
        ranked = ranked[np.argsort(-joint.estimate[ranked], kind="stable")]
        top = [systems[i] for i in ranked]
        answer = (
            f"top {k}: {', '.join(top)}"
            if resolved
            else f"unresolved so far: {len(top)} of {k} settled" + (f" ({', '.join(top)})" if top else "")
        )
    else:  # ranks
        single = (rank_low == rank_high) & estimable
        resolved = bool(single.all())
        for i, name in enumerate(systems):
            if not estimable[i]:
                status = "no estimate"
            elif single[i]:
                status = f"rank {int(rank_low[i])}"
            else:
                status = f"ranks {int(rank_low[i])}-{int(rank_high[i])}: unresolved so far"
            rows.append(_system_row(name, each, i, single[i], status, notes[i]))
        if not resolved:
            pending_pairs = ~(better | better.T)
            np.fill_diagonal(pending_pairs, False)
            open_pairs = pending_pairs
            pending = table(open_pairs)
        answer = (
            "every rank settled"
            if resolved
            else f"unresolved so far: {int((~single).sum())} of {s} systems without a single rank"
        )
    more = None
    if pending is not None and pending.first.size:
        share = _system_shares(shares, open_pairs.any(axis=1) if targets is None else targets, s)
        rows += [contrast_row(pending, e, share) for e in range(pending.first.size)]
        known = np.isfinite(pending.estimate) & (True if fed is None else fed)
        if known.any():  # each system's hardest fed contrast, the votes of the next batches in all
            more = plan_votes(np.max(pending.need[known], axis=0), share)
    return _result(question, resolved, answer, rows, level, optimal_at, joint, n_votes, open_pairs, more, targets)


@dataclass(frozen=True, eq=False)
class _Pending:
    """The open contrasts of a status, one entry per pair (``first`` < ``second``): its
    ``position`` among the sequences, the estimate and interval of first - second, and ``need``
    (P, S): the further votes of its own each system would need for the contrast to settle at
    its estimated gap (:func:`_contrast_needs`)."""

    first: np.ndarray
    second: np.ndarray
    position: np.ndarray
    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    need: np.ndarray


def _pending(open_pairs, cs: ConfidenceSequence, position, arrivals, *, alpha, optimal_at) -> _Pending:
    first, second = np.nonzero(np.triu(open_pairs, 1))
    where = np.array([position[(int(i), int(j))] for i, j in zip(first, second)], dtype=np.int64)
    need = _contrast_needs(
        first, second, cs.estimate[where], cs.se[where], cs.n[where], arrivals,
        alpha=alpha / cs.tests, optimal_at=optimal_at, n_systems=np.asarray(open_pairs).shape[0],
    )  # fmt: skip
    return _Pending(first, second, where, cs.estimate[where], cs.ci_low[where], cs.ci_high[where], need)


def _contrast_needs(first, second, gap, se, t, arrivals, *, alpha, optimal_at: float = OPTIMAL_AT, n_systems: int):
    r"""Each system's further votes of its own (P, S) for each contrast ``first - second`` to
    settle: the sequence, whose standard error is ``se`` after ``t`` votes, excludes 0 after
    :math:`t'` votes at the gap :math:`\sqrt{\hat g^2 + 	ext{se}^2}`
    (:func:`~debias.stats.common.sequential.votes_to_resolve`, its precision growing as
    :math:`t'/t`); each of its two systems then needs its own votes (``arrivals``) to grow in
    that proportion, :math:`a_i (t' - t)/t` more (at least 1 between them). Zero for the other
    systems; NaN where there is no estimate.

    The gap plugged in is the root of the gap's mean square given its estimate :math:`\hat g`
    (with a flat prior, :math:`\hat g^2 + 	ext{se}^2`), not :math:`|\hat g|`: the contrasts
    still open are mostly those whose estimated gap came out too small, and a system's need
    rests on the smallest of several, so :math:`|\hat g|` overstates the votes (about twofold
    for ``top:3`` on the synthetic benchmark, ``benchmarks/RESULTS.md``); it also keeps the
    guide finite at an estimated gap of 0."""
    first, second = np.asarray(first, dtype=np.int64), np.asarray(second, dtype=np.int64)
    t = np.maximum(np.asarray(t, dtype=float), 1.0)
    se = np.asarray(se, dtype=float)
    gap = np.sqrt(np.asarray(gap, dtype=float) ** 2 + se**2)
    needed = votes_to_resolve(gap, se * np.sqrt(t), t, alpha=alpha, optimal_at=optimal_at)
    grow = np.maximum(needed - t, 1.0) / t  # NaN and inf pass through
    own = np.maximum(np.asarray(arrivals, dtype=float), 1.0)
    need = np.zeros((first.size, n_systems))
    rows = np.arange(first.size)
    with np.errstate(invalid="ignore"):
        need[rows, first] = own[first] * grow
        need[rows, second] = own[second] * grow
    return need


def plan_votes(need, share=None) -> float:
    r"""The votes, in all, that a plan feeding the rows the next votes go to would buy.

    ``need`` (S,): the further votes of its own each system needs for those rows to settle at
    their estimated gaps (0 for a system they leave alone; NaN, unknown, is left out);
    ``share`` (S,): the share of each next vote that lands in a system's battles (or outputs),
    where the next votes go now; ``None`` when that is not known: then each system counts its
    own votes and the plan is the largest need. The next votes go, batch after batch, to the systems still in
    need. A vote now gives :math:`r = \sum_{i:\,n_i>0} s_i` system-votes to the systems in need
    (a battle of two of them feeds both); as they settle, the second system of a battle is ever
    less often one in need, so over the plan a vote gives on average :math:`\min(r, (1 + r)/2)`
    (what is above one falling to none as the needs are met). No vote feeds one system twice:

    .. math::

        T = \max\Big(\frac{\sum_i n_i}{\min(r, (1 + r)/2)},\ \max_i n_i\Big).

    0 when nothing is needed, ``inf`` when a need is infinite or the next votes reach none of
    the systems in need, NaN when every need is unknown. A plug-in guide: advice on how many
    votes to budget, not part of any interval."""
    need = np.asarray(need, dtype=float)
    known = ~np.isnan(need)
    if not known.any():
        return float("nan")
    if share is None:  # each system in its own votes
        need = need[known]
        return float(np.ceil(need.max())) if (need > 0).any() else 0.0
    need, share = need[known], np.broadcast_to(np.asarray(share, dtype=float), known.shape)[known]
    needy = need > 0
    if not needy.any():
        return 0.0
    if np.isinf(need).any():
        return float("inf")
    reach = float(share[needy].sum())
    if reach <= 0:
        return float("inf")
    return float(np.ceil(max(need.sum() / min(reach, (1.0 + reach) / 2.0), need.max())))


def _most_ambiguous(pending: _Pending, inside) -> np.ndarray:
    """For ``top:K``, the two systems whose votes decide soonest whether the estimated top K
    holds: those of the open contrast between a system inside it and one outside whose
    interval's lower end (inside minus outside) is lowest, the contrast furthest from settled.
    This is LUCB's choice (Kalyanakrishnan, Tewari, Auer and Stone 2012) read off the
    contrasts that decide the question rather than off each system's own interval."""
    focus = np.zeros(len(inside), dtype=bool)
    straddle = inside[pending.first] != inside[pending.second]
    low = np.where(inside[pending.first], pending.low, -pending.high)  # of inside minus outside
    low = np.where(straddle & np.isfinite(low), low, np.inf)
    if low.size and np.isfinite(low.min()):
        e = int(np.argmin(low))
        focus[[pending.first[e], pending.second[e]]] = True
    return focus


def _system_shares(shares, open_systems, s: int) -> np.ndarray | None:
    """The share of each next vote that lands in each system's battles (S,), from the callable
    ``shares`` given the systems the votes go to (``None`` without one: each row counts its own
    votes, :func:`plan_votes`)."""
    if shares is None:
        return None
    return np.asarray(shares(np.asarray(open_systems, dtype=bool)), dtype=float)


def _bounded(cs: ConfidenceSequence, estimand: str, width: float) -> ConfidenceSequence:
    """A win rate's sequence clipped to [0, 1] (a difference of two: [-1, 1]); the truth lies
    there, so the clipped interval covers whenever the unclipped one does. The estimate is
    clipped too (PPI++ can step outside with few human battles): a win rate printed outside its
    own interval reads as an error, and the clipped one is never farther from the truth."""
    if estimand != "win_rate":
        return cs
    low, high = (0.0, 1.0) if width == 1.0 else (-1.0, 1.0)
    return replace(
        cs,
        estimate=np.clip(cs.estimate, low, high),
        ci_low=np.clip(cs.ci_low, low, high),
        ci_high=np.clip(cs.ci_high, low, high),
    )


def _system_row(name, each: ConfidenceSequence, i, resolved, status, note) -> StatusRow:
    """A system's row for top/ranks: its own sequence (all S together) and no votes guide (the
    open contrasts carry it)."""
    return _row(name, "", each, i, resolved, status, 0.0 if resolved else np.nan, note)


def best_first(estimate, names=None) -> np.ndarray:
    """The order of ``estimate`` highest first, those without a finite one last; equal ones in
    the order of ``names`` (given), else as they stand."""
    key = -np.where(np.isfinite(estimate), estimate, -np.inf)
    if names is None:
        return np.argsort(key, kind="stable")
    return np.lexsort((np.asarray(names, dtype=str), key))


def ranked_rows(rows, estimate, systems, keep_orientation: bool = False) -> tuple[StatusRow, ...]:
    """The rows best first: the systems' rows by estimate (highest first, those without one
    last), then the contrasts', each written better-estimated system first (its estimate then
    at least 0; ``keep_orientation`` keeps them as asked) and ordered by the ranks of its two
    systems."""
    order = best_first(estimate)
    rank = {systems[i]: k for k, i in enumerate(order)}
    singles = sorted((r for r in rows if not r.second), key=lambda r: rank[r.first])
    contrasts = []
    for r in (r for r in rows if r.second):
        if not keep_orientation and rank[r.second] < rank[r.first]:
            r = replace(r, first=r.second, second=r.first, estimate=-r.estimate, ci_low=-r.ci_high, ci_high=-r.ci_low)
        contrasts.append(r)
    contrasts.sort(key=lambda r: (rank[r.first], rank[r.second]))
    return tuple(singles + contrasts)


def _result(question, resolved, answer, rows, level, optimal_at, joint, n_votes, open_pairs, more=None, targets=None):
    """The status, its rows best first (:func:`ranked_rows`); ``more`` (default: the most any
    open row needs) the further votes; ``targets`` the systems the next votes go to (default:
    every system of an open pair)."""
    if more is None:
        pending = [r.more_votes for r in rows if not r.resolved and not np.isnan(r.more_votes)]
        more = float(max(pending)) if pending else float("nan")
    more = 0.0 if resolved else float(more)
    rows = ranked_rows(rows, joint.estimate, joint.systems, keep_orientation=question.kind == "better")
    return QuestionStatus(
        question=question,
        resolved=bool(resolved),
        answer=answer,
        rows=rows,
        more_votes=more,
        level=float(level),
        optimal_at=float(optimal_at),
        estimand=joint.estimand,
        estimator=joint.estimator,
        n_votes=n_votes,
        open_pairs=open_pairs,
        systems=joint.systems,
        open_systems=None if targets is None else np.asarray(targets, dtype=bool),
    )


class BudgetError(ValueError):
    """A budget too small for what must be drawn whole (a cluster holds more)."""


def draw_next(
    eligible,
    budget: int,
    rng: np.random.Generator,
    status: QuestionStatus | None,
    *,
    unit: str,
    unjudged: str,
    among: str,
    remedy: str,
    clusters=None,
) -> tuple[np.ndarray, str]:
    """The next judgments of any shape: ``budget`` of the ``eligible`` indices (those that can
    still settle what ``status`` leaves open), drawn uniformly without replacement from ``rng``
    and returned in order; all of them when fewer are left, none when the question is settled.
    Also why fewer than the budget were chosen (``""`` when it was met), in words of ``unit``
    (``"battle"``), what is ``unjudged`` about them, ``among`` what they were drawn and the
    ``remedy`` when none is left. With ``clusters`` (each eligible index's cluster number) whole
    clusters are drawn: the cluster is what a clustered sequence counts as arriving, so it
    arrives whole. They are taken in a uniformly random order while what is left of the budget
    holds the largest cluster: every cluster drawn fits, the budget is never passed, and when to
    stop never depends on the cluster drawn next, so the clusters still arrive in a uniformly
    random order (a rule that skipped the clusters too large for what is left would send small
    ones first). The note says when fewer than the budget were drawn; a :class:`BudgetError`
    naming the largest cluster when it holds more than the budget."""  # fmt: skip
    if isinstance(budget, bool) or not isinstance(budget, int | np.integer) or budget < 1:
        raise ValueError(f"budget must be a whole number of {unit}s >= 1, got {budget!r}")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    eligible = np.asarray(eligible, dtype=np.int64)
    none = np.zeros(0, dtype=np.int64)
    if status is not None and status.resolved:  # None: nothing judged yet, every index open
        return none, f"the question is settled ({status.answer}): no {unit} needed"
    if eligible.size == 0:
        return none, f"no {unit} {unjudged} left for the {among}: {remedy}"
    if eligible.size <= budget:
        short = f"only {eligible.size} {unit}s {unjudged} left for the {among} (budget {budget})"
        return eligible, short if eligible.size < budget else ""
    if clusters is not None:
        clusters = np.asarray(clusters, dtype=np.int64)
        if clusters.shape != eligible.shape:
            raise ValueError(f"{clusters.size} clusters for {eligible.size} eligible {unit}s")
        names, sizes = np.unique(clusters, return_counts=True)
        largest = int(sizes.max())
        if largest > budget:
            raise BudgetError(
                f"a cluster is sent whole, and the largest cluster of the {among} holds {largest} {unit}s, more than"
                f" the budget of {budget}: give a budget of at least {largest}"
            )
        order = rng.permutation(names.size)
        total = np.cumsum(sizes[order])
        taken = 1 + int(np.sum(budget - total[:-1] >= largest))  # while what is left holds the largest
        chosen = np.sort(eligible[np.isin(clusters, names[order[:taken]])])
        short = f"{chosen.size} {unit}s in {taken} whole clusters (budget {budget}; a cluster is sent whole)"
        return chosen, short if chosen.size < budget else ""
    return np.sort(rng.choice(eligible, size=budget, replace=False)), ""
