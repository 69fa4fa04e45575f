"""Leaderboards: every system's estimate, interval and simultaneous rank-set, per estimator.

:func:`leaderboard_rows` is the one adapter from joint estimates to rows: it takes, per
estimator, any result with ``systems``, ``estimate`` (S,), ``covariance`` (S, S), ``ci_low`` and
``ci_high`` (S,) — a :class:`debias.stats.common.joint.JointEstimate` of the ratings or of pairwise
preferences — and ranks the systems with
:func:`debias.stats.common.ranking.rank_sets`. :func:`ratings_leaderboard_table` builds the ratings'
joint estimates from the joined tables (:mod:`debias.tables.joined`): every estimator of
:mod:`debias.stats.ratings.estimators` on every system, the covariance from the items the systems share
(:func:`debias.stats.common.joint.shared_item_covariance`; ``ppi++`` with the finite-population
variance of its terms, ``ppi++fpc``, on the diagonal, the design of its covariances). The
critical value's random draws come from ``setting_seed(seed, task, prompt, estimator, "leaderboard")``.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping, Sequence
from typing import Protocol

import numpy as np
import pandas as pd

from debias.stats.common.joint import JointEstimate
from debias.stats.common.ranking import rank_sets, separation_factor, top_k_factor
from debias.stats.common.resampling import setting_seed
from debias.stats.common.threads import bounded_blas
from debias.stats.common.vocabulary import baseline
from debias.stats.ratings import RatedSystem, ratings_estimates
from debias.tables.columns import (
    CLUSTER_COLUMNS,
    LEADERBOARD_INTERVAL,
    LEVEL,
    NOTE,
    cluster_values,
    clustered,
    with_cluster_columns,
)
from debias.tables.estimates import evaluation_sample
from debias.tables.joined import iter_cells

__all__ = [
    "LEADERBOARD_COLUMNS",
    "PREFERENCE_SEED",
    "JointResult",
    "leaderboard_rows",
    "preferences_leaderboard",
    "ratings_joint_estimates",
    "ratings_leaderboard_table",
    "rated_systems",
]

#: Columns of the leaderboards (ratings and preferences). The interval is ``lower``/``upper``, not
#: the ``ci_low``/``ci_high`` of the other tables (:mod:`debias.tables.columns`): the paper run's
#: ``leaderboard.csv`` predates that vocabulary and keeps its names.
LEADERBOARD_COLUMNS = [
    "task",
    "prompt",
    "system",
    "estimator",
    "estimate",
    *LEADERBOARD_INTERVAL,
    "rank",
    "rank_low",
    "rank_high",
    LEVEL,
    "tied_with",
    "factor_to_separate_next",
    "factor_for_top_k",
    NOTE,
]
_LOW, _HIGH = LEADERBOARD_INTERVAL
#: The base seed of the rank-sets of pairwise verdicts, named after the battles' task
#: (:attr:`debias.data.JudgedPairs.task`) and the estimand; the ratings' is ``bootstrap.seed``.
PREFERENCE_SEED = 0

log = logging.getLogger(__name__)


class JointResult(Protocol):
    """What :func:`leaderboard_rows` needs of one estimator's result."""

    systems: tuple[str, ...]
    estimate: np.ndarray
    covariance: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray


