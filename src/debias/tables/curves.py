"""One system's bootstrap experiment: CI-width curves for every prompt x metric x condition,
and the data efficiencies (bootstrap and theory) that follow from them."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
import pandas as pd

from debias.data import Judgments
from debias.stats.checks.bootstrap import bootstrap_ci_widths, bootstrap_data_efficiency
from debias.stats.checks.bootstrap_grid import DEFAULT_DENSE, DEFAULT_POINTS, curve_grid
from debias.stats.common.resampling import setting_seed
from debias.stats.ratings import correlation, resampling_components, theory_by_condition
from debias.tables.joined import judged_rows, present_metrics

log = logging.getLogger(__name__)

CURVE_COLUMNS = ["task", "prompt", "system", "metric", "condition", "n", "width"]
EFFICIENCY_COLUMNS = ["task", "prompt", "system", "metric", "condition", "de", "de_theory", "rho", "gamma_resampling"]

#: Conditions that need the annotator variance σ_a², which one judgment per item cannot give.
NEEDS_ANNOTATOR_VARIANCE = ("noiseless", "perfect")
#: Why their rows are NaN and their curves absent then.
NOT_IDENTIFIABLE = "not identifiable: one judgment per item (σ_a² unknown)"


def system_experiment(
    joined: pd.DataFrame,
    *,
    prompts: Sequence[str],
    metrics: Sequence[str],
    replicates: int,
    seed: int,
    level: float,
    de_range: Sequence[float] = (0.2, 0.9),
    grid_dense: int = DEFAULT_DENSE,
    grid_points: int = DEFAULT_POINTS,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Curves (long format) and efficiencies for the system of one joined table.

    Every prompt gets its own random stream, seeded from the base seed and the setting's
    names, so results do not depend on which job runs first; within a prompt all metrics and
    conditions share the same draws. Curves are computed at :func:`curve_grid`'s prefix sizes
    (every n when N <= ``grid_dense``), and each data efficiency averages the grid points in
    its window.

    When no item of a prompt has two judgments, the annotator noise cannot be told apart from
    the items' spread: the noiseless-humans and perfect-metric conditions
    (:data:`NEEDS_ANNOTATOR_VARIANCE`) would only replay the single judgment (noiseless equal to
    humans, a "perfect" metric equal to the judgment itself), so their curves are left out and
    their rows have NaN ``de``, ``de_theory`` and ``gamma_resampling``, with a log line saying
    why (:data:`NOT_IDENTIFIABLE`).
    """
    low, high = de_range
    task, system = joined["task"].iloc[0], joined["system"].iloc[0]
    curve_parts, rows = [], []
    for prompt in prompts:
        judged = judged_rows(joined, prompt)
        if len(judged) < 2:
            log.warning("%s/%s/%s: fewer than 2 judged items, skipped", task, system, prompt)
            continue
        judgments = Judgments.from_joined(judged)
        metrics = present_metrics(metrics, judged)
        g = judged[metrics].to_numpy(dtype=float).T
        rng = np.random.default_rng(setting_seed(seed, task, system, prompt))
        grid = curve_grid(len(judged), dense=grid_dense, points=grid_points, de_range=de_range)
        widths = bootstrap_ci_widths(judgments, g, n_replicates=replicates, rng=rng, level=level, grid=grid)
        n = widths.n
        sigma2_a, sigma2_f = resampling_components(judgments)
        gamma = sigma2_a / sigma2_f if sigma2_f > 0 else float("nan")
        item_means = judgments.item_means
        known = bool(judgments.multiply_judged.any())
        if not known:
            log.warning("%s/%s/%s: noiseless and perfect-metric conditions %s", task, system, prompt, NOT_IDENTIFIABLE)
        labelled = [("none", "mean", widths.mean), ("perfect", "perfect", widths.perfect)]
        labelled += [(m, "cv", widths.cv[i]) for i, m in enumerate(metrics)]
        labelled += [(m, "noiseless", widths.noiseless[i]) for i, m in enumerate(metrics)]
        for metric, condition, width in labelled:
            if not known and condition in NEEDS_ANNOTATOR_VARIANCE:
                continue
            curve_parts.append(
                pd.DataFrame(
                    {
                        "task": task,
                        "prompt": prompt,
                        "system": system,
                        "metric": metric,
                        "condition": condition,
                        "n": n,
                        "width": width,
                    }
                )
            )
        for metric, condition, width in labelled[1:]:
            rho = 1.0 if condition == "perfect" else correlation(item_means, g[metrics.index(metric)])
            missing = not known and condition in NEEDS_ANNOTATOR_VARIANCE
            de = float("nan") if missing else float(bootstrap_data_efficiency(widths.mean, width, n, lo=low, hi=high))
            rows.append(
                {
                    "task": task,
                    "prompt": prompt,
                    "system": system,
                    "metric": metric,
                    "condition": condition,
                    "de": de,
                    "de_theory": theory_by_condition(rho, gamma, annotator_noise_known=known)[condition],
                    "rho": rho,
                    "gamma_resampling": float("nan") if missing else gamma,
                }
            )
        log.info("%s/%s/%s: %d items, %d replicates, gamma=%.3f", task, system, prompt, len(judged), replicates, gamma)
    curves = pd.concat(curve_parts, ignore_index=True) if curve_parts else pd.DataFrame(columns=CURVE_COLUMNS)
    return curves[CURVE_COLUMNS], pd.DataFrame(rows, columns=EFFICIENCY_COLUMNS)
