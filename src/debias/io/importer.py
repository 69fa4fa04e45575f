"""Importing a long table of human judgments (one row per rating) as a task of the workflow.

The table is read by the one reader of evaluation tables (:mod:`debias.io.reader`, the rules the
Python API follows too) and written as the canonical files the workflow reads
(``<out>/systems/<system>.jsonl.gz``, and ``<out>/references.jsonl.gz`` when the table has
reference texts; see :mod:`debias.io.canonical`), with the block of ``config/config.yaml`` that
declares the task. A table whose items have clusters writes each line's cluster (``"cluster"``)
and the task's ``cluster`` key naming it (:data:`CLUSTER_KEY`). A table without texts gives a
task of provided scores only, which needs no references. Every write is all-or-nothing: the
files are written to a temporary folder beside ``out`` and moved into place together with the
configuration file, after every check passed; files already there are replaced only when asked
(``force``). A wide table (one column per prompt or per rater) becomes long with one
``pandas.melt``, e.g.
``frame.melt(id_vars=["item", "system"], var_name="prompt", value_name="score")``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from json.encoder import encode_basestring
from pathlib import Path

import numpy as np

from debias.io.atomic import write_gzip
from debias.io.canonical import InputError
from debias.io.reader import (
    EvaluationTable,
    TableColumns,
    float_texts,
    metric_name,
    prompt_name,
    safe_name,
    unsafe_reason,
)

__all__ = [
    "CLUSTER_KEY",
    "ImportSpec",
    "judged_reference",
    "path_for_config",
    "project_folder",
    "reference_judged_items",
    "written_scale",
    "add_task",
    "config_block",
    "config_lock",
    "read_config_for_adding",
    "task_name",
    "write_import",
]

#: gzip level of the imported files: quick to write, a few per cent larger than level 9.
COMPRESSION = 6
#: The key of an imported line that holds its item's cluster (the task's ``cluster``).
CLUSTER_KEY = "cluster"


@dataclass(frozen=True)
class ImportSpec:
    """What the command line says besides the columns: the task's name, the system whose
    outputs are the references (judged or not; not scored), the prompts' direction, the outputs'
    language."""

    task: str
    columns: TableColumns
    reference_system: str | None = None
    lower_is_better: bool = False
    language: str = "en"
    #: Judged items the reference system needs to be the task's judged ``reference_system``
    #: (the configuration's ``min_judged_items``); with fewer its outputs are the references only.
    min_judged_items: int = 20

    @property
    def has_text(self) -> bool:
        """Output texts and references, so that metrics can be computed."""
        return self.columns.output is not None and (
            self.columns.reference is not None or self.reference_system is not None
        )


def task_name(task: str) -> str:
    """The task's name in files and config, refused when it is not a safe path part."""
    name = safe_name(task)
    reason = unsafe_reason(name)
    if reason:
        shown = task if len(task) <= 40 else task[:37] + "..."
        raise InputError("--task", f"task name {shown!r} {reason}")
    return name


def project_folder(config_path: str | Path) -> Path:
    """The folder a new configuration's results go under: the current one when the configuration
    is inside it, else the configuration's own folder (no path of it climbs out of the project)."""
    folder = Path(config_path).absolute().parent
    return Path.cwd() if folder.is_relative_to(Path.cwd()) else folder


def path_for_config(path: str | Path, config_path: str | Path) -> str:
    """``path`` (absolute, or relative to the current folder) as a configuration with
    ``relative_to_config: true`` at ``config_path`` writes it: relative to its folder."""
    folder = Path(config_path).absolute().parent
    return Path(os.path.relpath(Path(path).absolute(), folder)).as_posix()


def reference_judged_items(table: EvaluationTable, spec: ImportSpec) -> int:
    """Items on which the reference system's outputs were judged (0 without a reference system)."""
    if spec.reference_system is None or spec.reference_system not in table.systems:
        return 0
    position = table.judgment_cells(table.systems.index(spec.reference_system), texts=False)[0]
    return len(np.unique(position))


def judged_reference(table: EvaluationTable, spec: ImportSpec) -> bool:
    """The reference system is judged on enough items (``spec.min_judged_items``) to be the
    task's judged ``reference_system`` (as in the paper's data: its judgments kept, Table 1 can
    count items with a judged reference); otherwise its outputs are the references only, and
    it is neither a system of the task nor written as one."""
    return reference_judged_items(table, spec) >= spec.min_judged_items


