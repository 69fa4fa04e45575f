"""Variance components of human judgments (the paper's Table 2).

Judgments are a :class:`debias.data.Judgments` (or anything :func:`debias.data.as_judgments`
takes). Only items with at least two judgments say anything about annotator variance, so the
estimators of Table 2 use those items alone. The resampling world's components
(:func:`resampling_components`) and the annotator noise of an estimate's items
(:func:`item_noise`) live here too.
"""

from __future__ import annotations

import numpy as np

from debias.data import Judgments, as_judgments

__all__ = [
    "annotator_variance",
    "human_metric_variance",
    "human_metric_variance_unbiased",
    "item_noise",
    "pooled_annotator_variance",
    "resampling_components",
    "variance_components",
    "variance_note",
]


def _multiply_judged(judgments) -> Judgments:
    judgments = as_judgments(judgments)
    return judgments.take(judgments.multiply_judged)


def annotator_variance(judgments) -> float:
    r"""Annotator variance σ_a², pooled within items.

    Parameters
    ----------
    judgments : Judgments
        Judgments of N items; items with fewer than two judgments are left out.

    Returns
    -------
    float
        :math:`\hat\sigma_a^2 = \sum_i \sum_j (y_{ij} - \bar y_i)^2 / \sum_i (k_i - 1)`: unbiased
        for :math:`E[\operatorname{Var}(Y \mid z)]` whatever the number of annotators per item;
        NaN without an item judged twice.

    References
    ----------
    A. Chaganty, S. Mussmann and P. Liang. The price of debiasing automatic metrics in natural
    language evaluation. In *Proceedings of the 56th Annual Meeting of the Association for
    Computational Linguistics (ACL)*, pages 643-653, Melbourne, 2018. Table 2.
    """
    multi = _multiply_judged(judgments)
    if multi.n_items == 0:
        return float("nan")
    return float(pooled_annotator_variance(multi.within_spread, multi.counts))


def pooled_annotator_variance(spread, counts):
    r""":func:`annotator_variance` from each item's ddof-0 spread :math:`w_i` and count :math:`k_i`
    (last axis: items; leading axes: separate samples),
    :math:`\sum_i k_i w_i / \sum_i (k_i - 1)`; items judged once add nothing to either sum, and
    a sample with no item judged twice gives NaN (with numpy's warning unless silenced)."""
    spread = np.asarray(spread, dtype=float)
    counts = np.asarray(counts)
    return np.sum(spread * counts, axis=-1) / np.sum(counts - 1, axis=-1)


def human_metric_variance(judgments) -> float:
    r"""σ_f² as the paper's Table 2 reports it.

    Parameters
    ----------
    judgments : Judgments
        Judgments of N items; items with fewer than two judgments are left out.

    Returns
    -------
    float
        :math:`\hat\sigma_f^2 = \frac{1}{N' - 1} \sum_i (\bar y_i - \bar{\bar y})^2` over the N'
        items judged at least twice: it still contains the noise :math:`\sigma_a^2 / k_i` of
        averaging only k_i judgments (see :func:`human_metric_variance_unbiased`).

    References
    ----------
    A. Chaganty, S. Mussmann and P. Liang. The price of debiasing automatic metrics in natural
    language evaluation. In *Proceedings of the 56th Annual Meeting of the Association for
    Computational Linguistics (ACL)*, pages 643-653, Melbourne, 2018. Table 2.
    """
    multi = _multiply_judged(judgments)
    if multi.n_items < 2:
        return float("nan")
    return float(np.var(multi.item_means, ddof=1))


def human_metric_variance_unbiased(judgments) -> float:
    r"""σ_f² with the annotator noise of the item means removed.

    Parameters
    ----------
    judgments : Judgments
        Judgments of N items; items with fewer than two judgments are left out.

    Returns
    -------
    float
        :math:`\hat\sigma_f^2 - \hat\sigma_a^2 \cdot \frac{1}{N'} \sum_i 1/k_i`, unbiased for
        :math:`\operatorname{Var}(f)`; it can be negative on small samples.

    References
    ----------
    A. Chaganty, S. Mussmann and P. Liang. The price of debiasing automatic metrics in natural
    language evaluation. In *Proceedings of the 56th Annual Meeting of the Association for
    Computational Linguistics (ACL)*, pages 643-653, Melbourne, 2018. Table 2.
    """
    multi = _multiply_judged(judgments)
    if multi.n_items < 2:
        return float("nan")
    return human_metric_variance(multi) - annotator_variance(multi) * float(np.mean(1.0 / multi.counts))


