"""Judged pairs from a long table: one row per human verdict, judges' verdicts as columns.

A battle is a row's item and its *unordered* pair of systems, names trimmed of surrounding
whitespace by the ratings reader's rules (:mod:`debias.io.rules`): an empty or null name is
refused, and so is a cell holding a list or an object. The battle's orientation (which system is
A) is its first row's; a row giving the same battle as (item, B, A) has its verdicts flipped to it
(A's win becomes B's, a tie stays a tie, a probability p becomes 1 - p), so that raters who saw
the two systems in either order are raters of one battle. Rows of the same battle are its raters'
verdicts (``rater`` names them, trimmed alike: a row with a verdict needs a rater, a rater judging
a battle twice, in either order, is refused); a row with an empty verdict is a battle of the
unlabelled pool, and so is every row of the optional ``pool`` table (same columns, its verdict
column, if any, ignored). A judge's verdict must be the same on every row of a battle, once
flipped (a pool row with the key of a battle of the table is a row of that battle). Two
conversations of the same item between the same two systems are two battles only if ``item``
tells them apart (a battle number, say). An optional ``cluster`` column names the battle's cluster
(the question, document or conversation several battles share): the same on every row of a
battle (its raters' rows, the pool's included), never empty. An optional ``order`` column says
when each vote arrived (numbers, or ISO 8601 date-times; :func:`debias.io.rules.order_values`):
the table is then read sorted by it (a stable sort: rows of equal order keep the table's order),
so that the battles, and whatever reads them in order (the status path of
:func:`debias.stats.preferences.status.status_path`), come in the order the votes arrived, a
battle at its first vote; a row without a verdict may leave it empty, the pool needs none.

Verdict spellings, mappings and a judge's probabilities: :mod:`debias.data.pairs`. A judge's column
is read or refused, never silently missing: values that are neither a verdict nor mapped (nor all
probabilities) are an error naming the judge, each value with its count, and the mapping that
would read them. A judge answering fewer than half the battles is named in a warning (logger
``debias.io.pairs``) and in :attr:`~debias.data.JudgedPairs.sparse_judges`.

Judges' own tables (one row per battle) join the table of human verdicts on the item and the
unordered pair (:func:`join_judge_tables`). A file is read by :func:`read_pair_file`, which reads
only the columns used, so that a table with many other columns costs only the ones read.

Errors are :class:`~debias.io.canonical.InputError` naming the table, the row (1-based with the
header as row 1, as a spreadsheet shows it) and the column.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from debias.data.pairs import JudgedPairs, UnknownVerdicts, parse_mapping, verdict_codes
from debias.io.canonical import InputError
from debias.io.rules import (
    Rows,
    cell_codes,
    code_names,
    order_values,
    refuse_repeated_raters,
    require_columns,
    trimmed_names,
)
from debias.io.style import STYLE, STYLE_COVARIATES, style_counts

__all__ = [
    "CANONICAL_PAIR_COLUMNS",
    "OPTIONAL_PAIR_COLUMNS",
    "canonical_pair_table",
    "file_columns",
    "join_judge_tables",
    "parse_mapping",
    "read_pair_file",
    "read_pair_table",
]

log = logging.getLogger(__name__)


def _columns(frame: pd.DataFrame, columns: Sequence[str], source: str) -> None:
    require_columns(list(frame.columns), columns, source)


def read_pair_file(
    path: str | Path, columns: Sequence[str], fmt: str | None = None, *, quoting=None, format_option: str | None = "fmt"
) -> pd.DataFrame:
    """The columns ``columns`` of a table file, and no other (:func:`debias.io.reader.read_table_file`:
    CSV, TSV, Parquet or JSONL, gzipped or not); CSV and TSV cells as text, each distinct text held
    once (a categorical column)."""
    from debias.io.reader import read_table_file

    wanted = list(dict.fromkeys(columns))
    cells = read_table_file(path, wanted, fmt, quoting=quoting, format_option=format_option)
    return pd.DataFrame(cells)


def file_columns(path: str | Path, fmt: str | None = None, *, quoting=None) -> list[str]:
    """The column names of a table file (its header, or its schema), without reading its rows."""
    from debias.io.reader import _header, table_format

    path = Path(path)
    if path.is_dir():
        raise InputError(str(path), "is a folder, not a table file")
    if not path.exists():
        raise InputError(str(path), "no such file")
    kind = table_format(path, fmt)
    if kind == "parquet":
        import pyarrow.parquet as pq

        return pq.read_schema(path).names
    if kind == "jsonl":
        return list(pd.read_json(path, lines=True, dtype=False, compression="infer", nrows=1).columns)
    return _header(path, "\t" if kind == "tsv" else ",", (kind != "tsv") if quoting is None else quoting)


def _judge_mapping(mapping: Mapping | None, own: Mapping | None) -> Mapping | None:
    """A judge's mapping: the table's, extended (and overridden) by the judge's own."""
    if not own:
        return mapping
    return {**(mapping or {}), **own}


