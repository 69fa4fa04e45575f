"""Does a plan made from a small pilot meet its target? Checked by resampling the released data.

The world is one system x prompt: its N judged items, an item's true score the mean of its
judgments, :math:`\\sigma_f^2` the variance of those means and :math:`\\sigma_a^2` the judgments'
spread around them (:func:`debias.stats.variance.resampling_components`). A pilot is m items
drawn without replacement, with all their judgments; the planner sees only the pilot, plans n
at k = 1 judgment per item (what the world can realise) for a target width, and the realised
width at that n is the world's own expected width there (:func:`debias.stats.planning.planned_width`
with the world's components, which is what an interval from n resampled items estimates). A
plan meets the target when the realised width is at most the target; the share of pilots that
meet it should match the planner's assurance. The cv plan uses the metric most correlated with
the pilot's item scores, and the world's correlation of that metric.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from debias.data import as_judgments
from debias.stats.correlation import best_metric
from debias.stats.plan_bound import upper_bound_components
from debias.stats.planning import PlanComponents, pilot_components, plan_design, planned_width

__all__ = ["PLAN_CHECK_COLUMNS", "check_target_width", "plan_check_experiment", "world_components"]

PLAN_CHECK_COLUMNS = [
    "estimator",
    "n_items",
    "pilot_size",
    "pilots",
    "assurance",
    "target_width",
    "median_planned_n",
    "median_ratio",
    "met",
    "met_se",
    "note",
]


def world_components(judgments, scores=None) -> PlanComponents:
    """The world's components: all N items are a pilot of the whole population."""
    judgments = as_judgments(judgments)
    components, _ = pilot_components(judgments, judgments.n_items, scores)
    return components


def check_target_width(judgments, n: int, level: float) -> float:
    """The world's width of ``mean`` at n items with one judgment each: a target the check can
    reach near n."""
    return float(planned_width(n, 1, world_components(judgments), level))


def plan_check_experiment(
    judgments,
    metrics: Mapping[str, np.ndarray],
    *,
    target_width: float,
    n_pilots: int,
    pilot_size: int,
    level: float,
    assurance: float,
    rng: np.random.Generator,
    scale=None,
    annotator_variance: float | None = None,
) -> list[dict]:
    """Plan from ``n_pilots`` random pilots and measure the realised width of each plan.

    Returns one row per estimator (``mean``, and ``cv`` with the pilot's best metric when
    ``metrics`` is not empty), columns :data:`PLAN_CHECK_COLUMNS`: ``median_ratio`` is the
    median realised/target width, ``met`` the share of plans whose realised width is at most
    the target, ``met_se`` its binomial Monte-Carlo standard error. ``scale`` and
    ``annotator_variance`` reach the planner (:func:`debias.stats.planning.pilot_components`); a
    pilot it cannot plan from counts as judging all N items; ``note`` counts the pilots whose
    plan rests on an assumption and names the first.
    """
    judgments = as_judgments(judgments)
    n_items = judgments.n_items
    if not 3 < pilot_size <= n_items:
        raise ValueError(f"pilot_size must be in (3, {n_items}], got {pilot_size}")
    names = list(metrics)
    scores = np.array([np.asarray(metrics[m], dtype=float) for m in names]).reshape(len(names), n_items)
    worlds = {"mean": world_components(judgments)}
    worlds.update({m: world_components(judgments, scores[j]) for j, m in enumerate(names)})
    results = {"mean": [], "cv": []} if names else {"mean": []}
    assumed = {estimator: [] for estimator in results}
    for _ in range(n_pilots):
        pilot = rng.choice(n_items, size=pilot_size, replace=False)
        pilot_judgments = judgments.take(pilot)
        f = pilot_judgments.item_means
        choices = [("mean", None)]
        if names:
            rho = [
                np.corrcoef(f, scores[j, pilot])[0, 1] if np.std(scores[j, pilot]) > 0 and np.std(f) > 0 else np.nan
                for j in range(len(names))
            ]
            choices.append(("cv", best_metric(rho)))  # None: no metric varies with the pilot, cv is mean
        for estimator, j in choices:
            components, q = pilot_components(
                pilot_judgments,
                n_items,
                None if j is None else scores[j, pilot],
                annotator_variance=annotator_variance,
                scale=scale,
            )
            if components.note:
                assumed[estimator].append(components.note)
            bound = upper_bound_components(components, q, assurance, rng=rng, scale=scale)
            n = n_items
            if np.isfinite(bound.item):
                n = plan_design(bound, target_width, level=level, k_max=1).n or n_items
            world = worlds["mean" if j is None else names[j]]
            results[estimator].append((n, float(planned_width(n, 1, world, level)) / target_width))
    rows = []
    for estimator, values in results.items():
        planned, ratio = np.array(values).T
        met = float(np.mean(ratio <= 1.0 + 1e-12))
        rows.append(
            {
                "estimator": estimator,
                "n_items": n_items,
                "pilot_size": pilot_size,
                "pilots": n_pilots,
                "assurance": assurance,
                "target_width": target_width,
                "median_planned_n": float(np.median(planned)),
                "median_ratio": float(np.median(ratio)),
                "met": met,
                "met_se": float(np.sqrt(met * (1 - met) / n_pilots)),
                "note": _note(assumed[estimator], n_pilots),
            }
        )
    return rows


def _note(notes: list[str], n_pilots: int) -> str:
    return f"{len(notes)} of {n_pilots} pilots: {notes[0]}" if notes else ""
