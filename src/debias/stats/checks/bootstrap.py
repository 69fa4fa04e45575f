"""Bootstrap of confidence-interval width against the number of human judgments.

This is the experiment behind Figure 6 and the data efficiencies of Section 5:
resample items (and one of their judgments) with replacement, compute each
estimator on every prefix of the resample, and read the 80% interval width off
the spread of the replicates. Everything is vectorised over replicates and
prefix sizes with running sums, so a full system (several prompts and metrics,
1000 replicates, 500 items) takes seconds rather than hours; replicates come in
chunks and large N is read at a grid of prefix sizes (:mod:`debias.stats.checks.bootstrap_grid`),
so memory stays bounded whatever N.

The four *conditions* are the paper's (Figure 6), not a second set of estimators: ``mean`` and
``cv`` are the point estimates of the registry's ``mean`` and ``cv:<metric>``
(:mod:`debias.stats.ratings.estimators`; tests check the running-sum kernel against
:func:`debias.stats.ratings.control_variates.control_variates_estimate` on the same draws), while
``noiseless`` and ``perfect`` are the paper's thought experiments (no annotator noise; a metric
equal to the mean judgment), which no real evaluation can compute. Their display labels are
:data:`debias.config.labels.CONDITIONS`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from debias.data import as_judgments
from debias.stats.checks.bootstrap_grid import _check_grid, curve_grid, grid_prefix_sums, replicate_chunk
from debias.stats.common.resampling import iter_resamples

__all__ = [
    "CurveResult",
    "bootstrap_ci_widths",
    "bootstrap_ci_widths_from_draws",
    "curve_grid",
    "bootstrap_data_efficiency",
]


@dataclass(frozen=True)
class CurveResult:
    """Bootstrap interval widths against the number of judged items n.

    Attributes
    ----------
    n : numpy.ndarray, shape (G,)
        The prefix sizes (the grid).
    mean : numpy.ndarray, shape (G,)
        Width of the sample mean of one judgment per item (humans alone).
    cv, noiseless : numpy.ndarray, shape (M, G)
        Width of Algorithm 1 with each metric, on one judgment per item and on the item's mean
        judgment (no annotator noise).
    perfect : numpy.ndarray, shape (G,)
        Width of Algorithm 1 with a metric equal to the item's mean judgment.
    """

    n: np.ndarray
    mean: np.ndarray
    cv: np.ndarray
    noiseless: np.ndarray
    perfect: np.ndarray


def _interval_width(estimates: np.ndarray, level: float) -> np.ndarray:
    """Width of the central ``level`` percentile interval over replicates (the second-last axis)."""
    lower, upper = np.quantile(estimates, [(1.0 - level) / 2.0, (1.0 + level) / 2.0], axis=-2)
    return upper - lower


def _prefix_cv(y_c: np.ndarray, y_bar: np.ndarray, g_std: np.ndarray, g_bar: np.ndarray, n: np.ndarray):
    """Algorithm 1 at the grid's prefix sizes of every replicate, from running sums.

    ``y_c`` is y shifted by a constant and ``y_bar`` its prefix means; ``g_std``
    is the metric standardised with its all-items mean and standard deviation and
    ``g_bar`` its prefix means, so ``alpha = cov_n(y, g_std)`` and the estimate (up to
    the shift) is ``y_bar - alpha * g_bar``. Centring both first keeps the one-pass
    covariance ``mean(y g) - y_bar g_bar`` free of cancellation.
    """
    alpha = grid_prefix_sums(y_c * g_std, n)
    alpha /= n
    alpha -= y_bar * g_bar
    alpha *= g_bar
    return y_bar - alpha


def _check_inputs(judgments, metrics, level):
    judgments = as_judgments(judgments)
    k = judgments.counts
    n_items = judgments.n_items
    if n_items == 0:
        raise ValueError("the bootstrap needs at least one judged item")
    metrics = np.asarray(metrics, dtype=float)
    if metrics.size == 0:
        metrics = metrics.reshape(0, n_items)
    if metrics.ndim != 2 or metrics.shape[1] != n_items:
        raise ValueError(f"metrics must have shape (M, {n_items}), got {metrics.shape}")
    if not np.all(np.isfinite(metrics)):
        raise ValueError("metrics must be finite for every item")
    if not (0.0 < level < 1.0):
        raise ValueError("level must be in (0, 1)")
    return judgments, k, metrics


def _standardised(values: np.ndarray):
    sd = values.std()
    if sd == 0:  # constant metric: alpha = 0, estimator is the sample mean
        return None
    return (values - values.mean()) / sd


def _widths_from_chunks(judgments, k, metrics, chunks, n_replicates: int, grid, level: float) -> CurveResult:
    """Estimates of every condition at the grid's n, chunk by chunk of replicates, then widths."""
    n_items, n_metrics = judgments.n_items, metrics.shape[0]
    grid = _check_grid(grid, n_items)
    item_mean = judgments.item_means
    shift = float(item_mean.mean())  # estimators are shift-equivariant; centring aids precision
    g_std = [_standardised(metrics[m]) for m in range(n_metrics)]
    perfect_std = _standardised(item_mean)
    est = {
        "mean": np.empty((n_replicates, grid.size)),
        "perfect": np.empty((n_replicates, grid.size)),
        "cv": np.empty((n_metrics, n_replicates, grid.size)),
        "noiseless": np.empty((n_metrics, n_replicates, grid.size)),
    }
    done = 0
    for items, cols in chunks:
        rows = slice(done, done + items.shape[0])
        done += items.shape[0]
        if done > n_replicates or np.any(cols >= k[items]) or np.any(cols < 0):
            raise ValueError("a drawn judgment column is outside its item's judgments, or too many replicates")
        # One drawn judgment per draw ("real" annotators) and the drawn item's mean ("noiseless").
        y_c = judgments.judgment(items, cols) - shift
        y_bar = grid_prefix_sums(y_c, grid) / grid
        ym_c = item_mean[items] - shift
        ym_bar = grid_prefix_sums(ym_c, grid) / grid
        est["mean"][rows] = y_bar + shift
        for m, values in enumerate(g_std):
            if values is None:
                est["cv"][m, rows] = y_bar + shift
                est["noiseless"][m, rows] = ym_bar + shift
                continue
            g = values[items]
            g_bar = grid_prefix_sums(g, grid)
            g_bar /= grid
            est["cv"][m, rows] = _prefix_cv(y_c, y_bar, g, g_bar, grid) + shift
            est["noiseless"][m, rows] = _prefix_cv(ym_c, ym_bar, g, g_bar, grid) + shift
            del g
        if perfect_std is None:
            est["perfect"][rows] = y_bar + shift
        else:
            g = perfect_std[items]
            g_bar = grid_prefix_sums(g, grid)
            g_bar /= grid
            est["perfect"][rows] = _prefix_cv(y_c, y_bar, g, g_bar, grid) + shift
    if done != n_replicates:
        raise ValueError(f"{done} replicates drawn, {n_replicates} expected")
    return CurveResult(n=grid, **{key: _interval_width(value, level) for key, value in est.items()})


