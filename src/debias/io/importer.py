"""Importing a long table of human judgments (one row per rating) as a task of the workflow.

Human evaluations come as long tables: the item (input), the system, often the prompt (the
question asked of the raters) and the rater, the score, the output text, per-output metric or
LLM-judge scores. :func:`import_long_table` turns one into the canonical files the workflow
reads (``<out>/systems/<system>.jsonl.gz`` and ``<out>/references.jsonl.gz``, see
:mod:`debias.io.canonical`) and the block of ``config/config.yaml`` that declares the task. Several rows
of the same item, system and prompt are that output's judgments, in rater order when a rater
column is given. A wide table (one column per prompt or per rater) becomes long with one
``pandas.melt``, e.g. ``frame.melt(id_vars=["item", "system"], var_name="prompt",
value_name="score")``.
"""

from __future__ import annotations

import csv
import gzip
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from debias.io.atomic import atomic_path, write_jsonl_gz
from debias.io.canonical import InputError

__all__ = [
    "ImportSpec",
    "add_to_config",
    "config_block",
    "import_long_table",
    "read_long_table",
    "safe_name",
]

FORMATS = {".csv": "csv", ".tsv": "tsv", ".txt": "tsv", ".parquet": "parquet", ".jsonl": "jsonl", ".json": "jsonl"}


@dataclass(frozen=True)
class ImportSpec:
    """Which column is what (``None``: absent), and the names given on the command line."""

    task: str
    item: str
    system: str
    judgment: str
    prompt: str | None = None
    prompt_name: str = "score"
    rater: str | None = None
    output: str | None = None
    reference: str | None = None
    reference_system: str | None = None
    scores: tuple[str, ...] = ()
    lower_is_better: bool = False


def table_format(path: Path, given: str | None = None) -> str:
    """The table's format from ``given`` or its file name (``.gz`` allowed)."""
    if given:
        return given
    suffixes = [s for s in path.suffixes if s != ".gz"]
    if suffixes and suffixes[-1].lower() in FORMATS:
        return FORMATS[suffixes[-1].lower()]
    raise InputError(str(path), f"cannot tell the format from the name (use --format: {sorted(set(FORMATS.values()))})")


