"""Do the intervals hold their level? Coverage of every estimator on a fixed set of judged outputs.

The world is one task x prompt x system: its N judged items, each with its judgments and metric
scores. A repeat draws n of the N items without replacement and one of each drawn item's
judgments uniformly at random, builds every estimator's interval from that sample (the metric's
mean and covariance over all N, which an evaluation has for free), and checks whether it covers
the full-data mean, the mean over all N items of their mean judgment. Repeats and their samples
are array axes: one draw of a random order of the N items per repeat serves every sample size
(its first n items), so the estimators and sizes share their random numbers.

Repeats are processed in chunks whose working arrays fit in ``memory_mb`` (:func:`repeat_chunks`),
so memory does not grow with R x N. Each repeat draws from its own generator, spawned from the
caller's (:func:`draw_repeats`): the numbers, and so the rows, do not depend on the chunk size.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from debias.data import as_judgments
from debias.stats.estimators import Population, estimator_names, resolve_estimator
from debias.stats.variance import resampling_components

__all__ = [
    "COVERAGE_COLUMNS",
    "coverage_experiment",
    "coverage_intervals",
    "draw_repeats",
    "interval_coverage",
    "repeat_chunks",
    "resolve_sample_sizes",
]

#: Working memory of one chunk of repeats, in MB, when the caller gives none.
DEFAULT_MEMORY_MB = 256
#: Bytes of working arrays per repeat and item of :func:`coverage_intervals`, per metric and besides
#: (measured with tracemalloc at N = 20,000: about 110 + 32 M bytes).
COVERAGE_BYTES = (112, 32)

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


def repeat_chunks(n_repeats: int, bytes_per_repeat: float, memory_mb: float | None) -> list[range]:
    """Consecutive ranges of repeats whose working arrays, ``bytes_per_repeat`` each, fit in
    ``memory_mb`` (at least one repeat per chunk; default :data:`DEFAULT_MEMORY_MB`)."""
    if n_repeats < 1:
        raise ValueError("n_repeats must be positive")
    memory_mb = DEFAULT_MEMORY_MB if memory_mb is None else memory_mb
    if not memory_mb > 0:
        raise ValueError(f"the simulation's memory must be a positive number of MB, got {memory_mb}")
    size = max(1, int(memory_mb * 2**20 // max(bytes_per_repeat, 1.0)))
    return [range(start, min(start + size, n_repeats)) for start in range(0, n_repeats, size)]


def draw_repeats(generators, counts, *, orders: int = 1) -> list[np.ndarray]:
    """Per repeat, ``orders`` random orders of the N items, each with one judgment column per item.

    ``generators`` holds one generator per repeat (``rng.spawn(R)``, sliced by chunk), so a
    repeat's draws are its own whatever the chunks. Returns ``[items, cols]`` per order, each an
    array of shape (len(generators), N): ``items[r]`` a uniformly random permutation, ``cols[r, j]``
    uniform over the ``counts[items[r, j]]`` judgments of that item.
    """
    counts = np.asarray(counts, dtype=np.int64)
    n_items = counts.size
    out = [np.empty((len(generators), n_items), dtype=np.int64) for _ in range(2 * orders)]
    for r, generator in enumerate(generators):
        for o in range(orders):
            items = generator.permutation(n_items)
            out[2 * o][r] = items
            out[2 * o + 1][r] = generator.integers(0, counts[items])
    return out


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
    memory_mb : float, optional
        Working memory of one chunk of repeats (default :data:`DEFAULT_MEMORY_MB`); the rows do
        not depend on it.

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
    :func:`debias.stats.variance.resampling_components`), as an evaluation knows it from
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
    benchmark's Monte-Carlo error of a data efficiency). The repeats are drawn and evaluated
    in chunks (module notes); only the intervals, R per size and estimator, are kept.
    """
    judgments = as_judgments(judgments)
    n_items = judgments.n_items
    names = list(metrics)
    scores = np.array([np.asarray(metrics[m], dtype=float) for m in names]).reshape(len(names), n_items)
    population = Population(scores.T)
    noise, _ = resampling_components(judgments)
    estimators = estimator_names(names, unjudged=ppi)
    sizes = resolve_sample_sizes(sample_sizes, n_items)
    keys = [(n, name) for n in sizes for name in estimators if not (n == n_items and _needs_unjudged(name, names))]
    bounds = {key: np.empty((2, n_repeats)) for key in keys}
    generators = rng.spawn(n_repeats)
    per_repeat = n_items * (COVERAGE_BYTES[0] + COVERAGE_BYTES[1] * len(names))
    for chunk in repeat_chunks(n_repeats, per_repeat, memory_mb):
        items, cols = draw_repeats(generators[chunk.start : chunk.stop], judgments.counts)
        values = judgments.judgment(items, cols)
        del cols
        for n, name in keys:
            family, metric = resolve_estimator(name, names)
            if family.needs_unjudged:
                bounds[n, name][:, chunk.start : chunk.stop] = _unjudged_intervals(
                    family, metric, values, items, population, n, level
                )
                continue
            terms = family.terms_at(values[:, :n], items[:, :n], population, metric)
            result = family.interval(terms, population, noise=noise, level=level)
            bounds[n, name][:, chunk.start : chunk.stop] = result.ci_low, result.ci_high
    for n, name in keys:
        yield name, n, (bounds[n, name][0], bounds[n, name][1])


def _needs_unjudged(name, names):
    return resolve_estimator(name, names)[0].needs_unjudged


def _unjudged_intervals(family, metric, values, items, population, n, level):
    """Intervals of an estimator that needs the unjudged outputs, one repeat at a time."""
    scores = population.scores[:, metric]
    bounds = np.empty((2, items.shape[0]))
    for r in range(items.shape[0]):
        judged, unjudged = items[r, :n], items[r, n:]
        terms = family.terms(values[r, :n], scores[judged][None, :], population, 0)
        result = family.interval(terms, population, noise=None, level=level, unjudged=scores[unjudged])
        bounds[:, r] = result.ci_low, result.ci_high
    return bounds