def _verdicts(values: pd.Series, column: str, rows: Rows, mapping, judge=None):
    """``(codes, no_verdict, continuous)`` of a column of verdicts, read once per distinct
    value; ``no_verdict`` marks the rows whose answer the mapping reads as no verdict."""
    codes, uniques = cell_codes(values, column, rows)
    uniques = np.asarray(uniques, dtype=object)
    try:
        coded = verdict_codes(uniques, mapping=mapping, judge=judge)
    except UnknownVerdicts as error:
        # counted per row, not per distinct value
        per_value = np.bincount(codes[codes >= 0], minlength=len(uniques))
        position = {value: k for k, value in enumerate(uniques)}
        counts = {value: int(per_value[position[value]]) for value in error.counts}
        row = int(np.flatnonzero(codes == error.first)[0])
        message = UnknownVerdicts(counts, error.first, error.what, judge, error.probabilities)
        raise rows.error(row, f"column {column!r}: {message}", column) from None
    except ValueError as error:  # a bad mapping
        raise InputError(rows.sources[0], f"column {column!r}: {error}", column=column) from None
    # per distinct value, then gathered row by row (a null cell, code -1, takes the last entry)
    unknown = set(coded.unknown)
    no_verdict = np.array([value in unknown for value in uniques] + [False], dtype=bool)[codes]
    return np.append(coded.codes, np.nan)[codes], no_verdict, coded.continuous


def _refuse_shadowing(judges: Sequence[str], roles: Mapping[str, str | None], source: str) -> None:
    """Refuse a judge whose column is one of the table's own columns (item, systems, verdict, rater)."""
    taken = {column: role for role, column in roles.items() if column}
    for judge in judges:
        if judge in taken:
            raise InputError(
                source,
                f"judge {judge!r} is the table's {taken[judge]} column: a judge's verdicts must be a column of their"
                " own (rename the judge, or give its column)",
                column=judge,
            )


def _refuse_mappings_of_strangers(judge_mappings, judges, source) -> None:
    """An :class:`InputError` when ``judge_mappings`` names a judge that is not one of ``judges``
    (a judge's mapping is for a judge read from the table)."""
    strangers = [name for name in judge_mappings if name not in judges]
    if strangers:
        raise InputError(
            source,
            f"judge_mappings: {strangers[0]!r} is not one of the judges ({judges or 'none given'}): a judge's"
            " mapping is for a judge read from the table",
        )


