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
from debias.stats.common.vocabulary import ESTIMAND_LABELS, estimand_axis, is_biased, is_people_only

__all__ = ["draw_leaderboard", "draw_preference_leaderboard", "narrowest_estimator"]

#: The estimands of the preference leaderboard's panels, in order.
PREFERENCE_PANELS = ("win_rate", "strength")


def narrowest_estimator(rows: pd.DataFrame) -> str | None:
    """The estimator that uses proxies without bias (neither the people-only baseline nor a
    biased ``judge:*``) whose ranked rows have the smallest mean rank-set size (then the smallest
    mean interval width; the first in table order on a tie), or ``None``."""
    names = rows["estimator"].astype(str)
    candidates = ~names.map(is_people_only) & ~names.map(is_biased)
    ranked = rows[candidates & rows["rank_low"].notna()]
    if ranked.empty:
        return None
    order = list(dict.fromkeys(ranked["estimator"]))
    size = (ranked["rank_high"] - ranked["rank_low"]).groupby(ranked["estimator"]).mean()
    width = (ranked["upper"] - ranked["lower"]).groupby(ranked["estimator"]).mean()
    return min(order, key=lambda name: (size[name], width[name], order.index(name)))


def _draw_ranked_panels(panels, *, baseline_label: str, label_of, level: float, title: str) -> Figure:
    """The shared drawing: one row of two panels per ``(rows, panel title, axis label)`` in
    ``panels``: the systems in the order of the people-only estimator's point rank, top first,
    its intervals and those of the estimator with the narrowest rank-sets (left), their rank-sets
    as bars with the point rank marked (right). ``label_of`` maps a system to its label."""
    n_systems = max((rows["system"].nunique() for rows, _, _ in panels), default=1)
    with mpl.rc_context(STYLE):
        row_height = 0.32 if n_systems <= 20 else 0.26
        size = (9.0, len(panels or [None]) * (row_height * n_systems + 1.0) + 0.8)
        fig = Figure(figsize=size, dpi=DPI, layout="constrained")
        FigureCanvasAgg(fig)
        axes = fig.subplots(max(len(panels), 1), 2, squeeze=False, width_ratios=[3, 2])
        for (left, right), (rows, panel_title, xlabel) in zip(axes, panels):
            first = rows[rows["estimator"].astype(str).map(is_people_only)]
            baseline = first["estimator"].iloc[0] if len(first) else None
            order = list(first.sort_values(["rank", "system"], na_position="last")["system"])
            order += [s for s in dict.fromkeys(rows["system"]) if s not in order]
            positions = dict(zip(order, np.arange(len(order))[::-1]))
            best = narrowest_estimator(rows)
            for kind, name in (("mean", baseline), ("cv", best)):
                shown = rows[(rows["estimator"] == name) & rows["rank_low"].notna()]
                style = ESTIMATE_STYLES[kind]
                for row in shown.itertuples(index=False):
                    y = draw_interval(left, row.estimate, row.lower, row.upper, positions[row.system], kind)
                    right.plot([row.rank_low - 0.35, row.rank_high + 0.35], [y, y], color=style["color"],
                               linewidth=3.5, alpha=0.45, solid_capstyle="butt")  # fmt: skip
                    right.plot(row.rank, y, marker=style["marker"], color=style["color"], markersize=3.5)
            labels = [label_of(s) for s in order]
            for ax in (left, right):
                ax.set_yticks(list(positions.values()), labels if ax is left else [])
                ax.set_ylim(-0.7, len(order) - 0.3)
                ax.grid(axis="x", color=PALETTE["grey"], alpha=0.25, linewidth=0.6)
            left.set_title(panel_title)
            left.set_xlabel(xlabel)
            right.set_xlim(0.4, len(order) + 0.6)
            right.set_xticks(range(1, len(order) + 1, 1 if len(order) <= 15 else 2))
            right.set_xlabel("rank (1 = best)")
            right.set_title(f"rank-sets ({best or f'{baseline} only'} in blue)" if best else "rank-sets")
        for left, right in axes[len(panels) :]:
            left.set_visible(False)
            right.set_visible(False)
        handles = estimate_legend_handles(baseline_label, "estimator with the narrowest rank-sets")
        fig.legend(handles=handles, loc="outside lower center", ncol=2)
        at_once = f"rank-sets holding for all systems at once with probability {level:.0%}"
        fig.suptitle(f"{title}: {level:.0%} intervals, and {at_once}")
        grow_to_fit(fig)
    return fig


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
    panels = []
    for prompt in prompts:
        title = prompt_label(config, task, prompt)
        lower = prompt_is_lower_better(config, task, prompt)
        panels.append(
            (rows[rows["prompt"] == prompt], f"{title} (lower is better)" if lower else title, estimand_axis("mean"))
        )
    level = float(rows["level"].iloc[0]) if len(rows) else float("nan")
    return _draw_ranked_panels(
        panels,
        baseline_label="mean of the judgments",
        label_of=lambda system: system_label(config, task, system),
        level=level,
        title=task_label(config, task),
    )


def draw_preference_leaderboard(leaderboard: pd.DataFrame, *, title: str, ties: str = "half") -> Figure:
    """The leaderboard of a preference task (:func:`debias.tables.leaderboard.preferences_leaderboard`):
    a row of panels per estimand (win rate, then strength), the systems in the order of their
    ``human`` point rank, ``human`` beside the unbiased estimator with the narrowest rank-sets
    (never a ``judge:*``, which ranks the judge, not people); ``ties`` is how a tie counted in the
    win rates (the axis says so)."""
    panels = [
        (leaderboard[leaderboard["estimand"] == estimand], ESTIMAND_LABELS[estimand], estimand_axis(estimand, ties))
        for estimand in PREFERENCE_PANELS
        if (leaderboard["estimand"] == estimand).any()
    ]
    level = float(leaderboard["level"].dropna().iloc[0]) if leaderboard["level"].notna().any() else float("nan")
    return _draw_ranked_panels(panels, baseline_label="human verdicts", label_of=str, level=level, title=title)