def bootstrap_ci_widths_from_draws(
    judgments, metrics, items: np.ndarray, cols: np.ndarray, *, level: float, grid=None
) -> CurveResult:
    """Interval widths for given draws; see :func:`bootstrap_ci_widths`.

    Exposed so that the same draws can be fed to a reference implementation.
    """
    judgments, k, metrics = _check_inputs(judgments, metrics, level)
    items = np.asarray(items)
    cols = np.asarray(cols)
    n_items = judgments.n_items
    if items.ndim != 2 or items.shape[1] != n_items or cols.shape != items.shape:
        raise ValueError(f"items and cols must both have shape (B, {n_items})")
    grid = np.arange(1, n_items + 1) if grid is None else grid
    return _widths_from_chunks(judgments, k, metrics, [(items, cols)], items.shape[0], grid, level)


def bootstrap_ci_widths(
    judgments,
    metrics,
    *,
    n_replicates: int,
    rng: np.random.Generator,
    level: float,
    grid=None,
    chunk: int | None = None,
) -> CurveResult:
    """Bootstrap interval width at the number of judgments n, for four estimators.

    ``judgments`` is (N, K), NaN-padded, one row per item; ``metrics`` is
    (M, N). Each replicate draws N items with replacement and one judgment
    of each drawn item uniformly at random; the estimate at n uses the first
    n draws, which mimics collecting judgments one at a time. Conditions:

    - ``mean``: sample mean of the drawn judgments (the human baseline);
    - ``cv``: Algorithm 1 with each metric, alpha re-fitted on each prefix and
      the metric's mean/variance taken over all N items;
    - ``noiseless``: as ``cv`` but y is the drawn item's mean judgment
      (what zero annotator variance would give);
    - ``perfect``: y one judgment, g the item's mean judgment (a metric with
      perfect correlation to the human metric).

    All conditions and metrics share the same draws. The width is the
    distance between the (1-level)/2 and (1+level)/2 quantiles (numpy's
    linear interpolation) of the replicate estimates. ``grid`` is the sorted
    prefix sizes to report, ending at N (default :func:`curve_grid`: every n
    up to 1,000, then 500 sizes spread over the rest). Returns a
    :class:`CurveResult`.

    Replicates are drawn and reduced ``chunk`` at a time (default: about four
    million draws per chunk, :func:`replicate_chunk`), so memory is a few
    chunk x N arrays plus (2 + 2M) x B x G estimates. The draws, and so the
    result, do not depend on ``chunk`` (:func:`iter_resamples`).
    """
    judgments, k, metrics = _check_inputs(judgments, metrics, level)
    n_items = judgments.n_items
    if n_replicates < 1:
        raise ValueError("n_replicates must be positive")
    grid = curve_grid(n_items) if grid is None else grid
    chunk = replicate_chunk(n_items, n_replicates) if chunk is None else int(chunk)
    chunks = iter_resamples(k, n_replicates, rng, chunk)
    return _widths_from_chunks(judgments, k, metrics, chunks, n_replicates, grid, level)


def bootstrap_data_efficiency(width_baseline, width_condition, n, lo: float = 0.2, hi: float = 0.9):
    """Ratio of mean squared interval widths, baseline over condition, for n in [lo N, hi N].

    Squared widths are proportional to variances, so this is the empirical
    counterpart of Eq. (7). Small n are left out because there alpha is
    poorly estimated and the interval shows small-sample effects rather than
    the asymptotic 1/n variance the theory describes. Broadcasts over leading
    axes, e.g. baseline (N,) against conditions (M, N) gives (M,).
    """
    width_baseline = np.asarray(width_baseline, dtype=float)
    width_condition = np.asarray(width_condition, dtype=float)
    n = np.asarray(n)
    if n.ndim != 1 or n.shape[0] != width_baseline.shape[-1] or n.shape[0] != width_condition.shape[-1]:
        raise ValueError("n must be 1-D and match the last axis of both width arrays")
    n_max = n.max()
    eps = 1e-9 * n_max
    window = (n >= lo * n_max - eps) & (n <= hi * n_max + eps)
    if not window.any():
        raise ValueError(f"no n in [{lo} N, {hi} N] with N = {n_max}")
    num = np.mean(width_baseline[..., window] ** 2, axis=-1)
    den = np.mean(width_condition[..., window] ** 2, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = num / den
    return float(ratio) if np.ndim(ratio) == 0 else ratio
