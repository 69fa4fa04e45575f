"""Do the paired intervals hold their level, and how much does pairing save? By resampling one pair.

The world is the pair's N shared judged items, an item's true difference the difference of its
two mean judgments. A repeat draws n of the N items without replacement (one random order per
repeat serves every n, as in :func:`debias.stats.checks.coverage.draw_samples`) and one judgment of each
system's line uniformly (the same one when both lines share a judgment), builds every paired
estimator's interval and checks it against the world's mean difference. The same repeat also
draws an independent second order of the items for system A: the *independent* design judges n
items for A and another n for B, and its variance is that of two separate means.
``de_vs_independent`` is the mean estimated variance of the independent difference over that of
the paired estimator (both averaged over the repeats, as ``coverage.csv``'s ``de`` averages
squared widths).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from debias.data import PairedSample
from debias.stats.checks.coverage import interval_coverage, resolve_sample_sizes
from debias.stats.common.intervals import t_interval
from debias.stats.common.resampling import draw_paired_samples, repeat_chunks
from debias.stats.ratings.combined import combined_terms
from debias.stats.ratings.control_variates import cv_terms
from debias.stats.ratings.estimators import Population, estimator_names, resolve_estimator

__all__ = ["PAIRED_COVERAGE_COLUMNS", "expected_de_vs_independent", "paired_coverage_experiment"]

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


def _row(name, n, n_items, low, high, variance, theta, independent_variance):
    variance = float(np.mean(variance))
    return {
        "estimator": name,
        "n": n,
        "n_items": n_items,
        **interval_coverage(low, high, theta),
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
        Integers and fractions of N such as ``"0.5N"`` (:func:`debias.stats.checks.coverage.resolve_sample_sizes`).
    n_repeats : int
        Samples per size.
    level : float
        Nominal coverage.
    rng : numpy.random.Generator
        Draws the samples; a chunk's draws are made before any size is evaluated, so a size's
        rows do not depend on which other sizes are asked for.
    memory_mb : float, optional
        Bound on the draws held at once: the repeats are processed in chunks that fit
        (:func:`debias.stats.common.resampling.repeat_chunks`); ``None``: all at once. One chunk draws
        exactly what all at once draws.

    Returns
    -------
    list of dict
        Rows with the keys :data:`PAIRED_COVERAGE_COLUMNS`, one row per size and estimator (module notes).
        ``coverage_se`` is the binomial Monte-Carlo standard error.
    """
    ja, jb = pair.judgments_a, pair.judgments_b
    n_items = pair.n_shared
    k_a, k_b = ja.counts, jb.counts
    same = pair.same_judgment
    theta = float(pair.differences.mean())
    w_a, w_b, noise_d, h, h_mean, h_var, h_cov = _world(pair)
    population = Population(h.T)

    names = estimator_names(pair.metrics)
    sizes = resolve_sample_sizes(sample_sizes, n_items)
    bytes_per_repeat = n_items * (48 + 80 * max(len(pair.metrics), 1))
    parts: dict = {}
    for chunk in repeat_chunks(n_repeats, bytes_per_repeat, memory_mb):
        items, col_a, col_b, items_ind, col_ind = draw_paired_samples(k_a, k_b, same, chunk, rng)
        y_b, y_a_ind = jb.judgment(items, col_b), ja.judgment(items_ind, col_ind)
        d = y_b - ja.judgment(items, col_a)
        for n in sizes:
            common = {"n_outputs": n_items, "level": level}
            independent = (
                t_interval(y_a_ind[:, :n], fitted=1, noise=w_a.mean(), **common).se ** 2
                + t_interval(y_b[:, :n], fitted=1, noise=w_b.mean(), **common).se ** 2
            )
            parts.setdefault((n, "independent"), []).append(independent)
            y, drawn = d[:, :n], items[:, :n]
            g = np.moveaxis(h[:, drawn], 0, 1)
            for name in names:
                family, metric = resolve_estimator(name, pair.metrics)
                result = family.interval(family.terms(y, g, population, metric), population, noise=noise_d, level=level)
                parts.setdefault((n, name), []).append(np.stack([result.ci_low, result.ci_high, result.se**2]))
        del items, col_a, col_b, items_ind, col_ind, y_b, y_a_ind, d
    rows = []
    for n in sizes:
        base = float(np.mean(np.concatenate(parts[(n, "independent")])))
        for name in names:
            low, high, variance = np.concatenate(parts[(n, name)], axis=1)
            rows.append(_row(name, n, n_items, low, high, variance, theta, base))
    return rows
