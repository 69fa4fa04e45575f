"""The reading rules the ratings reader (:mod:`debias.io.reader`) and the pair reader
(:mod:`debias.io.pairs`) share: where a row is, how a column of names is coded, and that a rater
judges a unit (an output on a prompt, a battle) once.

* A row is named ``<source>: row N``, the header being row 1, as a spreadsheet shows it (in a CSV
  or TSV file a blank line is a row of its own, so N is the line of a row without line breaks in
  its cells: :func:`~debias.io.canonical.shown_row`); rows of several tables read as one (a table,
  then its pool) are each named in their own table, the pool by its file (:class:`Rows`).
* Names are trimmed of surrounding whitespace; an empty or null name is refused, except on the
  rows a reader allows it (a row without a judgment or verdict may leave its prompt or rater
  empty): such a row's name is coded ``-1`` (:func:`code_names`).
* A cell holding a list or an object (JSON's nested values) is refused in every column a reader
  codes (:func:`cell_codes`).
* A name holding a control character (a NUL byte; any of ASCII's but the tab and the line
  breaks) is refused, naming the row and column (:func:`code_names`).
* Two different values that would be one name once written as text (the number ``1`` and the
  text ``"1"`` in one column of a DataFrame) are refused, naming both rows (:func:`code_names`).
* Two names that are one once normalised (Unicode's NFKC, invisible characters removed) are
  refused; two names that differ only by letters of other scripts drawn like Latin ones (a
  Cyrillic "х" and a Latin "x") are read as two names with an :class:`InputWarning` naming
  both spellings and their rows (:func:`look_alike`, :func:`confusable_twins`).
* A table naming a column twice is refused, naming the column and both positions
  (:func:`require_columns`).
* A name a user writes (in a question, ``--baseline``) means the table's name that reads the
  same (:func:`debias.data.names.find_name`); messages show names with invisible characters and, in names not
  composed, combining marks escaped (:func:`debias.data.names.shown_names`).
* A rater naming the same unit twice is refused, on the second row, naming the first
  (:func:`refuse_repeated_raters`).
* Errors are :class:`~debias.io.canonical.InputError` carrying the source, the row and the column.

Every rule is vectorised: a column is factorised once, and its distinct values are trimmed and
checked, not its rows.
"""

from __future__ import annotations

import bisect
import json
import unicodedata
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from debias.data.names import find_name, name_key, shown_name, shown_names
from debias.io.canonical import InputError, InputWarning, shown_row

__all__ = [
    "Rows",
    "cell_codes",
    "code_names",
    "confusable_twins",
    "look_alike",
    "order_values",
    "refuse_repeated_raters",
    "require_columns",
    "system_named",
    "trimmed_names",
]


@dataclass(frozen=True)
class Rows:
    """The rows of one table, or of several read as one (a table then its pool), by position.

    ``sources[k]`` names the table whose first row is at position ``starts[k]``. ``positions``,
    when given, maps the rows as read to where they were in the tables (a table sorted by its
    order column before it is read, :func:`order_values`): errors name the row as written.
    """

    sources: tuple[str, ...]
    starts: tuple[int, ...]
    positions: np.ndarray | None = None

    def reordered(self, positions: np.ndarray) -> Rows:
        """The same tables read in another order: row ``k`` as read is row ``positions[k]`` of
        these rows (positions past the end of ``positions`` keep their place)."""
        positions = np.asarray(positions, dtype=np.int64)
        if self.positions is not None:
            positions = self.positions[positions]
        return Rows(self.sources, self.starts, positions)

    @classmethod
    def of(cls, *tables: tuple[str, int]) -> Rows:
        """The rows of tables ``(source, number of rows)`` stacked in that order."""
        starts = np.cumsum([0, *(n for _, n in tables[:-1])]).tolist()
        return cls(tuple(source for source, _ in tables), tuple(int(s) for s in starts))

    def locate(self, position: int) -> tuple[str, int]:
        """The source and row (the header being row 1) of the row at ``position``."""
        if self.positions is not None and int(position) < self.positions.size:
            position = int(self.positions[int(position)])
        part = bisect.bisect_right(self.starts, int(position)) - 1
        return self.sources[part], int(position) - self.starts[part] + 2

    def name(self, position: int) -> str:
        """``<source>: row N`` of the row at ``position`` (as a spreadsheet shows a file's rows,
        :func:`~debias.io.canonical.shown_row`)."""
        source, row = self.locate(position)
        return f"{source}: row {shown_row(source, row)}"

    def error(self, position: int, message: str, column: str | None = None) -> InputError:
        """An :class:`InputError` on the row at ``position``."""
        source, row = self.locate(position)
        return InputError(source, message, row=row, column=column)


