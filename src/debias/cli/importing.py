"""The ``debias import`` command: a long table of ratings as a task of the workflow
(:mod:`debias.io.importer`)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from debias.cli.shared import add_input_format, command_inputs, refuse_overwrites, table_columns
from debias.io.canonical import InputError
from debias.io.importer import (
    ImportSpec,
    add_task,
    config_block,
    config_lock,
    judged_reference,
    path_for_config,
    project_folder,
    read_config_for_adding,
    reference_judged_items,
    task_name,
    write_import,
)
from debias.io.reader import read_evaluation_table, safe_name

__all__ = ["add_command", "run_command", "starter_config"]


def starter_config(out: Path, spec: ImportSpec, language: str = "en", config_path: str | Path | None = None) -> dict:
    """The settings of a configuration file that does not exist yet, so that the imported task
    runs as it is, from any folder: ``relative_to_config: true`` and every path relative to the
    configuration's folder (``config_path``; default: the current folder): ``data_dir`` the
    parent of ``out``; ``results_dir`` ``results/<task>`` of the project's folder (the current
    one when the configuration is inside it, else the configuration's own folder: beside the
    paper's ``results/`` in a checkout); ``nltk_data`` the checkout's provisioned WordNet when the
    project holds it, else ``nltk_data`` of the project's folder (where
    ``python -m nltk.downloader -d nltk_data wordnet`` puts it; METEOR also finds WordNet wherever
    NLTK looks); the metrics computed by default
    (:data:`debias.metrics.COMPUTED_METRICS`, labelled as their implementations; METEOR, which
    matches English stems and synonyms, for English only) when the table has outputs and
    references, the bootstrap's replicates and seed; every other setting takes its default from
    the schema."""
    import debias
    from debias.config.settings import DEFAULT_SEED
    from debias.metrics import COMPUTED_METRICS, DEFAULT_IMPLEMENTATIONS, ENGLISH_ONLY, IMPLEMENTATIONS

    config_path = Path(config_path) if config_path is not None else Path("config.yaml")
    project = project_folder(config_path)

    def relative(path: Path) -> str:
        return path_for_config(path, config_path)

    provisioned = Path(debias.__file__).resolve().parents[2] / "nltk_data"
    if not ((provisioned / "corpora/wordnet").is_dir() and provisioned.is_relative_to(project)):
        provisioned = project / "nltk_data"
    metrics = {
        name: {"label": IMPLEMENTATIONS[DEFAULT_IMPLEMENTATIONS[name]].label}
        for name in COMPUTED_METRICS
        if language == "en" or DEFAULT_IMPLEMENTATIONS[name] not in ENGLISH_ONLY
    }
    return {
        "relative_to_config": True,
        "data_dir": relative(out.parent),
        "results_dir": relative(project / "results" / task_name(spec.task)),
        "nltk_data": relative(provisioned),
        "metrics": metrics if spec.has_text else {},
        "bootstrap": {"replicates": 1000, "seed": DEFAULT_SEED},
        "figures": {},
    }


def add_command(commands) -> None:
    """The ``debias import`` subcommand's arguments."""
    sub = commands.add_parser(
        "import",
        help="a long table of ratings (one row per rating) as a task of the workflow",
        description="Write the canonical system files and references of a long table (CSV, TSV, Parquet or "
        "JSONL, plain or gzipped) and print the config block that declares the task (or add it to --config). "
        "Several rows of the same item, system and prompt are that output's judgments.",
    )
    sub.add_argument("table", help="the long table: one row per rating")
    sub.add_argument("--task", required=True, help="name of the new task")
    sub.add_argument("--item", required=True, metavar="COL", help="column naming the item (input)")
    sub.add_argument("--system", required=True, metavar="COL", help="column naming the system")
    sub.add_argument("--judgment", required=True, metavar="COL", help="column with the rating (a number)")
    which = sub.add_mutually_exclusive_group()
    which.add_argument("--prompt", metavar="COL", help="column naming the prompt (question) a rating answers")
    which.add_argument("--prompt-name", default="score", metavar="NAME", help="the one prompt's name (default: score)")
    sub.add_argument("--rater", metavar="COL", help="column naming the rater: an output's judgments in rater order")
    sub.add_argument(
        "--cluster",
        metavar="COL",
        help="column naming each item's cluster (the document or question several items share; the same on every "
        "row of an item): written on each line and as the task's cluster key",
    )
    sub.add_argument("--output", metavar="COL", help="column with the output text (needed to compute metrics)")
    ref = sub.add_mutually_exclusive_group()
    ref.add_argument("--reference", metavar="COL", help="column with the item's reference text")
    ref.add_argument(
        "--reference-system",
        metavar="NAME",
        help="the system whose outputs are the references (not scored: its rows need no --score values, and "
        "those they have are not read); judged on at least min_judged_items items (default 20) it is also the "
        "task's judged reference_system, otherwise only the references' texts",
    )
    sub.add_argument("--score", action="append", default=[], metavar="COL", help="per-output metric score (repeatable)")
    sub.add_argument("--lower-is-better", action="store_true", help="a lower rating is better (error counts, MQM)")
    sub.add_argument(
        "--language", default="en", metavar="CODE", help="the outputs' language, ISO 639-1 (default: %(default)s)"
    )
    sub.add_argument(
        "--scale",
        nargs=2,
        type=float,
        metavar=("MIN", "MAX"),
        help="the rating scale: a judgment outside it is an error (default: inferred from the judgments, printed)",
    )
    sub.add_argument("--out", help="folder to write (default: data/<task>)")
    sub.add_argument("--force", action="store_true", help="replace files the import would write that exist already")
    sub.add_argument("--config", help="add the task to this config file instead of printing the block")
    add_input_format(sub, "--format")
    sub.add_argument(
        "--quoting",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="honour CSV quotes (default: yes for CSV, no for TSV)",
    )


