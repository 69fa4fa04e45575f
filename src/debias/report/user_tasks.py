"""The report's sections about tasks the paper states no numbers for: the user's own systems.

For each such task, in this order: what was evaluated (systems, prompts, judgments per item,
and what one judgment per item rules out), the clusters its items share (when they do), each
system's estimated mean human score with its
interval, the paired comparisons (which differences are resolved: the interval excludes 0),
the data efficiency of each metric, the plans and the checks of their coverage
(:mod:`debias.report.user_tables`), and the task's figures (the leaderboard with its rank-sets
among them).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import pandas as pd

from debias.config.labels import figure_names, prompt_label, system_label, task_label
from debias.report.context import ReportContext
from debias.report.user_tables import (
    cluster_lines,
    comparison_lines,
    efficiency_lines,
    estimate_lines,
    finite,
    num,
    of_task,
    one_judgment_prompts,
    plan_lines,
)

__all__ = ["paper_tasks", "restricted", "task_lines", "user_figures_lines", "user_intro_lines", "user_tasks"]


def paper_tasks(paper_values: Mapping, config: Mapping) -> list[str]:
    """The configured tasks that the paper's values name, in configuration order."""
    named: set[str] = set()

    def visit(node) -> None:
        if isinstance(node, Mapping):
            if isinstance(node.get("task"), str):
                named.add(node["task"])
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(paper_values)
    return [task for task in config.get("tasks") or {} if task in named]


def user_tasks(paper_values: Mapping, config: Mapping) -> list[str]:
    """The configured tasks the paper states nothing about, in configuration order."""
    known = set(paper_tasks(paper_values, config))
    return [task for task in config.get("tasks") or {} if task not in known]


def _what_lines(ctx: ReportContext, task: str) -> list[str]:
    config, spec = ctx.config, ctx.config["tasks"][task]
    systems = ", ".join(system_label(config, task, s) for s in spec.get("systems") or {})
    prompts = ", ".join(prompt_label(config, task, p) for p in spec.get("prompts") or {})
    lines = [f"Systems ({len(spec.get('systems') or {})}): {systems}. Prompts: {prompts}."]
    table2 = of_task(ctx.table2, task)
    for r in table2.itertuples(index=False):
        label = prompt_label(config, task, r.prompt)
        if str(r.prompt) in one_judgment_prompts(ctx, task):
            lines.append(
                f"{label}: {r.n_items:.0f} judged outputs with one judgment each. With one judgment per "
                "item the annotator variance σ_a² cannot be told apart from the outputs' own spread, so "
                "σ_a², γ, the noiseless-human and perfect-metric data efficiencies are not reported; "
                "everything below treats each judgment as the output's score."
            )
        elif finite(r.sigma2_a):
            lines.append(
                f"{label}: {r.n_items:.0f} outputs judged more than once ({r.n_judgments:.0f} judgments): "
                f"annotator variance σ_a² = {r.sigma2_a:.3f}, γ = σ_a²/σ_f² = {num(r.gamma)}."
            )
    return [" ".join(lines[:1]), "", *(f"- {line}" for line in lines[1:])] if len(lines) > 1 else lines


def _figure_lines(ctx: ReportContext, task: str) -> list[str]:
    names = [f"system_scores_{task}", f"comparisons_{task}", f"leaderboard_{task}", f"figure5_{task}"]
    shown = [name for name in names if name in ctx.figures]
    lines: list[str] = []
    for name in shown:
        lines += ["", f"![{name}]({ctx.figures_dir}/{name}.png)"]
    return lines[1:]


def task_lines(ctx: ReportContext, task: str) -> list[str]:
    """The section of one of the user's tasks."""
    lines = [f"## {task_label(ctx.config, task)}", "", *_what_lines(ctx, task)]
    for part in (cluster_lines, estimate_lines, comparison_lines, efficiency_lines, plan_lines, _figure_lines):
        body = part(ctx, task)
        if body:
            lines += ["", *body]
    return lines


def user_intro_lines(ctx: ReportContext, tasks: list[str], with_paper: bool) -> list[str]:
    """The head of a report that leads with the user's own tasks."""
    names = ", ".join(task_label(ctx.config, t) for t in tasks)
    after = (
        "The reproduction of the paper's numbers for its own tasks follows them."
        if with_paper
        else "None of these tasks is one of the paper's, so no number is compared with the paper's."
    )
    return [
        "# Evaluation report",
        "",
        f"Tasks: {names}. Each section gives the systems' estimated mean human scores with their "
        "intervals, which differences between systems are resolved, how many judgments each metric "
        "saves as a control variate, and how many outputs and judgments a next evaluation needs. "
        f"Every number comes from the workflow's tables (linked at the end). {after}",
    ]


def user_figures_lines(ctx: ReportContext) -> list[str]:
    """The configured figures a user-only report has not shown in its task sections."""
    lines = []
    for name in figure_names(ctx.config):
        if name in ctx.figures and not name.startswith("figure5_"):
            lines += ["", f"![{name}]({ctx.figures_dir}/{name}.png)"]
    return ["## Other figures", *lines] if lines else []


def restricted(ctx: ReportContext, tasks: list[str]) -> ReportContext:
    """The context with every table cut to the rows of ``tasks``."""
    changes = {}
    for field in dataclasses.fields(ctx):
        value = getattr(ctx, field.name)
        if isinstance(value, pd.DataFrame) and "task" in value.columns:
            changes[field.name] = value[value["task"].isin(tasks)].reset_index(drop=True)
    return dataclasses.replace(ctx, **changes)
