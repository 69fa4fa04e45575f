"""``debias run``: the workflow of the installed package, run by Snakemake in the current folder.

``debias run --configfile my.yaml --cores 2`` is ``snakemake --snakefile <the package's
Snakefile> --configfile my.yaml --cores 2``: every argument after ``run`` goes to Snakemake
(``-n`` for a dry run, ``--report report.html`` for the HTML report, ...). The Snakefile is the
checkout's ``workflow/Snakefile`` when the package runs from a checkout, else the copy installed
with the package (:mod:`debias.distribution.files`), so that a pip install runs the pipeline in any folder.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from debias.distribution.extras import MissingExtraError, require

__all__ = ["add_command", "config_files", "config_problem", "run_command", "start_problem"]

DESCRIPTION = (
    "Run the analysis workflow with Snakemake in the current folder: every argument after 'run' is "
    "Snakemake's (--cores N, -n for a dry run, --report report.html for the HTML report). Give the "
    "configuration with --configfile FILE (debias import writes one; its relative paths are read from "
    "its own folder when it says relative_to_config: true); without it, config/config.yaml of the current folder. "
    "Needs the extra 'workflow': pip install 'debias-eval[workflow]'."
)

#: Snakemake's options that name configuration files.
CONFIG_OPTIONS = ("--configfile", "--configfiles")


def add_command(commands) -> None:
    """``debias run`` in the list of subcommands (its arguments are Snakemake's, read by
    :func:`run_command`)."""
    commands.add_parser(
        "run",
        help="run the analysis workflow (Snakemake) on a configuration, from any folder",
        description=DESCRIPTION,
        usage="debias run [--configfile FILE] [SNAKEMAKE OPTION ...]",
        add_help=True,
    )


def _names_config(argv: list[str]) -> bool:
    return any(a in CONFIG_OPTIONS or a.startswith(tuple(f"{o}=" for o in CONFIG_OPTIONS)) for a in argv)


def snakemake_argv(argv: list[str]) -> list[str]:
    """Snakemake's command line for ``debias run ARGV``: the package's Snakefile and the
    arguments as given, a relative ``--report`` path made absolute (a configuration with
    ``relative_to_config: true`` moves the workflow to its folder; the report is written where
    the command was started). A ``--snakefile`` of their own is refused: this command runs the
    package's workflow."""
    from debias.distribution.files import snakefile

    if any(a in ("-s", "--snakefile") or a.startswith("--snakefile=") for a in argv):
        raise ValueError("--snakefile: debias run runs the package's workflow; run snakemake for another one")
    given = list(argv)
    for i, arg in enumerate(given):  # the report where the command runs, not in the configuration's folder
        if arg == "--report" and i + 1 < len(given) and not given[i + 1].startswith("-"):
            given[i + 1] = str(Path(given[i + 1]).absolute())
        elif arg.startswith("--report="):
            given[i] = f"--report={Path(arg.split('=', 1)[1]).absolute()}"
    return ["snakemake", "--snakefile", str(snakefile()), *given]


def config_files(argv: list[str]) -> list[str]:
    """The configuration files ``argv`` names (``--configfile A [B ...]`` or ``--configfile=A``)."""
    files, taking = [], False
    for arg in argv:
        if arg in CONFIG_OPTIONS:
            taking = True
        elif arg.startswith(tuple(f"{o}=" for o in CONFIG_OPTIONS)):
            files.append(arg.split("=", 1)[1])
            taking = False
        elif arg.startswith("-"):
            taking = False
        elif taking:
            files.append(arg)
    return files


_NOT_JSON = object()


