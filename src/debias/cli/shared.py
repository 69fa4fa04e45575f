"""What every ``debias`` subcommand shares: the parser (plain-text help, ``--version``), the
output options of a command that prints a table (``--format csv|markdown|json``, ``--output
FILE``), and progress messages on stderr for steps that take more than a few seconds.

A subcommand that prints a table adds :func:`add_output_options` to its parser and prints
with :func:`emit`; :func:`run_with_output` (called by :func:`debias.cli.analyse.main` for every
subcommand) sends what the command prints to ``--output`` instead of the terminal, written only
when the command succeeds (atomically: :func:`debias.io.atomic.atomic_path`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

__all__ = [
    "FORMATS",
    "DebiasParser",
    "add_input_format",
    "add_output_options",
    "emit",
    "level_words",
    "output_header",
    "plain_text",
    "progress",
    "command_inputs",
    "refuse_input_as_output",
    "refuse_overwrites",
    "run_with_output",
    "table_columns",
]

#: What a command that prints a table can print.
FORMATS = ("csv", "markdown", "json")

#: Seconds a step runs before its progress message is shown.
PROGRESS_AFTER = 2.0

_ROLE = re.compile(r":(?:[a-z]+:)?[a-z]+:`~?([^`<]*?)(?:\s*<[^`>]*>)?`")
_LITERAL = re.compile(r"``(.+?)``")
_INTERPRETED = re.compile(r"(?<![`\w])`([^`\n]+)`(?![`\w])")


def plain_text(text: str) -> str:
    """``text`` without reStructuredText markup, as a terminal shows it: a role
    (``:func:`debias.estimate```, ``:math:`\\lambda```) becomes its target (``~a.b`` its last
    part), a literal (````x````) and an interpreted text (```x```) their content."""

    def role(match: re.Match) -> str:
        whole, target = match.group(0), match.group(1).strip()
        return target.rsplit(".", 1)[-1] if whole.split("`", 1)[1].startswith("~") else target

    text = _ROLE.sub(role, text)
    text = _LITERAL.sub(r"\1", text)
    return _INTERPRETED.sub(r"\1", text)


class DebiasParser(argparse.ArgumentParser):
    """An argument parser whose help is plain text (:func:`plain_text`); its subcommands'
    parsers are of the same class, so they show plain text too."""

    def format_help(self) -> str:
        return plain_text(super().format_help())


def add_output_options(sub: argparse.ArgumentParser) -> None:
    """``--format`` and ``--output FILE`` of a subcommand that prints a table."""
    sub.add_argument(
        "--format",
        choices=FORMATS,
        default="csv",
        help="output format: csv, markdown (the level stated first), or json (the version, the command's arguments "
        "and the level, then the rows, missing values null) (default: %(default)s)",
    )
    sub.add_argument(
        "--output",
        dest="output_file",
        metavar="FILE",
        help="write the table to FILE instead of the terminal (only when the command succeeds)",
    )


class _RenamedOption(argparse.Action):
    """An option's former spelling: still read, with a line on stderr naming the new one."""

    def __init__(self, option_strings, dest, new: str = "", **kwargs):
        self.new = new
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{parser.prog}: {option_string} is now {self.new}", file=sys.stderr)
        setattr(namespace, self.dest, values)


def table_columns(args, **more):
    """The columns of a long table of ratings that a command's options name
    (:class:`debias.io.reader.TableColumns`): ``--item``, ``--judgment``, ``--system``,
    ``--prompt``, ``--rater``, the ``--score`` columns (each once) and ``--cluster``; ``more``
    the columns only one command names (``debias import``'s texts and prompt name)."""
    from debias.io.reader import TableColumns

    return TableColumns(
        item=args.item,
        judgment=args.judgment,
        system=args.system,
        prompt=args.prompt,
        rater=args.rater,
        scores=tuple(dict.fromkeys(args.score or ())),
        cluster=args.cluster,
        **more,
    )


def add_input_format(sub: argparse.ArgumentParser, *former: str) -> None:
    """``--input-format``: the format of the tables a command reads (default: from the file's
    name); ``former`` spellings of it are still read, hidden from the help."""
    from debias.io.reader import FORMATS as TABLE_FORMATS

    choices = sorted(set(TABLE_FORMATS.values()))
    sub.add_argument(
        "--input-format",
        dest="input_format",
        choices=choices,
        help="format of the tables read: csv, tsv, parquet or jsonl (default: from the file's name)",
    )
    for option in former:
        sub.add_argument(
            option,
            dest="input_format",
            choices=choices,
            action=_RenamedOption,
            new="--input-format",
            help=argparse.SUPPRESS,
        )


