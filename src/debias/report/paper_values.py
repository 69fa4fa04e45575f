"""The numbers the paper states (``data/paper/reported_values.yaml``), read and checked.

They are used only in the report's "Paper" column. A malformed entry stops the report with
the file, the line of the entry and what was expected.
"""

from __future__ import annotations

import numbers
import os
import re
from collections.abc import Mapping

import yaml

from debias.io.canonical import InputError

__all__ = ["RANGE_CONDITIONS", "load_paper_values"]

#: Conditions whose data-efficiency range the paper states.
RANGE_CONDITIONS = ("cv", "noiseless", "perfect")

_TEXT, _NUMBER, _FLAG, _CELLS = "text", "number", "true or false", "a list of cells"

# Per section: the keys every entry needs, and the optional ones, with the kind of value.
_REQUIRED = {
    "table2": {
        "task": _TEXT,
        "prompt": _TEXT,
        "sigma2_a": _NUMBER,
        "sigma2_f": _NUMBER,
        "gamma": _NUMBER,
        "where": _TEXT,
    },
    "figure6": {
        "panel": _TEXT,
        "task": _TEXT,
        "prompt": _TEXT,
        "system": _TEXT,
        "metric": _TEXT,
        "metric_label": _TEXT,
        "de": _NUMBER,
        "where": _TEXT,
    },
    "de_ranges": {"condition": _TEXT, "description": _TEXT, "low": _NUMBER, "high": _NUMBER, "where": _TEXT},
    "correlations": {
        "id": _TEXT,
        "task": _TEXT,
        "prompt": _TEXT,
        "system": _TEXT,
        "metric": _TEXT,
        "rho": _NUMBER,
        "where": _TEXT,
    },
    "gamma_ratios": {
        "task": _TEXT,
        "numerator": _TEXT,
        "denominator": _TEXT,
        "ratio": _NUMBER,
        "decimals": _NUMBER,
        "description": _TEXT,
        "where": _TEXT,
    },
    "not_checkable": {"claim": _TEXT, "value": _TEXT, "where": _TEXT},
    "system_means": {
        "task": _TEXT,
        "prompt": _TEXT,
        "system": _TEXT,
        "mean": _NUMBER,
        "decimals": _NUMBER,
        "description": _TEXT,
        "where": _TEXT,
    },
    "table1": {
        "task": _TEXT,
        "prompt": _TEXT,
        "metric_label": _TEXT,
        "total": _NUMBER,
        "cells": _CELLS,
        "where": _TEXT,
    },
}
_CELL_KEYS = {"judgment", "metric_side", "count", "percent"}
_OPTIONAL = {
    "system_means": {"minus": _TEXT},
    "figure6": {"available": _FLAG, "note": _TEXT, "implementation": _TEXT},
    "table2": {"note": _TEXT},
    "table1": {"implementation": _TEXT},
}
_PANEL = re.compile(r"^[A-Za-z0-9]+$")


def _kind_ok(value, kind: str) -> bool:
    if kind == _NUMBER:
        return isinstance(value, numbers.Real) and not isinstance(value, bool)
    if kind == _FLAG:
        return isinstance(value, bool)
    if kind == _CELLS:
        return isinstance(value, list) and all(isinstance(c, Mapping) and set(c) == _CELL_KEYS for c in value)
    return isinstance(value, str) and bool(value.strip())


def _entry_lines(root: yaml.Node) -> dict[str, list[int]]:
    """1-based line of every entry of every section, from the YAML node tree."""
    lines: dict[str, list[int]] = {}
    if isinstance(root, yaml.MappingNode):
        for key, value in root.value:
            if isinstance(value, yaml.SequenceNode):
                lines[str(key.value)] = [item.start_mark.line + 1 for item in value.value]
    return lines


def _check_entry(path, line: int, section: str, entry) -> None:
    where = f"{path}:{line}"
    if not isinstance(entry, Mapping):
        raise InputError(where, f"each {section} entry must be a mapping, found {type(entry).__name__}")
    expected = {**_REQUIRED[section], **_OPTIONAL.get(section, {})}
    for key in entry:
        if key not in expected:
            raise InputError(where, f"{section} entry has unknown key {key!r}; expected {sorted(expected)}")
    for key, kind in expected.items():
        if key not in entry:
            if key in _REQUIRED[section]:
                raise InputError(where, f"{section} entry lacks {key!r} ({kind})")
        elif not _kind_ok(entry[key], kind):
            raise InputError(where, f"{section} entry: {key!r} must be {kind}, found {entry[key]!r}")
    if section == "figure6" and not _PANEL.match(entry["panel"]):
        raise InputError(where, f"figure6 panel must be a panel letter such as 'a', found {entry['panel']!r}")
    if section == "de_ranges":
        if entry["condition"] not in RANGE_CONDITIONS:
            raise InputError(where, f"de_ranges condition must be one of {list(RANGE_CONDITIONS)}")
        if not entry["low"] < entry["high"]:
            raise InputError(where, f"de_ranges entry needs low < high, found {entry['low']} and {entry['high']}")


def load_paper_values(path: str | os.PathLike) -> dict:
    """Read and check ``reported_values.yaml``.

    Returns
    -------
    dict
        ``paper`` (the citation), ``decimals`` (the digits the paper states), and the lists
        ``table2``, ``figure6``, ``de_ranges``, ``correlations``, ``gamma_ratios``,
        ``not_checkable``, ``system_means`` and ``table1`` (empty when absent; a Table 1 cell has ``judgment,
        metric_side, count, percent``).
        Raises :class:`debias.io.canonical.InputError` naming the file and line of a malformed entry.
    """
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        values = yaml.safe_load(text)
    except yaml.MarkedYAMLError as error:
        line = error.problem_mark.line + 1 if error.problem_mark else 0
        raise InputError(f"{path}:{line}", f"not valid YAML ({error.problem})") from None
    if not isinstance(values, Mapping):
        raise InputError(str(path), "expected a mapping with keys paper, decimals, table2, figure6, ...")
    decimals = values.get("decimals", 2)
    if not isinstance(decimals, int) or isinstance(decimals, bool) or decimals < 0:
        raise InputError(str(path), f"'decimals' must be a non-negative integer, found {decimals!r}")
    lines = _entry_lines(root)
    out = {"paper": str(values.get("paper") or "").strip(), "decimals": decimals}
    for section in _REQUIRED:
        entries = values.get(section) or []
        if not isinstance(entries, list):
            raise InputError(str(path), f"{section!r} must be a list of entries")
        for i, entry in enumerate(entries):
            _check_entry(path, lines.get(section, [0] * len(entries))[i], section, entry)
        out[section] = entries
    return out
