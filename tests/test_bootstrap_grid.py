"""The bootstrap's grid of prefix sizes and its chunks of replicates (bounded memory for large N)."""

import numpy as np
import pytest
from test_bootstrap import synthetic_population

from debias.data import as_judgments
from debias.stats.checks.bootstrap import bootstrap_ci_widths, bootstrap_data_efficiency
from debias.stats.checks.bootstrap_grid import curve_grid, grid_prefix_sums, replicate_chunk
from debias.stats.common.resampling import draw_resamples, iter_resamples

#: The intervals' nominal coverage in these checks.
LEVEL = 0.8


def test_curve_grid_is_every_n_up_to_dense_then_spread_with_window_edges():
    np.testing.assert_array_equal(curve_grid(7, dense=10), np.arange(1, 8))
    grid = curve_grid(10_003, dense=100, points=50, de_range=(0.2, 0.9))
    np.testing.assert_array_equal(grid[:100], np.arange(1, 101))
    assert grid[-1] == 10_003 and np.all(np.diff(grid) > 0)
    assert 2001 in grid and 9002 in grid  # ceil(0.2 N), floor(0.9 N): the DE window's edges
    spread = grid[100:]
    assert 50 <= spread.size <= 52
    # Evenly spaced over (dense, N]: gaps equal to within rounding and the added edges.
    gaps = np.diff(np.concatenate([[100], spread]))
    assert np.median(gaps) == pytest.approx((10_003 - 100) / 50, abs=1)
    with pytest.raises(ValueError):
        curve_grid(0)


def test_grid_prefix_sums_match_running_sums():
    x = np.random.default_rng(0).normal(size=(4, 57))
    full = np.cumsum(x, axis=1)
    grid = np.array([1, 2, 3, 9, 10, 30, 56, 57])
    np.testing.assert_allclose(grid_prefix_sums(x, grid), full[:, grid - 1], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(grid_prefix_sums(x, grid)[:, :3], full[:, :3])  # dense head exact
    np.testing.assert_allclose(grid_prefix_sums(x, np.array([5, 57])), full[:, [4, 56]], rtol=1e-12)
    np.testing.assert_array_equal(grid_prefix_sums(x, np.arange(1, 58)), full)


def test_chunks_reproduce_the_whole_draw_and_leave_the_generator_alike():
    k = np.array([1, 2, 3, 2, 1, 3, 3])
    whole_rng, chunk_rng = np.random.default_rng(3), np.random.default_rng(3)
    items, cols = draw_resamples(k, 23, whole_rng)
    parts = list(iter_resamples(k, 23, chunk_rng, chunk=5))
    assert [p[0].shape[0] for p in parts] == [5, 5, 5, 5, 3]
    np.testing.assert_array_equal(np.concatenate([p[0] for p in parts]), items)
    np.testing.assert_array_equal(np.concatenate([p[1] for p in parts]), cols)
    assert whole_rng.integers(0, 2**62) == chunk_rng.integers(0, 2**62)
    assert replicate_chunk(100_000, 1000) == 40 and replicate_chunk(500, 1000) == 1000


def test_widths_at_grid_points_equal_the_full_computation_for_any_chunk():
    judgments, metrics = synthetic_population(np.random.default_rng(7), 90, 1.0, 0.5, [0.6, 0.0])
    metrics = np.vstack([metrics, np.ones(90)])  # a constant metric too
    full = bootstrap_ci_widths(
        judgments, metrics, n_replicates=60, rng=np.random.default_rng(1), grid=np.arange(1, 91), level=LEVEL
    )
    grid = curve_grid(90, dense=12, points=9)
    assert grid.size < 30
    for chunk in (None, 1, 7, 60):
        part = bootstrap_ci_widths(
            judgments, metrics, n_replicates=60, rng=np.random.default_rng(1), grid=grid, chunk=chunk, level=LEVEL
        )
        np.testing.assert_array_equal(part.n, grid)
        for key in ("mean", "cv", "noiseless", "perfect"):
            np.testing.assert_allclose(
                getattr(part, key), getattr(full, key)[..., grid - 1], rtol=1e-12, atol=1e-12, err_msg=key
            )
    # Every n: the chunk size changes nothing, bit for bit.
    one = bootstrap_ci_widths(judgments, metrics, n_replicates=60, rng=np.random.default_rng(1), chunk=1, level=LEVEL)
    for key in ("n", "mean", "cv", "noiseless", "perfect"):
        np.testing.assert_array_equal(getattr(one, key), getattr(full, key))
    # DE over the grid points in the window is close to DE over every n in it.
    de_full = bootstrap_data_efficiency(full.mean, full.cv, full.n)
    de_grid = bootstrap_data_efficiency(part.mean, part.cv, part.n)
    np.testing.assert_allclose(de_grid, de_full, rtol=0.05)


def test_grid_must_end_at_n():
    judgments, metrics = synthetic_population(np.random.default_rng(7), 20, 1.0, 0.5, [0.6])
    assert as_judgments(judgments).counts.size == 20
    with pytest.raises(ValueError):
        bootstrap_ci_widths(
            judgments, metrics, n_replicates=5, rng=np.random.default_rng(0), grid=np.array([1, 5]), level=LEVEL
        )
    with pytest.raises(ValueError):
        bootstrap_ci_widths(
            judgments, metrics, n_replicates=5, rng=np.random.default_rng(0), grid=np.array([3, 2, 20]), level=LEVEL
        )
