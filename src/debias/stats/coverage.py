"""Do the intervals hold their level? Coverage of every estimator on a fixed set of judged outputs.

The world is one task x prompt x system: its N judged items, each with its judgments and metric
scores. A repeat draws n of the N items without replacement and one of each drawn item's
judgments uniformly at random, builds every estimator's interval from that sample (the metric's
mean and covariance over all N, which an evaluation has for free), and checks whether it covers
the full-data mean, the mean over all N items of their mean judgment. Repeats and their samples
are array axes: one draw of a random order of the N items per repeat serves every sample size
(its first n items), so the estimators and sizes share their random numbers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from debias.stats.bootstrap import judgment_counts, resampling_variance_components
from debias.stats.combined import combined_terms_standardised, metric_coordinates
from debias.stats.intervals import cv_terms, t_interval

__all__ = [
    "COVERAGE_COLUMNS",
    "coverage_experiment",
    "coverage_intervals",
    "draw_samples",
    "interval_coverage",
    "resolve_sample_sizes",
]

#: Repeats per call of the combined control variate's kernel in the coverage experiment.
REPEAT_BLOCK = 64

COVERAGE_COLUMNS = ["estimator", "n", "n_items", "repeats", "coverage", "coverage_se", "mean_width", "de"]


def resolve_sample_sizes(spec: Sequence, n_items: int) -> list[int]:
    """Sample sizes for a world of ``n_items``: integers as given, ``"<f>N"`` as floor(f N).

    Sizes outside [3, n_items] are dropped (an interval needs 3 items; a sample cannot exceed
    the world); duplicates are dropped; the result is sorted.
    """
    sizes = set()
    for entry in spec:
        if isinstance(entry, str):
            text = entry.strip()
            if not text.endswith("N"):
                raise ValueError(f"sample size '{entry}' must be an integer or a fraction of N such as '0.5N'")
            try:
                fraction = float(text[:-1])
            except ValueError:
                raise ValueError(
                    f"sample size '{entry}' must be an integer or a fraction of N such as '0.5N'"
                ) from None
            if not 0 < fraction <= 1:
                raise ValueError(f"sample size '{entry}': the fraction of N must be in (0, 1]")
            size = int(np.floor(fraction * n_items + 1e-9))
        else:
            size = int(entry)
        if 3 <= size <= n_items:
            sizes.add(size)
    return sorted(sizes)


def draw_samples(judgments, n_repeats: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Random orders of the items and one judgment of each: ``(items, values)``, both (R, N).

    ``items[r]`` is a uniformly random permutation of the N items; the first n of them are a
    sample of n drawn without replacement. ``values[r, j]`` is one judgment of item
    ``items[r, j]`` drawn uniformly among its judgments.
    """
    judgments = np.asarray(judgments, dtype=float)
    k = judgment_counts(judgments)
    if n_repeats < 1:
        raise ValueError("n_repeats must be positive")
    items = rng.permuted(np.tile(np.arange(k.size), (n_repeats, 1)), axis=1)
    cols = rng.integers(0, k[items])
    return items, judgments[items, cols]


def interval_coverage(low, high, theta: float) -> dict:
    """How a batch of intervals ``[low, high]`` (one per repeat) meets the truth ``theta``:
    ``repeats``, ``coverage``, its binomial Monte-Carlo standard error ``coverage_se`` and the
    ``mean_width``."""
    low, high = np.asarray(low), np.asarray(high)
    covered = (low <= theta) & (theta <= high)
    coverage = float(covered.mean())
    return {
        "repeats": covered.size,
        "coverage": coverage,
        "coverage_se": float(np.sqrt(coverage * (1.0 - coverage) / covered.size)),
        "mean_width": float(np.mean(high - low)),
    }


def _summary(name, n, n_items, intervals, theta, base_width2):
    low, high = np.asarray(intervals[0]), np.asarray(intervals[1])
    width2 = float(np.mean((high - low) ** 2))
    return {
        "estimator": name,
        "n": n,
        "n_items": n_items,
        **interval_coverage(low, high, theta),
        "de": base_width2 / width2 if width2 > 0 else float("nan"),
    }


def _ppi_intervals(values, scores, items, n, level):
    from ppi_py import ppi_mean_ci  # imported here: it loads numba and statsmodels (about 2 s)

    bounds = np.empty((2, items.shape[0]))
    for r in range(items.shape[0]):  # ppi_py computes one interval per call
        judged, unjudged = items[r, :n], items[r, n:]
        low, high = ppi_mean_ci(values[r, :n], scores[judged], scores[unjudged], alpha=1.0 - level)
        bounds[:, r] = np.squeeze(low), np.squeeze(high)
    return bounds


