"""The reproduction report: one markdown page comparing every number the paper states with
the value this pipeline computed, followed by the figures and links to the tables.

The paper's numbers come only from ``data/paper/reported_values.yaml`` and appear only in
the "Paper" column; every value in the "Ours" column is read from the pipeline's tables.
A number that the tables do not contain is reported as "not computed".
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import yaml

from .figures import (
    best_metric,
    figure_names,
    metric_label,
    prompt_label,
    resolve_panel_metric,
    system_label,
    task_label,
)

__all__ = [
    "ComparisonRow",
    "RangeResult",
    "build_report",
    "comparison_rows",
    "de_ranges",
    "load_paper_values",
    "panel_summary",
]

NOT_COMPUTED = "not computed"
WITHIN = "within rounding"
DIFFERS = "differs"
OTHER_METRIC = "different metric"

CONDITION_TEXT = {
    "cv": "current automatic metrics",
    "noiseless": "noiseless humans + current metrics",
    "perfect": "perfect metric",
}

# Why a number may differ, by kind of number. Each is one line in the report's table.
REASON_TABLE2 = (
    "Same released judgments; estimator details the paper leaves open "
    "(ddof, outputs shared by several systems, 5-annotator items)."
)
REASON_METRIC = {
    "rouge1": "ROUGE-1 from rouge-score (Python) vs the paper's ROUGE-1.5.5 (Perl, stop words removed)",
    "rouge2": "ROUGE-2 from rouge-score (Python) vs the paper's ROUGE-1.5.5 (Perl, stop words removed)",
    "rougeL": "ROUGE-L from rouge-score (Python) vs the paper's ROUGE-1.5.5 (Perl, stop words removed)",
    "meteor": "METEOR from NLTK vs the paper's METEOR 1.5 (Java)",
    "bleu": "BLEU implementation not stated in the paper",
}
REASON_VECSIM = "The paper used VecSim (sent2vec sentence embeddings), which this project does not have"
REASON_RANGE = "The paper does not say which systems, prompts and metrics its range spans"


# --------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------


def load_paper_values(path: str | os.PathLike) -> dict:
    """Parse ``reported_values.yaml``."""
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def _table2_entries(paper_values: Mapping) -> list[Mapping]:
    """The paper's Table 2 rows: a list of {task, prompt, sigma2_a, sigma2_f, gamma, where}."""
    table2 = paper_values.get("table2") or []
    if isinstance(table2, Mapping):  # also accept {where: ..., rows: [...]}
        where = table2.get("where", "Table 2")
        return [{"where": where, **row} for row in table2.get("rows", []) or []]
    return list(table2)


def _lookup(frame: pd.DataFrame | None, column: str, **where) -> float | None:
    """The value of ``column`` in the first row matching ``where``; None if absent or NaN."""
    if frame is None or column not in frame.columns:
        return None
    mask = pd.Series(True, index=frame.index)
    for key, value in where.items():
        if key not in frame.columns:
            return None
        mask &= frame[key] == value
    rows = frame.loc[mask, column]
    if rows.empty:
        return None
    value = float(rows.iloc[0])
    return None if math.isnan(value) else value


def _de(data_efficiency, task, prompt, system, metric, condition) -> float | None:
    return _lookup(data_efficiency, "de", task=task, prompt=prompt, system=system, metric=metric, condition=condition)


def _config_metrics(config: Mapping) -> list[str]:
    return list(config.get("metrics", {}) or [])


def _panel_metric(correlations, panel: Mapping, config: Mapping) -> tuple[str | None, bool]:
    try:
        return resolve_panel_metric(correlations, panel, _config_metrics(config) or None)
    except (LookupError, KeyError):
        return None, str(panel.get("metric", "best")) == "best"


# --------------------------------------------------------------------------------------
# Comparison rows
# --------------------------------------------------------------------------------------


@dataclass
class ComparisonRow:
    """One number the paper states, next to ours."""

    quantity: str
    where: str
    paper: str
    ours: str = NOT_COMPUTED
    difference: str = "—"
    agreement: str = NOT_COMPUTED
    reason: str = ""
    key: tuple = field(default=(), compare=False)


