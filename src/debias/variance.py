"""Variance components of human judgments (the paper's Table 2).

Judgments of N items are held in an (N, K) array padded with NaN: row i has its k_i
judgments first. Only items with at least two judgments say anything about annotator
variance, so the estimators here use those items alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .joined import JOINED_COLUMNS, judged_rows, judgment_matrix


def _multiply_judged(judgments: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    counts = np.sum(~np.isnan(judgments), axis=1)
    keep = counts >= 2
    return judgments[keep], counts[keep]


def annotator_variance(judgments: np.ndarray) -> float:
    """Pooled within-item variance σ_a²: squared deviations from each item's own mean,
    divided by Σ(k_i − 1), so it is unbiased whatever the number of annotators per item."""
    multi, counts = _multiply_judged(judgments)
    if multi.shape[0] == 0:
        return float("nan")
    deviations = multi - np.nanmean(multi, axis=1, keepdims=True)
    return float(np.nansum(deviations**2) / np.sum(counts - 1))


def human_metric_variance(judgments: np.ndarray) -> float:
    """σ_f² as the paper's Table 2 reports it: the variance (ddof 1) across items of the
    per-item mean judgment. It still contains the noise of averaging only k_i judgments."""
    multi, _ = _multiply_judged(judgments)
    if multi.shape[0] < 2:
        return float("nan")
    return float(np.var(np.nanmean(multi, axis=1), ddof=1))


def human_metric_variance_unbiased(judgments: np.ndarray) -> float:
    """σ_f² with the annotator noise of the item means removed: Var(mean_i) − mean(σ_a² / k_i)."""
    multi, counts = _multiply_judged(judgments)
    if multi.shape[0] < 2:
        return float("nan")
    return human_metric_variance(judgments) - annotator_variance(judgments) * float(np.mean(1.0 / counts))


def variance_components(judgments: np.ndarray) -> dict[str, float]:
    """All of Table 2's columns for one pool of judged items."""
    multi, counts = _multiply_judged(judgments)
    sigma2_a = annotator_variance(judgments)
    sigma2_f = human_metric_variance(judgments)
    sigma2_f_unbiased = human_metric_variance_unbiased(judgments)
    return {
        "sigma2_a": sigma2_a,
        "sigma2_f": sigma2_f,
        "gamma": sigma2_a / sigma2_f if sigma2_f > 0 else float("nan"),
        "sigma2_f_unbiased": sigma2_f_unbiased,
        "gamma_unbiased": sigma2_a / sigma2_f_unbiased if sigma2_f_unbiased > 0 else float("nan"),
        "n_items": int(multi.shape[0]),
        "n_judgments": int(counts.sum()),
    }


def pooled_judged_rows(systems: Mapping[str, pd.DataFrame], prompt: str) -> pd.DataFrame:
    """Every judged output of a task on ``prompt``, each judgment counted once.

    ``systems`` maps system name to its joined table (:mod:`debias.joined`). A line that
    names a ``judged_output`` shares that judgment with other systems' lines: the judgment is
    kept once (for the first system in name order). Every other line is its own judged output,
    even when another system produced the same text.
    """
    parts = [judged_rows(systems[name], prompt) for name in sorted(systems)]
    pooled = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=JOINED_COLUMNS)
    shared = pooled["judged_output"] != ""
    duplicate = shared & pooled["judged_output"].duplicated()
    return pooled[~duplicate].reset_index(drop=True)


TABLE2_COLUMNS = [
    "task",
    "prompt",
    "sigma2_a",
    "sigma2_f",
    "gamma",
    "sigma2_f_unbiased",
    "gamma_unbiased",
    "n_items",
    "n_judgments",
]


def by_task(joined: Sequence[pd.DataFrame]) -> dict[str, dict[str, pd.DataFrame]]:
    """Group joined tables (one per system) as task -> system -> table, in input order."""
    grouped: dict[str, dict[str, pd.DataFrame]] = {}
    for frame in joined:
        grouped.setdefault(frame["task"].iloc[0], {})[frame["system"].iloc[0]] = frame
    return grouped


def table2(joined: Mapping[str, Mapping[str, pd.DataFrame]], prompts: Mapping[str, Sequence[str]]) -> pd.DataFrame:
    """Table 2: per task and prompt, the variance components of every judged output pooled.

    ``joined`` maps task -> system -> joined table (references included, see :func:`by_task`);
    ``prompts`` maps task to its prompts in display order.
    """
    rows = []
    for task, systems in joined.items():
        for prompt in prompts[task]:
            matrix = judgment_matrix(pooled_judged_rows(systems, prompt))
            rows.append({"task": task, "prompt": prompt, **variance_components(matrix)})
    return pd.DataFrame(rows, columns=TABLE2_COLUMNS)


def variance_by_system(
    joined: Mapping[str, Mapping[str, pd.DataFrame]], prompts: Mapping[str, Sequence[str]]
) -> pd.DataFrame:
    """The same components for each system on its own."""
    rows = []
    for task, systems in joined.items():
        for system, frame in systems.items():
            for prompt in prompts[task]:
                matrix = judgment_matrix(judged_rows(frame, prompt))
                rows.append({"task": task, "system": system, "prompt": prompt, **variance_components(matrix)})
    columns = ["task", "system"] + TABLE2_COLUMNS[1:]
    return pd.DataFrame(rows, columns=columns)
