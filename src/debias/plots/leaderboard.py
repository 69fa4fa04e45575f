"""Figure: the leaderboard of a task, one row of panels per prompt: the systems in order with
their intervals, and their simultaneous rank-sets as bars, for the plain mean beside the
estimator with the narrowest rank-sets (``results/figures/leaderboard_<task>.{pdf,png}``)."""

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
    ESTIMATE_STYLES,
    PALETTE,
    STYLE,
    draw_interval,
    estimate_legend_handles,
    grow_to_fit,
)

__all__ = ["draw_leaderboard", "narrowest_estimator"]


def narrowest_estimator(rows: pd.DataFrame) -> str | None:
    """The estimator other than ``mean`` whose ranked rows have the smallest mean rank-set size
    (then the smallest mean interval width; the first in table order on a tie), or ``None``."""
    ranked = rows[(rows["estimator"] != "mean") & rows["rank_low"].notna()]
    if ranked.empty:
        return None
    order = list(dict.fromkeys(ranked["estimator"]))
    size = (ranked["rank_high"] - ranked["rank_low"]).groupby(ranked["estimator"]).mean()
    width = (ranked["upper"] - ranked["lower"]).groupby(ranked["estimator"]).mean()
    return min(order, key=lambda name: (size[name], width[name], order.index(name)))


def draw_leaderboard(leaderboard: pd.DataFrame, config: Mapping, task: str) -> Figure:
    """Per prompt of ``task``: the systems best first, ``mean`` and the estimator with the
    narrowest rank-sets, their intervals (left) and rank-sets (right).

    Parameters
    ----------
    leaderboard : pandas.DataFrame
        ``results/tables/leaderboard.csv``.
    config : mapping
        The parsed configuration (labels, prompt order and direction).
    task : str
        The task to draw.

    Returns
    -------
    matplotlib.figure.Figure
        One row of two panels per prompt; systems in the order of their ``mean`` point rank,
        top first; a rank-set is a bar from ``rank_low`` to ``rank_high`` with the point rank
        marked. The height grows with the number of systems (readable at 30).
    """
    rows = leaderboard[leaderboard["task"] == task]
    prompts = [p for p in config["tasks"][task]["prompts"] if p in set(rows["prompt"])]
    n_systems = max((rows[rows["prompt"] == p]["system"].nunique() for p in prompts), default=1)
    level = float(rows["level"].iloc[0]) if len(rows) else float("nan")
    with mpl.rc_context(STYLE):
        row_height = 0.32 if n_systems <= 20 else 0.26
        size = (9.0, len(prompts or [None]) * (row_height * n_systems + 1.0) + 0.8)
        fig = Figure(figsize=size, dpi=DPI, layout="constrained")
        FigureCanvasAgg(fig)
        axes = fig.subplots(max(len(prompts), 1), 2, squeeze=False, width_ratios=[3, 2])
        for (left, right), prompt in zip(axes, prompts):
            of_prompt = rows[rows["prompt"] == prompt]
            mean = of_prompt[of_prompt["estimator"] == "mean"]
            order = list(mean.sort_values(["rank", "system"], na_position="last")["system"])
            order += [s for s in dict.fromkeys(of_prompt["system"]) if s not in order]
            positions = dict(zip(order, np.arange(len(order))[::-1]))
            best = narrowest_estimator(of_prompt)
            for kind, name in (("mean", "mean"), ("cv", best)):
                shown = of_prompt[(of_prompt["estimator"] == name) & of_prompt["rank_low"].notna()]
                style = ESTIMATE_STYLES[kind]
                for row in shown.itertuples(index=False):
                    y = draw_interval(left, row.estimate, row.lower, row.upper, positions[row.system], kind)
                    right.plot([row.rank_low - 0.35, row.rank_high + 0.35], [y, y], color=style["color"],
                               linewidth=3.5, alpha=0.45, solid_capstyle="butt")  # fmt: skip
                    right.plot(row.rank, y, marker=style["marker"], color=style["color"], markersize=3.5)
            labels = [system_label(config, task, s) for s in order]
            for ax in (left, right):
                ax.set_yticks(list(positions.values()), labels if ax is left else [])
                ax.set_ylim(-0.7, len(order) - 0.3)
                ax.grid(axis="x", color=PALETTE["grey"], alpha=0.25, linewidth=0.6)
            title = prompt_label(config, task, prompt)
            lower = prompt_is_lower_better(config, task, prompt)
            left.set_title(f"{title} (lower is better)" if lower else title)
            left.set_xlabel("mean human score")
            right.set_xlim(0.4, len(order) + 0.6)
            right.set_xticks(range(1, len(order) + 1, 1 if len(order) <= 15 else 2))
            right.set_xlabel("rank (1 = best)")
            right.set_title(f"rank-sets ({best or 'mean only'} in blue)" if best else "rank-sets")
        for left, right in axes[len(prompts) :]:
            left.set_visible(False)
            right.set_visible(False)
        handles = estimate_legend_handles("mean of the judgments", "estimator with the narrowest rank-sets")
        fig.legend(handles=handles, loc="outside lower center", ncol=2)
        fig.suptitle(
            f"{task_label(config, task)}: {level:.0%} intervals, and rank-sets holding for all systems at once "
            f"with probability {level:.0%}"
        )
        grow_to_fit(fig)
    return fig
