"""Reading and writing the project's canonical input format, with errors that name file and line.

A task directory holds ``references.jsonl.gz`` (``{"id", "reference"}`` per line) and
``systems/<system>.jsonl.gz`` (``{"id", "output", "judgments": {prompt: [number|null, ...]}}``
per line, with an optional ``"judged_output"`` naming a judgment shared with other systems'
lines, an optional ``"judgment_records": [k_1, k_2, ...]`` when the output's judgments came
from several crowd records, an optional ``"scores": {metric: number}`` for metrics computed
elsewhere; a null judgment is dropped unless the prompt declares ``null_as``); plain ``.jsonl``
is accepted wherever ``.jsonl.gz`` is. ``"judgments": {}`` is an output nobody judged. A task
whose items share clusters (its ``cluster`` key names a key of the lines, ``"cluster"`` as
``debias import`` writes it) has the item's cluster, a string or an integer, on every line.
"""

from __future__ import annotations

import gzip
import io
import itertools
import json
import math
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

#: Table files whose rows a spreadsheet shows with their blank lines: a CSV or TSV file, gzipped or not.
_TEXT_TABLES = {".csv": ",", ".tsv": "\t"}


def shown_row(where: str, row: int) -> int:
    """Row ``row`` of a table as read (the header row 1, blank lines skipped) as a spreadsheet
    shows it when ``where`` is a CSV or TSV file: each blank line a row of its own, a cell holding
    line breaks within one row; ``row`` as it is for anything else (a DataFrame, a JSON Lines file).
    The file is read only up to the row, and only when an error names one."""
    import csv

    path = Path(str(where))
    suffixes = [s.lower() for s in path.suffixes if s.lower() != ".gz"]
    if not suffixes or suffixes[-1] not in _TEXT_TABLES or row < 1:
        return row
    try:
        if not path.is_file():
            return row
        opener = gzip.open if path.suffix.lower() == ".gz" else open
        with opener(path, "rt", encoding="utf-8-sig", newline="") as handle:
            sep = _TEXT_TABLES[suffixes[-1]]
            quoting = csv.QUOTE_MINIMAL if sep == "," else csv.QUOTE_NONE
            records = 0
            for shown, record in enumerate(csv.reader(handle, delimiter=sep, quoting=quoting), start=1):
                if record:
                    records += 1
                    if records == row:
                        return shown
    except (OSError, EOFError, UnicodeDecodeError, csv.Error):
        return row
    return row


class InputError(ValueError):
    """A problem with an input file or the config, located precisely enough to fix it.

    ``where`` names the file (or config key, or ``file:line``); ``row`` the table row (1-based,
    the header being row 1, as a spreadsheet shows it: a blank line of a CSV or TSV file counts,
    :func:`shown_row`) and ``column`` the table column, when the
    problem has them. The message reads ``<where>: row <row>: <message>``.
    """

    def __init__(self, where: str, message: str, *, row: int | None = None, column: str | None = None):
        self.file = where
        row = shown_row(where, row) if row is not None else None
        self.row = row
        self.column = column
        self.where = where if row is None else f"{where}: row {row}"
        self.message = message
        super().__init__(f"{self.where}: {message}")


class InputWarning(UserWarning):
    """Something in an input that is read but may not be what was meant (two names that look
    alike, labels a figure cannot draw); the command line prints it as one line."""


@dataclass
class SystemItem:
    """One judged (or unjudged) output of a system for one input item.

    ``judged_output`` names the crowd judgment this output received when the same judgment
    serves several systems' lines (an output that several systems produced and that was
    judged once); ``None`` means the line was judged on its own. ``scores`` holds the
    output's scores on the metrics declared in config as provided (computed elsewhere).
    ``records`` is set when the output was judged in several crowd records (the line's
    ``judgment_records``): per prompt, how many of its kept judgments came from each record,
    in list order (a record that kept none on that prompt is left out). ``cluster`` is the item's
    cluster (the document or question several items share) when the task has clusters.
    """

    id: str
    output: str
    judgments: dict[str, list[float]] = field(default_factory=dict)
    judged_output: str | None = None
    scores: dict[str, float] = field(default_factory=dict)
    records: dict[str, list[int]] | None = None
    cluster: str | None = None