def read_pair_table(
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
    source: str = "table",
    task: str = "evaluation",
    cluster: str | None = None,
    order: str | None = None,
    covariates: Mapping[str, Sequence[str]] | None = None,
    by: str | Sequence[str] | None = None,
    pool_source: str = "pool",
) -> JudgedPairs:
    """The battles of a long table (and of an unlabelled ``pool`` table) as :class:`JudgedPairs`.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per human verdict (module notes).
    item, system_a, system_b, verdict : str
        Columns naming the item, the two systems and holding the human verdict.
    rater : str, optional
        Column naming the rater of each verdict.
    judges : sequence of str
        Columns with a judge's verdict (or probability that A is better) each; the column name is
        the judge's name. A judge cannot be one of the columns above.
    pool : pandas.DataFrame, optional
        Battles without human verdicts: ``item``, ``system_a``, ``system_b`` and the judges' columns.
    mapping : mapping, optional
        Extra verdict spellings or numeric codes (:func:`debias.data.verdict_codes`), for people
        and judges alike; a target ``None`` reads a value as no verdict.
    judge_mappings : mapping, optional
        ``{judge: mapping}``: a judge's own spellings, extending ``mapping``.
    source : str
        What the errors call ``frame`` (e.g. its file name).
    task : str
        The name of the battles (:attr:`JudgedPairs.task`: a preference task's name).
    cluster : str, optional
        Column naming each battle's cluster (:attr:`JudgedPairs.clusters`: the question, document
        or conversation several battles share), in the pool too. Default: none given, the item is
        the cluster.
    order : str, optional
        Column saying when each vote arrived: numbers (a sequence number, seconds) or date-times
        (ISO 8601), one kind throughout; empty only on a row without a verdict; not read in the
        pool. The table is read sorted by it, stably (rows with equal values keep the table's
        order), rows without a verdict last; each battle's first vote is its
        :attr:`JudgedPairs.arrival`. Default: the table's order is the order of arrival.
    covariates : mapping, optional
        ``{name: (column on A's side, column on B's side)}``: numbers per battle for style control
        (:attr:`JudgedPairs.covariates`), in the pool too; a battle on several rows takes its
        first row's.
    by : str or sequence of str, optional
        Columns labelling each battle (a category, a turn, a language), kept as
        :attr:`JudgedPairs.facets` for breakdowns; in the pool too. The same on every row of a
        battle, never empty (an error naming the row and the column).
    pool_source : str
        What the errors call ``pool`` (its file name, say); default "pool".

    Returns
    -------
    JudgedPairs
        Battles in order of first appearance (the table's, then the pool's; with ``order``, of
        the table sorted by it), each oriented as on its first row; systems in order of first
        appearance too.

    Raises
    ------
    InputError
        A missing column, a bad row (naming it), a verdict that is neither a known spelling nor
        mapped (listing each with its count), a judge disagreeing with itself on a battle, an
        empty cluster or a battle whose rows name two clusters, a vote without its order or an
        order that is no number or date-time. Rows are named as the table has them, sorted or not.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"q": ["q1", "q1", "q2"], "a": ["x", "y", "y"], "b": ["y", "x", "z"],
    ...                       "winner": ["model_a", "model_b", None], "gpt": [1, 2, 3]})
    >>> pairs = read_pair_table(table, item="q", system_a="a", system_b="b", verdict="winner", judges=["gpt"],
    ...                         mapping={1: "a", 2: "b", 3: "tie"})
    >>> pairs.human_counts.tolist(), pairs.human.tolist(), pairs.judge_verdicts[:, 0].tolist()
    ([2, 0], [1.0, 1.0], [1.0, 0.5])
    """
    judges = list(dict.fromkeys([judges] if isinstance(judges, str) else judges))  # one string: one judge
    judge_mappings = dict(judge_mappings or {})
    _refuse_mappings_of_strangers(judge_mappings, judges, source)
    roles = {"item": item, "system A": system_a, "system B": system_b, "verdict": verdict, "rater": rater}
    _refuse_shadowing(judges, {**roles, "cluster": cluster, "order": order}, source)
    by = [by] if isinstance(by, str) else list(dict.fromkeys(by or ()))
    named = [item, system_a, system_b, verdict, *(c for c in (rater, cluster, order) if c), *by]
    _columns(frame, [*named, *judges], source)
    if frame.empty:
        raise InputError(source, "the table has no rows")
    n_rows = len(frame)
    verdicts = _verdicts(frame[verdict].reset_index(drop=True), verdict, Rows.of((source, n_rows)), mapping)[0]
    if order:
        # the table as the votes arrived: sorted by the order column, rows without a verdict last
        voted = ~np.isnan(verdicts)
        when = order_values(frame[order].reset_index(drop=True), order, Rows.of((source, n_rows)), empty_ok=~voted)[0]
        arrived = np.argsort(np.where(voted, when, np.inf), kind="stable")
        frame, verdicts, when = frame.iloc[arrived].reset_index(drop=True), verdicts[arrived], when[arrived]
    for name, sides in (covariates or {}).items():
        if not str(name).strip():
            raise InputError(source, f"covariates: a covariate named {name!r}: give each covariate a name")
        if isinstance(sides, str):  # one column name, not a pair of them
            raise InputError(
                source, f"covariate {name!r}: give a pair of columns, A's side and B's side, got {sides!r}"
            )
    covariates = {str(k): tuple(v) for k, v in (covariates or {}).items()}
    for name, sides in covariates.items():
        if len(sides) != 2 or not all(isinstance(c, str) and c for c in sides):
            raise InputError(source, f"covariate {name!r}: give two columns, A's side and B's side, got {sides!r}")
    side_columns = [c for sides in covariates.values() for c in sides]
    _columns(frame, side_columns, source)
    keep = list(dict.fromkeys([item, system_a, system_b, *([cluster] if cluster else []), *by, *judges, *side_columns]))
    if pool is not None:
        _columns(pool, keep, pool_source)
        table = pd.concat([frame[keep].reset_index(drop=True), pool[keep].reset_index(drop=True)], ignore_index=True)
    else:
        table = frame[keep].reset_index(drop=True)

    rows = Rows.of((source, n_rows), *([(pool_source, len(pool))] if pool is not None else []))
    if order:
        rows = rows.reordered(arrived)
    item_codes, item_names = code_names(table[item], item, rows)
    item_names = np.asarray(item_names, dtype=object)
    both, systems = code_names([table[system_a], table[system_b]], [system_a, system_b], rows)
    systems = np.asarray(systems, dtype=object)
    code_a, code_b = both[: len(table)].astype(np.int64), both[len(table) :].astype(np.int64)
    del both
    same = code_a == code_b
    if same.any():
        row = int(np.flatnonzero(same)[0])
        message = f"columns {system_a!r} and {system_b!r} name the same system {systems[code_a[row]]!r}"
        raise rows.error(row, message, system_b)
    human = np.full(len(table), np.nan)
    human[:n_rows] = verdicts
    n_systems = len(systems)
    # a battle is the item and the unordered pair; its orientation is its first row's
    unique_items = np.bincount(item_codes, minlength=len(item_names)).max() == 1
    if unique_items:
        # every item on one row: each row is its own battle, in the items' order of first appearance
        battle = item_codes.astype(np.int64)
    else:
        low, high = np.minimum(code_a, code_b), np.maximum(code_a, code_b)
        battle, _ = pd.factorize((item_codes.astype(np.int64) * n_systems + low) * n_systems + high)
        del low, high
    n_battles = int(battle.max()) + 1
    repeated = n_battles < battle.size  # some battle on more than one row
    if repeated:
        first_row = np.full(n_battles, -1, dtype=np.int64)
        first_row[battle[::-1]] = np.arange(battle.size)[::-1]
        flipped = code_a != code_a[first_row[battle]]
        human[flipped] = 1.0 - human[flipped]
    else:  # each row its own battle, in order
        first_row = np.arange(battle.size)
    clusters = _battle_values(table[cluster], cluster, rows, battle, first_row, "cluster") if cluster else None
    sides = {}
    for name, columns in covariates.items():
        if repeated:
            _same_sides(table, name, columns, rows, battle, first_row, flipped)
        if name == STYLE:  # the two response columns: their style counts
            sides.update(_style_sides(table, columns, rows, first_row))
        else:
            sides[name] = _covariate_sides(table, name, columns, rows, first_row)
    repeated_names = [n for n in STYLE_COVARIATES if n in covariates and STYLE in covariates]
    if repeated_names:
        raise InputError(source, f"covariate {repeated_names[0]!r} is given and also counted by {STYLE!r}")
    facets = {c: _battle_values(table[c], c, rows, battle, first_row, "breakdown value") for c in by} or None
    judge_matrix = np.empty((n_battles, len(judges)), order="F")  # every column written below
    unknown = np.zeros(len(judges), dtype=np.int64)
    for j, judge in enumerate(judges):
        judge_mapping = _judge_mapping(mapping, judge_mappings.get(judge))
        codes, not_verdict, _ = _verdicts(table[judge], judge, rows, judge_mapping, judge=judge)
        if not repeated:
            unknown[j] = int(not_verdict.sum())
            judge_matrix[:, j] = codes
            continue
        codes[flipped] = 1.0 - codes[flipped]
        unknown[j] = int(not_verdict[first_row].sum())  # once per battle, however many raters it has
        first = codes[first_row[battle]]
        # a probability p and its flip 1 - p written elsewhere agree to rounding
        with np.errstate(invalid="ignore"):
            conflict = ~((np.abs(codes - first) <= 1e-9) | (np.isnan(codes) & np.isnan(first)))
        if conflict.any():
            row = int(np.flatnonzero(conflict)[0])
            raise rows.error(
                row,
                f"column {judge!r}: the judge's verdict differs from the one on the battle's first row"
                f" ({rows.name(int(first_row[battle[row]]))}; a row giving the systems in the other order has its"
                " verdict flipped)",
                judge,
            )
        judge_matrix[:, j] = codes[first_row]
    has_verdict = ~np.isnan(human)
    if rater:
        # a rater names a verdict; a row without one (a battle only the judges saw) may leave it empty
        rater_codes, rater_names = code_names(
            frame[rater].reset_index(drop=True), rater, rows, empty_ok=~has_verdict[:n_rows]
        )
        rater_codes = np.concatenate([rater_codes, np.full(len(table) - n_rows, -1, dtype=np.int32)])
        judged = np.flatnonzero(has_verdict)
        key = battle[judged].astype(np.int64) * len(rater_names) + rater_codes[judged]
        refuse_repeated_raters(key, judged, rater_codes[judged], rater_names, "this battle", rater, rows)
        sequence = np.lexsort((np.arange(battle.size), rater_codes, battle))
    else:
        sequence = np.argsort(battle, kind="stable") if repeated else battle
    sequence = sequence[has_verdict[sequence]]
    counts = np.bincount(battle[has_verdict], minlength=n_battles)
    arrival = None
    if order:  # each battle's first vote (the rows are in order)
        voted_rows = np.flatnonzero(has_verdict)[::-1]
        arrival = np.full(n_battles, np.nan)
        arrival[battle[voted_rows]] = when[voted_rows]
    # systems in order of first appearance, row by row, A before B
    first_a = np.full(n_systems, np.iinfo(np.int64).max)
    first_b = first_a.copy()
    first_a[code_a[::-1]] = 2 * np.arange(code_a.size)[::-1]  # the last write of an index wins
    first_b[code_b[::-1]] = 2 * np.arange(code_b.size)[::-1] + 1
    first_seen = np.minimum(first_a, first_b)
    rank = np.empty(n_systems, dtype=np.int64)
    rank[np.argsort(first_seen, kind="stable")] = np.arange(n_systems)
    pairs = JudgedPairs(
        tuple(str(s) for s in systems[np.argsort(first_seen, kind="stable")]),
        rank[code_a[first_row]],
        rank[code_b[first_row]],
        human[sequence],
        counts,
        tuple(judges),
        judge_matrix,
        item_names if unique_items else item_names[item_codes[first_row]],
        unknown,
        task,
        clusters,
        arrival,
        sides or None,
        facets,
    )
    for judge, share in zip(pairs.judges, pairs.judge_coverage):
        if judge in pairs.sparse_judges:
            log.warning(
                "%s: judge %r gave a verdict on %d of %d battles (%.0f%%)%s",
                source,
                judge,
                int(round(share * pairs.n_battles)),
                pairs.n_battles,
                100 * share,
                f"; {int(unknown[judges.index(judge)])} answers read as no verdict"
                if unknown[judges.index(judge)]
                else "",
            )
    return pairs


