"""The reproduction report as one Markdown page, assembled from sections.

Each section is a function of a :class:`ReportContext` returning its lines (without blank lines
around it); :data:`SECTIONS` lists them in page order and :func:`build_report` joins them with a
blank line between. A new section is one more function in that list; what it needs from the
pipeline's tables or the paper's values is in the context, where derived values shared by
several sections (the comparison rows, the resolved Figure 6 panels) are computed once.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import pandas as pd

from debias.config.labels import figure_names, metric_label, prompt_label, system_label, task_label
from debias.report.comparison import (
    DIFFERS,
    NOT_CHECKABLE,
    NOT_COMPARABLE,
    NOT_COMPUTED,
    OTHER_METRIC,
    WITHIN,
    tolerance,
)
from debias.report.context import ReportContext, Section, fmt, table_lines
from debias.report.estimates import estimates_lines
from debias.report.planning import planning_lines
from debias.report.preferences import PreferenceTables, preference_lines
from debias.report.prose import caption, known_differences
from debias.report.summary import BEST, lookup, panel_summary
from debias.report.user_tables import constant_metric_lines
from debias.report.user_tasks import (
    paper_tasks,
    restricted,
    task_lines,
    user_figures_lines,
    user_intro_lines,
    user_tasks,
)

__all__ = ["SECTIONS", "ReportContext", "build_report"]


def intro_section(ctx: ReportContext) -> list[str]:
    counts = {
        status: sum(row.agreement == status for row in ctx.rows)
        for status in (WITHIN, DIFFERS, OTHER_METRIC, NOT_COMPARABLE, NOT_COMPUTED, NOT_CHECKABLE)
    }
    links = ", ".join(f"[{name}]({ctx.table_link(name)})" for name in ("table2", "correlations", "data_efficiency"))
    return [
        "# Reproduction report: *The price of debiasing automatic metrics in natural language evaluation*",
        "",
        f"Paper: {str(ctx.paper_values.get('paper', '')).strip()}. Below, each number the paper "
        "states for Table 2, the Figure 6 data efficiencies, the Section 5 data-efficiency ranges "
        "and Figure 1b's correlation sits beside ours: the *Paper* column is taken from "
        f"`data/paper/reported_values.yaml`, the *Ours* column from the pipeline's tables ({links}).",
        "",
        f"**{len(ctx.rows)} numbers: {counts[WITHIN]} within rounding, {counts[DIFFERS]} differ, "
        f"{counts[OTHER_METRIC]} compared with a different metric, "
        f"{counts[NOT_COMPARABLE]} not comparable, {counts[NOT_COMPUTED]} not computed, "
        f"{counts[NOT_CHECKABLE]} not checkable.** "
        f"*Within rounding* means |ours − paper| ≤ {tolerance(ctx.paper_values):.3f}, half a unit in "
        "the paper's last digit (half a unit of the stated precision for a claim such as three-fold).",
    ]


def comparison_section(ctx: ReportContext) -> list[str]:
    header = ["#", "Quantity", "Stated in", "Paper", "Ours", "Ours − paper", "Agreement", "Reason for the difference"]
    rows = [
        [str(i), r.quantity, r.where, r.paper, r.ours, r.difference, r.agreement, r.reason]
        for i, r in enumerate(ctx.rows, start=1)
    ]
    return ["## Paper vs reproduction", "", *table_lines(header, rows)]


def panels_section(ctx: ReportContext) -> list[str]:
    config, boot = ctx.config, ctx.config.get("bootstrap") or {}
    rows = []
    for p in panel_summary(ctx.data_efficiency, ctx.correlations, ctx.best_metrics, config):
        how = BEST if p["chosen_as_best"] else "configured"
        rows.append(
            [
                f"6{p['name']}",
                f"{system_label(config, p['task'], p['system'])}, {task_label(config, p['task'])} "
                f"{prompt_label(config, p['task'], p['prompt'])}",
                NOT_COMPUTED if p["metric"] is None else f"{metric_label(config, p['metric'])} ({how})",
                fmt(p.get("rho")),
                fmt(p.get("cv_gamma_resampling")),
                fmt(p.get("cv_de")),
                fmt(p.get("cv_de_theory")),
                fmt(p.get("noiseless_de")),
                fmt(p.get("perfect_de")),
            ]
        )
    header = [
        "Panel",
        "System, task, prompt",
        "Metric",
        "ρ",
        "γ",
        "DE",
        "DE, eq. (7)",
        "DE, noiseless",
        "DE, perfect metric",
    ]
    return [
        "## Figure 6 panels",
        "",
        *table_lines(header, rows),
        "",
        "DE is measured from bootstrap confidence intervals "
        f"({boot.get('replicates', '?')} replicates, {float(boot.get('level', 0.8)):.0%} level, "
        f"squared widths averaged over n in {boot.get('de_range', '?')} × N); "
        "*DE, eq. (7)* is (1 + γ)/(1 − ρ² + γ) from the same ρ and γ.",
    ]


def differences_section(ctx: ReportContext) -> list[str]:
    return ["## Known differences from the paper's setup", "", *known_differences(ctx.config, ctx.paper_panels)]


def figures_section(ctx: ReportContext) -> list[str]:
    """Every configured figure with its caption, embedded when it exists."""
    lines = ["## Figures"]
    names = figure_names(ctx.config)
    if (ctx.config.get("figures") or {}).get("figure1"):
        names = ["figure1a", "figure1b", *names]
    for name in names:
        image = f"![{name}]({ctx.figures_dir}/{name}.png)" if name in ctx.figures else f"*{name}: not rendered.*"
        lines += ["", caption(name, ctx.config, ctx.panels, ctx.paper_panels), "", image]
    return lines


def table2_section(ctx: ReportContext) -> list[str]:
    """Table 2 with the columns the paper has no counterpart for (unbiased estimates, counts)."""
    config, table2 = ctx.config, ctx.table2
    rows = []
    if {"task", "prompt"} <= set(table2.columns):
        for task, prompt in zip(table2["task"], table2["prompt"]):
            cells = [task_label(config, task), prompt_label(config, task, prompt)]
            items = lookup(table2, "n_items", task=task, prompt=prompt)
            for column in ("sigma2_a", "sigma2_f", "gamma", "sigma2_f_unbiased", "gamma_unbiased"):
                value = lookup(table2, column, task=task, prompt=prompt)
                cells.append("one judgment per item" if items == 0 and value is None else fmt(value))
            for column in ("n_items", "n_judgments"):
                value = lookup(table2, column, task=task, prompt=prompt)
                cells.append(NOT_COMPUTED if value is None else f"{value:.0f}")
            rows.append(cells)
    header = ["Task", "Prompt", "σ_a²", "σ_f²", "γ", "σ_f² (unbiased)", "γ (unbiased)", "Items", "Judgments"]
    return ["## Table 2 as computed", "", *table_lines(header, rows)]


def estimates_section(ctx: ReportContext) -> list[str]:
    lines = estimates_lines(ctx.system_estimates, ctx.coverage, ctx.config)
    return lines + constant_metric_lines(ctx.correlations, ctx.config) if lines else lines


def leaderboards_section(ctx: ReportContext) -> list[str]:
    """Each task's leaderboard figure: systems in order, intervals and simultaneous rank-sets."""
    shown = [task for task in ctx.config["tasks"] if f"leaderboard_{task}" in ctx.figures]
    if not shown:
        return []
    lines = [
        "## Leaderboards",
        "",
        "Each system's estimate with its interval and its rank-set: the ranks it may take, all "
        "systems' sets holding the true ranking together at the configured level "
        f"([`{ctx.table_link('leaderboard')}`]({ctx.table_link('leaderboard')})).",
    ]
    for task in shown:
        name = f"leaderboard_{task}"
        lines += ["", f"**{task_label(ctx.config, task)}**", "", f"![{name}]({ctx.figures_dir}/{name}.png)"]
    return lines