#: Why the variance components of a pool are not computed (the ``note`` of
#: :func:`variance_components`).
NO_JUDGED_ITEM = "no judged item"
ONE_JUDGMENT_PER_ITEM = "one judgment per item: σ_a² is not identifiable"
ONE_ITEM_JUDGED_TWICE = "only one item judged more than once: σ_f² needs two"


def variance_note(n_items: int, n_judgments: int, n_multiply_judged: int) -> str:
    """Why a pool's variance components are missing, or ``""`` when they can be estimated.

    Parameters
    ----------
    n_items, n_judgments : int
        Judged items of the pool and their judgments.
    n_multiply_judged : int
        How many of the items were judged at least twice.

    Returns
    -------
    str
        :data:`NO_JUDGED_ITEM`, :data:`ONE_JUDGMENT_PER_ITEM` (annotator variance and item
        variance cannot be told apart when every item has one judgment),
        :data:`ONE_ITEM_JUDGED_TWICE`, or ``""``.
    """
    if n_items == 0:
        return NO_JUDGED_ITEM
    if n_multiply_judged == 0:
        return ONE_JUDGMENT_PER_ITEM
    if n_multiply_judged < 2:
        return ONE_ITEM_JUDGED_TWICE
    return ""


def variance_components(judgments) -> dict[str, float | str]:
    """All of Table 2's columns for one pool of judged items, and why any is missing.

    The components come from the items judged at least twice, and ``n_items`` and
    ``n_judgments`` count those items and their judgments. With no such item, σ_a² is not
    identifiable: the components are NaN, the counts are those of every judged item (so a
    table shows as many judgments as items), and ``note`` says so (:func:`variance_note`;
    ``""`` when nothing is missing).
    """
    judgments = as_judgments(judgments)
    multi = judgments.take(judgments.multiply_judged)
    sigma2_a = annotator_variance(multi)
    sigma2_f = human_metric_variance(multi)
    sigma2_f_unbiased = human_metric_variance_unbiased(multi)
    counted = multi if multi.n_items else judgments
    return {
        "sigma2_a": sigma2_a,
        "sigma2_f": sigma2_f,
        "gamma": sigma2_a / sigma2_f if sigma2_f > 0 else float("nan"),
        "sigma2_f_unbiased": sigma2_f_unbiased,
        "gamma_unbiased": sigma2_a / sigma2_f_unbiased if sigma2_f_unbiased > 0 else float("nan"),
        "n_items": counted.n_items,
        "n_judgments": int(counted.counts.sum()),
        "note": variance_note(judgments.n_items, int(judgments.counts.sum()), multi.n_items),
    }


def resampling_components(judgments) -> tuple[float, float]:
    """``(sigma2_a, sigma2_f)`` of the finite world that the resampling experiments draw from.

    An experiment draws an item uniformly from the N items and one of its k_i judgments
    uniformly. In that world the "human metric" f of an item is its mean judgment, so
    ``sigma2_f`` is the population (ddof 0) variance of the item means; and a uniformly drawn
    judgment varies around the item mean with exactly the ddof-0 within-item spread
    (:attr:`debias.data.Judgments.within_spread`), so ``sigma2_a`` is the average of those. Then
    Var(one draw) = sigma2_a + sigma2_f holds exactly (law of total variance), and plugging these
    components, with rho the correlation of the item means with the metric, into Eq. (7)
    predicts the bootstrap's data efficiency. Unbiased (ddof 1) estimates of the annotator
    population would describe a different world and would not match the bootstrap.
    """
    judgments = as_judgments(judgments)
    if judgments.n_items == 0:
        raise ValueError("no judged item")
    return float(judgments.within_spread.mean()), float(judgments.item_means.var())


def item_noise(judgments, annotator_variance_value: float | None = None) -> float | None:
    """Average annotator variance of the judged items' values, the mean of sigma_a^2 / k_i.

    ``annotator_variance_value`` (of one judgment) defaults to the pooled within-item variance
    of the items judged more than once (:func:`annotator_variance`); with no such item and no
    value given it is unknown and ``None`` is returned (an interval then takes nothing off for
    sampling without replacement).
    """
    judgments = as_judgments(judgments)
    if annotator_variance_value is None:
        annotator_variance_value = annotator_variance(judgments)
        if not np.isfinite(annotator_variance_value):
            return None
    return float(annotator_variance_value * np.mean(1.0 / judgments.counts))
