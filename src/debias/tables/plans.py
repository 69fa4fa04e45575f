"""Sample-size plans for every system x prompt, and their checks (resampled and fresh-rater
worlds), as tables.

Both read the joined tables (:mod:`debias.tables.joined`). A system's judged items are the pilot of
its plan: the design it returns is for judging N outputs of a system like it (N = the system's
outputs). ``plan.target_widths`` gives widths on the judgments' scale; left empty, every cell
gets its own targets, the width of ``mean`` with one judgment per item at each n of
``plan.auto_n`` (so the planned n stays between 50 and 0.8 N for the defaults). ``spec["scales"]``
(task -> prompt -> (min, max)) and ``spec["annotator_variance"]`` reach the planner: a pilot
that cannot bound its variance (all judgments equal, two or three items) assumes the largest
variance on its prompt's scale, and every row says in ``note`` what was assumed.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from debias.data import Judgments
from debias.stats.checks.plan_check import (
    PLAN_CHECK_COLUMNS,
    check_target_width,
    fresh_check_experiment,
    plan_check_experiment,
)
from debias.stats.common.resampling import setting_seed
from debias.stats.common.vocabulary import baseline, estimator_name, is_people_only
from debias.stats.ratings import (
    ClusterPlan,
    DesignPlan,
    best_metric,
    candidate_contributions,
    cluster_components,
    pilot_components,
    plan_clusters,
    plan_design,
    planned_width,
    upper_bound_components,
)
from debias.tables.joined import cluster_column, iter_cells, present_metrics

__all__ = ["PLAN_CHECK_TABLE_COLUMNS", "PLAN_COLUMNS", "plan_check_table", "plan_table"]

PLAN_COLUMNS = [
    "task",
    "prompt",
    "system",
    "estimator",
    "target_width",
    "level",
    "assurance",
    "n",
    "k",
    "cost",
    "planned_width",
    "sigma2_item",
    "sigma2_a",
    "rho",
    "n_pilot",
    "n_outputs",
    "note",
]
PLAN_CHECK_TABLE_COLUMNS = ["task", "prompt", "system", *PLAN_CHECK_COLUMNS]

log = logging.getLogger(__name__)


def _targets(spec, world):
    if spec["target_widths"]:
        return [float(w) for w in spec["target_widths"]]
    if not np.isfinite(world.item):
        return [float("nan")]
    n_outputs = world.n_outputs
    sizes = sorted({int(min(max(n, 50), 0.8 * n_outputs)) for n in spec["auto_n"]})
    sizes = sorted({max(n, world.fitted + 1) for n in sizes if n <= n_outputs}) or [n_outputs]
    return [float(planned_width(n, 1, world, spec["level"])) for n in sizes]


def _scale(spec, task, prompt):
    return (spec.get("scales") or {}).get(task, {}).get(prompt)


def _metric_choice(judgments: Judgments, scores: pd.DataFrame) -> tuple[str | None, list[str]]:
    """The metric most correlated with the judged items' mean judgments, and the metrics it was
    chosen among (those whose correlation is a number)."""
    f = judgments.item_means
    rho = [np.corrcoef(f, scores[m])[0, 1] if np.std(scores[m]) > 0 and np.std(f) > 0 else np.nan for m in scores]
    best = best_metric(rho)
    candidates = [m for m, r in zip(scores, rho, strict=True) if np.isfinite(r)]
    return (None if best is None else list(scores)[best]), candidates


def _cv_contributions(judgments, judged, best, candidates, q, spec, sigma2_a):
    """Every candidate metric's contributions and the chosen one's row, for the bound that
    repeats the choice (:func:`debias.stats.ratings.plan_bound.selection_bound_factor`); (``q``, None)
    when there was no choice (one candidate) or the chosen metric's pilot bounds nothing."""
    if len(candidates) < 2 or q.size == 0 or not q.mean() > 0:
        return q, None
    scores = judged[candidates].to_numpy(dtype=float).T
    every = candidate_contributions(
        judgments, scores, annotator_variance=sigma2_a, k_max=spec["max_judgments_per_item"]
    )
    return (every, candidates.index(best)) if every.shape[1:] == q.shape else (q, None)