def _fmt(value: float | None, digits: int = 3) -> str:
    return NOT_COMPUTED if value is None else f"{value:.{digits}f}"


def _signed(value: float, digits: int = 3) -> str:
    return f"{value:+.{digits}f}"


def _tolerance(paper_values: Mapping) -> float:
    decimals = int(paper_values.get("decimals", 2))
    return 0.5 * 10.0 ** (-decimals) + 1e-9


def _scalar_row(quantity, where, paper, ours, tol, reason, key, paper_digits) -> ComparisonRow:
    row = ComparisonRow(quantity=quantity, where=where, paper=f"{paper:.{paper_digits}f}", key=key)
    if ours is None:
        row.reason = "No matching row in the input tables."
        return row
    row.ours = _fmt(ours)
    row.difference = _signed(ours - paper)
    if abs(ours - paper) <= tol:
        row.agreement, row.reason = WITHIN, "—"
    else:
        row.agreement, row.reason = DIFFERS, reason
    return row


@dataclass
class RangeResult:
    """Lowest and highest data efficiency over a set of cells, and where they occur."""

    low: float | None
    high: float | None
    low_cell: str = ""
    high_cell: str = ""
    cells: int = 0


def _range(values: list[tuple[float, str]]) -> RangeResult:
    values = [(v, cell) for v, cell in values if v is not None and not math.isnan(v)]
    if not values:
        return RangeResult(None, None)
    low = min(values, key=lambda item: item[0])
    high = max(values, key=lambda item: item[0])
    return RangeResult(low[0], high[0], low[1], high[1], len(values))


def _cell_name(config, task, prompt, system, metric=None) -> str:
    text = f"{system_label(config, task, system)}/{prompt_label(config, task, prompt)}"
    return text if metric is None else f"{text}/{metric_label(config, metric)}"


def de_ranges(
    data_efficiency: pd.DataFrame, correlations: pd.DataFrame, config: Mapping
) -> dict[str, dict[str, RangeResult]]:
    """Data-efficiency ranges per condition (cv, noiseless, perfect), over two cell sets.

    ``"panels"``: the configured Figure 6 panels, each with its own metric.
    ``"grid"``: every system x prompt of every task, each with its best metric (highest
    |rho| for that system and prompt); the perfect condition needs no metric.
    """
    panels = (config.get("figures", {}) or {}).get("figure6", {}) or {}
    out: dict[str, dict[str, RangeResult]] = {"panels": {}, "grid": {}}

    panel_cells = []
    for panel in panels.values():
        metric, _ = _panel_metric(correlations, panel, config)
        panel_cells.append((panel["task"], panel["prompt"], panel["system"], metric))

    grid_cells = []
    metrics = _config_metrics(config) or None
    for task, spec in (config.get("tasks", {}) or {}).items():
        for prompt in spec.get("prompts", {}) or {}:
            for system in spec.get("systems", {}) or {}:
                try:
                    metric = best_metric(correlations, task, prompt, system, metrics)
                except LookupError:
                    metric = None
                grid_cells.append((task, prompt, system, metric))

    for name, cells in (("panels", panel_cells), ("grid", grid_cells)):
        for condition in ("cv", "noiseless", "perfect"):
            values = []
            for task, prompt, system, metric in cells:
                if condition == "perfect":
                    value = _de(data_efficiency, task, prompt, system, "perfect", "perfect")
                    cell = _cell_name(config, task, prompt, system)
                elif metric is None:
                    continue
                else:
                    value = _de(data_efficiency, task, prompt, system, metric, condition)
                    cell = _cell_name(config, task, prompt, system, metric)
                values.append((value, cell))
            out[name][condition] = _range(values)
    return out