def _nested(value) -> str | None:
    """What a cell that is not a single value holds (``"a list"``), or ``None``."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, (list, tuple, set, np.ndarray)):
        return "a list"
    return None


def cell_codes(values: pd.Series, column: str | Sequence[str], rows: Rows) -> tuple[np.ndarray, object]:
    """``pandas.factorize`` of a column (``-1``: null), refusing a cell that holds a list or an
    object (a nested JSON value) with its row and column. ``column`` is one name, or one per
    stacked part when ``values`` holds several columns of ``len(values) / len(column)`` rows each."""
    try:
        return pd.factorize(values, use_na_sentinel=True)
    except (TypeError, NotImplementedError) as error:
        kinds = [_nested(v) for v in values.to_numpy(dtype=object)]
        bad = next((k for k, kind in enumerate(kinds) if kind), None)
        if bad is None:
            raise error from None
        names = [column] if isinstance(column, str) else list(column)
        part, position = divmod(bad, len(values) // len(names))
        found = values.iloc[bad]
        try:
            shown = json.dumps(found.tolist() if isinstance(found, np.ndarray) else found)
        except (TypeError, ValueError):
            shown = repr(found)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise rows.error(
            position, f"column {names[part]!r}: expected a single value, found {kinds[bad]} {shown}", names[part]
        ) from None


def code_names(
    values: pd.Series | Sequence[pd.Series],
    column: str | Sequence[str],
    rows: Rows,
    *,
    empty_ok: np.ndarray | None = None,
) -> tuple[np.ndarray, list[str]]:
    """Codes and names of a column of names, trimmed of surrounding whitespace.

    The column is factorised, its distinct values trimmed and factorised again, so that names
    differing only by surrounding spaces are one name; names keep the order of their first row.
    An empty or null cell is coded ``-1``, and is an error naming its row and column except on
    the rows ``empty_ok`` marks.

    Parameters
    ----------
    values : pandas.Series, or a sequence of them of the same length
        The names; several columns (system A and system B) are coded together, as one set of
        names.
    column : str, or one per column of ``values``
        The columns' names, for errors.
    rows : Rows
        Where each row is, for errors.
    empty_ok : numpy.ndarray of bool, optional
        The rows (of one column) whose name may be empty.

    Returns
    -------
    codes : numpy.ndarray of int32
        Each row's name (``-1``: empty); the columns' codes one after the other.
    names : numpy.ndarray of str (object)
        The distinct names.
    """
    parts = [values] if isinstance(values, pd.Series) else list(values)
    columns = [column] * len(parts) if isinstance(column, str) else list(column)
    n = len(parts[0])
    joined = parts[0] if len(parts) == 1 else pd.concat([p.reset_index(drop=True) for p in parts], ignore_index=True)
    codes, uniques = cell_codes(joined, columns, rows)
    merged, names = _trimmed_codes(uniques)
    alike = _text_and_other(uniques, merged)
    if alike is not None:  # 1 (a number) and "1" (text): two values that would be one name
        (first, second), texts = alike, [_kind(uniques[k]) for k in alike]
        part, position = divmod(int(np.flatnonzero(codes == second)[0]), n)
        earlier = rows.name(divmod(int(np.flatnonzero(codes == first)[0]), n)[1])
        raise rows.error(
            position,
            f"column '{columns[part]}': {uniques[second]!r} ({texts[1]}) and {uniques[first]!r} ({texts[0]},"
            f" {earlier}) are different values written alike as the name {names[merged[first]]!r}: give the"
            " column one type (all text, say)",
            columns[part],
        )
    codes = np.append(merged, -1).astype(np.int32)[codes]
    blank = codes < 0
    bad = blank if empty_ok is None else blank & ~np.tile(np.asarray(empty_ok, dtype=bool), len(parts))
    if bad.any():
        part, position = divmod(int(np.flatnonzero(bad)[0]), n)
        raise rows.error(position, f"column '{columns[part]}' is empty", columns[part])
    control = _with_control(names)
    if control is not None:
        part, position = divmod(int(np.flatnonzero(codes == control)[0]), n)
        name = str(names[control])
        ch = next(c for c in name if c in _CONTROL)
        raise rows.error(
            position,
            f"column '{columns[part]}': the name {name!r} holds the control character U+{ord(ch):04X}: remove it"
            " (a name holds no control character but the tab and line breaks)",
            columns[part],
        )
    twins = look_alike(names)
    if twins is not None:
        first, second = twins
        part, position = divmod(int(np.flatnonzero(codes == second)[0]), n)
        earlier = rows.name(divmod(int(np.flatnonzero(codes == first)[0]), n)[1])
        raise rows.error(
            position,
            f"column '{columns[part]}': {names[second]!r} looks the same as {names[first]!r} ({earlier}) but is"
            " written with other code points (Unicode normalisation, or an invisible character such as a zero-width"
            " space): write one name the same way everywhere",
            columns[part],
        )
    pairs = confusable_twins(names)
    if pairs:
        where = []
        for first, second in pairs[:3]:
            rows_of = [rows.name(int(np.flatnonzero(codes == k)[0]) % n) for k in (first, second)]
            letters = ", ".join(
                f"{ch!r} {unicodedata.name(ch).lower()}"
                for ch in dict.fromkeys(str(names[first]) + str(names[second]))
                if ch in _LATIN_LOOK
            )
            where.append(
                f"{names[first]!r} ({rows_of[0]}) and {names[second]!r} ({rows_of[1]}) differ only by letters of"
                f" other scripts drawn alike ({letters})"
            )
        more = f"; {len(pairs) - 3} more such pairs" if len(pairs) > 3 else ""
        named = ", ".join(f"'{c}'" for c in dict.fromkeys(columns))
        warnings.warn(
            f"column{'s' if ', ' in named else ''} {named}: {'; '.join(where)}{more}: read as different names"
            " (if they are one, write it one way everywhere)",
            InputWarning,
            stacklevel=2,
        )
    return codes, names


#: The control characters of ASCII a name may not hold: C0 but the tab and the line breaks (an
#: item written as a question's text may span lines in a quoted cell), and DEL.
_CONTROL = "".join(chr(c) for c in [*range(32), 127] if chr(c) not in "\t\n\r")


def _with_control(names) -> int | None:
    """The position of the first of ``names`` holding a control character of :data:`_CONTROL`
    (a NUL byte), or ``None``; the names are searched as one Arrow array."""
    if not len(names):
        return None
    texts = pa.array([str(name) for name in names], type=pa.large_string())
    found = pc.match_substring_regex(texts, "[\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f]").to_numpy(zero_copy_only=False)
    hits = np.flatnonzero(found)
    return int(hits[0]) if hits.size else None


# Letters of the Cyrillic and Greek scripts drawn (nearly) like a Latin letter in common fonts,
# mapped to that letter: the common look-alikes of Unicode's confusables list (UTS #39), not all
# of it. Two names equal once these are mapped read as one name to a person.
_LATIN_LOOK = {
    **dict(zip("аеорсухіјѕԁԛԝһӏ", "aeopcyxijsdqwhl", strict=True)),  # Cyrillic lower case
    **dict(zip("АВЕКМНОРСТУХІЈЅ", "ABEKMHOPCTYXIJS", strict=True)),  # Cyrillic upper case
    **dict(zip("ορνικυ", "opviku", strict=True)),  # Greek lower case
    **dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "ABEZHIKMNOPTYX", strict=True)),  # Greek upper case
}
_AS_LATIN = str.maketrans(_LATIN_LOOK)


def confusable_twins(names) -> list[tuple[int, int]]:
    """The pairs ``(first, second)`` of positions of ``names`` that differ as text but are the
    same once the Cyrillic and Greek letters drawn like Latin ones are written as those Latin
    letters (:data:`_LATIN_LOOK`): a Cyrillic "х" beside a Latin "x". Names of plain ASCII, and
    names holding none of those letters, are compared as they are (no work for most tables)."""
    texts = [str(name) for name in names]
    suspects = [k for k, text in enumerate(texts) if not text.isascii() and not _LATIN_LOOK.keys().isdisjoint(text)]
    if not suspects:
        return []
    first_of = {text: k for k, text in reversed(list(enumerate(texts)))}
    found = []
    for k in suspects:
        key = unicodedata.normalize("NFKC", texts[k]).translate(_AS_LATIN)
        other = first_of.get(key)
        if other is not None and other != k:
            found.append((min(other, k), max(other, k)))
        elif other is None:
            first_of[key] = k
    return sorted(set(found))


def _kind(value) -> str:
    """What a distinct value of a column of names is, for errors: text, or its type."""
    if isinstance(value, str):
        return "text"
    if isinstance(value, bool | np.bool_):
        return "a boolean"
    if isinstance(value, int | float | np.integer | np.floating):
        return "a number"
    return f"a {type(value).__name__}"


def _text_and_other(uniques, merged: np.ndarray) -> tuple[int, int] | None:
    """The first two distinct values, one text and one not (a number), that become the same
    name once written as text and trimmed; ``None`` when there are none (a column all text, or
    all numbers, never has them)."""
    kind = pd.api.types.infer_dtype(uniques, skipna=True)
    if kind == "string" or isinstance(getattr(uniques, "dtype", None), pd.StringDtype | pd.CategoricalDtype):
        return None
    text = np.fromiter((isinstance(v, str) for v in uniques), dtype=bool, count=len(uniques))
    if text.all() or not text.any():
        return None
    keep = merged >= 0
    with_text = np.zeros(int(merged.max(initial=-1)) + 1, dtype=bool)
    with_other = with_text.copy()
    with_text[merged[keep & text]] = True
    with_other[merged[keep & ~text]] = True
    both = np.flatnonzero(with_text & with_other)
    if both.size == 0:
        return None
    members = np.flatnonzero(merged == both[0])
    one = members[text[members]][0]
    other = members[~text[members]][0]
    return (int(min(one, other)), int(max(one, other)))


def look_alike(names) -> tuple[int, int] | None:
    """The first two of ``names`` that differ as text but read the same (:func:`~debias.data.names.name_key`);
    ``None`` when there are none."""
    seen: dict[str, int] = {}
    for k, name in enumerate(names):
        key = name_key(name)
        if key in seen:
            return seen[key], k
        seen[key] = k
    return None


def system_named(name, systems, where: str, what: str = "table") -> str:
    """The system of ``systems`` that an option or setting ``where`` names (:func:`~debias.data.names.find_name`); an
    :class:`InputError` naming ``where`` and the systems (:func:`~debias.data.names.shown_names`) when none is."""
    spelled = find_name(name, systems)
    if spelled is None:
        raise InputError(where, f"no system {shown_name(name)} in the {what} (systems: {shown_names(systems)})")
    return spelled


#: The characters ``str.strip()`` removes (those ``str.isspace()`` calls whitespace), for Arrow's trim.
WHITESPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def _texts(uniques) -> tuple[pa.Array, bool]:
    """Distinct values (of :func:`cell_codes`) as Arrow text: text as it is, any other value as
    ``str`` writes it; and whether they were all text (then they are still distinct)."""
    was_text = isinstance(getattr(uniques, "dtype", None), pd.StringDtype)
    was_text = was_text or pd.api.types.infer_dtype(uniques, skipna=False) == "string"
    texts = pd.Index(uniques).astype(str)
    if isinstance(texts.array, pd.arrays.ArrowStringArray):
        return pa.array(texts.array), was_text
    return pa.array(np.asarray(texts, dtype=object), type=pa.large_string()), was_text


def _trimmed_codes(uniques) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, names)``: each distinct value's code among its trimmed names (``-1``: empty),
    and the names in order of first appearance. Trimmed and coded as arrays: the values are
    only coded again when trimming (or writing a non-text value as text) merged or emptied some."""
    texts, distinct = _texts(uniques)
    trimmed = pc.utf8_trim(texts, characters=WHITESPACE)
    empty = pc.equal(pc.binary_length(trimmed), 0)
    if distinct and trimmed.equals(texts) and not pc.any(empty).as_py():
        return np.arange(len(texts), dtype=np.int64), _strings(trimmed)
    encoded = pc.dictionary_encode(pc.if_else(empty, pa.scalar(None, trimmed.type), trimmed))
    codes = encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False)
    return codes.astype(np.int64), _strings(encoded.dictionary)