def written_scale(low: float, high: float) -> tuple[float | int, float | int]:
    """An inferred rating scale as a user would write it: widened outwards to two significant
    digits of its range (``[-24.67, 0]`` -> ``[-25, 0]``, ``[0.1000000015, 0.8999999762]`` ->
    ``[0.1, 0.9]``), whole numbers as integers. Every judgment stays inside."""
    import math

    span = high - low
    if not (math.isfinite(low) and math.isfinite(high)) or span <= 0:
        bounds = (low, high)
    else:
        step = 10.0 ** (math.floor(math.log10(span)) - 1)
        bounds = (
            round(math.floor(round(low / step, 9)) * step, 12),
            round(math.ceil(round(high / step, 9)) * step, 12),
        )
    return tuple(int(b) if math.isfinite(b) and float(b).is_integer() else float(b) for b in bounds)


def _json_pieces(strings) -> list[str]:
    return [encode_basestring(s) for s in strings]


def system_lines(table: EvaluationTable, system: int, prompts, metrics, *, scored: bool) -> str:
    """The canonical lines (``{"id"[, "cluster"], "output", "judgments"[, "scores"]}``, each
    ending in a newline) of one system's outputs, in table order: the text ``json.dumps`` writes,
    built from columns (each distinct text and number formatted once)."""
    outputs = table.outputs_of(system)
    position, prompt, _, values, _ = table.judgment_cells(system)
    judgments = np.full(len(outputs), "", dtype=object)
    if len(position):
        keys = np.array([encode_basestring(p) + ": [" for p in prompts], dtype=object)
        cells = keys[prompt] + values + "]"
        start = np.flatnonzero(np.r_[True, position[1:] != position[:-1]])
        lead = np.ones(len(cells), dtype=bool)
        lead[start] = False
        cells = np.where(lead, ", ", "").astype(object) + cells
        judgments[position[start]] = np.add.reduceat(cells, start)
    ids = _json_pieces(table.output_item[outputs])
    clusters = table.output_cluster
    if clusters is not None:  # the item's cluster after its id
        key = f", {encode_basestring(CLUSTER_KEY)}: "
        ids = [f"{i}{key}{c}" for i, c in zip(ids, _json_pieces(clusters[outputs]))]
    texts = _json_pieces(table.output_text[outputs]) if table.output_text is not None else ['""'] * len(outputs)
    if scored and metrics:
        scores = np.full(len(outputs), "", dtype=object)
        for j, metric in enumerate(metrics):
            name = (", " if j else "") + encode_basestring(metric) + ": "
            scores = scores + name + float_texts(table.output_scores[outputs, j])
        return "".join(
            f'{{"id": {i}, "output": {o}, "judgments": {{{j}}}, "scores": {{{s}}}}}\n'
            for i, o, j, s in zip(ids, texts, judgments, scores)
        )
    return "".join(f'{{"id": {i}, "output": {o}, "judgments": {{{j}}}}}\n' for i, o, j in zip(ids, texts, judgments))


def _names(table: EvaluationTable):
    """The file and config names of the table's systems, prompts and score columns."""
    return (
        [safe_name(s) for s in table.systems],
        [prompt_name(p) for p in table.prompts],
        [metric_name(m) for m in table.metrics],
    )


def write_canonical(table: EvaluationTable, spec: ImportSpec, folder: Path) -> None:
    """Write the task's canonical files under ``folder`` (checked first by :func:`config_block`)."""
    systems, _, metrics = _names(table)
    references = table.references
    if spec.reference_system is not None:
        own = table.output_system == table.systems.index(spec.reference_system)
        texts = table.output_text[own] if table.output_text is not None else np.full(own.sum(), "", dtype=object)
        references = dict(zip(table.output_item[own].tolist(), texts.tolist()))
    keep_reference = judged_reference(table, spec)
    for index, name in enumerate(table.systems):
        if name == spec.reference_system and not keep_reference:
            continue  # its texts are the references; it is no system of the task
        lines = system_lines(table, index, table.prompts, metrics, scored=name != spec.reference_system)
        write_gzip(folder / "systems" / f"{systems[index]}.jsonl.gz", [lines], COMPRESSION)
    if references is not None:
        items = list(dict.fromkeys(table.output_item.tolist()))
        texts = [references.get(i, "") for i in items]
        lines = "".join(f'{{"id": {i}, "reference": {r}}}\n' for i, r in zip(_json_pieces(items), _json_pieces(texts)))
        write_gzip(folder / "references.jsonl.gz", [lines], COMPRESSION)