def comparison_rows(
    table2: pd.DataFrame,
    correlations: pd.DataFrame,
    data_efficiency: pd.DataFrame,
    paper_values: Mapping,
    config: Mapping,
) -> list[ComparisonRow]:
    """One row per number the paper states, in the order of ``paper_values``."""
    tol = _tolerance(paper_values)
    digits = int(paper_values.get("decimals", 2))
    boot = config.get("bootstrap", {}) or {}
    boot_text = f"bootstrap draws differ ({boot.get('replicates', '?')} replicates, seed {boot.get('seed', '?')})"
    rows: list[ComparisonRow] = []

    # Table 2.
    quantities = [("sigma2_a", "σ_a²"), ("sigma2_f", "σ_f²"), ("gamma", "γ")]
    for entry in _table2_entries(paper_values):
        task, prompt = entry["task"], entry["prompt"]
        for column, symbol in quantities:
            ours = _lookup(table2, column, task=task, prompt=prompt)
            reason = REASON_TABLE2
            if column == "gamma" and ours is not None:
                # The paper's gamma is a ratio of two variances it rounds: when ours lies in
                # the interval those rounded variances allow, rounding explains the gap.
                a, f = float(entry["sigma2_a"]), float(entry["sigma2_f"])
                half = tol - 1e-9
                if f > half:
                    low, high = (a - half) / (f + half), (a + half) / (f - half)
                    if low <= ours <= high:
                        reason = (
                            "Consistent with the paper's rounded σ_a² and σ_f²: differences "
                            "below their rounding are magnified in the ratio."
                        )
            rows.append(
                _scalar_row(
                    f"{symbol}, {task_label(config, task)} {prompt_label(config, task, prompt)}",
                    entry.get("where", "Table 2"),
                    float(entry[column]),
                    ours,
                    tol,
                    reason,
                    ("table2", task, prompt, column),
                    digits,
                )
            )

    # Figure 6 panels.
    panels = (config.get("figures", {}) or {}).get("figure6", {}) or {}
    entries = paper_values.get("figure6", []) or []
    configured_metrics = set(_config_metrics(config))
    for entry in entries:
        name = entry["panel"]
        task, prompt, system = entry["task"], entry["prompt"], entry["system"]
        paper_metric = entry.get("metric")
        available = entry.get("available", paper_metric in configured_metrics)
        siblings_available = any(
            other is not entry
            and other["panel"] == name
            and other.get("available", other.get("metric") in configured_metrics)
            for other in entries
        )
        label = (
            f"DE, Figure {name.removeprefix('figure')} ({system_label(config, task, system)}, "
            f"{task_label(config, task)} {prompt_label(config, task, prompt)}, "
            f"{entry.get('metric_label', paper_metric)})"
        )
        key = ("figure6", name, paper_metric)
        paper = float(entry["de"])
        if available:
            ours = _de(data_efficiency, task, prompt, system, paper_metric, "cv")
            reason = f"{REASON_METRIC.get(paper_metric, 'metric implementation differs')}; {boot_text}."
            rows.append(_scalar_row(label, entry["where"], paper, ours, tol, reason, key, digits))
        elif siblings_available:
            row = ComparisonRow(label, entry["where"], f"{paper:.{digits}f}", key=key)
            row.agreement = "not comparable"
            row.reason = f"{REASON_VECSIM}."
            rows.append(row)
        else:
            # Substitute the metric the configured panel uses, and say so.
            panel = dict(panels.get(name, {"metric": "best"}))
            panel.update(task=task, prompt=prompt, system=system)
            metric, chosen = _panel_metric(correlations, panel, config)
            ours = None if metric is None else _de(data_efficiency, task, prompt, system, metric, "cv")
            row = ComparisonRow(label, entry["where"], f"{paper:.{digits}f}", key=key)
            if ours is None:
                row.reason = f"{REASON_VECSIM}; no substitute DE in the input tables."
            else:
                how = "highest |ρ|" if chosen else "configured"
                row.ours = f"{ours:.3f} ({metric_label(config, metric)})"
                row.difference = _signed(ours - paper)
                row.agreement = OTHER_METRIC
                row.reason = f"{REASON_VECSIM}; ours uses {metric_label(config, metric)} ({how}); {boot_text}."
            rows.append(row)

    # Data-efficiency ranges.
    ranges = de_ranges(data_efficiency, correlations, config)
    for entry in paper_values.get("de_ranges", []) or []:
        condition = entry["condition"]
        low, high = float(entry["low"]), float(entry["high"])
        for scope, scope_text in (("panels", "our Figure 6 panels"), ("grid", "every system × prompt, best metric")):
            result = ranges[scope][condition]
            quantity = f"DE range, {entry.get('description', CONDITION_TEXT[condition])} — over {scope_text}"
            if scope == "grid" and result.cells:
                quantity += f" ({result.cells} cells)"
            row = ComparisonRow(
                quantity, entry["where"], f"{low:.{digits}f}–{high:.{digits}f}", key=("de_range", condition, scope)
            )
            if result.low is None:
                row.reason = "No matching rows in the input tables."
            else:
                row.ours = f"{result.low:.3f}–{result.high:.3f}"
                row.difference = f"low {_signed(result.low - low)}, high {_signed(result.high - high)}"
                if abs(result.low - low) <= tol and abs(result.high - high) <= tol:
                    row.agreement, row.reason = WITHIN, "—"
                else:
                    extra = "" if condition == "perfect" else "; metric implementations differ"
                    row.agreement = DIFFERS
                    row.reason = f"{REASON_RANGE}{extra}. Ours spans {result.low_cell} to {result.high_cell}."
            rows.append(row)

    # Instance-level correlations.
    for entry in paper_values.get("correlations", []) or []:
        task, prompt, system, metric = entry["task"], entry["prompt"], entry["system"], entry["metric"]
        ours = _lookup(correlations, "rho", task=task, prompt=prompt, system=system, metric=metric)
        quantity = (
            f"ρ, {metric_label(config, metric)} vs {prompt_label(config, task, prompt)} "
            f"({system_label(config, task, system)}, {task_label(config, task)}, instance level)"
        )
        reason = f"{REASON_METRIC.get(metric, 'metric implementation differs')}."
        rows.append(
            _scalar_row(
                quantity,
                entry["where"],
                float(entry["rho"]),
                ours,
                tol,
                reason,
                ("correlation", entry.get("id", metric)),
                digits,
            )
        )
    return rows