def _strings(texts: pa.Array) -> np.ndarray:
    """Arrow text as a numpy array of ``str`` objects."""
    return np.asarray(texts.to_numpy(zero_copy_only=False), dtype=object)


def trimmed_names(values: pd.Series, column: str, rows: Rows) -> pd.Series:
    """A column of names as text trimmed of surrounding whitespace (each distinct value trimmed
    once), null cells kept null (NaN); the index is kept. A nested value is refused
    (:func:`cell_codes`)."""
    codes, uniques = cell_codes(values, column, rows)
    texts = np.append(_strings(pc.utf8_trim(_texts(uniques)[0], characters=WHITESPACE)), np.nan)
    return pd.Series(texts[codes], index=values.index, dtype=object)


def refuse_repeated_raters(
    key: np.ndarray,
    positions: np.ndarray,
    rater: np.ndarray,
    raters: Sequence[str],
    what: str,
    column: str,
    rows: Rows,
    *,
    ordered: bool = False,
) -> None:
    """Refuse a rater who judged the same unit twice.

    ``key[k]`` codes the unit and the rater of the judgment on the row at ``positions[k]`` (two
    judgments with the same key are one rater's of one unit), ``rater[k]`` the rater (an index
    into ``raters``). With ``ordered`` the judgments are already sorted by key, and by row within
    a key. The error names the rater, the second row of the earliest repeat and its first row:
    ``rater 'r1' judged <what> twice (first on row N)``.
    """
    if len(key) < 2:
        return
    if not ordered:
        order = np.lexsort((positions, key))
        key, positions, rater = key[order], positions[order], rater[order]
    twice = np.flatnonzero(key[1:] == key[:-1]) + 1
    if len(twice):
        second = twice[np.argmin(positions[twice])]
        _, first_row = rows.locate(int(positions[second - 1]))
        raise rows.error(
            int(positions[second]),
            f"rater {raters[int(rater[second])]!r} judged {what} twice (first on row {first_row})",
            column,
        )


