"""Do the paired intervals hold their level, and how much does pairing save? By resampling one pair.

The world is the pair's N shared judged items, an item's true difference the difference of its
two mean judgments. A repeat draws n of the N items without replacement (one random order per
repeat serves every n, as in :func:`debias.stats.coverage.coverage_intervals`) and one judgment of each
system's line uniformly (the same one when both lines share a judgment), builds every paired
estimator's interval and checks it against the world's mean difference. The same repeat also
draws an independent second order of the items for system A: the *independent* design judges n
items for A and another n for B, and its variance is that of two separate means.
``de_vs_independent`` is the mean estimated variance of the independent difference over that of
the paired estimator (both averaged over the repeats, as ``coverage.csv``'s ``de`` averages
squared widths). Repeats are drawn from their own generators and evaluated in chunks that fit
in ``memory_mb`` (:func:`debias.stats.coverage.repeat_chunks`): memory does not grow with R x N,
and the rows do not depend on the chunk size.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from debias.data import PairedSample
from debias.stats.combined import combined_terms
from debias.stats.control_variates import cv_terms
from debias.stats.coverage import draw_repeats, interval_coverage, repeat_chunks, resolve_sample_sizes
from debias.stats.estimators import Population, estimator_names, resolve_estimator
from debias.stats.intervals import t_interval

__all__ = ["PAIRED_COVERAGE_COLUMNS", "expected_de_vs_independent", "paired_coverage_experiment"]

#: Bytes of working arrays per repeat and shared item, besides and per metric (measured with
#: tracemalloc at N = 20,000).
PAIRED_BYTES = (200, 48)

PAIRED_COVERAGE_COLUMNS = [
    "estimator",
    "n",
    "n_items",
    "repeats",
    "coverage",
    "coverage_se",
    "mean_width",
    "de_vs_independent",
]


def _world(pair: PairedSample):
    """The world's moments: per-item spreads, the noise of a drawn difference, metric differences."""
    w_a, w_b = pair.judgments_a.within_spread, pair.judgments_b.within_spread
    noise_d = float(np.mean(np.where(pair.same_judgment, 0.0, w_a + w_b)))
    h = (pair.scores_b - pair.scores_a).T  # (M, N) metric differences of the world's items
    h_cov = np.atleast_2d(np.cov(h, ddof=0)) if h.shape[0] else np.zeros((0, 0))
    return w_a, w_b, noise_d, h, h.mean(axis=1), h.var(axis=1), h_cov


def expected_de_vs_independent(pair: PairedSample, n: int) -> dict[str, float]:
    r"""``de_vs_independent`` of every paired estimator at n, from the world's variances.

    In the design of :func:`paired_coverage_experiment` an estimator whose per-item terms have
    variance :math:`S^2` over the world's N items (terms of the items' true values), with
    :math:`\nu` the variance one drawn judgment adds, has variance
    :math:`((1 - n/N) S^2 + \nu) / n`; the independent design has the sum of that for each
    system's mean. The ratio is

    .. math::

        \frac{(1 - n/N)(S_A^2 + S_B^2) + \nu_A + \nu_B}{(1 - n/N) S_{\text{est}}^2 + \nu_d}.

    Exact for ``mean``. For ``cv`` the terms use the world's own coefficient (``cv:combined``:
    cross-fitted, leave one out, over all N), so the cost of estimating it from n items is
    left out; :func:`paired_coverage_experiment` measures it.
    """
    w_a, w_b, noise_d, h, h_mean, h_var, h_cov = _world(pair)
    f_a, f_b = pair.judgments_a.item_means, pair.judgments_b.item_means
    d = f_b - f_a
    n_items = d.size
    keep = 1.0 - n / n_items
    independent = keep * (f_a.var(ddof=1) + f_b.var(ddof=1)) + w_a.mean() + w_b.mean()
    terms = {"mean": d}
    for m, metric in enumerate(pair.metrics):
        terms[f"cv:{metric}"] = cv_terms(d, h[m], h_mean[m], h_var[m], n_items)[0]
    if len(pair.metrics) > 1:
        terms["cv:combined"] = combined_terms(d, h, h_mean, h_cov)
    out = {}
    for name, values in terms.items():
        paired = keep * values.var(ddof=1) + noise_d
        out[name] = float(independent / paired) if paired > 0 else float("nan")
    return out


