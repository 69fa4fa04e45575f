"""The planner's upper bound on a pilot's variance, so that a plan meets its target with a stated
probability (the assurance); :mod:`debias.stats.checks.plan_check` measures how well it holds.

References
----------
B. Efron and R. J. Tibshirani. *An Introduction to the Bootstrap*. Chapman & Hall, 1993
(Section 12.5: bootstrap-t).

B. Efron. Estimation and accuracy after model selection. *Journal of the American Statistical
Association* 109(507):991-1007, 2014 (the bootstrap makes a data-driven choice again in every
resample).

D. G. Bonett. Approximate confidence interval for standard deviation of nonnormal
distributions. *Computational Statistics & Data Analysis* 50(3):775-782, 2006.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from scipy.special import gammaincinv

from debias.stats.ratings.planning import PlanComponents, largest_variance

__all__ = ["TAIL_WEIGHT", "bound_factor", "selection_bound_factor", "upper_bound_components"]

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
    chosen: int | None = None,
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
    judgments per item (:func:`debias.stats.ratings.planning.design_contributions`, what
    :func:`debias.stats.ratings.planning.pilot_components` returns for ``k_max`` > 1): each k gets its
    own bound, ``item`` and ``noise`` carry that of k = 1 and
    :attr:`~debias.stats.ratings.planning.PlanComponents.k_factors` the others relative to it.

    When the components are those of the metric the pilot chose among several (``cv`` with the
    pilot's best metric), ``q`` holds every candidate metric's contributions (shape (M, m) or
    (M, k_max, m), :func:`debias.stats.ratings.planning.candidate_contributions`) and ``chosen`` the
    row of the chosen one: the bound is then :func:`selection_bound_factor`'s, which repeats
    the choice in every resample; with one candidate it is the bound above, the same numbers.
    """
    q = np.asarray(q, dtype=float)
    if not 0 < assurance < 1:
        raise ValueError(f"assurance must be in (0, 1), got {assurance}")
    if chosen is None:
        per_k = q.ndim == 2
        factors, fallback = bound_factor(q, assurance, rng=rng, n_boot=n_boot)
    else:
        if q.ndim not in (2, 3):
            raise ValueError(f"with a chosen metric, q must have shape (M, m) or (M, k_max, m), got {q.shape}")
        per_k = q.ndim == 3
        factors, fallback = selection_bound_factor(
            q if per_k else q[:, None, :], chosen, assurance, rng=rng, n_boot=n_boot
        )
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
    k_factors = tuple(float(f) for f in factors / factor) if per_k else ()
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
    resampled = _resample(q, rng.integers(0, m, size=(*lead, n_boot, m), dtype=np.int32))
    boot_mean, boot_sd = _mean_sd(resampled)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        boot_se = boot_sd / (np.sqrt(m) * boot_mean)
        statistic = (np.log(boot_mean) - np.log(mean[..., None])) / boot_se
    return _studentised_factor(statistic, q, assurance)


