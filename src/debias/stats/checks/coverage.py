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

from debias.data import as_judgments
from debias.stats.common.resampling import draw_samples, repeat_chunks
from debias.stats.ratings.estimators import Population, estimator_names, resolve_estimator
from debias.stats.ratings.variance import resampling_components

__all__ = [
    "COVERAGE_COLUMNS",
    "coverage_experiment",
    "coverage_intervals",
    "interval_coverage",
    "resolve_sample_sizes",
]

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


def coverage_experiment(
    judgments,
    metrics: Mapping[str, np.ndarray],
    *,
    sample_sizes: Sequence,
    n_repeats: int,
    level: float,
    rng: np.random.Generator,
    ppi: bool = True,
    memory_mb: float | None = None,
) -> list[dict]:
    """Coverage, mean width and data efficiency of every estimator at every sample size.

    Parameters
    ----------
    judgments : Judgments
        All judgments of the world's N judged items.
    metrics : mapping of str to array_like of shape (N,)
        Each metric's score of the N items (the estimators ``cv:<name>``, ``ppi++:<name>``,
        ``ppi++fpc:<name>``, and
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
        Include ``ppi++:<metric>`` and ``ppi++fpc:<metric>`` (:mod:`debias.stats.common.ppi`).
    memory_mb : float, optional
        Bound on the draws held at once (:func:`coverage_intervals`).

    Returns
    -------
    list of dict
        Rows with the keys :data:`COVERAGE_COLUMNS`, one per size and estimator. ``coverage_se`` is the
        binomial Monte-Carlo standard error; ``de`` is the mean squared width of ``mean`` over
        that of the estimator (same samples).

    Notes
    -----
    The intervals know the world's annotator variance (the mean over items of the spread of
    their judgments around the item mean, which one drawn judgment carries; see
    :func:`debias.stats.ratings.variance.resampling_components`), as an evaluation knows it from
    items judged more than once or from earlier evaluations with the same prompt.
    """
    judgments = as_judgments(judgments)
    n_items = judgments.n_items
    theta = float(judgments.item_means.mean())
    rows, base = [], {}
    intervals = coverage_intervals(
        judgments,
        metrics,
        sample_sizes=sample_sizes,
        n_repeats=n_repeats,
        level=level,
        rng=rng,
        ppi=ppi,
        memory_mb=memory_mb,
    )
    for name, n, bounds in intervals:
        if name == "mean":
            base[n] = float(np.mean((bounds[1] - bounds[0]) ** 2))
        rows.append(_summary(name, n, n_items, bounds, theta, base[n]))
    return rows


def coverage_intervals(judgments, metrics, *, sample_sizes, n_repeats, level, rng, ppi=True, memory_mb=None):
    """The intervals behind :func:`coverage_experiment`, one sample size and estimator at a time.

    Same arguments; yields ``(estimator, n, (ci_low, ci_high))`` with arrays over the repeats,
    ``mean`` first at each size, so that a caller can study the repeats themselves (the
    benchmark's Monte-Carlo error of a data efficiency). ``memory_mb`` bounds the draws held at
    once (repeats in chunks, :func:`debias.stats.common.resampling.repeat_chunks`; one chunk draws what
    all at once draws).
    """
    judgments = as_judgments(judgments)
    n_items = judgments.n_items
    names = list(metrics)
    scores = np.array([np.asarray(metrics[m], dtype=float) for m in names]).reshape(len(names), n_items)
    population = Population(scores.T)
    noise, _ = resampling_components(judgments)
    estimators = estimator_names(names, unjudged=ppi, check=True)
    sizes = resolve_sample_sizes(sample_sizes, n_items)
    parts: dict = {}
    for chunk in repeat_chunks(n_repeats, n_items * 8 * (8 + len(names)), memory_mb):
        items, values = draw_samples(judgments, chunk, rng)
        for n in sizes:
            y, drawn = values[:, :n], items[:, :n]
            for name in estimators:
                family, metric = resolve_estimator(name, names)
                if family.needs_unjudged and n == n_items:
                    continue  # every output judged: nothing for PPI++ to predict
                terms = family.terms_at(y, drawn, population, metric)
                result = family.interval(terms, population, noise=noise, level=level)
                parts.setdefault((name, n), []).append((result.ci_low, result.ci_high))
        del items, values
    for n in sizes:
        for name in estimators:
            if (name, n) in parts:
                lows, highs = zip(*parts[(name, n)])
                yield name, n, (np.concatenate(lows), np.concatenate(highs))