def plan_table(
    joined: Sequence[pd.DataFrame], prompts: Mapping[str, Sequence[str]], metrics: Sequence[str], spec: Mapping
) -> pd.DataFrame:
    """The least-cost design (n, k) per cell, target width and estimator (``plan.csv``).

    Estimators: ``mean`` and ``cv:<metric>`` with the metric most correlated with the judged
    items' mean judgments. Components come from all judged items, bounded above at
    ``spec["assurance"]`` (:func:`debias.stats.ratings.plan_bound.upper_bound_components`, seeded per
    cell); ``cv``'s bound repeats the choice of its metric in every bootstrap resample
    (:func:`debias.stats.ratings.plan_bound.selection_bound_factor`), so that the best of several
    metrics is not planned as if it had been fixed in advance. When the joined tables give the
    items' clusters and items share them, the plan is in clusters
    (:func:`debias.stats.ratings.plan_clusters`: how many clusters, items per cluster and
    judgments per item; ``spec["cost_per_cluster"]``), n is clusters times items, and the table
    adds :data:`PLAN_CLUSTER_COLUMNS`.
    """
    rows = []
    for task, system, prompt, outputs, judged in iter_cells(joined, prompts):
        judgments, n_outputs = Judgments.from_joined(judged), len(outputs)
        scale, sigma2_a = _scale(spec, task, prompt), spec.get("annotator_variance")
        world, _ = pilot_components(judgments, n_outputs, annotator_variance=sigma2_a, scale=scale)
        best, candidates = None, []
        if len(judged) > 3:
            best, candidates = _metric_choice(judgments, judged[present_metrics(metrics, judged)])
        for estimator in [baseline("ratings")] + ([estimator_name("cv", best)] if best else []):
            scores = None if is_people_only(estimator) else judged[best].to_numpy(dtype=float)
            components, q = pilot_components(
                judgments,
                n_outputs,
                scores,
                annotator_variance=sigma2_a,
                scale=scale,
                k_max=spec["max_judgments_per_item"],
            )
            chosen = None
            if not is_people_only(estimator):
                q, chosen = _cv_contributions(judgments, judged, best, candidates, q, spec, sigma2_a)
            rng = np.random.default_rng(setting_seed(spec["seed"], task, system, prompt, estimator, "plan"))
            bound = upper_bound_components(components, q, spec["assurance"], rng=rng, scale=scale, chosen=chosen)
            parts = _cluster_components(judgments, judged, scores, components, bound)
            for target in _targets(spec, world):
                plan = _plan(bound, target, spec)
                extra = {}
                if parts is not None:  # items share clusters: the plan is in clusters
                    design = _clustered_plan(parts, target, spec)
                    k = design.k
                    plan = replace(
                        plan, n=design.clusters * design.items_per_cluster, k=k, cost=design.cost, width=design.width
                    )
                    extra = {
                        "clusters": design.clusters,
                        "items_per_cluster": design.items_per_cluster,
                        "design_effect": design.design_effect,
                    }
                rows.append(
                    {
                        "task": task,
                        "prompt": prompt,
                        "system": system,
                        "estimator": estimator,
                        "target_width": target,
                        "level": spec["level"],
                        "assurance": spec["assurance"],
                        "n": plan.n,
                        "k": plan.k,
                        "cost": plan.cost,
                        "planned_width": plan.width,
                        "sigma2_item": components.item,
                        "sigma2_a": np.nan if components.items_only else components.noise,
                        "rho": components.rho,
                        "n_pilot": len(judged),
                        "n_outputs": n_outputs,
                        "note": _plan_note(bound, plan, components.n_outputs),
                        **extra,
                    }
                )
                if bound.note:
                    log.warning("%s/%s/%s %s: %s", task, system, prompt, estimator, bound.note)
    clustered = any("clusters" in row for row in rows)
    table = pd.DataFrame(
        rows, columns=PLAN_COLUMNS[:-1] + PLAN_CLUSTER_COLUMNS + PLAN_COLUMNS[-1:] if clustered else PLAN_COLUMNS
    )
    if clustered:
        table["clusters"] = table["clusters"].astype("Int64")
        table["items_per_cluster"] = table["items_per_cluster"].astype("Int64")
    return table


#: Columns a plan table adds when items share clusters (its plans are then in clusters).
PLAN_CLUSTER_COLUMNS = ["clusters", "items_per_cluster", "design_effect"]


def _cluster_components(judgments, judged, scores, components, bound):
    """The cell's components in clusters (:func:`debias.stats.ratings.cluster_components`) from its
    judged items' values (their mean judgments; the residuals of the line on the metric for
    ``cv``), scaled by the assurance bound's factor on the items' part, or ``None`` when the
    items share no cluster or the pilot cannot tell the parts apart."""
    clusters = cluster_column(judged)
    if clusters is None or np.unique(clusters.astype(str)).size == clusters.size:
        return None
    values = judgments.item_means
    if scores is not None and np.std(scores) > 0:
        slope, intercept = np.polyfit(scores, values, 1)
        values = values - (intercept + slope * scores)
    noise = 0.0 if components.items_only else components.noise * float(np.mean(1.0 / judgments.counts))
    try:
        parts = cluster_components(values, clusters, noise, fitted=components.fitted)
    except ValueError:
        return None
    factor = bound.item / components.item if components.item > 0 and np.isfinite(bound.item) else 1.0
    return replace(
        parts,
        between=parts.between * factor,
        within=parts.within * factor,
        noise=components.noise,
        n_clusters=max(parts.n_clusters, 2),
    )