def config_problem(path: str | os.PathLike) -> str | None:
    """Why the configuration file at ``path`` cannot be read as one, in a few words (``None``
    when it can): not UTF-8 text, empty, neither JSON nor YAML (with the line YAML names), or not a mapping
    of keys at its top level."""
    import yaml

    try:
        text = Path(path).read_bytes().decode("utf-8")
    except UnicodeDecodeError as error:
        return f"not a text file in UTF-8 (byte {error.start + 1} is 0x{error.object[error.start]:02x}): expected YAML"
    except OSError as error:
        return f"cannot be read ({error.strerror or error})"
    if len(text) > LARGEST_CONFIG:
        return (
            f"{len(text) / 1e6:.1f} MB: a configuration is a few kilobytes of keys (at most"
            f" {LARGEST_CONFIG / 1e6:g} MB); data belong in the tables it names"
        )
    try:
        config = json.loads(text)  # Snakemake reads JSON first, then YAML
    except ValueError:
        config = _NOT_JSON
    except RecursionError:
        return "nested too deeply to be read: expected a mapping of configuration keys"
    try:
        if config is _NOT_JSON:
            config = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except RecursionError:
        return "nested too deeply to be read: expected a mapping of configuration keys"
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        what = getattr(error, "problem", None) or str(error).splitlines()[0]
        return f"{where}not valid YAML ({what})"
    if config is None:
        return "is empty: expected a mapping of configuration keys"
    if not isinstance(config, dict):
        return f"expected a mapping of configuration keys at the top level, found a {type(config).__name__}"
    from debias.config.settings import yaml_problem

    return yaml_problem(path, named=False)  # the caller names the file


#: The largest configuration file read (characters): a configuration names its tables, it does
#: not hold data; a file of megabytes of lists or comments would take minutes to read.
LARGEST_CONFIG = 2_000_000


def start_problem(argv: list[str]) -> str | None:
    """What stops the run before Snakemake starts, in one line: a configuration file that is
    missing, a folder or unreadable, or a current folder Snakemake cannot write its records in."""
    for name in config_files(argv):
        path = Path(name)
        if not path.exists():
            return f"--configfile {name}: no such file"
        if not name.strip():
            return "--configfile: an empty name, expected a configuration file"
        if path.is_dir():
            return f"--configfile {name}: a folder, not a configuration file"
        if not path.is_file():  # a pipe or a device would be read forever, or once
            return f"--configfile {name}: not a regular file (a pipe or a device): expected a configuration file"
        if not os.access(path, os.R_OK):
            return f"--configfile {name}: not readable"
        problem = config_problem(path)
        if problem:
            return f"--configfile {name}: {problem}"
    if not os.access(Path.cwd(), os.W_OK):
        return f"the current folder {Path.cwd()} is not writable: Snakemake keeps its records (.snakemake/) there"
    return _cores_problem(argv)


def _cores_problem(argv: list[str]) -> str | None:
    """``--cores``/``-c``/``--jobs``/``-j`` given a number below 1 (Snakemake would select no job
    and wait for ever)."""
    for k, token in enumerate(argv):
        option, _, value = token.partition("=")
        if option in ("--cores", "-c", "--jobs", "-j"):
            value = value or (argv[k + 1] if k + 1 < len(argv) else "")
        elif token[:2] in ("-c", "-j") and token[2:].lstrip("-").isdigit():
            option, value = token[:2], token[2:]
        else:
            continue
        try:
            number = int(value)
        except ValueError:
            continue  # 'all', or Snakemake's own message
        if number < 1:
            return f"{option} {value}: give at least 1 (or 'all'): with {number} cores no job would ever start"
    return None


def run_command(argv: list[str]) -> int:
    """Run Snakemake on the package's workflow with ``argv``; its exit status."""
    problem = start_problem(argv)
    if problem:
        print(f"debias run: error: {problem}", file=sys.stderr)
        return 2
    if not _names_config(argv) and not Path("config/config.yaml").is_file():
        print(
            "debias run: error: no configuration: give --configfile FILE (debias import --config FILE writes one), "
            "or run where config/config.yaml is",
            file=sys.stderr,
        )
        return 2
    try:
        require("snakemake", "debias run")
        command = snakemake_argv(argv)
    except (MissingExtraError, ValueError, FileNotFoundError) as error:
        print(f"debias run: error: {error}", file=sys.stderr)
        return 2
    from snakemake.cli import main as snakemake_main

    saved = sys.argv
    sys.argv = command  # what the workflow's start-up sees (debias.pipeline.startup.computes_nothing)
    try:
        snakemake_main(command[1:])
    except SystemExit as done:
        code = done.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    finally:
        sys.argv = saved
    return 0
