"""Where a configured task's files are: its references, its system files, and both loaded.

A task ``<task>`` of the configuration lives under ``<data_dir>/<task>/``: ``references.jsonl.gz``
(needed only when metrics are computed from texts) and ``systems/<system>.jsonl.gz`` (plain
``.jsonl`` is accepted too; the format is :mod:`debias.io.canonical`). A missing file is an
:class:`~debias.io.canonical.InputError` naming the config key the name comes from.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from debias.config.labels import computed_metrics, provided_metrics
from debias.io.canonical import InputError, SystemItem, read_references, read_system, resolve_jsonl

__all__ = ["judged_systems", "load_task", "references_path", "system_path"]


def references_path(config: Mapping, task: str) -> Path | None:
    """The task's references file; ``None`` when there is none and none is needed: no metric is
    computed from texts (every metric of the task is provided with the system files)."""
    stem = Path(config["data_dir"]) / task / "references"
    found = resolve_jsonl(stem)
    if found is None and computed_metrics(config, task):
        raise InputError(
            f"{stem}.jsonl.gz",
            f"references file of task '{task}' not found (plain .jsonl is accepted too); it is needed for "
            f"the metrics computed from texts ({', '.join(computed_metrics(config, task))})",
        )
    return found


def _system_files(folder: Path) -> list[str]:
    """Names of the system files in ``folder`` (without .jsonl[.gz]), sorted."""
    if not folder.is_dir():
        return []
    names = {p.name.removesuffix(".gz").removesuffix(".jsonl") for p in folder.iterdir() if ".jsonl" in p.name}
    return sorted(names)


def system_path(config: Mapping, task: str, system: str) -> Path:
    """The file of one of a task's systems, or of its judged-reference system.

    A missing file is an :class:`InputError` naming the config key the name comes from
    (``tasks.<task>.reference_system`` for the reference system, else ``tasks.<task>.systems``)
    and the system files that do exist there, so that a misspelt name shows itself.
    """
    folder = Path(config["data_dir"]) / task / "systems"
    stem = folder / system
    found = resolve_jsonl(stem)
    if found is None:
        spec = (config.get("tasks") or {}).get(task) or {}
        present = _system_files(folder)
        there = f"; files there: {', '.join(present[:12])}{' …' if len(present) > 12 else ''}" if present else ""
        if system == spec.get("reference_system") and system not in (spec.get("systems") or {}):
            raise InputError(
                f"config: tasks.{task}.reference_system",
                f"no file for the reference system '{system}' ({stem}.jsonl.gz or .jsonl); check the name{there}",
            )
        raise InputError(
            f"{stem}.jsonl.gz",
            f"file of system '{system}' (configured under tasks.{task}.systems) not found; "
            f"write the system's outputs there in the canonical format (plain .jsonl is accepted too){there}",
        )
    return found


def judged_systems(config: Mapping, task: str) -> list[str]:
    """The configured systems of a task plus its judged-reference system, if any."""
    spec = config["tasks"][task]
    names = list(spec["systems"])
    if spec.get("reference_system"):
        names.append(spec["reference_system"])
    return names


def load_task(
    config: Mapping, task: str, systems: list[str] | None = None
) -> tuple[dict[str, str], dict[str, list[SystemItem]]]:
    """References and validated items of the given systems (default: all judged systems)."""
    prompts = config["tasks"][task]["prompts"]
    path = references_path(config, task)
    references = read_references(path) if path is not None else None
    scored = config["tasks"][task]["systems"]
    provided = provided_metrics(config, task)
    loaded = {}
    for system in systems if systems is not None else judged_systems(config, task):
        path = system_path(config, task, system)
        loaded[system] = read_system(path, prompts, references, provided if system in scored else ())
    return references, loaded