def require_columns(present: Sequence[str], columns: Sequence[str], source: str) -> None:
    """Refuse a table (its column names ``present``: a file's header or schema, a DataFrame's
    labels) that names a column twice (which of the two would be read?), or lacks one of
    ``columns``; ``source`` names the table."""
    seen: dict = {}
    for position, name in enumerate(present, start=1):
        if name in seen:
            raise InputError(
                source,
                f"column {name!r} appears twice (columns {seen[name]} and {position}): rename one",
                column=str(name),
            )
        seen[name] = position
    missing = [c for c in columns if c not in seen]
    if missing:
        raise InputError(source, f"no column {missing[0]!r} (columns: {list(present)})", column=missing[0])


def _order_value(value) -> tuple[str, float] | None:
    """``(kind, number)`` of one order cell: ``("number", x)`` for a finite number (or text
    reading as one), ``("time", ns)`` for a date-time (or ISO 8601 text: nanoseconds since
    1970-01-01 UTC, a time without an offset read as UTC), ``None`` for anything else."""
    if isinstance(value, bool | np.bool_):
        return None
    if isinstance(value, int | float | np.integer | np.floating):
        number = float(value)
        return ("number", number) if np.isfinite(number) else None
    if isinstance(value, pd.Timestamp | np.datetime64) or hasattr(value, "isoformat"):
        try:
            stamp = pd.Timestamp(value)
            stamp = stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp.tz_convert("UTC")
            return "time", float(stamp.value)
        except (TypeError, ValueError):
            return None
    if not isinstance(value, str):
        return None
    text = value.strip()
    try:
        number = float(text)
    except ValueError:
        pass
    else:
        return ("number", number) if np.isfinite(number) else None
    if not text[:4].isdigit():  # ISO 8601 starts with the year: no "yesterday" or "03/04/2025"
        return None
    try:
        stamp = pd.to_datetime(text, format="ISO8601", utc=True)
    except (TypeError, ValueError, OverflowError):
        return None
    return "time", float(stamp.value)