@bounded_blas
def leaderboard_rows(
    results: Mapping[str, JointResult],
    *,
    level: float,
    higher_is_better: bool = True,
    seed: int = 0,
    names: Sequence[str] = (),
    top_k: int | None = None,
    canonical: bool = True,
    step_down: bool = True,
) -> pd.DataFrame:
    """One row per system x estimator: estimate, interval, point rank and simultaneous rank-set.

    Parameters
    ----------
    results : mapping of str to JointResult
        Per estimator name, its joint estimates of the systems.
    level : float
        Simultaneous level of the rank-sets (each estimator's systems on their own).
    higher_is_better : bool
        Whether a higher estimate ranks better.
    seed, names
        The critical value's draws come from ``setting_seed(seed, *names, estimator, "leaderboard")``.
    canonical : bool
        Default True: simulate the critical value with the systems sorted by name
        (:func:`debias.stats.common.ranking.rank_sets`): the rows then do not depend on the order of the
        systems.
    step_down : bool
        Default True: the step-down procedure over ordered pairs, a declared pair's other way
        kept in every later critical value (:func:`debias.stats.common.ranking.rank_sets`):
        rank-sets never larger than the single step's, at the same level.

    Each result's ``df`` (degrees of freedom per system, when it has them: the ratings) gives the
    rank-sets a studentised critical value with the smallest of them
    (:func:`debias.stats.common.ranking.rank_sets`), so that two systems are separated when a paired t
    test of their difference would reject at the same level.

    With clustered data (a result whose ``n_clusters`` is set: judgments sharing a question), the
    rows also say the clusters behind each estimate and its design effect (``clusters``,
    ``design_effect``, before ``note``: :data:`debias.tables.columns.CLUSTER_COLUMNS`); without
    them the table has neither column.

    Returns
    -------
    pandas.DataFrame
        Columns ``system, estimator, estimate, lower, upper, rank, rank_low, rank_high, level,
        tied_with`` (``;``-separated names of the systems with the same estimate),
        ``factor_to_separate_next`` (how many times its judgments would make the system surely
        better than the next one down the ranking with probability 0.8 if their difference is
        the estimated one, :func:`debias.stats.common.ranking.separation_factor`; empty for the last),
        ``factor_for_top_k`` (with ``top_k``: how many times the estimator's judgments would make
        its top ``top_k`` systems surely better than the rest, the same on each of its rows,
        :func:`debias.stats.common.ranking.top_k_factor`; empty without ``top_k`` or when fewer than
        ``top_k + 1`` systems are ranked) and ``note``.
    """
    if top_k is not None and not (isinstance(top_k, int | np.integer) and top_k >= 1):
        raise ValueError(f"top_k must be a whole number of systems, at least 1, got {top_k!r}")
    rows = []
    with_clusters = clustered(results.values())
    for estimator, result in results.items():
        theta = np.asarray(result.estimate, dtype=float)
        covariance = np.asarray(result.covariance, dtype=float)
        systems = tuple(str(x) for x in result.systems)
        lower, upper = np.asarray(result.ci_low, dtype=float), np.asarray(result.ci_high, dtype=float)
        valid = np.isfinite(theta) & np.isfinite(np.diag(covariance))
        notes = tuple(getattr(result, "notes", ()) or ("",) * len(systems))
        biased = "the judge's verdicts, not people's (biased); " if getattr(result, "biased", False) else ""
        for i in np.flatnonzero(~valid):  # a system without an estimate: its note, not ranked
            why = notes[i] or "no estimate"
            rows.append(
                {
                    "system": systems[i],
                    "estimator": estimator,
                    LEVEL: level,
                    **(cluster_values(result, i) if with_clusters else {}),
                    NOTE: f"{why}; not ranked",
                }
            )
        if not valid.any():
            continue
        keep = np.flatnonzero(valid)
        theta, covariance = theta[keep], covariance[np.ix_(keep, keep)]
        df = getattr(result, "df", None)  # t-type critical value with the fewest degrees of freedom
        df = None if df is None else float(np.min(np.asarray(df, dtype=float)[keep]))
        rng = np.random.default_rng(setting_seed(seed, *names, estimator, "leaderboard"))
        ranks = rank_sets(
            theta,
            covariance,
            level=level,
            systems=[systems[i] for i in keep],
            higher_is_better=higher_is_better,
            rng=rng,
            canonical=canonical,
            step_down=step_down,
            df=df,
        )
        order = np.argsort(ranks.rank, kind="stable")
        following = np.full(len(ranks.systems), -1)
        following[order[:-1]] = order[1:]  # the next system down the point ranking
        pairs = np.array([(i, following[i]) for i in range(len(ranks.systems)) if following[i] >= 0]).reshape(-1, 2)
        separation = separation_factor(theta, covariance, pairs, critical_value=ranks.first_critical_value)
        factors = dict(zip(pairs[:, 0].tolist(), separation))
        ranked = len(ranks.systems)
        top = top_k_factor(ranks, covariance, top_k) if top_k is not None and top_k < ranked else np.nan
        for i, system in enumerate(ranks.systems):
            tied = ranks.tied_with[i]
            remark = notes[keep[i]]  # what its interval rests on (few battles), if anything
            note = biased + (f"{remark}; " if remark else "") + (f"tied with {', '.join(tied)}" if tied else "")
            rows.append(
                {
                    "system": system,
                    "estimator": estimator,
                    "estimate": float(ranks.estimate[i]),
                    _LOW: float(lower[keep[i]]),
                    _HIGH: float(upper[keep[i]]),
                    "rank": int(ranks.rank[i]),
                    "rank_low": int(ranks.rank_low[i]),
                    "rank_high": int(ranks.rank_high[i]),
                    LEVEL: level,
                    "tied_with": ";".join(tied),
                    "factor_to_separate_next": float(factors.get(i, np.nan)),
                    "factor_for_top_k": top,
                    **(cluster_values(result, keep[i]) if with_clusters else {}),
                    NOTE: note.rstrip("; "),
                }
            )
    columns = [c for c in LEADERBOARD_COLUMNS if c not in ("task", "prompt")]
    frame = pd.DataFrame(rows, columns=[*columns, *(CLUSTER_COLUMNS if with_clusters else ())])
    table = with_cluster_columns(frame, columns, clustered=with_clusters)
    for column in ("rank", "rank_low", "rank_high"):
        table[column] = table[column].astype("Int64")
    return table


