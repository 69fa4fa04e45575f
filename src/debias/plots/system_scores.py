"""Figure: each system's estimated mean human score per prompt, judgments alone and with the best
control variate (the report's, :func:`debias.tables.selection.best_control_variate`), with their
intervals (``results/figures/system_scores_<task>.{pdf,png}``)."""

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
from debias.stats.common.vocabulary import ESTIMAND_LABELS, describe, estimand_axis, is_control_variate, is_people_only
from debias.stats.ratings import MIN_ITEMS
from debias.tables.selection import NO_METRIC_HELPS, best_control_variate

__all__ = ["draw_system_scores"]


def _best_cv(cell: pd.DataFrame) -> pd.Series | None:
    """The row of :func:`debias.tables.selection.best_control_variate` (the report's choice) among
    one system × prompt's rows, or ``None`` when no metric helps."""
    name = best_control_variate(cell)
    return None if name is None else cell[cell["estimator"] == name].iloc[0]


def _cv_label(config: Mapping, estimator: str) -> str:
    info = describe(estimator)
    return "all metrics (combined)" if info.combined else metric_label(config, info.proxy)


def _no_interval(row) -> str:
    """The short label of a mean drawn without an interval (its note says why in the table)."""
    n = int(row["n_judged"])
    if n < MIN_ITEMS:
        return f"no interval: {n} judged item{'' if n == 1 else 's'}"
    return "no interval: every judged item scored the same"


def draw_system_scores(estimates: pd.DataFrame, config: Mapping, task: str) -> Figure:
    """One panel per prompt of ``task``: every system's ``mean`` and best control variate.

    The best control variate is the report's
    (:func:`debias.tables.selection.best_control_variate`): drawn and labelled with its metric
    when it narrows the interval by more than the tolerance, else the mean's interval is
    labelled "no metric helps".

    Parameters
    ----------
    estimates : pandas.DataFrame
        ``results/tables/system_estimates.csv``.
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
                cell = rows[(rows["system"] == system) & (rows["prompt"] == prompt)]
                mean = cell[cell["estimator"].map(is_people_only)]
                if mean.empty:
                    continue
                best = _best_cv(cell)
                position = draw_interval(ax, *mean.iloc[0][["estimate", "ci_low", "ci_high"]], y, "mean")
                if not np.isfinite(mean.iloc[0][["ci_low", "ci_high"]].to_numpy(dtype=float)).all():
                    label_interval(ax, _no_interval(mean.iloc[0]), mean.iloc[0]["estimate"], position, "mean")
                    continue
                if best is None:
                    if cell["estimator"].map(is_control_variate).any():
                        label_interval(ax, NO_METRIC_HELPS, mean.iloc[0]["ci_high"], position, "mean")
                    continue
                position = draw_interval(ax, best["estimate"], best["ci_low"], best["ci_high"], y, "cv")
                label_interval(ax, _cv_label(config, best["estimator"]), best["ci_high"], position, "cv")
            title = prompt_label(config, task, prompt)
            ax.set_title(f"{title} (lower is better)" if prompt_is_lower_better(config, task, prompt) else title)
            ax.set_xlabel(estimand_axis("mean"))
            ax.grid(axis="x", color=PALETTE["grey"], alpha=0.25, linewidth=0.6)
            ax.margins(x=0.15)
        axes[0].set_yticks(positions, [system_label(config, task, s) for s in systems])
        level = rows["level"].iloc[0] if len(rows) else float("nan")
        handles = estimate_legend_handles("judgments alone (mean)", "with the best control variate (cv)")
        fig.legend(handles=handles, loc="outside lower center", ncol=2)
        fig.suptitle(f"{task_label(config, task)}: estimated {ESTIMAND_LABELS['mean']} with {level:.0%} intervals")
        grow_to_fit(fig)
    return fig
