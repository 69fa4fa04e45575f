"""Figure: every pair of systems' difference of mean human scores on one prompt, with intervals,
the paired mean beside the best control variate (a forest plot;
``results/figures/comparisons/<task>/<prompt>.{pdf,png}``)."""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..config import prompt_is_lower_better, prompt_label, system_label, task_label
from .style import DPI, ESTIMATE_STYLES, PALETTE, STYLE, draw_interval, estimate_legend_handles

__all__ = ["best_cv_rows", "draw_comparisons"]


def best_cv_rows(comparisons: pd.DataFrame) -> pd.DataFrame:
    """Per pair, the ``cv`` row with the highest ``de_vs_independent`` (the first on a tie)."""
    cvs = comparisons[comparisons["estimator"].str.startswith("cv:")]
    keys = ["task", "prompt", "system_a", "system_b"]
    order = cvs.sort_values("de_vs_independent", ascending=False, kind="stable")
    return order.drop_duplicates(keys).sort_index()


def draw_comparisons(comparisons: pd.DataFrame, config: Mapping, task: str, prompt: str, level: float) -> Figure:
    """One row per pair (B - A), the paired ``mean`` and the best ``cv`` with their intervals.

    Parameters
    ----------
    comparisons : pandas.DataFrame
        ``results/tables/system_comparisons.csv``.
    config : mapping
        The parsed configuration (labels, prompt direction).
    task, prompt : str
        The cell to draw.
    level : float
        Nominal coverage of the intervals (for the title).
    """
    rows = comparisons[(comparisons["task"] == task) & (comparisons["prompt"] == prompt)]
    pairs = rows[["system_a", "system_b"]].drop_duplicates().itertuples(index=False)
    pairs = list(pairs)
    best = best_cv_rows(rows)
    with mpl.rc_context(STYLE):
        fig = Figure(figsize=(5.2, 0.42 * max(len(pairs), 1) + 1.4), dpi=DPI, layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.subplots()
        positions = np.arange(len(pairs))[::-1]
        for y, (a, b) in zip(positions, pairs):
            of_pair = rows[(rows["system_a"] == a) & (rows["system_b"] == b)]
            mean = of_pair[of_pair["estimator"] == "mean"]
            cv = best[(best["system_a"] == a) & (best["system_b"] == b)]
            for kind, found in (("mean", mean), ("cv", cv)):
                if found.empty:
                    continue
                row = found.iloc[0]
                position = draw_interval(ax, row["difference"], row["ci_low"], row["ci_high"], y, kind)
                if kind == "cv":
                    ax.annotate(
                        f"{row['estimator']}, DE vs independent {row['de_vs_independent']:.2f}",
                        (row["ci_high"], position),
                        xytext=(3, 0),
                        textcoords="offset points",
                        va="center",
                        fontsize=6,
                        color=ESTIMATE_STYLES[kind]["color"],
                    )
        ax.axvline(0.0, color=PALETTE["grey"], linewidth=0.8)
        labels = [f"{system_label(config, task, b)} − {system_label(config, task, a)}" for a, b in pairs]
        ax.set_yticks(positions, labels)
        lower = " (lower is better)" if prompt_is_lower_better(config, task, prompt) else ""
        ax.set_xlabel(f"difference of mean human scores{lower}")
        ax.grid(axis="x", color=PALETTE["grey"], alpha=0.25, linewidth=0.6)
        ax.margins(x=0.25)
        handles = estimate_legend_handles("paired judgments (mean)", "with the best metric (cv)")
        fig.legend(handles=handles, loc="outside lower center", ncol=2)
        fig.suptitle(f"{task_label(config, task)}, {prompt_label(config, task, prompt)}: {level:.0%} intervals")
    return fig
