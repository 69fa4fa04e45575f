"""Judged pairs from a long table: one row per human verdict, judges' verdicts as columns.

A battle is a row's (item, system A, system B), names trimmed of surrounding whitespace by the
ratings reader's rules (:mod:`debias.io.rules`): an empty or null name is refused, and so is a cell
holding a list or an object. Rows of the same battle are its raters' verdicts (``rater`` names
them, trimmed alike: a row with a verdict needs a rater, a rater judging a battle twice is
refused); a row with an empty verdict is a battle of the unlabelled pool, and so is every row of
the optional ``pool`` table (same columns, its verdict column, if any, ignored). A judge's verdict
must be the same on every row of a battle (a pool row with the key of a battle of the table is a row
of that battle). Two conversations of the same item between the same two systems are two battles
only if ``item`` tells them apart (a battle number, say). Verdict spellings: :mod:`debias.data.pairs`.

Errors are :class:`~debias.io.canonical.InputError` naming the table, the row (1-based with the
header as row 1, as a spreadsheet shows it) and the column.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from debias.data.pairs import JudgedPairs, UnknownVerdicts, verdict_codes
from debias.io.canonical import InputError
from debias.io.rules import Rows, cell_codes, code_names, refuse_repeated_raters, trimmed_names

__all__ = ["CANONICAL_PAIR_COLUMNS", "canonical_pair_table", "join_judge_tables", "read_pair_table"]


def _columns(frame: pd.DataFrame, columns: Sequence[str], source: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(source, f"no column {missing[0]!r} (columns: {list(frame.columns)})")


def _verdicts(values: pd.Series, column: str, rows: Rows, mapping, judge=None):
    """``(codes, unknown)`` of a column of verdicts, read once per distinct value; ``unknown`` (a
    judge's column only) marks the rows whose answer is not a verdict."""
    codes, uniques = cell_codes(values, column, rows)
    uniques = np.asarray(uniques, dtype=object)
    if judge is None:
        try:
            coded = verdict_codes(uniques, mapping=mapping)
        except UnknownVerdicts:
            try:
                verdict_codes(values.to_numpy(dtype=object), mapping=mapping)
            except UnknownVerdicts as error:
                raise rows.error(error.first, f"column {column!r}: {error}", column) from None
            raise
        unknown = {}
    else:
        coded = verdict_codes(uniques, mapping=mapping, judge=judge)
        position = {value: k for k, value in enumerate(uniques)}
        unknown = np.isin(codes, [position[value] for value in coded.unknown])
    full = np.full(codes.size, np.nan)
    full[codes >= 0] = coded.codes[codes[codes >= 0]]
    return full, unknown


def read_pair_table(
    frame: pd.DataFrame,
    *,
    item: str,
    system_a: str,
    system_b: str,
    verdict: str,
    rater: str | None = None,
    judges: Sequence[str] = (),
    pool: pd.DataFrame | None = None,
    mapping: Mapping | None = None,
    source: str = "table",
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
        Columns with a judge's verdict each; the column name is the judge's name.
    pool : pandas.DataFrame, optional
        Battles without human verdicts: ``item``, ``system_a``, ``system_b`` and the judges' columns.
    mapping : mapping, optional
        Extra verdict spellings or numeric codes (:func:`debias.data.verdict_codes`), for people
        and judges alike.
    source : str
        What the errors call ``frame`` (e.g. its file name); the pool is "pool".

    Returns
    -------
    JudgedPairs
        Battles in order of first appearance (the table's, then the pool's); systems too.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"q": ["q1", "q1", "q2"], "a": ["x", "x", "y"], "b": ["y", "y", "z"],
    ...                       "winner": ["model_a", "tie", None], "gpt": ["a", "a", "b"]})
    >>> pairs = read_pair_table(table, item="q", system_a="a", system_b="b", verdict="winner", judges=["gpt"])
    >>> pairs.human_counts.tolist(), pairs.judge_verdicts[:, 0].tolist()
    ([2, 0], [1.0, 0.0])
    """
    judges = list(dict.fromkeys(judges))
    _columns(frame, [item, system_a, system_b, verdict, *([rater] if rater else []), *judges], source)
    if frame.empty:
        raise InputError(source, "the table has no rows")
    n_rows = len(frame)
    keep = list(dict.fromkeys([item, system_a, system_b, *judges]))
    if pool is not None:
        _columns(pool, keep, "pool")
        table = pd.concat([frame[keep], pool[keep]], ignore_index=True)
    else:
        table = frame[keep].reset_index(drop=True)

    rows = Rows.of((source, n_rows), *([("pool", len(pool))] if pool is not None else []))
    item_codes, item_names = code_names(table[item], item, rows)
    item_names = np.asarray(item_names, dtype=object)
    both, systems = code_names([table[system_a], table[system_b]], [system_a, system_b], rows)
    systems = np.asarray(systems, dtype=object)
    code_a, code_b = both[: len(table)].astype(np.int64), both[len(table) :].astype(np.int64)
    same = code_a == code_b
    if same.any():
        row = int(np.flatnonzero(same)[0])
        message = f"columns {system_a!r} and {system_b!r} name the same system {systems[code_a[row]]!r}"
        raise rows.error(row, message, system_b)
    human = np.full(len(table), np.nan)
    human[:n_rows] = _verdicts(frame[verdict].reset_index(drop=True), verdict, rows, mapping)[0]
    n_systems = len(systems)
    battle, _ = pd.factorize((item_codes.astype(np.int64) * n_systems + code_a) * n_systems + code_b)
    n_battles = int(battle.max()) + 1
    first_row = np.full(n_battles, -1, dtype=np.int64)
    first_row[battle[::-1]] = np.arange(battle.size)[::-1]
    judge_matrix = np.full((n_battles, len(judges)), np.nan)
    unknown = np.zeros(len(judges), dtype=np.int64)
    for j, judge in enumerate(judges):
        codes, not_verdict = _verdicts(table[judge], judge, rows, mapping, judge=judge)
        unknown[j] = int(not_verdict[first_row].sum())  # once per battle, however many raters it has
        first = codes[first_row[battle]]
        conflict = ~((codes == first) | (np.isnan(codes) & np.isnan(first)))
        if conflict.any():
            row = int(np.flatnonzero(conflict)[0])
            raise rows.error(
                row,
                f"column {judge!r}: the judge's verdict differs from the one on the battle's first row"
                f" ({rows.name(int(first_row[battle[row]]))})",
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
        order = np.lexsort((np.arange(battle.size), rater_codes, battle))
    else:
        order = np.argsort(battle, kind="stable")
    order = order[has_verdict[order]]
    counts = np.bincount(battle[has_verdict], minlength=n_battles)
    # systems in order of first appearance, row by row, A before B
    first_a = np.full(n_systems, np.iinfo(np.int64).max)
    first_b = first_a.copy()
    first_a[code_a[::-1]] = 2 * np.arange(code_a.size)[::-1]  # the last write of an index wins
    first_b[code_b[::-1]] = 2 * np.arange(code_b.size)[::-1] + 1
    first_seen = np.minimum(first_a, first_b)
    rank = np.empty(n_systems, dtype=np.int64)
    rank[np.argsort(first_seen, kind="stable")] = np.arange(n_systems)
    return JudgedPairs(
        tuple(str(s) for s in systems[np.argsort(first_seen, kind="stable")]),
        rank[code_a[first_row]],
        rank[code_b[first_row]],
        human[order],
        counts,
        tuple(judges),
        judge_matrix,
        item_names[item_codes[first_row]],
        unknown,
    )


def join_judge_tables(
    frame: pd.DataFrame,
    judge_tables: Mapping[str, tuple[pd.DataFrame, str, str]],
    *,
    item: str,
    system_a: str,
    system_b: str,
) -> pd.DataFrame:
    """``frame`` with one column per judge from tables holding one verdict per battle.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table of human verdicts (one row per verdict, :func:`read_pair_table`).
    judge_tables : mapping
        ``{judge: (table, column, source)}``: a table with one row per battle (``item``,
        ``system_a``, ``system_b``), the column holding the judge's verdict, and what errors call
        the table (e.g. its file name).
    item, system_a, system_b : str
        The columns that name a battle in every table (names trimmed of surrounding whitespace).

    Returns
    -------
    pandas.DataFrame
        ``frame``'s rows with a column named after each judge, then one row (without a human
        verdict, i.e. of the unlabelled pool) per battle that only the judge tables hold.

    Raises
    ------
    InputError
        A judge table without one of the columns, or with a battle on two rows.
    """
    keys = [item, system_a, system_b]

    def trimmed(table: pd.DataFrame, source: str) -> pd.DataFrame:
        table = table.copy()
        for key in keys:
            table[key] = trimmed_names(table[key], key, Rows.of((source, len(table))))
        return table

    joined = trimmed(frame, "table").reset_index(drop=True)
    taken = set(joined.columns)
    for judge, (table, column, source) in judge_tables.items():
        _columns(table, [*keys, column], source)
        if judge in taken:
            raise InputError(source, f"judge {judge!r} has the name of a column of the table of human verdicts")
        verdicts = trimmed(table, source)[[*keys, column]].rename(columns={column: judge})
        twice = verdicts.duplicated(keys, keep="first").to_numpy()
        if twice.any():
            row = int(np.flatnonzero(twice)[0])
            battle = ", ".join(f"{k}={verdicts[k].iloc[row]!r}" for k in keys)
            first = int(np.flatnonzero(verdicts[keys].eq(verdicts[keys].iloc[row]).all(axis=1).to_numpy())[0])
            raise Rows.of((source, len(verdicts))).error(
                row, f"the battle ({battle}) is also on row {first + 2}: a judge table has one row per battle"
            )
        # the rows of the table in their order, then the battles only the judge table holds
        joined = joined.merge(verdicts, on=keys, how="left", sort=False)
        known = pd.MultiIndex.from_frame(joined[keys].astype(str))
        extra = ~pd.MultiIndex.from_frame(verdicts[keys].astype(str)).isin(known)
        if extra.any():
            joined = pd.concat([joined, verdicts[extra]], ignore_index=True)
        taken.add(judge)
    return joined


#: The columns of a canonical table of battles (the schema's defaults of a preference task), then
#: ``rater`` when there is one and one column per judge.
CANONICAL_PAIR_COLUMNS = ("item", "system_a", "system_b", "verdict")


def _spelled(values: pd.Series, mapping) -> np.ndarray:
    """Verdicts written as ``a``, ``b`` or ``tie``, empty where missing; an answer that is not a
    verdict (a judge's) is kept as written, so that reading the table again counts it again."""
    text = values.to_numpy(dtype=object)
    coded = verdict_codes(text, mapping=mapping, judge="judge")
    spelled = np.full(text.size, "", dtype=object)
    for code, spelling in ((1.0, "a"), (0.0, "b"), (0.5, "tie")):
        spelled[coded.codes == code] = spelling
    if coded.unknown:
        kept = pd.Series(text).isin(list(coded.unknown)).to_numpy()
        spelled[kept] = text[kept].astype(str)
    return spelled


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
    source: str = "table",
) -> pd.DataFrame:
    """A table of battles in the canonical columns a preference task reads by default.

    The table is first read as :func:`read_pair_table` reads it (so a bad row is an
    :class:`InputError` naming it); then ``frame``'s rows and the ``pool``'s (without a human
    verdict) are written with the columns ``item``, ``system_a``, ``system_b`` (trimmed),
    ``verdict`` (``a``, ``b``, ``tie`` or empty), ``rater`` (when given) and one column per judge
    (``judges`` maps the judge's name to its column; verdicts spelled ``a``/``b``/``tie``, an
    answer that is not a verdict kept as written).
    """
    judges = dict(judges or {})
    read_pair_table(
        frame,
        item=item,
        system_a=system_a,
        system_b=system_b,
        verdict=verdict,
        rater=rater,
        judges=list(dict.fromkeys(judges.values())),
        pool=pool,
        mapping=mapping,
        source=source,
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
    for judge, column in judges.items():
        out[judge] = _spelled(table[column], mapping)
    return out
