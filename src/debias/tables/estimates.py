"""The estimates of each system's mean human score, and their coverage check, as tables.

Both read the joined tables (:mod:`debias.tables.joined`): one per scored system. For a prompt, the
judged items are the rows with judgments and the outputs are all rows; the metrics' mean and
covariance over all outputs are what the control-variate estimators use.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from debias.data import EvalSample, Judgments
from debias.stats.checks.coverage import COVERAGE_COLUMNS, coverage_experiment, resolve_sample_sizes
from debias.stats.common.clusters import few_clusters
from debias.stats.common.intervals import effective_n
from debias.stats.common.resampling import setting_seed
from debias.stats.common.vocabulary import baseline
from debias.stats.ratings import MIN_ITEMS, estimate_all, no_variation, one_cluster
from debias.tables.columns import CI_HIGH, CI_LOW, EFFECTIVE_N, LEVEL, N_JUDGED, NOTE
from debias.tables.joined import cluster_column, iter_cells, present_metrics

__all__ = [
    "constant_metrics",
    "COVERAGE_TABLE_COLUMNS",
    "ESTIMATE_COLUMNS",
    "coverage_table",
    "evaluation_sample",
    "system_estimates_table",
]

ESTIMATE_COLUMNS = [
    "task",
    "prompt",
    "system",
    "estimator",
    N_JUDGED,
    "n_outputs",
    "estimate",
    CI_LOW,
    CI_HIGH,
    LEVEL,
    EFFECTIVE_N,
    NOTE,
]
COVERAGE_TABLE_COLUMNS = ["task", "prompt", "system", *COVERAGE_COLUMNS]

log = logging.getLogger(__name__)


def evaluation_sample(outputs: pd.DataFrame, judged: pd.DataFrame, metrics: Sequence[str]) -> EvalSample:
    """The :class:`~debias.data.EvalSample` of one cell: its judged rows, and every output's
    metric scores (the rows of ``outputs``, judged or not), with the items' clusters when the
    joined tables have them (:data:`debias.tables.joined.CLUSTER`: the intervals are then
    cluster-robust)."""
    metrics = present_metrics(metrics, outputs)
    unjudged = outputs.loc[outputs["n_judgments"] == 0, metrics]
    clusters = cluster_column(judged)
    return EvalSample(
        Judgments.from_joined(judged),
        judged[metrics].to_numpy(dtype=float).reshape(len(judged), len(metrics)),
        outputs[metrics].to_numpy(dtype=float).reshape(len(outputs), len(metrics)),
        tuple(metrics),
        unjudged.to_numpy(dtype=float).reshape(len(unjudged), len(metrics)),
        clusters,
        None if clusters is None else cluster_column(outputs),
    )


def constant_metrics(scores: np.ndarray, metrics: Sequence[str]) -> list[tuple[str, float]]:
    """The metrics whose column of ``scores`` (outputs x metrics) takes one value, with it."""
    scores = np.asarray(scores, dtype=float)
    if scores.shape[0] == 0:
        return []
    same = np.all(scores == scores[:1], axis=0)
    return [(str(metrics[j]), float(scores[0, j])) for j in np.flatnonzero(same)]


def system_estimates_table(
    joined: Sequence[pd.DataFrame], prompts: Mapping[str, Sequence[str]], metrics: Sequence[str], *, level: float
) -> pd.DataFrame:
    """Every estimator of every system's mean human score per prompt (``system_estimates.csv``).

    Each judged item contributes the mean of all its judgments; the annotator variance is
    pooled over the items judged more than once. ``effective_n`` is n times the variance of
    ``mean`` over the estimator's (both estimated on the same items): the number of judged
    items the plain mean would need for the same interval. ``ppi++`` rows need unjudged outputs
    and are left out when every output is judged. A metric constant on the system's outputs
    carries no information: its ``cv`` row is the mean, and the log says so
    (:func:`constant_metrics`).

    ``note`` says why a row has no interval: a system with fewer than 3 judged items on the
    prompt has one ``mean`` row, the mean of what was judged (none: no estimate); when every
    judged item has the same mean score (:func:`no_variation`) an interval would have no width,
    and there is none.
    """
    rows = []
    for task, system, prompt, outputs, judged in iter_cells(joined, prompts):
        if len(judged) < MIN_ITEMS:
            log.warning("%s/%s/%s: %d judged items, no interval", task, system, prompt, len(judged))
            rows.append(_few_items_row(task, system, prompt, outputs, judged, level))
            continue
        sample = evaluation_sample(outputs, judged, metrics)
        for metric, value in constant_metrics(sample.population, sample.metrics):
            log.warning(
                "%s/%s/%s: %s is %g on all %d outputs (rho undefined): cv:%s and ppi++:%s fall back to "
                "the mean, cv:combined leaves the metric out, and the pooled correlations leave this system out",
                task,
                system,
                prompt,
                metric,
                value,
                len(outputs),
                metric,
                metric,
            )
        out = estimate_all(sample, level=level)
        base = out[baseline("ratings")].variance
        means = sample.judgments.item_means
        flat = no_variation(means) or one_cluster(sample)
        clusters = np.unique(np.asarray(sample.clusters, dtype=str)).size if sample.clustered else 0
        for name, result in out.items():
            blank = bool(flat) and not result.ci_high > result.ci_low  # an interval of no width: none
            rows.append(
                {
                    "task": task,
                    "prompt": prompt,
                    "system": system,
                    "estimator": name,
                    N_JUDGED: result.n_judged,
                    "n_outputs": result.n_outputs,
                    "estimate": result.estimate,
                    CI_LOW: np.nan if blank else result.ci_low,
                    CI_HIGH: np.nan if blank else result.ci_high,
                    LEVEL: level,
                    EFFECTIVE_N: np.nan if blank else effective_n(result.n_judged, base, result.variance),
                    NOTE: f"{flat}: no interval" if blank else few_clusters(clusters),
                }
            )
    return pd.DataFrame(rows, columns=ESTIMATE_COLUMNS)


def _few_items_row(task, system, prompt, outputs: pd.DataFrame, judged: pd.DataFrame, level: float) -> dict:
    """The one row of a system with fewer than 3 judged items: the mean of their scores (none:
    no estimate), no interval, and why."""
    n = len(judged)
    estimate = float(np.mean(Judgments.from_joined(judged).item_means)) if n else np.nan
    what = f"{n} judged item{'' if n == 1 else 's'}" if n else "no judged items"
    return {
        "task": task,
        "prompt": prompt,
        "system": system,
        "estimator": baseline("ratings"),
        N_JUDGED: n,
        "n_outputs": len(outputs),
        "estimate": estimate,
        CI_LOW: np.nan,
        CI_HIGH: np.nan,
        LEVEL: level,
        EFFECTIVE_N: np.nan,
        NOTE: f"{what} (an interval needs at least {MIN_ITEMS}): {'no interval' if n else 'no estimate'}",
    }


def coverage_table(
    joined: Sequence[pd.DataFrame],
    prompts: Mapping[str, Sequence[str]],
    metrics: Sequence[str],
    *,
    sample_sizes: Sequence,
    n_repeats: int,
    level: float,
    seed: int,
    ppi: bool = True,
    memory_mb: float | None = None,
) -> pd.DataFrame:
    """:func:`debias.stats.checks.coverage.coverage_experiment` on every system x prompt (``coverage.csv``),
    the draws held at once bounded by ``memory_mb``.

    The world of a cell is its judged items; each cell's random numbers come from
    ``setting_seed(seed, task, system, prompt, "coverage")``, so a cell's rows do not depend on
    which other cells run.
    """
    frames = []
    for task, system, prompt, _, judged in iter_cells(joined, prompts):
        if len(judged) < MIN_ITEMS:
            continue
        if not resolve_sample_sizes(sample_sizes, len(judged)):
            log.warning(
                "%s/%s/%s: no configured sample size fits its %d judged items (estimates.sample_sizes: %s), "
                "no coverage rows",
                task,
                system,
                prompt,
                len(judged),
                list(sample_sizes),
            )
            continue
        rng = np.random.default_rng(setting_seed(seed, task, system, prompt, "coverage"))
        scores = {metric: judged[metric].to_numpy(dtype=float) for metric in present_metrics(metrics, judged)}
        table = coverage_experiment(
            Judgments.from_joined(judged),
            scores,
            sample_sizes=sample_sizes,
            n_repeats=n_repeats,
            level=level,
            rng=rng,
            ppi=ppi,
            memory_mb=memory_mb,
        )
        table = pd.DataFrame(table, columns=COVERAGE_COLUMNS)
        table.insert(0, "system", system)
        table.insert(0, "prompt", prompt)
        table.insert(0, "task", task)
        frames.append(table)
        log.info(
            "%s/%s/%s: coverage of %d estimators x %d sizes",
            task,
            system,
            prompt,
            table["estimator"].nunique(),
            table["n"].nunique(),
        )
    if not frames:
        return pd.DataFrame(columns=COVERAGE_TABLE_COLUMNS)
    return pd.concat(frames, ignore_index=True)