def _covariate_sides(table: pd.DataFrame, name: str, columns, rows: Rows, first_row: np.ndarray) -> np.ndarray:
    """A covariate's two sides (B, 2) from its battles' first rows: numbers, never missing."""
    out = np.empty((first_row.size, 2))
    for k, column in enumerate(columns):
        values = pd.to_numeric(table[column], errors="coerce").to_numpy(dtype=float)
        bad = ~np.isfinite(values)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise rows.error(
                row, f"covariate {name!r}: column {column!r} holds {table[column].iloc[row]!r}, not a number", column
            )
        out[:, k] = values[first_row]
    return out


def _same_sides(table: pd.DataFrame, name: str, columns, rows: Rows, battle, first_row, flipped) -> None:
    """Refuse a battle whose rows give its covariate other values than its first row (a row
    written the other way round gives them the other way round): the model would read only the
    first row's, and the number would depend on the rows' order."""
    a = table[columns[0]].to_numpy(dtype=object)
    b = table[columns[1]].to_numpy(dtype=object)
    mine_a, mine_b = np.where(flipped, b, a), np.where(flipped, a, b)  # as the battle's first row writes it
    first = first_row[battle]
    differs = np.zeros(len(a), dtype=bool)
    for mine, theirs in ((mine_a, a[first]), (mine_b, b[first])):  # missing on both: the same (refused later)
        differs |= (mine != theirs) & ~(pd.isna(mine) & pd.isna(theirs))
    _refuse_other_values(
        differs,
        rows,
        battle,
        first_row,
        columns[0],
        f"covariate {name!r}: columns {columns[0]!r}, {columns[1]!r}",
        "value per response",
        lambda row: f"({a[row]!r}, {b[row]!r})",
        flipped,
    )


