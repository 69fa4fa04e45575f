"""Correlations of each metric with the human judgments, per task, prompt and system
(``correlations.csv``)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from debias.config.labels import COMBINED
from debias.data import Judgments
from debias.stats.ratings import attenuation_corrected_correlation, correlation
from debias.tables.joined import judged_rows, present_metrics

__all__ = ["CORRELATION_COLUMNS", "correlation_table"]

CORRELATION_COLUMNS = ["task", "prompt", "system", "metric", "rho", "rho_corrected", "n_items"]

log = logging.getLogger(__name__)


def correlation_table(
    joined: Sequence[pd.DataFrame], prompts: Mapping[str, Sequence[str]], metrics: Sequence[str]
) -> pd.DataFrame:
    """Pearson ρ of the item mean judgment with each metric over judged items, and beside it
    the paper's attenuation-corrected quantity Cov(ȳ, g) / (σ_f · sd(g))
    (:func:`debias.stats.ratings.metric_correlation.attenuation_corrected_correlation`; NaN when no output
    was judged twice).

    ``joined`` holds one joined table per scored system; ``prompts`` maps task to its prompts.
    One row per task × prompt × system × metric, in the order of ``joined``, then every task's
    systems pooled (``system == "combined"``; a system on which a metric is constant is left out
    of that metric's pool, with a warning in the log). Columns ``task, prompt, system, metric,
    rho, rho_corrected, n_items``.
    """
    rows, pools = [], {}
    for frame in joined:
        task, system = frame["task"].iloc[0], frame["system"].iloc[0]
        for prompt in prompts[task]:
            judged = judged_rows(frame, prompt)
            pools.setdefault((task, prompt), []).append(judged)
            rows += _correlations(task, prompt, system, judged, present_metrics(metrics, judged))
    for (task, prompt), tables in pools.items():
        rows += _pooled(task, prompt, tables, present_metrics(metrics, *tables))
    table = pd.DataFrame(rows, columns=CORRELATION_COLUMNS)
    _log_blanks(table)
    return table


def _pooled(task: str, prompt: str, tables: Sequence[pd.DataFrame], metrics: Sequence[str]) -> list[dict]:
    """The pooled rows: for each metric, every system's judged items except those of a system on
    which the metric is constant (its ρ is undefined and its one value would only add the
    systems' difference in level to the pool); the log names what was left out."""
    constant = {
        metric: [str(t["system"].iloc[0]) for t in tables if len(t) > 1 and t[metric].nunique(dropna=False) == 1]
        for metric in metrics
    }
    if not any(constant.values()):
        return _correlations(task, prompt, COMBINED, pd.concat(tables, ignore_index=True), metrics)
    rows = []
    for metric in metrics:
        kept = [t for t in tables if not len(t) or str(t["system"].iloc[0]) not in constant[metric]]
        if constant[metric]:
            log.warning(
                "%s/%s: %s is constant on the judged outputs of %s (rho undefined): left out of the pooled "
                "(%s) correlation",
                task,
                prompt,
                metric,
                ", ".join(constant[metric]),
                COMBINED,
            )
        pool = pd.concat(kept, ignore_index=True) if kept else tables[0].iloc[:0]
        rows += _correlations(task, prompt, COMBINED, pool, [metric])
    return rows


def _log_blanks(table: pd.DataFrame) -> None:
    """One log line per task and prompt with blank correlations, and why they are blank."""
    for (task, prompt), rows in table.groupby(["task", "prompt"], sort=False):
        for column, why in (("rho", _WHY_RHO), ("rho_corrected", _WHY_CORRECTED)):
            blank = rows[column].isna()
            if blank.any():
                log.info("%s/%s: %s blank in %d of %d rows: %s", task, prompt, column, blank.sum(), len(rows), why)


_WHY_RHO = "fewer than two judged outputs, or the metric or the mean judgments constant on them"
_WHY_CORRECTED = (
    "no output judged twice (the annotator variance is not identified), or the judgments vary no more "
    "between outputs than within them (estimated Var(f) not positive), or the metric constant"
)


def _corrected(judgments: Judgments, g: np.ndarray) -> float:
    if len(g) < 2 or not np.any(judgments.multiply_judged):
        return np.nan  # no output judged twice: the annotator variance is not identified
    return attenuation_corrected_correlation(judgments, g)


def _correlations(task: str, prompt: str, system: str, judged: pd.DataFrame, metrics: Sequence[str]) -> list[dict]:
    means = judged["mean_judgment"].to_numpy(dtype=float)
    matrix = Judgments.from_joined(judged)
    return [
        {
            "task": task,
            "prompt": prompt,
            "system": system,
            "metric": metric,
            "rho": correlation(means, judged[metric].to_numpy(dtype=float)) if len(judged) > 1 else np.nan,
            "rho_corrected": _corrected(matrix, judged[metric].to_numpy(dtype=float)),
            "n_items": len(judged),
        }
        for metric in metrics
    ]
