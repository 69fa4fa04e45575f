"""The planner's upper bound on a pilot's variance, so that a plan meets its target with a stated
probability (the assurance); :mod:`debias.stats.plan_check` measures how well it holds.

References
----------
B. Efron and R. J. Tibshirani. *An Introduction to the Bootstrap*. Chapman & Hall, 1993
(Section 12.5: bootstrap-t).

D. G. Bonett. Approximate confidence interval for standard deviation of nonnormal
distributions. *Computational Statistics & Data Analysis* 50(3):775-782, 2006.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from scipy.stats import chi2

from debias.stats.planning import PlanComponents, largest_variance

__all__ = ["TAIL_WEIGHT", "bound_factor", "upper_bound_components"]

#: Weight c of a heavy-tailed pilot's excess in :func:`upper_bound_components`.
TAIL_WEIGHT = 10.0


def upper_bound_components(
    components: PlanComponents,
    q,
    assurance: float = 0.8,
    *,
    rng: np.random.Generator,
    n_boot: int = 1000,
    scale=None,
) -> PlanComponents:
    r"""Scale the components up to a one-sided upper confidence bound at level ``assurance``.

    The variance of one judgment's term is the mean :math:`\bar q` of the items' contributions
    (:func:`pilot_components`). Its upper bound is a bootstrap-t bound on the log scale (where
    a variance estimate is closer to normal, Bonett 2006): with
    :math:`\widehat{se} = s_q / (\sqrt m\, \bar q)` and :math:`T^* = (\log \bar q^* - \log \bar q) /
    \widehat{se}^*` over ``n_boot`` resamples of the m items,

    .. math::

        \bar q_{\text{upper}} = \bar q\, \exp\!\left(-T^*_{(1 - a)}\, \widehat{se}\right).

    Studentising with each resample's own spread carries the skewness of a heavy-tailed pilot
    (a few large contributions) into the bound, which a normal or chi-square bound ignores.
    A pilot of a heavy-tailed world mostly misses its few extreme items, and the bootstrap
    cannot see what the pilot lacks. When the pilot's largest contribution exceeds
    :math:`2 \log m` times the mean (about the largest a normal sample of m shows), the bound is
    raised further by the factor :math:`1 + c\,(q_{\max} / \bar q - 2 \log m) / m`, as if
    :math:`c` more items like the excess were in the pilot (:data:`TAIL_WEIGHT`; c = 10 brings
    every cell of the released data's check to at least 0.7 while the bounded prompts, whose
    pilots never show such an excess, keep their bound). Both components are multiplied by
    :math:`\bar q_{\text{upper}} / \bar q`; ``assurance`` = 0.5 gives about the components
    themselves. When the bootstrap cannot give a finite bound
    (a pilot whose contributions are nearly all zero, as at a ceiling) the chi-square bound of
    a normal variance is used; with ``scale`` the bound never exceeds the largest variance on it
    (:func:`largest_variance`). ``note`` says when either happened.

    ``q`` of shape (k_max, m) holds the contributions of designs with k = 1 ... k_max
    judgments per item (:func:`debias.stats.planning.design_contributions`, what
    :func:`debias.stats.planning.pilot_components` returns for ``k_max`` > 1): each k gets its
    own bound, ``item`` and ``noise`` carry that of k = 1 and
    :attr:`~debias.stats.planning.PlanComponents.k_factors` the others relative to it.
    """
    q = np.asarray(q, dtype=float)
    if not 0 < assurance < 1:
        raise ValueError(f"assurance must be in (0, 1), got {assurance}")
    factors, fallback = bound_factor(q, assurance, rng=rng, n_boot=n_boot)
    factors = np.atleast_1d(factors).astype(float)
    if np.all(factors == 1.0):
        return components
    note = components.note
    if np.any(fallback):
        note = _join(note, "the pilot's bootstrap bound was not finite; used the chi-square bound")
    bound = largest_variance(scale)
    total = components.item + components.noise
    if bound is not None and np.any(total * factors > bound):
        factors = np.minimum(factors, bound / total)
        note = _join(note, f"bound capped at the largest variance on the scale, {bound:.6g}")
    factor = float(factors[0])
    k_factors = tuple(float(f) for f in factors / factor) if q.ndim == 2 else ()
    return replace(
        components, item=components.item * factor, noise=components.noise * factor, note=note, k_factors=k_factors
    )


def bound_factor(q, assurance: float, *, rng: np.random.Generator, n_boot: int = 1000):
    """The factor :math:`\\bar q_{\\text{upper}} / \\bar q` of :func:`upper_bound_components` for
    many pilots at once (last axis: a pilot's items), and where the chi-square bound replaced a
    bootstrap bound that was not finite. The factor is 1 for a pilot of fewer than 3 items or
    whose contributions do not vary."""
    q = np.asarray(q, dtype=float)
    m = q.shape[-1]
    lead = q.shape[:-1]
    if m < 3:
        return np.ones(lead), np.zeros(lead, dtype=bool)
    mean = q.mean(axis=-1)
    resampled = np.take_along_axis(q[..., None, :], rng.integers(0, m, size=(*lead, n_boot, m)), axis=-1)
    boot_mean = resampled.mean(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        boot_se = resampled.std(axis=-1, ddof=1) / (np.sqrt(m) * boot_mean)
        statistic = (np.log(boot_mean) - np.log(mean[..., None])) / boot_se
        statistic = np.where(np.isfinite(statistic), statistic, np.nan)
        se = q.std(axis=-1, ddof=1) / (np.sqrt(m) * mean)
        usable = np.any(np.isfinite(statistic), axis=-1)
        quantile = np.nanquantile(np.where(usable[..., None], statistic, 0.0), 1.0 - assurance, axis=-1)
        factor = np.where(usable, np.exp(-quantile * se), np.inf)
    fallback = ~np.isfinite(factor)
    factor = np.where(fallback, _chi2_factor(m, assurance), factor)
    with np.errstate(divide="ignore", invalid="ignore"):
        excess = np.maximum(0.0, q.max(axis=-1) / mean - 2.0 * np.log(m))
    factor = factor * (1.0 + TAIL_WEIGHT * excess / m)
    degenerate = ~(mean > 0) | ~(q.std(axis=-1) > 0)
    return np.where(degenerate, 1.0, factor), fallback & ~degenerate


def _chi2_factor(m: int, assurance: float) -> float:
    """The factor of a normal sample's variance at its one-sided upper bound."""
    return float((m - 1) / chi2.ppf(1.0 - assurance, m - 1))


def _join(note: str, more: str) -> str:
    return f"{note}; {more}" if note else more
