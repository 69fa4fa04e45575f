"""The joined table of one system: every output × prompt with its judgments and metric scores.

The ``join`` rule writes it once per task and judged system (``results/joined/<task>/<system>.csv``)
and every later step reads it instead of the raw system file. One row per output and prompt:

========================  ==========================================================================
``task``, ``system``      whose output it is
``id``                    item id (a string)
``prompt``                the prompt the judgments answer
``judged_output``         the shared judgment this line names (see :class:`debias.io.canonical.SystemItem`), or empty
``n_judgments``           number of judgments of this output on this prompt (0: not judged)
``mean_judgment``         their mean (empty when not judged)
``judgments``             the judgments themselves, full precision: a JSON list in the file, the
                          judgments (a float array) in memory
``judgment_records``      when they came from several crowd records, how many from each, space-separated
                          (see :class:`debias.io.canonical.SystemItem`); empty for one record
``cluster``               the item's cluster (the document or question several items share), only
                          when the task has clusters (:data:`CLUSTER`)
one column per metric     the metric's score of the output (absent for unscored systems: references)
========================  ==========================================================================

Numbers are written at full precision, so every step sees exactly the values the join saw. In
memory (:func:`join_system`, :func:`join_evaluation_table`) the judgments are numbers, never
text: JSON is written only by :func:`write_joined`, and :meth:`debias.data.Judgments.from_joined`
reads both.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from debias.io.atomic import write_csv
from debias.io.canonical import InputError, SystemItem

__all__ = [
    "CLUSTER",
    "JOINED_COLUMNS",
    "join_evaluation_table",
    "join_system",
    "judged_rows",
    "judgment_texts",
    "cluster_column",
    "iter_cells",
    "metric_columns",
    "present_metrics",
    "read_joined",
    "write_joined",
]

JOINED_COLUMNS = [
    "task",
    "system",
    "id",
    "prompt",
    "judged_output",
    "n_judgments",
    "mean_judgment",
    "judgments",
    "judgment_records",
]
#: The column of an item's cluster, after :data:`JOINED_COLUMNS` and before the metrics, in the
#: joined tables of a task whose items have clusters (absent otherwise).
CLUSTER = "cluster"


def join_system(
    task: str,
    system: str,
    items: Sequence[SystemItem],
    prompts: Sequence[str],
    scores: pd.DataFrame | None,
    metrics: Sequence[str],
    provided: Sequence[str] = (),
) -> pd.DataFrame:
    """Join a system's judgments with its metric scores.

    Parameters
    ----------
    task, system : str
        Whose outputs these are (written in every row).
    items : sequence of SystemItem
        The validated lines of the system file.
    prompts : sequence of str
        The task's prompts; every output gets one row per prompt, judged or not.
    scores : pandas.DataFrame or None
        The computed metric scores, a column ``id`` and one column per metric; ``None`` when
        no metric is computed for this system.
    metrics : sequence of str
        Metric columns to write, in order; empty for a system that is not scored (judged
        references).
    provided : sequence of str
        The metrics among ``metrics`` whose scores come with the system file
        (:attr:`debias.io.canonical.SystemItem.scores`) instead of ``scores``.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`JOINED_COLUMNS`, :data:`CLUSTER` when the items have clusters
        (:attr:`debias.io.canonical.SystemItem.cluster`), then the metrics; rows ordered by
        prompt, then file order.
    """
    rows = []
    for prompt in prompts:
        for item in items:
            values = item.judgments.get(prompt) or []
            records = (item.records or {}).get(prompt, [])
            rows.append(
                (
                    task,
                    system,
                    item.id,
                    prompt,
                    item.judged_output or "",
                    len(values),
                    float(np.mean(values)) if values else np.nan,
                    np.asarray(values, dtype=float),
                    json.dumps([int(n) for n in records]) if len(records) > 1 else "",
                )
            )
    frame = pd.DataFrame(rows, columns=JOINED_COLUMNS)
    if items and items[0].cluster is not None:
        _add_clusters(frame, np.tile(np.asarray([item.cluster for item in items], dtype=object), len(prompts)), metrics)
    computed = [m for m in metrics if m not in provided]
    if computed:
        if scores is None:
            raise InputError("metric scores", f"no computed scores given for metrics {computed}")
        indexed = scores.set_index("id")
        missing = [m for m in computed if m not in indexed.columns]
        if missing:
            raise InputError("metric scores", f"missing metric columns {missing}")
        absent = sorted(set(frame["id"]) - set(indexed.index))
        if absent:
            raise InputError("metric scores", f"no scores for {len(absent)} outputs (first: {absent[0]})")
        aligned = indexed.loc[frame["id"], computed].to_numpy(dtype=float)
    by_id = {item.id: item.scores for item in items}
    for metric in metrics:
        if metric in provided:
            frame[metric] = [by_id[item_id][metric] for item_id in frame["id"]]
        else:
            frame[metric] = aligned[:, computed.index(metric)]
    return frame


def _add_clusters(frame: pd.DataFrame, clusters: np.ndarray, metrics: Sequence[str]) -> None:
    """Add the :data:`CLUSTER` column to a joined table (before its metrics); a metric of that
    name would be lost under it, and is refused."""
    if CLUSTER in metrics:
        raise InputError("metric scores", f"a metric named {CLUSTER!r} has the name of the items' cluster column")
    frame[CLUSTER] = clusters


def judgment_texts(judgments: pd.Series) -> pd.Series:
    """The ``judgments`` column as a file holds it: each output's judgments as a JSON list
    (``[3.0, 4.5]``, every float as ``repr`` writes it); a cell that is text already is kept."""
    texts = [
        cell if isinstance(cell, str) else json.dumps([float(v) for v in np.asarray(cell, dtype=float)])
        for cell in judgments.to_numpy(dtype=object)
    ]
    return pd.Series(texts, index=judgments.index, dtype=object)


def write_joined(frame: pd.DataFrame, path: str | os.PathLike) -> None:
    """Write a joined table atomically, numbers at full precision (the judgments as JSON lists)."""
    if "judgments" in frame.columns:
        frame = frame.assign(judgments=judgment_texts(frame["judgments"]))
    write_csv(frame, path, float_format=None)


def read_joined(path: str | os.PathLike) -> pd.DataFrame:
    """Read a joined table written by :func:`write_joined`."""
    return pd.read_csv(
        path,
        dtype={
            "id": str,
            "prompt": str,
            "judged_output": str,
            "judgments": str,
            "judgment_records": str,
            CLUSTER: str,
        },
        keep_default_na=False,
        na_values={"mean_judgment": [""]},
    )


def present_metrics(metrics: Sequence[str], *frames: pd.DataFrame) -> list[str]:
    """The ``metrics`` that are columns of every frame: a task uses its own metrics
    (``tasks.<task>.metrics``), so the tables over every task pass each frame the metrics it has."""
    return [m for m in metrics if all(m in frame.columns for frame in frames)]


def metric_columns(frame: pd.DataFrame) -> list[str]:
    """The metric columns of a joined table, in file order."""
    return [column for column in frame.columns if column not in (*JOINED_COLUMNS, CLUSTER)]


def cluster_column(frame: pd.DataFrame) -> np.ndarray | None:
    """The items' clusters of a joined table's rows (text), or ``None`` when it has none."""
    return frame[CLUSTER].astype(str).to_numpy(dtype=object) if CLUSTER in frame.columns else None


def judged_rows(frame: pd.DataFrame, prompt: str) -> pd.DataFrame:
    """The rows of ``prompt`` with at least one judgment, in file order."""
    return frame[(frame["prompt"] == prompt) & (frame["n_judgments"] > 0)].reset_index(drop=True)


def iter_cells(joined: Sequence[pd.DataFrame], prompts: Mapping[str, Sequence[str]]):
    """Yield ``(task, system, prompt, outputs, judged)`` for every joined table and prompt of its
    task: the prompt's rows (every output) and its judged rows."""
    for frame in joined:
        task, system = str(frame["task"].iloc[0]), str(frame["system"].iloc[0])
        for prompt in prompts[task]:
            yield task, system, prompt, frame[frame["prompt"] == prompt], judged_rows(frame, prompt)


