r"""Does a plan made from a small pilot meet its target? Checked in two worlds.

Resampled world (:func:`plan_check_experiment`). The world is one system x prompt: its N
judged items, an item's true score the mean of its judgments, :math:`\sigma_f^2` the variance
of those means and :math:`\sigma_a^2` the judgments' spread around them
(:func:`debias.stats.ratings.variance.resampling_components`). A pilot is m items drawn without
replacement, with all their judgments; the planner sees only the pilot, plans n at k = 1
judgment per item (what the world can realise) for a target width, and the realised
width at that n is the world's own expected width there (:func:`debias.stats.ratings.planning.planned_width`
with the world's components, which is what an interval from n resampled items estimates). A
plan meets the target when the realised width is at most the target; the share of pilots that
meet it should match the planner's assurance. The cv plan uses the metric most correlated with
the pilot's item scores, bounded with that choice repeated in every bootstrap resample
(:func:`debias.stats.ratings.plan_bound.selection_bound_factor`), and the world's correlation of that
metric. Its raters are the
released data's raters over again: it checks plans at k = 1 only, and does not see the rater
noise a new study brings.

Fresh-rater world (:func:`fresh_check_experiment`), what a plan is for. A model is fitted to the
cell's judged items (:func:`fit_fresh_world`): item true scores with the unbiased
:math:`\sigma_f^2`, and rater noise of the unbiased :math:`\sigma_a^2`. Each pilot is m of its
items judged afresh by as many new raters as the cell's items mostly have; the planner plans
(n, k) with k up to its ``k_max`` from that pilot alone (``cv`` with the pilot's best metric and
the bound that repeats the choice, as in the resampled world), and the realised width is the
fitted world's expected width at (n, k) (:func:`debias.stats.ratings.planning.planned_width` with the
world's true components of the estimator and, for ``cv``, of the metric the pilot chose).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from debias.data import as_judgments
from debias.stats.ratings.metric_correlation import best_metric, best_metric_index
from debias.stats.ratings.plan_bound import bound_factor, selection_bound_factor, upper_bound_components
from debias.stats.ratings.planning import (
    PlanComponents,
    candidate_contributions,
    component_arrays,
    design_contributions,
    largest_variance,
    pilot_components,
    plan_design,
    plan_sizes,
    planned_width,
)
from debias.stats.ratings.variance import annotator_variance as pooled_within_variance

__all__ = [
    "PLAN_CHECK_COLUMNS",
    "FreshWorld",
    "check_target_width",
    "fit_fresh_world",
    "fresh_check_experiment",
    "plan_check_experiment",
    "world_components",
]

#: Pilots per block of the fresh-rater check's bootstrap: bounds its memory, and a block of a few
#: pilots (a few MB) stays in cache (blocks of 25 took a fifth longer). The draws do not depend on it.
PILOT_BLOCK = 5

PLAN_CHECK_COLUMNS = [
    "estimator",
    "world",
    "n_items",
    "pilot_size",
    "pilots",
    "assurance",
    "target_width",
    "median_planned_n",
    "median_planned_k",
    "median_ratio",
    "met",
    "met_se",
    "note",
]


def world_components(judgments, scores=None) -> PlanComponents:
    """The resampled world's components: all N items are a pilot of the whole population."""
    judgments = as_judgments(judgments)
    components, _ = pilot_components(judgments, judgments.n_items, scores, world="resampled")
    return components


def check_target_width(judgments, n: int, level: float) -> float:
    """The resampled world's width of ``mean`` at n items with one judgment each: a target the
    check can reach near n."""
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
    ``annotator_variance`` reach the planner (:func:`debias.stats.ratings.planning.pilot_components`); a
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
            chosen = None
            if j is not None and q.size and q.mean() > 0 and np.sum(np.isfinite(rho)) > 1:
                candidates = np.flatnonzero(np.isfinite(rho))  # the metrics the pilot chose among
                q = candidate_contributions(
                    pilot_judgments, scores[candidates][:, pilot], annotator_variance=annotator_variance
                )
                chosen = int(np.flatnonzero(candidates == j)[0])
            bound = upper_bound_components(components, q, assurance, rng=rng, scale=scale, chosen=chosen)
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
                "world": "resampled",
                "n_items": n_items,
                "pilot_size": pilot_size,
                "pilots": n_pilots,
                "assurance": assurance,
                "target_width": target_width,
                "median_planned_n": float(np.median(planned)),
                "median_planned_k": 1.0,
                "median_ratio": float(np.median(ratio)),
                "met": met,
                "met_se": float(np.sqrt(met * (1 - met) / n_pilots)),
                "note": _note(assumed[estimator], n_pilots),
            }
        )
    return rows