def preferences_leaderboard(
    results, *, level: float, seed: int = 0, names: Sequence[str] = (), top_k: int | None = None
) -> pd.DataFrame:
    """The leaderboard of pairwise-preference estimates (win rates or strengths: higher is
    better), one row per system x estimand x estimator.

    ``results`` is a sequence of :class:`debias.stats.common.joint.JointEstimate` (each with its
    ``estimand`` and ``estimator``: :func:`debias.stats.preferences.estimands.preference_estimates`), or a
    mapping estimator name -> result with ``systems``, ``estimate``, ``covariance``, ``ci_low``
    and ``ci_high``. Each estimand and estimator is ranked on its own (:func:`leaderboard_rows`);
    systems without an estimate get their ``notes`` in ``note``, and ``judge:*`` rows say
    they rank the judge, not people. Columns: ``estimand`` (when the results carry one), then
    those of :func:`leaderboard_rows`.
    """
    if isinstance(results, Mapping):
        return leaderboard_rows(
            results,
            level=level,
            higher_is_better=True,
            seed=seed,
            names=names,
            top_k=top_k,
        )
    by_estimand: dict[str, dict[str, JointResult]] = {}
    for result in results:
        by_estimand.setdefault(str(result.estimand), {})[str(result.estimator)] = result
    frames = []
    for estimand, of_estimand in by_estimand.items():
        table = leaderboard_rows(of_estimand, level=level, seed=seed, names=(*names, estimand), top_k=top_k)
        table.insert(0, "estimand", estimand)
        frames.append(_best_first(table))
    columns = ["estimand", *(c for c in LEADERBOARD_COLUMNS if c not in ("task", "prompt"))]
    if not frames:
        return pd.DataFrame(columns=columns)
    table = pd.concat(frames, ignore_index=True)
    return with_cluster_columns(table, columns, clustered=CLUSTER_COLUMNS[0] in table.columns)


def _best_first(table: pd.DataFrame) -> pd.DataFrame:
    """Rows per estimator in table order, ranked systems best first, unranked last."""
    order = {name: i for i, name in enumerate(dict.fromkeys(table["estimator"]))}
    return table.sort_values(
        ["estimator", "rank", "system"], key=lambda c: c.map(order) if c.name == "estimator" else c
    ).reset_index(drop=True)


