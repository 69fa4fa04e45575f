"""``debias import-pairs``: a table of pairwise verdicts as a preference task of the workflow
(:func:`debias.io.pairs.canonical_pair_table`).

The rules of ``debias import`` (:mod:`debias.cli.importing`): the task's name must be a safe file
name (:func:`debias.io.importer.task_name`); a judge's name may not be one of the canonical
columns (:data:`CANONICAL_COLUMNS`), which it would replace; the table is written before the
configuration, each atomically, and a configuration that cannot be written takes the table back
(the one it replaced is put back); a table already at the target is replaced only with
``--force`` (or when it holds the same bytes: the retry of an import killed before it wrote the
configuration); the configuration is read, added to and written under a lock
(:func:`debias.io.importer.config_lock`), so that imports into one configuration run one after
the other; a new configuration writes its results to ``results/<task>``, never to the paper's
``results/``.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from debias.cli.preferences import add_pair_columns, pair_mappings, read_pair_inputs
from debias.cli.shared import add_input_format, command_inputs, refuse_overwrites
from debias.io.canonical import InputError
from debias.io.pairs import CANONICAL_PAIR_COLUMNS, OPTIONAL_PAIR_COLUMNS
from debias.io.reader import safe_name, unsafe_reason

__all__ = [
    "CANONICAL_COLUMNS",
    "add_command",
    "judge_names",
    "preference_config",
    "run_command",
    "tables_of_tasks",
    "write_pairs",
]

#: The columns of the written table besides the judges' (a judge of one of these names would
#: replace it).
CANONICAL_COLUMNS = (*CANONICAL_PAIR_COLUMNS, *OPTIONAL_PAIR_COLUMNS)


def add_command(commands) -> None:
    """The ``debias import-pairs`` subcommand's arguments."""
    sub = commands.add_parser(
        "import-pairs",
        help="a table of pairwise verdicts (one row per human verdict) as a preference task of the workflow",
        description="Check a table of battles (one row per human verdict of item, system A, system B; judges' "
        "verdicts as columns; a row with an empty verdict is a battle only the judges saw), write it as "
        "<out>/battles.csv in the canonical columns (item, system_a, system_b, verdict, rater, cluster, order, one per "
        "judge; verdicts spelled a/b/tie) and print the config block that declares the preference task (or add it "
        "to --config: the table is written first, the configuration last, and a failure leaves neither "
        "changed). A judge column may not be named like a canonical column. A new configuration writes "
        "its results to results/<task>.",
    )
    add_pair_columns(sub)
    sub.add_argument("--task", required=True, help="name of the new preference task")
    sub.add_argument("--label", help="its display name (default: the name)")
    sub.add_argument("--out", help="folder to write (default: data/<task>)")
    sub.add_argument("--force", action="store_true", help="replace the battles table if it exists already")
    sub.add_argument("--config", help="add the task to this config file instead of printing the block")
    add_input_format(sub, "--format")


def judge_names(args) -> dict[str, str]:
    """``{judge name: column}`` of the ``--judge`` columns, the name a safe form of the column's;
    refused: a column that is one of the battle's own (``--item``, ``--verdict``, ...), a name
    that is a canonical column (:data:`CANONICAL_COLUMNS`) or not a usable name, two columns
    of one name."""
    own = {
        "--item": args.item,
        "--system-a": args.system_a,
        "--system-b": args.system_b,
        "--verdict": args.verdict,
        "--rater": args.rater,
        "--cluster": args.cluster,
        "--order": args.order,
    }
    judges: dict[str, str] = {}
    for column in dict.fromkeys(args.judge):
        for option, value in own.items():
            if value is not None and column == value:
                raise InputError("--judge", f"column {column!r} is the {option} column, not a judge's verdicts")
        name = safe_name(column)
        if name in CANONICAL_COLUMNS:
            raise InputError(
                "--judge",
                f"judge column {column!r} would be named {name!r}, a column of the written table "
                f"({', '.join(CANONICAL_COLUMNS)}), and replace it: rename the column in the table",
            )
        reason = unsafe_reason(name)
        if reason:
            raise InputError("--judge", f"judge name {name!r} (column {column!r}) {reason}")
        if name in judges:
            raise InputError("--judge", f"judge columns {judges[name]!r} and {column!r} give the same name {name!r}")
        judges[name] = column
    return judges