def planning_section(ctx: ReportContext) -> list[str]:
    return planning_lines(ctx.comparisons, ctx.comparison_coverage, ctx.plan, ctx.plan_check, ctx.config)


def tables_section(ctx: ReportContext) -> list[str]:
    described = [
        ("table2", "variance components per task × prompt."),
        ("correlations", "metric–human correlations per system and pooled."),
        ("data_efficiency", "data efficiency per task, prompt, system, metric and condition."),
    ]
    if ctx.system_estimates is not None:
        described.append(("system_estimates", "each system's estimated mean human score per estimator."))
    if ctx.coverage is not None:
        described.append(("coverage", "coverage, width and DE of every estimator's interval per sample size."))
    for name, text, frame in (
        ("system_comparisons", "every pair of systems' difference per estimator.", ctx.comparisons),
        (
            "comparison_coverage",
            "coverage and saving of the paired intervals per sample size.",
            ctx.comparison_coverage,
        ),
        ("plan", "the least-cost number of items and judgments per item per target width.", ctx.plan),
        ("plan_check", "plans from random pilots against their assurance.", ctx.plan_check),
    ):
        if frame is not None:
            described.append((name, text))
    return ["## Tables", ""] + [f"- [`{ctx.table_link(n)}`]({ctx.table_link(n)}): {text}" for n, text in described]


#: The sections of the report, in page order.
SECTIONS: list[Section] = [
    intro_section,
    comparison_section,
    panels_section,
    differences_section,
    figures_section,
    table2_section,
    estimates_section,
    leaderboards_section,
    planning_section,
    tables_section,
]


