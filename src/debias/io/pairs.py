"""Judged pairs from a long table: one row per human verdict, judges' verdicts as columns.

A battle is a row's (item, system A, system B), names trimmed of surrounding whitespace. Rows of
the same battle are its raters' verdicts (``rater`` names them; a rater judging a battle twice is
refused); a row with an empty verdict is a battle of the unlabelled pool, and so is every row of
the optional ``pool`` table (same columns, its verdict column, if any, ignored). A judge's verdict
must be the same on every row of a battle. Verdict spellings: :mod:`debias.data.pairs`.

Errors are :class:`~debias.io.canonical.InputError` naming the table, the row (1-based with the
header as row 1, as a spreadsheet shows it) and the column.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from debias.data.pairs import JudgedPairs, UnknownVerdicts, verdict_codes
from debias.io.canonical import InputError

__all__ = ["read_pair_table"]


def _names(frame: pd.DataFrame, column: str, source: str) -> np.ndarray:
    values = frame[column]
    missing = values.isna().to_numpy()
    text = values.astype(str).str.strip().to_numpy(dtype=object)
    empty = missing | (text == "")
    if empty.any():
        raise InputError(f"{source}: row {int(np.flatnonzero(empty)[0]) + 2}", f"column {column!r} is empty")
    return text


def _columns(frame: pd.DataFrame, columns: Sequence[str], source: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(source, f"no column {missing[0]!r} (columns: {list(frame.columns)})")


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
    parts = [(frame, source, True)]
    if pool is not None:
        _columns(pool, [item, system_a, system_b, *judges], "pool")
        parts.append((pool, "pool", False))
    keys, human, raters = [], [], []
    judge_codes, unknown = {j: [] for j in judges}, {j: {} for j in judges}
    for table, name, labelled in parts:
        names = [_names(table, column, name) for column in (item, system_a, system_b)]
        same = names[1] == names[2]
        if same.any():
            row = int(np.flatnonzero(same)[0])
            raise InputError(
                f"{name}: row {row + 2}",
                f"columns {system_a!r} and {system_b!r} name the same system {names[1][row]!r}",
            )
        keys.append(names)
        if labelled:
            try:
                human.append(verdict_codes(table[verdict].to_numpy(dtype=object), mapping=mapping).codes)
            except UnknownVerdicts as error:
                raise InputError(f"{name}: row {error.first + 2}", f"column {verdict!r}: {error}") from None
            raters.append(table[rater].astype(str).str.strip().to_numpy(dtype=object) if rater else None)
        else:
            human.append(np.full(len(table), np.nan))
            raters.append(np.full(len(table), "", dtype=object) if rater else None)
        for judge in judges:
            coded = verdict_codes(table[judge].to_numpy(dtype=object), mapping=mapping, judge=judge)
            judge_codes[judge].append(coded.codes)
            for value, count in coded.unknown.items():
                unknown[judge][value] = unknown[judge].get(value, 0) + count
    sizes = [len(table) for table, _, _ in parts]
    columns = [np.concatenate([k[c] for k in keys]) for c in range(3)]
    battle_keys = pd.MultiIndex.from_arrays(columns)
    battle, uniques = pd.factorize(battle_keys)
    human = np.concatenate(human)
    n_battles = len(uniques)

    def row_name(position: int) -> str:
        for (_, name, _), size in zip(parts, sizes):
            if position < size:
                return f"{name}: row {position + 2}"
            position -= size
        raise IndexError(position)

    first_row = np.full(n_battles, -1, dtype=np.int64)
    first_row[battle[::-1]] = np.arange(battle.size)[::-1]
    judge_matrix = np.full((n_battles, len(judges)), np.nan)
    for j, judge in enumerate(judges):
        codes = np.concatenate(judge_codes[judge])
        first = codes[first_row[battle]]
        conflict = ~((codes == first) | (np.isnan(codes) & np.isnan(first)))
        if conflict.any():
            row = int(np.flatnonzero(conflict)[0])
            raise InputError(
                row_name(row),
                f"column {judge!r}: the judge's verdict differs from the one on the battle's first row"
                f" ({row_name(int(first_row[battle[row]]))})",
            )
        judge_matrix[:, j] = codes[first_row]
    has_verdict = ~np.isnan(human)
    if rater:
        rater_names = np.concatenate(raters)
        pairs_seen = pd.DataFrame({"battle": battle[has_verdict], "rater": rater_names[has_verdict]})
        duplicated = pairs_seen.duplicated().to_numpy()
        if duplicated.any():
            row = int(np.flatnonzero(has_verdict)[np.flatnonzero(duplicated)[0]])
            raise InputError(row_name(row), f"rater {rater_names[row]!r} judged this battle twice (column {rater!r})")
        order = np.lexsort((np.arange(battle.size), rater_names, battle))
    else:
        order = np.argsort(battle, kind="stable")
    order = order[has_verdict[order]]
    counts = np.bincount(battle[has_verdict], minlength=n_battles)
    systems = list(dict.fromkeys(np.stack([columns[1], columns[2]], axis=1).ravel()))
    position = {name: k for k, name in enumerate(systems)}
    first_a = columns[1][first_row]
    first_b = columns[2][first_row]
    return JudgedPairs(
        tuple(systems),
        np.fromiter((position[s] for s in first_a), dtype=np.int64, count=n_battles),
        np.fromiter((position[s] for s in first_b), dtype=np.int64, count=n_battles),
        human[order],
        counts,
        tuple(judges),
        judge_matrix,
        tuple(columns[0][first_row]),
        np.array([sum(unknown[j].values()) for j in judges], dtype=np.int64),
    )
