"""``debias estimate | compare | leaderboard | plan``: the workflow's estimates, comparisons, ranks and
plans for one or more system files, without running the workflow.

Each command reads canonical system files (checked line by line as the workflow checks them: a bad line
stops it with ``file:line: what was expected``), joins their judgments with metric scores and prints the rows
the workflow writes to ``system_estimates.csv``, ``system_comparisons.csv``, ``leaderboard.csv`` (lower first
where a prompt is ``higher_is_better: false``) or ``plan.csv`` for those systems, with the config's settings.
Metric scores, in this order: the config's provided metrics (scores on each line of the system file);
``--scores`` CSV files (an ``id`` column and one per metric, such as the workflow's
``results/metrics/<task>/<system>.csv``, used by default when it exists); ``--compute`` metrics scored now
(``bleu``, ``rouge1``, ``rouge2``, ``rougeL``; slower). Without any, only ``mean`` is printed. A task whose
items have clusters (its ``cluster`` key) is read with them, as the workflow reads it.

Given a long table of ratings instead (its columns named: ``--item COL --judgment COL``, and
``--system``, ``--score`` ...), each prints the rows of :func:`debias.estimate`,
:func:`debias.compare`, :func:`debias.leaderboard` or :func:`debias.plan` on what
:func:`debias.read_ratings` reads of it, with their defaults (:mod:`debias.cli.long_table`).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
import signal
import sys
import threading
import warnings
from pathlib import Path

from debias.cli.long_table import add_table_options, analyse_table, is_table
from debias.cli.shared import (
    DebiasParser,
    add_output_options,
    command_inputs,
    emit,
    level_words,
    output_header,
    plain_text,
    progress,
    refuse_overwrites,
    run_with_output,
)
from debias.distribution.extras import MissingExtraError
from debias.io.canonical import InputError, read_references, read_system, resolve_jsonl
from debias.io.scores import number_in, read_scores_csv, workflow_scores_file
from debias.pipeline.inputs import check_item_clusters, check_shared_judgments
from debias.stats.common.vocabulary import MIN_LEVEL

#: The configuration the commands read for system files when not given --config.
DEFAULT_CONFIG = "config/config.yaml"
COMPUTABLE = {"bleu": "sacrebleu", "rouge1": "rouge-score-1", "rouge2": "rouge-score-2", "rougeL": "rouge-score-L"}


def _load_config(args):
    from debias.config.settings import ConfigError, load_config

    path = Path(args.config)
    if not path.exists():
        raise InputError(str(path), "config file not found (give --config)")
    try:
        return load_config(path, required=("metrics", "tasks"))
    except ConfigError as error:
        raise InputError("--config", str(error)) from None


def _task_of(config, path: Path, task: str | None, config_path: str = "config/config.yaml") -> str:
    task = task or path.resolve().parent.parent.name
    if task not in config["tasks"]:
        raise InputError(
            f"{config_path}: tasks.{task}",
            f"unknown task '{task}' (this config declares {', '.join(config['tasks'])}): give --config with the "
            "file that declares the task, or --task to name one of these",
        )
    return task


def _system_name(path: Path) -> str:
    name = path.name
    for suffix in (".jsonl.gz", ".jsonl"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return path.stem


def _looks_like_a_table(path: Path) -> bool:
    """A file named as a CSV, TSV or Parquet table (plain or gzipped), which no system file is."""
    from debias.io.reader import FORMATS

    suffixes = [s.lower() for s in path.suffixes if s.lower() != ".gz"]
    return bool(suffixes) and FORMATS.get(suffixes[-1]) in ("csv", "tsv", "parquet")


def _joined(args, config, path: Path, scores_path, task: str):
    """The joined table (:func:`debias.tables.joined.join_system`) of one system file."""
    from debias.config.labels import computed_metrics, provided_metrics
    from debias.tables.joined import join_system

    if not path.is_file():
        raise InputError(str(path), "system file not found (a canonical .jsonl or .jsonl.gz file)")
    prompts = config["tasks"][task]["prompts"]
    references_file = Path(args.references) if args.references else resolve_jsonl(path.parent.parent / "references")
    if references_file is None and (args.compute or computed_metrics(config, task)):
        raise InputError(
            f"{path.parent.parent / 'references'}.jsonl.gz", "references file not found (give --references)"
        )
    references = read_references(references_file) if references_file is not None else None
    provided = provided_metrics(config, task)
    items = read_system(path, prompts, references, provided, config["tasks"][task].get("cluster"))
    if not items:
        raise InputError(str(path), "no outputs: the file has no lines")
    system = _system_name(path)
    check_shared_judgments(config, task, {system: items}, {system: path})
    if args.scores and args.compute:
        raise InputError("--compute", "give either --scores files or --compute metrics, not both")
    if scores_path is None and not args.compute:
        scores_path, places = workflow_scores_file(config, args.config, task, system)
        computed_in_config = computed_metrics(config, task)
        if scores_path is None and computed_in_config:
            print(
                f"debias: no metric scores for {system} (looked for {places[0]}"
                + "".join(f", {place}" for place in places[1:])
                + f"): {', '.join(computed_in_config)} left out; give --scores or --compute",
                file=sys.stderr,
            )
    table, computed = None, []
    if scores_path is not None:
        refuse_overwrites(
            [("--output", getattr(args, "output_file", None))],
            [("the metric scores read by default", str(scores_path))],
        )
        by_id, computed = read_scores_csv(scores_path)
        missing = [item.id for item in items if item.id not in by_id]
        if missing:
            raise InputError(
                str(scores_path), f"no scores for id '{missing[0]}' ({len(missing)} ids of {path} missing)"
            )
        import pandas as pd

        table = pd.DataFrame([{"id": item.id, **by_id[item.id]} for item in items])
    elif args.compute:
        from debias.metrics import score_outputs

        unknown = [m for m in args.compute if m not in COMPUTABLE]
        if unknown:
            raise InputError("--compute", f"cannot compute '{unknown[0]}' here (choose from {', '.join(COMPUTABLE)})")
        wanted = list(dict.fromkeys(args.compute))
        with progress(f"scoring {', '.join(wanted)} on the {len(items):,} outputs of {system}"):
            table = score_outputs(
                [i.output for i in items],
                [references[i.id] for i in items],
                metrics={m: COMPUTABLE[m] for m in wanted},
            )
        table.insert(0, "id", [i.id for i in items])
        computed = list(dict.fromkeys(args.compute))
    found = provided + [m for m in computed if m not in provided]
    available = [m for m in config.get("metrics", {}) if m in found] + [
        m for m in found if m not in config.get("metrics", {})
    ]
    metrics = list(dict.fromkeys(args.metric)) if args.metric else available
    for metric in metrics:
        if metric not in available:
            raise InputError(
                "--metric", f"no scores for metric '{metric}' (available: {', '.join(available) or 'none'})"
            )
    frame = join_system(task, system, items, list(prompts), table, metrics, [m for m in metrics if m in provided])
    return frame, metrics, items


def default_level() -> float:
    """The intervals' level when neither ``--level`` nor a configuration gives one: the schema's
    ``estimates.level``."""
    from debias.config.settings import section_defaults

    return section_defaults("estimates")["level"]


def _level_of(args, table):
    """The level of the intervals a command printed: the one it used (``args.level_used``), else
    the table's one ``level``; ``None`` for a table without intervals."""
    level = getattr(args, "level_used", None)
    if level is None and "level" in getattr(table, "columns", ()):
        levels = table["level"].dropna().unique()
        level = float(levels[0]) if len(levels) == 1 else None
    return level


