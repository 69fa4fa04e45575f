"""The paper-vs-reproduction rows: one :class:`ComparisonRow` per number the paper states, our
value read from the pipeline's tables and the paper's from ``reported_values.yaml``."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from debias.config.labels import metric_label, prompt_label, system_label, task_label
from debias.report.bias_rows import figure1_rows, table1_rows
from debias.report.rows import (
    DIFFERS,
    NOT_CHECKABLE,
    NOT_COMPARABLE,
    NOT_COMPUTED,
    OTHER_METRIC,
    REASON_RANGE,
    WITHIN,
    ComparisonRow,
    PaperPanel,
    metric_reason,
    paper_metric,
    scalar_row,
    signed,
    tolerance,
)
from debias.report.summary import BEST, de_ranges, lookup, lookup_de, panel_choice
from debias.report.table2_rows import gamma_ratio_rows, not_checkable_rows, system_mean_rows, table2_rows

__all__ = [
    "DIFFERS",
    "NOT_COMPARABLE",
    "NOT_COMPUTED",
    "NOT_CHECKABLE",
    "OTHER_METRIC",
    "WITHIN",
    "ComparisonRow",
    "PaperPanel",
    "comparison_rows",
    "paper_panels",
    "tolerance",
]


def paper_panels(
    paper_values: Mapping, config: Mapping, best_metrics: pd.DataFrame, data_efficiency: pd.DataFrame
) -> list[PaperPanel]:
    """Each Figure 6 number of the paper, resolved against the configured metrics and panels.

    A number is compared when its metric is computable and configured. Otherwise, when another
    number of the same panel is compared, it is not comparable; else it is compared with the
    paper's system and prompt under the metric the configured panel of that letter uses
    (``best`` when there is no such panel), read from ``best_metrics``.
    """
    panels = ((config.get("figures") or {}).get("figure6")) or {}
    entries = paper_values.get("figure6") or []

    def computable(entry) -> bool:
        return entry.get("available", True) is not False and paper_metric(entry, config) is not None

    def de(entry, metric) -> float | None:
        if metric is None:
            return None
        return lookup_de(data_efficiency, entry["task"], entry["prompt"], entry["system"], metric, "cv")

    out = []
    for entry in entries:
        if computable(entry):
            metric = paper_metric(entry, config)
            out.append(PaperPanel(entry, "compared", metric, False, de(entry, metric)))
        elif any(other is not entry and other["panel"] == entry["panel"] and computable(other) for other in entries):
            out.append(PaperPanel(entry, "not comparable"))
        else:
            spec = {"metric": "best", **panels.get(entry["panel"], {})}
            spec.update(task=entry["task"], prompt=entry["prompt"], system=entry["system"])
            metric, chosen = panel_choice(spec, best_metrics)
            out.append(PaperPanel(entry, "substituted", metric, chosen, de(entry, metric)))
    return out


def _figure6_rows(data_efficiency, paper_values, config, best_metrics, tol, digits) -> list[ComparisonRow]:
    boot = config.get("bootstrap") or {}
    boot_text = f"bootstrap draws differ ({boot.get('replicates', '?')} replicates, seed {boot.get('seed', '?')})"
    rows = []
    for panel in paper_panels(paper_values, config, best_metrics, data_efficiency):
        entry = panel.entry
        task, prompt, system = entry["task"], entry["prompt"], entry["system"]
        quantity = (
            f"DE, Figure 6{entry['panel']} ({system_label(config, task, system)}, "
            f"{task_label(config, task)} {prompt_label(config, task, prompt)}, {entry['metric_label']})"
        )
        key = ("figure6", entry["panel"], entry["metric"])
        paper = float(entry["de"])
        if panel.status == "compared":
            ours = panel.de
            reason = f"{metric_reason(config, panel.metric, entry.get('implementation'))}; {boot_text}."
            rows.append(scalar_row(quantity, entry["where"], paper, ours, tol, reason, key, digits))
            continue
        row = ComparisonRow(quantity, entry["where"], f"{paper:.{digits}f}", key=key)
        if panel.status == "not comparable":
            row.agreement = NOT_COMPARABLE
            row.reason = f"{panel.missing_reason}."
        else:
            metric, ours = panel.metric, panel.de
            if ours is None:
                row.reason = f"{panel.missing_reason}; no substitute DE in the input tables."
            else:
                how = BEST if panel.chosen_as_best else "configured"
                row.ours = f"{ours:.3f} ({metric_label(config, metric)})"
                row.difference = signed(ours - paper)
                row.agreement = OTHER_METRIC
                row.reason = f"{panel.missing_reason}; ours uses {metric_label(config, metric)} ({how}); {boot_text}."
        rows.append(row)
    return rows


def _range_rows(data_efficiency, paper_values, config, best_metrics, tol, digits) -> list[ComparisonRow]:
    ranges = de_ranges(data_efficiency, best_metrics, config)
    rows = []
    for entry in paper_values.get("de_ranges") or []:
        condition = entry["condition"]
        low, high = float(entry["low"]), float(entry["high"])
        for scope, scope_text in (("panels", "our Figure 6 panels"), ("grid", "every system × prompt, best metric")):
            result = ranges[scope][condition]
            quantity = f"DE range, {entry['description']} — over {scope_text}"
            if scope == "grid" and result.cells:
                quantity += f" ({result.cells} cells)"
            row = ComparisonRow(
                quantity, entry["where"], f"{low:.{digits}f}–{high:.{digits}f}", key=("de_range", condition, scope)
            )
            if result.low is None:
                row.reason = "No matching rows in the input tables."
            else:
                row.ours = f"{result.low:.3f}–{result.high:.3f}"
                row.difference = f"low {signed(result.low - low)}, high {signed(result.high - high)}"
                if abs(result.low - low) <= tol and abs(result.high - high) <= tol:
                    row.agreement, row.reason = WITHIN, "—"
                else:
                    extra = "" if condition == "perfect" else "; metric implementations differ"
                    row.agreement = DIFFERS
                    row.reason = f"{REASON_RANGE}{extra}. Ours spans {result.low_cell} to {result.high_cell}."
            rows.append(row)
    return rows


def _correlation_rows(correlations, paper_values, config, tol, digits) -> list[ComparisonRow]:
    rows = []
    for entry in paper_values.get("correlations") or []:
        task, prompt, system, metric = entry["task"], entry["prompt"], entry["system"], entry["metric"]
        ours = lookup(correlations, "rho", task=task, prompt=prompt, system=system, metric=metric)
        quantity = (
            f"ρ, {metric_label(config, metric)} vs {prompt_label(config, task, prompt)} "
            f"({system_label(config, task, system)}, {task_label(config, task)}, instance level)"
        )
        reason = f"{metric_reason(config, metric)}."
        key = ("correlation", entry["id"])
        rows.append(scalar_row(quantity, entry["where"], float(entry["rho"]), ours, tol, reason, key, digits))
    return rows


def comparison_rows(
    table2: pd.DataFrame,
    correlations: pd.DataFrame,
    best_metrics: pd.DataFrame,
    data_efficiency: pd.DataFrame,
    paper_values: Mapping,
    config: Mapping,
    table1: pd.DataFrame | None = None,
    figure1: pd.DataFrame | None = None,
    by_system: pd.DataFrame | None = None,
) -> list[ComparisonRow]:
    """One row per number the paper states: Table 2, the Figure 6 data efficiencies, the
    data-efficiency ranges (over our panels and over every cell), the correlations, Table 1's
    counts and Figure 1b's ρ by each definition (``table1``, ``figure1``: the pipeline's
    ``table1.csv`` and ``figure1.csv``, None when not configured), the systems' mean judgments
    (``by_system``: ``variance_by_system.csv``), each section in the order of ``paper_values``."""
    tol = tolerance(paper_values)
    digits = int(paper_values.get("decimals", 2))
    return (
        table2_rows(table2, paper_values, config, tol, digits)
        + _figure6_rows(data_efficiency, paper_values, config, best_metrics, tol, digits)
        + _range_rows(data_efficiency, paper_values, config, best_metrics, tol, digits)
        + _correlation_rows(correlations, paper_values, config, tol, digits)
        + gamma_ratio_rows(table2, paper_values, config)
        + system_mean_rows(by_system, paper_values, config)
        + table1_rows(table1, paper_values, config)
        + figure1_rows(figure1, paper_values, config, tol, digits)
        + not_checkable_rows(paper_values)
    )