def _scale_of(table: EvaluationTable, prompt: str) -> tuple:
    """A prompt's scale as the configuration states it: as declared, or inferred and written as a
    user would write it (:func:`written_scale`); ``(None, None)`` for a prompt nobody judged."""
    if prompt not in table.scale:
        return (None, None)
    low, high = table.scale[prompt]
    if table.scale_declared:
        return tuple(int(b) if float(b).is_integer() else float(b) for b in (low, high))
    return written_scale(low, high)


def config_block(table: EvaluationTable, spec: ImportSpec) -> dict:
    """The ``tasks`` entry (and the ``metrics`` entries of provided scores) for the imported task
    (a reference system judged on enough items is its ``reference_system``: :func:`judged_reference`);
    a reference system the table lacks, or a table with nothing to set beside the judgments
    (neither scores nor texts with references), is an error."""
    systems, prompts, metrics = _names(table)
    if spec.reference_system is not None and spec.reference_system not in table.systems:
        raise InputError(
            table.source,
            f"--reference-system {spec.reference_system!r} is not a value of column '{spec.columns.system}'",
        )
    if not spec.has_text and not metrics:
        raise InputError(
            table.source,
            "nothing to set beside the judgments: give per-output scores (--score COLUMN) or output texts "
            "with references (--output COLUMN and --reference COLUMN or --reference-system NAME)",
        )
    direction = {"higher_is_better": False} if spec.lower_is_better else {}
    task = {
        "label": spec.task,
        "systems": {
            safe: {"label": name} for name, safe in zip(table.systems, systems) if name != spec.reference_system
        },
        "prompts": {
            safe: dict(zip(("label", "min", "max"), (name, *_scale_of(table, name)))) | direction
            for name, safe in zip(table.prompts, prompts)
        },
    }
    if spec.reference_system and judged_reference(table, spec):
        task["reference_system"] = systems[table.systems.index(spec.reference_system)]
    if table.item_cluster is not None:
        task["cluster"] = CLUSTER_KEY
    if spec.language != "en":
        task["language"] = spec.language
    block = {"tasks": {task_name(spec.task): task}}
    if metrics:
        block["metrics"] = {safe: {"label": name, "provided": True} for name, safe in zip(table.metrics, metrics)}
    return block


def read_config_for_adding(path: str | Path) -> dict:
    """The configuration a task will be added to: ``{}`` for a file that does not exist yet."""
    import yaml

    path = Path(path)
    if not path.exists():
        return {}
    if not path.is_file():
        raise InputError(str(path), "is not a file")
    from debias.io.yaml_checks import yaml_problem

    problem = yaml_problem(path, named=False)  # aliases that expand to millions, keys twice, deep nesting
    if problem:
        raise InputError(str(path), problem)
    try:
        config = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError) as error:
        raise InputError(str(path), f"cannot be read as YAML ({str(error).splitlines()[0]})") from None
    if config is None:
        return {}
    if not isinstance(config, dict):
        raise InputError(str(path), "expected a mapping of configuration keys")
    return config


@contextlib.contextmanager
def config_lock(path: str | Path | None):
    """Hold an exclusive lock on the configuration file ``path`` while a task is added to it
    (``None``: no lock), so that imports into one configuration run one after the other and
    none loses another's task: ``fcntl.flock`` on ``.<name>.lock`` beside the file, a missing
    folder made first. The lock file is removed when the lock is released; an import that was
    waiting on a removed lock file locks the new one instead (it checks, once it holds its lock,
    that the file it locked is still the one at the path). Where ``fcntl`` is missing (Windows)
    nothing is locked."""
    if path is None:
        yield
        return
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on POSIX
        yield
        return
    path = Path(path)
    lock = path.parent / f".{path.name}.lock"
    while True:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as error:
            raise InputError(str(path), f"cannot lock the configuration ({lock}: {error.strerror or error})") from None
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            held, there = os.fstat(fd), os.stat(lock)
            if (held.st_dev, held.st_ino) == (there.st_dev, there.st_ino):
                break
        except FileNotFoundError:
            pass
        os.close(fd)  # the file was removed by the import that held it: lock the new one
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(lock)  # removed before it is released: see above
        os.close(fd)


def _read_only(path: Path) -> bool:
    """The owner may not write ``path`` (its mode, which even the superuser's writes respect here)."""
    return not (path.stat().st_mode & stat.S_IWUSR) or not os.access(path, os.W_OK)


def _writable_folder(folder: Path) -> Path:
    """The nearest existing folder at or above ``folder``, which the write will create under."""
    existing = folder
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise InputError(str(existing), "is a file, not a folder")
    if _read_only(existing):
        raise InputError(str(existing), "is read-only: cannot write here")
    return existing