def with_task_metrics(config: dict, block: dict, spec: ImportSpec) -> tuple[dict, dict]:
    """The configuration and the task's block, with the task's own metrics: its provided scores,
    and when it has texts the configuration's computed metrics that suit its language (no METEOR
    but chrF and chrF++, added to the configuration when missing, for a language other than
    English). When these are not every configured metric, the task lists them
    (``tasks.<task>.metrics``), and so does every task that used every configured metric before,
    so that the metrics added for this task change no other task."""
    from debias.config.labels import computed_metrics
    from debias.metrics import DEFAULT_IMPLEMENTATIONS, ENGLISH_ONLY, IMPLEMENTATIONS, resolve_implementations

    config, block = dict(config), dict(block)
    before = list(config.get("metrics") or {})
    metrics = dict(config.get("metrics") or {})
    computed = []
    if spec.has_text:
        implementations = resolve_implementations(metrics)
        computed = [
            name
            for name in computed_metrics({"metrics": metrics})
            if spec.language == "en" or implementations.get(name) not in ENGLISH_ONLY
        ]
        if spec.language != "en":
            for name in ("chrf", "chrfpp"):
                if any(implementations.get(m) == DEFAULT_IMPLEMENTATIONS[name] for m in computed):
                    continue
                if name in metrics:
                    raise InputError("--config", f"metrics.{name} is not {DEFAULT_IMPLEMENTATIONS[name]}")
                metrics[name] = {"label": IMPLEMENTATIONS[DEFAULT_IMPLEMENTATIONS[name]].label}
                computed.append(name)
    own = computed + list(block.get("metrics") or {})
    after = list(metrics) + [m for m in block.get("metrics") or {} if m not in metrics]
    if set(own) != set(after):
        ((name, task),) = block["tasks"].items()
        block["tasks"] = {name: {**task, "metrics": [m for m in after if m in own]}}
        config["tasks"] = {
            other: entry if "metrics" in (entry or {}) or not before else {**entry, "metrics": before}
            for other, entry in (config.get("tasks") or {}).items()
        }
    if metrics:
        config["metrics"] = metrics
    return config, block


def checked(config: dict, block: dict, where: str = "--config") -> dict:
    """``config`` when the configuration schema accepts the imported task's block (and the
    metrics beside it), else an error: a refused configuration leaves nothing written."""
    from debias.config.settings import key_rules, schema_problem

    added = {"tasks": block["tasks"]} | ({"metrics": config["metrics"]} if "metrics" in config else {})
    problem = schema_problem(added, key_rules())
    if problem:
        raise InputError(where, f"the imported task cannot be added: {problem}")
    return config


def run_command(args) -> int:
    """Run ``debias import``; exit status 2 with a one-line message on bad input, nothing written."""
    import yaml

    columns = table_columns(args, output=args.output, reference=args.reference, prompt_name=args.prompt_name)
    spec = ImportSpec(
        task=args.task,
        columns=columns,
        reference_system=args.reference_system,
        lower_is_better=args.lower_is_better,
        language=args.language,
    )
    try:
        name = task_name(args.task)
        inputs = [(what, path) for what, path in command_inputs(args) if what != "the --config file"]
        refuse_overwrites([("--config", args.config)], inputs)
        existing = read_config_for_adding(args.config) if args.config else None
        if existing and name in (existing.get("tasks") or {}):
            raise InputError(args.config, f"tasks already has ['{name}']")
        if existing and existing.get("min_judged_items") is not None:
            spec = replace(spec, min_judged_items=int(existing["min_judged_items"]))
        table = read_evaluation_table(
            args.table,
            columns,
            fmt=args.input_format,
            quoting=args.quoting,
            scale=args.scale,
            unscored=args.reference_system,
            format_option="--input-format",
        )
        out = Path(args.out or Path("data") / name)
        refuse_overwrites(
            [("--out", out / "systems" / f"{safe_name(system)}.jsonl.gz") for system in table.systems]
            + [("--out", out / "references.jsonl.gz"), ("--config", args.config)],
            inputs,
        )
        block = config_block(table, spec)
        with config_lock(args.config):  # read, add and write the configuration as one step
            config = None
            if args.config:
                existing = read_config_for_adding(args.config)
                base, block = with_task_metrics(
                    existing or starter_config(out, spec, args.language, args.config), block, spec
                )
                config = (args.config, checked(add_task(base, block, args.config), block))
            write_import(table, spec, out, config=config, force=args.force)
    except InputError as error:
        print(f"debias import: error: {error}", file=sys.stderr)
        return 2
    if not table.scale_declared:
        for prompt, (low, high) in table.scale.items():
            print(
                f"# prompt '{prompt}': scale inferred as [{low:g}, {high:g}] (declare it with --scale MIN MAX)",
                file=sys.stderr,
            )
    if args.reference_system is not None and not judged_reference(table, spec):
        print(
            f"# reference system '{args.reference_system}': {reference_judged_items(table, spec)} judged items "
            f"(fewer than min_judged_items, {spec.min_judged_items}): its outputs are the references only, "
            "not a judged system of the task",
            file=sys.stderr,
        )
    task = next(iter(block["tasks"].values()))
    if args.config:
        print(f"wrote {len(task['systems'])} systems to {out}; added task '{name}' to {args.config}", file=sys.stderr)
    else:
        print(
            f"# wrote {len(task['systems'])} systems to {out}; add this block to your configuration under tasks "
            "(or give --config FILE to write a configuration that runs as it is):",
            file=sys.stderr,
        )
        print(yaml.safe_dump(block, sort_keys=False, allow_unicode=True), end="")
    return 0