def coverage_experiment(
    judgments,
    metrics: Mapping[str, np.ndarray],
    *,
    sample_sizes: Sequence,
    n_repeats: int,
    level: float,
    rng: np.random.Generator,
    ppi: bool = True,
) -> pd.DataFrame:
    """Coverage, mean width and data efficiency of every estimator at every sample size.

    Parameters
    ----------
    judgments : array_like, shape (N, K)
        All judgments of the world's N judged items, NaN-padded.
    metrics : mapping of str to array_like of shape (N,)
        Each metric's score of the N items (the estimators ``cv:<name>``, ``ppi++:<name>``, and
        ``cv:combined`` over all of them when there are two or more).
    sample_sizes : sequence
        Integers and fractions of N such as ``"0.5N"`` (:func:`resolve_sample_sizes`).
    n_repeats : int
        Samples per size.
    level : float
        Nominal coverage of the intervals.
    rng : numpy.random.Generator
        Draws the samples.
    ppi : bool
        Include ``ppi++:<metric>`` (one ``ppi_py`` call per repeat, by far the slowest part).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COVERAGE_COLUMNS`, one row per size and estimator. ``coverage_se`` is the
        binomial Monte-Carlo standard error; ``de`` is the mean squared width of ``mean`` over
        that of the estimator (same samples).

    Notes
    -----
    The intervals know the world's annotator variance (the mean over items of the spread of
    their judgments around the item mean, which one drawn judgment carries; see
    :func:`debias.stats.bootstrap.resampling_variance_components`), as an evaluation knows it from
    items judged more than once or from earlier evaluations with the same prompt.
    """
    judgments = np.asarray(judgments, dtype=float)
    n_items = judgments.shape[0]
    theta = float(np.nanmean(judgments, axis=1).mean())
    rows, base = [], {}
    intervals = coverage_intervals(
        judgments, metrics, sample_sizes=sample_sizes, n_repeats=n_repeats, level=level, rng=rng, ppi=ppi
    )
    for name, n, bounds in intervals:
        if name == "mean":
            base[n] = float(np.mean((bounds[1] - bounds[0]) ** 2))
        rows.append(_summary(name, n, n_items, bounds, theta, base[n]))
    return pd.DataFrame(rows, columns=COVERAGE_COLUMNS)


def coverage_intervals(judgments, metrics, *, sample_sizes, n_repeats, level, rng, ppi=True):
    """The intervals behind :func:`coverage_experiment`, one sample size and estimator at a time.

    Same arguments; yields ``(estimator, n, (ci_low, ci_high))`` with arrays over the repeats,
    ``mean`` first at each size, so that a caller can study the repeats themselves (the
    benchmark's Monte-Carlo error of a data efficiency).
    """
    judgments = np.asarray(judgments, dtype=float)
    n_items = judgments.shape[0]
    names = list(metrics)
    scores = np.array([np.asarray(metrics[m], dtype=float) for m in names]).reshape(len(names), n_items)
    noise, _ = resampling_variance_components(judgments)
    g_mean, g_var = scores.mean(axis=1), scores.var(axis=1)
    g_cov = np.atleast_2d(np.cov(scores, ddof=0)) if names else np.zeros((0, 0))
    items, values = draw_samples(judgments, n_repeats, rng)
    if len(names) > 1:  # the metrics' standardised and principal coordinates, once per world
        keep, sd, vectors, eigenvalues = metric_coordinates(g_cov)
        h_all = vectors.T @ ((scores[keep] - g_mean[keep, None]) / sd[keep, None])
    common = {"n_outputs": n_items, "noise": noise, "level": level}
    for n in resolve_sample_sizes(sample_sizes, n_items):
        y, drawn = values[:, :n], items[:, :n]
        mean = t_interval(y, fitted=1, **common)
        yield "mean", n, (mean.ci_low, mean.ci_high)
        for m, name in enumerate(names):
            terms, extra = cv_terms(y, scores[m][drawn], g_mean[m], g_var[m], n_items)
            cv = t_interval(terms, fitted=2, extra_variance=extra, **common)
            yield f"cv:{name}", n, (cv.ci_low, cv.ci_high)
        if len(names) > 1:
            terms = np.empty_like(y)
            for block in range(0, n_repeats, REPEAT_BLOCK):  # blocks that stay in the processor's cache
                rows = slice(block, block + REPEAT_BLOCK)
                h = np.moveaxis(h_all[:, drawn[rows]], 0, 1)
                terms[rows] = combined_terms_standardised(y[rows], None, vectors, eigenvalues, h=h)
            combined = t_interval(terms, fitted=1, **common)
            yield "cv:combined", n, (combined.ci_low, combined.ci_high)
        if ppi and n < n_items:
            for m, name in enumerate(names):
                yield f"ppi++:{name}", n, _ppi_intervals(values, scores[m], items, n, level)
