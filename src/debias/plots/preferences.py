"""Figure: each system's win rate (or Bradley-Terry strength) with its interval, one bar per
estimator, from the rows of :func:`debias.tables.preferences.preference_table`."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from debias.plots.style import DPI, PALETTE, STYLE, grow_to_fit
from debias.stats.common.vocabulary import ESTIMAND_LABELS, estimand_axis, is_biased, is_people_only

__all__ = ["draw_preferences"]

#: Colours of the unbiased estimators, in the order they are drawn (cycled); judges are grey.
_COLOURS = [PALETTE["black"], PALETTE["blue"], PALETTE["vermillion"], PALETTE["bluish_green"], PALETTE["orange"]]


#: Markers of the unbiased estimators, in the order they are drawn: with the colours cycled
#: beside them, every (colour, marker) differs up to 20 estimators (hollow from the 11th).
_MARKERS = ["o", "s", "D", "^", "v", "P", "X", "*", "h", "<"]
#: Markers of the judges' (biased) estimates, all grey, unfilled, in the order they are drawn.
_JUDGE_MARKERS = ["x", "+", "1", "2", "3", "4", "|", "_"]


def _style(estimator: str, unbiased: list[str], judges: list[str]) -> dict:
    """The colour, marker and fill of an estimator: distinct for every estimator of the figure
    (``ppi++:combined`` is never drawn like ``human``), whatever the number of judges."""
    if is_biased(estimator):
        k = judges.index(estimator)
        grey = PALETTE["grey"] if (k // len(_JUDGE_MARKERS)) % 2 == 0 else PALETTE["black"]
        return {"color": grey, "marker": _JUDGE_MARKERS[k % len(_JUDGE_MARKERS)], "fillstyle": "full"}
    k = unbiased.index(estimator)
    return {
        "color": _COLOURS[k % len(_COLOURS)],
        "marker": _MARKERS[k % len(_MARKERS)],
        "fillstyle": "full" if (k // len(_MARKERS)) % 2 == 0 else "none",
    }


def draw_preferences(
    table: pd.DataFrame,
    *,
    estimand: str = "win_rate",
    estimators: Sequence[str] | None = None,
    title: str = "",
    ties: str = "half",
) -> Figure:
    """Every system's estimate of ``estimand`` with its interval, one bar per estimator.

    Parameters
    ----------
    table : pandas.DataFrame
        The rows of :func:`debias.preferences`.
    estimand : {"win_rate", "strength"}
        What to draw.
    estimators : sequence of str, optional
        The estimators to draw, in this order (default: all of the table's, ``judge:*`` in grey
        with their own markers, as they are biased).
    ties : {"half", "drop"}
        How a tie counted in the win rates drawn (the axis says so).
    title : str
        The figure's title (the level is added).

    Returns
    -------
    matplotlib.figure.Figure
        Systems as rows, sorted by the ``human`` estimate (highest on top); a system without an
        estimate keeps its row, empty.
    """
    rows = table[table["estimand"] == estimand]
    if rows.empty:
        raise ValueError(f"the table has no {estimand!r} rows")
    names = list(dict.fromkeys(rows["estimator"])) if estimators is None else list(estimators)
    unknown = [name for name in names if name not in set(rows["estimator"])]
    if unknown:
        raise ValueError(f"no rows of estimator {unknown[0]!r} (the table has {sorted(set(rows['estimator']))})")
    human = rows[rows["estimator"].map(is_people_only)].set_index("system")["estimate"]
    systems = list(dict.fromkeys(rows["system"]))
    order = sorted(systems, key=lambda s: -np.nan_to_num(human.get(s, np.nan), nan=-np.inf))
    unbiased = [name for name in names if not is_biased(name)]
    judges = [name for name in names if is_biased(name)]
    spacing = 0.7 / max(len(names), 1)
    with mpl.rc_context(STYLE):
        fig = Figure(figsize=(6.4, 0.3 * len(systems) * max(1.0, len(names) / 3) + 1.4), dpi=DPI, layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.subplots()
        positions = np.arange(len(order))[::-1].astype(float)
        handles = []
        for k, name in enumerate(names):
            style = _style(name, unbiased, judges)
            part = rows[rows["estimator"] == name].set_index("system").reindex(order)
            y = positions + 0.35 - spacing * (k + 0.5)
            estimate, lower, upper = (part[c].to_numpy(dtype=float) for c in ("estimate", "ci_low", "ci_high"))
            shown = np.isfinite(estimate)
            low = np.where(np.isfinite(lower), estimate - lower, 0.0)
            high = np.where(np.isfinite(upper), upper - estimate, 0.0)
            ax.errorbar(
                estimate[shown],
                y[shown],
                xerr=[low[shown], high[shown]],
                fmt=style["marker"],
                color=style["color"],
                fillstyle=style["fillstyle"],
                markersize=3.5,
                capsize=1.5,
                linewidth=1.0,
                linestyle="none",
            )
            label = f"{name} (biased)" if is_biased(name) else name
            handles.append(
                Line2D([], [], color=style["color"], marker=style["marker"], fillstyle=style["fillstyle"], label=label)
            )
        ax.set_yticks(positions, order)
        ax.set_xlabel(estimand_axis(estimand, ties))
        ax.grid(axis="x", color=PALETTE["grey"], alpha=0.25, linewidth=0.6)
        level = rows["level"].iloc[0]
        fig.legend(handles=handles, loc="outside lower center", ncol=min(len(handles), 3))
        heading = f"{title}: " if title else ""
        fig.suptitle(f"{heading}{ESTIMAND_LABELS.get(estimand, estimand)} with {level:.0%} intervals")
        grow_to_fit(fig)
    return fig
