"""The reproduction report as one Markdown page: the paper-vs-ours table, the Figure 6 panels,
the known differences of setup, the figures with their captions, and Table 2 as computed."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

import pandas as pd

from ..config import figure_names, metric_label, prompt_label, system_label, task_label
from ..tables import to_markdown
from .comparison import (
    DIFFERS,
    NOT_COMPARABLE,
    NOT_COMPUTED,
    OTHER_METRIC,
    WITHIN,
    comparison_rows,
    paper_panels,
    tolerance,
)
from .prose import BEST, caption, known_differences
from .summary import configured_panels, lookup, panel_summary

__all__ = ["build_report"]


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return to_markdown(pd.DataFrame(rows, columns=header, dtype=object)).rstrip("\n").split("\n")


def _fmt(value: float | None) -> str:
    return NOT_COMPUTED if value is None else f"{value:.3f}"


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
) -> str:
    """The reproduction report as Markdown.

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
        :func:`debias.config.figure_names` is embedded as ``<figures_dir>/<name>.png``, or
        marked as not rendered when it is not among them.
    figures_dir, tables_dir : str
        Folders of the figures and tables, relative to the report.
    """
    rows = comparison_rows(table2, correlations, best_metrics, data_efficiency, paper_values, config)
    papers = paper_panels(paper_values, config, best_metrics, data_efficiency)
    panels = {p["name"]: p for p in configured_panels(config, best_metrics)}
    available = {Path(f).stem for f in figures}
    boot = config.get("bootstrap") or {}
    counts = {
        status: sum(row.agreement == status for row in rows)
        for status in (WITHIN, DIFFERS, OTHER_METRIC, NOT_COMPARABLE, NOT_COMPUTED)
    }

    lines = [
        "# Reproduction report: *The price of debiasing automatic metrics in natural language evaluation*",
        "",
        f"Paper: {str(paper_values.get('paper', '')).strip()}. Below, each number the paper "
        "states for Table 2, the Figure 6 data efficiencies, the Section 5 data-efficiency ranges "
        "and Figure 1b's correlation sits beside ours: the *Paper* column is taken from "
        "`data/paper/reported_values.yaml`, the *Ours* column from the pipeline's tables "
        f"([table2]({tables_dir}/table2.csv), [correlations]({tables_dir}/correlations.csv), "
        f"[data_efficiency]({tables_dir}/data_efficiency.csv)).",
        "",
        f"**{len(rows)} numbers: {counts[WITHIN]} within rounding, {counts[DIFFERS]} differ, "
        f"{counts[OTHER_METRIC]} compared with a different metric, "
        f"{counts[NOT_COMPARABLE]} not comparable, {counts[NOT_COMPUTED]} not computed.** "
        f"*Within rounding* means |ours − paper| ≤ {tolerance(paper_values):.3f}, half a unit in "
        "the paper's last digit.",
        "",
        "## Paper vs reproduction",
        "",
    ]
    lines += _table(
        ["#", "Quantity", "Stated in", "Paper", "Ours", "Ours − paper", "Agreement", "Reason for the difference"],
        [
            [str(i), r.quantity, r.where, r.paper, r.ours, r.difference, r.agreement, r.reason]
            for i, r in enumerate(rows, start=1)
        ],
    )

    lines += ["", "## Figure 6 panels", ""]
    panel_rows = []
    for p in panel_summary(data_efficiency, correlations, best_metrics, config):
        how = BEST if p["chosen_as_best"] else "configured"
        panel_rows.append(
            [
                f"6{p['name']}",
                f"{system_label(config, p['task'], p['system'])}, {task_label(config, p['task'])} "
                f"{prompt_label(config, p['task'], p['prompt'])}",
                NOT_COMPUTED if p["metric"] is None else f"{metric_label(config, p['metric'])} ({how})",
                _fmt(p.get("rho")),
                _fmt(p.get("cv_gamma_resampling")),
                _fmt(p.get("cv_de")),
                _fmt(p.get("cv_de_theory")),
                _fmt(p.get("noiseless_de")),
                _fmt(p.get("perfect_de")),
            ]
        )
    lines += _table(
        [
            "Panel",
            "System, task, prompt",
            "Metric",
            "ρ",
            "γ",
            "DE",
            "DE, eq. (7)",
            "DE, noiseless",
            "DE, perfect metric",
        ],
        panel_rows,
    )
    lines += [
        "",
        "DE is measured from bootstrap confidence intervals "
        f"({boot.get('replicates', '?')} replicates, {float(boot.get('level', 0.8)):.0%} level, "
        f"squared widths averaged over n in {boot.get('de_range', '?')} × N); "
        "*DE, eq. (7)* is (1 + γ)/(1 − ρ² + γ) from the same ρ and γ.",
        "",
        "## Known differences from the paper's setup",
        "",
    ]
    lines += known_differences(config, papers)
    lines += ["", "## Figures", ""]
    for name in figure_names(config):
        lines += [caption(name, config, panels, papers), ""]
        lines.append(f"![{name}]({figures_dir}/{name}.png)" if name in available else f"*{name}: not rendered.*")
        lines.append("")

    # Table 2 as computed, including the columns the paper has no counterpart for.
    lines += ["## Table 2 as computed", ""]
    t2_rows = []
    if table2 is not None and {"task", "prompt"} <= set(table2.columns):
        for record in table2.to_dict("records"):
            task, prompt = record["task"], record["prompt"]
            cells = [task_label(config, task), prompt_label(config, task, prompt)]
            for column in ("sigma2_a", "sigma2_f", "gamma", "sigma2_f_unbiased", "gamma_unbiased"):
                cells.append(_fmt(lookup(table2, column, task=task, prompt=prompt)))
            for column in ("n_items", "n_judgments"):
                value = lookup(table2, column, task=task, prompt=prompt)
                cells.append(NOT_COMPUTED if value is None else f"{value:.0f}")
            t2_rows.append(cells)
    lines += _table(
        ["Task", "Prompt", "σ_a²", "σ_f²", "γ", "σ_f² (unbiased)", "γ (unbiased)", "Items", "Judgments"],
        t2_rows,
    )
    lines += [
        "",
        "## Tables",
        "",
        f"- [`{tables_dir}/table2.csv`]({tables_dir}/table2.csv): variance components per task × prompt.",
        f"- [`{tables_dir}/correlations.csv`]({tables_dir}/correlations.csv): "
        "metric–human correlations per system and pooled.",
        f"- [`{tables_dir}/data_efficiency.csv`]({tables_dir}/data_efficiency.csv): "
        "data efficiency per task, prompt, system, metric and condition.",
        "",
    ]
    return "\n".join(lines)
