"""What the report summarises from the pipeline's tables: the configured Figure 6 panels with
their metrics and data efficiencies, and the ranges of data efficiency over sets of cells.

Every metric choice is read from the best-metrics table (:func:`debias.tables.selection.best_metrics`);
nothing here chooses one. A value the tables do not hold is ``None``, never an error.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from debias.config.labels import metric_label, prompt_label, system_label
from debias.tables.selection import panel_metric

__all__ = [
    "BEST",
    "COMPARED_CONDITIONS",
    "RangeResult",
    "configured_panels",
    "de_ranges",
    "lookup",
    "lookup_de",
    "panel_choice",
    "panel_summary",
]

#: Conditions compared with humans alone, in the order the report lists them.
COMPARED_CONDITIONS = ("cv", "noiseless", "perfect")

#: How the report describes a metric chosen as the best one (rather than configured).
BEST = "highest |ρ|"


def lookup(frame: pd.DataFrame, column: str, **where) -> float | None:
    """The value of ``column`` in the first row of ``frame`` matching ``where``; ``None`` when
    a column or a matching row is missing, or the value is NaN."""
    if column not in frame.columns:
        return None
    mask = pd.Series(True, index=frame.index)
    for key, value in where.items():
        if key not in frame.columns:
            return None
        mask &= frame[key] == value
    rows = frame.loc[mask, column]
    if rows.empty:
        return None
    value = float(rows.iloc[0])
    return None if math.isnan(value) else value


def lookup_de(data_efficiency, task, prompt, system, metric, condition) -> float | None:
    """Measured data efficiency of one cell and condition, or ``None``."""
    return lookup(data_efficiency, "de", task=task, prompt=prompt, system=system, metric=metric, condition=condition)


def panel_choice(panel: Mapping, best_metrics: pd.DataFrame) -> tuple[str | None, bool]:
    """:func:`debias.tables.selection.panel_metric`, with ``(None, True)`` when ``metric: best`` has no
    row in ``best_metrics``."""
    try:
        return panel_metric(panel, best_metrics)
    except LookupError:
        return None, str(panel.get("metric", "best")) == "best"


def configured_panels(config: Mapping, best_metrics: pd.DataFrame) -> list[dict]:
    """The configured Figure 6 panels, resolved: ``name, task, prompt, system, metric,
    chosen_as_best`` (``metric`` is ``None`` when it cannot be resolved)."""
    panels = ((config.get("figures") or {}).get("figure6")) or {}
    out = []
    for name, spec in panels.items():
        metric, chosen = panel_choice(spec, best_metrics)
        out.append({**spec, "name": str(name), "metric": metric, "chosen_as_best": chosen})
    return out


@dataclass
class RangeResult:
    """Lowest and highest data efficiency over a set of cells, and where they occur."""

    low: float | None
    high: float | None
    low_cell: str = ""
    high_cell: str = ""
    cells: int = 0


def _range(values: list[tuple[float | None, str]]) -> RangeResult:
    values = [(v, cell) for v, cell in values if v is not None and not math.isnan(v)]
    if not values:
        return RangeResult(None, None)
    low = min(values, key=lambda item: item[0])
    high = max(values, key=lambda item: item[0])
    return RangeResult(low[0], high[0], low[1], high[1], len(values))


def _cell_name(config, task, prompt, system, metric=None) -> str:
    text = f"{system_label(config, task, system)}/{prompt_label(config, task, prompt)}"
    return text if metric is None else f"{text}/{metric_label(config, metric)}"


def _best_metric(best_metrics: pd.DataFrame, task, prompt, system) -> str | None:
    if not {"task", "prompt", "system", "metric"} <= set(best_metrics.columns):
        return None
    rows = best_metrics[
        (best_metrics["task"] == task) & (best_metrics["prompt"] == prompt) & (best_metrics["system"] == system)
    ]
    return None if rows.empty else str(rows["metric"].iloc[0])


def de_ranges(
    data_efficiency: pd.DataFrame, best_metrics: pd.DataFrame, config: Mapping
) -> dict[str, dict[str, RangeResult]]:
    """Data-efficiency ranges per condition (``cv``, ``noiseless``, ``perfect``) over two sets
    of cells.

    ``"panels"``: the configured Figure 6 panels, each with its own metric.
    ``"grid"``: every system × prompt of every configured task, each with its best metric
    (from ``best_metrics``); the perfect condition needs no metric.
    """
    panel_cells = [(p["task"], p["prompt"], p["system"], p["metric"]) for p in configured_panels(config, best_metrics)]
    grid_cells = [
        (task, prompt, system, _best_metric(best_metrics, task, prompt, system))
        for task, spec in (config.get("tasks") or {}).items()
        for prompt in spec.get("prompts") or {}
        for system in spec.get("systems") or {}
    ]
    out: dict[str, dict[str, RangeResult]] = {"panels": {}, "grid": {}}
    for scope, cells in (("panels", panel_cells), ("grid", grid_cells)):
        for condition in COMPARED_CONDITIONS:
            values = []
            for task, prompt, system, metric in cells:
                if condition == "perfect":
                    value = lookup_de(data_efficiency, task, prompt, system, "perfect", "perfect")
                    values.append((value, _cell_name(config, task, prompt, system)))
                elif metric is not None:
                    value = lookup_de(data_efficiency, task, prompt, system, metric, condition)
                    values.append((value, _cell_name(config, task, prompt, system, metric)))
            out[scope][condition] = _range(values)
    return out


def panel_summary(
    data_efficiency: pd.DataFrame, correlations: pd.DataFrame, best_metrics: pd.DataFrame, config: Mapping
) -> list[dict]:
    """Per configured Figure 6 panel: its resolved metric and whether it is the best one, ρ,
    the resampled world's γ and the data efficiencies (measured and eq. 7) of each condition."""
    out = []
    for panel in configured_panels(config, best_metrics):
        task, prompt, system, metric = panel["task"], panel["prompt"], panel["system"], panel["metric"]
        record = dict(panel)
        if metric is not None:
            record["rho"] = lookup(correlations, "rho", task=task, prompt=prompt, system=system, metric=metric)
            cell = {"task": task, "prompt": prompt, "system": system, "metric": metric, "condition": "cv"}
            for column in ("de", "de_theory", "gamma_resampling"):
                record[f"cv_{column}"] = lookup(data_efficiency, column, **cell)
            record["noiseless_de"] = lookup_de(data_efficiency, task, prompt, system, metric, "noiseless")
        record["perfect_de"] = lookup_de(data_efficiency, task, prompt, system, "perfect", "perfect")
        out.append(record)
    return out
