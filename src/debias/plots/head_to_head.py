"""Figures: the head-to-head matrix as a heatmap (:func:`draw_head_to_head`, from the rows of
:func:`debias.tables.preferences.head_to_head_table`) and estimates per level of a column
(:func:`draw_breakdown`, from :func:`debias.tables.preferences.preference_breakdown`)."""

from __future__ import annotations

import math

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure

from debias.plots.style import DPI, PALETTE, STYLE, grow_to_fit
from debias.stats.common.vocabulary import ESTIMAND_LABELS, estimand_axis, is_people_only

__all__ = ["draw_breakdown", "draw_head_to_head"]

#: Up to this many systems a cell shows its interval under the estimate.
_INTERVALS_UP_TO = 24
#: Up to this many systems a cell writes its estimate; beyond, the colours alone, the cells
#: shrinking so that the grid stays about :data:`_LARGEST_GRID` inches across (200 systems drawn
#: cell by cell at a constant size took 8 GB and two minutes).
_VALUES_UP_TO = 40
_LARGEST_GRID = 14.0
#: Diverging colours (ColorBrewer PuOr, colour-blind safe) centred at a win rate of 0.5.
_CMAP = "PuOr_r"


def _short(value: float) -> str:
    """A share in two digits without the leading zero (``.66``), ``1`` and ``0`` in full."""
    if value >= 0.995:
        return "1"
    if value < 0.005:
        return "0"
    return f"{value:.2f}".lstrip("0")


