"""Finding and checking every input the config names, before any job runs.

The workflow calls :func:`validate_inputs` when it starts, so a bad input stops it with a
message naming the file, line or key instead of failing half-way through.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from debias.config.settings import default
from debias.config.tasks import load_task, system_path
from debias.io.atomic import sha256sum
from debias.io.canonical import InputError, SystemItem


def check_config(config: Mapping) -> None:
    """Cross-references the schema cannot express (names that must exist elsewhere in the config)."""
    from debias.metrics import DEFAULT_IMPLEMENTATIONS, IMPLEMENTATIONS, resolve_implementations

    tasks = config["tasks"]
    for metric, spec in config["metrics"].items():
        spec = spec or {}
        if not spec.get("provided") and not spec.get("implementation") and metric not in DEFAULT_IMPLEMENTATIONS:
            raise InputError(
                f"config: metrics.{metric}",
                f"unknown metric '{metric}': without an implementation key the pipeline computes only "
                f"{', '.join(DEFAULT_IMPLEMENTATIONS)}; name its implementation (one of "
                f"{', '.join(IMPLEMENTATIONS)}) or, for a metric scored elsewhere, declare "
                "'provided: true' and give a score on every line of every system file",
            )
    try:
        resolve_implementations(config["metrics"])
    except ValueError as error:
        raise InputError("config: metrics", str(error)) from None
    for task, spec in tasks.items():
        if (spec.get("table2") or {}).get("require_judged_reference") and not spec.get("reference_system"):
            raise InputError(
                f"config: tasks.{task}.table2.require_judged_reference",
                "needs tasks.{task}.reference_system (the judged references to require)".replace("{task}", task),
            )
        unknown = [name for name in spec.get("metrics") or () if name not in config["metrics"]]
        if unknown:
            raise InputError(
                f"config: tasks.{task}.metrics",
                f"unknown metric '{unknown[0]}' (configured metrics: {', '.join(config['metrics'])})",
            )
        ref = spec.get("reference_system")
        if ref and ref in spec["systems"]:
            raise InputError(
                f"config: tasks.{task}.reference_system",
                f"'{ref}' is also listed under systems; judged references are not scored",
            )
        for prompt, bounds in spec["prompts"].items():
            low, high = bounds.get("min"), bounds.get("max")
            if low is not None and high is not None and low > high:
                raise InputError(f"config: tasks.{task}.prompts.{prompt}", f"min {low} is greater than max {high}")
    for panel, spec in (config.get("table1") or {}).items():
        from debias.metrics import IMPLEMENTATIONS

        key = f"config: table1.{panel}"
        if spec["task"] not in tasks:
            raise InputError(f"{key}.task", f"unknown task '{spec['task']}' (tasks: {', '.join(tasks)})")
        if spec["prompt"] not in tasks[spec["task"]]["prompts"]:
            raise InputError(f"{key}.prompt", f"unknown prompt '{spec['prompt']}' for '{spec['task']}'")
        implementation = spec.get("implementation")
        if implementation is not None and implementation not in IMPLEMENTATIONS:
            raise InputError(
                f"{key}.implementation",
                f"unknown implementation '{implementation}'; known: {', '.join(IMPLEMENTATIONS)}",
            )
    figures = config.get("figures", {})
    for task, prompt in figures.get("figure5", {}).items():
        if task not in tasks:
            raise InputError(f"config: figures.figure5.{task}", f"unknown task '{task}' (tasks: {', '.join(tasks)})")
        if prompt not in tasks[task]["prompts"]:
            raise InputError(f"config: figures.figure5.{task}", f"unknown prompt '{prompt}' for task '{task}'")
    for panel, spec in figures.get("figure6", {}).items():
        where = f"config: figures.figure6.{panel}"
        task = spec["task"]
        if task not in tasks:
            raise InputError(where, f"unknown task '{task}' (tasks: {', '.join(tasks)})")
        if spec["prompt"] not in tasks[task]["prompts"]:
            raise InputError(where, f"unknown prompt '{spec['prompt']}' for task '{task}'")
        if spec["system"] not in tasks[task]["systems"]:
            raise InputError(where, f"unknown system '{spec['system']}' for task '{task}'")
        if spec["metric"] != "best" and spec["metric"] not in config["metrics"]:
            raise InputError(
                where,
                f"unknown metric '{spec['metric']}' (configured metrics: {', '.join(config['metrics'])}, or 'best')",
            )


def check_shared_judgments(
    config: Mapping, task: str, systems: Mapping[str, list[SystemItem]], paths: Mapping[str, Path] | None = None
) -> None:
    """Lines of different systems naming the same ``judged_output`` must agree on it: the same
    item and the same judgments, since they stand for one judgment. Errors name the system's file
    (``paths``, default: the configured one)."""
    first: dict[str, tuple[str, SystemItem]] = {}
    for system, items in systems.items():
        for item in items:
            if item.judged_output is None:
                continue
            seen = first.setdefault(item.judged_output, (system, item))
            other_system, other = seen
            if other is item:
                continue
            if other_system == system:
                raise InputError(
                    str((paths or {}).get(system) or system_path(config, task, system)),
                    f"judged_output '{item.judged_output}' is named by two lines (ids '{other.id}' and '{item.id}')",
                )
            if (other.id, other.judgments) != (item.id, item.judgments):
                raise InputError(
                    str((paths or {}).get(system) or system_path(config, task, system)),
                    f"id '{item.id}' names judged_output '{item.judged_output}', which system '{other_system}' "
                    f"names for id '{other.id}' with other judgments; lines sharing a judgment must agree",
                )


def check_item_clusters(
    config: Mapping, task: str, systems: Mapping[str, list[SystemItem]], paths: Mapping[str, Path] | None = None
) -> None:
    """Lines of different systems about the same item must name the same cluster (an item
    belongs to one cluster, ``tasks.<task>.cluster``). Errors name the system's file (``paths``,
    default: the configured one)."""
    first: dict[str, tuple[str, str]] = {}
    for system, items in systems.items():
        for item in items:
            if item.cluster is None:
                continue
            other_system, cluster = first.setdefault(item.id, (system, item.cluster))
            if cluster != item.cluster:
                key = config["tasks"][task].get("cluster")
                raise InputError(
                    str((paths or {}).get(system) or system_path(config, task, system)),
                    f"id '{item.id}' is in cluster '{item.cluster}' here and in '{cluster}' in system "
                    f"'{other_system}' ('{key}' of their lines): an item belongs to one cluster",
                )


def validate_inputs(config: Mapping, base_dir: str | Path = ".") -> dict[str, dict[str, int]]:
    """Check released checksums, every configured file and every line; return judged-item counts.

    Raises :class:`InputError` on the first problem found.
    """
    check_config(config)
    for entry in config.get("released", []):
        path = Path(base_dir) / entry["path"]
        if not path.exists():
            raise InputError(str(path), "released file not found")
        digest = sha256sum(path)
        if digest != entry["sha256"]:
            raise InputError(str(path), f"sha256 is {digest}, expected {entry['sha256']} (the file has been changed)")
    minimum = int(config.get("min_judged_items", default("min_judged_items")))
    counts: dict[str, dict[str, int]] = {}
    for task in config["tasks"]:
        _, systems = load_task(config, task)
        check_shared_judgments(config, task, systems)
        check_item_clusters(config, task, systems)
        counts[task] = {}
        for system, items in systems.items():
            judged = sum(1 for item in items if any(item.judgments.values()))
            if judged < minimum:
                raise InputError(
                    str(system_path(config, task, system)),
                    f"system '{system}' has {judged} judged items; at least {minimum} are needed (min_judged_items)",
                )
            counts[task][system] = judged
    return counts


def validate_preferences(config: Mapping) -> dict[str, int]:
    """Read every preference task's tables (``preferences``) as the rule will; return each task's
    number of battles.

    Raises :class:`InputError` on the first problem found: a missing file or column, a bad row
    (naming the file and row), an unknown human verdict (with the unknown values and their
    counts), a judge without verdicts on any battle, ``human_battles`` above the battles
    with a human verdict, a ``question`` or a ``baseline`` about a system the battles do not have,
    a covariate column a table lacks, or ``ties: davidson`` with a judge's probabilities.
    """
    from debias.config.tasks import load_preferences, preference_files
    from debias.io.atomic import non_regular_kind
    from debias.io.rules import system_named

    battles = {}
    for name in config.get("preferences") or {}:
        for path in preference_files(config, name):
            kind = non_regular_kind(path)
            if kind is not None:
                raise InputError(
                    str(path),
                    f"file of preference task '{name}' is {kind}, not a regular file (config: preferences.{name}):"
                    " the workflow reads its tables again in its jobs; give a file",
                )
            if not Path(path).is_file():
                raise InputError(str(path), f"file of preference task '{name}' not found (config: preferences.{name})")
        pairs = load_preferences(config, name)
        for j, judge in enumerate(pairs.judges):
            if not (pairs.judge_verdicts[:, j] == pairs.judge_verdicts[:, j]).any():
                raise InputError(
                    f"config: preferences.{name}.judges.{judge}",
                    f"the judge gave no verdict on any of the {pairs.n_battles} battles "
                    f"({int(pairs.judge_unknown[j])} answers mapped to no verdict)",
                )
        spec = config["preferences"][name] or {}
        baseline = spec.get("baseline")
        if baseline is not None:
            system_named(baseline, pairs.systems, f"config: preferences.{name}.baseline", "battles")
        if spec.get("ties") == "davidson" and pairs.continuous_judges:
            raise InputError(
                f"config: preferences.{name}.ties",
                f"judge {pairs.continuous_judges[0]!r} gives probabilities that A is better, not verdicts: Davidson's"
                " tie model needs each verdict's tie; use ties: half, or map the judge's answers to a/b/tie",
            )
        question = spec.get("question")
        if question:
            from debias.stats.common.status import QuestionError, parse_question

            try:
                parse_question(question).check(pairs.systems)
            except QuestionError as error:
                raise InputError(f"config: preferences.{name}.question", error.message) from None
        battles[name] = pairs.n_battles
    return battles