def _existing_files(out: Path, names) -> list[str]:
    return [str(out / name) for name in names if (out / name).exists()]


def write_import(table: EvaluationTable, spec: ImportSpec, out: str | Path, *, config=None, force=False) -> None:
    """Write the canonical files of ``table`` to ``out`` and, given ``config`` (a path and the
    configuration to write there, the task added by :func:`add_task`), the configuration: all or
    nothing.

    Files already at ``out`` are replaced only with ``force``; otherwise they are named in the
    error.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InputError(str(out), "is a file, not a folder (--out names the task's folder)")
    _writable_folder(out)
    if out.exists() and _read_only(out):
        raise InputError(str(out), "is read-only: cannot write here")
    if config is not None:
        path = Path(config[0])
        _writable_folder(path.parent)
        if path.exists() and _read_only(path):
            raise InputError(str(path), "is read-only: cannot add the task to it")
    missing = [folder for folder in [out.parent, *out.parent.parents] if not folder.exists()]
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    except OSError as error:
        raise InputError(str(out), f"cannot write here ({error.strerror or error})") from None
    config_tmp, undo, done = None, [], False
    try:
        write_canonical(table, spec, staging / "new")
        written = sorted(str(p.relative_to(staging / "new")) for p in (staging / "new").rglob("*") if p.is_file())
        clash = _existing_files(out, written)
        if clash and not force:
            raise InputError(
                clash[0],
                f"exists ({len(clash)} of the files to write exist); give --force to replace them"
                if len(clash) > 1
                else "exists; give --force to replace it",
            )
        if config is not None:
            config_tmp = _stage_config(Path(config[0]), config[1])
        _move_into_place(staging, out, written, undo)
        if config_tmp is not None:
            os.replace(config_tmp, config_target(config[0]))
            config_tmp = None
        done = True
    except OSError as error:
        raise InputError(
            str(getattr(error, "filename", None) or out), f"cannot write ({error.strerror or error})"
        ) from None
    finally:
        if not done:  # put back what was moved, newest first
            for step in reversed(undo):
                with contextlib.suppress(OSError):
                    step()
        shutil.rmtree(staging, ignore_errors=True)
        if config_tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(config_tmp)
        for folder in missing if not done else ():  # folders made for a write that did not happen
            with contextlib.suppress(OSError):
                folder.rmdir()


def _move_into_place(staging: Path, out: Path, written: list[str], undo: list) -> None:
    """Move the files written under ``staging/new`` to ``out``, the files they replace to
    ``staging/old``; ``undo`` collects the steps that reverse each move."""
    if not out.exists():
        os.rename(staging / "new", out)
        undo.append(lambda: shutil.rmtree(out))
        return
    for name in written:
        target, old = out / name, staging / "old" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists():
            old.parent.mkdir(parents=True, exist_ok=True)
            os.replace(target, old)
            undo.append(lambda target=target, old=old: os.replace(old, target))
        os.replace(staging / "new" / name, target)
        undo.append(lambda target=target: os.unlink(target))


def config_target(path: str | Path) -> Path:
    """The file a configuration at ``path`` is written to: a symbolic link's target (the link
    is kept, its target replaced), else ``path``."""
    path = Path(path)
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _stage_config(path: Path, config: Mapping) -> str:
    """Write ``config`` to a temporary file beside the file it will replace
    (:func:`config_target`), with that file's permissions (a new one's: what ``open`` gives);
    the temporaries a killed import left beside it are removed first."""
    import yaml

    from debias.io.atomic import _UMASK, remove_stale_temporaries, temporary_name_prefix

    target = config_target(path)
    remove_stale_temporaries(target)
    fd, tmp = tempfile.mkstemp(prefix=temporary_name_prefix(target), suffix=".tmp" + target.suffix, dir=target.parent)
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except OSError:
        mode = 0o666 & ~_UMASK
    os.chmod(tmp, mode)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(yaml.safe_dump(dict(config), sort_keys=False, allow_unicode=True))
    return tmp


def add_task(config: Mapping, block: Mapping, where: str | Path = "config") -> dict:
    """``config`` with the imported task's block added, refusing a task or a metric it already has."""
    config = dict(config)
    for section in ("tasks", "metrics"):
        clash = set(block.get(section, {})) & set(config.get(section) or {})
        if clash:
            raise InputError(str(where), f"{section} already has {sorted(clash)}")
    for section in ("tasks", "metrics"):
        if block.get(section):
            config[section] = {**(config.get(section) or {}), **block[section]}
    return config
