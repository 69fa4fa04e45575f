r"""How many items to have judged, and by how many annotators each: the least-cost design.

An evaluation that judges n of a system's N outputs with k judgments each estimates the mean
human score with variance

.. math::

    V(n, k) = \frac{(1 - n/N)\, S^2 + \sigma_a^2 / k}{n},

where :math:`S^2` is the items' part (:math:`\sigma_f^2` for ``mean``; :math:`\sigma_f^2(1 -
\rho^2)` for the control variate with a metric correlated :math:`\rho` with the item's true
score, Eq. (6) of the paper) and :math:`\sigma_a^2 / k` the annotator variance of an item's
mean of k judgments. The finite-population factor :math:`1 - n/N` applies to the items' part
only (as in :mod:`debias.stats.common.intervals`). The interval's width is
:math:`2\, t_{n-p,(1+L)/2} \sqrt{V(n, k)}` (p = 1 for ``mean``, 2 with a fitted coefficient), and a
design costs :math:`n\,(k\,c_j + c_i)` with :math:`c_j` the price of one judgment and :math:`c_i` of
one item (fetching, reading). :func:`plan_design` returns the cheapest (n, k) whose width meets
a target: more judgments per item shrink only the annotator part, more items both parts.

Variance components come from a pilot (:func:`pilot_components`); planning on them as they are
meets the target about half the time.
:func:`debias.stats.ratings.plan_bound.upper_bound_components` replaces them by an upper
confidence bound so that the plan meets the target with a stated probability (the assurance);
when the control variate's metric is the pilot's best of several, the bound repeats that choice
in every resample (:func:`debias.stats.ratings.plan_bound.selection_bound_factor`, on every candidate's
contributions from :func:`candidate_contributions`). See :mod:`debias.stats.checks.plan_check` for how
well it holds on the released data.

References
----------
A. Chaganty, S. Mussmann and P. Liang. The price of debiasing automatic metrics in natural
language evaluation. In *Proceedings of the 56th Annual Meeting of the Association for
Computational Linguistics (ACL)*, pages 643-653, Melbourne, 2018.

W. G. Cochran. *Sampling Techniques*, 3rd edition, Wiley, 1977 (Section 4.6: the sample size
for a given precision, with the finite-population correction).

D. G. Bonett. Approximate confidence interval for standard deviation of nonnormal
distributions. *Computational Statistics & Data Analysis* 50(3):775-782, 2006.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import stdtrit

from debias.data import as_judgments
from debias.stats.ratings.variance import pooled_annotator_variance

__all__ = [
    "ClusterComponents",
    "ClusterPlan",
    "DesignPlan",
    "PlanComponents",
    "WORLDS",
    "candidate_contributions",
    "check_plan_inputs",
    "cluster_components",
    "component_arrays",
    "design_contributions",
    "largest_variance",
    "pilot_components",
    "plan_clusters",
    "plan_design",
    "plan_sizes",
    "planned_width",
]


@dataclass(frozen=True)
class PlanComponents:
    """The variance components a plan needs.

    Attributes
    ----------
    item : float
        Items' part :math:`S^2` of one item's value (residual variance for a control variate).
    noise : float
        Annotator variance :math:`\\sigma_a^2` of one judgment around its item's true score.
    n_outputs : int
        Outputs N the items are drawn from.
    fitted : int
        Parameters fitted by the estimator (1: ``mean``; 2: ``cv`` with one metric).
    rho : float
        Correlation of the metric with the items' true scores (0 for ``mean``).
    items_only : bool
        The annotator variance is unknown (one judgment per item) and counted in ``item``: the
        plan judges each item once.
    note : str
        What the pilot could not tell and what was assumed instead (empty when nothing was).
    k_factors : tuple of float
        Per k = 1, 2, ...: a factor on the variance of a design with k judgments per item (the
        upper bound of :func:`debias.stats.ratings.plan_bound.upper_bound_components` for that k over
        its bound for k = 1, which ``item`` and ``noise`` carry). Empty: 1 for every k.
    """

    item: float
    noise: float
    n_outputs: int
    fitted: int = 1
    rho: float = 0.0
    items_only: bool = False
    note: str = ""
    k_factors: tuple = ()


@dataclass(frozen=True)
class DesignPlan:
    """The cheapest design meeting a target width: ``n`` items, ``k`` judgments each.

    ``n`` and ``k`` are 0 and ``cost``/``width`` NaN when no design up to all N outputs and
    ``k_max`` judgments meets the target.
    """

    n: int
    k: int
    cost: float
    width: float
    target_width: float
    level: float


def check_plan_inputs(components: PlanComponents, target_width: float, level: float, cost_per_judgment, cost_per_item):
    """Raise ``ValueError`` naming the first bad planning input."""
    if not (np.isfinite(components.item) and components.item >= 0):
        raise ValueError(f"the items' variance must be finite and >= 0, got {components.item}")
    if not (np.isfinite(components.noise) and components.noise >= 0):
        raise ValueError(f"the annotator variance must be finite and >= 0, got {components.noise}")
    if components.n_outputs < components.fitted + 2:
        raise ValueError(f"need at least {components.fitted + 2} outputs, got {components.n_outputs}")
    _check_target_and_costs(target_width, level, cost_per_judgment, cost_per_item)


def _check_target_and_costs(target_width, level, cost_per_judgment, cost_per_item, cost_per_cluster=0.0) -> None:
    """Raise ``ValueError`` naming a bad target width, level or price (any plan's inputs)."""
    if not (np.isfinite(target_width) and target_width > 0):
        raise ValueError(f"target width must be a positive number, got {target_width}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    if not (cost_per_judgment > 0 and cost_per_item >= 0):
        raise ValueError("cost_per_judgment must be > 0 and cost_per_item >= 0")
    if not cost_per_cluster >= 0:
        raise ValueError(f"cost_per_cluster must be >= 0, got {cost_per_cluster}")


def planned_width(n, k, components: PlanComponents, level: float):
    """Expected interval width :math:`2 t_{n-p} \\sqrt{V(n, k)}` of the module notes (broadcasts
    over arrays of n and k; NaN where n <= p)."""
    n = np.asarray(n, dtype=float)
    k = np.asarray(k, dtype=float)
    c = components
    variance = ((1.0 - n / c.n_outputs) * c.item + c.noise / k) / n
    if len(c.k_factors):
        factors = np.asarray(c.k_factors, dtype=float)
        variance = variance * factors[np.clip(k.astype(int), 1, factors.size) - 1]
    with np.errstate(invalid="ignore"):
        df = np.where(n > c.fitted, n - c.fitted, np.nan)
        return 2.0 * stdtrit(df, 0.5 + level / 2.0) * np.sqrt(variance)


def plan_design(
    components: PlanComponents,
    target_width: float,
    *,
    level: float,
    cost_per_judgment: float = 1.0,
    cost_per_item: float = 0.0,
    k_max: int = 10,
) -> DesignPlan:
    """The least-cost (n, k) whose :func:`planned_width` is at most ``target_width``.

    ``target_width`` is the interval's FULL width (upper end minus lower end, twice the
    half-width). Every n in [p + 1, N] and k in [1, ``k_max``] is evaluated (an N x k_max
    grid: exact, and cheap for any real N); among the designs meeting the target the cheapest
    wins, ties going to fewer judgments per item, then fewer items. Components with
    ``items_only`` plan k = 1.
    """
    check_plan_inputs(components, target_width, level, cost_per_judgment, cost_per_item)
    n, k, cost, width = plan_sizes(
        components.item,
        components.noise,
        components,
        target_width,
        level=level,
        cost_per_judgment=cost_per_judgment,
        cost_per_item=cost_per_item,
        k_max=k_max,
        k_factors=_padded(components.k_factors, k_max) if len(components.k_factors) else None,
    )
    if n == 0:
        return DesignPlan(0, 0, float("nan"), float("nan"), float(target_width), level)
    return DesignPlan(int(n), int(k), float(cost), float(width), float(target_width), level)


def plan_sizes(
    item,
    noise,
    shape: PlanComponents,
    target_width: float,
    *,
    level: float,
    cost_per_judgment: float = 1.0,
    cost_per_item: float = 0.0,
    k_max: int = 10,
    k_factors=None,
):
    """:func:`plan_design` for many pilots at once: ``item`` and ``noise`` are arrays (one entry
    per pilot), ``k_factors`` (optional, shape (..., k_max)) each pilot's
    :attr:`PlanComponents.k_factors`, and ``shape`` gives the rest (N, fitted parameters,
    ``items_only``).

    Returns
    -------
    n, k, cost, width : numpy.ndarray
        The least-cost design of each pilot (n = k = 0, cost and width NaN where none up to N
        items and ``k_max`` judgments meets the target).
    """
    if not k_max >= 1:
        raise ValueError(f"the largest number of judgments per item must be >= 1, got {k_max}")
    item = np.asarray(item, dtype=float)
    lead = item.shape
    item = item.reshape(-1)
    noise = np.broadcast_to(np.asarray(noise, dtype=float), lead).reshape(-1)
    n = np.arange(shape.fitted + 1, shape.n_outputs + 1)
    k = np.arange(1, 1 + (1 if shape.items_only else int(k_max)))
    factors = None
    if k_factors is not None:
        factors = np.broadcast_to(np.asarray(k_factors, dtype=float)[..., : k.size], (*lead, k.size))
        factors = factors.reshape(-1, k.size)
    quantile = 2.0 * stdtrit(n - float(shape.fitted), 0.5 + level / 2.0)  # once per n, for every pilot
    keep = 1.0 - n / shape.n_outputs
    cost = n[None, :] * (k[:, None] * cost_per_judgment + cost_per_item)  # (k, n)
    out_n, out_k = np.zeros(item.size, dtype=int), np.zeros(item.size, dtype=int)
    out_cost, out_width = np.full(item.size, np.nan), np.full(item.size, np.nan)
    block = max(1, PLAN_GRID_CELLS // cost.size)
    for start in range(0, item.size, block):  # pilots in blocks: the grid is pilots x k x n
        part = slice(start, start + block)
        variance = (keep * item[part, None, None] + noise[part, None, None] / k[:, None]) / n
        if factors is not None:
            variance = variance * factors[part, :, None]
        width = quantile * np.sqrt(variance)
        masked = np.where(width <= target_width, cost, np.inf).reshape(width.shape[0], -1)
        best = np.argmin(masked, axis=-1)  # the first minimum: fewer judgments, then fewer items
        ok = np.isfinite(masked[np.arange(best.size), best])
        ki, ni = np.divmod(best, n.size)
        out_n[part] = np.where(ok, n[ni], 0)
        out_k[part] = np.where(ok, k[ki], 0)
        out_cost[part] = np.where(ok, cost[ki, ni], np.nan)
        out_width[part] = np.where(ok, width.reshape(width.shape[0], -1)[np.arange(best.size), best], np.nan)
    return out_n.reshape(lead), out_k.reshape(lead), out_cost.reshape(lead), out_width.reshape(lead)


#: Entries of the pilots x k x n grid :func:`plan_sizes` holds at once (bounds its memory).
PLAN_GRID_CELLS = 2_000_000


def _padded(factors, k_max: int) -> np.ndarray:
    """``factors`` for k = 1 ... ``k_max``, the last repeated beyond its length."""
    factors = np.asarray(factors, dtype=float)
    return factors[np.minimum(np.arange(int(k_max)), factors.size - 1)]


def design_contributions(q, spread, counts, noise, k_max: int) -> np.ndarray:
    r"""Per item and k = 1 ... ``k_max``, an unbiased estimate of the variance of an item's value
    when it is judged k times: :math:`r_i(k) = \frac{m}{m-p} e_i^2 + \hat s_i^2 (1/k - 1/k_i)`.

    ``q``, ``spread`` and ``counts`` are :func:`component_arrays`' contributions, the ddof-0
    spreads :math:`w_i` and counts :math:`k_i` (last axis: items); :math:`\hat s_i^2 = w_i
    k_i / (k_i - 1)` is an item's own rater variance (ddof 1), and ``noise`` (the pooled
    :math:`\hat\sigma_a^2`, shape (...)) stands in for an item judged once. Returns shape
    (..., k_max, m); row k = 1 is ``q`` itself. The bound of a design with k judgments bounds
    the mean of row k: the items' part weighs more at larger k, and its uncertainty with it.
    """
    q = np.asarray(q, dtype=float)
    spread = np.asarray(spread, dtype=float)
    counts = np.broadcast_to(np.asarray(counts, dtype=float), q.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        own = np.where(counts >= 2, spread * counts / (counts - 1.0), np.asarray(noise, dtype=float)[..., None])
    inverse_k = 1.0 / np.arange(1, int(k_max) + 1)[:, None]
    r = (q - spread)[..., None, :] + own[..., None, :] * (inverse_k - 1.0 / counts[..., None, :])
    r[..., 0, :] = q  # the same number, without rounding
    return r


def largest_variance(scale) -> float | None:
    """The largest variance a judgment on ``scale`` = (min, max) can have, :math:`(max - min)^2 / 4`
    (Popoviciu); ``None`` when the scale is not bounded on both sides."""
    if scale is None:
        return None
    low, high = scale
    if low is None or high is None or not (np.isfinite(low) and np.isfinite(high)) or high <= low:
        return None
    return (float(high) - float(low)) ** 2 / 4.0


#: Fewest pilot items beyond the fitted parameters from which a variance is bounded.
MIN_PILOT_DF = 3

#: The worlds a plan's components can describe (see :func:`pilot_components`).
WORLDS = ("fresh", "resampled")


def component_arrays(
    item_means, spread, counts, scores=None, *, world: str = "fresh", annotator_variance: float | None = None
):
    r"""The components of :func:`pilot_components` for many pilots at once (last axis: items).

    Parameters
    ----------
    item_means, spread : array_like, shape (..., m)
        Each pilot item's mean judgment :math:`\bar y_i` and ddof-0 spread :math:`w_i` of its
        judgments around it (:attr:`debias.data.Judgments.within_spread`).
    counts : array_like of int, shape (..., m)
        Judgments :math:`k_i` of each item.
    scores : array_like, shape (..., m), optional
        A metric on the items: the items' part is then the residual variance after the
        least-squares line on it (two parameters fitted).
    world : {"fresh", "resampled"}
        Which world the components describe (:func:`pilot_components`).
    annotator_variance : float, optional
        The fresh world's :math:`\sigma_a^2` where no item has two judgments; without it such
        a pilot's components are its items alone (``items_only``: noise 0, the items' part the
        judgments' whole variance).

    Returns
    -------
    item, noise, q, rho, floored : numpy.ndarray
        The items' part and the annotator variance (shape (...)), each item's contribution
        :math:`q_i = \frac{m}{m-p} e_i^2 + w_i` (shape (..., m)), the pilot's correlation of the
        metric with the item means (0 without a metric or where either side is constant), and
        where the fresh items' part was negative and floored at 0. ``noise`` is NaN where no
        item has two judgments (fresh world).
    """
    if world not in WORLDS:
        raise ValueError(f"world must be one of {WORLDS}, got {world!r}")
    f = np.asarray(item_means, dtype=float)
    w = np.asarray(spread, dtype=float)
    k = np.broadcast_to(np.asarray(counts, dtype=float), f.shape)
    m = f.shape[-1]
    fc = f - f.mean(axis=-1, keepdims=True)
    if scores is None:
        fitted, residual, rho = 1, fc, np.zeros(f.shape[:-1])
    else:
        g = np.asarray(scores, dtype=float)
        gc = g - g.mean(axis=-1, keepdims=True)
        sgg, sff = np.sum(gc * gc, axis=-1), np.sum(fc * fc, axis=-1)
        sfg = np.sum(gc * fc, axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            slope = np.where(sgg > 0, sfg / sgg, 0.0)
            rho = np.where((sgg > 0) & (sff > 0), sfg / np.sqrt(sgg * sff), np.nan)
        fitted, residual = 2, fc - slope[..., None] * gc
    squares = residual * residual
    q = m / (m - fitted) * squares + w
    item = np.sum(squares, axis=-1) / (m - fitted)
    if world == "resampled":
        return item, w.mean(axis=-1), q, rho, item, np.zeros(item.shape, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        noise = pooled_annotator_variance(w, k)
    unknown = np.isnan(noise)
    given = np.nan if annotator_variance is None else float(annotator_variance)
    noise = np.where(unknown, given, noise)
    items_only = unknown & np.isnan(noise)
    noise = np.where(items_only, 0.0, noise)
    unfloored = item - noise * np.mean(1.0 / k, axis=-1)
    return np.where(unfloored < 0, 0.0, unfloored), noise, q, rho, unfloored, items_only


def pilot_components(
    judgments,
    n_outputs: int,
    scores=None,
    *,
    annotator_variance: float | None = None,
    scale=None,
    world: str = "fresh",
    k_max: int = 1,
) -> tuple[PlanComponents, np.ndarray]:
    r"""Variance components estimated from judged pilot items, and each item's contribution.

    Two worlds. In the *fresh* world (the default, what a plan is for) the next study judges
    new items with new raters: an item's true score :math:`f_i` has variance
    :math:`\sigma_f^2` and a judgment adds rater noise of variance :math:`\sigma_a^2` around it.
    Both are estimated without bias: :math:`\hat\sigma_a^2` pooled within items with ddof 1
    (:func:`debias.stats.ratings.variance.annotator_variance`) and

    .. math::

        \hat S^2 = \frac{1}{m - p}\sum_i e_i^2 - \hat\sigma_a^2\,\frac1m\sum_i \frac1{k_i},

    the items' spread (residual :math:`e_i` of item i's mean judgment, around their mean or
    the line on a metric) less the rater noise its mean of :math:`k_i` judgments carries
    (Table 2's unbiased :math:`\sigma_f^2`, :func:`debias.stats.ratings.variance.human_metric_variance_unbiased`).
    :math:`\hat S^2` below 0 (the item means vary less than rater noise alone would make them,
    which small pilots of nearly equal items show) is floored at 0 and ``note`` says so: the
    plan then rests on the rater noise. In the *resampled* world (the released data's
    resampling experiments, :func:`debias.stats.ratings.variance.resampling_components`) an item's true
    score is its pilot mean and a new judgment one of its pilot judgments:
    :math:`S^2 = \frac{1}{m-p}\sum_i e_i^2` and :math:`\sigma_a^2` the mean ddof-0 spread. With
    k judgments per item both worlds give the same total variance of one judgment; they split
    it differently, so they plan different k and take different finite-population corrections.

    Parameters
    ----------
    judgments : Judgments
        The pilot items' judgments.
    n_outputs : int
        Outputs N the plan draws from.
    scores : array_like, shape (m,), optional
        A metric on the pilot items: the items' part is then the residual variance after the
        least-squares line on the metric (``cv``), and ``rho`` the pilot's correlation.
    annotator_variance : float, optional
        :math:`\sigma_a^2` known from elsewhere, used when every pilot item has one judgment (it
        is then not identifiable): the items' part is what remains of the judgments' variance.
        Without it such a pilot plans items only (``items_only``, k = 1).
    scale : (float, float), optional
        The judgments' (min, max). A pilot that cannot bound the variance (all its values
        equal, or fewer than ``fitted`` + :data:`MIN_PILOT_DF` items) assumes the largest
        variance on this scale (:func:`largest_variance`); without a bounded scale the
        components are NaN and the plan says that there is none.
    world : {"fresh", "resampled"}
        The world the components describe (above).
    k_max : int
        The most judgments per item the plan may buy: above 1 (fresh world), the contributions
        are those of every k up to it (:func:`design_contributions`).

    Returns
    -------
    (PlanComponents, numpy.ndarray)
        The components, and per item :math:`q_i = \frac{m}{m-p} e_i^2 + w_i` (residual
        :math:`e_i`, ddof-0 spread :math:`w_i`), whose mean is the variance of one judgment's
        term in either world (with equal :math:`k_i`): what
        :func:`debias.stats.ratings.plan_bound.upper_bound_components` bounds; shape (k_max, m) with
        ``k_max`` > 1, row k the contributions of a design with k judgments per item. ``note``
        says what was assumed.

    References
    ----------
    W. G. Cochran. *Sampling Techniques*, 3rd edition, Wiley, 1977 (Section 10.4: two-stage
    sampling, the unbiased estimate of the first-stage variance).
    """
    judgments = as_judgments(judgments)
    m = judgments.n_items
    fitted = 1 if scores is None else 2
    if m - fitted < MIN_PILOT_DF:
        return _assumed(f"{m} judged items", n_outputs, fitted, scale), np.zeros(0)
    item, noise, q, rho, unfloored, items_only = component_arrays(
        judgments.item_means,
        judgments.within_spread,
        judgments.counts,
        scores,
        world=world,
        annotator_variance=annotator_variance,
    )
    item, noise, items_only = float(item), float(noise), bool(items_only)
    rho = float(rho) if np.isfinite(rho) else 0.0
    if not q.mean() > 0:
        return _assumed(f"all {m} judged items have the same {_score_word(scores)}", n_outputs, fitted, scale), q
    notes = []
    if world == "fresh" and np.all(judgments.counts == 1):
        if items_only:
            notes.append(
                "one judgment per item: the annotator variance is not identifiable; planned items only (k = 1)"
            )
        else:
            notes.append(f"one judgment per item: annotator variance {noise:.6g} from the configuration")
    if unfloored < 0:
        notes.append(
            "the pilot's item means vary less than its rater noise alone would make them (unbiased "
            f"items' variance {float(unfloored):.6g} < 0): floored at 0"
        )
    note = "; ".join(notes)
    if k_max > 1 and world == "fresh" and not items_only:
        q = design_contributions(q, judgments.within_spread, judgments.counts, noise, k_max)
    return PlanComponents(item, noise, int(n_outputs), fitted, rho, items_only, note), q


def candidate_contributions(
    judgments, scores, *, annotator_variance: float | None = None, world: str = "fresh", k_max: int = 1
) -> np.ndarray:
    """Every candidate metric's contributions, as :func:`pilot_components` gives them for one.

    ``scores`` of shape (M, m) holds M metrics on the pilot's m items; the result, shape (M, m)
    or (M, k_max, m) (with ``k_max`` > 1 in the fresh world when the pilot's rater noise is
    known), is the second value :func:`pilot_components` returns for each row, computed for
    all at once: what :func:`debias.stats.ratings.plan_bound.selection_bound_factor` resamples when
    ``cv`` plans with the pilot's best metric. The pilot must have at least
    :data:`MIN_PILOT_DF` items beyond the two fitted parameters.
    """
    judgments = as_judgments(judgments)
    scores = np.asarray(scores, dtype=float)
    if scores.ndim != 2 or scores.shape[1] != judgments.n_items:
        raise ValueError(f"scores must have shape (metrics, {judgments.n_items}), got {scores.shape}")
    if judgments.n_items - 2 < MIN_PILOT_DF:
        raise ValueError(f"need at least {MIN_PILOT_DF + 2} pilot items, got {judgments.n_items}")
    _, noise, q, _, _, items_only = component_arrays(
        judgments.item_means,
        judgments.within_spread,
        judgments.counts,
        scores,
        world=world,
        annotator_variance=annotator_variance,
    )
    if k_max > 1 and world == "fresh" and not bool(items_only):
        q = design_contributions(q, judgments.within_spread, judgments.counts, noise, k_max)
    return q


def _score_word(scores) -> str:
    return "mean judgment" if scores is None else "residual on the metric"


def _assumed(why: str, n_outputs: int, fitted: int, scale) -> PlanComponents:
    bound = largest_variance(scale)
    if bound is None:
        note = f"{why}: the pilot cannot bound the variance and the prompt's scale is not bounded; no plan"
        return PlanComponents(float("nan"), float("nan"), int(n_outputs), fitted, 0.0, True, note)
    note = (
        f"{why}: the pilot cannot bound the variance; assumed the largest variance on the scale "
        f"[{scale[0]:g}, {scale[1]:g}], {bound:.6g}"
    )
    return PlanComponents(bound, 0.0, int(n_outputs), fitted, 0.0, True, note)


@dataclass(frozen=True)
class ClusterComponents:
    r"""The variance components of a plan in clusters (items sharing documents or questions).

    With g clusters of m items each, k judgments per item, and the target the mean over the
    population the clusters come from, the estimate's variance is

    .. math::

        V(g, m, k) = \frac{1}{g}\Bigl(\sigma_c^2 + \frac{S_w^2 + \sigma_a^2/k}{m}\Bigr),

    :math:`\sigma_c^2` the clusters' part (what a cluster's items share), :math:`S_w^2` the items'
    part within a cluster, :math:`\sigma_a^2` the annotator variance. Its design effect against
    independent items at the same n = gm is :math:`1 + (m - 1)\,\rho_c` with the intra-cluster
    correlation :math:`\rho_c = \sigma_c^2/(\sigma_c^2 + S_w^2 + \sigma_a^2/k)` (Kish 1965).

    Attributes
    ----------
    between, within, noise : float
        :math:`\sigma_c^2`, :math:`S_w^2` and :math:`\sigma_a^2`.
    n_clusters : int
        Clusters the plan may draw (the pilot population's).
    items_per_cluster : int
        The most items a cluster offers (its largest in the pilot population).
    fitted : int
        Parameters fitted by the estimator (1: ``mean``; 2: ``cv``).
    """

    between: float
    within: float
    noise: float
    n_clusters: int
    items_per_cluster: int
    fitted: int = 1

    def icc(self, k: int = 1) -> float:
        """:math:`\\rho_c` of items with k judgments each (NaN when every part is 0)."""
        total = self.between + self.within + self.noise / k
        return self.between / total if total > 0 else float("nan")


@dataclass(frozen=True)
class ClusterPlan:
    """The cheapest design in clusters meeting a target width: ``clusters`` of
    ``items_per_cluster`` items, ``k`` judgments each; zeros and NaN when none does."""

    clusters: int
    items_per_cluster: int
    k: int
    cost: float
    width: float
    design_effect: float


def cluster_components(values, clusters, noise: float = 0.0, *, fitted: int = 1, population_clusters=None):
    r"""The components of :class:`ClusterComponents` from a pilot, by one-way analysis of variance.

    ``values`` (n,) are the pilot items' values (their mean judgments, or the control variate's
    terms), ``clusters`` (n,) their clusters, ``noise`` the annotator variance of one item's
    value as judged (:math:`\sigma_a^2/k`, averaged; taken off the within part).
    ``population_clusters`` (the clusters of every output) gives how many clusters and items per
    cluster there are to draw from (default: the pilot's). With :math:`G` clusters of sizes
    :math:`m_i`, the mean squares within and between clusters and
    :math:`m_0 = (n - \sum_i m_i^2/n)/(G - 1)`,

    .. math::

        \hat\sigma_c^2 = \max\Bigl(\frac{MS_B - MS_W}{m_0}, 0\Bigr), \qquad
        \hat S_w^2 = \max(MS_W - \bar\nu, 0),

    the unbiased estimators of the components in an unbalanced one-way layout (Searle, Casella
    and McCulloch 1992, section 3.5). ``noise`` here is the average :math:`\bar\nu` of the items
    as judged; the returned ``noise`` is :math:`\sigma_a^2` of one judgment only when each item
    had one judgment, so pass the per-judgment variance to :func:`plan_clusters` yourself
    otherwise (:func:`debias.stats.ratings.variance.annotator_variance`).

    Reference: S. R. Searle, G. Casella and C. E. McCulloch. *Variance Components*. Wiley, 1992.
    """
    values = np.asarray(values, dtype=float)
    labels = np.asarray(clusters, dtype=str)
    names, codes, sizes = np.unique(labels, return_inverse=True, return_counts=True)
    codes = codes.reshape(-1)
    n, g = values.size, names.size
    if g < 2 or n <= g:
        raise ValueError(f"{n} items in {g} clusters: the components need two clusters and a cluster of two items")
    means = np.bincount(codes, values, g) / sizes
    within = float(np.sum((values - means[codes]) ** 2) / (n - g))
    between_square = float(np.sum(sizes * (means - values.mean()) ** 2) / (g - 1))
    m0 = (n - float(np.sum(sizes**2)) / n) / (g - 1)
    population = labels if population_clusters is None else np.asarray(population_clusters, dtype=str)
    _, population_sizes = np.unique(population, return_counts=True)
    return ClusterComponents(
        between=max((between_square - within) / m0, 0.0),
        within=max(within - float(noise), 0.0),
        noise=float(noise),
        n_clusters=int(population_sizes.size),
        items_per_cluster=int(population_sizes.max()),
        fitted=fitted,
    )


def plan_clusters(
    components: ClusterComponents,
    target_width: float,
    *,
    level: float,
    cost_per_judgment: float = 1.0,
    cost_per_item: float = 0.0,
    cost_per_cluster: float = 0.0,
    k_max: int = 10,
) -> ClusterPlan:
    r"""The least-cost (g, m, k) whose width :math:`2\,t_{g-1}\sqrt{V(g, m, k)}`
    (:class:`ClusterComponents`) is at most ``target_width`` (the full width), g up to the
    clusters there are, m up to the most items a cluster offers, k up to ``k_max``; a design
    costs :math:`g\,(c_c + m\,(c_i + k\,c_j))`. Ties go to fewer judgments per item, then fewer
    items per cluster. More clusters shrink every part; more items per cluster only the items'
    and the raters' parts, so with a strong cluster effect the plan buys clusters."""
    _check_target_and_costs(target_width, level, cost_per_judgment, cost_per_item, cost_per_cluster)
    c = components
    g = np.arange(2, max(c.n_clusters, 2) + 1, dtype=float)[None, None, :]
    m = np.arange(1, max(c.items_per_cluster, 1) + 1, dtype=float)[None, :, None]
    k = np.arange(1, int(k_max) + 1, dtype=float)[:, None, None]
    variance = (c.between + (c.within + c.noise / k) / m) / g
    width = 2.0 * stdtrit(g - 1.0, 0.5 + level / 2.0) * np.sqrt(variance)
    cost = g * (cost_per_cluster + m * (cost_per_item + k * cost_per_judgment))
    masked = np.where(width <= target_width, cost, np.inf)
    best = np.unravel_index(np.argmin(masked), masked.shape)
    if not np.isfinite(masked[best]):
        return ClusterPlan(0, 0, 0, float("nan"), float("nan"), float("nan"))
    ki, mi, gi = best
    items, judgments = float(m[0, mi, 0]), int(k[ki, 0, 0])
    effect = 1.0 + (items - 1.0) * c.icc(judgments)
    return ClusterPlan(int(g[0, 0, gi]), int(items), judgments, float(masked[best]), float(width[best]), effect)
