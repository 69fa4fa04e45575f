"""The joined table of one system: every output × prompt with its judgments and metric scores.

The ``join`` rule writes it once per task and judged system (``results/joined/<task>/<system>.csv``)
and every later step reads it instead of the raw system file. One row per output and prompt:

========================  ==========================================================================
``task``, ``system``      whose output it is
``id``                    item id (a string)
``prompt``                the prompt the judgments answer
``judged_output``         the shared judgment this line names (see :class:`debias.io.SystemItem`), or empty
``n_judgments``           number of judgments of this output on this prompt (0: not judged)
``mean_judgment``         their mean (empty when not judged)
``judgments``             the judgments themselves, space-separated, full precision
``judgment_records``      when they came from several crowd records, how many from each, space-separated
                          (see :class:`debias.io.SystemItem`); empty for one record
one column per metric     the metric's score of the output (absent for unscored systems: references)
========================  ==========================================================================

Numbers are written at full precision, so every step sees exactly the values the join saw.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from debias.io import InputError, SystemItem, write_csv
from debias.stats.correlation import correlation

__all__ = [
    "JOINED_COLUMNS",
    "correlation_table",
    "join_system",
    "judged_rows",
    "judgment_matrix",
    "metric_columns",
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
        (:attr:`debias.io.SystemItem.scores`) instead of ``scores``.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`JOINED_COLUMNS` then the metrics, rows ordered by prompt, then file order.
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
                    " ".join(repr(float(v)) for v in values),
                    " ".join(str(n) for n in records) if len(records) > 1 else "",
                )
            )
    frame = pd.DataFrame(rows, columns=JOINED_COLUMNS)
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


def write_joined(frame: pd.DataFrame, path: str | os.PathLike) -> None:
    """Write a joined table atomically, numbers at full precision."""
    write_csv(frame, path, float_format=None)


def read_joined(path: str | os.PathLike) -> pd.DataFrame:
    """Read a joined table written by :func:`write_joined`."""
    return pd.read_csv(
        path,
        dtype={"id": str, "prompt": str, "judged_output": str, "judgments": str, "judgment_records": str},
        keep_default_na=False,
        na_values={"mean_judgment": [""]},
    )


def metric_columns(frame: pd.DataFrame) -> list[str]:
    """The metric columns of a joined table, in file order."""
    return [column for column in frame.columns if column not in JOINED_COLUMNS]


def judged_rows(frame: pd.DataFrame, prompt: str) -> pd.DataFrame:
    """The rows of ``prompt`` with at least one judgment, in file order."""
    return frame[(frame["prompt"] == prompt) & (frame["n_judgments"] > 0)].reset_index(drop=True)


def judgment_matrix(rows: pd.DataFrame) -> np.ndarray:
    """The judgments of ``rows`` as an (N, K) array, each row's k_i values first, NaN after."""
    values = [np.array(text.split(), dtype=float) for text in rows["judgments"]]
    width = max((len(v) for v in values), default=1)
    matrix = np.full((len(values), max(width, 1)), np.nan)
    for row, judged in enumerate(values):
        matrix[row, : len(judged)] = judged
    return matrix


def correlation_table(
    joined: Sequence[pd.DataFrame], prompts: Mapping[str, Sequence[str]], metrics: Sequence[str]
) -> pd.DataFrame:
    """Pearson ρ of the item mean judgment with each metric over judged items, and beside it
    the paper's attenuation-corrected quantity Cov(ȳ, g) / (σ_f · sd(g))
    (:func:`debias.stats.correlation.attenuation_corrected_correlation`; NaN when no output
    was judged twice).

    ``joined`` holds one joined table per scored system; ``prompts`` maps task to its prompts.
    One row per task × prompt × system × metric, in the order of ``joined``, then every task's
    systems pooled (``system == "combined"``). Columns ``task, prompt, system, metric, rho,
    rho_corrected, n_items``.
    """
    from debias.config import COMBINED

    rows, pools = [], {}
    for frame in joined:
        task, system = frame["task"].iloc[0], frame["system"].iloc[0]
        for prompt in prompts[task]:
            judged = judged_rows(frame, prompt)
            pools.setdefault((task, prompt), []).append(judged)
            rows += _correlations(task, prompt, system, judged, metrics)
    for (task, prompt), tables in pools.items():
        rows += _correlations(task, prompt, COMBINED, pd.concat(tables, ignore_index=True), metrics)
    return pd.DataFrame(rows, columns=["task", "prompt", "system", "metric", "rho", "rho_corrected", "n_items"])


def _corrected(matrix: np.ndarray, g: np.ndarray) -> float:
    from debias.stats.correlation import attenuation_corrected_correlation

    if len(g) < 2 or not np.any(np.sum(~np.isnan(matrix), axis=1) >= 2):
        return np.nan  # no output judged twice: the annotator variance is not identified
    return attenuation_corrected_correlation(matrix, g)


def _correlations(task: str, prompt: str, system: str, judged: pd.DataFrame, metrics: Sequence[str]) -> list[dict]:
    means = judged["mean_judgment"].to_numpy(dtype=float)
    matrix = judgment_matrix(judged) if len(judged) else np.empty((0, 0))
    return [
        {
            "task": task,
            "prompt": prompt,
            "system": system,
            "metric": metric,
            "rho": correlation(means, judged[metric].to_numpy(dtype=float)) if len(judged) > 1 else np.nan,
            "rho_corrected": _corrected(matrix, judged[metric].to_numpy(dtype=float)),
            "n_items": len(judged),
        }
        for metric in metrics
    ]
