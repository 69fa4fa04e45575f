"""Where a configured task's files are: its references, its system files, and both loaded; the
tables of a preference task (``preferences.<name>``), loaded as judged pairs.

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

__all__ = [
    "judged_systems",
    "load_preferences",
    "load_task",
    "preference_files",
    "references_path",
    "system_path",
    "win_rate_ties",
]


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
    """References and validated items of the given systems (default: all judged systems), with
    their items' clusters when the task has them (``tasks.<task>.cluster``)."""
    prompts = config["tasks"][task]["prompts"]
    path = references_path(config, task)
    references = read_references(path) if path is not None else None
    scored = config["tasks"][task]["systems"]
    provided = provided_metrics(config, task)
    loaded = {}
    cluster = config["tasks"][task].get("cluster")
    for system in systems if systems is not None else judged_systems(config, task):
        path = system_path(config, task, system)
        loaded[system] = read_system(path, prompts, references, provided if system in scored else (), cluster)
    return references, loaded


def preference_files(config: Mapping, name: str) -> list[str]:
    """The tables a preference task reads: its battles, its pool and its judges' own tables."""
    spec = config["preferences"][name]
    files = [spec["battles"], *([spec["pool"]] if spec.get("pool") else [])]
    files += [judge["table"] for judge in (spec.get("judges") or {}).values() if judge.get("table")]
    return list(dict.fromkeys(files))


