"""``debias import-pairs``: a table of pairwise verdicts as a preference task of the workflow
(:func:`debias.io.pairs.canonical_pair_table`)."""

from __future__ import annotations

import sys
from pathlib import Path

from debias.cli.preferences import add_pair_columns
from debias.io.canonical import InputError
from debias.io.reader import FORMATS, read_long_table, safe_name


def add_command(commands) -> None:
    """The ``debias import-pairs`` subcommand's arguments."""
    sub = commands.add_parser(
        "import-pairs",
        help="a table of pairwise verdicts (one row per human verdict) as a preference task of the workflow",
        description="Check a table of battles (one row per human verdict of item, system A, system B; judges' "
        "verdicts as columns; a row with an empty verdict is a battle only the judges saw), write it as "
        "<out>/battles.csv in the canonical columns (item, system_a, system_b, verdict, rater, one per judge; "
        "verdicts spelled a/b/tie) and print the config block that declares the preference task (or add it "
        "to --config).",
    )
    add_pair_columns(sub)
    sub.add_argument("--task", required=True, help="name of the new preference task")
    sub.add_argument("--label", help="its display name (default: the name)")
    sub.add_argument("--out", help="folder to write (default: data/<task>)")
    sub.add_argument("--config", help="add the task to this config file instead of printing the block")
    sub.add_argument("--format", choices=sorted(set(FORMATS.values())), help="table format (default: from the name)")


def _add_to_config(path: str, block: dict) -> None:
    """Add the preference task to a configuration file (created when missing), refusing a name it has."""
    import yaml

    from debias.io.atomic import atomic_path
    from debias.io.importer import read_config_for_adding

    config = read_config_for_adding(path)
    name = next(iter(block["preferences"]))
    if name in (config.get("preferences") or {}):
        raise InputError(path, f"preferences already has ['{name}']")
    config.setdefault("results_dir", "results")
    config["preferences"] = {**(config.get("preferences") or {}), **block["preferences"]}
    with atomic_path(path) as tmp:
        Path(tmp).write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")


def run_command(args) -> int:
    """Run ``debias import-pairs``; exit status 2 with a one-line message on bad input."""
    import yaml

    from debias.io.atomic import write_csv
    from debias.io.pairs import canonical_pair_table

    name = safe_name(args.task)
    judges = {safe_name(column): column for column in dict.fromkeys(args.judge)}
    try:
        if len(judges) < len(set(args.judge)):
            raise InputError("--judge", f"two judge columns give the same name: {sorted(args.judge)}")
        frame = read_long_table(args.table, args.format)
        pool = read_long_table(args.pool, args.format) if args.pool else None
        table = canonical_pair_table(
            frame,
            item=args.item,
            system_a=args.system_a,
            system_b=args.system_b,
            verdict=args.verdict,
            rater=args.rater,
            judges=judges,
            pool=pool,
            source=args.table,
        )
        out = Path(args.out or Path("data") / name)
        out.mkdir(parents=True, exist_ok=True)
        battles = out / "battles.csv"
        spec = {"label": args.label or args.task, "battles": battles.as_posix()}
        if args.rater:
            spec["rater"] = "rater"
        spec["judges"] = {judge: {"label": column} for judge, column in judges.items()}
        block = {"preferences": {name: spec}}
        if args.config:
            _add_to_config(args.config, block)
        write_csv(table, battles)
    except (InputError, OSError) as error:
        print(f"debias import-pairs: error: {error}", file=sys.stderr)
        return 2
    told = f"wrote {len(table)} rows ({int((table['verdict'] != '').sum())} human verdicts) to {battles}"
    if args.config:
        print(f"{told}; added preference task '{name}' to {args.config}", file=sys.stderr)
    else:
        print(f"# {told}; add to config/config.yaml:", file=sys.stderr)
        print(yaml.safe_dump(block, sort_keys=False, allow_unicode=True), end="")
    return 0
