"""Figure: every pair of systems' difference of mean human scores, one panel per prompt of a
task, with intervals, the paired mean beside the best control variate (a forest plot;
``results/figures/comparisons_<task>.{pdf,png}``)."""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from debias.config.labels import prompt_is_lower_better, prompt_label, system_label, task_label
from debias.plots.style import (
    DPI,
    PALETTE,
    STYLE,
    draw_interval,
    estimate_legend_handles,
    grow_to_fit,
    label_interval,
)
from debias.stats.common.vocabulary import is_people_only
from debias.tables.selection import best_paired_control_variate

__all__ = ["best_cv_rows", "draw_comparisons"]


def best_cv_rows(comparisons: pd.DataFrame) -> pd.DataFrame:
    """Per pair, the row of :func:`debias.tables.selection.best_paired_control_variate` (the
    report's choice); pairs where no metric helps have none."""
    keys = ["task", "prompt", "system_a", "system_b"]
    chosen = []
    for _, pair in comparisons.groupby(keys, sort=False):
        name = best_paired_control_variate(pair)
        if name is not None:
            chosen.append(pair.index[pair["estimator"] == name][0])
    return comparisons.loc[sorted(chosen)]


def draw_comparisons(comparisons: pd.DataFrame, config: Mapping, task: str, level: float) -> Figure:
    """One panel per prompt of ``task``, one row per pair (B - A): the paired ``mean`` and the
    best ``cv`` with their intervals.

    Parameters
    ----------
    comparisons : pandas.DataFrame
        ``results/tables/system_comparisons.csv``.
    config : mapping
        The parsed configuration (labels, prompt order and direction).
    task : str
        The task to draw.
    level : float
        Nominal coverage of the intervals (for the title).

    Returns
    -------
    matplotlib.figure.Figure
        Panels in prompt order, two per row, sharing the pairs' axis; a lower-is-better prompt
        says so in its title; the best ``cv`` names its metric and its DE against independent
        samples. The height grows with the pairs, and the canvas with whatever would not fit on it.
    """
    rows = comparisons[comparisons["task"] == task]
    prompts = [p for p in config["tasks"][task]["prompts"] if p in set(rows["prompt"])] or list(
        config["tasks"][task]["prompts"]
    )
    pairs = list(rows[["system_a", "system_b"]].drop_duplicates().itertuples(index=False, name=None))
    best = best_cv_rows(rows)
    columns = min(2, len(prompts))
    lines = -(-len(prompts) // columns)
    with mpl.rc_context(STYLE):
        # Sized by the number of prompts and pairs, unlike the paper's fixed-size figures.
        # Many pairs (20 systems have 190) get slightly closer rows, still apart at 8 pt.
        row_height = 0.36 if len(pairs) <= 30 else 0.28
        size = (4.6 * columns + 1.2, lines * (row_height * max(len(pairs), 1) + 0.9) + 0.7)
        fig = Figure(figsize=size, dpi=DPI, layout="constrained")
        FigureCanvasAgg(fig)
        axes = fig.subplots(lines, columns, sharey=True, squeeze=False).ravel()
        positions = np.arange(len(pairs))[::-1]
        for ax, prompt in zip(axes, prompts):
            of_prompt = rows[rows["prompt"] == prompt]
            best_of_prompt = best[best["prompt"] == prompt]
            for y, (a, b) in zip(positions, pairs):
                of_pair = of_prompt[(of_prompt["system_a"] == a) & (of_prompt["system_b"] == b)]
                mean = of_pair[of_pair["estimator"].map(is_people_only)]
                cv = best_of_prompt[(best_of_prompt["system_a"] == a) & (best_of_prompt["system_b"] == b)]
                for kind, found in (("mean", mean), ("cv", cv)):
                    if found.empty:
                        continue
                    row = found.iloc[0]
                    position = draw_interval(ax, row["difference"], row["ci_low"], row["ci_high"], y, kind)
                    if kind == "cv":
                        text = f"{row['estimator']}, DE {row['de_vs_independent']:.2f}"
                        label_interval(ax, text, row["ci_high"], position, kind, fontsize=6)
            ax.axvline(0.0, color=PALETTE["grey"], linewidth=0.8)
            title = prompt_label(config, task, prompt)
            ax.set_title(f"{title} (lower is better)" if prompt_is_lower_better(config, task, prompt) else title)
            ax.set_xlabel("difference of mean human scores")
            ax.grid(axis="x", color=PALETTE["grey"], alpha=0.25, linewidth=0.6)
            ax.margins(x=0.3)
        for ax in axes[len(prompts) :]:
            ax.set_visible(False)
        labels = [f"{system_label(config, task, b)} − {system_label(config, task, a)}" for a, b in pairs]
        for ax in axes[::columns]:
            ax.set_yticks(positions, labels)
            ax.tick_params(axis="y", labelleft=True)
        handles = estimate_legend_handles("paired judgments (mean)", "with the best metric (cv; DE vs independent)")
        fig.legend(handles=handles, loc="outside lower center", ncol=2)
        fig.suptitle(f"{task_label(config, task)}: differences between systems with {level:.0%} intervals")
        grow_to_fit(fig)
    return fig
