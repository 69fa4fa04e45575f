"""What the ``debias`` command reads besides system files, checked: metric scores given as a CSV
file (``--scores``: an ``id`` column and one column per metric, plain or gzipped UTF-8, checked
line by line) and numeric options (:func:`number_in`)."""

from __future__ import annotations

import argparse
import csv
import gzip
import math
from pathlib import Path

from debias.io.canonical import InputError

__all__ = ["number_in", "read_scores_csv", "workflow_scores_file"]


def read_scores_csv(path, metrics=None):
    """``({id: {metric: score}}, metrics)`` from a CSV with an ``id`` column; errors name file and line.

    ``metrics`` names the columns to read (default: every column but ``id``, ``task`` and
    ``system``, the workflow's metrics files' label columns)."""
    try:
        opener = gzip.open if str(path).endswith(".gz") else open
        handle = opener(path, "rt", encoding="utf-8-sig", newline="")
    except OSError:
        raise InputError(
            str(path), "scores file not found (a CSV with an 'id' column and one column per metric)"
        ) from None
    try:
        with handle:
            return _read_scores(csv.reader(handle), path, metrics)
    except UnicodeDecodeError as error:
        raise InputError(str(path), f"not UTF-8 text ({error.reason} at byte {error.start})") from None
    except (OSError, EOFError) as error:
        raise InputError(str(path), f"cannot be read ({error})") from None


def _read_scores(reader, path, metrics):
    header = next(reader, None)
    if not header or "id" not in header:
        raise InputError(f"{path}:1", "expected a header line with an 'id' column and one column per metric")
    duplicated = sorted({c for c in header if header.count(c) > 1})
    if duplicated:
        raise InputError(f"{path}:1", f"column '{duplicated[0]}' appears twice")
    columns = [c for c in header if c not in ("id", "task", "system")] if metrics is None else list(metrics)
    for metric in columns:
        if metric not in header:
            raise InputError(f"{path}:1", f"no column '{metric}' (columns: {', '.join(header)})")
    scores = {}
    for number, row in enumerate(reader, start=2):
        if len(row) != len(header):
            raise InputError(f"{path}:{number}", f"expected {len(header)} fields, found {len(row)}")
        values = dict(zip(header, row))
        item = {}
        for metric in columns:
            try:
                item[metric] = float(values[metric]) if "_" not in values[metric] else math.nan
            except ValueError:
                item[metric] = math.nan
            if not (math.isfinite(item[metric]) and abs(item[metric]) < 1e154):
                raise InputError(
                    f"{path}:{number}",
                    f"score for '{metric}' must be a finite number below 1e154, found {values[metric]!r}",
                )
        if values["id"] in scores:
            raise InputError(f"{path}:{number}", f"id '{values['id']}' appears twice")
        scores[values["id"]] = item
    return scores, columns


def number_in(low=None, high=None, *, low_open=True, high_open=True, integer=False):
    """An argparse type: a finite number in the given range, named in the error."""

    def parse(text):
        try:
            value = int(text) if integer else float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a {'whole ' if integer else ''}number, got {text!r}") from None
        ok = math.isfinite(value)
        ok = ok and (low is None or (value > low if low_open else value >= low))
        ok = ok and (high is None or (value < high if high_open else value <= high))
        if not ok:
            left = "(" if low_open else "["
            right = ")" if high_open else "]"
            span = f"{left}{'-inf' if low is None else low}, {'inf' if high is None else high}{right}"
            raise argparse.ArgumentTypeError(f"expected a number in {span}, got {text!r}")
        return value

    return parse


def workflow_scores_file(config, config_path: str, task: str, system: str) -> tuple[Path | None, list[Path]]:
    """The workflow's scores file of a system: ``results_dir`` taken as given (relative to the
    current folder), then relative to the config file's folder and to its parent (a project's
    ``config/config.yaml``). Returns the file found (or None) and the places looked in."""
    relative = Path(config.get("results_dir", "results")) / "metrics" / task / f"{system}.csv"
    if relative.is_absolute():
        places = [relative]
    else:
        folder = Path(config_path).resolve().parent
        places = list(dict.fromkeys([Path.cwd() / relative, folder / relative, folder.parent / relative]))
    return next((place for place in places if place.is_file()), None), places
