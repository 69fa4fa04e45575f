"""The settings of a configuration that name files or folders, and the configuration with those
paths read from a given folder.

A configuration that says ``relative_to_config: true`` (as ``debias import`` and ``debias
import-pairs`` write them) reads its relative paths from its own folder. Run on its own, the
workflow moves there; used as a module of another workflow (Snakemake's ``module``), it must not
move the other workflow's working directory, so its paths are joined to that folder instead
(:func:`rooted`)."""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["TOP_LEVEL_PATHS", "rooted"]

#: Top-level settings that are paths.
TOP_LEVEL_PATHS = ("data_dir", "results_dir", "nltk_data")


def _joined(folder: Path, path):
    if not isinstance(path, str) or os.path.isabs(path):
        return path
    return os.path.normpath(folder / path)


def rooted(config: Mapping, folder: str | os.PathLike) -> dict:
    """A copy of ``config`` whose relative paths are joined to ``folder``: ``data_dir``,
    ``results_dir``, ``nltk_data``, the ``path`` of each ``released`` file, and each preference
    task's ``battles``, ``pool`` and judges' ``table``. Absolute paths and every other setting
    are kept as they are."""
    folder = Path(folder).resolve()
    out = copy.deepcopy(dict(config))
    for key in TOP_LEVEL_PATHS:
        if key in out:
            out[key] = _joined(folder, out[key])
    for entry in out.get("released") or []:
        entry["path"] = _joined(folder, entry.get("path"))
    for spec in (out.get("preferences") or {}).values():
        for key in ("battles", "pool"):
            if spec.get(key):
                spec[key] = _joined(folder, spec[key])
        for judge in (spec.get("judges") or {}).values():
            if isinstance(judge, dict) and judge.get("table"):
                judge["table"] = _joined(folder, judge["table"])
    return out
