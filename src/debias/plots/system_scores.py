"""Figure: each system's estimated mean human score per prompt, judgments alone and with the best
control variate, with their intervals (``results/figures/system_scores_<task>.{pdf,png}``)."""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from debias.config.labels import metric_label, prompt_is_lower_better, prompt_label, system_label, task_label
from debias.plots.style import (
    DPI,
    PALETTE,
    STYLE,
    draw_interval,
    estimate_legend_handles,
    grow_to_fit,
    label_interval,
)

__all__ = ["draw_system_scores"]


def _best_cv(estimates: pd.DataFrame, best_metrics: pd.DataFrame, task, prompt, system) -> pd.Series | None:
    chosen = best_metrics[
        (best_metrics["task"] == task) & (best_metrics["prompt"] == prompt) & (best_metrics["system"] == system)
    ]
    if chosen.empty:
        return None
    name = f"cv:{chosen['metric'].iloc[0]}"
    row = estimates[
        (estimates["system"] == system) & (estimates["prompt"] == prompt) & (estimates["estimator"] == name)
    ]
    return None if row.empty else row.iloc[0]


def draw_system_scores(estimates: pd.DataFrame, best_metrics: pd.DataFrame, config: Mapping, task: str) -> Figure:
    """One panel per prompt of ``task``: every system's ``mean`` and best-metric ``cv`` estimate.

    Parameters
    ----------
    estimates : pandas.DataFrame
        ``results/tables/system_estimates.csv``.
    best_metrics : pandas.DataFrame
        ``results/tables/best_metrics.csv``: the metric chosen per task, prompt and system.
    config : mapping
        The parsed configuration (labels, system order, prompt direction).
    task : str
        The task to draw.

    Returns
    -------
    matplotlib.figure.Figure
        Systems as rows in config order, each with its two intervals; a lower-is-better prompt
        says so in its title. The height grows with the systems, and the canvas with whatever
        would not fit on it (a long title or legend beside a single prompt's panel).
    """
    prompts = list(config["tasks"][task]["prompts"])
    systems = [s for s in config["tasks"][task]["systems"] if s in set(estimates["system"])]
    rows = estimates[estimates["task"] == task]
    with mpl.rc_context(STYLE):
        # Sized by the number of prompts and systems, unlike the paper's fixed-size figures.
        size = (3.0 * len(prompts) + 0.4, 0.45 * len(systems) + 1.5)
        fig = Figure(figsize=size, dpi=DPI, layout="constrained")
        FigureCanvasAgg(fig)
        axes = np.atleast_1d(fig.subplots(1, len(prompts), sharey=True, squeeze=False)[0])
        positions = np.arange(len(systems))[::-1]
        for ax, prompt in zip(axes, prompts):
            for y, system in zip(positions, systems):
                mean = rows[(rows["system"] == system) & (rows["prompt"] == prompt) & (rows["estimator"] == "mean")]
                for kind, row in (
                    ("mean", mean.iloc[0] if len(mean) else None),
                    ("cv", _best_cv(rows, best_metrics, task, prompt, system)),
                ):
                    if row is None:
                        continue
                    position = draw_interval(ax, row["estimate"], row["ci_low"], row["ci_high"], y, kind)
                    if kind == "cv":
                        metric = row["estimator"].split(":", 1)[1]
                        label_interval(ax, metric_label(config, metric), row["ci_high"], position, kind)
            title = prompt_label(config, task, prompt)
            ax.set_title(f"{title} (lower is better)" if prompt_is_lower_better(config, task, prompt) else title)
            ax.set_xlabel("mean human score")
            ax.grid(axis="x", color=PALETTE["grey"], alpha=0.25, linewidth=0.6)
            ax.margins(x=0.15)
        axes[0].set_yticks(positions, [system_label(config, task, s) for s in systems])
        level = rows["level"].iloc[0] if len(rows) else float("nan")
        handles = estimate_legend_handles("judgments alone (mean)", "with the best metric (cv)")
        fig.legend(handles=handles, loc="outside lower center", ncol=2)
        fig.suptitle(f"{task_label(config, task)}: estimated mean human score with {level:.0%} intervals")
        grow_to_fit(fig)
    return fig