def _clustered_plan(parts, target, spec):
    """The least-cost design in clusters, or none when the target is not a number."""
    if not (np.isfinite(target) and target > 0):
        return ClusterPlan(0, 0, 0, float("nan"), float("nan"), float("nan"))
    return plan_clusters(
        parts,
        target,
        level=spec["level"],
        cost_per_judgment=spec["cost_per_judgment"],
        cost_per_item=spec["cost_per_item"],
        cost_per_cluster=spec.get("cost_per_cluster", 0.0),
        k_max=1 if parts.noise == 0 else spec["max_judgments_per_item"],
    )


def _plan(bound, target, spec) -> DesignPlan:
    """The least-cost design, or none (n = k = 0) when the bound or the target is not a number."""
    if not (np.isfinite(bound.item) and np.isfinite(target) and target > 0):
        return DesignPlan(0, 0, float("nan"), float("nan"), float(target), spec["level"])
    return plan_design(
        bound,
        target,
        level=spec["level"],
        cost_per_judgment=spec["cost_per_judgment"],
        cost_per_item=spec["cost_per_item"],
        k_max=spec["max_judgments_per_item"],
    )


def _plan_note(bound, plan, n_outputs) -> str:
    notes = [bound.note] if bound.note else []
    if plan.n == 0 and np.isfinite(bound.item):
        notes.append(f"no design up to all {n_outputs} outputs meets the target")
    return "; ".join(notes)


def plan_check_table(
    joined: Sequence[pd.DataFrame], prompts: Mapping[str, Sequence[str]], metrics: Sequence[str], spec: Mapping
) -> pd.DataFrame:
    """:func:`debias.stats.checks.plan_check.plan_check_experiment` (rows with ``world`` "resampled") and
    :func:`debias.stats.checks.plan_check.fresh_check_experiment` (``world`` "fresh", with the plan's
    ``max_judgments_per_item`` and costs) on every cell (``plan_check.csv``); the target is each
    world's ``mean`` width at ``plan.check.n`` items, or at 0.8 N when the cell has
    fewer judged items than that (as ``plan.auto_n`` is capped): a target that only all N items
    reach would leave the plans no room, and any estimator whose width at N is a hair wider than
    the mean's would never meet it."""
    check = spec["check"]
    frames = []
    for task, system, prompt, _, judged in iter_cells(joined, prompts):
        labels = {"task": task, "prompt": prompt, "system": system}
        judgments = Judgments.from_joined(judged)
        n_target = max(3, min(int(check["n"]), int(0.8 * len(judged))))
        target = check_target_width(judgments, n_target, spec["level"]) if len(judged) > 2 else 0
        why = ""
        if len(judged) <= check["pilot_size"]:
            why = f"{len(judged)} judged items, not more than the pilot size {check['pilot_size']}: no plan check"
        elif not target > 0:
            why = "the judged items' judgments do not vary: every plan meets any target, nothing to check"
        if why:
            log.warning("%s/%s/%s: %s", task, system, prompt, why)
            row = {**labels, "estimator": baseline("ratings"), "world": "resampled", "n_items": len(judged)}
            row["pilot_size"] = check["pilot_size"]
            frames.append(pd.DataFrame([{**row, "pilots": 0, "assurance": spec["assurance"], "note": why}]))
            continue
        table = plan_check_experiment(
            judgments,
            {m: judged[m].to_numpy(dtype=float) for m in present_metrics(metrics, judged)},
            target_width=target,
            n_pilots=check["pilots"],
            pilot_size=check["pilot_size"],
            level=spec["level"],
            assurance=spec["assurance"],
            rng=np.random.default_rng(setting_seed(spec["seed"], task, system, prompt, "plan_check")),
            scale=_scale(spec, task, prompt),
            annotator_variance=spec.get("annotator_variance"),
        )
        fresh = fresh_check_experiment(
            judgments,
            {m: judged[m].to_numpy(dtype=float) for m in present_metrics(metrics, judged)},
            target_n=n_target,
            n_pilots=check["pilots"],
            pilot_size=check["pilot_size"],
            level=spec["level"],
            assurance=spec["assurance"],
            rng=np.random.default_rng(setting_seed(spec["seed"], task, system, prompt, "plan_check", "fresh")),
            scale=_scale(spec, task, prompt),
            annotator_variance=spec.get("annotator_variance"),
            k_max=spec["max_judgments_per_item"],
            cost_per_judgment=spec["cost_per_judgment"],
            cost_per_item=spec["cost_per_item"],
        )
        frames.append(pd.DataFrame(fresh + table, columns=PLAN_CHECK_COLUMNS).assign(**labels))
    if not frames:
        return pd.DataFrame(columns=PLAN_CHECK_TABLE_COLUMNS)
    return pd.concat(frames, ignore_index=True).reindex(columns=PLAN_CHECK_TABLE_COLUMNS)