def _emitter(args):
    """How a command prints its table: :func:`debias.cli.shared.emit` with a header (the
    version, the command's arguments and the intervals' level; JSON and Markdown show it), and
    for CSV, which has no room for it, the level in one line on stderr (``debias status`` says
    it in its answer line)."""

    def _emit(table, fmt: str, out) -> None:
        level = _level_of(args, table)
        if fmt == "csv" and level is not None and args.command != "status":
            print(f"debias {getattr(args, 'invoked', args.command)}: {level_words(level)}", file=sys.stderr)
        emit(table, fmt, out, output_header(args, level))

    return _emit


def _estimate(args, config):
    from debias.tables.estimates import system_estimates_table

    path = Path(args.system_file)
    task = _task_of(config, path, args.task, args.config)
    frame, metrics, _ = _joined(args, config, path, args.scores[0] if args.scores else None, task)
    from debias.config.labels import estimates_spec

    level = args.level if args.level is not None else estimates_spec(config)["level"]
    args.level_used = level
    return system_estimates_table([frame], {task: list(config["tasks"][task]["prompts"])}, metrics, level=level)


def _compare(args, config):
    from debias.config.labels import compare_spec, prompt_is_lower_better
    from debias.tables.comparisons import system_comparisons_table
    from debias.tables.leaderboard import ratings_leaderboard_table

    paths = [Path(p) for p in args.systems]
    if args.scores and len(args.scores) != len(paths):
        raise InputError("--scores", f"give one scores file per system file ({len(paths)}), found {len(args.scores)}")
    tasks = {_task_of(config, p, args.task, args.config) for p in paths}
    if len(tasks) > 1:
        raise InputError(args.command, f"the files belong to different tasks ({', '.join(sorted(tasks))}); give --task")
    task = tasks.pop()
    joined = [_joined(args, config, p, args.scores[i] if args.scores else None, task) for i, p in enumerate(paths)]
    read = {str(p): j[2] for p, j in zip(paths, joined)}
    check_shared_judgments(config, task, read, {str(p): p for p in paths})
    check_item_clusters(config, task, read, {str(p): p for p in paths})
    frames, metrics = [j[0] for j in joined], [m for m in joined[0][1] if all(m in j[1] for j in joined)]
    spec = compare_spec(config) | ({} if args.level is None else {"level": args.level})
    args.level_used = spec["level"]
    prompts = {task: list(config["tasks"][task]["prompts"])}
    if args.command == "leaderboard":
        lower = {(task, p) for p in prompts[task] if prompt_is_lower_better(config, task, p)}
        return ratings_leaderboard_table(
            frames, prompts, metrics, level=spec["level"], seed=spec["seed"], lower_is_better=lower, top_k=args.top_k
        )
    return system_comparisons_table(frames, prompts, metrics, spec, min_items=spec["min_items"])