def _json_value(value):
    if hasattr(value, "item"):  # numpy scalars
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is None or isinstance(value, bool | int | float | str):
        return value
    try:
        import pandas as pd

        if pd.isna(value):
            return None
    except (TypeError, ValueError):
        pass
    return str(value)


def level_words(level) -> str:
    """A level as the first line of a printed table says it: ``0.95`` -> ``"95% intervals"``
    (``0.975`` -> ``"97.5% intervals"``)."""
    from decimal import Decimal

    percent = (Decimal(repr(float(level))) * 100).normalize()  # every digit given: 0.9999999999 is not 100%
    return f"{percent:f}% intervals"


def output_header(args, level) -> dict:
    """What a command's JSON output says about itself before its rows: the package's ``version``,
    the command and its arguments as given (``args.argv``), and the intervals' ``level``
    (``None`` for a table without intervals)."""
    import debias

    return {
        "version": debias.__version__,
        "command": getattr(args, "invoked", None) or getattr(args, "command", None),
        "arguments": list(getattr(args, "argv", None) or []),
        "level": _json_value(level),
    }


def emit(table, fmt: str, out, header: dict | None = None) -> None:
    """Print ``table`` (a pandas frame) as CSV (6 significant digits; the level every digit), Markdown (4 decimals) or
    JSON (full precision, ``null`` for a missing value). With a ``header``
    (:func:`output_header`), JSON is an object holding the header's keys and ``rows``, a list of
    objects, one per row, and Markdown starts with a line stating the intervals' level;
    without one, JSON is the list of rows."""
    level = None if header is None else header.get("level")
    if fmt == "markdown":
        from debias.tables.render import to_markdown

        if level is not None:
            out.write(f"{level_words(level)} (level {float(level)!r}).\n\n")
        out.write(to_markdown(table, digits=4))
    elif fmt == "json":
        columns = [str(c) for c in table.columns]
        rows = [{c: _json_value(v) for c, v in zip(columns, row)} for row in table.itertuples(index=False, name=None)]
        listed = "[\n" + ",\n".join(json.dumps(r, ensure_ascii=False, allow_nan=False) for r in rows) + "\n]"
        if header is None:
            out.write(listed + "\n")
        else:
            head = "".join(
                f" {json.dumps(key)}: {json.dumps(value, ensure_ascii=False, allow_nan=False)},\n"
                for key, value in header.items()
            )
            out.write(f'{{\n{head} "rows": {listed}\n}}\n')
    else:
        if "level" in table.columns and table["level"].dtype.kind == "f":
            # every digit of the level, as the first line says it (6 significant digits make 0.9999999999 a 1)
            table = table.assign(level=[repr(float(v)) if v == v else "" for v in table["level"]])
        table.to_csv(out, index=False, float_format="%.6g", lineterminator="\n")