def build_report(
    table2: pd.DataFrame,
    correlations: pd.DataFrame,
    best_metrics: pd.DataFrame,
    data_efficiency: pd.DataFrame,
    paper_values: Mapping,
    config: Mapping,
    *,
    figures: Iterable[str | os.PathLike],
    figures_dir: str = "figures",
    tables_dir: str = "tables",
    system_estimates: pd.DataFrame | None = None,
    coverage: pd.DataFrame | None = None,
    table1: pd.DataFrame | None = None,
    figure1: pd.DataFrame | None = None,
    by_system: pd.DataFrame | None = None,
    comparisons: pd.DataFrame | None = None,
    comparison_coverage: pd.DataFrame | None = None,
    plan: pd.DataFrame | None = None,
    plan_check: pd.DataFrame | None = None,
    preferences: Sequence[PreferenceTables] = (),
    leaderboard: pd.DataFrame | None = None,
) -> str:
    """The report as Markdown.

    A configured task the paper's values name (:func:`debias.report.user_tasks.paper_tasks`)
    gets the reproduction report, every section of :data:`SECTIONS` in order. Any other task is
    the user's own: the page then leads with one section per such task
    (:func:`debias.report.user_tasks.task_lines`), and the reproduction sections, cut to the
    paper's tasks, follow only when some are configured.

    Parameters
    ----------
    table2, correlations, best_metrics, data_efficiency : pandas.DataFrame
        The pipeline's tables; a missing row or column makes the value "not computed".
        Metric choices ("best") are read from ``best_metrics``, never made here.
    paper_values : mapping
        What :func:`debias.report.load_paper_values` returns; shown only in the Paper column.
    config : mapping
        The parsed configuration (labels, metrics, Figure 6 panels, bootstrap settings).
    figures : iterable of path
        The figure files that exist (any suffix; only their names are used). Every figure of
        :func:`debias.config.labels.figure_names` is embedded as ``<figures_dir>/<name>.png``, or
        marked as not rendered when it is not among them.
    figures_dir, tables_dir : str
        Folders of the figures and tables, relative to the report.
    system_estimates, coverage : pandas.DataFrame, optional
        ``system_estimates.csv`` and ``coverage.csv``; without them the section "Estimating
        your systems" is left out.
    table1, figure1 : pandas.DataFrame, optional
        The pipeline's ``table1.csv`` and ``figure1.csv`` when configured (rows for Table 1's
        counts and Figure 1b's ρ; "not computed" without them).
    by_system : pandas.DataFrame, optional
        ``variance_by_system.csv`` (its ``mean`` column: the systems' mean judgments the paper
        states); "not computed" without it.
    comparisons, comparison_coverage, plan, plan_check : pandas.DataFrame, optional
        ``system_comparisons.csv``, ``comparison_coverage.csv``, ``plan.csv`` and
        ``plan_check.csv``; without them the section "Comparing systems and planning" is left out.
    preferences : sequence of PreferenceTables
        The tables of each preference task: one section each
        (:func:`debias.report.preferences.preference_lines`), at the end of the page.
    leaderboard : pandas.DataFrame, optional
        ``leaderboard.csv``: a user's task whose items have clusters says how many and their
        design effects (:func:`debias.report.user_tables.cluster_lines`).

    Returns
    -------
    str
        The page, ending in a newline.
    """
    ctx = ReportContext(
        table2=table2,
        correlations=correlations,
        best_metrics=best_metrics,
        data_efficiency=data_efficiency,
        paper_values=paper_values,
        config=config,
        figures=frozenset(Path(f).stem for f in figures),
        figures_dir=figures_dir,
        tables_dir=tables_dir,
        system_estimates=system_estimates,
        coverage=coverage,
        table1=table1,
        figure1=figure1,
        by_system=by_system,
        comparisons=comparisons,
        comparison_coverage=comparison_coverage,
        plan=plan,
        plan_check=plan_check,
        leaderboard=leaderboard,
    )
    papers, users = paper_tasks(paper_values, config), user_tasks(paper_values, config)
    parts: list[list[str]] = []
    if users:
        parts.append(user_intro_lines(ctx, users, bool(papers)))
        parts += [task_lines(ctx, task) for task in users]
    if papers:
        paper_ctx = restricted(ctx, papers) if users else ctx
        parts += [section(paper_ctx) for section in SECTIONS]
    else:
        parts += [user_figures_lines(ctx), tables_section(ctx)]
    parts += [
        preference_lines(t, config, figures=ctx.figures, figures_dir=figures_dir, tables_dir=tables_dir)
        for t in preferences
    ]
    lines: list[str] = []
    for body in parts:
        if body:
            lines += ([""] if lines else []) + body
    return "\n".join(lines) + "\n"