def selection_bound_factor(
    q, chosen, assurance: float, *, rng: np.random.Generator, n_boot: int = 1000, candidates=None
):
    r"""The factor of :func:`bound_factor` for the metric a pilot chose among several, with the
    choice repeated in every resample.

    A pilot's best metric (highest :math:`|\hat\rho|`, :func:`debias.stats.ratings.metric_correlation.best_metric`)
    is the one whose contributions :math:`q_{ji}` (residual variance after its line) have the
    smallest mean :math:`\bar q_j` at k = 1, since :math:`\sum_i e_{ji}^2 = S_{ff}(1 -
    \hat\rho_j^2)`. Picking the smallest of M noisy means favours a metric whose pilot happened
    to underestimate it (the winner's curse), which a bound of the chosen mean alone does not
    see. The bootstrap sees it when every resample makes the choice again (Efron 2014):
    resample b of the pilot's items picks :math:`s_b = \arg\min_j \bar q^*_{jb}` (its k = 1
    means, among ``candidates``), and the statistic compares that metric's resample mean with
    the same metric's pilot mean,

    .. math::

        T^*_b = \frac{\log \bar q^*_{s_b b} - \log \bar q_{s_b}}{\widehat{se}^*_{s_b b}},
        \qquad
        \bar q_{\text{upper}} = \bar q_c\, \exp\!\left(-T^*_{(1 - a)}\, \widehat{se}_c\right),

    with c the pilot's choice (``chosen``), :math:`\widehat{se} = s_q / (\sqrt m\, \bar q)`
    and the rest as in :func:`upper_bound_components` (the tail excess and the chi-square
    fallback of metric c). Each k's bound uses the metric chosen at k = 1 in the same resample.
    Since :math:`\bar q^*_{s_b b} \le \bar q^*_{cb}` and :math:`\bar q_{s_b} \ge \bar q_c`, the
    numerator of :math:`T^*_b` is never above that of the fixed metric c: when metrics compete
    the statistic's lower quantile falls and the bound rises, while a metric far better than
    the others is chosen in every resample and keeps the bound of a fixed metric.
    The choice is made on the contributions' means, the statistic the bound studentises, rather
    than by refitting each metric's line and correlation in every resample: on the pilot both
    choose the same metric, and the means of every metric and k come from one product of the
    resamples' item counts with the contributions.

    Parameters
    ----------
    q : array_like, shape (..., M, K, m)
        Per pilot (leading axes), candidate metric (M) and design (K: k = 1 ... K judgments per
        item, :func:`debias.stats.ratings.planning.design_contributions`), the items' contributions.
    chosen : array_like of int, shape (...)
        The pilot's choice: the row of ``q`` whose bound is returned.
    assurance : float
        The bound's one-sided level a.
    rng : numpy.random.Generator
        Draws the resamples (one set per pilot, shared by its metrics and designs).
    n_boot : int
        Resamples per pilot.
    candidates : array_like of bool, shape (..., M), optional
        The metrics the choice is made among (default all; ``chosen`` must be one). A mask
        holding the chosen metric alone gives the bound of a fixed metric on the same resamples.

    Returns
    -------
    factor, fallback : numpy.ndarray, shape (..., K)
        The factor :math:`\bar q_{\text{upper}} / \bar q_c` of each design, and where the
        chi-square bound replaced a bootstrap bound that was not finite. With M = 1 these are
        :func:`bound_factor`'s of ``q[..., 0, :, :]``, the same draws and numbers.

    References
    ----------
    B. Efron and R. J. Tibshirani. *An Introduction to the Bootstrap*. Chapman & Hall, 1993
    (Section 12.5: bootstrap-t).

    B. Efron. Estimation and accuracy after model selection. *Journal of the American
    Statistical Association* 109(507):991-1007, 2014.
    """
    q, chosen, candidates = _check_selection(q, chosen, candidates)
    *lead, n_metrics, n_designs, m = q.shape
    lead = tuple(lead)
    q_chosen = np.take_along_axis(q, chosen[..., None, None, None], axis=-3)[..., 0, :, :]
    if n_metrics == 1:
        return bound_factor(q_chosen, assurance, rng=rng, n_boot=n_boot)
    if m < 3:
        return np.ones((*lead, n_designs)), np.zeros((*lead, n_designs), dtype=bool)
    mean = q.mean(axis=-1)  # (..., M, K)
    counts = _counts(rng.integers(0, m, size=(*lead, n_boot, m), dtype=np.int32), m)  # (..., B, m)
    centred = (q - mean[..., None]).reshape(*lead, n_metrics * n_designs, m)
    columns = np.ascontiguousarray(np.moveaxis(np.concatenate([centred, centred * centred], axis=-2), -1, -2))
    sums = _small_products(counts, columns).reshape(*lead, n_boot, 2, n_metrics, n_designs)  # over each resample
    at_one = np.where(candidates[..., None, :], mean[..., None, :, 0] + sums[..., 0, :, 0] / m, np.inf)
    selected = np.argmin(at_one, axis=-1)[..., None, None, None]  # (..., B, 1, 1, 1): the resample's choice
    first, second = np.moveaxis(np.take_along_axis(sums, selected, axis=-2)[..., 0, :], -2, 0)  # (..., B, K)
    pilot_mean = np.take_along_axis(mean[..., None, :, :], selected[..., 0], axis=-2)[..., 0, :]
    boot_mean = pilot_mean + first / m
    boot_sd = np.sqrt(np.maximum(second - first * first / m, 0.0) / (m - 1))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        boot_se = boot_sd / (np.sqrt(m) * boot_mean)
        statistic = (np.log(boot_mean) - np.log(pilot_mean)) / boot_se
    return _studentised_factor(np.moveaxis(statistic, -2, -1), q_chosen, assurance)


def _check_selection(q, chosen, candidates):
    """The inputs of :func:`selection_bound_factor` as arrays, or ``ValueError`` naming the
    first that is wrong."""
    q = np.asarray(q, dtype=float)
    if q.ndim < 3:
        raise ValueError(f"q must have shape (..., metrics, designs, items), got {q.shape}")
    lead, n_metrics = q.shape[:-3], q.shape[-3]
    chosen = np.asarray(chosen)
    if not np.issubdtype(chosen.dtype, np.integer):
        raise ValueError(f"chosen must be integer indices of the metrics, got {chosen.dtype}")
    chosen = np.broadcast_to(chosen, lead)
    if np.any((chosen < 0) | (chosen >= n_metrics)):
        raise ValueError(f"chosen must index the {n_metrics} metrics, got {np.unique(chosen).tolist()}")
    if candidates is None:
        candidates = np.ones((*lead, n_metrics), dtype=bool)
    candidates = np.broadcast_to(np.asarray(candidates, dtype=bool), (*lead, n_metrics))
    if not np.all(np.take_along_axis(candidates, chosen[..., None], axis=-1)):
        raise ValueError("the chosen metric must be one of the candidates")
    return q, chosen, candidates