def preference_config(path: str | Path, name: str, spec: Mapping) -> dict:
    """The configuration at ``path`` (``{}`` when missing) with the preference task ``name`` added;
    refused: a name the configuration has (a preference task or a task of ratings), a block the
    schema refuses. A new configuration writes its results to ``results/<name>`` and runs from any
    folder (``relative_to_config: true``, its paths relative to its own folder)."""
    from debias.config.settings import key_rules, schema_problem
    from debias.io.importer import path_for_config, project_folder, read_config_for_adding

    config = read_config_for_adding(path)
    for section in ("preferences", "tasks"):
        if name in (config.get(section) or {}):
            raise InputError(str(path), f"{section} already has ['{name}']")
    problem = schema_problem({"preferences": {name: dict(spec)}}, key_rules())
    if problem:
        raise InputError(str(path), f"the imported task cannot be added: {problem}")
    spec = dict(spec)
    if not config:  # a new configuration runs from any folder: paths relative to its own
        config["relative_to_config"] = True
        config["results_dir"] = path_for_config(project_folder(path) / "results" / name, path)
    config.setdefault("results_dir", "results")
    if config.get("relative_to_config") and spec.get("battles", "-") != "-":
        spec["battles"] = path_for_config(spec["battles"], path)
    config["preferences"] = {**(config.get("preferences") or {}), name: spec}
    return config


def tables_of_tasks(config_path: str | Path) -> list[tuple[str, str]]:
    """``(what, path)`` of the table of battles each preference task of the configuration at
    ``config_path`` reads (a path relative to the configuration's folder when it says
    ``relative_to_config: true``, else to the current folder): the files an import into it
    may not replace."""
    from debias.io.importer import read_config_for_adding

    config = read_config_for_adding(config_path)
    base = Path(config_path).parent if config.get("relative_to_config") else Path()
    found = []
    for task, spec in (config.get("preferences") or {}).items():
        table = (spec or {}).get("battles") if isinstance(spec, Mapping) else None
        if isinstance(table, str) and table != "-":
            found.append((f"read by preference task '{task}' of {config_path}", str(base / table)))
    return found


def _same_bytes(path: Path, other: str) -> bool:
    with contextlib.suppress(OSError):
        if path.stat().st_size == os.stat(other).st_size:
            return path.read_bytes() == Path(other).read_bytes()
    return False


