"""The one reader of evaluation tables: long tables of human judgments, one row per judgment.

``debias import`` (:mod:`debias.io.importer`) and the Python API (:mod:`debias.api`) both read a
table through :func:`read_evaluation_table`, so a table gives the same judgments, or the same
error, through either. The rules:

* the item, system, prompt and rater names are trimmed of surrounding spaces; an empty (or
  null) item, system or prompt is an error;
* several rows of the same output (system and item) and prompt are that output's judgments, in
  rater order when a rater column is given (a rater who judged the same output on the same
  prompt twice is an error), else in row order;
* a row whose judgment is empty is an output with no judgment on that row: an output none of
  whose rows has a judgment is unjudged, in the population with its scores;
* an output's text and score are the same on every row that gives them;
* an item's cluster (``cluster``: the document or question several items share) is named on
  every row of the item, the same on each; an empty cluster is an error;
* names become file and config names by :func:`safe_name`; two names that become the same, a
  name that is not a safe path part (``.``, ``..``) or longer than :data:`NAME_LIMIT` are errors;
* the rating scale is declared (``scale``: a judgment outside it is an error) or inferred per
  prompt from the judgments; an inferred scale is refused when one system's judgments span more
  than twice, and reach more than twice as far as, the other systems' typical ones (one system
  rated 0-100 among 1-5 systems);
* errors are :class:`debias.io.canonical.InputError` carrying the file, the row (the header is
  row 1) and the column.

Every step is vectorised over rows (factorised names, one stable sort), so a table of millions
of rows reads in seconds.
"""

from __future__ import annotations

import csv
import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from debias.data.judgments import Judgments
from debias.io.canonical import LARGEST_NUMBER, InputError
from debias.io.rules import Rows, cell_codes, code_names, refuse_repeated_raters
from debias.io.rules import require_columns as _require

__all__ = [
    "FORMATS",
    "NAME_LIMIT",
    "EvaluationTable",
    "TableColumns",
    "float_texts",
    "metric_name",
    "prompt_name",
    "read_evaluation_table",
    "read_judgments",
    "read_long_table",
    "read_table_file",
    "safe_name",
    "table_format",
    "unsafe_reason",
    "with_population",
]

FORMATS = {".csv": "csv", ".tsv": "tsv", ".txt": "tsv", ".parquet": "parquet", ".jsonl": "jsonl", ".json": "jsonl"}
#: The longest name (task, system, prompt, metric) the reader accepts, in characters.
NAME_LIMIT = 100
#: The characters kept in a file name (system, task) and in a config key (prompt, metric).
FILE_CHARACTERS, KEY_CHARACTERS = r"[^A-Za-z0-9_.+-]", r"[^A-Za-z0-9_]"
#: Names of the table's rows when it is given as a frame rather than a file.
FRAME = "table"


def safe_name(name: str, pattern: str = FILE_CHARACTERS) -> str:
    """A name the configuration accepts, from any text (runs of other characters become ``_``).
    A name written partly in letters or digits outside ASCII (Hebrew, Chinese, accented) keeps
    what is left and takes a short digest of the whole name, so that two such names stay two:
    ``'מערכת'`` and ``'نظام'`` become ``x_`` and two different digests."""
    text = str(name).strip()
    safe = re.sub(f"{pattern}+", "_", text).strip("_")
    if any(not c.isascii() and c.isalnum() for c in text):
        digest = hashlib.sha1(text.encode("utf-8")).hexdigest()[:8]
        return f"{safe[: NAME_LIMIT - 9] or 'x'}_{digest}"
    return safe or "x"


def prompt_name(name: str) -> str:
    """A prompt's name in the configuration (letters, digits and ``_``)."""
    return safe_name(name, KEY_CHARACTERS)


def metric_name(name: str) -> str:
    """A score column's metric name in the configuration: letters, digits and ``_``, starting
    with a letter (``m_`` is put before a name that does not)."""
    safe = safe_name(name, KEY_CHARACTERS)
    return safe if re.match("[A-Za-z]", safe) else f"m_{safe}"


def unsafe_reason(name: str) -> str | None:
    """Why a (sanitised) name cannot name a file or a config key, or ``None``."""
    if name in (".", ".."):
        return "is not a usable file name"
    if len(name) > NAME_LIMIT:
        return f"is longer than {NAME_LIMIT} characters ({len(name)})"
    return None


@dataclass(frozen=True)
class TableColumns:
    """Which column is what (``None``: absent). Without a system or prompt column every row
    belongs to ``system_name`` or ``prompt_name``; without a judgment column every output is
    unjudged (a population)."""

    item: str
    judgment: str | None
    system: str | None = None
    prompt: str | None = None
    rater: str | None = None
    output: str | None = None
    reference: str | None = None
    scores: tuple[str, ...] = ()
    system_name: str = "system"
    prompt_name: str = "score"
    #: The column naming each item's cluster (the document or question several items share).
    cluster: str | None = None

    def named(self) -> list[str]:
        """The columns the table must have, in order, each once."""
        given = [self.item, self.system, self.judgment, self.prompt, self.rater, self.output, self.reference]
        return list(dict.fromkeys(c for c in [*given, *self.scores, self.cluster] if c is not None))


