"""Figure 3: contours of inverse data efficiency over (ρ, γ), with each task × prompt's measured
point."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from debias.config.labels import COMBINED, metric_label, prompt_label, task_label
from debias.plots.labels import place_labels
from debias.plots.style import PALETTE, STYLE, TASK_STYLES, grow_to_fit, new_figure
from debias.stats.ratings import theory_data_efficiency

__all__ = ["draw_figure3"]

_GRID_POINTS = 401
_CONTOUR_LEVELS = np.round(np.arange(0.1, 1.0, 0.1), 1)


def _points(table2: pd.DataFrame, best_metrics: pd.DataFrame) -> pd.DataFrame:
    """One row per task × prompt of ``table2`` with a finite γ and a pooled best metric:
    ``task, prompt, metric, rho`` (|ρ| of the best metric, all systems pooled), ``gamma``."""
    pooled = best_metrics[best_metrics["system"] == COMBINED]
    best = {(row.task, row.prompt): row for row in pooled.itertuples(index=False)}
    rows = []
    for record in table2.itertuples(index=False):
        gamma = float(record.gamma)
        choice = best.get((record.task, record.prompt))
        if choice is None or not np.isfinite(gamma):
            continue
        rows.append(
            {
                "task": record.task,
                "prompt": record.prompt,
                "metric": choice.metric,
                "rho": abs(float(choice.rho)),
                "gamma": gamma,
            }
        )
    return pd.DataFrame(rows, columns=["task", "prompt", "metric", "rho", "gamma"])


def _not_drawn(table2: pd.DataFrame, points: pd.DataFrame, config: Mapping) -> list[str]:
    """Why each task × prompt of ``table2`` without a point is not drawn."""
    drawn = set(zip(points["task"], points["prompt"]))
    notes = []
    for record in table2.itertuples(index=False):
        if (record.task, record.prompt) in drawn:
            continue
        name = f"{task_label(config, record.task)}, {prompt_label(config, record.task, record.prompt)}"
        if not np.isfinite(float(record.gamma)):
            items, judgments = getattr(record, "n_items", 0), getattr(record, "n_judgments", -1)
            if items > 0 and items == judgments:
                why = "one judgment per item, so γ is not identifiable"
            else:
                why = "γ not computed (no two items judged more than once)"
        else:
            why = "no pooled best metric"
        notes.append(f"{name}: {why}")
    return notes


def draw_figure3(table2: pd.DataFrame, best_metrics: pd.DataFrame, config: Mapping) -> Figure:
    """Contours of 1/DE over (ρ, γ) with the measured point of each task × prompt.

    Parameters
    ----------
    table2 : pandas.DataFrame
        Columns ``task, prompt, gamma`` (Table 2's γ = σ_a²/σ_f²).
    best_metrics : pandas.DataFrame
        The table :func:`debias.tables.selection.best_metrics` writes; a point's ρ is the |ρ| of its
        task × prompt's ``combined`` row (all systems pooled).
    config : mapping
        The parsed configuration (labels, task order).

    Returns
    -------
    matplotlib.figure.Figure
        Points are labelled with prompt and metric; labels avoid each other and the contour
        labels. Task × prompt pairs without a finite γ or a pooled best metric are left out,
        and a line under the title names each with the reason (one judgment per item: γ is not
        identifiable).

    Notes
    -----
    The contours are levels of 1/DE = (1 − ρ² + γ)/(1 + γ), the inverse of the paper's
    equation (7) as :func:`debias.stats.ratings.theory.theory_data_efficiency` computes it.
    """
    with mpl.rc_context(STYLE):
        points = _points(table2, best_metrics)
        gamma_max = max(2.0, float(points["gamma"].max()) * 1.08) if not points.empty else 2.0

        fig = new_figure("figure3")
        ax = fig.add_subplot()
        rho_grid, gamma_grid = np.meshgrid(
            np.linspace(0.0, 1.0, _GRID_POINTS), np.linspace(0.0, gamma_max, _GRID_POINTS)
        )
        contours = ax.contour(
            rho_grid,
            gamma_grid,
            1.0 / theory_data_efficiency(rho_grid, gamma_grid),
            levels=_CONTOUR_LEVELS,
            colors=PALETTE["grey"],
            linewidths=0.8,
        )
        contour_labels = ax.clabel(contours, fmt="%.1f", fontsize=7, inline=True, inline_spacing=3)
        ax.set_xlim(0.0, 1.0)
        ax.set_ylim(0.0, gamma_max)
        ax.set_xlabel(r"$\rho$: |correlation| of the best metric with mean human judgment (systems pooled)")
        ax.set_ylabel(r"$\gamma = \sigma_a^2 / \sigma_f^2$ (normalised annotator variance)")
        title = (
            r"Inverse data efficiency $1/\mathrm{DE} = (1-\rho^2+\gamma)/(1+\gamma)$"
            "\ncontours labelled with 1/DE; points are the measured task $\\times$ prompt values"
        )
        missing = _not_drawn(table2, points, config)
        if missing:
            title += "\n" + textwrap.fill("Not drawn: " + "; ".join(missing) + ".", 95)
        ax.set_title(title)

        task_order = list(config.get("tasks") or {})
        tasks = sorted(
            dict.fromkeys(points["task"]),
            key=lambda t: task_order.index(t) if t in task_order else len(task_order),
        )
        styles = {task: TASK_STYLES[i % len(TASK_STYLES)] for i, task in enumerate(tasks)}
        handles = []
        for task in tasks:
            sub = points[points["task"] == task]
            style = styles[task]
            ax.scatter(
                sub["rho"],
                sub["gamma"],
                s=30,
                color=style["color"],
                marker=style["marker"],
                edgecolor="white",
                linewidth=0.6,
                zorder=3,
            )
            handles.append(
                Line2D(
                    [],
                    [],
                    linestyle="none",
                    marker=style["marker"],
                    color=style["color"],
                    markeredgecolor="white",
                    markersize=6.5,
                    label=task_label(config, task),
                )
            )
        if handles:
            fig.legend(handles=handles, loc="outside lower center", ncols=len(handles))

        labels = [
            f"{prompt_label(config, row.task, row.prompt)} ({metric_label(config, row.metric)})"
            for row in points.itertuples(index=False)
        ]
        colors = [styles[task]["color"] for task in points["task"]]
        place_labels(
            ax,
            fig,
            points["rho"].to_numpy(),
            points["gamma"].to_numpy(),
            labels,
            colors,
            obstacles=contour_labels,
        )
        if missing:
            grow_to_fit(fig)
        return fig