def _candidates(q, chosen, rho, f, w, k, g, given, designs):
    """The fresh-rater check's input to :func:`debias.stats.ratings.plan_bound.selection_bound_factor`:
    every metric's contributions per pilot (shape (pilots, M, designs, m)) with the chosen
    metric's row the pilot's own ``q``, the chosen row, and the metrics each pilot chose among
    (finite ``rho``). A pilot whose metrics all failed (``chosen`` -1, planned as ``mean``) has
    its ``q`` as its one candidate."""
    n_metrics = g.shape[0]
    if n_metrics == 1:  # no choice: the bound of the one metric, the same draws and numbers
        return q[:, None], np.zeros(q.shape[0], dtype=int), np.ones((q.shape[0], 1), dtype=bool)
    parts = component_arrays(f, w, k, g, annotator_variance=given)  # every metric at once: (M, pilots, ...)
    every = np.moveaxis(design_contributions(parts[2], w, k, parts[1], designs), 0, 1)
    none = chosen < 0
    index = np.where(none, 0, chosen)
    candidates = np.moveaxis(np.isfinite(rho), 0, -1) & ~none[:, None]
    candidates[none, 0] = True
    every[np.arange(q.shape[0]), index] = q
    return every, index, candidates


def _note(notes: list[str], n_pilots: int) -> str:
    return f"{len(notes)} of {n_pilots} pilots: {notes[0]}" if notes else ""


@dataclass(frozen=True)
class FreshWorld:
    """The model fitted to one cell's judged items, from which the fresh-rater check draws.

    Attributes
    ----------
    truth : numpy.ndarray, shape (N,)
        The items' true scores: their mean judgments shrunk towards the grand mean so that their
        variance (ddof 1) is the unbiased :math:`\\hat\\sigma_f^2`.
    noise : float
        :math:`\\sigma_a^2` of one fresh judgment around its item's true score.
    residuals : numpy.ndarray
        The rater noise to draw from: the released judgments' deviations from their item means
        scaled to ddof 1 (:math:`(y_{ij} - \\bar y_i)\\sqrt{k_i / (k_i - 1)}`), centred and scaled
        to mean square ``noise``; empty when no item has two judgments (noise is then normal).
    judgments_per_item : int
        Judgments k of each pilot item (the cell's most common count).
    items_only : bool
        One judgment per item and no ``annotator_variance``: the world has no rater noise to
        tell apart and the planner plans items only.
    note : str
        What the fit floored or assumed ("" when nothing).
    """

    truth: np.ndarray
    noise: float
    residuals: np.ndarray
    judgments_per_item: int
    items_only: bool
    note: str = ""

    def components(self, scores=None) -> PlanComponents:
        """The world's true components for ``mean`` or (``scores`` given) ``cv`` on that metric."""
        t = self.truth
        n = t.size
        residual = t - t.mean()
        fitted, rho = 1, 0.0
        if scores is not None:
            g = np.asarray(scores, dtype=float) - np.mean(scores)
            if g @ g > 0:
                residual = residual - (g @ residual) / (g @ g) * g
                fitted = 2
                spread = float((t - t.mean()) @ (t - t.mean()))
                rho = float(g @ (t - t.mean()) / np.sqrt((g @ g) * spread)) if spread > 0 else 0.0
        return PlanComponents(float(residual @ residual / (n - fitted)), self.noise, n, fitted, rho, self.items_only)