def _counts(index: np.ndarray, m: int) -> np.ndarray:
    """How often each of the m items is drawn in each resample: ``index`` of shape (..., B, m)
    gives counts of the same shape (float)."""
    rows = index.reshape(-1, m).astype(np.int64) + (np.arange(index.size // m, dtype=np.int64) * m)[:, None]
    return np.bincount(rows.ravel(), minlength=index.size).reshape(index.shape).astype(float)


#: Largest product (rows x inner x columns) of one matrix multiplication in
#: :func:`_small_products`: OpenBLAS runs products of this size on one thread, and its threads
#: spinning between many small products cost more CPU than they save.
SMALL_PRODUCT = 2**18


def _small_products(counts: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """``counts @ columns`` (shapes (..., B, m) and (..., m, c)) as products of a few resamples'
    rows each, small enough for one thread (:data:`SMALL_PRODUCT`)."""
    *lead, n_boot, m = counts.shape
    rows = int(max(1, min(n_boot, SMALL_PRODUCT // (m * columns.shape[-1]))))
    blocks = -(-n_boot // rows)
    padded = np.zeros((*lead, blocks * rows, m))
    padded[..., :n_boot, :] = counts
    product = np.matmul(padded.reshape(*lead, blocks, rows, m), columns[..., None, :, :])
    return product.reshape(*lead, blocks * rows, columns.shape[-1])[..., :n_boot, :]


def _studentised_factor(statistic: np.ndarray, q: np.ndarray, assurance: float):
    """The factor and fallback of :func:`bound_factor` from the bootstrap-t statistics
    (shape (..., B)) of the pilot contributions ``q`` (shape (..., m)) they studentise."""
    m = q.shape[-1]
    mean = q.mean(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        statistic = np.where(np.isfinite(statistic), statistic, np.nan)
        se = q.std(axis=-1, ddof=1) / (np.sqrt(m) * mean)
        usable = np.any(np.isfinite(statistic), axis=-1)
        statistic = np.where(usable[..., None], statistic, 0.0)
        quantile = (np.nanquantile if np.isnan(statistic).any() else np.quantile)(statistic, 1.0 - assurance, axis=-1)
        factor = np.where(usable, np.exp(-quantile * se), np.inf)
    fallback = ~np.isfinite(factor)
    factor = np.where(fallback, _chi2_factor(m, assurance), factor)
    with np.errstate(divide="ignore", invalid="ignore"):
        excess = np.maximum(0.0, q.max(axis=-1) / mean - 2.0 * np.log(m))
    factor = factor * (1.0 + TAIL_WEIGHT * excess / m)
    degenerate = ~(mean > 0) | ~(q.std(axis=-1) > 0)
    return np.where(degenerate, 1.0, factor), fallback & ~degenerate


def _resample(q: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``q[..., index]`` along the last axis for every leading entry: ``index`` of shape
    (*lead, n_boot, m) picks from ``q`` of shape (*lead, m). The same values as
    ``np.take_along_axis(q[..., None, :], index, axis=-1)``, gathered from one pilot's row at a
    time (a small row stays in cache), several times faster."""
    m = q.shape[-1]
    out = np.empty(index.shape)
    rows, picks, into = q.reshape(-1, m), index.reshape(-1, *index.shape[-2:]), out.reshape(-1, *index.shape[-2:])
    for row, pick, target in zip(rows, picks, into, strict=True):
        np.take(row, pick, out=target)
    return out


def _mean_sd(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard deviation (ddof 1) along the last axis, one sum shared by both; the
    same floating-point operations as ``x.mean(-1)`` and ``x.std(-1, ddof=1)``. Overwrites ``x``
    with its squared deviations."""
    m = x.shape[-1]
    mean = x.sum(axis=-1) / m
    deviation = np.subtract(x, mean[..., None], out=x)
    np.multiply(deviation, deviation, out=deviation)
    return mean, np.sqrt(deviation.sum(axis=-1) / (m - 1))


def _chi2_factor(m: int, assurance: float) -> float:
    """The factor of a normal sample's variance at its one-sided upper bound."""
    # chi2.ppf(p, df) = 2 gammaincinv(df / 2, p), what scipy.stats computes, without importing it
    return float((m - 1) / (2 * gammaincinv((m - 1) / 2, 1.0 - assurance)))


def _join(note: str, more: str) -> str:
    return f"{note}; {more}" if note else more
