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
        _label_points(ax, [(labels.get(p.system, p.system), p.judgment, p.metric) for p in points])
        ax.set_xlabel(f"mean {judgment_label} (human)")
        ax.set_ylabel(f"mean {metric_label}")
        ax.set_title(f"(a) system level, ρ = {rho:.2f}" if np.isfinite(rho) else "(a) system level")
    return fig


# Where a point's label may go, in points from the point, tried in this order: above right,
# below right, above left, below left.
_LABEL_PLACES = (
    ((4, 4), "left", "bottom"),
    ((4, -4), "left", "top"),
    ((-4, 4), "right", "bottom"),
    ((-4, -4), "right", "top"),
)


def _label_points(ax, labelled: Sequence[tuple[str, float, float]]) -> None:
    """Label each point at the first place of :data:`_LABEL_PLACES` where its text overlaps no
    label placed before it (the first place when none is free)."""
    renderer = ax.figure.canvas.get_renderer()
    placed = []
    for text, x, y in labelled:
        for offset, ha, va in _LABEL_PLACES:
            note = ax.annotate(text, (x, y), fontsize=7, xytext=offset, textcoords="offset points", ha=ha, va=va)
            box = note.get_window_extent(renderer)
            if not any(box.overlaps(other) for other in placed):
                break
            note.remove()
        else:
            offset, ha, va = _LABEL_PLACES[0]
            note = ax.annotate(text, (x, y), fontsize=7, xytext=offset, textcoords="offset points", ha=ha, va=va)
            box = note.get_window_extent(renderer)
        placed.append(box)


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