@dataclass(frozen=True)
class EvaluationTable:
    """A long table, read and checked.

    Outputs (one per system and item, in order of first appearance) are indexed ``0..n-1``;
    judgments are sorted by output, prompt, then rater (or row).
    """

    source: str
    systems: tuple[str, ...]
    prompts: tuple[str, ...]
    metrics: tuple[str, ...]
    output_system: np.ndarray  # (n,) index into systems
    output_item: np.ndarray  # (n,) item names (object)
    output_text: np.ndarray | None  # (n,) output texts (object), None without an output column
    output_scores: np.ndarray  # (n, len(metrics)) float
    judgment_output: np.ndarray  # (J,) index into outputs
    judgment_prompt: np.ndarray  # (J,) index into prompts
    judgment_value: np.ndarray  # (J,) float
    references: dict[str, str] | None
    scale: dict[str, tuple[float, float]]
    scale_declared: bool
    #: A higher score is better (``False``: error counts, edit distances, ranked lowest first).
    higher_is_better: bool = True
    #: The name of the task the ratings' rows carry and their random draws are named after.
    task: str = "evaluation"
    #: Each item's cluster (item name -> cluster name: the document or question several items
    #: share), or ``None``: every item is its own cluster.
    item_cluster: Mapping[str, str] | None = None

    @property
    def output_cluster(self) -> np.ndarray | None:
        """The cluster of each output (aligned with :attr:`output_item`), or ``None``."""
        if self.item_cluster is None:
            return None
        names = pd.Index(list(self.item_cluster))
        clusters = np.asarray(list(self.item_cluster.values()), dtype=object)
        return clusters[names.get_indexer(self.output_item)]

    def with_settings(self, *, higher_is_better: bool, task: str) -> EvaluationTable:
        """The same table with another direction of better and another task name."""
        return replace(self, higher_is_better=bool(higher_is_better), task=str(task))

    def judgment_lists(self) -> dict[tuple[int, int], list[float]]:
        """``{(output, prompt): [judgment, ...]}`` for every judged output and prompt."""
        output, prompt, count, _, values = self.judgment_cells(texts=False)
        values = np.split(values, np.cumsum(count)[:-1]) if len(count) else []
        return {(int(o), int(p)): v.tolist() for o, p, v in zip(output, prompt, values)}

    def outputs_of(self, system: int) -> np.ndarray:
        """The outputs (indices) of one system, in order of appearance."""
        return np.flatnonzero(self.output_system == system)

    @cached_property
    def _judgments_by_system(self) -> tuple[np.ndarray, np.ndarray]:
        """The judgments (indices) sorted by system, keeping their order within a system, and
        where each system's run starts and ends."""
        system = self.output_system[self.judgment_output]
        order = np.argsort(system, kind="stable")
        return order, np.searchsorted(system[order], np.arange(len(self.systems) + 1))

    def judgment_cells(self, system: int | None = None, *, texts: bool = True):
        """The judged (output, prompt) cells of one system (default: of every system), ordered
        by output then prompt: each cell's output (its position among the system's outputs,
        :meth:`outputs_of`, or its index), its prompt, its number of judgments, and the judgments
        as JSON writes a list's items (``"3.0, 4.0"``; ``None`` with ``texts=False``). Last, the
        judgments themselves in the cells' order."""
        if system is None:
            where, prompt, values = self.judgment_output, self.judgment_prompt, self.judgment_value
        else:
            order, bounds = self._judgments_by_system
            mine = order[bounds[system] : bounds[system + 1]]
            position = np.full(len(self.output_system), -1)
            position[self.outputs_of(system)] = np.arange(np.count_nonzero(self.output_system == system))
            where, prompt = position[self.judgment_output[mine]], self.judgment_prompt[mine]
            values = self.judgment_value[mine]
        if not len(where):
            return where, prompt, np.zeros(0, dtype=int), np.zeros(0, dtype=object), values
        cells = where.astype(np.int64) * len(self.prompts) + prompt
        start = np.flatnonzero(np.r_[True, cells[1:] != cells[:-1]])
        count = np.diff(np.r_[start, len(cells)])
        if not texts:
            return where[start], prompt[start], count, None, values
        first = np.zeros(len(cells), dtype=bool)
        first[start] = True
        text = np.where(first, "", ", ").astype(object) + float_texts(values)
        return where[start], prompt[start], count, np.add.reduceat(text, start), values


def float_texts(values: np.ndarray) -> np.ndarray:
    """``repr`` of each float, as JSON writes it (computed once per distinct value)."""
    uniques, codes = np.unique(values, return_inverse=True)
    return np.array([repr(float(v)) for v in uniques], dtype=object)[codes.reshape(-1)]


