"""Report rows for the paper's Section 2 numbers: Table 1's counts and Figure 1b's ρ."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from ..config import prompt_label, system_label, task_label
from .comparison import DIFFERS, NOT_COMPUTED, WITHIN, ComparisonRow, _scalar_row

__all__ = ["figure1_rows", "table1_rows"]

REASON_TABLE1_OTHER = (
    "Table 1 is computed for {ours} only (config key table1); the paper's {metric} for this task is {missing}"
)
REASON_FIGURE1 = {
    "item_means": "every judged output of the system, shared judgments included (the paper does not say which set)",
    "own_lines": "—",
    "per_judgment": "one point per judgment instead of per output (the paper does not say which)",
    "corrected": "the attenuation-corrected quantity of Figure 5, not a plain correlation",
}


def table1_rows(table1: pd.DataFrame | None, paper_values: Mapping, config: Mapping) -> list[ComparisonRow]:
    """One row per Table 1 cell the paper prints: our count (exact agreement needed)."""
    rows = []
    for entry in paper_values.get("table1") or []:
        task, prompt = entry["task"], entry["prompt"]
        ours = None
        if table1 is not None and not table1.empty:
            ours = table1[(table1["task"] == task) & (table1["prompt"] == prompt)]
        for cell in entry["cells"]:
            side = f"{entry['metric_label']} {cell['metric_side']}"
            quantity = f"Table 1 count, {task_label(config, task)}: {cell['judgment']} by humans, {side}"
            key = ("table1", task, cell["judgment"], cell["metric_side"])
            row = ComparisonRow(quantity, entry["where"], f"{cell['count']:,}", key=key)
            match = None if ours is None else ours[(ours["judgment"] == cell["judgment"])]
            match = None if match is None else match[match["metric_side"] == cell["metric_side"]]
            if match is None or match.empty:
                computed = "none" if table1 is None or table1.empty else ", ".join(sorted(set(table1["task"])))
                row.reason = REASON_TABLE1_OTHER.format(
                    ours=computed,
                    metric=entry["metric_label"],
                    missing="sent2vec embeddings, whose weights are on no package index"
                    if entry["metric_label"] == "VecSim"
                    else "not configured for this task",
                )
                rows.append(row)
                continue
            count = int(match["count"].iloc[0])
            row.ours, row.difference = f"{count:,}", f"{count - int(cell['count']):+d}"
            if count == int(cell["count"]):
                row.agreement, row.reason = WITHIN, "—"
            else:
                row.agreement = DIFFERS
                row.reason = f"metric implementation {match['metric'].iloc[0]} or the judgment rule differs"
            rows.append(row)
    return rows


def figure1_rows(
    figure1: pd.DataFrame | None, paper_values: Mapping, config: Mapping, tol: float, digits: int
) -> list[ComparisonRow]:
    """Figure 1b's ρ by every definition the pipeline computes (the paper does not say which)."""
    rows = []
    entries = [e for e in paper_values.get("correlations") or [] if e["id"] == "figure1b"]
    for entry in entries:
        task, prompt, system = entry["task"], entry["prompt"], entry["system"]
        found = pd.DataFrame() if figure1 is None else figure1
        if not found.empty:
            found = found[(found["panel"] == "b") & (found["task"] == task) & (found["system"] == system)]
        if found.empty:
            row = ComparisonRow(f"ρ, Figure 1b ({system})", entry["where"], f"{float(entry['rho']):.{digits}f}")
            row.agreement = NOT_COMPUTED
            row.reason = f"Figure 1 is not configured for {system} (figures.figure1)."
            rows.append(row)
            continue
        for record in found.to_dict("records"):
            quantity = (
                f"ρ, Figure 1b: {record['metric']} vs {prompt_label(config, task, prompt)} "
                f"({system_label(config, task, system)}, {task_label(config, task)}; {record['definition']}: "
                f"{record['description']})"
            )
            reason = f"Definition: {REASON_FIGURE1.get(record['definition'], 'another definition')}."
            key = ("figure1b", record["definition"])
            rows.append(
                _scalar_row(quantity, entry["where"], float(entry["rho"]), record["rho"], tol, reason, key, digits)
            )
    return rows