def write_pairs(table, battles: str | Path, *, config=None, force: bool = False) -> None:
    """Write the canonical table to ``battles`` and then, given ``config`` (a path and the
    configuration to write there), the configuration: all or nothing.

    Each file is written under a temporary name beside its target and renamed into place; when
    the configuration cannot be written, the table is taken back (the one it replaced put back,
    the folders made for it removed). A table already at ``battles`` is replaced only with
    ``force``, unless it holds the same bytes.
    """
    from debias.io.atomic import _UMASK, remove_stale_temporaries, temporary_name_prefix
    from debias.io.importer import _read_only, _stage_config, _writable_folder, config_target

    battles = Path(battles)
    out = battles.parent
    if out.exists() and not out.is_dir():
        raise InputError(str(out), "is a file, not a folder (--out names the task's folder)")
    if battles.is_dir():
        raise InputError(str(battles), "is a folder: cannot write the table of battles there")
    _writable_folder(out)
    if out.exists() and _read_only(out):
        raise InputError(str(out), "is read-only: cannot write here")
    if battles.exists() and _read_only(battles) and force:
        raise InputError(str(battles), "is read-only: cannot replace it")
    if config is not None:
        path = Path(config[0])
        if path.is_dir():
            raise InputError(str(path), "is a folder, not a configuration file")
        _writable_folder(path.parent)
        if path.exists() and _read_only(path):
            raise InputError(str(path), "is read-only: cannot add the task to it")
    made = [folder for folder in [out, *out.parents] if not folder.exists()]
    tmp = backup = config_tmp = None
    undo, done = [], False
    try:
        out.mkdir(parents=True, exist_ok=True)
        remove_stale_temporaries(battles)  # what an import killed while writing left here
        fd, tmp = tempfile.mkstemp(prefix=temporary_name_prefix(battles), suffix=".tmp.csv", dir=out)
        os.close(fd)
        os.chmod(tmp, 0o666 & ~_UMASK)  # the permissions a plain open() gives
        table.to_csv(tmp, index=False, float_format="%.6g", lineterminator="\n")
        if battles.exists() and _same_bytes(battles, tmp):
            os.unlink(tmp)
            tmp = None
        else:
            if battles.exists():
                if not force:
                    raise InputError(str(battles), "exists; give --force to replace it")
                backup = f"{tmp}.old"
                os.replace(battles, backup)
                undo.append(lambda: os.replace(backup, battles))
            os.replace(tmp, battles)
            tmp = None
            undo.append(lambda: os.unlink(battles))
        if config is not None:
            config_tmp = _stage_config(Path(config[0]), config[1])
            os.replace(config_tmp, config_target(config[0]))
            config_tmp = None
        done = True
    except OSError as error:
        where = getattr(error, "filename", None) or battles
        raise InputError(str(where), f"cannot write ({error.strerror or error})") from None
    finally:
        for leftover in (tmp, config_tmp, backup if done else None):
            if leftover is not None:
                with contextlib.suppress(OSError):
                    os.unlink(leftover)
        if not done:  # put back what was moved, newest first, and remove the folders made
            for step in reversed(undo):
                with contextlib.suppress(OSError):
                    step()
            for folder in made:
                with contextlib.suppress(OSError):
                    folder.rmdir()


def run_command(args) -> int:
    """Run ``debias import-pairs``; exit status 2 with a one-line message on bad input, nothing
    written."""
    import yaml

    from debias.io.importer import config_lock, task_name
    from debias.io.pairs import canonical_pair_table

    try:
        name = task_name(args.task)
        judges = judge_names(args)
        battles = Path(args.out or Path("data") / name) / "battles.csv"
        written = [("--out", battles), ("--config", args.config)]
        refuse_overwrites(written, [(what, path) for what, path in command_inputs(args) if what != "the --config file"])
        if args.config:  # a name the configuration has is refused before the table is read
            preference_config(args.config, name, {"label": args.label or args.task, "battles": "-"})
            refuse_overwrites(written[:1], tables_of_tasks(args.config))
        mapping, by_column = pair_mappings(args)
        frame, pool = read_pair_inputs(args, args.input_format)
        table = canonical_pair_table(
            frame,
            item=args.item,
            system_a=args.system_a,
            system_b=args.system_b,
            verdict=args.verdict,
            rater=args.rater,
            judges=judges,
            pool=pool,
            mapping=mapping,
            judge_mappings={judge: by_column[column] for judge, column in judges.items() if column in by_column},
            source=args.table,
            cluster=args.cluster,
            order=args.order,
        )
        spec = {"label": args.label or args.task, "battles": battles.as_posix()}
        if args.rater:
            spec["rater"] = "rater"
        if args.cluster:
            spec["cluster"] = "cluster"
        if args.order:
            spec["order"] = "order"
        spec["judges"] = {judge: {"label": column} for judge, column in judges.items()}
        with config_lock(args.config):  # read, add and write the configuration as one step
            config = (args.config, preference_config(args.config, name, spec)) if args.config else None
            write_pairs(table, battles, config=config, force=args.force)
    except (InputError, OSError) as error:
        print(f"debias import-pairs: error: {error}", file=sys.stderr)
        return 2
    told = f"wrote {len(table)} rows ({int((table['verdict'] != '').sum())} human verdicts) to {battles}"
    if args.config:
        print(f"{told}; added preference task '{name}' to {args.config}", file=sys.stderr)
    else:
        print(f"# {told}; add this block to your configuration (or give --config FILE):", file=sys.stderr)
        print(yaml.safe_dump({"preferences": {name: spec}}, sort_keys=False, allow_unicode=True), end="")
    return 0
