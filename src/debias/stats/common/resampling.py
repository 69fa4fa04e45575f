"""Every random draw of the project: seeds derived from names and the samplers.

Two designs, each drawn in one place:

- the bootstrap (:func:`draw_resamples`, :func:`iter_resamples` in chunks): N items drawn with
  replacement per replicate, one judgment of each drawn item uniformly;
- sampling without replacement (:func:`draw_samples`): a random order of the N items per repeat,
  whose first n items are a sample of n, and one judgment of each uniformly; for two systems
  judged on the same items, :func:`draw_paired_samples`.

Judgments are a :class:`debias.data.Judgments` (or anything :func:`debias.data.as_judgments`
accepts); only their counts decide the draws.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Iterator

import numpy as np

from debias.data import as_judgments

__all__ = ["draw_paired_samples", "draw_resamples", "draw_samples", "iter_resamples", "repeat_chunks", "setting_seed"]


def setting_seed(base_seed: int, *names: str) -> int:
    """Seed for one experimental setting, derived from its names with SHA-256.

    Hashing the names (rather than drawing seeds in sequence, or using
    Python's salted ``hash()``) makes a setting's random numbers independent
    of which other settings run and in what order, and identical across
    processes and machines. The result fits in 63 bits.
    """
    payload = json.dumps(
        [int(base_seed), *[str(name) for name in names]],
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode("utf-8")
    return int.from_bytes(hashlib.sha256(payload).digest()[:8], "big") >> 1


def draw_resamples(k, n_replicates: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Draw the bootstrap: ``items`` (B, N) with replacement and one judgment column per draw.

    ``cols[b, j]`` is uniform over the ``k[items[b, j]]`` judgments of the
    drawn item. Kept separate from the estimators so that every condition and
    metric is evaluated on the same draws (common random numbers), which
    makes their width ratios far less noisy than independent bootstraps.
    """
    k = np.asarray(k, dtype=np.int64)
    if k.ndim != 1 or k.size == 0 or np.any(k < 1):
        raise ValueError("k must be a non-empty 1-D array of positive judgment counts")
    if n_replicates < 1:
        raise ValueError("n_replicates must be positive")
    items = rng.integers(0, k.size, size=(n_replicates, k.size))
    cols = rng.integers(0, k[items])
    return items, cols


def iter_resamples(
    k, n_replicates: int, rng: np.random.Generator, chunk: int
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The draws of :func:`debias.stats.common.resampling.draw_resamples`, ``chunk`` replicates at a time.

    ``draw_resamples`` takes all B x N items from ``rng`` and then one judgment column per
    draw. To yield the same numbers in chunks, a copy of the generator draws the items in
    order while ``rng`` itself first skips past them (drawing and discarding them chunk by
    chunk) and then draws the columns; numpy's bounded integers give the same stream
    whether drawn in one call or in consecutive row blocks. ``rng`` ends in the state
    ``draw_resamples`` would leave it in.
    """
    k = np.asarray(k, dtype=np.int64)
    if k.ndim != 1 or k.size == 0 or np.any(k < 1):
        raise ValueError("k must be a non-empty 1-D array of positive judgment counts")
    if n_replicates < 1 or chunk < 1:
        raise ValueError("n_replicates and chunk must be positive")
    n_items = k.size
    sizes = [min(chunk, n_replicates - start) for start in range(0, n_replicates, chunk)]
    if len(sizes) == 1:
        items = rng.integers(0, n_items, size=(n_replicates, n_items))
        yield items, rng.integers(0, k[items])
        return
    item_rng = copy.deepcopy(rng)
    for rows in sizes:
        rng.integers(0, n_items, size=(rows, n_items))
    for rows in sizes:
        items = item_rng.integers(0, n_items, size=(rows, n_items))
        yield items, rng.integers(0, k[items])


def draw_samples(judgments, n_repeats: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Random orders of the items and one judgment of each: ``(items, values)``, both (R, N).

    ``items[r]`` is a uniformly random permutation of the N items; the first n of them are a
    sample of n drawn without replacement. ``values[r, j]`` is one judgment of item
    ``items[r, j]`` drawn uniformly among its judgments.
    """
    judgments = as_judgments(judgments)
    k = judgments.counts
    if n_repeats < 1:
        raise ValueError("n_repeats must be positive")
    items = rng.permuted(np.tile(np.arange(k.size), (n_repeats, 1)), axis=1)
    cols = rng.integers(0, k[items])
    return items, judgments.judgment(items, cols)


def draw_paired_samples(k_a, k_b, same, n_repeats: int, rng: np.random.Generator):
    """The paired design and its independent counterpart, all (R, N).

    ``items`` is a random order of the N shared items per repeat, ``col_a``/``col_b`` one judgment
    of each drawn item for system A and B (the same one where ``same``: both lines share one
    judgment); ``items_ind``/``col_ind`` an independent second order and judgment for system A,
    the design that judges other items for A than for B. Returns
    ``(items, col_a, col_b, items_ind, col_ind)``.
    """
    k_a, k_b = np.asarray(k_a), np.asarray(k_b)
    order = np.tile(np.arange(k_a.size), (n_repeats, 1))
    items = rng.permuted(order, axis=1)
    col_a = rng.integers(0, k_a[items])
    col_b = np.where(np.asarray(same)[items], col_a, rng.integers(0, k_b[items]))
    items_ind = rng.permuted(order, axis=1)
    col_ind = rng.integers(0, k_a[items_ind])
    return items, col_a, col_b, items_ind, col_ind


def repeat_chunks(n_repeats: int, bytes_per_repeat: float, memory_mb: float | None) -> list[int]:
    """Repeats per chunk so that one chunk's arrays stay within ``memory_mb`` (``None``: one chunk).

    A single chunk draws exactly what one call for all the repeats draws; more chunks draw
    chunk after chunk from the same generator (another random stream, the same distribution).
    """
    if memory_mb is None:
        return [n_repeats]
    size = max(1, int(memory_mb * 2**20 // max(bytes_per_repeat, 1.0)))
    return [min(size, n_repeats - start) for start in range(0, n_repeats, size)]