def open_text(path: str | os.PathLike) -> io.TextIOBase:
    """Open a .jsonl or .jsonl.gz file for reading as UTF-8 text."""
    path = Path(path)
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def resolve_jsonl(stem: str | os.PathLike) -> Path | None:
    """Return ``<stem>.jsonl.gz`` or ``<stem>.jsonl``, whichever exists (gzip first)."""
    for suffix in (".jsonl.gz", ".jsonl"):
        candidate = Path(f"{stem}{suffix}")
        if candidate.exists():
            return candidate
    return None


def iter_json_lines(path: str | os.PathLike) -> Iterator[tuple[int, dict]]:
    """Yield (line number, object) for every non-blank line; bad JSON names file and line."""
    try:
        with open_text(path) as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as error:
                    raise InputError(
                        f"{path}:{number}", f"not valid JSON ({error.msg} at column {error.colno})"
                    ) from None
                if not isinstance(record, dict):
                    raise InputError(f"{path}:{number}", f"expected a JSON object, found {type(record).__name__}")
                yield number, record
    except (OSError, EOFError, UnicodeDecodeError) as error:
        if isinstance(error, FileNotFoundError):
            raise InputError(str(path), "file not found") from None
        raise InputError(str(path), f"cannot be read ({error})") from None


def read_references(path: str | os.PathLike, ids=None) -> dict[str, str]:
    """Map item id to reference text; every line needs a string ``id`` and ``reference``.

    With ``ids`` (a set), only those references are kept: a job scoring one block of a large
    system then holds that block's references, not the whole file's.
    """
    references: dict[str, str] = {}
    first_line: dict[str, int] = {}
    for number, record in iter_json_lines(path):
        where = f"{path}:{number}"
        for key in ("id", "reference"):
            if key not in record:
                raise InputError(where, f'missing key \'{key}\' (expected {{"id": ..., "reference": ...}})')
            if not isinstance(record[key], str):
                raise InputError(where, f"'{key}' must be a string, found {json.dumps(record[key])}")
        item_id = record["id"]
        if item_id in first_line:
            raise InputError(where, f"id '{item_id}' appears twice (first on line {first_line[item_id]})")
        first_line[item_id] = number
        if ids is None or item_id in ids:
            references[item_id] = record["reference"]
    return references


#: Numbers at or above this magnitude are refused: their squares, which every variance needs,
#: would overflow a float.
LARGEST_NUMBER = 1e154