def fit_fresh_world(judgments, *, annotator_variance: float | None = None) -> FreshWorld:
    r"""Fit the fresh-rater world to a cell's judged items.

    :math:`\hat\sigma_a^2` is pooled within items with ddof 1
    (:func:`debias.stats.ratings.variance.annotator_variance`), or ``annotator_variance`` when no item
    has two judgments (without it the world has no separate rater noise: ``items_only``);
    :math:`\hat\sigma_f^2 = s^2_{ar y} - \hat\sigma_a^2 \overline{1/k}` (Table 2's unbiased
    :math:`\sigma_f^2`), floored at 0 with a note. The true scores are the item means shrunk by
    :math:`\sqrt{\hat\sigma_f^2 / s^2_{ar y}}` towards their mean: the items' distribution
    keeps its shape (skew, ties, heavy tails) and its correlation with each metric, with the
    rater noise taken out of its variance.
    """
    judgments = as_judgments(judgments)
    f = judgments.item_means
    counts = judgments.counts
    if f.size < 3:
        raise ValueError(f"a fresh-rater world needs at least 3 judged items, got {f.size}")
    multi = judgments.multiply_judged
    noise = pooled_within_variance(judgments) if multi.any() else annotator_variance
    items_only = noise is None
    noise = 0.0 if items_only else float(noise)
    s2 = float(np.var(f, ddof=1))
    unbiased = s2 - noise * float(np.mean(1.0 / counts))
    note = ""
    if unbiased < 0:
        note = f"unbiased items' variance {unbiased:.6g} < 0: floored at 0 (the items' true scores are equal)"
    shrink = np.sqrt(max(unbiased, 0.0) / s2) if s2 > 0 else 0.0
    truth = f.mean() + shrink * (f - f.mean())
    residuals = np.zeros(0)
    if multi.any() and noise > 0:
        k = counts[judgments.item_index]
        keep = k >= 2
        residuals = (judgments.values - f[judgments.item_index])[keep] * np.sqrt(k[keep] / (k[keep] - 1.0))
        residuals = residuals - residuals.mean()
        residuals = residuals * np.sqrt(noise / np.mean(residuals * residuals))
    k_pilot = int(np.argmax(np.bincount(counts)))
    return FreshWorld(truth, noise, residuals, k_pilot, items_only, note)


