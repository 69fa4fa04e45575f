"""Choices made once from the computed tables and written down, so that every figure and the
report use the same one: the best metric of each task × prompt × system, and the metric of each
configured Figure 6 panel."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from debias.stats.correlation import best_metric

__all__ = ["BEST_METRIC_COLUMNS", "best_metrics", "panel_metric"]

BEST_METRIC_COLUMNS = ["task", "prompt", "system", "metric", "rho"]


def best_metrics(correlations: pd.DataFrame, metrics: Sequence[str]) -> pd.DataFrame:
    """The metric with the highest |ρ| for every task × prompt × system of ``correlations``.

    Parameters
    ----------
    correlations : pandas.DataFrame
        Columns ``task, prompt, system, metric, rho`` (``system`` may be ``combined``).
    metrics : sequence of str
        The candidates, in configuration order; a tie goes to the one listed first.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`BEST_METRIC_COLUMNS`, one row per task × prompt × system that has a
        finite ρ for some candidate, in the order the groups first appear in ``correlations``.
    """
    rank = {name: i for i, name in enumerate(metrics)}
    rows = []
    candidates = correlations[correlations["metric"].isin(rank)].dropna(subset=["rho"])
    for (task, prompt, system), group in candidates.groupby(["task", "prompt", "system"], sort=False):
        group = group.sort_values("metric", key=lambda names: names.map(rank), kind="mergesort")
        best = group.iloc[best_metric(group["rho"].to_numpy())]
        rows.append({"task": task, "prompt": prompt, "system": system, "metric": best["metric"], "rho": best["rho"]})
    return pd.DataFrame(rows, columns=BEST_METRIC_COLUMNS)


def panel_metric(panel: Mapping, best: pd.DataFrame) -> tuple[str, bool]:
    """The metric a Figure 6 panel draws, and whether it is the best one rather than configured.

    ``panel`` is a ``figures.figure6.<panel>`` entry (``task, prompt, system, metric``);
    ``metric: best`` is looked up in ``best`` (the table :func:`best_metrics` writes).
    Raises ``LookupError`` when that table has no row for the panel.
    """
    if panel["metric"] != "best":
        return str(panel["metric"]), False
    rows = best[
        (best["task"] == panel["task"]) & (best["prompt"] == panel["prompt"]) & (best["system"] == panel["system"])
    ]
    if rows.empty:
        raise LookupError(f"no best metric for {panel['task']}/{panel['prompt']}/{panel['system']}")
    return str(rows["metric"].iloc[0]), True