def _style_sides(table: pd.DataFrame, columns, rows: Rows, first_row: np.ndarray) -> dict[str, np.ndarray]:
    """The style counts (:func:`debias.io.style.style_counts`) of the two response columns, each
    (B, 2), from the battles' first rows; a missing text is refused naming its row."""
    out = {name: np.empty((first_row.size, 2)) for name in STYLE_COVARIATES}
    for k, column in enumerate(columns):
        values = table[column].to_numpy(dtype=object)[first_row]
        bad = [i for i, v in enumerate(values) if not isinstance(v, str)]
        if bad:
            raise rows.error(
                int(first_row[bad[0]]),
                f"covariate {STYLE!r}: column {column!r} holds {values[bad[0]]!r}, not a text",
                column,
            )
        for name, counts in style_counts(values).items():
            out[name][:, k] = counts
    return out


def _battle_values(values: pd.Series, column: str, rows: Rows, battle: np.ndarray, first_row: np.ndarray, noun: str):
    """Each battle's value of a column (names trimmed; a cluster, a breakdown level), from the rows
    of the table and its pool: an empty value, or a row giving another value than its battle's
    first row, is an error naming the row, the column and both values."""
    codes, names = code_names(values, column, rows)
    differs = codes != codes[first_row[battle]]
    _refuse_other_values(
        differs, rows, battle, first_row, column, f"column {column!r}", noun, lambda row: repr(names[codes[row]])
    )
    return np.asarray(names, dtype=object)[codes[first_row]]


