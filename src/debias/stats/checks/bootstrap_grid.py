"""The bootstrap's prefix sizes and replicates in bounded memory: a grid of n, chunks of replicates.

A CI-width curve needs, for every prefix size n, the spread of an estimator over B
replicates. Computing it at every n = 1..N keeps B x N numbers per curve, which is
gigabytes once N reaches tens of thousands. Two things bound that here:

* the curve is read at a *grid* of n (:func:`curve_grid`): every n up to ``dense``, then
  ``points`` sizes evenly spaced over the rest, plus N and the edges of the data-efficiency
  window. With N <= ``dense`` the grid is every n and nothing changes;
* replicates are drawn and reduced ``chunk`` rows at a time (:func:`iter_resamples`,
  :func:`grid_prefix_sums`), so the working set is a few chunk x N arrays and what is kept
  is B x (grid size) per curve.

The draws do not depend on the chunk size: :func:`iter_resamples` yields exactly the rows
of :func:`debias.stats.common.resampling.draw_resamples` for the same generator, in order.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = [
    "DEFAULT_DENSE",
    "DEFAULT_POINTS",
    "DEFAULT_CHUNK_ELEMENTS",
    "curve_grid",
    "grid_prefix_sums",
    "replicate_chunk",
]

#: Every n up to this is on the grid (the released systems have N <= 1,000: all their n).
DEFAULT_DENSE = 1000
#: Sizes spread evenly over (dense, N] when N > dense.
DEFAULT_POINTS = 500
#: Draws per chunk (rows x N): about 32 MB per float64 working array.
DEFAULT_CHUNK_ELEMENTS = 4_000_000


def curve_grid(
    n_items: int, *, dense: int = DEFAULT_DENSE, points: int = DEFAULT_POINTS, de_range: Sequence[float] = (0.2, 0.9)
) -> np.ndarray:
    """Prefix sizes at which CI widths are computed: sorted, unique, 1-based, ending at N.

    Every n <= ``dense``; above it ``points`` sizes evenly spaced over (dense, N] (rounded
    to integers, so the mean of a smooth curve over the grid points inside a window
    approximates its mean over every n of that window), N itself, and the first and last n
    of the data-efficiency window [lo N, hi N] as :func:`debias.stats.checks.bootstrap.bootstrap_data_efficiency`
    delimits it. With N <= dense the grid is 1..N.
    """
    n_items = int(n_items)
    if n_items < 1:
        raise ValueError("n_items must be positive")
    if dense < 1 or points < 2:
        raise ValueError("dense must be >= 1 and points >= 2")
    if n_items <= dense:
        return np.arange(1, n_items + 1)
    spread = np.rint(np.linspace(dense, n_items, points + 1)[1:]).astype(np.int64)
    lo, hi = de_range
    eps = 1e-9 * n_items
    edges = [int(np.ceil(lo * n_items - eps)), int(np.floor(hi * n_items + eps))]
    edges = [e for e in edges if dense < e <= n_items]
    return np.unique(np.concatenate([np.arange(1, dense + 1), spread, edges, [n_items]]))


def _check_grid(grid: np.ndarray, n_items: int) -> np.ndarray:
    grid = np.asarray(grid, dtype=np.int64)
    if grid.ndim != 1 or grid.size == 0 or grid[0] < 1 or grid[-1] != n_items or np.any(np.diff(grid) <= 0):
        raise ValueError(f"grid must be strictly increasing sizes in [1, {n_items}] ending at {n_items}")
    return grid


def grid_prefix_sums(x: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Row sums of the first ``grid[j]`` columns of ``x``, for every j: shape (rows, len(grid)).

    The dense head of the grid (1, 2, ..., d) is a running sum, identical to
    ``np.cumsum(x, axis=1)[:, grid - 1]`` there; beyond it the segments between grid
    points are summed with ``np.add.reduceat`` and accumulated, which agrees with the
    running sum to rounding (a different order of additions).
    """
    grid = np.asarray(grid)
    head = int(np.sum(grid == np.arange(1, grid.size + 1)))  # the leading run 1..d (grid increases)
    if head == grid.size:
        return np.cumsum(x[:, : grid[-1]], axis=1)
    out = np.empty((x.shape[0], grid.size))
    if head:
        np.cumsum(x[:, :head], axis=1, out=out[:, :head])
    starts = np.concatenate([[head], grid[head:-1]]) - head
    tail = np.add.reduceat(x[:, head : grid[-1]], starts, axis=1)
    np.cumsum(tail, axis=1, out=out[:, head:])
    if head:
        out[:, head:] += out[:, head - 1 : head]
    return out


def replicate_chunk(n_items: int, n_replicates: int, elements: int = DEFAULT_CHUNK_ELEMENTS) -> int:
    """Replicates per chunk so that one chunk's draws hold about ``elements`` numbers."""
    return int(max(1, min(n_replicates, elements // max(int(n_items), 1))))
