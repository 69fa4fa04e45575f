"""Joining metric scores with human judgments, and the instance-level correlations of Figure 5."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .control_variates import correlation as pearson
from .io import InputError, SystemItem
from .variance import judgment_matrix


def scores_for(ids: Sequence[str], scores: pd.DataFrame, metrics: Sequence[str], where: str = "scores") -> np.ndarray:
    """Metric scores aligned to ``ids`` as an (M, N) array; a missing id or metric is an error."""
    indexed = scores.set_index("id")
    missing_metrics = [m for m in metrics if m not in indexed.columns]
    if missing_metrics:
        raise InputError(where, f"missing metric columns {missing_metrics}")
    missing_ids = [i for i in ids if i not in indexed.index]
    if missing_ids:
        raise InputError(where, f"no scores for {len(missing_ids)} judged items (first: {missing_ids[0]})")
    return indexed.loc[list(ids), list(metrics)].to_numpy(dtype=float).T.copy()


def item_table(items: Sequence[SystemItem], scores: pd.DataFrame, prompt: str, metrics: Sequence[str]) -> pd.DataFrame:
    """One row per item judged on ``prompt``: its mean judgment, judgment count and metric scores."""
    ids, matrix = judgment_matrix(items, prompt)
    table = pd.DataFrame(
        {
            "id": ids,
            "mean_judgment": np.nanmean(matrix, axis=1) if len(ids) else np.array([]),
            "n_judgments": np.sum(~np.isnan(matrix), axis=1) if len(ids) else np.array([], int),
        }
    )
    values = scores_for(ids, scores, metrics)
    for row, metric in enumerate(metrics):
        table[metric] = values[row]
    return table


def correlation_table(
    joined: Mapping[tuple[str, str, str], pd.DataFrame], metrics: Sequence[str], combined_name: str = "combined"
) -> pd.DataFrame:
    """Correlation of item mean judgment with each metric, per (task, prompt, system) and with
    every system of a task pooled (``system == combined_name``)."""
    rows = []
    pools: dict[tuple[str, str], list[pd.DataFrame]] = {}
    for (task, prompt, system), table in joined.items():
        pools.setdefault((task, prompt), []).append(table)
        for metric in metrics:
            rows.append(
                {
                    "task": task,
                    "prompt": prompt,
                    "system": system,
                    "metric": metric,
                    "rho": pearson(table["mean_judgment"], table[metric]),
                    "n_items": len(table),
                }
            )
    for (task, prompt), tables in pools.items():
        pooled = pd.concat(tables, ignore_index=True)
        for metric in metrics:
            rows.append(
                {
                    "task": task,
                    "prompt": prompt,
                    "system": combined_name,
                    "metric": metric,
                    "rho": pearson(pooled["mean_judgment"], pooled[metric]),
                    "n_items": len(pooled),
                }
            )
    return pd.DataFrame(rows, columns=["task", "prompt", "system", "metric", "rho", "n_items"])