def is_usable_number(value) -> bool:
    """A JSON number (not a bool) that converts to a float whose square is finite."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        number = float(value)
    except OverflowError:
        return False
    return math.isfinite(number) and abs(number) < LARGEST_NUMBER


def _shown(value) -> str:
    text = (
        json.dumps(value)
        if not isinstance(value, int) or abs(value) < 10**30
        else f"a {len(str(abs(value)))}-digit integer"
    )
    return text if len(text) <= 60 else text[:57] + "..."


def _check_judgment(value, where: str, prompt: str, bounds: Mapping) -> float | None:
    if value is None:
        return None
    if not is_usable_number(value):
        raise InputError(
            where,
            f"judgment for prompt '{prompt}' must be a number or null, smaller than 1e154 in magnitude, "
            f"found {_shown(value)}",
        )
    low, high = bounds.get("min"), bounds.get("max")
    if (low is not None and value < low) or (high is not None and value > high):
        expected = f"[{'-inf' if low is None else low}, {'inf' if high is None else high}]"
        raise InputError(where, f"judgment {value} for prompt '{prompt}' is outside its declared range {expected}")
    return float(value)


def _check_scores(scores, where: str, provided: Sequence[str]) -> dict[str, float]:
    if not isinstance(scores, dict):
        raise InputError(where, "'scores' must be an object mapping metric name to a number")
    clean = {}
    for metric, value in scores.items():
        if metric not in provided:
            declared = ", ".join(provided) if provided else "none"
            raise InputError(
                where,
                f"score for metric '{metric}', which the config does not declare as provided "
                f"(metrics.<name>.provided: true; provided metrics: {declared})",
            )
        if not is_usable_number(value):
            raise InputError(
                where,
                f"score for metric '{metric}' must be a finite number smaller than 1e154 in magnitude, "
                f"found {_shown(value)}",
            )
        clean[metric] = float(value)
    return clean


def _check_cluster(record: dict, where: str, key: str | None) -> str | None:
    """The line's cluster (its ``key``, a non-empty string or an integer), or ``None`` without a key."""
    if key is None:
        return None
    if key not in record:
        raise InputError(where, f"missing key '{key}': the task's items have clusters (tasks.<task>.cluster: {key})")
    value = record[key]
    if isinstance(value, str) and value.strip():
        return value.strip()
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    expected = "a non-empty string or an integer"
    raise InputError(where, f"'{key}' (the item's cluster) must be {expected}, found {_shown(value)}")


def _parse_system_line(
    record: dict,
    where: str,
    prompts: Mapping[str, Mapping],
    references,
    provided: Sequence[str],
    cluster: str | None = None,
) -> SystemItem:
    for key in ("id", "output", "judgments"):
        if key not in record:
            raise InputError(where, f'missing key \'{key}\' (expected {{"id", "output", "judgments"}})')
    item_id, output, judgments = record["id"], record["output"], record["judgments"]
    if not isinstance(item_id, str):
        raise InputError(where, f"'id' must be a string, found {json.dumps(item_id)}")
    if not isinstance(output, str):
        raise InputError(where, f"'output' must be a string, found {json.dumps(output)[:60]}")
    if not isinstance(judgments, dict):
        raise InputError(where, "'judgments' must be an object mapping prompt to a list of numbers ({} if unjudged)")
    if references is not None and item_id not in references:
        raise InputError(where, f"id '{item_id}' has no reference in the task's references file")
    sizes = _check_record_sizes(record.get("judgment_records"), where, judgments)
    clean: dict[str, list[float]] = {}
    records: dict[str, list[int]] | None = None if sizes is None else {}
    bounds = None if sizes is None else list(itertools.pairwise(itertools.accumulate(sizes, initial=0)))
    for prompt, values in judgments.items():
        if prompt not in prompts:
            raise InputError(where, f"unknown prompt '{prompt}' (declared prompts: {', '.join(prompts)})")
        if not isinstance(values, list):
            raise InputError(where, f"judgments for prompt '{prompt}' must be a list, found {json.dumps(values)}")
        checked = [_check_judgment(v, where, prompt, prompts[prompt]) for v in values]
        null_as = prompts[prompt].get("null_as")
        clean[prompt] = [float(null_as) if v is None else v for v in checked if v is not None or null_as is not None]
        if records is not None:
            kept = [v is not None or null_as is not None for v in checked]
            records[prompt] = [n for n in (sum(kept[a:b]) for a, b in bounds) if n]
    judged_output = record.get("judged_output")
    if judged_output is not None and (not isinstance(judged_output, str) or not judged_output):
        raise InputError(where, f"'judged_output' must be a non-empty string, found {json.dumps(judged_output)}")
    scores = _check_scores(record.get("scores", {}), where, provided)
    return SystemItem(item_id, output, clean, judged_output, scores, records, _check_cluster(record, where, cluster))