def draw_head_to_head(table: pd.DataFrame, *, estimator: str = "human", title: str = "", ties: str = "half") -> Figure:
    """The head-to-head matrix of one estimator: row system's win rate against the column system.

    Each cell is coloured by the estimate (0.5 white) and writes it, with the simultaneous
    interval below it up to 24 systems; an estimate whose interval excludes 0.5 is bold. A
    pair without battles is hatched, one without an estimate (no human verdict) grey. Systems
    as in the table (strongest first, top to bottom and left to right). A note under the matrix
    names the systems left out (``table.attrs["omitted"]``).
    """
    rows = table[table["estimator"] == estimator]
    if rows.empty:
        raise ValueError(f"no rows of estimator {estimator!r} (the table has {sorted(set(table['estimator']))})")
    systems = list(dict.fromkeys([*rows["system"], *rows["opponent"]]))
    n = len(systems)
    at = {s: k for k, s in enumerate(systems)}
    i, j = rows["system"].map(at).to_numpy(), rows["opponent"].map(at).to_numpy()
    grid = {c: np.full((n, n), np.nan) for c in ("estimate", "ci_low", "ci_high")}
    for c in grid:
        grid[c][i, j] = rows[c].to_numpy(dtype=float)
    battles = np.zeros((n, n))
    battles[i, j] = rows["n_battles"].to_numpy(dtype=float)
    values = n <= _VALUES_UP_TO
    cell = 0.46 if n <= _INTERVALS_UP_TO else 0.3 if values else _LARGEST_GRID / n
    font = 6.0 if n <= 12 else 5.0 if n <= _INTERVALS_UP_TO else 4.2
    side = max(3.0, cell * n)
    with mpl.rc_context(STYLE):
        fig = Figure(figsize=(side + 2.6, side + 1.3), dpi=DPI, layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.subplots()
        shown = np.ma.masked_invalid(grid["estimate"])
        cmap = mpl.colormaps[_CMAP].with_extremes(bad=mpl.colors.to_rgba(PALETTE["grey"], 0.25))
        image = ax.imshow(shown, cmap=cmap, norm=TwoSlopeNorm(0.5, 0.0, 1.0), aspect="equal", interpolation="none")
        if not values:  # one layer for the diagonal (white) and the pairs without battles (light grey)
            layer = np.where(battles == 0, 1.0, np.nan)
            np.fill_diagonal(layer, 0.0)
            ax.imshow(
                np.ma.masked_invalid(layer),
                cmap=mpl.colors.ListedColormap(["white", mpl.colors.to_rgba(PALETTE["grey"], 0.45)]),
                vmin=0.0,
                vmax=1.0,
                aspect="equal",
                interpolation="none",
            )
        for r in range(n if values else 0):
            for c in range(n):
                if r == c:
                    ax.add_patch(mpl.patches.Rectangle((c - 0.5, r - 0.5), 1, 1, color="white", zorder=2))
                    continue
                if battles[r, c] == 0:
                    ax.add_patch(
                        mpl.patches.Rectangle(
                            (c - 0.5, r - 0.5), 1, 1, fill=False, hatch="////", color=PALETTE["grey"], lw=0, zorder=2
                        )
                    )
                    continue
                value = grid["estimate"][r, c]
                if not np.isfinite(value):
                    continue
                low, high = grid["ci_low"][r, c], grid["ci_high"][r, c]
                decided = np.isfinite(low) and (low > 0.5 or high < 0.5)
                colour = "white" if abs(value - 0.5) > 0.33 else "black"
                text = _short(value)
                if n <= _INTERVALS_UP_TO and np.isfinite(low) and np.isfinite(high):
                    text += f"\n{_short(low)}–{_short(high)}"
                ax.text(
                    c,
                    r,
                    text,
                    ha="center",
                    va="center",
                    fontsize=font,
                    color=colour,
                    fontweight="bold" if decided else "normal",
                    linespacing=1.0,
                )
        ax.set_xticks(np.arange(n), systems, rotation=55, ha="right", rotation_mode="anchor")
        ax.set_yticks(np.arange(n), systems)
        ax.tick_params(length=0, labelsize=8 if n <= _INTERVALS_UP_TO else 6.5 if values else max(2.0, 72 * cell * 0.8))
        ax.set_xticks(np.arange(n + 1) - 0.5, minor=True)
        ax.set_yticks(np.arange(n + 1) - 0.5, minor=True)
        ax.grid(which="minor", color="white", linewidth=0.6)
        ax.tick_params(which="minor", length=0)
        for spine in ax.spines.values():
            spine.set_visible(False)
        ax.set_xlabel("opponent")
        ax.set_ylabel("system")
        bar = fig.colorbar(image, ax=ax, shrink=0.6, pad=0.02)
        bar.set_label(f"system's {estimand_axis('win_rate', ties).lower()}", fontsize=8)
        level = float(rows["level"].iloc[0])
        pairs = int(rows["n_pairs"].iloc[0])
        heading = f"{title}: " if title else ""
        fig.suptitle(f"{heading}head-to-head win rates ({estimator})")
        lines = [
            f"{level:.0%} intervals simultaneous over the {pairs} pairs"
            + (" (bold: the interval excludes 0.5)" if values else ""),
            "hatched: no battles; grey: no estimate; a value alone: no interval (one battle, say)"
            if values
            else f"light grey: no battles; colours alone beyond {_VALUES_UP_TO} systems (the values are in the table)",
        ]
        omitted = list(table.attrs.get("omitted") or [])
        if omitted:
            lines.append(f"{len(omitted)} weaker systems left out (the {n} strongest shown)")
        # right-aligned over the grid: with long names the space left of it is free, the colour bar right of it is not
        ax.set_title("\n".join(lines), fontsize=7, color=PALETTE["black"], loc="right")
        grow_to_fit(fig)
    return fig


#: A breakdown figure draws at most this many levels (a panel each); the table has them all.
MAX_LEVELS_SHOWN = 24


def draw_breakdown(
    table: pd.DataFrame, *, estimand: str = "win_rate", estimator: str = "human", title: str = "", ties: str = "half"
) -> Figure:
    """Each system's estimate within each level of the breakdown column, one panel per level,
    with the intervals simultaneous over the levels; the estimate from every battle is the grey
    tick in every panel. At most :data:`MAX_LEVELS_SHOWN` levels are drawn, the first in the
    table, and the title says so. Systems sorted by that estimate (highest on top); a system without an
    estimate in a level keeps its row, empty."""
    rows = table[(table["estimand"] == estimand) & (table["estimator"] == estimator)]
    if rows.empty:
        raise ValueError(f"the table has no {estimand!r} rows of estimator {estimator!r}")
    overall = rows[rows["by"].isna()].set_index("system")["estimate"]
    parts = rows[rows["by"].notna()]
    levels = list(dict.fromkeys(parts["by"]))
    shown = levels[:MAX_LEVELS_SHOWN]  # a panel each: beyond that the figure is unreadable (and slow)
    systems = list(dict.fromkeys(rows["system"]))
    order = sorted(systems, key=lambda s: -np.nan_to_num(overall.get(s, np.nan), nan=-np.inf))
    n_columns = min(len(shown), 4) or 1
    n_rows = max(1, math.ceil(len(shown) / n_columns))
    height = 0.22 * len(order) + 0.9
    by = table.attrs.get("by", "by")
    with mpl.rc_context(STYLE):
        fig = Figure(figsize=(1.9 * n_columns + 1.4, height * n_rows + 1.0), dpi=DPI, layout="constrained")
        FigureCanvasAgg(fig)
        axes = np.atleast_1d(fig.subplots(n_rows, n_columns, sharex=True, sharey=True, squeeze=False)).ravel()
        y = np.arange(len(order))[::-1].astype(float)
        colour = PALETTE["black"] if is_people_only(estimator) else PALETTE["blue"]
        for ax, level in zip(axes, shown):
            part = parts[parts["by"] == level].set_index("system").reindex(order)
            estimate, low, high = (part[c].to_numpy(dtype=float) for c in ("estimate", "ci_low", "ci_high"))
            seen = np.isfinite(estimate)
            ax.errorbar(
                estimate[seen],
                y[seen],
                xerr=[
                    np.where(np.isfinite(low), estimate - low, 0.0)[seen],
                    np.where(np.isfinite(high), high - estimate, 0.0)[seen],
                ],
                fmt="o",
                color=colour,
                markersize=3,
                capsize=1.5,
                linewidth=1.0,
            )
            reference = overall.reindex(order).to_numpy(dtype=float)
            ax.plot(reference, y, "|", color=PALETTE["vermillion"], markersize=7, alpha=0.8)
            n_battles = int(part["n_judged"].fillna(0).sum() // 2) if estimand == "win_rate" else None
            label = f"{by} = {level}" + (f"\n({n_battles} human battles)" if n_battles is not None else "")
            ax.set_title(label, fontsize=8)
            ax.grid(axis="x", color=PALETTE["grey"], alpha=0.25, linewidth=0.6)
            if estimand == "win_rate":
                ax.axvline(0.5, color=PALETTE["grey"], linewidth=0.6, alpha=0.6)
        for ax in axes[len(shown) :]:
            ax.set_visible(False)
        axes[0].set_yticks(y, order)
        fig.supxlabel(estimand_axis(estimand, ties), fontsize=9)
        level = float(rows["level"].iloc[0])
        heading = f"{title}: " if title else ""
        fig.suptitle(
            f"{heading}{ESTIMAND_LABELS.get(estimand, estimand)} by {by} ({estimator}), "
            f"{level:.0%} intervals simultaneous over the {len(levels)} levels; "
            + (f"the first {len(shown)} shown; " if len(shown) < len(levels) else "")
            + "tick: every battle",
            fontsize=9,
        )
        grow_to_fit(fig)
    return fig
