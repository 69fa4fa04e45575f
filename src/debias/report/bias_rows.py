"""Report rows for the paper's Section 2 numbers: Table 1's counts and Figure 1b's ρ."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from debias.config.labels import prompt_label, system_label, task_label
from debias.report.rows import DIFFERS, NOT_COMPUTED, OTHER_METRIC, WITHIN, ComparisonRow, scalar_row

__all__ = ["figure1_rows", "table1_rows"]

REASON_TABLE1_OTHER = (
    "Table 1 is computed for {ours} only (config key table1); the paper's {metric} for this task is {missing}"
)
REASON_TABLE1_SUBSTITUTE = (
    "ours scores with {ours}, a substitute: the paper's {metric} needs {missing}; the human side is compared "
    "exactly in the two rows above"
)
REASON_VECSIM_MISSING = "sent2vec embeddings, whose weights are on no package index"
REASON_FIGURE1 = {
    "item_means": "every judged output of the system, shared judgments included (the paper does not say which set)",
    "own_lines": "—",
    "per_judgment": "one point per judgment instead of per output (the paper does not say which)",
    "corrected": "the attenuation-corrected quantity of Figure 5, not a plain correlation",
}


def _missing_metric(entry: Mapping) -> str:
    return REASON_VECSIM_MISSING if entry["metric_label"] == "VecSim" else "not configured for this task"


def _count_row(quantity, where, paper: int, ours: int | None, key, reason_if_differs: str) -> ComparisonRow:
    row = ComparisonRow(quantity, where, f"{paper:,}", key=key)
    if ours is None:
        return row
    row.ours, row.difference = f"{ours:,}", f"{ours - paper:+d}"
    if ours == paper:
        row.agreement, row.reason = WITHIN, "—"
    else:
        row.agreement, row.reason = DIFFERS, reason_if_differs
    return row


def _judgment_rows(entry: Mapping, ours: pd.DataFrame, config: Mapping) -> list[ComparisonRow]:
    """The human side of a panel whose metric cannot be compared: good and bad responses,
    whatever the metric (the paper's counts summed over the metric's two sides)."""
    task, rows = entry["task"], []
    for judgment in ("good", "bad"):
        paper = sum(int(c["count"]) for c in entry["cells"] if c["judgment"] == judgment)
        count = int(ours.loc[ours["judgment"] == judgment, "count"].sum())
        quantity = f"Table 1 count, {task_label(config, task)}: {judgment} by humans, any {entry['metric_label']}"
        key = ("table1", task, judgment, "any")
        rows.append(_count_row(quantity, entry["where"], paper, count, key, "the judgment rule or the records differ"))
    return rows


def table1_rows(table1: pd.DataFrame | None, paper_values: Mapping, config: Mapping) -> list[ComparisonRow]:
    """One row per Table 1 cell the paper prints: our count (exact agreement needed).

    A panel computed with the paper's implementation (``implementation`` of the paper entry,
    or any when the entry names none) is compared cell by cell. A panel split by the judgment
    alone, or scored by another implementation (a substitute), is compared on its human side
    (good and bad responses) and its cells are "not computed" or "different metric".
    """
    rows = []
    for entry in paper_values.get("table1") or []:
        task, prompt = entry["task"], entry["prompt"]
        ours = None
        if table1 is not None and not table1.empty:
            ours = table1[(table1["task"] == task) & (table1["prompt"] == prompt)]
            ours = None if ours.empty else ours
        scored = ours is not None and bool((ours["metric_side"].fillna("") != "").any())
        implementation = str(ours["metric"].fillna("").iloc[0]) if ours is not None else ""
        substitute = scored and entry.get("implementation") not in (None, implementation)
        if ours is not None and (substitute or not scored):
            rows += _judgment_rows(entry, ours, config)
        for cell in entry["cells"]:
            side = f"{entry['metric_label']} {cell['metric_side']}"
            quantity = f"Table 1 count, {task_label(config, task)}: {cell['judgment']} by humans, {side}"
            key = ("table1", task, cell["judgment"], cell["metric_side"])
            match = None
            if scored:
                match = ours[(ours["judgment"] == cell["judgment"]) & (ours["metric_side"] == cell["metric_side"])]
            if match is None or match.empty:
                row = ComparisonRow(quantity, entry["where"], f"{cell['count']:,}", key=key)
                computed = "none" if table1 is None or table1.empty else ", ".join(sorted(set(table1["task"])))
                if ours is not None:
                    computed = f"{task} by the judgment alone"
                row.reason = REASON_TABLE1_OTHER.format(
                    ours=computed, metric=entry["metric_label"], missing=_missing_metric(entry)
                )
                rows.append(row)
                continue
            count = int(match["count"].iloc[0])
            reason = f"metric implementation {implementation} or the judgment rule differs"
            row = _count_row(quantity, entry["where"], int(cell["count"]), count, key, reason)
            if substitute:
                row.agreement = OTHER_METRIC
                row.reason = REASON_TABLE1_SUBSTITUTE.format(
                    ours=implementation, metric=entry["metric_label"], missing=_missing_metric(entry)
                )
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
                scalar_row(quantity, entry["where"], float(entry["rho"]), record["rho"], tol, reason, key, digits)
            )
    return rows