def load_preferences(config: Mapping, name: str):
    """The battles of preference task ``name`` as :class:`~debias.data.JudgedPairs`.

    The battles table gives one row per human verdict; a judge's verdicts are a column of it, or
    of the judge's own table (``judges.<j>.table``, one row per battle, joined on the item and
    the two systems in either order); ``pool`` adds battles without a human verdict. ``cluster``
    names the column of each battle's cluster, in every table the task reads (a battle only a
    judge's table holds takes its cluster from that table). ``order`` names the column saying when
    each vote arrived, in the battles table only: the battles are read in that order
    (:func:`debias.io.pairs.read_pair_table`). Only the columns named are read
    from each file. ``mapping`` (the task's, for people and judges) and
    ``judges.<j>.mapping`` (a judge's own, extending it) read other spellings or codes
    (:func:`debias.data.verdict_codes`). With ``human_battles``, the human verdicts of that many
    battles drawn at random (seeded by the task's name alone, so that the same task draws the
    same battles in any configuration) are kept and every other battle joins the pool: what the
    judges save, shown on data whose full human answer is known.

    Raises
    ------
    InputError
        A missing file or column, a bad row (naming the file and row), a verdict or a judge's
        answer that cannot be read (naming the values and their counts), a judge named like one
        of the task's columns, or fewer battles with a human verdict than ``human_battles``.
    """
    import numpy as np

    from debias.io.pairs import file_columns, join_judge_tables, read_pair_file, read_pair_table
    from debias.stats.common.resampling import setting_seed

    spec = config["preferences"][name]
    where = f"config: preferences.{name}"
    columns = {key: spec[key] for key in ("item", "system_a", "system_b", "verdict")}
    roles = {**columns, **{key: spec[key] for key in ("rater", "cluster", "order", "by") if spec.get(key)}}
    cluster = [spec["cluster"]] if spec.get("cluster") else []
    # a breakdown column (by:) is read as the cluster is, from every table the task reads
    cluster += [spec["by"]] if spec.get("by") and spec["by"] not in cluster else []
    # style control's columns (covariates:) too, each battle's A side and B side
    covariates = {str(key): tuple(sides) for key, sides in (spec.get("covariates") or {}).items()}
    sides = [column for pair in covariates.values() for column in pair]
    cluster += [column for column in dict.fromkeys(sides) if column not in cluster]
    judges = spec.get("judges") or {}
    role_of = {column: role for role, column in reversed(roles.items())}
    for judge in judges:
        if judge in role_of:
            role = role_of[judge]
            raise InputError(
                f"{where}.judges.{judge}",
                f"the judge has the name of the task's {role} column ({role}: {judge}): give the judge another name"
                " (and its column in .column)",
            )
    mapping = _mapping(spec.get("mapping"), f"{where}.mapping")
    judge_mappings = {
        judge: _mapping(j.get("mapping"), f"{where}.judges.{judge}.mapping") for judge, j in judges.items()
    }
    judge_mappings = {judge: m for judge, m in judge_mappings.items() if m}
    in_table = {judge: j.get("column") or judge for judge, j in judges.items() if not j.get("table")}
    for judge, column in in_table.items():
        if column in role_of:
            role = role_of[column]
            raise InputError(
                f"{where}.judges.{judge}",
                f"the judge's column {column!r} is the task's {role} column: a judge's verdicts are a column of"
                " their own",
            )
    present = file_columns(spec["battles"])
    if covariates:
        tables = {"battles": spec["battles"], **({"pool": spec["pool"]} if spec.get("pool") else {})}
        tables |= {f"judges.{judge}.table": j["table"] for judge, j in judges.items() if j.get("table")}
        for key, path in tables.items():
            has = present if key == "battles" else file_columns(path)
            for covariate, pair in covariates.items():
                missing = [column for column in pair if column not in has]
                if missing:
                    raise InputError(
                        f"{where}.covariates.{covariate}",
                        f"no column {missing[0]!r} in {path} ({key}; columns: {', '.join(map(str, has))})",
                    )
    for judge, column in in_table.items():
        if column not in present:
            raise InputError(
                spec["battles"],
                f"no column {column!r} for judge {judge!r} (columns: {present}; give {where}.judges.{judge}.column,"
                " or .table for a table of its own)",
                column=column,
            )
    frame = read_pair_file(spec["battles"], list(dict.fromkeys([*roles.values(), *in_table.values(), *sides])))
    for judge, column in in_table.items():
        frame[judge] = frame[column]
    own_tables = {
        judge: (
            read_pair_file(
                j["table"],
                [columns["item"], columns["system_a"], columns["system_b"], *cluster, j.get("column") or judge],
            ),
            j.get("column") or judge,
            j["table"],
            judge_mappings.get(judge),
        )
        for judge, j in judges.items()
        if j.get("table")
    }
    if own_tables:
        frame = join_judge_tables(
            frame,
            own_tables,
            item=columns["item"],
            system_a=columns["system_a"],
            system_b=columns["system_b"],
            mapping=mapping,
            columns=cluster,
        )
    pool = (
        read_pair_file(
            spec["pool"], [columns["item"], columns["system_a"], columns["system_b"], *cluster, *in_table.values()]
        )
        if spec.get("pool")
        else None
    )
    if pool is not None:
        for judge, column in in_table.items():
            pool[judge] = pool[column]
    pairs = read_pair_table(
        frame,
        **columns,
        rater=spec.get("rater"),
        judges=list(judges),
        pool=pool,
        mapping=mapping,
        judge_mappings=judge_mappings,
        source=spec["battles"],
        pool_source=spec.get("pool") or "pool",
        task=name,
        cluster=spec.get("cluster"),
        order=spec.get("order"),
        by=spec.get("by"),
        **({"covariates": covariates} if covariates else {}),
    )
    wanted = spec.get("human_battles")
    if wanted is not None:
        labelled = np.flatnonzero(pairs.labelled)
        if wanted > labelled.size:
            raise InputError(
                f"{where}.human_battles",
                f"{wanted} battles with a human verdict asked for, {spec['battles']} has {labelled.size}",
            )
        rng = np.random.default_rng(setting_seed(0, "preferences", name, "human_battles"))
        kept = rng.choice(labelled, size=wanted, replace=False)
        dropped = np.setdiff1d(labelled, kept)
        pairs = pairs.without_human(dropped)
    return pairs


def win_rate_ties(ties: str) -> str:
    """The tie rule of a preference task's win rates, matrix, breakdown and status: its ``ties``,
    ``half`` for ``davidson`` (Davidson's tie parameter models the strengths of its analysis
    only; the win rates count a tie as half a win)."""
    return "half" if ties == "davidson" else ties


def _mapping(mapping, where: str) -> dict | None:
    """A config's verdict mapping, checked (:func:`debias.data.verdict_codes`)."""
    if not mapping:
        return None
    from debias.data.pairs import _lookup

    try:
        _lookup(mapping)
    except ValueError as error:
        raise InputError(where, str(error)) from None
    return dict(mapping)