def read_long_table(path: str | Path, fmt: str | None = None, *, quoting: bool | None = None) -> pd.DataFrame:
    """Read a long table, every column as text (numbers are parsed where they are used).

    TSV is read as the data's own format by default: tabs separate, quotes are ordinary
    characters (``quoting=False``), so a text field holding a lone ``"`` is read as it is.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(str(path), "no such file")
    fmt = table_format(path, fmt)
    try:
        if fmt == "parquet":
            try:
                return pd.read_parquet(path).astype(str)
            except ImportError:
                raise InputError(str(path), "reading Parquet needs pyarrow: pip install pyarrow") from None
        if fmt == "jsonl":
            opener = gzip.open if path.suffix == ".gz" else open
            with opener(path, "rt", encoding="utf-8") as handle:
                return pd.read_json(handle, lines=True, dtype=False).astype(str)
        sep = "\t" if fmt == "tsv" else ","
        no_quotes = (fmt == "tsv") if quoting is None else not quoting
        return pd.read_csv(
            path,
            sep=sep,
            dtype=str,
            keep_default_na=False,
            quoting=csv.QUOTE_NONE if no_quotes else csv.QUOTE_MINIMAL,
            encoding="utf-8-sig",
        )
    except UnicodeDecodeError as error:
        raise InputError(str(path), f"not UTF-8 text ({error.reason} at byte {error.start})") from None
    except (pd.errors.ParserError, ValueError) as error:
        raise InputError(str(path), f"not a {fmt} table: {str(error).splitlines()[0]}") from None


def safe_name(name: str, pattern: str = r"[^A-Za-z0-9_.+-]") -> str:
    """A name the configuration accepts, from any text (runs of other characters become ``_``)."""
    safe = re.sub(f"{pattern}+", "_", str(name).strip()).strip("_")
    return safe or "x"


def _numbers(frame: pd.DataFrame, column: str, path: str) -> np.ndarray:
    text = frame[column].astype(str).str.strip()
    values = pd.to_numeric(text.where(~text.str.contains("_")), errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"{path}: row {row + 2}", f"column '{column}': expected a finite number, found {text.iloc[row]!r}"
        )
    return values


def _one_per(frame: pd.DataFrame, keys: list[str], column: str, path: str) -> pd.Series:
    """The single value of ``column`` per group of ``keys``; a conflict names its rows."""
    firsts = frame.groupby(keys, sort=False)[column].agg(["first", "nunique"])
    if (firsts["nunique"] > 1).any():
        key = firsts.index[int(np.flatnonzero(firsts["nunique"].to_numpy() > 1)[0])]
        key = key if isinstance(key, tuple) else (key,)
        rows = frame.index[np.all([frame[k] == v for k, v in zip(keys, key)], axis=0)] + 2
        raise InputError(
            f"{path}: rows {rows[0]} and {rows[1]}", f"column '{column}' differs for {dict(zip(keys, key))}"
        )
    return firsts["first"]


def import_long_table(frame: pd.DataFrame, spec: ImportSpec, out: str | Path, *, source: str = "table") -> dict:
    """Write the canonical files of ``frame`` under ``out``; return the task's config block.

    Errors name the row (1-based with the header as row 1, as a spreadsheet shows it) and the
    column. Nothing is written unless every check passes.
    """
    columns = [
        spec.item,
        spec.system,
        spec.judgment,
        spec.prompt,
        spec.rater,
        spec.output,
        spec.reference,
        *spec.scores,
    ]
    missing = [c for c in columns if c is not None and c not in frame.columns]
    if missing:
        raise InputError(source, f"no column {missing[0]!r} (columns: {list(frame.columns)})")
    if frame.empty:
        raise InputError(source, "the table has no rows")
    data = pd.DataFrame(index=frame.index)
    for key, column in (("item", spec.item), ("system", spec.system)):
        data[key] = frame[column].astype(str).str.strip()
        empty = data[key] == ""
        if empty.any():
            raise InputError(f"{source}: row {int(np.flatnonzero(empty)[0]) + 2}", f"column '{column}' is empty")
    data["prompt"] = (
        frame[spec.prompt].astype(str).map(lambda p: safe_name(p, r"[^A-Za-z0-9_]"))
        if spec.prompt
        else safe_name(spec.prompt_name, r"[^A-Za-z0-9_]")
    )
    data["rater"] = frame[spec.rater].astype(str) if spec.rater else ""
    data["value"] = _numbers(frame, spec.judgment, source)
    data["row"] = np.arange(len(frame))
    if spec.rater:
        duplicated = data.duplicated(["item", "system", "prompt", "rater"])
        if duplicated.any():
            row = int(np.flatnonzero(duplicated)[0])
            raise InputError(
                f"{source}: row {row + 2}",
                f"rater {data['rater'].iloc[row]!r} judged this item, system and prompt twice",
            )
    outputs = data.drop_duplicates(["system", "item"])[["system", "item"]].set_index(["system", "item"])
    outputs["output"] = (
        _one_per(frame.assign(**data[["system", "item"]]), ["system", "item"], spec.output, source)
        if spec.output
        else ""
    )
    for name in spec.scores:
        outputs[name] = _one_per(data.assign(score=_numbers(frame, name, source)), ["system", "item"], "score", source)
    references = None
    if spec.reference:
        references = _one_per(frame.assign(item=data["item"]), ["item"], spec.reference, source)
    elif spec.reference_system:
        own = (
            outputs.xs(spec.reference_system, level="system", drop_level=True)
            if spec.reference_system in set(data["system"])
            else None
        )
        if own is None:
            raise InputError(
                source, f"--reference-system {spec.reference_system!r} is not a value of column '{spec.system}'"
            )
        references = own["output"]
    data = data.sort_values(["system", "item", "prompt", "rater", "row"], kind="stable")
    judgments = {key: part["value"].tolist() for key, part in data.groupby(["system", "item", "prompt"], sort=False)}
    prompts = list(dict.fromkeys(data.sort_values("row")["prompt"]))
    files = {}
    for system, part in outputs.groupby(level="system", sort=False):
        lines = []
        for (_, item), row in part.iterrows():
            line = {
                "id": item,
                "output": row["output"],
                "judgments": {p: judgments[(system, item, p)] for p in prompts if (system, item, p) in judgments},
            }
            if spec.scores and system != spec.reference_system:  # references are never scored
                line["scores"] = {safe_name(m, r"[^A-Za-z0-9_]"): float(row[m]) for m in spec.scores}
            lines.append(line)
        files[system] = lines
    out = Path(out)
    (out / "systems").mkdir(parents=True, exist_ok=True)
    names = {system: safe_name(system) for system in files}
    for system, lines in files.items():
        write_jsonl_gz(out / "systems" / f"{names[system]}.jsonl.gz", lines)
    if references is not None:
        items = list(dict.fromkeys(data.sort_values("row")["item"]))
        write_jsonl_gz(out / "references.jsonl.gz", [{"id": i, "reference": str(references.get(i, ""))} for i in items])
    bounds = data.groupby("prompt")["value"].agg(["min", "max"])
    return config_block(spec, names, prompts, bounds, has_references=references is not None)


def config_block(
    spec: ImportSpec, names: Mapping[str, str], prompts: Sequence[str], bounds, *, has_references: bool
) -> dict:
    """The ``tasks`` entry (and the ``metrics`` entries of provided scores) for the imported task."""
    systems = {safe: {"label": str(original)} for original, safe in names.items() if original != spec.reference_system}
    task = {
        "label": spec.task,
        "systems": systems,
        "prompts": {
            p: {"label": p, "min": float(bounds.loc[p, "min"]), "max": float(bounds.loc[p, "max"])}
            | ({"higher_is_better": False} if spec.lower_is_better else {})
            for p in prompts
        },
    }
    if spec.reference_system:
        task["reference_system"] = names[spec.reference_system]
    block = {"tasks": {safe_name(spec.task): task}}
    if spec.scores:
        block["metrics"] = {safe_name(m, r"[^A-Za-z0-9_]"): {"label": m, "provided": True} for m in spec.scores}
    return block


def read_config_for_adding(path: str | Path) -> dict:
    """The configuration a task will be added to: ``{}`` for a file that does not exist yet."""
    import yaml

    path = Path(path)
    if not path.exists():
        return {}
    try:
        config = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise InputError(str(path), f"cannot be read as YAML ({str(error).splitlines()[0]})") from None
    if config is None:
        return {}
    if not isinstance(config, dict):
        raise InputError(str(path), "expected a mapping of configuration keys")
    return config


def add_to_config(path: str | Path, block: Mapping, config: Mapping | None = None) -> None:
    """Add an imported task to a configuration file (created when missing), refusing a task or a
    metric it already has; ``config`` is the file's content when already read."""
    import yaml

    path = Path(path)
    config = dict(read_config_for_adding(path) if config is None else config)
    for section in ("tasks", "metrics"):
        clash = set(block.get(section, {})) & set(config.get(section) or {})
        if clash:
            raise InputError(str(path), f"{section} already has {sorted(clash)}")
    for section in ("tasks", "metrics"):
        if block.get(section):
            config[section] = {**(config.get(section) or {}), **block[section]}
    with atomic_path(path) as tmp:
        Path(tmp).write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")
