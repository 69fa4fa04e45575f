"""Figures of the reproduction: Figure 3 (inverse data efficiency), Figure 5 (metric
correlations) and Figure 6 (confidence-interval width against number of judgments).

Every plotting function takes the pipeline's tables (pandas DataFrames) and the parsed
config, and returns a :class:`matplotlib.figure.Figure`; :func:`save_figure` writes it as
PDF and PNG. Figures are built on the object-oriented API with an explicit Agg canvas, so
nothing here touches pyplot's global state or the process-wide backend.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import matplotlib as mpl
import matplotlib.ticker as mticker
import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.transforms import Bbox

__all__ = [
    "DPI",
    "FIGSIZE",
    "PALETTE",
    "STYLE",
    "best_metric",
    "figure5_name",
    "figure_names",
    "inverse_data_efficiency",
    "load_curves",
    "measured_points",
    "metric_label",
    "plot_figure3",
    "plot_figure5",
    "plot_figure6",
    "prompt_is_lower_better",
    "prompt_label",
    "render_all",
    "resolve_panel_metric",
    "save_figure",
    "system_label",
    "task_label",
]

#: Raster resolution of every PNG (dots per inch).
DPI = 200

#: Figure sizes in inches, one per kind of figure. PNGs are FIGSIZE x DPI pixels.
FIGSIZE: dict[str, tuple[float, float]] = {
    "figure3": (6.4, 4.6),
    "figure5": (6.4, 3.8),
    "figure6": (6.4, 4.4),
}

#: Okabe-Ito palette: distinguishable under the common colour-vision deficiencies.
PALETTE: dict[str, str] = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
    "grey": "#7F7F7F",
}

#: Diverging colormap for correlations (ColorBrewer PuOr: colour-blind safe), centred at 0.
CORRELATION_CMAP = "PuOr"

#: One style for every figure: bundled font, so output does not depend on system fonts.
STYLE: dict[str, object] = {
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.titlesize": 9.5,
    "axes.labelsize": 9,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "legend.fontsize": 8,
    "legend.frameon": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "lines.linewidth": 1.6,
    "pdf.fonttype": 42,
    "savefig.dpi": DPI,
}

# Colours of the two tasks in Figure 3 and of the four conditions in Figure 6.
_TASK_STYLES = [
    {"color": PALETTE["blue"], "marker": "o"},
    {"color": PALETTE["vermillion"], "marker": "s"},
    {"color": PALETTE["bluish_green"], "marker": "^"},
    {"color": PALETTE["reddish_purple"], "marker": "D"},
]
_CONDITION_STYLES = {
    "mean": {"color": PALETTE["black"], "linestyle": "-"},
    "cv": {"color": PALETTE["blue"], "linestyle": "-"},
    "noiseless": {"color": PALETTE["vermillion"], "linestyle": ":"},
    "perfect": {"color": PALETTE["bluish_green"], "linestyle": ":"},
}

COMBINED = "combined"


# --------------------------------------------------------------------------------------
# Config helpers
# --------------------------------------------------------------------------------------


def _label(section: Mapping, key: str) -> str:
    entry = section.get(key) if isinstance(section, Mapping) else None
    if isinstance(entry, Mapping) and entry.get("label"):
        return str(entry["label"])
    return str(key)


def task_label(config: Mapping, task: str) -> str:
    return _label(config.get("tasks", {}), task)


def prompt_label(config: Mapping, task: str, prompt: str) -> str:
    return _label(config.get("tasks", {}).get(task, {}).get("prompts", {}), prompt)


def system_label(config: Mapping, task: str, system: str) -> str:
    if system == COMBINED:
        return "Combined"
    return _label(config.get("tasks", {}).get(task, {}).get("systems", {}), system)


def metric_label(config: Mapping, metric: str) -> str:
    if metric == "perfect":
        return "perfect metric"
    return _label(config.get("metrics", {}), metric)


def prompt_is_lower_better(config: Mapping, task: str, prompt: str) -> bool:
    entry = config.get("tasks", {}).get(task, {}).get("prompts", {}).get(prompt, {})
    return isinstance(entry, Mapping) and entry.get("higher_is_better") is False


def figure5_name(task: str) -> str:
    return f"figure5_{task}"


def figure_names(config: Mapping) -> list[str]:
    """Names (without suffix) of every figure the config asks for, in drawing order."""
    figures = config.get("figures", {}) or {}
    names = ["figure3"]
    names += [figure5_name(task) for task in (figures.get("figure5") or {})]
    names += list(figures.get("figure6") or {})
    return names


# --------------------------------------------------------------------------------------
# Table helpers
# --------------------------------------------------------------------------------------


def best_metric(
    correlations: pd.DataFrame,
    task: str,
    prompt: str,
    system: str = COMBINED,
    metrics: Iterable[str] | None = None,
) -> str:
    """The metric with the highest |rho| for this task, prompt and system.

    ``correlations`` needs columns task, prompt, system, metric, rho. Rows with a missing
    rho are ignored; ``metrics`` restricts the candidates (for example to the metrics the
    config declares). Ties go to the metric listed first in the table. Raises
    ``LookupError`` when no candidate has a correlation.
    """
    rows = correlations[
        (correlations["task"] == task) & (correlations["prompt"] == prompt) & (correlations["system"] == system)
    ]
    if metrics is not None:
        rows = rows[rows["metric"].isin(list(metrics))]
    rows = rows[rows["metric"] != "perfect"]
    rows = rows.dropna(subset=["rho"])
    if rows.empty:
        raise LookupError(f"no correlation for task={task!r} prompt={prompt!r} system={system!r}")
    magnitude = rows["rho"].abs().to_numpy()
    return str(rows["metric"].iloc[int(np.argmax(magnitude))])


def resolve_panel_metric(
    correlations: pd.DataFrame, panel: Mapping, metrics: Iterable[str] | None = None
) -> tuple[str, bool]:
    """The metric a Figure 6 panel uses, and whether it was chosen as the best one.

    A panel's ``metric`` is either a metric name or ``"best"``, which resolves to the
    metric with the highest |rho| for the panel's task, prompt and system.
    """
    metric = str(panel.get("metric", "best"))
    if metric == "best":
        return best_metric(correlations, panel["task"], panel["prompt"], panel["system"], metrics), True
    return metric, False


def inverse_data_efficiency(rho, gamma):
    """1/DE = (1 - rho^2 + gamma) / (1 + gamma), elementwise (the paper's equation 7)."""
    rho = np.asarray(rho, dtype=float)
    gamma = np.asarray(gamma, dtype=float)
    return (1.0 - rho**2 + gamma) / (1.0 + gamma)


def measured_points(table2: pd.DataFrame, correlations: pd.DataFrame, config: Mapping) -> pd.DataFrame:
    """One row per task x prompt of table2: the (rho, gamma) drawn in Figure 3.

    rho is |combined correlation| of the prompt's best metric, gamma is table2's gamma.
    Task-prompt pairs without a correlation or a finite gamma are left out.
    """
    metrics = list(config.get("metrics", {}) or []) or None
    rows = []
    for record in table2.itertuples(index=False):
        task, prompt, gamma = record.task, record.prompt, float(record.gamma)
        if not np.isfinite(gamma):
            continue
        try:
            metric = best_metric(correlations, task, prompt, COMBINED, metrics)
        except LookupError:
            continue
        rho = correlations.loc[
            (correlations["task"] == task)
            & (correlations["prompt"] == prompt)
            & (correlations["system"] == COMBINED)
            & (correlations["metric"] == metric),
            "rho",
        ].iloc[0]
        rows.append({"task": task, "prompt": prompt, "metric": metric, "rho": abs(float(rho)), "gamma": gamma})
    return pd.DataFrame(rows, columns=["task", "prompt", "metric", "rho", "gamma"])


def load_curves(paths: Iterable[str | os.PathLike]) -> pd.DataFrame:
    """Concatenate the per-system curve CSVs (task, prompt, system, metric, condition, n, width)."""
    frames = [pd.read_csv(path) for path in paths]
    columns = ["task", "prompt", "system", "metric", "condition", "n", "width"]
    if not frames:
        return pd.DataFrame(columns=columns)
    return pd.concat(frames, ignore_index=True)


def _lookup_de(data_efficiency: pd.DataFrame, task, prompt, system, metric, condition) -> float:
    rows = data_efficiency[
        (data_efficiency["task"] == task)
        & (data_efficiency["prompt"] == prompt)
        & (data_efficiency["system"] == system)
        & (data_efficiency["metric"] == metric)
        & (data_efficiency["condition"] == condition)
    ]
    if rows.empty:
        return float("nan")
    return float(rows["de"].iloc[0])


# --------------------------------------------------------------------------------------
# Figure construction
# --------------------------------------------------------------------------------------


def _new_figure(kind: str) -> Figure:
    fig = Figure(figsize=FIGSIZE[kind], dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _fmt_de(value: float) -> str:
    return "n/a" if not np.isfinite(value) else f"{value:.2f}"


def _overlap_area(a: Bbox, b: Bbox) -> float:
    width = min(a.x1, b.x1) - max(a.x0, b.x0)
    height = min(a.y1, b.y1) - max(a.y0, b.y0)
    return max(width, 0.0) * max(height, 0.0)


def _candidate_offsets() -> list[tuple[float, float, str, str]]:
    """Text offsets (points) and alignments around an anchor, nearest first."""
    directions = [
        (1, 0, "left", "center"),
        (1, 1, "left", "bottom"),
        (1, -1, "left", "top"),
        (0, 1, "center", "bottom"),
        (0, -1, "center", "top"),
        (-1, 0, "right", "center"),
        (-1, 1, "right", "bottom"),
        (-1, -1, "right", "top"),
    ]
    out = []
    for distance in (6, 14, 24, 36, 50, 66):
        for dx, dy, ha, va in directions:
            scale = distance if dx == 0 or dy == 0 else distance * 0.75
            out.append((dx * scale, dy * scale, ha, va))
    return out


def _place_labels(ax, fig: Figure, xs, ys, labels, colors, obstacles: Sequence = ()) -> list:
    """Annotate points so that no label overlaps another label, a point or an obstacle.

    Each label tries offsets around its point, nearest first, and takes the first one that
    lies inside the axes and collides with nothing placed so far; if none is free, the one
    with the least overlap. Labels placed away from their point get a thin leader line.
    The layout is frozen first so that the positions measured here are the saved ones.
    """
    fig.canvas.draw()
    fig.set_layout_engine("none")
    renderer = fig.canvas.get_renderer()
    axes_box = ax.get_window_extent(renderer)
    pad = 1.5 * fig.dpi / 72.0
    marker_half = 3.5 * fig.dpi / 72.0

    points = ax.transData.transform(np.column_stack([xs, ys]))
    blocked = [
        Bbox.from_extents(px - marker_half, py - marker_half, px + marker_half, py + marker_half) for px, py in points
    ]
    for artist in obstacles:
        if artist is not None and artist.get_visible():
            blocked.append(artist.get_window_extent(renderer))

    placed = []
    order = np.argsort(np.asarray(xs, dtype=float), kind="stable")
    for i in order:
        best = None
        for dx, dy, ha, va in _candidate_offsets():
            text = ax.annotate(
                labels[i],
                (xs[i], ys[i]),
                xytext=(dx, dy),
                textcoords="offset points",
                ha=ha,
                va=va,
                fontsize=8,
                color=colors[i],
            )
            box = text.get_window_extent(renderer).padded(pad)
            text.remove()
            outside = not (
                box.x0 >= axes_box.x0 and box.x1 <= axes_box.x1 and box.y0 >= axes_box.y0 and box.y1 <= axes_box.y1
            )
            cost = sum(_overlap_area(box, other) for other in blocked) + (1e9 if outside else 0.0)
            if best is None or cost < best[0]:
                best = (cost, dx, dy, ha, va, box)
            if cost == 0.0:
                break
        _, dx, dy, ha, va, box = best
        far = np.hypot(dx, dy) > 16
        text = ax.annotate(
            labels[i],
            (xs[i], ys[i]),
            xytext=(dx, dy),
            textcoords="offset points",
            ha=ha,
            va=va,
            fontsize=8,
            color=colors[i],
            bbox={"boxstyle": "round,pad=0.1", "facecolor": "white", "edgecolor": "none", "alpha": 0.85},
            arrowprops={"arrowstyle": "-", "color": colors[i], "lw": 0.6, "shrinkA": 1, "shrinkB": 4} if far else None,
        )
        text.set_in_layout(False)
        blocked.append(box)
        placed.append(text)
    return placed


def plot_figure3(table2: pd.DataFrame, correlations: pd.DataFrame, config: Mapping) -> Figure:
    """Contours of 1/DE over (rho, gamma) with each task x prompt's measured point."""
    with mpl.rc_context(STYLE):
        points = measured_points(table2, correlations, config)
        gamma_max = max(2.0, float(points["gamma"].max()) * 1.08) if not points.empty else 2.0

        fig = _new_figure("figure3")
        ax = fig.add_subplot()
        rho_grid, gamma_grid = np.meshgrid(np.linspace(0.0, 1.0, 401), np.linspace(0.0, gamma_max, 401))
        levels = np.round(np.arange(0.1, 1.0, 0.1), 1)
        contours = ax.contour(
            rho_grid,
            gamma_grid,
            inverse_data_efficiency(rho_grid, gamma_grid),
            levels=levels,
            colors=PALETTE["grey"],
            linewidths=0.8,
        )
        contour_labels = ax.clabel(contours, fmt="%.1f", fontsize=7, inline=True, inline_spacing=3)
        ax.set_xlim(0.0, 1.0)
        ax.set_ylim(0.0, gamma_max)
        ax.set_xlabel(r"$\rho$: |correlation| of the best metric with mean human judgment (systems pooled)")
        ax.set_ylabel(r"$\gamma = \sigma_a^2 / \sigma_f^2$ (normalised annotator variance)")
        ax.set_title(
            r"Inverse data efficiency $1/\mathrm{DE} = (1-\rho^2+\gamma)/(1+\gamma)$"
            "\ncontours labelled with 1/DE; points are the measured task $\\times$ prompt values"
        )

        tasks = list(dict.fromkeys(points["task"]))
        task_order = list(config.get("tasks", {}) or [])
        tasks.sort(key=lambda t: task_order.index(t) if t in task_order else len(task_order))
        styles = {task: _TASK_STYLES[i % len(_TASK_STYLES)] for i, task in enumerate(tasks)}
        handles = []
        for task in tasks:
            sub = points[points["task"] == task]
            style = styles[task]
            ax.scatter(
                sub["rho"],
                sub["gamma"],
                s=30,
                color=style["color"],
                marker=style["marker"],
                edgecolor="white",
                linewidth=0.6,
                zorder=3,
            )
            handles.append(
                Line2D(
                    [],
                    [],
                    linestyle="none",
                    marker=style["marker"],
                    color=style["color"],
                    markeredgecolor="white",
                    markersize=6.5,
                    label=task_label(config, task),
                )
            )
        if handles:
            fig.legend(handles=handles, loc="outside lower center", ncols=len(handles))

        labels = [
            f"{prompt_label(config, row.task, row.prompt)} ({metric_label(config, row.metric)})"
            for row in points.itertuples(index=False)
        ]
        colors = [styles[task]["color"] for task in points["task"]]
        _place_labels(
            ax,
            fig,
            points["rho"].to_numpy(),
            points["gamma"].to_numpy(),
            labels,
            colors,
            obstacles=contour_labels,
        )
        return fig


def plot_figure5(correlations: pd.DataFrame, config: Mapping, task: str, prompt: str) -> Figure:
    """Heatmap of correlations: metrics as rows, systems (and all systems pooled) as columns."""
    with mpl.rc_context(STYLE):
        metrics = list(config.get("metrics", {}) or [])
        systems = list((config.get("tasks", {}).get(task, {}) or {}).get("systems", {}) or [])
        rows = correlations[(correlations["task"] == task) & (correlations["prompt"] == prompt)]
        extra_metrics = [m for m in dict.fromkeys(rows["metric"]) if m not in metrics and m != "perfect"]
        metrics += extra_metrics
        extra_systems = [s for s in dict.fromkeys(rows["system"]) if s not in systems and s != COMBINED]
        columns = systems + extra_systems + [COMBINED]

        values = np.full((len(metrics), len(columns)), np.nan)
        for r in rows.itertuples(index=False):
            if r.metric in metrics and r.system in columns:
                values[metrics.index(r.metric), columns.index(r.system)] = float(r.rho)

        finite = np.abs(values[np.isfinite(values)])
        limit = max(0.1, float(np.ceil(finite.max() * 10.0) / 10.0)) if finite.size else 1.0
        limit = min(limit, 1.0)

        fig = _new_figure("figure5")
        ax = fig.add_subplot()
        cmap = mpl.colormaps[CORRELATION_CMAP].with_extremes(bad="#E6E6E6")
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
        colorbar.set_label(r"Pearson $\rho$ (item mean human judgment vs metric)")
        colorbar.outline.set_visible(False)

        title = f"{task_label(config, task)}, {prompt_label(config, task, prompt)}: instance-level correlation"
        if prompt_is_lower_better(config, task, prompt):
            title += f"\n{prompt_label(config, task, prompt)} is lower-is-better, so negative $\\rho$ means agreement"
        ax.set_title(title)
        return fig


def _panel_letter(name: str) -> str:
    stem = name.removeprefix("figure6")
    return f"({stem}) " if stem else ""


def plot_figure6(
    curves: pd.DataFrame,
    data_efficiency: pd.DataFrame,
    correlations: pd.DataFrame,
    config: Mapping,
    panel_name: str,
) -> Figure:
    """CI width against number of human judgments for one configured Figure 6 panel."""
    with mpl.rc_context(STYLE):
        panel = config["figures"]["figure6"][panel_name]
        task, prompt, system = panel["task"], panel["prompt"], panel["system"]
        metrics = list(config.get("metrics", {}) or []) or None
        metric, chosen = resolve_panel_metric(correlations, panel, metrics)
        m_label = metric_label(config, metric)

        sub = curves[(curves["task"] == task) & (curves["prompt"] == prompt) & (curves["system"] == system)]
        series = [
            ("mean", "none", "Humans", None),
            ("cv", metric, f"Humans + {m_label}", "cv"),
            ("noiseless", metric, f"Noiseless humans + {m_label}", "noiseless"),
            ("perfect", "perfect", "Humans + perfect metric", "perfect"),
        ]
        de = {
            condition: _lookup_de(data_efficiency, task, prompt, system, m, condition)
            for condition, m, _, de_condition in series
            if de_condition is not None
        }

        fig = _new_figure("figure6")
        ax = fig.add_subplot()
        drawn = 0
        for condition, m, label, de_condition in series:
            line = sub[(sub["condition"] == condition) & (sub["metric"] == m)].sort_values("n")
            if line.empty:
                continue
            if de_condition is not None:
                label = f"{label} (DE {_fmt_de(de[de_condition])})"
            ax.plot(line["n"], line["width"], label=label, **_CONDITION_STYLES[condition])
            drawn += 1
        if drawn == 0:
            raise LookupError(f"{panel_name}: no curves for task={task!r} prompt={prompt!r} system={system!r}")

        boot = config.get("bootstrap", {}) or {}
        level = float(boot.get("level", 0.8))
        low, high = (boot.get("de_range") or [0.2, 0.9])[:2]
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

        how = (
            f"{m_label}: highest |$\\rho$| for this system and prompt"
            if chosen
            else f"metric: {m_label} (set in the config)"
        )
        ax.set_title(
            f"{_panel_letter(panel_name)}{system_label(config, task, system)} on "
            f"{task_label(config, task)}, {prompt_label(config, task, prompt)}: "
            f"DE = {_fmt_de(de['cv'])} (Humans + {m_label} vs Humans)\n{how}"
        )
        return fig


# --------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------


def save_figure(fig: Figure, path_without_suffix: str | os.PathLike, dpi: int = DPI) -> list[Path]:
    """Write ``fig`` as ``<path>.pdf`` (vector) and ``<path>.png`` (``dpi``).

    Each file is written under a temporary name in the target directory and renamed into
    place, so an interrupted save never leaves a truncated figure. Metadata that would
    change from run to run (creation dates) is left out.
    """
    base = Path(path_without_suffix)
    base.parent.mkdir(parents=True, exist_ok=True)
    written = []
    metadata = {"pdf": {"CreationDate": None, "ModDate": None}, "png": {"Software": None}}
    with mpl.rc_context(STYLE):
        for suffix in ("pdf", "png"):
            target = base.with_name(f"{base.name}.{suffix}")
            handle, tmp = tempfile.mkstemp(prefix=f".{base.name}.", suffix=f".{suffix}", dir=base.parent)
            os.close(handle)
            try:
                fig.savefig(tmp, format=suffix, dpi=dpi, metadata=metadata[suffix])
                os.replace(tmp, target)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
            written.append(target)
    return written


def render_all(
    table2: pd.DataFrame,
    correlations: pd.DataFrame,
    data_efficiency: pd.DataFrame,
    curves: pd.DataFrame,
    config: Mapping,
    out_dir: str | os.PathLike,
    names: Iterable[str] | None = None,
) -> list[Path]:
    """Draw the figures the config asks for (only ``names``, if given) into ``out_dir``;
    returns the files written."""
    out_dir = Path(out_dir)
    figures = config.get("figures", {}) or {}
    builders = [("figure3", lambda: plot_figure3(table2, correlations, config))]
    for task, prompt in (figures.get("figure5") or {}).items():
        builders.append((figure5_name(task), lambda t=task, p=prompt: plot_figure5(correlations, config, t, p)))
    for name in figures.get("figure6") or {}:
        builders.append((name, lambda n=name: plot_figure6(curves, data_efficiency, correlations, config, n)))
    wanted = None if names is None else set(names)
    written = []
    for name, build in builders:
        if wanted is None or name in wanted:
            written += save_figure(build(), out_dir / name)
    return written