def _refuse_other_values(
    differs: np.ndarray,
    rows: Rows,
    battle: np.ndarray,
    first_row: np.ndarray,
    column: str,
    where: str,
    noun: str,
    shown: Callable[[int], str],
    flipped: np.ndarray | None = None,
) -> None:
    """Refuse the first row whose value ``differs`` from its battle's first row's: a battle (its
    raters' verdicts, in either order of the systems) has one ``noun``. The message names ``where``
    (the column), both rows and both values as ``shown`` writes a row's; a row written the other
    way round (``flipped``) is said to be."""
    if not differs.any():
        return
    row = int(np.flatnonzero(differs)[0])
    first = int(first_row[battle[row]])
    turned = " the other way round" if flipped is not None and flipped[row] else ""
    raise rows.error(
        row,
        f"{where}: {noun} {shown(row)}, but the battle's first row ({rows.name(first)}) names {shown(first)}{turned}:"
        f" a battle has one {noun} (its rows are its raters' verdicts, in either order of the systems)",
        column,
    )


def _unordered(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(low, high, flipped)``: each row's two names in text order, and whether A is the later."""
    flipped = np.fromiter((x > y for x, y in zip(a, b)), dtype=bool, count=len(a))
    return np.where(flipped, b, a), np.where(flipped, a, b), flipped


def _key_frame(table: pd.DataFrame, keys: Sequence[str], source: str, *, refuse_empty: bool):
    """The trimmed item and unordered pair of every row (``_item``, ``_low``, ``_high``) and
    whether the row gives the pair the other way round."""
    rows = Rows.of((source, len(table)))
    names = [trimmed_names(table[key].reset_index(drop=True), key, rows) for key in keys]
    if refuse_empty:
        for key, values in zip(keys, names):
            empty = (values.isna() | (values == "")).to_numpy()
            if empty.any():
                raise rows.error(int(np.flatnonzero(empty)[0]), f"column '{key}' is empty", key)
        same = (names[1] == names[2]).to_numpy()
        if same.any():
            row = int(np.flatnonzero(same)[0])
            raise rows.error(
                row, f"columns {keys[1]!r} and {keys[2]!r} name the same system {names[1][row]!r}", keys[2]
            )
    filled = [n.fillna("").to_numpy(dtype=object) for n in names]
    low, high, flipped = _unordered(filled[1], filled[2])
    return pd.DataFrame({"_item": filled[0], "_low": low, "_high": high}), flipped, names


def join_judge_tables(
    frame: pd.DataFrame,
    judge_tables: Mapping[str, tuple],
    *,
    item: str,
    system_a: str,
    system_b: str,
    mapping: Mapping | None = None,
    columns: Sequence[str] = (),
) -> pd.DataFrame:
    """``frame`` with one column per judge from tables holding one verdict per battle.

    A judge table's battle joins the rows of ``frame`` with the same item and the same two
    systems in either order: where the two give the systems the other way round, the judge's
    verdict is flipped to the row's (so ``a`` becomes ``b``, a probability p becomes 1 - p).

    Parameters
    ----------
    frame : pandas.DataFrame
        The table of human verdicts (one row per verdict, :func:`read_pair_table`).
    judge_tables : mapping
        ``{judge: (table, column, source)}`` or ``{judge: (table, column, source, mapping)}``: a
        table with one row per battle (``item``, ``system_a``, ``system_b``), the column holding the
        judge's verdict, what errors call the table (e.g. its file name) and the judge's own
        verdict mapping (extending ``mapping``).
    item, system_a, system_b : str
        The columns that name a battle in every table (names trimmed of surrounding whitespace).
    mapping : mapping, optional
        Verdict spellings or codes for every judge (:func:`debias.data.verdict_codes`).
    columns : sequence of str
        Further columns of ``frame`` that every judge table has too (the battle's cluster): the
        rows of the battles only a judge table holds take them from it.

    Returns
    -------
    pandas.DataFrame
        ``frame``'s rows with a column named after each judge, then one row (without a human
        verdict, i.e. of the unlabelled pool) per battle that only the judge tables hold. A judge's
        column holds ``a``, ``b``, ``tie`` or empty (its probabilities as numbers), in the row's
        orientation; an answer its mapping reads as no verdict is kept as written, so that
        :func:`read_pair_table` given the same mapping counts it.

    Raises
    ------
    InputError
        A judge table without one of the columns, with an empty name, with a battle on two rows
        (in either order), or with an answer that is not a verdict (naming the judge, the values
        and their counts); a judge named like a column of ``frame``.
    """
    keys = [item, system_a, system_b]
    _columns(frame, keys, "table")
    joined = frame.reset_index(drop=True).copy()
    key_frame, row_flipped, names = _key_frame(joined, keys, "table", refuse_empty=False)
    for key, values in zip(keys, names):
        joined[key] = values
    taken = set(joined.columns)
    for judge, spec in judge_tables.items():
        table, column, source = spec[:3]
        own = spec[3] if len(spec) > 3 else None
        _columns(table, [*keys, column, *columns], source)
        if judge in taken:
            raise InputError(source, f"judge {judge!r} has the name of a column of the table of human verdicts")
        rows = Rows.of((source, len(table)))
        verdicts, flipped, judge_names = _key_frame(table, keys, source, refuse_empty=True)
        twice = verdicts.duplicated(keep="first").to_numpy()
        if twice.any():
            row = int(np.flatnonzero(twice)[0])
            battle = ", ".join(f"{k}={judge_names[n][row]!r}" for n, k in enumerate(keys))
            first = int(np.flatnonzero((verdicts == verdicts.iloc[row]).all(axis=1).to_numpy())[0])
            raise rows.error(
                row,
                f"the battle ({battle}) is also on row {first + 2} (in either order of the systems): a judge table has"
                " one row per battle",
            )
        raw = table[column].reset_index(drop=True)
        codes, not_verdict, continuous = _verdicts(raw, column, rows, _judge_mapping(mapping, own), judge=judge)
        codes[flipped] = 1.0 - codes[flipped]  # in the text order of the pair
        verdicts["_code"] = codes
        verdicts["_raw"] = np.where(not_verdict, raw.to_numpy(dtype=object), None)
        # the rows of the table in their order, then the battles only the judge table holds
        merged = key_frame.merge(verdicts, on=["_item", "_low", "_high"], how="left", sort=False)
        code = merged["_code"].to_numpy(dtype=float)
        code = np.where(row_flipped, 1.0 - code, code)
        joined[judge] = _written(code, merged["_raw"].to_numpy(dtype=object), continuous)
        extra = ~pd.MultiIndex.from_frame(verdicts[["_item", "_low", "_high"]]).isin(
            pd.MultiIndex.from_frame(key_frame)
        )
        if extra.any():
            added = pd.DataFrame({keys[n]: judge_names[n][extra].to_numpy() for n in range(3)})
            for name in dict.fromkeys(c for c in columns if c not in keys):
                added[name] = table[name].reset_index(drop=True)[extra].to_numpy(dtype=object)
            code = np.where(flipped[extra], 1.0 - codes[extra], codes[extra])
            added[judge] = _written(code, verdicts["_raw"].to_numpy(dtype=object)[extra], continuous)
            joined = pd.concat([joined, added], ignore_index=True)
            key_frame = pd.concat([key_frame, verdicts.loc[extra, ["_item", "_low", "_high"]]], ignore_index=True)
            row_flipped = np.concatenate([row_flipped, flipped[extra]])
        taken.add(judge)
    return joined


def _written(codes: np.ndarray, raw: np.ndarray, continuous: bool) -> np.ndarray:
    """Codes as a judge column: probabilities as numbers, verdicts as ``a``/``b``/``tie``; an
    answer read as no verdict (``raw`` not null: a merge may have turned its None into NaN) as
    written, else empty."""
    if continuous:
        out = codes.astype(object)
    else:
        out = np.full(codes.size, "", dtype=object)
        for code, spelling in ((1.0, "a"), (0.0, "b"), (0.5, "tie")):
            out[codes == code] = spelling
    kept = pd.notna(raw).astype(bool) if raw.size else np.zeros(0, bool)
    out[kept] = raw[kept]
    return out


#: The columns of a canonical table of battles (the schema's defaults of a preference task), then
#: ``rater``, ``cluster`` and ``order`` when there are such and one column per judge.
CANONICAL_PAIR_COLUMNS = ("item", "system_a", "system_b", "verdict")
#: The optional columns of a canonical table of battles.
OPTIONAL_PAIR_COLUMNS = ("rater", "cluster", "order")


def _spelled(values: pd.Series, mapping, judge: str | None = None) -> np.ndarray:
    """Verdicts written as ``a``, ``b`` or ``tie``, empty where missing (or read as no verdict);
    a judge's probabilities as numbers."""
    coded = verdict_codes(values.to_numpy(dtype=object), mapping=mapping, judge=judge)
    if coded.continuous:
        return np.where(np.isnan(coded.codes), "", coded.codes.astype(object))
    return _written(coded.codes, np.full(coded.codes.size, None, dtype=object), False)


def canonical_pair_table(
    frame: pd.DataFrame,
    *,
    item: str,
    system_a: str,
    system_b: str,
    verdict: str,
    rater: str | None = None,
    judges: Mapping[str, str] | None = None,
    pool: pd.DataFrame | None = None,
    mapping: Mapping | None = None,
    judge_mappings: Mapping[str, Mapping] | None = None,
    source: str = "table",
    cluster: str | None = None,
    order: str | None = None,
) -> pd.DataFrame:
    """A table of battles in the canonical columns a preference task reads by default.

    The table is first read as :func:`read_pair_table` reads it (so a bad row is an
    :class:`InputError` naming it); then ``frame``'s rows and the ``pool``'s (without a human
    verdict) are written with the columns ``item``, ``system_a``, ``system_b`` (trimmed),
    ``verdict`` (``a``, ``b``, ``tie`` or empty), ``rater`` and ``cluster`` (when given, trimmed),
    ``order`` (when given, as written; a date-time of the file's own type in ISO 8601; empty on the
    pool's rows) and one column per judge (``judges`` maps the judge's name to its column; verdicts spelled
    ``a``/``b``/``tie`` or empty, probabilities as numbers): mappings applied, so the table needs
    none. A judge cannot be named like a canonical column (``item``, ``system_a``, ``system_b``,
    ``verdict``, ``rater``, ``cluster``, ``order``). The rows keep the table's order: a reader
    given the ``order`` column sorts them.
    """
    judges = dict(judges or {})
    judge_mappings = dict(judge_mappings or {})
    _refuse_mappings_of_strangers(judge_mappings, judges, source)
    for judge in judges:
        if judge in (*CANONICAL_PAIR_COLUMNS, *OPTIONAL_PAIR_COLUMNS):
            named = ", ".join((*CANONICAL_PAIR_COLUMNS, *OPTIONAL_PAIR_COLUMNS))
            raise InputError(
                source,
                f"judge {judge!r} has the name of a column of the canonical table ({named}): give the judge another"
                " name",
                column=judges[judge],
            )
    columns = list(dict.fromkeys(judges.values()))
    read_pair_table(
        frame,
        item=item,
        system_a=system_a,
        system_b=system_b,
        verdict=verdict,
        rater=rater,
        judges=columns,
        pool=pool,
        mapping=mapping,
        judge_mappings={judges_column: judge_mappings[j] for j, judges_column in judges.items() if j in judge_mappings},
        source=source,
        cluster=cluster,
        order=order,
    )
    parts = [frame] + ([pool.assign(**{verdict: ""})] if pool is not None else [])
    table = pd.concat([p.reset_index(drop=True) for p in parts], ignore_index=True)
    rows = Rows.of((source, len(frame)), *([("pool", len(pool))] if pool is not None else []))
    out = pd.DataFrame(
        {
            "item": trimmed_names(table[item], item, rows),
            "system_a": trimmed_names(table[system_a], system_a, rows),
            "system_b": trimmed_names(table[system_b], system_b, rows),
            "verdict": _spelled(table[verdict], mapping),
        }
    )
    if rater:
        out["rater"] = trimmed_names(table[rater], rater, rows).fillna("")
    if cluster:
        out["cluster"] = trimmed_names(table[cluster], cluster, rows)
    if order:
        out["order"] = [_order_text(value) for value in table[order].to_numpy(dtype=object).tolist()]
    for judge, column in judges.items():
        out[judge] = _spelled(table[column], _judge_mapping(mapping, judge_mappings.get(judge)), judge=judge)
    return out


def _order_text(value):
    """An order cell as a canonical table writes it: text trimmed, a date-time in ISO 8601,
    a number as it is, empty for a missing value."""
    if value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NaT:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, np.datetime64):
        value = pd.Timestamp(value)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value