def table_format(path: Path, given: str | None = None, option: str | None = "fmt") -> str:
    """The table's format from ``given`` or its file name (``.gz`` allowed). ``option`` is what
    the caller calls the format's setting (``--input-format`` on the command line), named when
    the name tells nothing; ``None`` when the caller takes no format (then the remedy is a name)."""
    if given:
        return given
    suffixes = [s for s in path.suffixes if s != ".gz"]
    if suffixes and suffixes[-1].lower() in FORMATS:
        return FORMATS[suffixes[-1].lower()]
    endings = ", ".join(FORMATS)
    if option is None:
        remedy = f"name the file with one of {endings} (then .gz when gzipped), or pass a pandas DataFrame"
    else:
        remedy = f"give {option}: {sorted(set(FORMATS.values()))}, or end the name in one of {endings}"
    raise InputError(str(path), f"cannot tell the format from the name ({remedy})")


def table_source(path: Path) -> Path | bytes:
    """What a table is read from: a regular file's path, or the bytes of anything else that can
    be read (a pipe, ``/dev/stdin``, a process substitution ``<(...)``): such a stream can be
    read once and not sought in, so it is read into memory once and parsed from there (gunzipped
    when it starts with gzip's magic number)."""
    import gzip

    if path.is_file():
        return path
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise InputError(str(path), f"cannot be read ({error.strerror or error})") from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as error:
            raise InputError(str(path), f"not a gzip stream ({error})") from None
    return data


def _text_handle(source: Path | bytes, **options):
    """A text handle on a table's source (:func:`table_source`), gunzipping a ``.gz`` file."""
    import gzip
    import io

    if isinstance(source, bytes):
        return io.TextIOWrapper(io.BytesIO(source), **options)
    opener = gzip.open if source.suffix == ".gz" else open
    return opener(source, "rt", **options)


def _binary(source: Path | bytes):
    """What pyarrow and pandas read: the path, or the bytes as a file object."""
    import io

    return io.BytesIO(source) if isinstance(source, bytes) else source


def _header(path: Path | bytes, sep: str, quoting: bool) -> list[str]:
    with _text_handle(path, encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle, delimiter=sep, quoting=csv.QUOTE_MINIMAL if quoting else csv.QUOTE_NONE)
        return next(reader, [])


