"""``debias estimate | compare | leaderboard | plan`` on a long table of ratings: one row per
judgment, its columns named as ``debias import`` and ``debias status`` name them, read by the
one reader of ratings (:func:`debias.io.reader.read_evaluation_table`) and analysed as the
Python API analyses what :func:`debias.read_ratings` read (:func:`debias.estimate`,
:func:`debias.compare`, :func:`debias.leaderboard`, :func:`debias.plan`), with the API's
defaults: no configuration file is read.

A command takes a long table instead of system files when any of the table's column options is
given (``--item``, ``--judgment``, ...); ``--item`` and ``--judgment`` are then needed. The
metrics are the ``--score`` columns; ``--reference-system NAME`` leaves that system's rows out,
as ``debias import`` leaves a reference system out of the task's systems (its rows need no
scores); ``--task NAME`` is the name the rows carry and their random draws are named after (the
name of the task ``debias import`` made of the table gives the workflow's seeds).
"""

from __future__ import annotations

from debias.cli.shared import add_input_format, table_columns
from debias.io.canonical import InputError

__all__ = ["add_table_options", "analyse_table", "is_table"]

#: The options that name a long table's columns or how it is read (their ``dest``).
TABLE_OPTIONS = (
    "item",
    "judgment",
    "system",
    "prompt",
    "rater",
    "score",
    "cluster",
    "lower_is_better",
    "scale",
    "reference_system",
    "input_format",
)
#: The options of canonical system files, which a long table does not take (their ``dest``).
FILE_OPTIONS = ("config", "references", "scores", "compute", "metric")
#: Plan options the API's ``plan`` section takes by the same name.
PLAN_SETTINGS = (
    "assurance",
    "cost_per_judgment",
    "cost_per_item",
    "cost_per_cluster",
    "max_judgments_per_item",
    "annotator_variance",
)


def _option(name: str) -> str:
    return "--" + name.replace("_", "-")


def add_table_options(sub) -> None:
    """The options of a long table of ratings, in their own group of the command's help."""
    group = sub.add_argument_group(
        "a long table of ratings instead of system files (one row per judgment; the API's defaults, no --config)"
    )
    group.add_argument("--item", metavar="COL", help="column naming the item (the input)")
    group.add_argument("--judgment", metavar="COL", help="column with the rating (a number; empty: not judged)")
    group.add_argument("--system", metavar="COL", help="column naming the system")
    group.add_argument("--prompt", metavar="COL", help="column naming the prompt (a rubric's criterion)")
    group.add_argument("--rater", metavar="COL", help="column naming the rater")
    group.add_argument(
        "--score",
        action="append",
        metavar="COL",
        help="per-output metric score, the same on every row of an output (repeatable): the control variates",
    )
    group.add_argument(
        "--cluster", metavar="COL", help="column naming each item's cluster (the document or question items share)"
    )
    group.add_argument(
        "--reference-system",
        metavar="NAME",
        help="a system whose outputs are the references: its rows are left out (they need no --score values)",
    )
    group.add_argument("--lower-is-better", action="store_true", default=None, help="a lower rating is better")
    group.add_argument(
        "--scale", nargs=2, type=float, metavar=("MIN", "MAX"), help="the rating scale (default: inferred)"
    )
    add_input_format(group)


def is_table(args) -> bool:
    """Whether the command was given a long table: any of its column options."""
    return any(getattr(args, name, None) not in (None, []) for name in TABLE_OPTIONS)


def _read(args, path: str):
    from debias.io.reader import read_evaluation_table, without_system

    for name in ("item", "judgment"):
        if getattr(args, name) is None:
            raise InputError(_option(name), "a long table of ratings needs --item and --judgment")
    for name in FILE_OPTIONS:
        if getattr(args, name, None):
            raise InputError(_option(name), "is an option of system files, not of a long table of ratings")
    if args.reference_system is not None and args.system is None:
        raise InputError("--reference-system", "names a value of the --system column: give --system too")
    columns = table_columns(args)
    scale = tuple(args.scale) if args.scale else None
    table = read_evaluation_table(
        path,
        columns,
        fmt=args.input_format,
        scale=scale,
        unscored=args.reference_system,
        format_option="--input-format",
    )
    if args.reference_system is not None:
        table = without_system(table, args.reference_system)
    task = args.task if args.task is not None else "evaluation"
    return table.with_settings(higher_is_better=not args.lower_is_better, task=task)


def analyse_table(args):
    """The table the command prints for the long table it was given, and its intervals' level."""
    import debias.api
    from debias.api import _level

    paths = [args.system_file] if hasattr(args, "system_file") else list(args.systems)
    if len(paths) != 1:
        raise InputError(args.command, f"give one long table, found {len(paths)} files ({', '.join(paths)})")
    ratings = _read(args, paths[0])
    level = _level(args.level)
    if args.command == "estimate":
        return debias.api.estimate(ratings, level=level), level
    if args.command == "compare":
        return debias.api.compare(ratings, level=level), level
    if args.command == "leaderboard":
        return debias.api.leaderboard(ratings, level=level, top_k=args.top_k), level
    settings = {name: getattr(args, name) for name in PLAN_SETTINGS if getattr(args, name, None) is not None}
    if args.target_width:
        settings["target_widths"] = list(args.target_width)
    if args.half_width:
        settings["target_widths"] = [2.0 * h for h in args.half_width]
    return debias.api.plan(ratings, level=level, settings=settings), level
