"""The checks the workflow makes when it starts, before any job runs.

Snakemake parses the workflow at every start, and again in every cluster job, so what is done
here runs often: the configuration is checked against its schema with a message naming the key
(:func:`debias.config.settings.schema_problem`); every input line is checked once per content of the files, the result
kept in a small cache keyed by the files' sha256 and the settings the check reads
(:func:`checked_inputs`), and so is every preference task's table (:func:`checked_preferences`);
WordNet and the configured metric implementations are looked for
(:func:`wordnet_problem`, :func:`implementation_problems`), unless the command computes nothing
(:func:`computes_nothing`: ``--report``, ``--lint``, a dry run, ...).
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from debias.config.labels import provided_metrics
from debias.config.tasks import judged_systems, preference_files, references_path, system_path
from debias.io.atomic import sha256sum, write_text
from debias.io.canonical import InputError, count_outputs
from debias.pipeline.inputs import check_config, validate_inputs, validate_preferences

__all__ = [
    "CACHE_DIR",
    "COMPUTING_NOTHING",
    "CheckedInputs",
    "checked_inputs",
    "checked_preferences",
    "computes_nothing",
    "implementation_problems",
    "preference_outputs",
    "preference_results_problem",
    "wordnet_problem",
]

#: Where :func:`checked_inputs` keeps its results, relative to the workflow's working directory
#: (Snakemake's own folder there: never under results/, which a failed start must not create).
CACHE_DIR = ".snakemake/debias-input-checks"
#: Results kept in the cache; older ones are removed when a new one is written.
CACHE_KEEP = 32
#: Modules whose code decides what a valid input is: a change to any of them checks again.
CHECKER_MODULES = ("debias.io.canonical", "debias.pipeline.inputs", "debias.config.labels", __name__)


@dataclass(frozen=True)
class CheckedInputs:
    """What the input check found: judged items and outputs (non-blank lines) of every judged
    system, by task and system, and whether the result came from the cache."""

    judged_items: dict[str, dict[str, int]]
    outputs: dict[str, dict[str, int]]
    cached: bool


def _checker_digest() -> str:
    digest = hashlib.sha256()
    for name in CHECKER_MODULES:
        digest.update(Path(sys.modules[name].__file__).read_bytes())
    return digest.hexdigest()


def _line_check_settings(config: Mapping) -> dict:
    """The settings the line-by-line check reads (no labels: a label edit checks nothing again)."""
    tasks = {}
    for task, spec in config["tasks"].items():
        tasks[task] = {
            "systems": list(spec["systems"]),
            "reference_system": spec.get("reference_system"),
            "cluster": spec.get("cluster"),
            "prompts": {
                prompt: {key: value for key, value in bounds.items() if key != "label"}
                for prompt, bounds in spec["prompts"].items()
            },
        }
    provided = {task: provided_metrics(config, task) for task in config["tasks"]}
    return {"tasks": tasks, "provided": provided, "min_judged_items": config.get("min_judged_items")}


def _input_files(config: Mapping) -> dict[str, dict]:
    """Every file the check reads, by task: the ``references`` path and the path of each judged
    system (``systems``); a file that is not there raises :class:`~debias.io.canonical.InputError`."""
    return {
        task: {
            "references": None if (path := references_path(config, task)) is None else str(path),
            "systems": {system: str(system_path(config, task, system)) for system in judged_systems(config, task)},
        }
        for task in config["tasks"]
    }


def _cache_key(config: Mapping, files: Mapping[str, Mapping], base_dir: Path) -> str:
    """sha256 of everything a passed check depends on; the released files' digests are in it
    beside the expected ones, so that a cached pass also vouches for them."""
    material = {
        "checker": _checker_digest(),
        "settings": _line_check_settings(config),
        "files": {
            task: {
                "references": paths["references"] and [paths["references"], sha256sum(paths["references"])],
                "systems": {name: [path, sha256sum(path)] for name, path in paths["systems"].items()},
            }
            for task, paths in files.items()
        },
        "released": [[e["path"], e["sha256"], sha256sum(base_dir / e["path"])] for e in config.get("released", [])],
    }
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()


def _read_cached(path: Path) -> dict | None:
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or not {"judged_items", "outputs"} <= set(record):
        return None
    return record


def _prune(folder: Path, keep: int) -> None:
    entries = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
    for stale in entries[keep:]:
        stale.unlink(missing_ok=True)


def checked_inputs(config: Mapping, cache_dir: str | Path = CACHE_DIR, base_dir: str | Path = ".") -> CheckedInputs:
    """:func:`debias.pipeline.inputs.validate_inputs`, done again only when an input or a setting it reads
    has changed.

    The cross-references of the configuration are checked at every call. Every line of every
    configured references and system file is parsed and checked, and the released files'
    sha256 compared with the configured ones, only when no earlier check passed on the same
    content: the cache key is the sha256 of every such file, the settings the check reads
    (prompt ranges, systems, the items' cluster key, provided metrics, ``min_judged_items``, the released files'
    expected sha256; not the labels) and the checker's own code.
    A failed check is never cached, so a bad input fails again, with its file and line, at every
    start.

    Parameters
    ----------
    config : mapping
        The validated configuration.
    cache_dir : str or path
        Folder of the cache, one small JSON file per passed check (the newest 32 are kept).
    base_dir : str or path
        Folder the released files' paths are relative to.

    Returns
    -------
    CheckedInputs
        Judged items and outputs of every judged system.

    Raises
    ------
    debias.io.canonical.InputError
        The first problem found, naming the file and line or the config key.
    """
    check_config(config)
    try:
        files = _input_files(config)
        key = _cache_key(config, files, Path(base_dir))
    except (InputError, OSError):
        validate_inputs(config, base_dir)  # the same problem, reported as the full check reports it
        raise
    path = Path(cache_dir) / f"{key}.json"
    record = _read_cached(path)
    if record is not None:
        return CheckedInputs(record["judged_items"], record["outputs"], cached=True)
    judged = validate_inputs(config, base_dir)
    outputs = {
        task: {name: count_outputs(path) for name, path in paths["systems"].items()} for task, paths in files.items()
    }
    try:
        write_text(path, json.dumps({"judged_items": judged, "outputs": outputs}, indent=1, sort_keys=True) + "\n")
        _prune(path.parent, CACHE_KEEP)
    except OSError:
        pass  # a cache that cannot be written only means checking again next time
    return CheckedInputs(judged, outputs, cached=False)


#: Modules whose code decides what a valid table of preferences is.
PREFERENCE_CHECKER_MODULES = ("debias.io.pairs", "debias.data.pairs", "debias.config.tasks", "debias.pipeline.inputs")


def preference_outputs(name: str) -> list[str]:
    """The files the workflow writes for the preference task ``name``, relative to ``results_dir``
    (the outputs of ``workflow/rules/preferences.smk``)."""
    tables = f"tables/preferences/{name}"
    return [
        *(
            f"{tables}/{table}"
            for table in ("preferences.csv", "judge_agreement.csv", "leaderboard.csv", "summary.json")
        ),
        *(
            f"figures/{figure}_{name}.{ext}"
            for figure in ("preferences", "preference_leaderboard")
            for ext in ("pdf", "png")
        ),
        f"logs/preferences/{name}.log",
    ]


def preference_results_problem(config: Mapping) -> str | None:
    """Why a preference task's results would land on files that are not its own, or ``None``:
    a name that leaves its folder (``.``, ``..``), or two tasks whose files are the same file on
    a file system that ignores case (``Arena`` and ``arena``)."""
    import posixpath

    owner: dict[str, str] = {}
    for name in config.get("preferences") or {}:
        folder = posixpath.normpath(f"tables/preferences/{name}")
        if posixpath.dirname(folder) != "tables/preferences" or posixpath.basename(folder) != name:
            return (
                f"preferences.{name}: its results would land outside results_dir/tables/preferences/<task>/ "
                f"({folder}/): give the task another name"
            )
        for path in preference_outputs(name):
            key = posixpath.normpath(path).casefold()
            if key in owner and owner[key] != name:
                return (
                    f"preferences.{name}: its results would land on those of preferences.{owner[key]} ({path}) on "
                    "a file system that ignores case: give one of the tasks another name"
                )
            owner[key] = name
    return None


def checked_preferences(config: Mapping, cache_dir: str | Path = CACHE_DIR) -> dict[str, int]:
    """:func:`debias.pipeline.inputs.validate_preferences`, done again only when a table of a
    preference task, its settings (not its labels) or the checker's code has changed; returns
    each task's number of battles.

    Raises
    ------
    debias.io.canonical.InputError
        The first problem found, naming the file and row or the config key; first of all a task
        whose results would land on another's files (:func:`preference_results_problem`).
    """
    import importlib

    preferences = config.get("preferences") or {}
    if not preferences:
        return {}
    problem = preference_results_problem(config)
    if problem:
        raise InputError("config", problem)
    try:
        digest = hashlib.sha256()
        for name in PREFERENCE_CHECKER_MODULES:
            digest.update(Path(importlib.import_module(name).__file__).read_bytes())
        settings = {
            name: {
                **{k: v for k, v in spec.items() if k not in ("label", "judges")},
                "judges": {
                    j: {k: v for k, v in js.items() if k != "label"} for j, js in (spec.get("judges") or {}).items()
                },
                "files": {path: sha256sum(path) for path in preference_files(config, name)},
            }
            for name, spec in preferences.items()
        }
    except OSError:
        return validate_preferences(config)  # the missing file, reported with its task
    material = {"checker": digest.hexdigest(), "settings": settings}
    try:
        key = hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()
    except TypeError:  # keys of mixed types (a mapping's 1 and '1', or null): the check says what is wrong
        return validate_preferences(config)
    path = Path(cache_dir) / f"preferences-{key}.json"
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(record, dict) and set(record) == set(preferences):
            return {name: int(n) for name, n in record.items()}
    except (OSError, ValueError, TypeError):
        pass
    battles = validate_preferences(config)
    try:
        write_text(path, json.dumps(battles, sort_keys=True) + "\n")
    except OSError:
        pass  # a cache that cannot be written only means checking again next time
    return battles


#: Snakemake's options (their argparse names) that make a command compute nothing: the report,
#: the linter, a dry run or a touch, listings, graphs, summaries, clean-ups, exports.
COMPUTING_NOTHING = (
    "dryrun",
    "touch",
    "lint",
    "report",
    "list_rules",
    "list_target_rules",
    "summary",
    "detailed_summary",
    "dag",
    "rulegraph",
    "filegraph",
    "d3dag",
    "unlock",
    "cleanup_metadata",
    "list_changes",
    "list_input_changes",
    "list_params_changes",
    "list_untracked",
    "print_compilation",
    "archive",
    "containerize",
    "export_cwl",
    "generate_unit_tests",
    "list_conda_envs",
    "conda_create_envs_only",
    "cleanup_shadow",
    "delete_all_output",
    "delete_temp_output",
)


def computes_nothing(argv: list[str] | None = None) -> bool:
    """Whether the Snakemake command running (``argv``, default ``sys.argv``) computes nothing
    (:data:`COMPUTING_NOTHING`): then the metrics' provisioning (WordNet, Perl, Java, the paper's
    packages) is not checked, as no metric runs. ``False`` when the program is not Snakemake's
    command line (a job of a cluster run, the Python API): the checks run."""
    argv = sys.argv if argv is None else argv
    if not argv or not (Path(argv[0]).name == "snakemake" or argv[0].endswith("snakemake/__main__.py")):
        return False
    try:
        from snakemake.cli import get_argument_parser

        args, _ = get_argument_parser().parse_known_args(argv[1:])
    except (ImportError, SystemExit):
        return False
    return any(getattr(args, name, None) not in (None, False) for name in COMPUTING_NOTHING)


def wordnet_problem(config: Mapping) -> str | None:
    """Why METEOR cannot run here for want of WordNet, or ``None`` (also when no configured
    metric needs it)."""
    from debias.metrics import resolve_implementations

    nltk_data = config["nltk_data"]
    if (
        "nltk-meteor" not in resolve_implementations(config["metrics"]).values()
        or (Path(nltk_data) / "corpora/wordnet").is_dir()
    ):
        return None
    from debias.metrics.wordnet import PROVISION_HINT, WordNetUnavailableError, use_wordnet

    try:
        use_wordnet(nltk_data)  # WordNet elsewhere on NLTK's search path
    except WordNetUnavailableError:
        return (
            f"WordNet 3.0, which METEOR needs, is not in {nltk_data}/corpora/wordnet "
            f"(config key nltk_data) nor anywhere else NLTK looks. {PROVISION_HINT}"
        )
    return None


def implementation_problems(config: Mapping) -> list[str]:
    """Every configured metric implementation (``metrics``, ``figures.figure1``, ``table1``)
    that cannot run on this machine, with what to install."""
    from debias.metrics import implementation_unavailable, resolve_implementations

    problems = []
    for metric, implementation in resolve_implementations(config["metrics"]).items():
        reason = implementation_unavailable(implementation)
        if reason:
            problems.append(f"metric '{metric}' ({implementation}): {reason}")
    figure1 = (config.get("figures") or {}).get("figure1")
    if figure1:
        reason = implementation_unavailable(figure1["implementation"])
        if reason:
            problems.append(f"figure1 ({figure1['implementation']}): {reason}")
    for panel, spec in (config.get("table1") or {}).items():
        reason = spec.get("implementation") and implementation_unavailable(spec["implementation"])
        if reason:
            problems.append(f"table1.{panel} ({spec['implementation']}): {reason}")
    return problems
