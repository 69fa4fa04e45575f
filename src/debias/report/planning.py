"""The report section "Comparing systems and planning": every pair's difference with the paired
mean and the best control variate, how much pairing saves over two separate samples, the
coverage of the difference's interval, and how many items a target width needs (with the check
of plans made from small pilots)."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from debias.config.labels import prompt_label, system_label, task_label
from debias.report.context import table_lines
from debias.report.user_tables import no_scores_reason
from debias.stats.common.vocabulary import describe, is_control_variate, is_people_only
from debias.tables.selection import NO_METRIC_HELPS, best_paired_control_variate

__all__ = ["WORLD_LABELS", "planning_lines"]

#: How the report names the plan check's worlds (``plan_check.csv``'s ``world``).
WORLD_LABELS = {"fresh": "fresh raters", "resampled": "resampled"}


def _interval(row) -> str:
    return f"{row.difference:+.3f} [{row.ci_low:+.3f}, {row.ci_high:+.3f}]"


def _comparison_rows(comparisons: pd.DataFrame, config: Mapping) -> list[list[str]]:
    rows = []
    for (task, prompt, a, b), pair in comparisons.groupby(["task", "prompt", "system_a", "system_b"], sort=False):
        mean = pair[pair["estimator"].map(is_people_only)]
        cvs = pair[pair["estimator"].map(is_control_variate)]
        if mean.empty:
            continue
        m = next(mean.itertuples())
        chosen = best_paired_control_variate(pair)
        if cvs.empty:  # only the paired mean: a system of the pair has no metric scores
            best_text = f"– ({no_scores_reason(config, task, a, b)})"
        elif chosen is None:
            best_text = NO_METRIC_HELPS
        else:
            best = next(pair[pair["estimator"] == chosen].itertuples())
            best_text = f"{best.estimator}: {best.de_vs_independent:.2f}"
        rows.append(
            [
                task_label(config, task),
                prompt_label(config, task, prompt),
                f"{system_label(config, task, b)} − {system_label(config, task, a)}",
                str(m.n_shared),
                f"{_interval(m)}, p = {m.p_value:.2g}",
                f"{m.de_vs_independent:.2f}",
                best_text,
            ]
        )
    return rows


def _design(row) -> str:
    return "unreachable" if row.n == 0 else f"{row.n} × {row.k}"


def _plan_rows(plan: pd.DataFrame, config: Mapping) -> list[list[str]]:
    """One row per cell and target: the plan of ``mean`` beside that of the best ``cv``."""
    rows = []
    for (task, prompt, system, target), cell in plan.groupby(["task", "prompt", "system", "target_width"], sort=False):
        people = cell["estimator"].map(is_people_only)
        mean, cv = cell[people], cell[~people]
        rows.append(
            [
                task_label(config, task),
                prompt_label(config, task, prompt),
                system_label(config, task, system),
                f"{target:.3f}",
                _design(next(mean.itertuples())) if len(mean) else "–",
                f"{_design(next(cv.itertuples()))} ({cv['estimator'].iloc[0]})" if len(cv) else "–",
            ]
        )
    return rows


def planning_lines(
    comparisons: pd.DataFrame | None,
    comparison_coverage: pd.DataFrame | None,
    plan: pd.DataFrame | None,
    plan_check: pd.DataFrame | None,
    config: Mapping,
) -> list[str]:
    """Markdown lines of the section; empty when no table is given."""
    if comparisons is None and plan is None:
        return []
    lines = ["## Comparing systems and planning", ""]
    if comparisons is not None and not comparisons.empty:
        lines += [
            "Every pair of systems judged on the same items: the difference of mean human scores "
            "(B − A) from the paired judgments (*mean*) with its interval and p-value, and the saving "
            "over two separate samples of the same size (*DE vs independent*: the variance of the "
            "independent difference over the paired one, at the configured n nearest "
            "`compare.de_n`), for the paired mean and for the control variate on the metric "
            "difference that saves most (only when it saves more than 1% over the paired mean, "
            f"else *{NO_METRIC_HELPS}*; the comparisons figure draws the same).",
            "",
        ]
        header = ["Task", "Prompt", "Difference", "Shared", "Mean [interval]", "DE vs independent", "Best cv"]
        lines += table_lines(header, _comparison_rows(comparisons, config))
    if comparison_coverage is not None and not comparison_coverage.empty:
        rows = []
        for (estimator, n), group in comparison_coverage.groupby(["estimator", "n"], sort=False):
            info = describe(estimator)
            if not (info.people_only or (info.control_variate and info.combined)):
                continue
            rows.append([estimator, str(n), f"{group['coverage'].mean():.3f}", f"{group['coverage'].min():.3f}"])
        repeats = int(comparison_coverage["repeats"].iloc[0])
        lines += [
            "",
            f"Coverage of the difference's interval over {repeats} resampled sets of n shared items per pair "
            "(one judgment per item and system), averaged over pairs and at the lowest pair:",
            "",
        ]
        lines += table_lines(["Estimator", "n", "Mean coverage", "Lowest"], rows)
    if plan is not None and not plan.empty:
        assurance = float(plan["assurance"].iloc[0])
        lines += [
            "",
            f"Items × judgments per item that reach each target width at the least cost, with "
            f"{assurance:.0%} assurance (planned on an upper confidence bound of the variances):",
            "",
        ]
        header = ["Task", "Prompt", "System", "Target width", "mean: n × k", "best cv: n × k"]
        lines += table_lines(header, _plan_rows(plan, config))
    if plan_check is not None and not plan_check.empty:
        rows = []
        checked = plan_check.dropna(subset=["met"])
        worlds = checked["world"] if "world" in checked else pd.Series("resampled", index=checked.index)
        for (world, estimator), group in checked.groupby([worlds, checked["estimator"]], sort=False):
            low = group.loc[group["met"].idxmin()]
            rows.append(
                [
                    WORLD_LABELS.get(world, world),
                    estimator,
                    f"{group['met'].mean():.3f}",
                    f"{low['met']:.3f} ({low['system']}, {low['prompt']})",
                    f"{group['median_ratio'].min():.2f}–{group['median_ratio'].max():.2f}",
                ]
            )
        pilots, size = int(plan_check["pilots"].iloc[0]), int(plan_check["pilot_size"].iloc[0])
        lines += [
            "",
            f"Check: {pilots} random {size}-item pilots per system and prompt, each planning alone; *met* is "
            "the share of plans whose realised width met the target (compare with the assurance). "
            "*Fresh raters*: pilots and studies of new items judged by new raters, drawn from a model "
            "fitted to the judged items (unbiased σ_f² and σ_a²), plans with k up to "
            "`plan.max_judgments_per_item`; this is the world a plan is for. *Resampled*: the released "
            "items and their own judgments drawn again, plans with one judgment per item.",
            "",
        ]
        header = ["World", "Estimator", "Mean met", "Lowest cell", "Median realised/target"]
        lines += table_lines(header, rows)
    while len(lines) > 2 and lines[2] == "":
        del lines[2]
    return lines