# --------------------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------------------


def _escape(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _table(header: list[str], rows: Iterable[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(_escape(cell) for cell in row) + " |" for row in rows]
    return lines


def panel_summary(data_efficiency: pd.DataFrame, correlations: pd.DataFrame, config: Mapping) -> list[dict]:
    """Per configured Figure 6 panel: metric, how it was chosen, rho, gamma and the DEs."""
    out = []
    for name, panel in ((config.get("figures", {}) or {}).get("figure6", {}) or {}).items():
        task, prompt, system = panel["task"], panel["prompt"], panel["system"]
        metric, chosen = _panel_metric(correlations, panel, config)
        record = {
            "panel": name,
            "task": task,
            "prompt": prompt,
            "system": system,
            "metric": metric,
            "chosen_as_best": chosen,
        }
        if metric is not None:
            record["rho"] = _lookup(correlations, "rho", task=task, prompt=prompt, system=system, metric=metric)
            for column in ("de", "de_theory", "gamma"):
                record[f"cv_{column}"] = _lookup(
                    data_efficiency, column, task=task, prompt=prompt, system=system, metric=metric, condition="cv"
                )
            record["noiseless_de"] = _de(data_efficiency, task, prompt, system, metric, "noiseless")
        record["perfect_de"] = _de(data_efficiency, task, prompt, system, "perfect", "perfect")
        out.append(record)
    return out


def _figure_caption(name: str, config: Mapping, correlations, paper_values: Mapping) -> str:
    figures_cfg = config.get("figures", {}) or {}
    if name == "figure3":
        return (
            "**Figure 3.** Contours of inverse data efficiency 1/DE over (ρ, γ), with the measured "
            "point of each task × prompt (ρ: |correlation| of its best metric, all systems pooled; "
            "γ from Table 2)."
        )
    if name.startswith("figure5_"):
        task = name.removeprefix("figure5_")
        prompt = (figures_cfg.get("figure5", {}) or {}).get(task, "")
        return (
            f"**Figure 5 ({task_label(config, task)}, {prompt_label(config, task, prompt)}).** "
            "Pearson correlation of each metric with the item's mean human judgment, per system "
            "and with all systems pooled."
        )
    panel = (figures_cfg.get("figure6", {}) or {}).get(name)
    if panel is None:
        return f"**{name}.**"
    task, prompt, system = panel["task"], panel["prompt"], panel["system"]
    metric, chosen = _panel_metric(correlations, panel, config)
    text = (
        f"**Figure {name.removeprefix('figure')}.** {system_label(config, task, system)} on "
        f"{task_label(config, task)}, {prompt_label(config, task, prompt)}: CI width against "
        "number of human judgments"
    )
    if metric is not None:
        text += f", metric {metric_label(config, metric)}"
        if chosen:
            text += " (chosen as the highest |ρ| for this system and prompt)"
    paper_metrics = [
        e.get("metric_label", e.get("metric"))
        for e in paper_values.get("figure6", []) or []
        if e.get("panel") == name and e.get("available") is False
    ]
    if paper_metrics and not any(
        e.get("panel") == name and e.get("available", True) for e in paper_values.get("figure6", []) or []
    ):
        text += f"; the paper's panel used {paper_metrics[0]}, which this project does not have"
    return text + "."


def build_report(
    table2: pd.DataFrame,
    correlations: pd.DataFrame,
    data_efficiency: pd.DataFrame,
    paper_values: Mapping,
    config: Mapping,
    *,
    figures: Iterable[str | os.PathLike] | None = None,
    figures_dir: str = "figures",
    tables_dir: str = "tables",
) -> str:
    """The reproduction report as markdown.

    ``figures`` lists the figure files that exist (any suffix; only their names are used);
    None means every configured figure. Figures are embedded as ``<figures_dir>/<name>.png``
    and tables linked as ``<tables_dir>/<name>.csv``, both relative to the report.
    """
    rows = comparison_rows(table2, correlations, data_efficiency, paper_values, config)
    names = figure_names(config)
    available = set(names) if figures is None else {Path(f).stem for f in figures}
    boot = config.get("bootstrap", {}) or {}
    counts = {
        status: sum(row.agreement == status for row in rows)
        for status in (WITHIN, DIFFERS, OTHER_METRIC, "not comparable", NOT_COMPUTED)
    }

    lines = [
        "# Reproduction report: *The price of debiasing automatic metrics in natural language evaluation*",
        "",
        f"Paper: {str(paper_values.get('paper', '')).strip()}. Below, each number the paper "
        "states for Table 2, the Figure 6 data efficiencies, the Section 5 data-efficiency ranges "
        "and Figure 1b's correlation sits beside ours: the *Paper* column is taken from "
        "`data/paper/reported_values.yaml`, the *Ours* column from the pipeline's tables "
        f"([table2]({tables_dir}/table2.csv), [correlations]({tables_dir}/correlations.csv), "
        f"[data_efficiency]({tables_dir}/data_efficiency.csv)).",
        "",
        f"**{len(rows)} numbers: {counts[WITHIN]} within rounding, {counts[DIFFERS]} differ, "
        f"{counts[OTHER_METRIC]} compared with a different metric, "
        f"{counts['not comparable']} not comparable, {counts[NOT_COMPUTED]} not computed.** "
        f"*Within rounding* means |ours − paper| ≤ {_tolerance(paper_values):.3f}, half a unit in "
        "the paper's last digit.",
        "",
        "## Paper vs reproduction",
        "",
    ]
    lines += _table(
        ["#", "Quantity", "Stated in", "Paper", "Ours", "Ours − paper", "Agreement", "Reason for the difference"],
        (
            [str(i), r.quantity, r.where, r.paper, r.ours, r.difference, r.agreement, r.reason]
            for i, r in enumerate(rows, start=1)
        ),
    )

    # Figure 6 panel details.
    lines += ["", "## Figure 6 panels", ""]
    panel_rows = []
    for p in panel_summary(data_efficiency, correlations, config):
        metric = p["metric"]
        how = "highest |ρ|" if p["chosen_as_best"] else "configured"
        panel_rows.append(
            [
                p["panel"].removeprefix("figure"),
                f"{system_label(config, p['task'], p['system'])}, {task_label(config, p['task'])} "
                f"{prompt_label(config, p['task'], p['prompt'])}",
                NOT_COMPUTED if metric is None else f"{metric_label(config, metric)} ({how})",
                _fmt(p.get("rho")),
                _fmt(p.get("cv_gamma")),
                _fmt(p.get("cv_de")),
                _fmt(p.get("cv_de_theory")),
                _fmt(p.get("noiseless_de")),
                _fmt(p.get("perfect_de")),
            ]
        )
    lines += _table(
        [
            "Panel",
            "System, task, prompt",
            "Metric",
            "ρ",
            "γ",
            "DE",
            "DE, eq. (7)",
            "DE, noiseless",
            "DE, perfect metric",
        ],
        panel_rows,
    )
    lines += [
        "",
        "DE is measured from bootstrap confidence intervals "
        f"({boot.get('replicates', '?')} replicates, {float(boot.get('level', 0.8)):.0%} level, "
        f"squared widths averaged over n in {boot.get('de_range', '?')} × N); "
        "*DE, eq. (7)* is (1 + γ)/(1 − ρ² + γ) from the same ρ and γ.",
        "",
        "## Known differences from the paper's setup",
        "",
        "- ROUGE: `rouge-score` (Python) here; the paper used ROUGE-1.5.5 (Perl wrapper, stop words removed).",
        "- METEOR: NLTK's implementation here; the paper used METEOR 1.5 (Java).",
        "- VecSim (sent2vec sentence similarity) is not computed here, so Figure 6a and 6b use the "
        "metric with the highest |ρ| instead, and the paper's VecSim DE for 6c has no counterpart.",
        "- The paper's Figure 6 caption names ROUGE-1 for panel (c), its Section 5 text ROUGE-L; "
        "the comparison follows the caption.",
        "- The bootstrap is re-drawn: data efficiencies carry Monte-Carlo noise of their own.",
        "- The paper does not say which cells its DE ranges span (two of its own Figure 6 panel "
        "values lie outside its range for current metrics), so two ranges are given: over our "
        "Figure 6 panels and over every system × prompt with its best metric.",
        "",
        "## Figures",
        "",
    ]
    for name in names:
        lines.append(_figure_caption(name, config, correlations, paper_values))
        lines.append("")
        if name in available:
            lines.append(f"![{name}]({figures_dir}/{name}.png)")
        else:
            lines.append(f"*{name}: not rendered.*")
        lines.append("")

    # Table 2 as computed, including the columns the paper has no counterpart for.
    lines += ["## Table 2 as computed", ""]
    t2_rows = []
    if table2 is not None and {"task", "prompt"} <= set(table2.columns):
        for record in table2.to_dict("records"):
            task, prompt = record["task"], record["prompt"]
            cells = [task_label(config, task), prompt_label(config, task, prompt)]
            for column in ("sigma2_a", "sigma2_f", "gamma", "sigma2_f_unbiased", "gamma_unbiased"):
                cells.append(_fmt(_lookup(table2, column, task=task, prompt=prompt)))
            for column in ("n_items", "n_judgments"):
                value = _lookup(table2, column, task=task, prompt=prompt)
                cells.append(NOT_COMPUTED if value is None else f"{value:.0f}")
            t2_rows.append(cells)
    lines += _table(
        ["Task", "Prompt", "σ_a²", "σ_f²", "γ", "σ_f² (unbiased)", "γ (unbiased)", "Items", "Judgments"],
        t2_rows,
    )
    lines += [
        "",
        "## Tables",
        "",
        f"- [`{tables_dir}/table2.csv`]({tables_dir}/table2.csv): variance components per task × prompt.",
        f"- [`{tables_dir}/correlations.csv`]({tables_dir}/correlations.csv): "
        "metric–human correlations per system and pooled.",
        f"- [`{tables_dir}/data_efficiency.csv`]({tables_dir}/data_efficiency.csv): "
        "data efficiency per task, prompt, system, metric and condition.",
        "",
    ]
    return "\n".join(lines)
