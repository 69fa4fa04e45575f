"""Figure 1: a metric agrees with humans across systems (a) but far less on single outputs (b)."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from debias.plots.style import PALETTE, STYLE, new_figure
from debias.tables.bias import SystemPoint

__all__ = ["draw_figure1a", "draw_figure1b"]


def draw_figure1a(
    points: Sequence[SystemPoint], rho: float, judgment_label: str, metric_label: str, labels: dict[str, str]
) -> Figure:
    """System-level agreement: one point per system (mean metric against mean judgment) with
    its percentile intervals on both axes; the title gives Pearson's ρ across the systems.
    ``labels`` maps system names to display labels."""
    with mpl.rc_context(STYLE):
        fig = new_figure("figure1")
        ax = fig.add_subplot()
        for point in points:
            ax.errorbar(
                point.judgment,
                point.metric,
                xerr=[[point.judgment - point.judgment_low], [point.judgment_high - point.judgment]],
                yerr=[[point.metric - point.metric_low], [point.metric_high - point.metric]],
                fmt="o",
                color=PALETTE["blue"],
                capsize=2,
            )
            ax.annotate(
                labels.get(point.system, point.system),
                (point.judgment, point.metric),
                fontsize=7,
                xytext=(4, 4),
                textcoords="offset points",
            )
        ax.set_xlabel(f"mean {judgment_label} (human)")
        ax.set_ylabel(f"mean {metric_label}")
        ax.set_title(f"(a) system level, ρ = {rho:.2f}" if np.isfinite(rho) else "(a) system level")
    return fig


def draw_figure1b(rows: pd.DataFrame, metric: str, rho: float, judgment_label: str, metric_label: str) -> Figure:
    """Instance-level agreement of one system: each judged output's metric score against its
    mean judgment (``rows`` holds ``mean_judgment`` and the ``metric`` column); the title gives ρ."""
    with mpl.rc_context(STYLE):
        fig = new_figure("figure1")
        ax = fig.add_subplot()
        ax.scatter(rows["mean_judgment"], rows[metric], s=8, alpha=0.4, color=PALETTE["vermillion"], linewidths=0)
        ax.set_xlabel(f"{judgment_label} (human, mean of judgments)")
        ax.set_ylabel(metric_label)
        ax.set_title(f"(b) instance level, ρ = {rho:.2f}" if np.isfinite(rho) else "(b) instance level")
    return fig
