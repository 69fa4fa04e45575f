"""The report section "Estimating your systems": each system's mean human score from its judged
outputs, judgments alone and with the metric that narrows the interval most, and how well the
intervals held their level in the coverage experiment."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from debias.config.labels import prompt_label, system_label, task_label
from debias.report.context import table_lines
from debias.report.user_tables import no_scores_reason
from debias.stats.common.vocabulary import is_control_variate, is_people_only
from debias.tables.selection import BEST_WIDTH_TOLERANCE, NO_METRIC_HELPS, best_control_variate

__all__ = ["estimates_lines"]


def _interval(row) -> str:
    return f"{row.estimate:.3f} [{row.ci_low:.3f}, {row.ci_high:.3f}]"


def _estimate_rows(estimates: pd.DataFrame, config: Mapping) -> list[list[str]]:
    rows = []
    for (task, prompt, system), cell in estimates.groupby(["task", "prompt", "system"], sort=False):
        mean = cell[cell["estimator"].map(is_people_only)]
        cvs = cell[cell["estimator"].map(is_control_variate)]
        if mean.empty:
            continue
        m = next(mean.itertuples())
        best = best_control_variate(cell)
        if cvs.empty:  # only the mean: the system has no metric scores
            best_text, effective = f"– ({no_scores_reason(config, task, system)})", f"{m.effective_n:.0f}"
        elif best is None:
            best_text, effective = NO_METRIC_HELPS, f"{m.effective_n:.0f}"
        else:
            row = next(cell[cell["estimator"] == best].itertuples())
            best_text, effective = f"{best}: {_interval(row)}", f"{row.effective_n:.0f}"
        rows.append(
            [
                task_label(config, task),
                prompt_label(config, task, prompt),
                system_label(config, task, system),
                f"{m.n_judged} of {m.n_outputs}",
                _interval(m),
                best_text,
                effective,
            ]
        )
    return rows


def _coverage_rows(coverage: pd.DataFrame) -> list[list[str]]:
    rows = []
    for (estimator, n), group in coverage.groupby(["estimator", "n"], sort=False):
        worst = group.iloc[(group["coverage"] - group["coverage"].mean()).abs().argmax()]
        rows.append(
            [
                estimator,
                str(n),
                f"{group['coverage'].mean():.3f}",
                f"{worst['coverage']:.3f} ({worst['system']}, {worst['prompt']})",
                f"{group['de'].mean():.2f}",
            ]
        )
    return rows


def estimates_lines(estimates: pd.DataFrame | None, coverage: pd.DataFrame | None, config: Mapping) -> list[str]:
    """Markdown lines of the section; empty when the estimate table is not given."""
    if estimates is None or estimates.empty:
        return []
    level = float(estimates["level"].iloc[0])
    lines = [
        "## Estimating your systems",
        "",
        f"Each system's mean human score with its {level:.0%} interval, from the judged outputs "
        "alone (*mean*) and with the best control variate (*cv:<metric>*: Algorithm 1 with the "
        "metric scored on all outputs; *cv:combined*: all metrics at once, cross-fitted). Both are "
        "unbiased; the metric only narrows the interval. The best is the narrowest interval, and "
        f"only when it is more than {BEST_WIDTH_TOLERANCE:.0%} narrower than the mean's (intervals "
        f"within {BEST_WIDTH_TOLERANCE:.0%} of the narrowest count as equal, a single metric before "
        f"*cv:combined*); otherwise *{NO_METRIC_HELPS}* (as when every output is judged: nothing is "
        "left to estimate and every estimator is the mean). The system-scores figure draws the same "
        "one. *Effective n* is the number of judged items the plain mean would need for the same "
        "interval width.",
        "",
    ]
    header = ["Task", "Prompt", "System", "Judged", "Mean [interval]", "Best control variate", "Effective n"]
    lines += table_lines(header, _estimate_rows(estimates, config))
    if coverage is not None and not coverage.empty:
        repeats = int(coverage["repeats"].iloc[0])
        lines += [
            "",
            f"How to read the intervals: for every system, prompt and sample size n, {repeats} samples of "
            "n judged items (one judgment each) were drawn without replacement and each estimator's "
            f"interval built. Coverage is the share of intervals holding the full-data mean; it should "
            f"be near {level:.2f} (Monte-Carlo s.e. ≈ {(level * (1 - level) / repeats) ** 0.5:.3f} per row). "
            "DE is the mean squared width of *mean* over the estimator's (above 1: fewer judgments needed).",
            "",
        ]
        lines += table_lines(["Estimator", "n", "Mean coverage", "Furthest row", "Mean DE"], _coverage_rows(coverage))
    return lines
