"""Figure 6: bootstrap confidence-interval width against the number of human judgments, for
humans alone, humans + metric, noiseless humans + metric and humans + a perfect metric."""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib as mpl
import matplotlib.ticker as mticker
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from debias.config.labels import CONDITIONS, condition_label, metric_label, prompt_label, system_label, task_label
from debias.config.settings import section_defaults
from debias.plots.style import CONDITION_STYLES, STYLE, new_figure

__all__ = ["draw_figure6"]


def _curve_metric(condition: str, metric: str) -> str:
    """The ``metric`` column of a condition's curve: humans alone use none, the perfect metric
    is ``perfect``."""
    return {"mean": "none", "perfect": "perfect"}.get(condition, metric)


def _data_efficiency(table: pd.DataFrame, panel: Mapping, metric: str, condition: str) -> float:
    rows = table[
        (table["task"] == panel["task"])
        & (table["prompt"] == panel["prompt"])
        & (table["system"] == panel["system"])
        & (table["metric"] == metric)
        & (table["condition"] == condition)
    ]
    return float(rows["de"].iloc[0]) if not rows.empty else float("nan")


def _fmt_de(value: float) -> str:
    return f"{value:.2f}" if np.isfinite(value) else "n/a"


def draw_figure6(curves: pd.DataFrame, data_efficiency: pd.DataFrame, panel: Mapping, config: Mapping) -> Figure:
    """CI width against the number of human judgments for one Figure 6 panel, log-log.

    Parameters
    ----------
    curves : pandas.DataFrame
        Columns ``task, prompt, system, metric, condition, n, width`` (the bootstrap curves).
    data_efficiency : pandas.DataFrame
        Columns ``task, prompt, system, metric, condition, de``; each condition's DE is shown
        in its legend entry and the metric's in the title.
    panel : mapping
        ``name`` (the panel letter, shown as "(a)"), ``task, prompt, system``, ``metric`` (a
        metric name, already resolved: see :func:`debias.tables.selection.panel_metric`) and
        ``chosen_as_best`` (whether that metric is the one with the highest |ρ|).
    config : mapping
        The parsed configuration (labels, ``bootstrap.level`` and ``bootstrap.de_range``).

    Returns
    -------
    matplotlib.figure.Figure
        One line per condition that has a curve, and the band of n over which DE is averaged.
        Raises ``LookupError`` when the panel has no curve at all.
    """
    with mpl.rc_context(STYLE):
        task, prompt, system, metric = panel["task"], panel["prompt"], panel["system"], str(panel["metric"])
        name = str(panel.get("name") or "")
        sub = curves[(curves["task"] == task) & (curves["prompt"] == prompt) & (curves["system"] == system)]
        de = {
            condition: _data_efficiency(data_efficiency, panel, _curve_metric(condition, metric), condition)
            for condition in CONDITIONS
            if condition != "mean"
        }

        fig = new_figure("figure6")
        ax = fig.add_subplot()
        drawn = 0
        for condition in CONDITIONS:
            line = sub[(sub["condition"] == condition) & (sub["metric"] == _curve_metric(condition, metric))]
            if line.empty:
                continue
            line = line.sort_values("n")
            label = condition_label(config, condition, metric)
            if condition in de:
                label = f"{label} (DE {_fmt_de(de[condition])})"
            ax.plot(line["n"], line["width"], label=label, **CONDITION_STYLES[condition])
            drawn += 1
        if drawn == 0:
            raise LookupError(f"figure6{name}: no curves for task={task!r} prompt={prompt!r} system={system!r}")

        boot = config.get("bootstrap") or {}
        boot = {**section_defaults("bootstrap"), **boot}
        level = float(boot["level"])
        low, high = boot["de_range"][:2]
        n_max = float(sub["n"].max())
        ax.axvspan(
            low * n_max, high * n_max, color="#EEEEEE", zorder=0, label=f"n averaged for DE ({low:g}N to {high:g}N)"
        )
        # Widths shrink like 1/sqrt(n): on log-log axes the curves are parallel lines whose
        # vertical gap is half the log of the data efficiency, visible at every n.
        ax.set_xscale("log")
        ax.set_yscale("log")
        for axis in (ax.xaxis, ax.yaxis):
            axis.set_major_locator(mticker.LogLocator(base=10.0, subs=(1.0, 2.0, 5.0)))
            axis.set_major_formatter(mticker.FuncFormatter(lambda value, _: f"{value:g}"))
            axis.set_minor_formatter(mticker.NullFormatter())
        ax.set_xlim(max(1.0, float(sub["n"].min())), n_max * 1.05)
        ax.set_xlabel("Number of human judgments n (log scale)")
        ax.set_ylabel(f"{level:.0%} bootstrap confidence-interval width (log scale)")
        ax.grid(True, which="major", color="#DDDDDD", linewidth=0.6)
        ax.set_axisbelow(True)
        ax.legend(loc="lower left")

        m_label = metric_label(config, metric)
        how = (
            f"{m_label}: highest |$\\rho$| for this system and prompt"
            if panel.get("chosen_as_best")
            else f"metric: {m_label} (set in the config)"
        )
        letter = f"({name}) " if name else ""
        ax.set_title(
            f"{letter}{system_label(config, task, system)} on "
            f"{task_label(config, task)}, {prompt_label(config, task, prompt)}: "
            f"DE = {_fmt_de(de['cv'])} ({condition_label(config, 'cv', metric)} vs {condition_label(config, 'mean')})"
            f"\n{how}"
        )
        return fig