def order_values(
    values: pd.Series, column: str, rows: Rows, *, empty_ok: np.ndarray | None = None
) -> tuple[np.ndarray, str]:
    """Each row's place in an order column (when it arrived), as numbers to sort by.

    A column holds numbers (a vote's sequence number, seconds) or date-times (ISO 8601 text such
    as ``2025-03-04T10:15:00Z`` or ``2025-03-04 10:15``, or a file's own date-time type; a time
    without an offset is read as UTC), all of one kind, the first value's. A missing value is an
    error naming its row and the column, except on the rows ``empty_ok`` marks (NaN there); so is
    a value that is no number or date-time, or one of the other kind. Each distinct value is read
    once.

    Returns
    -------
    values : numpy.ndarray of float
        Each row's number, or date-time as nanoseconds since 1970-01-01 UTC; NaN where empty.
    kind : str
        ``"number"`` or ``"time"`` (``"number"`` for a column of empty cells only).
    """
    codes, uniques = cell_codes(values, column, rows)
    uniques = np.asarray(uniques, dtype=object)
    blank = np.array([isinstance(u, str) and not u.strip() for u in uniques.tolist()] + [True], dtype=bool)
    read = [None if blank[k] else _order_value(u) for k, u in enumerate(uniques.tolist())]
    is_blank = blank[codes]
    allowed = np.zeros(codes.size, bool) if empty_ok is None else np.asarray(empty_ok, dtype=bool)
    missing = is_blank & ~allowed
    first_used = np.flatnonzero(~is_blank)
    kinds = [r[0] if r else None for r in read]
    kind = "number"
    if first_used.size:
        kind = kinds[codes[first_used[0]]] or "number"
    wrong = np.array([not blank[k] and kinds[k] != kind for k in range(uniques.size)] + [False], dtype=bool)[codes]
    bad = missing | wrong
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        if missing[row]:
            raise rows.error(row, f"column {column!r} is empty: every vote needs its place in the order", column)
        value = uniques[codes[row]]
        shown = repr(value if not isinstance(value, str) else value.strip())
        if kinds[codes[row]] is None:
            what = "neither a number nor a date-time (ISO 8601, e.g. 2025-03-04T10:15:00Z)"
        else:
            what = f"a {kinds[codes[row]]}, but the column's first value ({rows.name(int(first_used[0]))}) is a {kind}"
            what = what.replace("a time", "a date-time")
        raise rows.error(row, f"column {column!r}: {shown} is {what}", column)
    numbers = np.array([r[1] if r else np.nan for r in read] + [np.nan], dtype=float)
    return numbers[codes], kind
