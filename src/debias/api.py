"""The public API: the workflow's analyses on your own evaluation, from Python.

Two shapes of data, each read once by its own read step, and analyses that take what was read:

- **ratings** (one row per judgment: which item, which system, which prompt, which rater, the
  score, and often per-output metric scores): :func:`read_ratings` gives the checked
  :class:`~debias.io.reader.EvaluationTable`;
- **pairwise verdicts** (one row per human verdict of a battle, LLM judges' verdicts as
  columns): :func:`read_pairs` gives the checked :class:`~debias.data.JudgedPairs`.

:func:`estimate`, :func:`compare` and :func:`plan` take ratings; :func:`preferences` and
:func:`judge_agreement` pairwise verdicts; :func:`leaderboard`, :func:`status` and
:func:`next_battles` either. Each returns the rows of the workflow's own table (or a typed
result), with the workflow's seeds: the same table gives the same numbers through the API, the
``debias`` command and the workflow. The one-call forms of earlier releases (a DataFrame and the
column names in one call, ``debias.estimate(frame, item=..., judgment=...)``) still work; they
read the table with the read step of its shape.

The population (outputs nobody judged) is given one way everywhere: ``population`` is a table
with one row per output (item, and system when there are several) and the metric score
columns; judged outputs may be in it too, and a row of the ratings whose judgment is empty is
such an output. Without it the judged outputs are the population.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from debias.config.settings import DEFAULT_SEED, default, section_defaults
from debias.data import EvalSample, JudgedPairs, as_judgments
from debias.io.canonical import InputError
from debias.io.reader import EvaluationTable, TableColumns, read_evaluation_table, with_population
from debias.io.rules import system_named
from debias.stats.common.intervals import MeanEstimate, check_level
from debias.stats.common.status import parse_question
from debias.stats.common.threads import bounded_blas
from debias.stats.common.vocabulary import check_ties
from debias.stats.ratings import estimate_mean as _estimate_sample
from debias.stats.ratings import theory_data_efficiency
from debias.stats.ratings import variance_components as _variance_components

#: Task name the API's ratings rows carry unless :func:`read_ratings` is given another (the
#: workflow's tables have one per configured task).
TASK = "evaluation"

__all__ = [
    "NextBattles",
    "compare",
    "data_efficiency",
    "estimate",
    "estimate_mean",
    "head_to_head",
    "judge_agreement",
    "leaderboard",
    "next_battles",
    "plan",
    "preferences",
    "read_pairs",
    "read_ratings",
    "status",
    "variance_components",
]

#: The keywords of :func:`read_ratings` and :func:`read_pairs`: what the one-call forms accept.
RATINGS_KEYWORDS = (
    "item",
    "judgment",
    "system",
    "prompt",
    "rater",
    "scores",
    "population",
    "scale",
    "higher_is_better",
    "task",
    "cluster",
)
PAIRS_KEYWORDS = (
    "item",
    "system_a",
    "system_b",
    "verdict",
    "rater",
    "judges",
    "pool",
    "mapping",
    "judge_mappings",
    "task",
    "cluster",
    "order",
    "covariates",
    "by",
)


def _level(level: float | None) -> float:
    """``level``, or the configuration's default ``estimates.level`` (read from the schema on
    first use, not at import)."""
    return section_defaults("estimates")["level"] if level is None else level


def _seed(seed: int | None, pairs: bool = False) -> int:
    """``seed``, or the workflow's: for ratings the seed ``debias import`` writes into a new
    configuration (``bootstrap.seed``), for pairwise verdicts a preference task's
    (:data:`debias.tables.leaderboard.PREFERENCE_SEED`)."""
    if seed is not None:
        return seed
    if pairs:
        from debias.tables.leaderboard import PREFERENCE_SEED

        return PREFERENCE_SEED
    return DEFAULT_SEED


# --- the read steps ------------------------------------------------------------------------------


def read_ratings(
    frame: pd.DataFrame,
    *,
    item: str,
    judgment: str,
    system: str | None = None,
    prompt: str | None = None,
    rater: str | None = None,
    scores: Sequence[str] | str = (),
    population: pd.DataFrame | None = None,
    scale: tuple[float, float] | None = None,
    higher_is_better: bool = True,
    task: str = TASK,
    cluster: str | None = None,
) -> EvaluationTable:
    """Read and check a long table of ratings: what every ratings analysis takes.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per judgment.
    item, judgment : str
        Columns naming the item (the input a system responded to) and holding the judgment.
    system, prompt, rater : str, optional
        Columns naming the system, the prompt (the question the raters answered; rubric
        criteria are prompts) and the rater.
    scores : sequence of str
        Columns with per-output metric scores (the same on every row of an output): the control
        variates.
    population : pandas.DataFrame, optional
        One row per output, judged or not, with ``item``, ``system`` and the ``scores`` columns:
        the metrics on the outputs nobody judged. Rows of ``frame`` whose judgment is empty
        (NaN) are such outputs too. Default: the outputs of ``frame``.
    scale : (float, float), optional
        The rating scale: a judgment outside it is an error. Default: inferred from the
        judgments, refused when one system's judgments look like another scale's.
    higher_is_better : bool
        ``False`` when a lower score is better (error counts, edit distances): leaderboards and
        questions then rank the lowest first.
    task : str
        The name the rows carry in their ``task`` column; it also names the random draws (as a
        task of the workflow's configuration does), so a table read with the name of the task
        ``debias import`` made of it gives the workflow's numbers.
    cluster : str, optional
        Column naming each item's cluster: the document, question or conversation several items
        share, whose items' judgments are not independent (the intervals then treat the cluster
        as the unit). The same on every row of an item, never empty; ``population`` needs the
        column too. Default: every item is its own cluster.

    Notes
    -----
    The table is read by the rules of ``debias import`` (:mod:`debias.io.reader`): names
    trimmed, a rater who judged an output twice refused, errors
    (:class:`debias.io.canonical.InputError`, a ``ValueError``) naming the row (the header being
    row 1) and the column.

    Returns
    -------
    EvaluationTable

    Examples
    --------
    >>> import pandas as pd, debias
    >>> frame = pd.DataFrame({"seg": ["s1", "s2", "s1", "s2"], "sys": ["a", "a", "b", "b"],
    ...                       "score": [3, 4, 5, 4]})
    >>> ratings = debias.read_ratings(frame, item="seg", system="sys", judgment="score")
    >>> ratings.systems, ratings.prompts
    (('a', 'b'), ('score',))
    """
    if not isinstance(higher_is_better, bool):
        raise InputError("higher_is_better", f"expected True or False, found {higher_is_better!r}")
    if not isinstance(task, str) or not task.strip():
        raise InputError("task", f"expected a task name, found {task!r}")
    given = {"item": item, "judgment": judgment, "system": system, "prompt": prompt, "rater": rater}
    given.update(scores=scores if isinstance(scores, str) else tuple(scores), cluster=cluster)
    (frame, population), given = _text_labels((frame, population), given)
    item, judgment, system, prompt, rater = (given[k] for k in ("item", "judgment", "system", "prompt", "rater"))
    scores, cluster = given["scores"], given["cluster"]
    _check_column("cluster", cluster)
    columns = TableColumns(
        item=item,
        judgment=judgment,
        system=system,
        prompt=prompt,
        rater=rater,
        scores=tuple(_score_columns(scores)),
        cluster=cluster,
    )
    table = read_evaluation_table(frame, columns, scale=scale, format_option=None)
    if population is not None:
        everyone = TableColumns(item=item, judgment=None, system=system, scores=columns.scores, cluster=cluster)
        population_table = read_evaluation_table(population, everyone, source="population", format_option=None)
        table = with_population(table, population_table)
    return table.with_settings(higher_is_better=higher_is_better, task=task.strip())


def read_pairs(
    frame: pd.DataFrame,
    *,
    item: str,
    system_a: str,
    system_b: str,
    verdict: str,
    rater: str | None = None,
    judges: str | Sequence[str] = (),
    pool: pd.DataFrame | None = None,
    mapping: Mapping | None = None,
    judge_mappings: Mapping[str, Mapping] | None = None,
    task: str = TASK,
    cluster: str | None = None,
    order: str | None = None,
    covariates: Mapping[str, Sequence[str]] | None = None,
    by: str | Sequence[str] | None = None,
) -> JudgedPairs:
    """Read and check a long table of pairwise verdicts: what every pairwise analysis takes.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per human verdict of a battle (item, system A, system B); a row with an empty
        verdict is a battle only the judges saw (:func:`debias.io.pairs.read_pair_table`).
    item, system_a, system_b, verdict : str
        Columns naming the item and the two systems, and holding the human verdict (a/b/tie,
        model_a/model_b/tie/tie (bothbad); numeric codes through ``mapping``).
    rater : str, optional
        Column naming the rater: several raters of a battle are averaged; their disagreement
        is ``rater_variance`` of :func:`debias.tables.preferences.preference_analysis`.
    judges : str or sequence of str
        Columns with an LLM judge's verdict each (an answer that is not a verdict is refused unless
        ``mapping`` maps it, e.g. to ``None``: no verdict); one string is one judge's column.
    pool : pandas.DataFrame, optional
        Battles without human verdicts, with ``item``, ``system_a``, ``system_b`` and the judges' columns.
        ``frame`` and ``pool`` may each be a table file's path instead (CSV, TSV, Parquet or JSONL,
        gzipped or not), read as the ``debias`` command reads it; errors then name the file.
    mapping : mapping, optional
        Extra verdict spellings or numeric codes, e.g. ``{1: "a", 2: "b", 0: "tie"}``.
    judge_mappings : mapping, optional
        ``{judge: mapping}``: one judge's own codes, extending ``mapping``; each a judge of
        ``judges`` (another name is refused).
    task : str
        The name the rank-sets' random draws are named after (as a preference task of the
        workflow names them), so battles read with a task's name give the workflow's rank-sets.
    cluster : str, optional
        Column naming each battle's cluster: the question, document or conversation several
        battles share, whose verdicts are not independent (the intervals then treat the cluster
        as the unit). The same on every row of a battle, never empty; ``pool`` needs the column
        too. Default: the item is the cluster (:attr:`debias.data.JudgedPairs.cluster_codes`).
    order : str, optional
        Column saying when each vote arrived: numbers (a sequence number, seconds) or date-times
        (ISO 8601 text, e.g. ``"2025-03-04T10:15:00Z"``, or a date-time column). The battles are
        read in that order (a stable sort: votes of equal order keep the table's order), so the
        status path (:func:`debias.stats.preferences.status.status_path`) reads the votes as they
        arrived; each battle's first vote is its :attr:`~debias.data.JudgedPairs.arrival`. A row
        with a verdict needs a value; the pool needs none. Default: the table's order is the
        order of arrival.
    covariates : mapping, optional
        ``{name: (column_a, column_b)}``: a number per response on each side (a length, a count
        of markdown headers), for style control (:func:`preferences`); numbers on every row,
        ``pool`` too.
    by : str or sequence of str, optional
        Columns labelling each battle (a category, a turn, a language) that breakdowns split the
        battles by (``preferences(..., by=...)``): the same on every row of a battle, never
        empty; ``pool`` needs them too.

    Returns
    -------
    JudgedPairs
        The battles, a battle written B-then-A read as the same battle as A-then-B.

    Examples
    --------
    >>> import pandas as pd, debias
    >>> frame = pd.DataFrame({"q": ["1", "2", "3"], "A": ["x", "y", "x"], "B": ["y", "x", "z"],
    ...                       "winner": ["model_a", "model_b", "tie"]})
    >>> pairs = debias.read_pairs(frame, item="q", system_a="A", system_b="B", verdict="winner")
    >>> pairs.systems, pairs.n_battles
    (('x', 'y', 'z'), 3)
    """
    from debias.io.pairs import read_pair_table

    frame, source = _table_or_path(frame, "frame", "table")
    pool, pool_source = _table_or_path(pool, "pool", "pool")
    given = {"item": item, "system_a": system_a, "system_b": system_b, "verdict": verdict, "rater": rater}
    given.update(judges=(judges,) if isinstance(judges, str) else tuple(judges), cluster=cluster, order=order)
    if by is not None:
        given["by"] = by if isinstance(by, str) else tuple(by)
    (frame, pool), given = _text_labels((frame, pool), given)
    item, system_a, system_b, verdict = (given[k] for k in ("item", "system_a", "system_b", "verdict"))
    rater, judges, cluster, order = given["rater"], given["judges"], given["cluster"], given["order"]
    if judge_mappings:
        judge_mappings = {str(judge): mapping for judge, mapping in judge_mappings.items()}
    _check_column("cluster", cluster)
    _check_column("order", order)
    by = given.get("by")
    return read_pair_table(
        frame,
        item=item,
        system_a=system_a,
        system_b=system_b,
        verdict=verdict,
        rater=rater,
        judges=judges,
        pool=pool,
        mapping=mapping,
        judge_mappings=judge_mappings,
        source=source,
        pool_source=pool_source,
        task=task.strip() if isinstance(task, str) else task,
        cluster=cluster,
        order=order,
        covariates=covariates,
        by=by,
    )


def _table_or_path(table, name: str, source: str):
    """``(frame, source)``: a DataFrame as it is, or a table file's path read as the command line
    reads it (CSV, TSV, Parquet or JSONL, gzipped or not), named by its path; ``None`` stays
    ``None``. Anything else is refused in one line."""
    import os

    from debias.io.reader import read_long_table

    if table is None or isinstance(table, pd.DataFrame):
        return table, source
    if isinstance(table, str | os.PathLike):
        return read_long_table(table, format_option=None), os.fspath(table)
    raise InputError(name, f"expected a pandas DataFrame or a table file's path, found {type(table).__name__}")


#: Per shape: the type its read step gives, the read step, the keywords it takes and those it
#: needs, and how messages name the shape.
_READ_STEPS = {
    "ratings": (EvaluationTable, read_ratings, RATINGS_KEYWORDS, ("item", "judgment"), "ratings"),
    "pairs": (
        JudgedPairs,
        read_pairs,
        PAIRS_KEYWORDS,
        ("item", "system_a", "system_b", "verdict"),
        "pairwise verdicts",
    ),
}


def _as_read(shape: str, data, columns: Mapping, function: str):
    """What an analysis of ``shape`` takes: data its read step gave, as it is, or (the one-call
    form) a DataFrame read by the read step with the column keywords given."""
    kind, reader, keywords, required, words = _READ_STEPS[shape]
    if isinstance(data, kind):
        _refuse_columns(columns, function, words)
        return data
    (other,) = [step for name, step in _READ_STEPS.items() if name != shape]
    if isinstance(data, other[0]):
        raise InputError("data", f"{function} takes {words} (debias.{reader.__name__}), not {other[4]}")
    if isinstance(data, pd.DataFrame) and _no_columns(columns):
        raise _unread(function, (shape,))
    if isinstance(data, pd.DataFrame) or (columns and shape == "ratings"):  # the reader says what it cannot read
        _check_keywords(columns, keywords, function)
        _require(words, {name: columns.get(name) for name in required})
        return reader(data, **columns)
    found = type(data).__name__
    expected = f"{words} read by debias.{reader.__name__} (or a DataFrame and its columns)"
    raise InputError("data", f"expected {expected}, found {found}")


def _no_columns(columns: Mapping) -> bool:
    """Whether none of the columns a table is read by (item, systems, judgment, verdict) is given."""
    named = ("item", "system", "judgment", "system_a", "system_b", "verdict")
    return all(columns.get(name) is None for name in named)


def _unread(function: str, shapes: Sequence[str]) -> InputError:
    """The error for a DataFrame given without the columns to read it by: read it first."""
    ways = {
        "pairs": "debias.read_pairs(frame, item=..., system_a=..., system_b=..., verdict=...) for pairwise verdicts",
        "ratings": "debias.read_ratings(frame, item=..., system=..., judgment=...) for ratings",
    }
    return InputError(
        "data",
        f"{function} was given a DataFrame without its columns: read it first, with "
        f"{' or '.join(ways[shape] for shape in shapes)}, and pass what was read (or give {function} those column"
        " keywords)",
    )


def _as_ratings(data, columns: Mapping, function: str) -> EvaluationTable:
    return _as_read("ratings", data, columns, function)


def _as_pairs(data, columns: Mapping, function: str) -> JudgedPairs:
    return _as_read("pairs", data, columns, function)


def _as_either(data, columns: Mapping, function: str) -> EvaluationTable | JudgedPairs:
    """Ratings or battles, by what was read or, for a DataFrame, by the column keywords given:
    ``system_a``, ``system_b`` or ``verdict`` make it pairwise verdicts. An argument of the other
    form is refused (naming it), never ignored."""
    if isinstance(data, pd.DataFrame) and _no_columns(columns):
        raise _unread(function, ("pairs", "ratings"))
    if isinstance(data, EvaluationTable | JudgedPairs) or not isinstance(data, pd.DataFrame):
        if isinstance(data, JudgedPairs):
            return _as_pairs(data, columns, function)
        return _as_ratings(data, columns, function)
    pairwise = {name: columns.get(name) for name in ("system_a", "system_b", "verdict")}
    if any(value is not None for value in pairwise.values()):
        other = {name: columns.get(name) for name in RATINGS_KEYWORDS if name not in PAIRS_KEYWORDS}
        if other.get("higher_is_better") is True:
            other["higher_is_better"] = None
        if other.get("scores") in ((), []):
            other["scores"] = None
        _refuse_other_form("pairwise verdicts", other)
        return _as_pairs(data, columns, function)
    other = {name: columns.get(name) for name in PAIRS_KEYWORDS if name not in RATINGS_KEYWORDS}
    if other.get("judges") in ((), []):
        other["judges"] = None
    _refuse_other_form("ratings", other)
    _require(
        "ratings",
        {"judgment": columns.get("judgment"), "system": columns.get("system")},
        " (pairwise verdicts take system_a, system_b and verdict)",
    )
    return _as_ratings(data, columns, function)


def _refuse_columns(columns: Mapping, function: str, what: str) -> None:
    if columns:
        name = next(iter(columns))
        raise InputError(name, f"the {what} are read already: {function} takes no {name}= (give it to the read step)")


def _check_keywords(columns: Mapping, allowed: Sequence[str], function: str) -> None:
    unknown = [name for name in columns if name not in allowed]
    if unknown:
        raise TypeError(f"{function}() got an unexpected keyword argument {unknown[0]!r}")


def _refuse_other_form(form: str, given: Mapping) -> None:
    """Refuse the arguments of the other form of data that were given (not ``None``)."""
    wrong = [name for name, value in given.items() if value is not None]
    if wrong:
        listed = ", ".join(f"{name}={given[name]!r}" for name in wrong)
        raise InputError(wrong[0], f"{form} do not take {listed}")


def _require(form: str, columns: Mapping, other: str = "") -> None:
    """Refuse a form of data whose column arguments are not all given."""
    missing = [name for name, value in columns.items() if value is None]
    if missing:
        names = list(columns)
        wanted = f"{', '.join(names[:-1])} and {names[-1]}"
        raise InputError(missing[0], f"{form} take {wanted}; not given: {', '.join(missing)}{other}")


def _one_call(function: str, columns: Mapping) -> None:
    """The one-call form of earlier releases: still read, with a note on the read step."""
    if columns:
        warnings.warn(
            f"debias.{function}(frame, <columns>) reads the table in the call; read it once with "
            f"debias.read_ratings or debias.read_pairs and pass what was read",
            DeprecationWarning,
            stacklevel=3,
        )


def _score_columns(scores) -> list[str]:
    """The score columns: one name, or a sequence of names (each once)."""
    if isinstance(scores, str):
        return [scores]
    if not isinstance(scores, Sequence) or not all(isinstance(name, str) for name in scores):
        raise InputError("scores", f"expected a column name or a list of column names, found {scores!r}")
    return list(dict.fromkeys(scores))


def _joined(table: EvaluationTable):
    """The joined tables (one per system) of read ratings, their prompts by task, and metrics."""
    from debias.tables.joined import join_evaluation_table

    return join_evaluation_table(table, table.task), {table.task: list(table.prompts)}, list(table.metrics)


# --- ratings ---------------------------------------------------------------------------------------


@bounded_blas
def estimate(data, *, level: float | None = None, **columns) -> pd.DataFrame:
    """Every estimator of every system's mean human score, with intervals.

    Parameters
    ----------
    data : EvaluationTable
        Ratings read by :func:`read_ratings` (or, as in earlier releases, a DataFrame with the
        column keywords of :func:`read_ratings`).
    level : float, optional
        Nominal coverage of the intervals (default: the configuration's ``estimates.level``).

    Returns
    -------
    pandas.DataFrame
        The columns and rows of the workflow's ``system_estimates.csv``
        (:func:`debias.tables.estimates.system_estimates_table`).

    Examples
    --------
    >>> import pandas as pd, debias
    >>> frame = pd.DataFrame({"seg": [f"s{i}" for i in range(8)] * 2, "sys": ["a"] * 8 + ["b"] * 8,
    ...                       "score": [3, 4, 2, 5, 4, 3, 4, 2, 4, 5, 3, 5, 4, 4, 5, 3],
    ...                       "bleu": [.3, .5, .2, .7, .4, .3, .5, .2, .5, .6, .3, .8, .4, .5, .6, .3]})
    >>> ratings = debias.read_ratings(frame, item="seg", system="sys", judgment="score", scores=["bleu"])
    >>> table = debias.estimate(ratings)
    >>> table[["system", "estimator", "n_judged"]].values.tolist()
    [['a', 'mean', 8], ['a', 'cv:bleu', 8], ['b', 'mean', 8], ['b', 'cv:bleu', 8]]
    """
    from debias.tables.estimates import system_estimates_table

    _check_settings(estimates={"level": level})
    _one_call("estimate", columns)
    table = _as_ratings(data, columns, "estimate")
    joined, prompts, metrics = _joined(table)
    return system_estimates_table(joined, prompts, metrics, level=_level(level))


@bounded_blas
def compare(
    data, *, level: float | None = None, min_items: int | None = None, de_n: int | None = None, **columns
) -> pd.DataFrame:
    """Paired differences of every two systems judged on the same items.

    ``data`` as in :func:`estimate`. A pair sharing fewer than ``min_items`` judged items is left
    out (with a log line). ``de_n`` is the sample size at which the saving over independent
    samples, ``de_vs_independent``, is computed.

    Returns
    -------
    pandas.DataFrame
        The columns and rows of the workflow's ``system_comparisons.csv``
        (:func:`debias.tables.comparisons.system_comparisons_table`).
    """
    from debias.tables.comparisons import system_comparisons_table

    _check_settings(estimates={"level": level}, min_judged_items=min_items, compare={"de_n": de_n})
    _one_call("compare", columns)
    table = _as_ratings(data, columns, "compare")
    joined, prompts, metrics = _joined(table)
    spec = {**section_defaults("compare"), "level": _level(level), "seed": DEFAULT_SEED}
    if de_n is not None:
        spec["de_n"] = de_n
    min_items = default("min_judged_items") if min_items is None else min_items
    return system_comparisons_table(joined, prompts, metrics, spec, min_items=min_items)


@bounded_blas
def plan(
    data, *, level: float | None = None, settings: Mapping | None = None, seed: int | None = None, **columns
) -> pd.DataFrame:
    """The least-cost number of items and judgments per item for a target interval width.

    ``data`` as in :func:`estimate`. The judged items of each system and prompt are the pilot,
    and the plan is for a new study with new raters (the fresh-rater world of
    :func:`debias.stats.ratings.planning.pilot_components`: unbiased rater and item variances).
    ``settings`` overrides the ``plan`` section's defaults (the schema's,
    :func:`debias.config.settings.section_defaults`: ``target_widths``, ``auto_n``,
    ``cost_per_judgment``, ``cost_per_item``, ``max_judgments_per_item``, ``assurance``);
    ``target_widths`` are FULL widths (upper minus lower end of the interval, twice its
    half-width), on the judgments' scale. ``seed`` (default the workflow's, ``bootstrap.seed`` of
    a configuration ``debias import`` writes) seeds the bound's bootstrap.

    Returns
    -------
    pandas.DataFrame
        The columns and rows of the workflow's ``plan.csv`` (:func:`debias.tables.plans.plan_table`).
    """
    from debias.tables.plans import plan_table

    if settings is not None and not isinstance(settings, Mapping):
        raise InputError("settings", f"expected a mapping of plan settings, found {type(settings).__name__}")
    _check_settings(estimates={"level": level}, plan=dict(settings or {}))
    _check_seed(seed)
    _one_call("plan", columns)
    table = _as_ratings(data, columns, "plan")
    joined, prompts, metrics = _joined(table)
    spec = {**section_defaults("plan"), **dict(settings or {}), "level": _level(level), "seed": _seed(seed)}
    return plan_table(joined, prompts, metrics, spec)


# --- both shapes ---------------------------------------------------------------------------------


@bounded_blas
def leaderboard(
    data,
    *,
    level: float | None = None,
    seed: int | None = None,
    top_k: int | None = None,
    ties: str = "half",
    **columns,
) -> pd.DataFrame:
    """Every system's estimate, interval and simultaneous rank-set, per estimator.

    Parameters
    ----------
    data : EvaluationTable or JudgedPairs
        Ratings read by :func:`read_ratings` or pairwise verdicts read by :func:`read_pairs` (or,
        as in earlier releases, a DataFrame with the column keywords of either read step; an
        argument of the other form is refused, never ignored).
    level : float, optional
        The level of each estimate's interval and the simultaneous level of the rank-sets: with
        that probability every system's true rank (1 = best) lies in its ``[rank_low,
        rank_high]`` at once (:func:`debias.stats.common.ranking.rank_sets`, from the estimates'
        joint covariance). Default: the config schema's ``estimates.level``.
    seed : int, optional
        Seeds the rank-sets' critical value, with the name of the data's task; default the
        workflow's (for ratings ``bootstrap.seed`` of a configuration ``debias import`` writes,
        for pairwise verdicts a preference task's), so the rows are the workflow's for data read
        with the task's name.
    top_k : int, optional
        Asks how many more human judgments would settle the top ``top_k``: ``factor_for_top_k``.
    ties : {"half", "drop", "davidson"}
        Pairwise verdicts: a tie is half a win, or left out of the win rates; ``davidson``: the
        strengths with Davidson's tie parameter (:func:`preferences`). The rank-sets of
        style-controlled strengths: ``debias leaderboard --covariate``, or
        :func:`debias.tables.leaderboard.preferences_leaderboard` on
        :func:`debias.stats.preferences.estimands.preference_estimates` with ``covariates``.

    Notes
    -----
    Ratings are ranked per prompt and estimator, lowest first when they were read with
    ``higher_is_better=False`` (:func:`debias.tables.leaderboard.ratings_leaderboard_table`);
    pairwise verdicts per estimand (win rate, strength) and estimator (``human``, ``judge:<j>``,
    ``ppi++:<j>``, ``ppi++:combined``) (:func:`debias.tables.leaderboard.preferences_leaderboard`),
    with an ``estimand`` column first and no ``task``/``prompt``.

    Returns
    -------
    pandas.DataFrame
        One row per prompt (or estimand) x estimator x system (best first): ``estimate, lower,
        upper, rank, rank_low, rank_high, level, tied_with, factor_to_separate_next,
        factor_for_top_k, note``. Tied point estimates share a rank and are named in
        ``tied_with``; ``factor_to_separate_next`` is how many times the judged items would
        separate the system from the next one down (:func:`debias.stats.common.ranking.separation_factor`)
        and ``factor_for_top_k`` how many times they would make the top ``top_k`` systems surely
        better than the others (:func:`debias.stats.common.ranking.top_k_factor`); a system that
        cannot be estimated has a row with the reason in ``note``.

    Examples
    --------
    >>> import pandas as pd, debias
    >>> frame = pd.DataFrame({"seg": [f"s{i}" for i in range(8)] * 2, "sys": ["a"] * 8 + ["b"] * 8,
    ...                       "score": [3, 4, 2, 5, 4, 3, 4, 2, 5, 5, 4, 5, 5, 4, 5, 4]})
    >>> ratings = debias.read_ratings(frame, item="seg", system="sys", judgment="score")
    >>> table = debias.leaderboard(ratings, level=0.9)
    >>> table[["system", "rank_low", "rank_high"]].values.tolist()
    [['b', 1, 1], ['a', 2, 2]]
    """
    from debias.tables.leaderboard import preferences_leaderboard, ratings_leaderboard_table

    _check_settings(estimates={"level": level})
    _check_seed(seed)
    _check_top_k(top_k)
    _one_call("leaderboard", columns)
    read = _as_either(data, columns, "leaderboard")
    if isinstance(read, JudgedPairs):
        from debias.stats.preferences import preference_estimates

        _check_ties(ties, models=True)
        estimates = preference_estimates(read, level=_level(level), ties=ties)
        estimates = [e for e in estimates if e.systems == read.systems]  # not the tie parameter
        names = (read.task,)
        return preferences_leaderboard(estimates, level=_level(level), seed=_seed(seed, True), names=names, top_k=top_k)
    if ties != "half":
        raise InputError("ties", f"ratings do not take ties={ties!r} (a tie is a rule of pairwise verdicts)")
    joined, prompts, metrics = _joined(read)
    lower = [] if read.higher_is_better else [(read.task, name) for name in read.prompts]
    return ratings_leaderboard_table(
        joined, prompts, metrics, level=_level(level), seed=_seed(seed), lower_is_better=lower, top_k=top_k
    )


# --- pairwise verdicts ---------------------------------------------------------------------------


@bounded_blas
def preferences(
    data,
    *,
    level: float | None = None,
    ties: str = "half",
    covariates: Mapping[str, Sequence[str]] | Sequence[str] | None = None,
    baseline: str | None = None,
    by: str | None = None,
    **columns,
) -> pd.DataFrame:
    """Win rates and Bradley-Terry strengths of every system from pairwise verdicts, by every estimator.

    Parameters
    ----------
    data : JudgedPairs
        Battles read by :func:`read_pairs` (or, as in earlier releases, a DataFrame with its
        column keywords).
    level : float, optional
        Nominal coverage; default the configuration's ``estimates.level``.
    ties : {"half", "drop", "davidson"}
        Win rates with a tie as half a win, or without ties; ``davidson``: strengths with
        Davidson's (1970) tie parameter (a row of estimand ``tie_parameter``), win rates with a
        tie as half a win.
    covariates : mapping or sequence of str, optional
        Style control: ``{name: (column on A's side, column on B's side)}`` (read from the
        DataFrame in the one-call form; with battles already read, the names of covariates read
        by :func:`read_pairs`, given as such a mapping or as a list of names). The strengths are
        then adjusted for the differences A - B (each divided by its root mean square), and each
        covariate's coefficient is a row of estimand ``coefficient:<name>`` (empty ``system``).
        ``{"style": (response_a, response_b)}`` names two columns of response texts instead and
        stands for their ``length``, ``headers``, ``lists`` and ``bold`` counts
        (:mod:`debias.io.style`).
    baseline : str, optional
        A system: adds each system's win rate against it (estimand ``baseline_win_rate``) and,
        with a covariate named ``length``, AlpacaEval 2.0's length-controlled one
        (``lc_baseline_win_rate``; :mod:`debias.stats.preferences.style`).
    by : str, optional
        A column the battles were read with (``read_pairs(..., by=...)``): the table then
        begins with a column ``by``, empty on the rows of every battle, followed by one group
        of rows per level of the column, whose intervals are simultaneous over the levels
        (:func:`debias.tables.preferences.preference_breakdown`).

    Returns
    -------
    pandas.DataFrame
        One row per system x estimand (``win_rate``, ``strength``) x estimator (``human``,
        ``judge:<j>``, ``ppi++:<j>``, ``ppi++:combined``): columns
        :data:`debias.tables.preferences.PREFERENCE_COLUMNS` (``ci_low``, ``ci_high``,
        ``n_judged``, ``note``: :mod:`debias.tables.columns`). Strengths are natural-log odds
        centred to mean 0 (:mod:`debias.stats.preferences.estimands`). The joint estimates, data
        efficiencies and raters' disagreement come with the table in a
        :class:`~debias.tables.preferences.PreferenceAnalysis` from
        :func:`debias.tables.preferences.preference_analysis` on the battles.

    Examples
    --------
    >>> import pandas as pd, debias
    >>> frame = pd.DataFrame({"q": list("abcdef"), "A": ["x", "y", "x", "z", "y", "x"],
    ...                       "B": ["y", "z", "z", "x", "x", "y"],
    ...                       "winner": ["model_a", "model_b", "tie", "model_b", "tie", "model_a"]})
    >>> pairs = debias.read_pairs(frame, item="q", system_a="A", system_b="B", verdict="winner")
    >>> table = debias.preferences(pairs, level=0.9)
    >>> rows = table.query("estimand == 'win_rate' and estimator == 'human'")
    >>> rows[["system", "estimate", "n_judged"]].round(3).values.tolist()
    [['x', 0.8, 5], ['z', 0.5, 3], ['y', 0.125, 4]]
    """
    from debias.tables.preferences import preference_table

    _check_settings(estimates={"level": level})
    _check_ties(ties, models=True)
    _one_call("preferences", columns)
    names, spec = _covariate_spec(covariates)
    if spec and isinstance(data, pd.DataFrame):
        columns = {**columns, "covariates": spec}
    _check_column("by", by)
    if by is not None and columns and "by" not in columns:
        columns = {**columns, "by": by}
    pairs = _as_pairs(data, columns, "preferences")
    if baseline is not None:
        baseline = system_named(baseline, pairs.systems, "baseline")
    if by is not None:
        if names or baseline is not None or ties == "davidson":
            raise InputError("by", "a breakdown takes the plain estimands: leave out covariates, baseline and davidson")
        from debias.tables.preferences import preference_breakdown

        try:
            return preference_breakdown(pairs, by, level=_level(level), ties=ties)
        except ValueError as error:
            raise InputError("by", str(error)) from None
    try:
        return preference_table(pairs, level=_level(level), ties=ties, covariates=names, baseline=baseline)
    except ValueError as error:
        if "covariate" in str(error) or "baseline" in str(error):
            raise InputError("covariates" if "covariate" in str(error) else "baseline", str(error)) from None
        raise


def _covariate_spec(covariates) -> tuple[list[str], dict]:
    """``(names, {name: (column_a, column_b)})`` of a ``covariates`` argument: a mapping of names
    to their two columns, or a list of names (of covariates read already); ``style`` names two
    response columns and stands for their four counts (:mod:`debias.io.style`)."""
    from debias.io.style import covariate_names

    if covariates is None:
        return [], {}
    if isinstance(covariates, str):
        raise InputError("covariates", f"give {{name: (column_a, column_b)}} or a list of names, not {covariates!r}")
    if isinstance(covariates, Mapping):
        spec = {}
        for name, sides in covariates.items():
            if isinstance(sides, str) or len(tuple(sides)) != 2:
                raise InputError(
                    "covariates", f"covariate {name!r}: give two columns, A's side and B's side, got {sides!r}"
                )
            spec[str(name)] = tuple(str(c) for c in sides)
        return covariate_names(spec), spec
    return covariate_names([str(name) for name in covariates]), {}


@bounded_blas
def judge_agreement(data, *, level: float | None = None, **columns) -> pd.DataFrame:
    """How each judge agrees with people: accuracy, Cohen's kappa, tie rates and each system's
    judge bias with its interval; ``data`` as in :func:`preferences`.

    Returns
    -------
    pandas.DataFrame
        One row per judge x system: :data:`debias.tables.preferences.AGREEMENT_COLUMNS` (the
        bias's interval in ``bias_ci_low``, ``bias_ci_high``).
    """
    from debias.tables.preferences import agreement_table

    _check_settings(estimates={"level": level})
    _one_call("judge_agreement", columns)
    pairs = _as_pairs(data, columns, "judge_agreement")
    return agreement_table(pairs, level=_level(level), non_tie=True)


@bounded_blas
def head_to_head(
    data,
    *,
    level: float | None = None,
    ties: str = "half",
    estimators: str | Sequence[str] | None = None,
    systems: str | Sequence[str] | None = None,
    max_systems: int | None = None,
    **columns,
) -> pd.DataFrame:
    """The head-to-head matrix: each system's win rate against each other, by every estimator.

    Parameters
    ----------
    data : JudgedPairs
        Battles read by :func:`read_pairs` (or a DataFrame with its column keywords).
    level : float, optional
        The simultaneous coverage over the pairs shown (Šidák: each interval at
        ``level ** (1 / n_pairs)``); default the configuration's ``estimates.level``.
    ties : {"half", "drop"}
    estimators : str or sequence of str, optional
        Default every one: ``human``, ``judge:<j>``, ``ppi++:<j>``, ``ppi++:combined``; one
        string is one estimator.
    systems : sequence of str, optional
        The systems to show, in order (at least two; one string is one system's name); default
        all, strongest first (people's Bradley-Terry strengths), at most ``max_systems``
        (default 30) of them.
    max_systems : int, optional

    Returns
    -------
    pandas.DataFrame
        One row per estimator and ordered pair (``system``, ``opponent``):
        :data:`debias.tables.preferences.HEAD_TO_HEAD_COLUMNS` (``n_pairs``: the pairs the
        intervals are simultaneous over; ``note``: why a cell is empty, e.g. a pair without
        battles); ``table.attrs["omitted"]`` lists systems beyond ``max_systems``.

    Examples
    --------
    >>> import pandas as pd, debias
    >>> frame = pd.DataFrame({"q": list("abcd"), "A": ["x", "x", "y", "x"], "B": ["y", "z", "z", "y"],
    ...                       "winner": ["model_a", "tie", "model_b", "model_a"]})
    >>> pairs = debias.read_pairs(frame, item="q", system_a="A", system_b="B", verdict="winner")
    >>> table = debias.head_to_head(pairs, level=0.9)
    >>> table[["system", "opponent", "estimate", "n_judged"]].head(2).values.tolist()
    [['x', 'z', 0.5, 1], ['x', 'y', 1.0, 2]]
    """
    from debias.tables.preferences import head_to_head_table

    _check_settings(estimates={"level": level})
    _check_ties(ties)
    _one_call("head_to_head", columns)
    if max_systems is not None and (
        isinstance(max_systems, bool) or not isinstance(max_systems, int | np.integer) or max_systems < 2
    ):
        raise InputError("max_systems", f"expected a whole number >= 2, found {max_systems!r}")
    if isinstance(systems, str):  # one name, as ``by`` and ``judges`` take one: not its letters
        systems = [systems]
    if isinstance(estimators, str):  # one estimator, not its letters
        estimators = [estimators]
    if systems is not None and len(systems := list(systems)) < 2:
        raise InputError("systems", f"a head-to-head table shows at least two systems, got {systems!r}")
    pairs = _as_pairs(data, columns, "head_to_head")
    try:
        return head_to_head_table(
            pairs, level=_level(level), ties=ties, estimators=estimators, systems=systems, max_systems=max_systems
        )
    except ValueError as error:
        raise InputError("head_to_head", str(error)) from None


def status(
    data,
    question: str,
    *,
    level: float | None = None,
    estimand: str | None = None,
    estimator: str | None = None,
    for_prompt: str | None = None,
    ties: str = "half",
    optimal_at: float = 1000,
    **columns,
):
    """What the judgments so far settle about a question, with anytime-valid intervals.

    On pairwise verdicts every quantity is estimated on the table's own mix of pairs (each
    pair's judged battles weighted by its share of the table,
    :func:`debias.stats.preferences.battles.pool_design`), so the battles :func:`next_battles`
    chose change the intervals' width, not what they estimate.

    Parameters
    ----------
    data : EvaluationTable or JudgedPairs
        Ratings (:func:`read_ratings`: the systems' mean scores) or pairwise verdicts
        (:func:`read_pairs`: win rates or strengths); as in earlier releases, a DataFrame with
        the column keywords of pairwise verdicts is read with :func:`read_pairs`.
    question : str
        ``better:A,B`` (is A better than B), ``top:K`` (which are the top K), ``ranks`` (every
        rank) or ``within:W`` (every system's score within ±W) (:mod:`debias.stats.common.status`).
    level : float, optional
        Probability that every interval the question uses covers its truth at every look at
        once (default: the configuration's ``estimates.level``).
    estimand : str, optional
        Pairwise verdicts: ``win_rate`` (default) or ``strength``; ratings: ``mean`` (the only one).
    estimator : str, optional
        Pairwise verdicts: ``human`` or ``ppi++:<judge>`` / ``ppi++:combined`` (default PPI++ with
        the judges read, people alone without); ratings: ``mean``, ``cv:<metric>``,
        ``cv:combined`` or ``ppi++:<metric>`` (default: the control variate of every metric
        read, of the one metric, or the mean without metrics).
    for_prompt : str, optional
        Ratings: the prompt whose mean scores the question is about (needed when the ratings
        have several).
    ties : {"half", "drop"}
        Pairwise verdicts: how a tie counts in a win rate.
    optimal_at : float
        Judgments at which the intervals are tightest, fixed in advance (default 1,000).

    Returns
    -------
    debias.stats.common.status.QuestionStatus
        ``resolved``, ``answer`` ("unresolved so far: ..." when it is not), one row per system
        and per open contrast with its confidence-sequence interval
        (:mod:`debias.stats.common.sequential`) and the further judgments it needs (a plug-in
        guide), and ``open_pairs`` (where :func:`next_battles` sends the next judgments).

    Examples
    --------
    >>> import pandas as pd, debias
    >>> frame = pd.DataFrame({"q": range(200), "A": ["x"] * 200, "B": ["y"] * 200,
    ...                       "winner": ["model_a"] * 180 + ["model_b"] * 20})
    >>> pairs = debias.read_pairs(frame, item="q", system_a="A", system_b="B", verdict="winner")
    >>> s = debias.status(pairs, "better:x,y", level=0.95)
    >>> s.resolved, s.answer
    (True, 'x better')
    """
    _one_call("status", columns)
    read = _status_data(data, columns, "status", level, ties, estimand, for_prompt)
    return _question_status(read, question, level, estimand, estimator, ties, optimal_at, for_prompt)


def next_battles(
    data,
    question: str,
    budget: int,
    *,
    seed: int = 0,
    level: float | None = None,
    estimand: str | None = None,
    estimator: str | None = None,
    for_prompt: str | None = None,
    ties: str = "half",
    optimal_at: float = 1000,
    **columns,
) -> NextBattles:
    """What to put in front of people next: ``budget`` battles without a human verdict (pairwise
    verdicts) or outputs nobody judged on the prompt (ratings), drawn at random from ``seed``
    among those of the systems and pairs :func:`status` leaves open
    (:func:`debias.stats.preferences.allocation.next_battles`,
    :func:`debias.stats.ratings.allocation.next_outputs`); the other parameters as in
    :func:`status`.

    Returns
    -------
    NextBattles
        ``battles``: the chosen battles' ``item``, ``system_a`` and ``system_b`` (or the chosen
        outputs' ``item`` and ``system``; a one-call form names them as its columns were named),
        in the order of the table; empty when the question is settled or nothing is left to
        judge (``note`` says which).
    """
    if isinstance(budget, bool) or not isinstance(budget, int | np.integer) or budget < 1:
        raise InputError("budget", f"expected a whole number >= 1, found {budget!r}")
    _check_seed(seed)
    _one_call("next_battles", columns)
    read = _status_data(data, columns, "next_battles", level, ties, estimand, for_prompt)
    rng = np.random.default_rng(seed)
    if isinstance(read, JudgedPairs) and not read.labelled.any():  # a cold start: a first batch
        from debias.stats.preferences import first_battles

        parse_question(question).check(read.systems)
        with _budget_refused():
            chosen = first_battles(read, int(budget), rng)
        answer = "no human verdict yet: a first batch drawn uniformly from every battle"
        return NextBattles(battles=_battle_rows(read, chosen.battles, columns), note=chosen.note, answer=answer)
    state = _question_status(read, question, level, estimand, estimator, ties, optimal_at, for_prompt)
    if isinstance(read, JudgedPairs):
        from debias.stats.preferences import next_battles as draw

        with _budget_refused():
            chosen = draw(read, state, int(budget), rng)
        table = _battle_rows(read, chosen.battles, columns)
    else:
        from debias.stats.ratings import next_outputs
        from debias.tables.status import ratings_outputs

        output_system, judged, clusters = ratings_outputs(read, for_prompt)
        with _budget_refused():
            chosen = next_outputs(output_system, judged, state, int(budget), rng, clusters)
        index = chosen.outputs
        names = np.asarray(read.systems, dtype=object)
        wanted = {key: columns.get(key) or key for key in ("item", "system")}
        table = pd.DataFrame(
            {wanted["item"]: read.output_item[index], wanted["system"]: names[read.output_system[index]]}
        )
    return NextBattles(battles=table, note=chosen.note, answer=state.answer)


def _battle_rows(read: JudgedPairs, index, columns) -> pd.DataFrame:
    """The battles at ``index``: their item and two systems, named as a one-call form's
    columns were (``item``, ``system_a``, ``system_b`` otherwise)."""
    names = np.asarray(read.systems, dtype=object)
    items = read.items[index] if read.items is not None else index
    wanted = {key: columns.get(key) or key for key in ("item", "system_a", "system_b")}
    return pd.DataFrame(
        {
            wanted["item"]: items,
            wanted["system_a"]: names[read.system_a[index]],
            wanted["system_b"]: names[read.system_b[index]],
        }
    )


@dataclass(frozen=True)
class NextBattles:
    """What :func:`next_battles` chose: ``battles`` (the table of battles, or of outputs for
    ratings), ``note`` (why fewer than the budget, ``""`` when it was met) and ``answer`` (the
    question's status when they were chosen)."""

    battles: pd.DataFrame
    note: str
    answer: str


def _status_data(data, columns, function, level, ties, estimand, for_prompt):
    """The data of a status question, after the settings' checks."""
    _check_settings(estimates={"level": level})
    _check_ties(ties)
    if ties == "davidson":
        raise InputError(
            "ties", "'davidson' models the strengths of an analysis; a question's status takes 'half' or 'drop'"
        )
    if isinstance(data, pd.DataFrame) and _no_columns(columns):
        raise _unread(function, ("pairs", "ratings"))
    read = _as_either(data, columns, function) if columns else data
    if isinstance(read, JudgedPairs):
        if for_prompt is not None:
            raise InputError("for_prompt", "pairwise verdicts have no prompts: for_prompt is for ratings")
        return _two_systems(read)
    read = _two_systems(_as_ratings(read, {}, function))
    if ties != "half":
        raise InputError("ties", f"ratings do not take ties={ties!r} (a tie is a rule of pairwise verdicts)")
    if estimand not in (None, "mean"):
        raise InputError(f"estimand {estimand}", "ratings have one estimand, mean (the systems' mean scores)")
    return read


@contextlib.contextmanager
def _budget_refused():
    """A budget no whole cluster fits in (:func:`debias.stats.common.status.draw_next`) as an
    :class:`InputError` on ``budget``."""
    from debias.stats.common.status import BudgetError

    try:
        yield
    except BudgetError as error:
        raise InputError("budget", str(error)) from None


def _two_systems(read):
    """What a question is asked of: at least two systems to tell apart."""
    if len(read.systems) < 2:
        found = f"one, {read.systems[0]!r}" if read.systems else "none"
        raise InputError("settings", f"a question needs at least two systems to compare; the table has {found}")
    return read


def _question_status(read, question, level, estimand, estimator, ties, optimal_at, for_prompt):
    """The status of a question on ratings (:func:`debias.tables.status.ratings_status`) or
    battles (:func:`debias.stats.preferences.pairs_status`), its errors as :class:`InputError`
    naming the option."""
    from debias.stats.common.status import QuestionError

    try:
        if isinstance(read, JudgedPairs):
            from debias.stats.preferences import pairs_status

            settings = {"estimand": estimand or "win_rate", "estimator": estimator, "ties": ties}
            return pairs_status(read, question, level=_level(level), optimal_at=optimal_at, **settings)
        from debias.tables.status import ratings_status

        return ratings_status(
            read, question, level=_level(level), estimator=estimator, prompt=for_prompt, optimal_at=optimal_at
        )
    except QuestionError as error:
        raise InputError(f"{error.option} {error.text}".strip(), error.message) from None
    except ValueError as error:
        if isinstance(error, InputError):
            raise
        raise InputError("settings", str(error)) from None


# --- checks ------------------------------------------------------------------------------------------


def _text_labels(frames, arguments: dict):
    """Frames whose column labels are not all text (numbers, say) with their labels as text,
    and the column arguments naming them as text too: the readers name columns by text. A label
    that becomes another's text (``1`` and ``"1"``) is an error; so is an argument that is no
    text and no label of the frame."""
    frames = list(frames)
    first = next((f for f in frames if isinstance(f, pd.DataFrame)), None)  # the readers refuse anything else
    labels = [] if first is None else list(first.columns)
    for frame in frames:
        if not isinstance(frame, pd.DataFrame) or isinstance(frame.columns, pd.MultiIndex):
            continue
        nameless = [k for k, label in enumerate(frame.columns) if label is None or _is_nan(label)]
        if nameless:
            raise InputError(
                "frame",
                f"the column at position {nameless[0]} has no name ({frame.columns[nameless[0]]!r}): name it"
                " (None means a column not given)",
            )
    if all(isinstance(label, str) for label in labels) and all(
        value is None
        or isinstance(value, str)
        or (isinstance(value, tuple | list) and all(isinstance(v, str) for v in value))
        for value in arguments.values()
    ):
        return frames, arguments
    for frame in frames:
        if not isinstance(frame, pd.DataFrame):
            continue
        texts = [str(label) for label in frame.columns]
        if len(set(texts)) != len(texts):
            twins = sorted({t for t in texts if texts.count(t) > 1})
            raise InputError("frame", f"column labels {twins} are the same once written as text: rename one")

    multi = first is not None and isinstance(first.columns, pd.MultiIndex)

    def label(value) -> bool:
        try:
            return value in labels
        except TypeError:  # an unhashable value is no label
            return False

    def as_text(name, value, many: bool):
        if value is None or isinstance(value, str):
            return value
        if not multi and isinstance(value, tuple) and label(value):  # a tuple label, written as text
            return str(value)
        if many and isinstance(value, tuple | list):  # several columns (judges, by)
            return type(value)(as_text(name, v, False) for v in value)
        if multi and isinstance(value, tuple):  # a MultiIndex label, as the frame has it
            return tuple(as_text(name, v, False) for v in value)
        if label(value):
            return str(value)
        raise InputError(name, f"expected a column name, found {value!r} (the frame's columns: {labels[:10]})")

    converted = {name: as_text(name, value, name in ("judges", "by", "scores")) for name, value in arguments.items()}
    renamed = [f.rename(columns=str) if isinstance(f, pd.DataFrame) else f for f in frames]
    return renamed, converted


def _is_nan(value) -> bool:
    return isinstance(value, float | np.floating) and value != value


def _check_column(name: str, column) -> None:
    """An optional column argument: a column name or ``None``."""
    if column is not None and not isinstance(column, str):
        raise InputError(name, f"expected a column name (or None), found {column!r}")


def _check_seed(seed) -> None:
    if seed is None:
        return
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise InputError("seed", f"expected a whole number >= 0, found {seed!r}")


def _check_top_k(top_k) -> None:
    if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int | np.integer) or top_k < 1):
        raise InputError("top_k", f"expected a whole number >= 1 (or None), found {top_k!r}")


def _check_ties(ties, models: bool = False) -> None:
    try:
        check_ties(ties, models=models)
    except ValueError as error:
        raise InputError("ties", str(error)) from None


def _check_settings(**sections) -> None:
    """The settings given by keyword, checked by the configuration schema's rules (the keys of
    the ``plan`` section, ``min_judged_items``, ``estimates.level``, ``compare.de_n``); ``None``
    is a setting left to its default."""
    from debias.config.settings import key_rules, schema_problem

    given = {
        key: {k: v for k, v in value.items() if v is not None} if isinstance(value, dict) else value
        for key, value in sections.items()
        if value is not None
    }
    problem = schema_problem(given, key_rules())
    if problem:
        raise InputError("settings", problem.replace("config key ", "", 1))
    level = (given.get("estimates") or {}).get("level")
    if level is not None:  # what JSON has no word for: NaN, infinity
        try:
            check_level(level)
        except ValueError as error:
            raise InputError("settings", f"estimates.level: {error}") from None


def estimate_mean(
    judgments,
    scores=None,
    *,
    all_scores=None,
    unjudged_scores=None,
    n_outputs: int | None = None,
    estimator: str = "mean",
    level: float | None = None,
    annotator_variance: float | None = None,
) -> MeanEstimate:
    """One estimate of a mean human score with its interval, from arrays.

    Parameters
    ----------
    judgments : Judgments, list of lists, or array
        The judged items' judgments: a :class:`~debias.data.Judgments`, one list per item, or a
        NaN-padded (n, K) array.
    scores : array_like, shape (n,) or (n, M), optional
        The metrics on the judged items.
    all_scores, unjudged_scores, n_outputs
        The population, given once: every output's scores (judged included), the unjudged
        outputs' scores, or without metrics the number of outputs N.
    estimator : str
        ``mean``, ``cv:m0`` (metric columns are named m0, m1, ...), ``cv:combined`` or ``ppi++:m0``.
    level : float, optional
        Nominal coverage (default: the configuration's ``estimates.level``).
    annotator_variance : float, optional
        Variance of one judgment (default: pooled over the items judged more than once).

    Returns
    -------
    MeanEstimate
        ``estimate``, ``ci_low``, ``ci_high``, ``se``, ``df``, ``n_judged``, ``n_outputs``.

    Examples
    --------
    >>> import debias
    >>> result = debias.estimate_mean([[4, 5], [3], [5, 4], [2, 3], [4]], n_outputs=100)
    >>> round(float(result.estimate), 2), result.n_judged
    (3.7, 5)
    """
    _check_settings(estimates={"level": level})
    sample = EvalSample.from_arrays(
        judgments, scores, all_scores=all_scores, unjudged_scores=unjudged_scores, n_outputs=n_outputs
    )
    return _estimate_sample(sample, estimator, level=_level(level), annotator_variance=annotator_variance)


def variance_components(judgments) -> dict[str, float | str]:
    """The paper's Table 2 for one pool of judged items: σ_a², σ_f², γ and their unbiased forms.

    ``judgments`` is a :class:`~debias.data.Judgments`, one list per item or a NaN-padded array;
    only items judged at least twice enter (:func:`debias.stats.ratings.variance.variance_components`).
    With no such item the components are NaN, the counts are those of every item, and ``note``
    says why (one judgment per item: σ_a² is not identifiable); ``note`` is empty otherwise.

    Examples
    --------
    >>> import debias
    >>> c = debias.variance_components([[4, 5], [2, 2], [5, 4, 5]])
    >>> round(c["sigma2_a"], 3), c["n_items"]
    (0.292, 3)
    """
    return _variance_components(as_judgments(judgments))


def data_efficiency(rho, gamma):
    """Eq. (7) of the paper: how many times fewer judgments the control variate needs,
    (1 + γ) / (1 - ρ² + γ) (:func:`debias.stats.ratings.theory.theory_data_efficiency`).

    Examples
    --------
    >>> import debias
    >>> round(float(debias.data_efficiency(0.5, 0.25)), 3)
    1.25
    """
    rho_, gamma_ = np.asarray(rho, dtype=float), np.asarray(gamma, dtype=float)
    if not (np.all(np.abs(rho_) <= 1) and np.all(gamma_ >= 0)):
        raise ValueError(f"expected a correlation rho in [-1, 1] and gamma >= 0, found rho={rho!r}, gamma={gamma!r}")
    return theory_data_efficiency(rho, gamma)