def jsonl_problem(path: str | Path | bytes) -> str | None:
    """Where a JSON Lines file (gzipped or not; or its bytes, :func:`table_source`) stops being
    one: ``"line N: <what>"`` for the first line that is not a JSON object (blank lines are
    skipped, as the reader skips them); ``None`` when every line is one."""
    import json

    source = path if isinstance(path, bytes) else Path(path)
    try:
        with _text_handle(source, encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    value = json.loads(line)
                except json.JSONDecodeError as error:
                    return f"line {number}: not JSON ({error.msg} at character {error.colno})"
                if not isinstance(value, dict):
                    return f"line {number}: a JSON {type(value).__name__}, not an object (a row is an object)"
    except (OSError, EOFError, UnicodeDecodeError):
        return None
    return None


def _opened(path: str | Path) -> tuple[Path, Path | bytes]:
    """The path, and what it is read from (:func:`table_source`); a folder or a missing file is
    refused."""
    path = Path(path)
    if path.is_dir():
        raise InputError(str(path), "is a folder, not a table file")
    if not path.exists():
        raise InputError(str(path), "no such file")
    return path, table_source(path)


def read_table_file(
    path: str | Path,
    columns: Sequence[str],
    fmt: str | None = None,
    *,
    quoting=None,
    format_option: str | None = "fmt",
) -> dict[str, pd.Series]:
    """The named columns of a table file (CSV, TSV, Parquet or JSONL, plain or gzipped; a regular
    file, or a stream such as a pipe, read once).

    CSV and TSV cells are read as text, each distinct text held once (a categorical column;
    numbers are parsed where they are used). TSV is read as
    the data's own format by default: tabs separate, quotes are ordinary characters
    (``quoting=False``), so a text field holding a lone ``"`` is read as it is. A column name
    the table holds twice is refused. ``format_option`` names the setting of the format in the
    error for a name that tells none (:func:`table_format`).
    """
    path, source = _opened(path)
    fmt = table_format(path, fmt, format_option)
    return _read_columns(path, source, columns, fmt, quoting)


def _read_columns(path: Path, source: Path | bytes, columns: Sequence[str], fmt: str, quoting) -> dict[str, pd.Series]:
    import pyarrow as pa

    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            names = pq.read_schema(_binary(source)).names
            _require(names, columns, str(path))
            table = pq.read_table(_binary(source), columns=list(columns))
        elif fmt == "jsonl":
            try:
                frame = pd.read_json(_binary(source), lines=True, dtype=False, compression="infer")
            except (ValueError, TypeError):
                problem = jsonl_problem(source)
                if problem is None:
                    raise
                raise InputError(str(path), f"not a jsonl table: {problem}") from None
            _require(list(frame.columns), columns, str(path))
            return {name: frame[name] for name in columns}
        else:
            import pyarrow.csv as pcsv

            sep = "\t" if fmt == "tsv" else ","
            quoted = (fmt != "tsv") if quoting is None else quoting
            _require(_header(source, sep, quoted), columns, str(path))
            batches = pcsv.open_csv(
                _binary(source),
                parse_options=pcsv.ParseOptions(
                    delimiter=sep, quote_char='"' if quoted else False, newlines_in_values=quoted
                ),
                convert_options=pcsv.ConvertOptions(
                    include_columns=list(columns),
                    column_types={c: pa.dictionary(pa.int32(), pa.string()) for c in columns},
                ),
            )
            # batch by batch: only the parsed block and the columns' codes are held at a time
            table = pa.Table.from_batches(list(batches), schema=batches.schema)
    except InputError:
        raise
    except UnicodeDecodeError as error:
        raise InputError(str(path), f"not UTF-8 text ({error.reason} at byte {error.start})") from None
    except (pa.ArrowInvalid, pa.ArrowTypeError, ValueError, EOFError, OSError) as error:
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        if "UTF8" in message or "UTF-8" in message:
            raise InputError(str(path), f"not UTF-8 text ({message})") from None
        raise InputError(str(path), f"not a {fmt} table: {message}") from None
    cells = {}
    for name in columns:  # column by column, each freed from the Arrow table as it is converted
        chunks = table.column(name)
        table = table.drop_columns([name])
        cells[name] = chunks.to_pandas(types_mapper=None if pa.types.is_dictionary(chunks.type) else pd.ArrowDtype)
        del chunks
    del table
    pa.default_memory_pool().release_unused()
    return cells


def read_long_table(
    path: str | Path, fmt: str | None = None, *, quoting=None, format_option: str | None = "fmt"
) -> pd.DataFrame:
    """Every column of a table file, read by :func:`read_table_file` (CSV and TSV cells as plain
    text columns)."""
    import pyarrow.parquet as pq

    path, source = _opened(path)
    kind = table_format(path, fmt, format_option)
    try:
        if kind == "parquet":
            names = pq.read_schema(_binary(source)).names
        elif kind == "jsonl":
            names = list(pd.read_json(_binary(source), lines=True, dtype=False, compression="infer", nrows=1).columns)
        else:
            names = _header(source, "\t" if kind == "tsv" else ",", (kind != "tsv") if quoting is None else quoting)
    except (UnicodeDecodeError, OSError, EOFError, ValueError) as error:  # pyarrow's ArrowInvalid is a ValueError
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise InputError(str(path), f"not a {kind} table: {message}") from None
    _require(names, [], str(path))
    cells = _read_columns(path, source, list(names), kind, quoting)
    return pd.DataFrame(
        {
            name: column.astype(str) if isinstance(column.dtype, pd.CategoricalDtype) else column
            for name, column in cells.items()
        }
    )


def _as_columns(
    table, columns: TableColumns, source: str, fmt, quoting, format_option: str | None = "fmt"
) -> tuple[dict[str, pd.Series], str]:
    if isinstance(table, (str, Path)):
        cells = read_table_file(table, columns.named(), fmt, quoting=quoting, format_option=format_option)
        return cells, str(table)
    if not isinstance(table, pd.DataFrame):
        raise InputError(source, f"expected a pandas DataFrame with one row per judgment, found {type(table).__name__}")
    _require(list(table.columns), columns.named(), source)
    return {name: table[name] for name in columns.named()}, source


def _where(rows: np.ndarray) -> int:
    return int(rows[0]) + 2


def _numbers(values: pd.Series, column: str, source: str) -> np.ndarray:
    """The cells as floats, NaN where empty; a cell that is not a finite number is an error."""
    if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
        numbers = values.to_numpy(dtype=float, na_value=np.nan)
        bad = np.isinf(numbers) | (np.abs(np.nan_to_num(numbers)) >= LARGEST_NUMBER)
    else:
        codes, uniques = cell_codes(values, column, Rows.of((source, len(values))))
        texts = pd.Series(pd.Index(uniques).astype(str), dtype=object).str.strip()
        parsed = pd.to_numeric(texts.where(~texts.str.contains("_", regex=False)), errors="coerce")
        parsed = parsed.to_numpy(dtype=float, na_value=np.nan)
        ok = (texts == "").to_numpy() | (np.isfinite(parsed) & (np.abs(np.nan_to_num(parsed)) < LARGEST_NUMBER))
        parsed = np.where((texts == "").to_numpy(), np.nan, parsed)
        numbers = np.append(parsed, np.nan)[codes]
        bad = ~np.append(ok, True)[codes]
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        found = values.iloc[row]
        found = found.item() if isinstance(found, np.generic) else found
        number = pd.to_numeric(str(found).strip(), errors="coerce") if "_" not in str(found) else np.nan
        big = " smaller than 1e154 in magnitude" if np.isfinite(number) else ""
        raise InputError(
            source, f"column '{column}': expected a finite number{big}, found {found!r}", row=row + 2, column=column
        )
    return numbers


def _group_range(values: np.ndarray, groups: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per group ``0..n-1``: the smallest and largest value (NaN ignored; NaN for none)."""
    grouped = pd.Series(values, dtype=float).groupby(groups, sort=True)
    return grouped.min().reindex(range(n)).to_numpy(), grouped.max().reindex(range(n)).to_numpy()


def _differs(values: np.ndarray, groups: np.ndarray, bad: int, column: str, source: str, what: str) -> InputError:
    rows = np.flatnonzero((groups == bad) & ~np.isnan(values))
    other = rows[values[rows] != values[rows[0]]][0]
    return InputError(
        f"{source}: rows {rows[0] + 2} and {other + 2}", f"column '{column}' differs for {what}", column=column
    )


def _one_text(values: pd.Series, groups: np.ndarray, n: int, column: str, source: str, what) -> np.ndarray:
    """The one text of ``column`` per group (0..n-1); a group whose rows differ is an error."""
    codes, uniques = cell_codes(values, column, Rows.of((source, len(values))))
    if (codes < 0).any():
        row = _where(np.flatnonzero(codes < 0))
        raise InputError(source, f"column '{column}' is empty (null)", row=row, column=column)
    codes = codes.astype(float)
    low, high = _group_range(codes, groups, n)
    if (low != high).any():
        bad = int(np.flatnonzero(low != high)[0])
        raise _differs(codes, groups, bad, column, source, what(bad))
    return np.asarray(pd.Index(uniques).astype(str), dtype=object)[low.astype(np.int64)]


def _one_number(values: np.ndarray, groups: np.ndarray, n: int, column: str, source: str, what) -> np.ndarray:
    """The one number of ``column`` per group, ignoring empty cells; none or two are errors."""
    low, high = _group_range(values, groups, n)
    if np.isnan(low).any():
        bad = int(np.flatnonzero(np.isnan(low))[0])
        row = _where(np.flatnonzero(groups == bad))
        raise InputError(source, f"column '{column}' has no value for {what(bad)}", row=row, column=column)
    if (low != high).any():
        bad = int(np.flatnonzero(low != high)[0])
        raise _differs(values, groups, bad, column, source, what(bad))
    return low


def _check_names(kind: str, names: Sequence[str], make, source: str, column: str | None) -> tuple[str, ...]:
    """The safe names (``make(name)``) of ``names``; two that become one, or an unusable one,
    are errors."""
    safe = [make(name) for name in names]
    seen: dict[str, str] = {}
    for name, made in zip(names, safe):
        reason = unsafe_reason(made)
        if reason:
            shown = name if len(name) <= 40 else name[:37] + "..."
            raise InputError(source, f"{kind} name {shown!r} {reason}", column=column)
        if made in seen:
            raise InputError(
                source,
                f"{kind}s {seen[made]!r} and {name!r} would both be named {made!r}; rename one of them",
                column=column,
            )
        seen[made] = name
    return tuple(safe)


def read_evaluation_table(
    table,
    columns: TableColumns,
    *,
    fmt: str | None = None,
    quoting: bool | None = None,
    scale: tuple[float, float] | None = None,
    source: str = FRAME,
    unscored: str | None = None,
    format_option: str | None = "fmt",
) -> EvaluationTable:
    """Read and check a long table (a file path or a pandas DataFrame) by the rules above.

    Parameters
    ----------
    table : str, path or pandas.DataFrame
        One row per judgment (or per unjudged output).
    columns : TableColumns
        Which column is what.
    fmt, quoting : optional
        The file's format (default: from its name) and whether CSV quotes are honoured
        (default: yes for CSV, no for TSV); for files only.
    scale : (float, float), optional
        The declared rating scale: a judgment outside it is an error. Default: inferred per
        prompt from the judgments, and refused when one system's judgments span and reach more
        than twice the other systems' typical ones (one system on 0-100 among 1-5 systems).
    source : str
        What errors call a frame (a file is called by its path).
    format_option : str, optional
        What the caller calls ``fmt`` (``--input-format`` on the command line), for the error
        when a file's name tells no format; ``None`` for a caller that takes no format.
    unscored : str, optional
        A system whose outputs are not scored (the reference system of ``debias import``,
        whose outputs are the references): its rows need no value in the score columns, and
        the values they have are not read (its scores are NaN).

    Returns
    -------
    EvaluationTable

    Raises
    ------
    debias.io.InputError
        Naming the file, the row (the header being row 1) and the column.
    """
    cells, source = _as_columns(table, columns, source, fmt, quoting, format_option)
    uses = {}
    named = [columns.item, columns.system, columns.judgment, columns.prompt, columns.rater, *columns.scores]
    for name in [*named, columns.cluster]:
        uses[name] = uses.get(name, 0) + 1
    for name in (columns.output, columns.reference):
        uses[name] = uses.get(name, 0) + 1

    def take(name: str) -> pd.Series:
        """A column, let go of at its last use (a file's columns are then freed one by one)."""
        uses[name] -= 1
        return cells.pop(name) if uses[name] == 0 else cells[name]

    n_rows = len(next(iter(cells.values())))
    if n_rows == 0:
        raise InputError(source, "the table has no rows")
    values = (
        _numbers(take(columns.judgment), columns.judgment, source)
        if columns.judgment is not None
        else np.full(n_rows, np.nan)
    )
    rows_of = Rows.of((source, n_rows))
    item, items = code_names(take(columns.item), columns.item, rows_of)
    item_cluster = None
    if columns.cluster is not None:
        item_cluster = _item_clusters(take(columns.cluster), item, items, columns.cluster, rows_of)
    if columns.system is not None:
        system, systems = code_names(take(columns.system), columns.system, rows_of)
    else:
        system, systems = np.zeros(n_rows, dtype=np.int32), [columns.system_name]
    if columns.prompt is not None:
        prompt, prompts = code_names(take(columns.prompt), columns.prompt, rows_of, empty_ok=np.isnan(values))
        prompt = np.where(prompt < 0, 0, prompt)
    else:
        prompt, prompts = np.zeros(n_rows, dtype=np.int32), [columns.prompt_name]
    _check_names("system", systems, safe_name, source, columns.system)
    _check_names("prompt", prompts, prompt_name, source, columns.prompt)
    _check_names("score column", columns.scores, metric_name, source, None)

    output, keys = pd.factorize(system.astype(np.int64) * len(items) + item)
    output = output.astype(np.int32)
    del system
    output_system, output_item_code = keys // len(items), keys % len(items)
    n_outputs = len(keys)

    def what(o: int) -> str:
        return f"system {systems[output_system[o]]!r}, item {items[output_item_code[o]]!r}"

    # The judgments, sorted by output, prompt and rater (or row): one stable sort of one key.
    rows = np.flatnonzero(~np.isnan(values))
    key = output[rows].astype(np.int64) * len(prompts) + prompt[rows]
    if columns.rater is not None:
        rater, raters = code_names(take(columns.rater), columns.rater, rows_of, empty_ok=np.isnan(values))
        rank = np.argsort(np.argsort(np.asarray(raters, dtype=object))).astype(np.int64)
        key = key * max(len(raters), 1) + np.append(rank, 0)[rater[rows]]
    order = np.argsort(key, kind="stable")
    rows, key = rows[order], key[order]
    del order
    if columns.rater is not None:
        unit = "this item, system and prompt"
        refuse_repeated_raters(key, rows, rater[rows], raters, unit, columns.rater, rows_of, ordered=True)
        del rater
    del key
    judgment_output, judgment_prompt, judgment_value = output[rows], prompt[rows], values[rows]
    del prompt, values
    judged_scale = _scale(
        judgment_value, judgment_prompt, output_system[judgment_output], prompts, systems, scale, rows, columns, source
    )
    del rows

    scores = np.empty((n_outputs, len(columns.scores)))
    unscored_rows = unscored_index = None
    if unscored is not None and unscored not in list(systems):
        raise InputError(source, f"reference system {unscored!r} is not a value of column '{columns.system}'")
    if unscored is not None and len(columns.scores):
        unscored_index = list(systems).index(unscored)
        unscored_rows = output_system[output] == unscored_index
    for j, name in enumerate(columns.scores):
        column = take(name)
        if unscored_rows is not None:  # not read: one stand-in value per output, its score NaN below
            column = column.mask(unscored_rows)
        numbers = _numbers(column, name, source)
        if unscored_rows is not None:
            numbers = np.where(unscored_rows, 0.0, numbers)
        scores[:, j] = _one_number(numbers, output, n_outputs, name, source, what)
    if unscored_rows is not None:
        scores[output_system == unscored_index] = np.nan
    texts = None
    if columns.output is not None:
        texts = _one_text(take(columns.output), output, n_outputs, columns.output, source, what)
    references = None
    if columns.reference is not None:
        reference = _one_text(
            take(columns.reference), item, len(items), columns.reference, source, lambda i: f"item {items[i]!r}"
        )
        references = dict(zip(items, reference.tolist()))
    return EvaluationTable(
        source=source,
        systems=tuple(systems),
        prompts=tuple(prompts),
        metrics=tuple(columns.scores),
        output_system=np.asarray(output_system, dtype=np.int64),
        output_item=np.asarray(items, dtype=object)[output_item_code],
        output_text=texts,
        output_scores=scores,
        judgment_output=judgment_output,
        judgment_prompt=judgment_prompt,
        judgment_value=judgment_value,
        references=references,
        scale=judged_scale,
        scale_declared=scale is not None,
        item_cluster=item_cluster,
    )


def _item_clusters(values: pd.Series, item: np.ndarray, items, column: str, rows: Rows) -> dict[str, str]:
    """``{item: cluster}`` from a column naming each row's item's cluster (names trimmed): an
    empty cluster, or an item whose rows name two clusters, is an error naming the row and the
    column."""
    codes, names = code_names(values, column, rows)
    first = np.empty(len(items), dtype=np.int64)
    first[item[::-1]] = np.arange(len(item))[::-1]  # the last write of an index wins: its first row
    differs = codes != codes[first[item]]
    if differs.any():
        row = int(np.flatnonzero(differs)[0])
        earlier = int(first[item[row]])
        raise rows.error(
            row,
            f"column {column!r}: item {items[item[row]]!r} is in cluster {names[codes[row]]!r} here and in"
            f" {names[codes[earlier]]!r} on row {rows.locate(earlier)[1]}: an item belongs to one cluster",
            column,
        )
    return dict(zip(np.asarray(items, dtype=object).tolist(), np.asarray(names, dtype=object)[codes[first]].tolist()))


def read_judgments(
    table,
    *,
    item: str,
    judgment: str,
    rater: str | None = None,
    fmt: str | None = None,
    quoting: bool | None = None,
    source: str = FRAME,
) -> Judgments:
    """The judgments of a long table of one system and prompt (a file path or a pandas
    DataFrame), read by :func:`read_evaluation_table`'s rules: item and rater names trimmed, an
    empty item refused, a rater who judged an item twice refused, errors naming the row and the
    column.

    Parameters
    ----------
    table : str, path or pandas.DataFrame
        One row per judgment.
    item : str
        Column naming the item a judgment belongs to; items keep the order of their first row.
    judgment : str
        Column with the judgment (a number); an item none of whose rows has one is left out
        (it is unjudged).
    rater : str, optional
        Column naming the rater; an item's judgments are then ordered by rater.
    fmt, quoting, source
        As for :func:`read_evaluation_table`.

    Returns
    -------
    Judgments
        The judged items, named by their (trimmed) item names.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"seg": ["a", " a", "b"], "score": [4, 5, 3]})
    >>> j = read_judgments(frame, item="seg", judgment="score")
    >>> j.ids, j.counts.tolist(), j.item_means.tolist()
    (('a', 'b'), [2, 1], [4.5, 3.0])
    """
    columns = TableColumns(item=item, judgment=judgment, rater=rater)
    read = read_evaluation_table(table, columns, fmt=fmt, quoting=quoting, source=source)
    counts = np.bincount(read.judgment_output, minlength=len(read.output_item))
    judged = counts > 0
    return Judgments(read.judgment_value, counts[judged], tuple(read.output_item[judged]))


def _scale(values, prompt, system, prompts, systems, declared, rows, columns, source) -> dict:
    """The declared scale, every judgment checked against it; or the scale inferred per prompt."""
    if declared is not None:
        try:
            low, high = (float(v) for v in declared)
        except (TypeError, ValueError):
            raise InputError(source, f"scale {declared!r}: expected two numbers, (MIN, MAX) such as (1, 5)") from None
        if not low < high:
            raise InputError(source, f"the declared scale [{low:g}, {high:g}] is empty (MIN must be below MAX)")
        outside = (values < low) | (values > high)
        if outside.any():
            first = np.argmin(np.where(outside, rows, np.iinfo(np.int64).max))
            raise InputError(
                source,
                f"column '{columns.judgment}': judgment {values[first]:g} is outside the declared scale "
                f"[{low:g}, {high:g}]",
                row=int(rows[first]) + 2,
                column=columns.judgment,
            )
        return {p: (low, high) for p in prompts}
    cell = prompt.astype(np.int64) * len(systems) + system
    low, high = np.full(len(prompts) * len(systems), np.inf), np.full(len(prompts) * len(systems), -np.inf)
    np.minimum.at(low, cell, values)
    np.maximum.at(high, cell, values)
    cells = np.flatnonzero(np.isfinite(low))
    spans = pd.DataFrame(
        {"min": low[cells], "max": high[cells]},
        index=pd.MultiIndex.from_arrays([cells // len(systems), cells % len(systems)], names=["p", "s"]),
    )
    scale = {}
    for p, frame in spans.groupby(level="p"):
        frame = frame.droplevel("p")
        scale[prompts[p]] = (float(frame["min"].min()), float(frame["max"].max()))
        odd = _odd_scale(frame)
        if odd is not None:
            s, others = odd
            low, high = frame.loc[s]
            raise InputError(
                source,
                f"column '{columns.judgment}': system {systems[s]!r} has judgments from {low:g} to {high:g} on "
                f"prompt {prompts[p]!r}, unlike the other systems' (typically {others}): a different rating "
                "scale? Declare the scale (--scale MIN MAX, or scale=(min, max)) to accept it",
                column=columns.judgment,
            )
    return scale


def _odd_scale(frame: pd.DataFrame):
    """The system (and the other systems' typical span) whose judgments span more than twice the
    median span of the other systems' and reach more than twice their median largest magnitude:
    a system on a larger scale (0-100 among 1-5 systems), not a system that is merely better or
    worse than the others (1-5 among 4-5). A system spanning less is never refused: a system
    with two judged items spans little. Of several, the one furthest off; constant systems tell
    nothing."""
    span = (frame["max"] - frame["min"]).to_numpy()
    size = np.maximum(frame["max"].abs(), frame["min"].abs()).to_numpy()
    usable = np.flatnonzero((span > 0) & (size > 0))
    worst, typical = 2.0, None
    for index in usable:
        others = usable[usable != index]
        if not len(others):
            return None
        span_o, size_o = np.median(span[others]), np.median(size[others])
        off = min(span[index] / span_o, size[index] / size_o)
        if off > worst:
            worst, typical = off, (frame.index[index], f"spanning {span_o:g}, largest magnitude {size_o:g}")
    return typical


def without_system(table: EvaluationTable, system: str) -> EvaluationTable:
    """``table`` without the outputs and judgments of ``system`` (as it is a value of the system
    column); an error naming the column's values when it is not one of them."""
    if system not in table.systems:
        listed = ", ".join(repr(s) for s in table.systems)
        raise InputError(table.source, f"system {system!r} is not in the table (its systems: {listed})")
    index = table.systems.index(system)
    keep = table.output_system != index
    if not keep.any():
        raise InputError(table.source, f"the table has no system besides {system!r}")
    position = np.cumsum(keep) - 1
    judged = keep[table.judgment_output]
    return replace(
        table,
        systems=tuple(s for s in table.systems if s != system),
        output_system=table.output_system[keep] - (table.output_system[keep] > index),
        output_item=table.output_item[keep],
        output_text=None if table.output_text is None else table.output_text[keep],
        output_scores=table.output_scores[keep],
        judgment_output=position[table.judgment_output[judged]].astype(table.judgment_output.dtype),
        judgment_prompt=table.judgment_prompt[judged],
        judgment_value=table.judgment_value[judged],
    )


def with_population(table: EvaluationTable, population: EvaluationTable) -> EvaluationTable:
    """``table`` with the outputs of ``population`` (read with no judgment column) it lacks
    appended, unjudged; an output in both keeps the table's scores, which must agree. When the
    table's items have clusters, so must the population's (read with the same cluster column),
    an item in both in the same cluster."""
    if population.metrics != table.metrics:
        raise InputError(population.source, f"expected the score columns {list(table.metrics)}")
    systems = list(table.systems) + [s for s in population.systems if s not in table.systems]
    index = {name: i for i, name in enumerate(systems)}
    pop_system = np.array([index[s] for s in population.systems], dtype=np.int64)[population.output_system]
    known = pd.MultiIndex.from_arrays([table.output_system, table.output_item])
    given = pd.MultiIndex.from_arrays([pop_system, population.output_item])
    both = given.isin(known)
    mine = known.get_indexer(given[both])
    differs = np.flatnonzero((table.output_scores[mine] != population.output_scores[both]).any(axis=1))
    if len(differs):
        output = mine[differs[0]]
        raise InputError(
            population.source,
            f"the scores of system {systems[table.output_system[output]]!r}, item {table.output_item[output]!r} "
            "differ from the table's",
        )
    new = ~both
    return replace(
        table,
        systems=tuple(systems),
        output_system=np.concatenate([table.output_system, pop_system[new]]),
        output_item=np.concatenate([table.output_item, population.output_item[new]]),
        output_text=None,
        output_scores=np.concatenate([table.output_scores, population.output_scores[new]]),
        item_cluster=_population_clusters(table, population),
    )


def _population_clusters(table: EvaluationTable, population: EvaluationTable) -> dict[str, str] | None:
    """The clusters of the table's items and of the population's (``None`` when the table's
    items have none): an item in two clusters, or a population without clusters, is an error."""
    if table.item_cluster is None:
        return None
    if population.item_cluster is None:
        raise InputError(
            population.source, "the table's items have clusters: give the population its items' clusters too"
        )
    clusters = dict(table.item_cluster)
    for item, cluster in population.item_cluster.items():
        if clusters.setdefault(item, cluster) != cluster:
            raise InputError(
                population.source,
                f"item {item!r} is in cluster {cluster!r} here and in {clusters[item]!r} in the table: an item"
                " belongs to one cluster",
            )
    return clusters
