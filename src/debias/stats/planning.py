r"""How many items to have judged, and by how many annotators each: the least-cost design.

An evaluation that judges n of a system's N outputs with k judgments each estimates the mean
human score with variance

.. math::

    V(n, k) = \frac{(1 - n/N)\, S^2 + \sigma_a^2 / k}{n},

where :math:`S^2` is the items' part (:math:`\sigma_f^2` for ``mean``; :math:`\sigma_f^2(1 -
\rho^2)` for the control variate with a metric correlated :math:`\rho` with the item's true
score, Eq. (6) of the paper) and :math:`\sigma_a^2 / k` the annotator variance of an item's
mean of k judgments. The finite-population factor :math:`1 - n/N` applies to the items' part
only (as in :mod:`debias.stats.intervals`). The interval's width is
:math:`2\, t_{n-p,(1+L)/2} \sqrt{V(n, k)}` (p = 1 for ``mean``, 2 with a fitted coefficient), and a
design costs :math:`n\,(k\,c_j + c_i)` with :math:`c_j` the price of one judgment and :math:`c_i` of
one item (fetching, reading). :func:`plan_design` returns the cheapest (n, k) whose width meets
a target: more judgments per item shrink only the annotator part, more items both parts.

Variance components come from a pilot (:func:`pilot_components`); planning on them as they are
meets the target about half the time. :func:`debias.stats.plan_bound.upper_bound_components` replaces them by an upper
confidence bound so that the plan meets the target with a stated probability (the assurance);
see :mod:`debias.stats.plan_check` for how well it holds on the released data.

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

__all__ = [
    "DesignPlan",
    "PlanComponents",
    "check_plan_inputs",
    "largest_variance",
    "pilot_components",
    "plan_design",
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
    """

    item: float
    noise: float
    n_outputs: int
    fitted: int = 1
    rho: float = 0.0
    items_only: bool = False
    note: str = ""


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
    if not (np.isfinite(target_width) and target_width > 0):
        raise ValueError(f"target width must be a positive number, got {target_width}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    if not (cost_per_judgment > 0 and cost_per_item >= 0):
        raise ValueError("cost_per_judgment must be > 0 and cost_per_item >= 0")


def planned_width(n, k, components: PlanComponents, level: float):
    """Expected interval width :math:`2 t_{n-p} \\sqrt{V(n, k)}` of the module notes (broadcasts
    over arrays of n and k; NaN where n <= p)."""
    n = np.asarray(n, dtype=float)
    k = np.asarray(k, dtype=float)
    c = components
    variance = ((1.0 - n / c.n_outputs) * c.item + c.noise / k) / n
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

    Every n in [p + 1, N] and k in [1, ``k_max``] is evaluated (an N x k_max grid: exact, and
    cheap for any real N); among the designs meeting the target the cheapest wins, ties going
    to fewer judgments per item, then fewer items. Components with ``items_only`` plan k = 1.
    """
    check_plan_inputs(components, target_width, level, cost_per_judgment, cost_per_item)
    if not k_max >= 1:
        raise ValueError(f"the largest number of judgments per item must be >= 1, got {k_max}")
    n = np.arange(components.fitted + 1, components.n_outputs + 1)
    k = np.arange(1, 1 + (1 if components.items_only else int(k_max)))
    width = planned_width(n[None, :], k[:, None], components, level)
    cost = n[None, :] * (k[:, None] * cost_per_judgment + cost_per_item)
    ok = width <= target_width
    if not ok.any():
        return DesignPlan(0, 0, float("nan"), float("nan"), float(target_width), level)
    masked = np.where(ok, cost, np.inf)
    best = min(zip(*np.nonzero(ok)), key=lambda ij: (masked[ij], ij[0], ij[1]))
    return DesignPlan(
        int(n[best[1]]), int(k[best[0]]), float(cost[best]), float(width[best]), float(target_width), level
    )


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


def pilot_components(
    judgments, n_outputs: int, scores=None, *, annotator_variance: float | None = None, scale=None
) -> tuple[PlanComponents, np.ndarray]:
    """Variance components estimated from judged pilot items, and each item's contribution.

    Parameters
    ----------
    judgments : Judgments
        The pilot items' judgments; an item's true score is the mean of its judgments and
        :math:`\\sigma_a^2` the mean over items of their judgments' ddof-0 spread around it (the
        world :func:`debias.stats.variance.resampling_components` describes).
    n_outputs : int
        Outputs N the plan draws from.
    scores : array_like, shape (m,), optional
        A metric on the pilot items: the items' part is then the residual variance after the
        least-squares line on the metric (``cv``), and ``rho`` the pilot's correlation.
    annotator_variance : float, optional
        :math:`\\sigma_a^2` known from elsewhere, used when every pilot item has one judgment (it
        is then not identifiable): the items' part is what remains of the judgments' variance.
        Without it such a pilot plans items only (``items_only``, k = 1).
    scale : (float, float), optional
        The judgments' (min, max). A pilot that cannot bound the variance (all its values
        equal, or fewer than ``fitted`` + :data:`MIN_PILOT_DF` items) assumes the largest
        variance on this scale (:func:`largest_variance`); without a bounded scale the
        components are NaN and the plan says that there is none.

    Returns
    -------
    (PlanComponents, numpy.ndarray)
        The components, and per item :math:`q_i = \\frac{m}{m-p} e_i^2 + w_i` (residual
        :math:`e_i`, spread :math:`w_i`), whose mean is the variance of one judgment's term:
        what :func:`debias.stats.plan_bound.upper_bound_components` bounds. ``note`` says what was assumed.
    """
    judgments = as_judgments(judgments)
    f = judgments.item_means
    w = judgments.within_spread
    m = f.size
    fitted = 1 if scores is None else 2
    if m - fitted < MIN_PILOT_DF:
        return _assumed(f"{m} judged items", n_outputs, fitted, scale), np.zeros(0)
    if scores is None:
        residual, rho = f - f.mean(), 0.0
    else:
        g = np.asarray(scores, dtype=float)
        gc = g - g.mean()
        slope = float(gc @ (f - f.mean()) / (gc @ gc)) if gc @ gc > 0 else 0.0
        residual = f - f.mean() - slope * gc
        rho = float(np.corrcoef(f, g)[0, 1]) if gc @ gc > 0 and f.std() > 0 else 0.0
    q = m / (m - fitted) * residual**2 + w
    item = float(np.sum(residual**2) / (m - fitted))
    if not q.mean() > 0:
        return _assumed(f"all {m} judged items have the same {_score_word(scores)}", n_outputs, fitted, scale), q
    note, items_only, noise = "", False, float(w.mean())
    if np.all(judgments.counts == 1):
        if annotator_variance is None:
            items_only = True
            note = "one judgment per item: the annotator variance is not identifiable; planned items only (k = 1)"
        else:
            noise = float(annotator_variance)
            item = max(item - noise, 0.0)
            note = f"one judgment per item: annotator variance {noise:.6g} from the configuration"
    return PlanComponents(item, noise, int(n_outputs), fitted, rho, items_only, note), q


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