def _row(name, n, n_items, bounds, theta, independent_variance):
    variance = float(np.mean(bounds[2]))
    return {
        "estimator": name,
        "n": n,
        "n_items": n_items,
        **interval_coverage(bounds[0], bounds[1], theta),
        "de_vs_independent": independent_variance / variance if variance > 0 else float("nan"),
    }


def paired_coverage_experiment(
    pair: PairedSample,
    *,
    sample_sizes: Sequence,
    n_repeats: int,
    level: float,
    rng: np.random.Generator,
    memory_mb: float | None = None,
) -> list[dict]:
    """Coverage, width and the saving over independent samples of every paired estimator.

    Parameters
    ----------
    pair : PairedSample
        The world: its judged shared items and their metrics (moments over these items).
    sample_sizes : sequence
        Integers and fractions of N such as ``"0.5N"`` (:func:`debias.stats.coverage.resolve_sample_sizes`).
    n_repeats : int
        Samples per size.
    level : float
        Nominal coverage.
    rng : numpy.random.Generator
        Spawns one generator per repeat; a repeat's draws serve every size, so a size's rows do
        not depend on which other sizes are asked for.
    memory_mb : float, optional
        Working memory of one chunk of repeats (default
        :data:`debias.stats.coverage.DEFAULT_MEMORY_MB`); the rows do not depend on it.

    Returns
    -------
    list of dict
        Rows with the keys :data:`PAIRED_COVERAGE_COLUMNS`, one row per size and estimator (module notes).
        ``coverage_se`` is the binomial Monte-Carlo standard error.
    """
    ja, jb = pair.judgments_a, pair.judgments_b
    n_items = pair.n_shared
    same = pair.same_judgment
    theta = float(pair.differences.mean())
    w_a, w_b, noise_d, h, h_mean, h_var, h_cov = _world(pair)
    population = Population(h.T)
    names = estimator_names(pair.metrics)
    sizes = resolve_sample_sizes(sample_sizes, n_items)
    kept = {(n, name): np.empty((3, n_repeats)) for n in sizes for name in names}
    independent = {n: np.empty(n_repeats) for n in sizes}
    generators = rng.spawn(n_repeats)
    per_repeat = n_items * (PAIRED_BYTES[0] + PAIRED_BYTES[1] * len(pair.metrics))
    for chunk in repeat_chunks(n_repeats, per_repeat, memory_mb):
        part = slice(chunk.start, chunk.stop)
        counts = np.stack([ja.counts, jb.counts])
        items, cols, items_ind, col_ind = _draw_pair(generators[part], counts, same)
        y_b, y_a_ind = jb.judgment(items, cols[1]), ja.judgment(items_ind, col_ind)
        d = y_b - ja.judgment(items, cols[0])
        del cols, col_ind
        for n in sizes:
            common = {"n_outputs": n_items, "level": level}
            independent[n][part] = (
                t_interval(y_a_ind[:, :n], fitted=1, noise=w_a.mean(), **common).se ** 2
                + t_interval(y_b[:, :n], fitted=1, noise=w_b.mean(), **common).se ** 2
            )
            y, drawn = d[:, :n], items[:, :n]
            g = np.moveaxis(h[:, drawn], 0, 1)
            for name in names:
                family, metric = resolve_estimator(name, pair.metrics)
                result = family.interval(family.terms(y, g, population, metric), population, noise=noise_d, level=level)
                kept[n, name][:, part] = result.ci_low, result.ci_high, result.se**2
            del g
    rows = []
    for n in sizes:
        base = float(np.mean(independent[n]))
        rows += [_row(name, n, n_items, kept[n, name], theta, base) for name in names]
    return rows


def _draw_pair(generators, counts, same):
    """A chunk's draws: the paired order with one judgment of each line (the same one where the
    lines share it), and the independent order for system A with one judgment each."""
    n_items = counts.shape[1]
    items = np.empty((len(generators), n_items), dtype=np.int64)
    cols = np.empty((2, len(generators), n_items), dtype=np.int64)
    for r, generator in enumerate(generators):
        order = generator.permutation(n_items)
        items[r] = order
        cols[0, r] = generator.integers(0, counts[0, order])
        cols[1, r] = np.where(same[order], cols[0, r], generator.integers(0, counts[1, order]))
    items_ind, col_ind = draw_repeats(generators, counts[0])
    return items, cols, items_ind, col_ind