def join_evaluation_table(table, task: str) -> list[pd.DataFrame]:
    """The joined tables (one per system, in order of appearance) of an evaluation table read by
    :func:`debias.io.reader.read_evaluation_table`: the rows :func:`join_system` gives for the
    same outputs and judgments, the score columns named as in the table, and the items' clusters
    (:data:`CLUSTER`) when the table has them."""
    frames = []
    prompts = list(table.prompts)
    none = np.zeros(0)
    none.setflags(write=False)
    clusters = table.output_cluster
    for index, system in enumerate(table.systems):
        outputs = table.outputs_of(index)
        position, prompt, count, _, values = table.judgment_cells(index, texts=False)
        cell = prompt * len(outputs) + position  # rows: prompt-major, then the outputs' order
        n_rows = len(prompts) * len(outputs)
        n = np.zeros(n_rows, dtype=np.int64)
        n[cell] = count
        sums = np.zeros(n_rows)
        if len(count):
            sums[cell] = np.add.reduceat(values, np.r_[0, np.cumsum(count)[:-1]])
        parts = [none] * n_rows  # the judgments of each row, an array each (none: not judged)
        for row, part in zip(cell.tolist(), np.split(values, np.cumsum(count)[:-1]) if len(count) else []):
            parts[row] = part
        judgments = np.empty(n_rows, dtype=object)
        for row, part in enumerate(parts):
            judgments[row] = part
        frame = pd.DataFrame(
            {
                "task": task,
                "system": system,
                "id": np.tile(table.output_item[outputs], len(prompts)),
                "prompt": np.repeat(np.asarray(prompts, dtype=object), len(outputs)),
                "judged_output": "",
                "n_judgments": n,
                "mean_judgment": np.where(n > 0, sums / np.maximum(n, 1), np.nan),
                "judgments": judgments,
                "judgment_records": "",
            },
            columns=JOINED_COLUMNS,
        )
        if clusters is not None:
            _add_clusters(frame, np.tile(clusters[outputs], len(prompts)), table.metrics)
        for j, metric in enumerate(table.metrics):
            frame[metric] = np.tile(table.output_scores[outputs, j], len(prompts))
        frames.append(frame)
    return frames