def _check_record_sizes(sizes, where: str, judgments: Mapping) -> list[int] | None:
    """``judgment_records``: at least two positive counts that add up to the length of every
    prompt's judgment list (nulls included), or absent."""
    if sizes is None:
        return None
    expected = "a list of at least two positive integers, the number of judgments from each record"
    if (
        not isinstance(sizes, list)
        or len(sizes) < 2
        or any(isinstance(n, bool) or not isinstance(n, int) or n < 1 for n in sizes)
    ):
        raise InputError(where, f"'judgment_records' must be {expected}, found {json.dumps(sizes)}")
    for prompt, values in judgments.items():
        if isinstance(values, list) and len(values) != sum(sizes):
            raise InputError(
                where,
                f"'judgment_records' {json.dumps(sizes)} adds up to {sum(sizes)} judgments, but prompt "
                f"'{prompt}' has {len(values)}",
            )
    return sizes


def iter_system(
    path: str | os.PathLike,
    prompts: Mapping[str, Mapping],
    provided: Sequence[str] = (),
    start: int = 0,
    stop: int | None = None,
) -> Iterator[SystemItem]:
    """Stream the outputs ``start`` to ``stop`` (0-based, over non-blank lines) of a system file.

    Each line is checked as :func:`read_system` checks it, except the checks that need the
    whole file or the references (unique ids, a reference for every id, a provided score on
    every line): the workflow runs :func:`read_system` on every file at start-up, and a job
    that scores one block of a large file reads only that block, so its memory does not
    grow with the file.
    """
    for index, (number, record) in enumerate(iter_json_lines(path)):
        if index < start:
            continue
        if stop is not None and index >= stop:
            return
        yield _parse_system_line(record, f"{path}:{number}", prompts, None, provided)


def count_outputs(path: str | os.PathLike) -> int:
    """Number of non-blank lines (outputs) of a system file, without parsing them."""
    with open_text(path) as handle:
        return sum(1 for line in handle if line.strip())


def read_system(
    path: str | os.PathLike,
    prompts: Mapping[str, Mapping],
    references: Mapping[str, str] | None = None,
    provided: Sequence[str] = (),
    cluster: str | None = None,
) -> list[SystemItem]:
    """Read and validate one system file.

    ``prompts`` maps each declared prompt to its ``{min, max}`` bounds and, optionally,
    ``null_as``: the value a null judgment counts as for that prompt. Without ``null_as`` a
    null judgment is dropped (an annotator who gave none); ``"judgments": {}`` is an unjudged
    output. Ids must be unique and, when ``references`` is given, have a reference.
    ``provided`` names the metrics whose scores the file carries (``"scores": {metric:
    number}``): every line needs a finite score for each of them, and a score for any other
    metric is an error. ``cluster`` names the key of every line that holds its item's cluster
    (the task's ``cluster``; a non-empty string or an integer, read as text).
    """
    items: list[SystemItem] = []
    seen: dict[str, int] = {}
    first_missing: dict[str, int] = {}
    present: set[str] = set()
    first_line = None
    for number, record in iter_json_lines(path):
        where = f"{path}:{number}"
        first_line = first_line or number
        if isinstance(record.get("id"), str) and record["id"] in seen:
            raise InputError(
                where, f"id '{record['id']}' appears twice in this file (first on line {seen[record['id']]})"
            )
        item = _parse_system_line(record, where, prompts, references, provided, cluster)
        present.update(item.scores)
        for metric in provided:
            if metric not in item.scores:
                first_missing.setdefault(metric, number)
        seen[item.id] = number
        items.append(item)
    for metric in provided:
        if metric not in present and first_line is not None:
            raise InputError(
                f"{path}:{first_line}",
                f"metric '{metric}' is declared in config as provided, but no line of this file has a score "
                f'for it (expected "scores": {{"{metric}": <number>}} on every line)',
            )
        if metric in first_missing:
            raise InputError(
                f"{path}:{first_missing[metric]}",
                f"no score for metric '{metric}', which the config declares as provided: every line needs "
                f'"scores": {{"{metric}": <number>}}',
            )
    return items
