"""Figure 5: heatmap of each metric's instance-level correlation with the mean human judgment,
per system and with all systems pooled."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from debias.config.labels import COMBINED, metric_label, prompt_is_lower_better, prompt_label, system_label, task_label
from debias.plots.style import CORRELATION_CMAP, FIGSIZE, STYLE, grow_to_fit, new_figure

__all__ = ["draw_figure5"]

_MISSING_COLOUR = "#E6E6E6"


#: Columns up to which the system labels stay horizontal at the paper's figure width.
_FLAT_LABELS = 6

#: What the figure says when the attenuation-corrected ρ cannot be computed.
UNCORRECTED_NOTE = (
    "No output was judged twice, so the annotator variance, and with it the paper's "
    "attenuation-corrected ρ, is not identifiable: Pearson's ρ of the judgment with the metric is shown."
)
MISSING_NOTE = "n/a: no correlation (fewer than two judged outputs, a constant metric or judgment)."


def _drawn_column(correlations: pd.DataFrame, task: str | None = None, prompt: str | None = None) -> str:
    """The paper's attenuation-corrected quantity when the table has it, else Pearson's ρ; also
    Pearson's ρ when no corrected value of ``task`` and ``prompt`` is finite (one judgment per
    item) but a Pearson ρ is."""
    if "rho_corrected" not in correlations.columns:
        return "rho"
    if task is not None:
        rows = correlations[(correlations["task"] == task) & (correlations["prompt"] == prompt)]
        corrected = pd.to_numeric(rows["rho_corrected"], errors="coerce")
        plain = pd.to_numeric(rows["rho"], errors="coerce")
        if not np.isfinite(corrected).any() and np.isfinite(plain).any():
            return "rho"
    return "rho_corrected"


def _size(n_rows: int, n_columns: int) -> tuple[float, float]:
    """The paper's size, grown with the number of metrics (rows) and systems (columns)."""
    width, height = FIGSIZE["figure5"]
    return max(width, 0.62 * n_columns + 2.6), max(height, 0.3 * n_rows + 1.2)


def _grid(correlations: pd.DataFrame, config: Mapping, task: str, prompt: str):
    """Row names (metrics), column names (systems, then ``combined``) and the ρ matrix (NaN
    where missing). Configured metrics and systems come first, in configuration order, then
    any others the table holds."""
    metrics = list(config.get("metrics") or {})
    systems = list(((config.get("tasks") or {}).get(task) or {}).get("systems") or {})
    rows = correlations[(correlations["task"] == task) & (correlations["prompt"] == prompt)]
    metrics += [m for m in dict.fromkeys(rows["metric"]) if m not in metrics and m != "perfect"]
    columns = systems + [s for s in dict.fromkeys(rows["system"]) if s not in systems and s != COMBINED]
    columns.append(COMBINED)
    values = np.full((len(metrics), len(columns)), np.nan)
    column = _drawn_column(correlations, task, prompt)
    for r in rows.to_dict("records"):
        if r["metric"] in metrics and r["system"] in columns:
            values[metrics.index(r["metric"]), columns.index(r["system"])] = float(r[column])
    return metrics, columns, values


def draw_figure5(correlations: pd.DataFrame, config: Mapping, task: str, prompt: str) -> Figure:
    """Heatmap of correlations for one task and prompt: metrics as rows, systems as columns.

    Parameters
    ----------
    correlations : pandas.DataFrame
        Columns ``task, prompt, system, metric, rho`` (``system`` ``combined`` = all pooled).
    config : mapping
        The parsed configuration (labels, metric and system order, prompt direction).
    task, prompt : str
        The task and prompt to draw.

    Returns
    -------
    matplotlib.figure.Figure
        A diverging map centred at 0, every cell annotated with its ρ (``n/a`` when missing,
        explained under the title) and a colour bar; the title says when negative ρ means
        agreement (lower-is-better prompts such as Edit). When no output was judged twice the
        corrected ρ is not identifiable, and Pearson's ρ is drawn with a note saying so. The
        figure grows with the metrics and systems; beyond six columns the system labels turn upright.
    """
    with mpl.rc_context(STYLE):
        metrics, columns, values = _grid(correlations, config, task, prompt)
        finite = np.abs(values[np.isfinite(values)])
        limit = max(0.1, float(np.ceil(finite.max() * 10.0) / 10.0)) if finite.size else 1.0
        limit = min(limit, 1.0)

        fig = new_figure("figure5")
        fig.set_size_inches(_size(len(metrics), len(columns)))
        ax = fig.add_subplot()
        cmap = mpl.colormaps[CORRELATION_CMAP].with_extremes(bad=_MISSING_COLOUR)
        # pcolormesh keeps every cell a vector rectangle in the PDF (imshow would embed a
        # tiny raster that viewers smooth).
        image = ax.pcolormesh(
            np.arange(len(columns) + 1) - 0.5,
            np.arange(len(metrics) + 1) - 0.5,
            np.ma.masked_invalid(values),
            cmap=cmap,
            vmin=-limit,
            vmax=limit,
            edgecolors="face",
            linewidth=0,
        )
        ax.set_xlim(-0.5, len(columns) - 0.5)
        ax.set_ylim(len(metrics) - 0.5, -0.5)
        ax.set_xticks(range(len(columns)), [system_label(config, task, s) for s in columns])
        if len(columns) > _FLAT_LABELS:
            ax.tick_params(axis="x", labelrotation=90)
        ax.set_yticks(range(len(metrics)), [metric_label(config, m) for m in metrics])
        ax.tick_params(length=0)
        for side in ("top", "right", "bottom", "left"):
            ax.spines[side].set_visible(False)
        ax.axvline(len(columns) - 1.5, color="white", linewidth=3)
        ax.set_xlabel("System (Combined: all systems pooled)")
        ax.set_ylabel("Automatic metric")

        for i in range(len(metrics)):
            for j in range(len(columns)):
                value = values[i, j]
                if np.isfinite(value):
                    text, color = f"{value:.2f}", "white" if abs(value) > 0.6 * limit else "black"
                else:
                    text, color = "n/a", "black"
                ax.text(j, i, text, ha="center", va="center", fontsize=8, color=color)

        colorbar = fig.colorbar(image, ax=ax, shrink=0.95, pad=0.02)
        drawn = _drawn_column(correlations, task, prompt)
        if drawn == "rho_corrected":
            colorbar.set_label(r"$\mathrm{Cov}(f,g)\,/\,(\sigma_f\,\mathrm{sd}(g))$ (paper's $\rho$)")
        else:
            colorbar.set_label(r"Pearson $\rho$ (item mean human judgment vs metric)")
        colorbar.outline.set_visible(False)

        title = f"{task_label(config, task)}, {prompt_label(config, task, prompt)}: instance-level correlation"
        if prompt_is_lower_better(config, task, prompt):
            title += f"\n{prompt_label(config, task, prompt)} is lower-is-better, so negative $\\rho$ means agreement"
        notes = []
        if drawn == "rho" and "rho_corrected" in correlations.columns:
            notes.append(UNCORRECTED_NOTE)
        if not np.isfinite(values).all():
            notes.append(MISSING_NOTE)
        if notes:
            chars = int(fig.get_size_inches()[0] * 13)
            title += "\n" + "\n".join(textwrap.fill(note, chars) for note in notes)
        ax.set_title(title)
        grow_to_fit(fig)
        return fig