def fresh_check_experiment(
    judgments,
    metrics: Mapping[str, np.ndarray],
    *,
    target_width: float | None = None,
    target_n: int = 150,
    n_pilots: int,
    pilot_size: int,
    level: float,
    assurance: float,
    rng: np.random.Generator,
    scale=None,
    annotator_variance: float | None = None,
    k_max: int = 5,
    cost_per_judgment: float = 1.0,
    cost_per_item: float = 0.0,
) -> list[dict]:
    """Plan from ``n_pilots`` pilots of fresh items and raters drawn from the fitted world, and
    measure each plan's width in that world (module notes).

    Parameters
    ----------
    judgments : Judgments
        The cell's judged items, to which the world is fitted (:func:`fit_fresh_world`).
    metrics : mapping of str to array_like, shape (N,)
        Metric scores of the judged items; ``cv`` plans with the pilot's best metric.
    target_width : float, optional
        The FULL width to reach; default the world's ``mean`` width at ``target_n`` items with
        one judgment each.
    n_pilots, pilot_size : int
        Pilots, and items in each (drawn without replacement from the world's N items).
    level, assurance : float
        The interval's level and the planner's assurance.
    rng : numpy.random.Generator
        Draws the pilots, their judgments and the planner's bootstrap.
    scale, annotator_variance, k_max, cost_per_judgment, cost_per_item
        The planner's settings (:func:`debias.stats.ratings.planning.pilot_components`,
        :func:`debias.stats.ratings.planning.plan_design`); ``annotator_variance`` also fits the world of
        a cell judged once per item.

    Returns
    -------
    list of dict
        One row per estimator, columns :data:`PLAN_CHECK_COLUMNS` with ``world`` = "fresh":
        ``met`` is the share of pilots whose plan's width in the world is at most the target,
        ``met_se`` its binomial Monte-Carlo standard error; a pilot the planner cannot plan from
        (its values all equal) counts as judging all N items ``k_max`` times.

    Notes
    -----
    Every pilot is an entry of a leading array axis: the pilots' items, their judgments, the
    components (:func:`debias.stats.ratings.planning.component_arrays`), the bootstrap bound
    (:func:`debias.stats.ratings.plan_bound.bound_factor`; for ``cv`` with several metrics,
    :func:`debias.stats.ratings.plan_bound.selection_bound_factor` on every metric's contributions) and
    the least-cost design
    (:func:`debias.stats.ratings.planning.plan_sizes`) are computed for all pilots at once.
    """
    judgments = as_judgments(judgments)
    world = fit_fresh_world(judgments, annotator_variance=annotator_variance)
    n_items = judgments.n_items
    if not 3 < pilot_size <= n_items:
        raise ValueError(f"pilot_size must be in (3, {n_items}], got {pilot_size}")
    names = list(metrics)
    scores = np.array([np.asarray(metrics[m], dtype=float) for m in names]).reshape(len(names), n_items)
    truths = {"mean": world.components()}
    truths.update({j: world.components(scores[j]) for j in range(len(names))})
    if target_width is None:
        target_width = float(planned_width(min(target_n, n_items), 1, truths["mean"], level))
    k = world.judgments_per_item
    pilots = np.argsort(rng.random((n_pilots, n_items)), axis=1)[:, :pilot_size]
    if world.residuals.size:
        noise = world.residuals[rng.integers(0, world.residuals.size, size=(n_pilots, pilot_size, k))]
    else:
        noise = rng.normal(0.0, np.sqrt(world.noise), size=(n_pilots, pilot_size, k))
    y = world.truth[pilots][..., None] + noise
    f, w = y.mean(axis=-1), y.var(axis=-1)
    given = annotator_variance  # what the planner knows of sigma_a^2 beyond a pilot judged once per item
    items_only = k == 1 and given is None
    choices = {"mean": np.full(n_pilots, -1)}
    if names:
        g = scores[:, pilots]  # (M, pilots, m)
        rho = component_arrays(f, w, k, g, annotator_variance=given)[3]  # (M, pilots)
        choices["cv"] = best_metric_index(np.moveaxis(rho, 0, -1))
    designs = 1 if items_only else int(k_max)
    rows = []
    for estimator, chosen in choices.items():
        item, noise_part = np.zeros(n_pilots), np.zeros(n_pilots)
        q = np.zeros((n_pilots, designs, pilot_size))
        floored = 0
        for j in np.unique(chosen):
            at = chosen == j
            metric = None if j < 0 else g[j][at]
            parts = component_arrays(f[at], w[at], k, metric, annotator_variance=given)
            item[at], noise_part[at] = parts[0], parts[1]
            q[at] = design_contributions(parts[2], w[at], k, parts[1], designs)
            floored += int(np.sum(parts[4] < 0))
        if estimator == "mean":
            factors = np.concatenate(
                [
                    bound_factor(q[start : start + PILOT_BLOCK], assurance, rng=rng)[0]
                    for start in range(0, n_pilots, PILOT_BLOCK)
                ]
            )  # (pilots, designs): the bound of each k
        else:
            every, index, candidates = _candidates(q, chosen, rho, f, w, k, g, given, designs)
            factors = np.concatenate(
                [
                    selection_bound_factor(
                        every[block], index[block], assurance, rng=rng, candidates=candidates[block]
                    )[0]
                    for block in (slice(start, start + PILOT_BLOCK) for start in range(0, n_pilots, PILOT_BLOCK))
                ]
            )  # (pilots, designs): the bound of each k, the metric chosen again in every resample
        largest = largest_variance(scale)
        if largest is not None:
            total = (item + noise_part)[:, None]
            factors = np.minimum(factors, largest / np.where(total > 0, total, 1.0))
        shape = PlanComponents(0.0, 0.0, n_items, 1 if estimator == "mean" else 2, items_only=items_only)
        n, kk, _, _ = plan_sizes(
            item * factors[:, 0],
            noise_part * factors[:, 0],
            shape,
            target_width,
            level=level,
            cost_per_judgment=cost_per_judgment,
            cost_per_item=cost_per_item,
            k_max=designs,
            k_factors=factors / factors[:, :1],
        )
        q = q[:, 0]
        unplannable = ~(q.mean(axis=-1) > 0)
        unreached = (n == 0) | unplannable
        n = np.where(unreached, n_items, n)
        kk = np.where(unreached, 1 if items_only else k_max, kk)
        ratio = np.empty(n_pilots)
        for j in np.unique(chosen):
            at = chosen == j
            truth = truths["mean" if j < 0 else int(j)]
            ratio[at] = planned_width(n[at], kk[at], truth, level) / target_width
        met = float(np.mean(ratio <= 1.0 + 1e-12))
        notes = [world.note] if world.note else []
        if floored:
            notes.append(f"{floored} of {n_pilots} pilots' items' variance floored at 0")
        if unplannable.any():
            notes.append(f"{int(unplannable.sum())} of {n_pilots} pilots could not be planned from: all N items")
        rows.append(
            {
                "estimator": estimator,
                "world": "fresh",
                "n_items": n_items,
                "pilot_size": pilot_size,
                "pilots": n_pilots,
                "assurance": assurance,
                "target_width": float(target_width),
                "median_planned_n": float(np.median(n)),
                "median_planned_k": float(np.median(kk)),
                "median_ratio": float(np.median(ratio)),
                "met": met,
                "met_se": float(np.sqrt(met * (1 - met) / n_pilots)),
                "note": "; ".join(notes),
            }
        )
    return rows
