"""The sections a report leads with when no configured task is one of the paper's: what was
evaluated, and which metric saves how many judgments. The estimates, comparisons and plans
follow (:mod:`debias.report.estimates`, :mod:`debias.report.planning`)."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from debias.config import metric_label, prompt_label, system_label, task_label
from debias.report.context import ReportContext, fmt, table_lines

__all__ = ["efficiency_section", "own_intro_section", "paper_tasks"]


def paper_tasks(paper_values: Mapping, config: Mapping) -> set[str]:
    """The configured tasks the paper states numbers about."""
    named = set()

    def walk(node):
        if isinstance(node, Mapping):
            if isinstance(node.get("task"), str):
                named.add(node["task"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(paper_values)
    return named & set(config.get("tasks") or {})


def own_intro_section(ctx: ReportContext) -> list[str]:
    config = ctx.config
    lines = ["# Evaluation report", ""]
    for task, spec in (config.get("tasks") or {}).items():
        systems = ", ".join(system_label(config, task, s) for s in spec.get("systems") or {})
        prompts = ", ".join(prompt_label(config, task, p) for p in spec.get("prompts") or {})
        lines.append(f"**{task_label(config, task)}**: systems {systems}; prompts {prompts}.")
        lines.append("")
    lines.append(
        "No configured task is one of the paper's, so the comparison with the paper's numbers is left "
        "out: the sections below are about these systems. Numbers come from the workflow's tables, "
        "linked at the end."
    )
    return lines


def efficiency_section(ctx: ReportContext) -> list[str]:
    """Per task, prompt and system: the metric whose control variate saves the most judgments."""
    frame = ctx.data_efficiency
    if frame is None or frame.empty or "condition" not in frame.columns:
        return []
    cv = frame[frame["condition"] == "cv"]
    if cv.empty:
        return []
    config, rows = ctx.config, []
    for (task, prompt, system), group in cv.groupby(["task", "prompt", "system"], sort=False):
        finite = group.dropna(subset=["de"])
        if finite.empty:
            rows.append(
                [task_label(config, task), prompt_label(config, task, prompt), system_label(config, task, system)]
                + ["—"] * 4
            )
            continue
        best = finite.loc[finite["de"].idxmax()]
        gamma = best["gamma_resampling"]
        rows.append(
            [
                task_label(config, task),
                prompt_label(config, task, prompt),
                system_label(config, task, system),
                metric_label(config, best["metric"]),
                fmt(best["rho"]) if pd.notna(best["rho"]) else "— (constant metric or judgments)",
                fmt(gamma) if pd.notna(gamma) and gamma > 0 else "0 (one judgment per item)",
                fmt(best["de"]),
            ]
        )
    header = ["Task", "Prompt", "System", "Best metric", "ρ", "γ", "DE"]
    return [
        "## How many judgments each metric saves",
        "",
        "DE is the factor by which the control variate with the metric cuts the number of human "
        "judgments for the same interval width (bootstrap; above 1 saves judgments), with ρ the "
        "metric's correlation with the item's mean judgment and γ the annotator variance over the "
        "items' variance. With one judgment per item the annotator variance cannot be told apart "
        "from the items' (γ is shown as 0); every metric's DE is in the data-efficiency table.",
        "",
        *table_lines(header, rows),
    ]