def _identity(path: str | os.PathLike):
    """What names one file however it is spelled: its device and inode when it exists (a hard
    link, a symbolic link or another spelling of the path all give the same), else its
    absolute path with the links of its folders resolved."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return ("path", os.path.realpath(path))
    return ("inode", info.st_dev, info.st_ino)


def _is_file(path) -> bool:
    try:
        return os.path.isfile(path)
    except (OSError, ValueError):
        return False


def command_inputs(args) -> list[tuple[str, str]]:
    """``(what, path)`` of each file an argument of ``args`` names (the table, ``--pool``,
    ``--scores``, ``--references``, ``--config``, ...): every argument that is the path of an
    existing file, other than the ones that are written."""
    inputs = []
    for name, value in vars(args).items():
        if name in _WRITTEN or name in ("argv", "invoked"):
            continue
        for given in value if isinstance(value, list | tuple) else [value]:
            if isinstance(given, str) and _is_file(given):
                what = _POSITIONAL.get(name) or f"the --{name.replace('_', '-')} file"
                inputs.append((what, given))
    return inputs


#: The arguments that name a file the command writes, and the option that names each.
_WRITTEN = {"output": "--output", "output_file": "--output", "figure": "--figure", "out": "--out"}
#: The positional arguments (files read), named as the input table or system files.
_POSITIONAL = {"table": "the input table", "system_file": "the system file", "systems": "a system file"}


def refuse_overwrites(outputs, inputs) -> None:
    """Refuse, before anything is read or written, a file the command would write that exists
    and is no regular file (a folder, a FIFO, a device), that is one of the files it reads, or
    that another of its outputs names too: ``outputs`` are
    ``(option, path)`` pairs, ``inputs`` ``(what, path)`` pairs (``the --pool file``, ``the
    references read by default``, or words starting with ``read`` for a file that others read,
    such as ``read by preference task 't' of config.yaml``). Files are compared by device and
    inode, so another spelling of the path, a hard link or a symbolic link is the same file.
    An ``InputError`` naming the option, the path and the input; nothing when all differ."""
    from debias.io.atomic import refuse_non_regular
    from debias.io.canonical import InputError

    outputs = [(option, str(path)) for option, path in outputs if path is not None]
    for option, path in outputs:  # every output checked before any is written
        try:
            refuse_non_regular(path)
        except OSError as error:
            raise InputError(f"{option} {path}", error.strerror or str(error)) from None
    seen: dict = {}
    for option, path in outputs:
        mine = _identity(path)
        for what, given in inputs:
            if given is None or not _is_file(given) or _identity(given) != mine:
                continue
            same = "" if os.path.normpath(given) == os.path.normpath(path) else f" {given}, the same file"
            same = f" ({same.strip()})" if same and what.startswith("read ") else same
            said = f"{what}{same}" if what.startswith("read ") else f"an input of the command ({what}{same})"
            raise InputError(option, f"{path} is {said}: write elsewhere")
        if mine in seen and seen[mine] != (option, path):
            other_option, other = seen[mine]
            raise InputError(option, f"{path} is also written as {other_option} {other}: give two different files")
        seen.setdefault(mine, (option, path))


def refuse_input_as_output(output: str | None, args, option: str = "--output", extra=()) -> None:
    """Refuse an output file that is one of the command's input files (a file any other
    argument names, or one of ``extra``, ``(what, path)`` pairs of files read by default):
    writing it would replace what is being read. An ``InputError``."""
    refuse_overwrites([(option, output)], [*command_inputs(args), *extra])


class _Failed(Exception):
    """The command did not succeed: nothing is written to ``--output``."""


def run_with_output(path: str | None, command: Callable[[], int], name: str = "debias") -> int:
    """Run ``command`` (returning an exit status) with what it prints going to ``path``, or to
    the terminal when ``path`` is ``None``. The file is replaced only when the command succeeds;
    a folder that cannot hold it is refused before the command runs."""
    if path is None:
        return command()
    from debias.io.atomic import atomic_path

    target = Path(path)
    if target.is_dir():
        print(f"{name}: error: --output {path}: is a folder, not a file", file=sys.stderr)
        return 2
    status = 0
    try:
        with atomic_path(target) as tmp:
            with open(tmp, "w", encoding="utf-8", newline="") as handle, contextlib.redirect_stdout(handle):
                status = command()
            if status:
                raise _Failed
    except _Failed:
        return status
    except OSError as error:
        print(f"{name}: error: --output {path}: cannot write ({error.strerror or error})", file=sys.stderr)
        return 2
    return status


@contextlib.contextmanager
def progress(message: str, *, after: float | None = None, stream=None) -> Iterator[None]:
    """Say on stderr what a step is doing when it runs longer than ``after`` seconds (default
    :data:`PROGRESS_AFTER`), and how long
    it took once done: ``debias: <message> ...`` then ``debias: <message>: done in 12.3 s``. A
    step that ends sooner says nothing."""
    stream = sys.stderr if stream is None else stream
    after = PROGRESS_AFTER if after is None else after
    start = time.perf_counter()
    shown = threading.Event()
    lock = threading.Lock()

    def announce():
        with lock:
            if not finished:
                print(f"debias: {message} ...", file=stream, flush=True)
                shown.set()

    finished = False
    timer = threading.Timer(after, announce)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        with lock:
            finished = True
        timer.cancel()
        if shown.is_set():
            print(f"debias: {message}: done in {time.perf_counter() - start:.1f} s", file=stream, flush=True)