def _plan(args, config):
    from debias.config.labels import plan_spec
    from debias.tables.plans import plan_table

    path = Path(args.system_file)
    task = _task_of(config, path, args.task, args.config)
    frame, metrics, _ = _joined(args, config, path, args.scores[0] if args.scores else None, task)
    spec = plan_spec(config)
    for key in (
        "assurance",
        "cost_per_judgment",
        "cost_per_item",
        "cost_per_cluster",
        "max_judgments_per_item",
        "level",
    ):
        if getattr(args, key, None) is not None:
            spec[key] = getattr(args, key)
    if args.annotator_variance is not None:
        spec["annotator_variance"] = args.annotator_variance
    if args.target_width:
        spec["target_widths"] = list(args.target_width)
    if args.half_width:
        spec["target_widths"] = [2.0 * h for h in args.half_width]
    args.level_used = spec["level"]
    return plan_table([frame], {task: list(config["tasks"][task]["prompts"])}, metrics, spec)


def _parser() -> argparse.ArgumentParser:
    import debias

    parser = DebiasParser(
        prog="debias", description=plain_text(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--version", action="version", version=f"debias {debias.__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    def common(sub):
        sub.add_argument(
            "--config",
            help=f"config file with the task's prompts and settings, for system files (default: {DEFAULT_CONFIG})",
        )
        sub.add_argument(
            "--task",
            help="task of the config (default: the folder above systems/, as in <data_dir>/<task>/systems/); for a "
            "long table, the name its rows carry and their random draws are named after (default: evaluation)",
        )
        sub.add_argument("--references", help="references file (default: references.jsonl[.gz] beside systems/)")
        sub.add_argument(
            "--scores",
            action="append",
            metavar="CSV",
            help="metric scores: an id column and one column per metric (repeatable, one per system file; "
            "default: results/metrics/<task>/<system>.csv if present)",
        )
        sub.add_argument(
            "--compute",
            action="append",
            metavar="METRIC",
            help=f"score this metric now ({', '.join(COMPUTABLE)}); repeatable",
        )
        sub.add_argument(
            "--metric",
            action="append",
            metavar="METRIC",
            help="use only this metric (repeatable; default: every metric with scores)",
        )
        sub.add_argument(
            "--level",
            type=number_in(MIN_LEVEL, 1, low_open=False),
            help=f"interval level in [{MIN_LEVEL:g}, 1) (default: estimates.level of the config; for a long table, "
            f"{default_level():g})",
        )
        add_output_options(sub)
        add_table_options(sub)

    estimate = commands.add_parser(
        "estimate",
        help="each prompt's mean human score of one system, every estimator",
        description="Print the system_estimates.csv rows of one system file, or of every system of a long table "
        "of ratings (--item COL --judgment COL ...): mean, cv:<metric>, cv:combined (and ppi++ when some outputs "
        "are unjudged) per prompt.",
    )
    estimate.add_argument(
        "system_file", metavar="file", help="canonical system file (.jsonl or .jsonl.gz), or a long table of ratings"
    )
    common(estimate)
    for name, summary, description in (
        ("compare", "differences between systems judged on the same items", "Print the system_comparisons.csv "
         "rows of every pair of the given system files (B - A, in the order given), or of a long table's systems "
         "(--item COL --judgment COL ...), on the items both have judged."),
        ("leaderboard", "systems ranked, with simultaneous rank-sets", "Print every system's estimate, interval and "
         "rank-set per prompt and estimator: with probability --level all true ranks lie in their sets at once. "
         "A table of pairwise verdicts is ranked as debias.leaderboard ranks it: debias leaderboard TABLE --item COL "
         "--system-a COL --system-b COL --verdict COL [--judge COL ...] [--rater COL] [--level L] [--top-k K] "
         "(the options of debias preferences, which prints the same with --leaderboard)."),
    ):  # fmt: skip
        several = commands.add_parser(name, help=summary, description=description)
        several.add_argument(
            "systems", nargs="+", metavar="file", help="two or more system files of one task, or one long table"
        )
        common(several)
        if name == "leaderboard":
            several.add_argument(
                "--top-k",
                type=int,
                metavar="K",
                help="also ask how many more judgments would settle the top K systems: the column "
                "factor_for_top_k, the factor by which each estimator's judged items must grow",
            )
    plan = commands.add_parser(
        "plan",
        help="how many items and judgments per item to buy",
        description="Print the plan.csv rows of one system file (or of a long table's systems, --item COL "
        "--judgment COL ...): the cheapest (n items, k judgments each) "
        "whose interval meets each target width (the full width, upper minus lower end) with the stated "
        "assurance, its judged items as the pilot. The plan is for a new study with new raters: the "
        "variance components are estimated without bias (rater variance with ddof 1, the items' variance "
        "with the rater noise of their mean judgments taken out).",
    )
    plan.add_argument(
        "system_file", metavar="file", help="canonical system file of the pilot (.jsonl or .jsonl.gz), or a long table"
    )
    common(plan)
    widths = plan.add_mutually_exclusive_group()
    widths.add_argument(
        "--target-width",
        type=number_in(0),
        action="append",
        metavar="W",
        help="FULL width of the interval to reach, upper end minus lower end, on the judgments' scale "
        "(twice the half-width; repeatable; default: plan.target_widths or per prompt from plan.auto_n)",
    )
    widths.add_argument(
        "--half-width",
        type=number_in(0),
        action="append",
        metavar="H",
        help="half-width to reach (estimate ± H), the same as --target-width 2H (repeatable)",
    )
    plan.add_argument(
        "--assurance",
        type=number_in(0, 1),
        help="probability that the width meets the target (default: plan.assurance)",
    )
    plan.add_argument(
        "--cost-per-judgment", type=number_in(0), help="price of one judgment (default: plan.cost_per_judgment)"
    )
    plan.add_argument(
        "--cost-per-item",
        type=number_in(0, low_open=False),
        help="price of one item besides its judgments (default: plan.cost_per_item)",
    )
    plan.add_argument(
        "--cost-per-cluster",
        type=number_in(0, low_open=False),
        help="price of one cluster besides its items, when items share clusters (default: plan.cost_per_cluster)",
    )
    plan.add_argument(
        "--max-judgments-per-item",
        type=number_in(1, low_open=False, integer=True),
        help="largest k considered (default: plan.max_judgments_per_item)",
    )
    plan.add_argument(
        "--annotator-variance",
        type=number_in(0, low_open=False),
        help="variance of one judgment around its item's score, for a pilot with one judgment per item "
        "(default: plan.annotator_variance; without it such a pilot plans items only)",
    )
    from debias.cli.import_pairs import add_command as add_import_pairs
    from debias.cli.importing import add_command as add_import
    from debias.cli.preferences import add_command as add_preferences
    from debias.cli.run import add_command as add_run

    add_import(commands)
    add_import_pairs(commands)
    add_preferences(commands)
    add_run(commands)
    from debias.cli.status import add_command as add_status

    add_status(commands)  # debias status, debias next
    return parser


#: Options that make ``debias leaderboard`` rank a table of pairwise verdicts.
PAIR_OPTIONS = ("--system-a", "--system-b", "--verdict")


def _pairwise_leaderboard(argv: list[str]) -> list[str]:
    """``debias leaderboard TABLE --system-a ...`` as ``debias preferences TABLE --leaderboard ...``
    (one set of options for a table of pairwise verdicts); other arguments as they are."""
    if argv[:1] == ["leaderboard"] and any(a.split("=", 1)[0] in PAIR_OPTIONS for a in argv[1:]):
        return ["preferences", *argv[1:], "--leaderboard"]
    return argv


def written_files(args) -> list[tuple[str, str]]:
    """``(option, path)`` of the files the command writes: ``--output``, and ``--figure``'s
    PATH.pdf and PATH.png."""
    written = [("--output", getattr(args, "output_file", None))]
    figure = getattr(args, "figure", None)
    if figure:
        written += [("--figure", f"{figure}{suffix}") for suffix in (".pdf", ".png")]
    return written


def default_inputs(args) -> list[tuple[str, str]]:
    """``(what, path)`` of the files a command on system files reads without being told: the
    configuration (``config/config.yaml``) and the references beside ``systems/`` (the metric
    scores the configuration points to are checked once it is read, in :func:`_joined`)."""
    if args.command not in ("estimate", "compare", "leaderboard", "plan") or is_table(args):
        return []
    found = []
    if not getattr(args, "config", None):
        found.append(("the configuration read by default", DEFAULT_CONFIG))
    if not getattr(args, "references", None):
        files = [args.system_file] if hasattr(args, "system_file") else list(args.systems)
        for file in files:
            beside = resolve_jsonl(Path(file).parent.parent / "references")
            if beside is not None:
                found.append(("the references read by default", str(beside)))
    return found


def main(argv=None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    if given[:1] == ["run"] and given[1:] not in (["-h"], ["--help"]):  # Snakemake's arguments, as given
        from debias.cli.run import run_command

        return run_command(given[1:])
    argv = _pairwise_leaderboard(given)
    args = _parser().parse_args(argv)
    args.invoked = given[0] if given else args.command
    args.argv = given
    try:
        refuse_overwrites(written_files(args), [*command_inputs(args), *default_inputs(args)])
    except InputError as error:
        print(f"debias {args.invoked}: error: {error}", file=sys.stderr)
        return 2
    with _ending_cleanly_on_sigterm(), _warnings_in_one_line(f"debias {args.invoked}"):
        return run_with_output(getattr(args, "output_file", None), lambda: _run(args), f"debias {args.invoked}")


@contextlib.contextmanager
def _warnings_in_one_line(name: str):
    """While the command runs, a warning about its input (:class:`~debias.io.canonical.InputWarning`)
    is printed as ``<name>: warning: <message>``, without the line of code that raised it;
    other warnings are shown as Python shows them."""
    from debias.io.canonical import InputWarning

    shown = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, InputWarning):
            print(f"{name}: warning: {message}", file=sys.stderr if file is None else file)
        else:
            shown(message, category, filename, lineno, file, line)

    warnings.showwarning = show
    try:
        yield
    finally:
        warnings.showwarning = shown


@contextlib.contextmanager
def _ending_cleanly_on_sigterm():
    """While the command runs, a ``kill`` (SIGTERM) ends it as an interrupt does, so that a file
    being written is removed, not left beside its target (:func:`debias.io.atomic.atomic_path`);
    a SIGKILL cannot be caught, and the next write of the target removes what it left. The
    previous handler is restored afterwards."""

    def stop(signum, frame):
        raise SystemExit(128 + signum)

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _quiet_on_closed_pipe(command, *, needs_output: bool = True) -> int:
    """Run a command that prints a table; when the reader closed the pipe (``| head``), the rows
    it wanted are out and the command ends quietly, with exit status 0. Standard output closed
    before the start (``>&-``) or one that cannot take the table (a full disk, ``/dev/full``)
    ends the command with one line on standard error and exit status 1."""
    if sys.stdout is None and needs_output:  # started with standard output closed (>&-): nowhere to print to
        print("debias: error: standard output is closed: nothing can be printed (give --output FILE)", file=sys.stderr)
        return 2
    try:
        status = command()
        if sys.stdout is not None:
            sys.stdout.flush()
        return status
    except BrokenPipeError:
        _discard_standard_output()
        return 0
    except OSError as error:
        if error.errno not in (errno.ENOSPC, errno.EIO, errno.EFBIG, errno.EBADF):
            raise
        _discard_standard_output()
        said = f"what it prints could not be written to standard output: {error.strerror}"
        print(f"debias: error: {said}", file=sys.stderr)
        return 1


def _discard_standard_output() -> None:
    """Point standard output at the null device, so that what is still buffered for it is not
    written (and fails) again when the interpreter ends."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _run(args) -> int:
    """Run the parsed command; its exit status."""
    if args.command in ("import", "import-pairs") and sys.stdout is None and not args.config:
        # without --config the configuration block is printed: refused before any file is written
        print(
            f"debias {args.command}: error: standard output is closed: the configuration block would be lost "
            "(give --config FILE to add the task to a configuration)",
            file=sys.stderr,
        )
        return 2
    # the imports refuse a closed standard output themselves when they have a block to print
    if args.command == "import":
        from debias.cli.importing import run_command

        return _quiet_on_closed_pipe(lambda: run_command(args), needs_output=False)
    if args.command == "import-pairs":
        from debias.cli.import_pairs import run_command

        return _quiet_on_closed_pipe(lambda: run_command(args), needs_output=False)
    _emit = _emitter(args)
    if args.command == "preferences":
        from debias.cli.preferences import run_command

        return _quiet_on_closed_pipe(lambda: run_command(args, _emit))
    if getattr(args, "run", None) is not None:  # commands that run themselves (debias status, next)
        if sys.stdout is None and args.command == "next":  # its battles go to --output: what it says, to stderr
            sys.stdout = sys.stderr
        return _quiet_on_closed_pipe(lambda: args.run(args, _emit))
    table_given = is_table(args)
    if args.command in ("compare", "leaderboard") and len(args.systems) < 2 and not table_given:
        _parser().error(f"{args.command} needs at least two system files (or one long table with --item ...)")
    try:
        if table_given:
            table, args.level_used = analyse_table(args)
        else:
            files = [args.system_file] if hasattr(args, "system_file") else args.systems
            table_file = next((f for f in files if _looks_like_a_table(Path(f))), None)
            if table_file is not None:
                raise InputError(
                    table_file,
                    "a long table of ratings is read with its columns named (--item COL --judgment COL, and "
                    "--system, --score ...); system files are canonical .jsonl or .jsonl.gz files",
                )
            args.config = args.config or DEFAULT_CONFIG
            config = _load_config(args)
            table = {"estimate": _estimate, "compare": _compare, "leaderboard": _compare, "plan": _plan}[args.command](
                args, config
            )
    except (InputError, ValueError, MissingExtraError) as error:  # ValueError: what the data model refuses
        print(f"debias {args.command}: error: {error}", file=sys.stderr)
        return 2

    def emit() -> int:
        _emit(table, args.format, sys.stdout)
        return 0

    return _quiet_on_closed_pipe(emit)


if __name__ == "__main__":
    sys.exit(main())