def ratings_joint_estimates(
    cells: Sequence[tuple[str, pd.DataFrame, pd.DataFrame]], metrics: Sequence[str], *, level: float
) -> tuple[dict[str, JointEstimate], dict[str, str]]:
    """Every estimator's :class:`~debias.stats.common.joint.JointEstimate` of the systems of one
    task and prompt, from ``(system, outputs, judged)`` per system
    (:func:`debias.tables.joined.iter_cells`): :func:`debias.stats.ratings.ratings_estimates` on
    their samples (:func:`rated_systems`)."""
    return ratings_estimates(rated_systems(cells, metrics), level=level)


def rated_systems(cells: Sequence[tuple[str, pd.DataFrame, pd.DataFrame]], metrics: Sequence[str]) -> list[RatedSystem]:
    """The :class:`~debias.stats.ratings.RatedSystem` of each ``(system, outputs, judged)``
    cell of one task and prompt; its sample carries the items' clusters when the joined tables
    have them (:func:`debias.tables.estimates.evaluation_sample`)."""
    metrics = list(metrics)
    return [
        RatedSystem(
            system,
            evaluation_sample(outputs, judged, metrics),
            judged["id"].astype(str).to_numpy(),
            outputs["id"].astype(str).to_numpy(),
        )
        for system, outputs, judged in cells
    ]


def ratings_leaderboard_table(
    joined: Sequence[pd.DataFrame],
    prompts: Mapping[str, Sequence[str]],
    metrics: Sequence[str],
    *,
    level: float,
    seed: int = 0,
    lower_is_better: Collection[tuple[str, str]] = (),
    top_k: int | None = None,
) -> pd.DataFrame:
    """The ratings leaderboard (``leaderboard.csv``): per task x prompt x estimator, every system's
    estimate of its mean human score, its interval and its simultaneous rank-set at ``level``
    (rank 1 = highest mean score, or the lowest for the ``(task, prompt)`` pairs in
    ``lower_is_better``). A system with fewer than 3 judged items, or without the estimator, has
    a row with an empty estimate and the reason in ``note``; ``top_k`` as in :func:`leaderboard_rows`,
    and so are the columns of clustered data (the joined tables' items' clusters)."""
    cells: dict[tuple[str, str], list] = {}
    for task, system, prompt, outputs, judged in iter_cells(joined, prompts):
        cells.setdefault((task, prompt), []).append((system, outputs, judged))
    frames = []
    for (task, prompt), entries in cells.items():
        joint, notes = ratings_joint_estimates(entries, metrics, level=level)
        higher = (task, prompt) not in set(lower_is_better)
        table = leaderboard_rows(
            joint, level=level, higher_is_better=higher, seed=seed, names=(task, prompt), top_k=top_k
        )
        missing = []
        for name in joint:
            for system, _, _ in entries:
                note = notes.get(system) or notes.get(f"{system}|{name}")
                if note:
                    missing.append({"system": system, "estimator": name, "level": level, "note": note})
        if not joint:
            missing += [
                {"system": s, "estimator": baseline("ratings"), "level": level, "note": notes[s]} for s, _, _ in entries
            ]
        if missing:
            table = pd.concat([table, pd.DataFrame(missing)], ignore_index=True)
        table = _best_first(table)
        table.insert(0, "task", task)
        table.insert(1, "prompt", prompt)
        frames.append(table)
    if not frames:
        return pd.DataFrame(columns=LEADERBOARD_COLUMNS)
    table = pd.concat(frames, ignore_index=True)
    table = with_cluster_columns(table, LEADERBOARD_COLUMNS, clustered=CLUSTER_COLUMNS[0] in table.columns)
    for column in ("rank", "rank_low", "rank_high"):
        table[column] = table[column].astype("Int64")
    table["tied_with"] = table["tied_with"].fillna("")
    return table
