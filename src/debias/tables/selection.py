"""Choices made once from the computed tables and written down, so that every figure and the
report use the same one: the best metric of each task × prompt × system, the metric of each
configured Figure 6 panel, and the best control variate of each system's estimates."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from debias.stats.common.vocabulary import is_control_variate, is_people_only
from debias.stats.ratings import best_metric

__all__ = [
    "BEST_METRIC_COLUMNS",
    "BEST_WIDTH_TOLERANCE",
    "NO_METRIC_HELPS",
    "best_control_variate",
    "best_metrics",
    "best_paired_control_variate",
    "panel_metric",
]

BEST_METRIC_COLUMNS = ["task", "prompt", "system", "metric", "rho"]

#: Relative width difference below which two intervals count as equally wide in
#: :func:`best_control_variate`. An interval 1% narrower is worth under 2% more judged items;
#: smaller differences are what rounding, the cross-fitted coefficient's folds and the
#: coverage experiment's Monte-Carlo noise (DE s.e. of several per cent at 2000 repeats) move.
BEST_WIDTH_TOLERANCE = 0.01

#: What the report and the system-scores figure say when :func:`best_control_variate` finds none.
NO_METRIC_HELPS = "no metric helps"


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


def best_control_variate(cell: pd.DataFrame, tolerance: float = BEST_WIDTH_TOLERANCE) -> str | None:
    """The control variate a report or figure calls best for one system × prompt, or ``None``
    when no metric helps (the one home of this choice).

    Parameters
    ----------
    cell : pandas.DataFrame
        One task × prompt × system's rows of ``system_estimates.csv`` (columns ``estimator``,
        ``ci_low``, ``ci_high``), in the table's order (``mean``, ``cv:<metric>`` in
        configuration order, ``cv:combined``, ...).
    tolerance : float
        :data:`BEST_WIDTH_TOLERANCE`.

    Returns
    -------
    str or None
        Let :math:`w_0` be the width of ``mean`` and :math:`w_*` the narrowest ``cv:*`` width.
        ``None`` unless :math:`w_* < (1 - \\text{tolerance})\\,w_0` (with every output judged all
        widths are the mean's: no metric helps); else the first ``cv:*`` row, in table order,
        whose width is at most :math:`(1 + \\text{tolerance})\\,w_*`, so that a difference below
        the tolerance never decides, and a single metric goes before ``cv:combined``.
    """
    width = cell["ci_high"] - cell["ci_low"]
    mean = width[cell["estimator"].map(is_people_only)]
    candidates = width[cell["estimator"].map(is_control_variate) & width.notna()]
    if mean.empty or candidates.empty or not np.isfinite(mean.iloc[0]):
        return None
    narrowest = float(candidates.min())
    if not narrowest < (1.0 - tolerance) * float(mean.iloc[0]):
        return None
    return str(cell.loc[candidates[candidates <= (1.0 + tolerance) * narrowest].index[0], "estimator"])


def best_paired_control_variate(pair: pd.DataFrame, tolerance: float = BEST_WIDTH_TOLERANCE) -> str | None:
    """The control variate a report or figure calls best for one pair of systems, or ``None``
    when no metric helps: :func:`best_control_variate`'s rule on ``de_vs_independent`` (the
    saving over independent samples, larger is better) instead of the width.

    The ``cv:*`` row with the largest saving, only when it exceeds the paired ``mean``'s by
    more than the factor 1 + ``tolerance``; rows within that factor of the largest count as
    equal and the first in table order wins.
    """
    saving = pair["de_vs_independent"]
    mean = saving[pair["estimator"].map(is_people_only)]
    candidates = saving[pair["estimator"].map(is_control_variate) & saving.notna()]
    if candidates.empty:
        return None
    largest = float(candidates.max())
    if not mean.empty and np.isfinite(mean.iloc[0]) and not largest > (1.0 + tolerance) * float(mean.iloc[0]):
        return None
    return str(pair.loc[candidates[candidates * (1.0 + tolerance) >= largest].index[0], "estimator"])
