"""Judgments of items, stored flat: the data model's first type (see :mod:`debias.data`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

__all__ = ["Judgments", "as_judgments", "finite_values"]


def finite_values(values: np.ndarray, what: str) -> np.ndarray:
    """``values`` as floats, refusing NaN, infinity and numbers whose squares overflow."""
    values = np.asarray(values, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):
        square_ok = np.isfinite(values * values) if values.size else np.ones(0, bool)
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{what} must be finite numbers (found {values[~np.isfinite(values)][:3].tolist()})")
    if not np.all(square_ok):
        raise ValueError(f"{what} must be smaller than 1e154 in magnitude so that their squares are finite")
    return values


@dataclass(frozen=True, eq=False)
class Judgments:
    r"""The judgments of n items, item after item.

    Attributes
    ----------
    values : numpy.ndarray, shape (total,)
        Every judgment, item 0's first, then item 1's, ...
    counts : numpy.ndarray of int, shape (n,)
        Judgments :math:`k_i \ge 1` of each item, in the order of ``values``.
    ids : tuple of str, optional
        Item ids (``None``: unnamed).

    Notes
    -----
    The derived quantities are computed once, on first use: :attr:`item_means`
    :math:`\bar y_i`, :attr:`within_spread` (the ddof-0 spread :math:`\frac1{k_i}\sum_j (y_{ij}
    - \bar y_i)^2`, what one uniformly drawn judgment of item i varies by) and
    :attr:`offsets` (where each item's judgments start).
    """

    values: np.ndarray
    counts: np.ndarray
    ids: tuple[str, ...] | None = field(default=None)

    def __post_init__(self):
        values = finite_values(self.values, "judgments")
        counts = np.asarray(self.counts, dtype=np.int64)
        if values.ndim != 1 or counts.ndim != 1:
            raise ValueError("values and counts must be one-dimensional")
        if np.any(counts < 1):
            bad = np.flatnonzero(counts < 1)[:10].tolist()
            raise ValueError(f"every item needs at least one judgment; items without: {bad}")
        if int(counts.sum()) != values.size:
            raise ValueError(f"counts add up to {int(counts.sum())} but there are {values.size} judgments")
        if self.ids is not None and len(self.ids) != counts.size:
            raise ValueError(f"{len(self.ids)} ids for {counts.size} items")
        values.setflags(write=False)
        counts.setflags(write=False)
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "counts", counts)
        if self.ids is not None:
            object.__setattr__(self, "ids", tuple(str(i) for i in self.ids))

    # Constructors ---------------------------------------------------------------------------

    @classmethod
    def from_lists(cls, lists: Sequence[Sequence[float]], ids: Sequence[str] | None = None) -> Judgments:
        """From one list of judgments per item, e.g. ``[[4, 5], [3], [5, 5, 4]]``.

        Examples
        --------
        >>> j = Judgments.from_lists([[4, 5], [3]], ids=["a", "b"])
        >>> j.ids, j.counts.tolist(), j.item_means.tolist()
        (('a', 'b'), [2, 1], [4.5, 3.0])
        """
        lists = [np.asarray(v, dtype=float).ravel() for v in lists]
        counts = np.array([v.size for v in lists], dtype=np.int64)
        values = np.concatenate(lists) if lists else np.zeros(0)
        return cls(values, counts, None if ids is None else tuple(ids))

    @classmethod
    def from_padded(cls, matrix, ids: Sequence[str] | None = None) -> Judgments:
        """From an (n, K) array holding each item's judgments first and NaN after them."""
        matrix = np.asarray(matrix, dtype=float)
        if matrix.ndim == 1:
            matrix = matrix[:, None]
        if matrix.ndim != 2:
            raise ValueError(f"judgments must be an (n, K) array, got shape {matrix.shape}")
        present = ~np.isnan(matrix)
        counts = present.sum(axis=1)
        expected = np.arange(matrix.shape[1]) < counts[:, None]
        if not np.array_equal(present, expected):
            bad = np.flatnonzero(np.any(present != expected, axis=1))[:10].tolist()
            raise ValueError(f"judgments must be NaN-padded at the end of each row; bad rows {bad}")
        return cls(matrix[present], counts, None if ids is None else tuple(ids))

    @classmethod
    def from_joined(cls, rows) -> Judgments:
        """From rows of a joined table (:mod:`debias.tables.joined`): its ``judgments`` column holds
        each output's judgments, as numbers (a list or an array: a table built in memory) or as a
        JSON list (text: a table read from its file); this is the one reader of that column."""
        lists = [(json.loads(cell) if cell else []) if isinstance(cell, str) else cell for cell in rows["judgments"]]
        return cls.from_lists(lists, ids=[str(i) for i in rows["id"]])

    # Derived quantities ---------------------------------------------------------------------

    @property
    def n_items(self) -> int:
        return int(self.counts.size)

    def __len__(self) -> int:
        return self.n_items

    @cached_property
    def offsets(self) -> np.ndarray:
        """Where each item's judgments start in :attr:`values` (length n + 1)."""
        return np.concatenate([[0], np.cumsum(self.counts)]).astype(np.int64)

    @cached_property
    def item_index(self) -> np.ndarray:
        """For each judgment in :attr:`values`, the item it belongs to."""
        return np.repeat(np.arange(self.n_items), self.counts)

    @cached_property
    def item_means(self) -> np.ndarray:
        r"""Each item's mean judgment :math:`\bar y_i` (the one home of this computation)."""
        if self.n_items == 0:
            return np.zeros(0)
        return np.add.reduceat(self.values, self.offsets[:-1]) / self.counts

    @cached_property
    def within_spread(self) -> np.ndarray:
        r"""Each item's ddof-0 spread :math:`\frac1{k_i}\sum_j (y_{ij} - \bar y_i)^2` (0 for one judgment)."""
        if self.n_items == 0:
            return np.zeros(0)
        deviations = self.values - self.item_means[self.item_index]
        return np.add.reduceat(deviations * deviations, self.offsets[:-1]) / self.counts

    @property
    def multiply_judged(self) -> np.ndarray:
        """Mask of the items judged at least twice (the only ones that show annotator variance)."""
        return self.counts >= 2

    def take(self, index) -> Judgments:
        """The items at ``index`` (integer positions or a boolean mask), in that order."""
        index = np.asarray(index)
        if index.dtype == bool:
            index = np.flatnonzero(index)
        starts, counts = self.offsets[index], self.counts[index]
        flat = np.repeat(starts - np.concatenate([[0], np.cumsum(counts)[:-1]]), counts) + np.arange(counts.sum())
        ids = None if self.ids is None else tuple(self.ids[i] for i in index)
        return Judgments(self.values[flat.astype(np.int64)], counts, ids)

    def judgment(self, items, columns) -> np.ndarray:
        """Judgment ``columns[...]`` (0-based, below the item's count) of ``items[...]``, elementwise."""
        return self.values[self.offsets[items] + columns]

    def lists(self) -> list[list[float]]:
        """One list of judgments per item."""
        return [self.values[a:b].tolist() for a, b in zip(self.offsets[:-1], self.offsets[1:])]

    def padded(self) -> np.ndarray:
        """As an (n, K) array, NaN after each item's judgments (K = the largest count): for small data only."""
        width = int(self.counts.max()) if self.n_items else 1
        matrix = np.full((self.n_items, width), np.nan)
        matrix[self.item_index, np.arange(self.values.size) - self.offsets[self.item_index]] = self.values
        return matrix


def as_judgments(judgments) -> Judgments:
    """A :class:`Judgments` from itself, a NaN-padded (n, K) array, an (n,) array (one judgment
    per item) or one list of judgments per item."""
    if isinstance(judgments, Judgments):
        return judgments
    if isinstance(judgments, np.ndarray):
        return Judgments.from_padded(judgments)
    judgments = list(judgments)
    if judgments and all(np.ndim(v) == 0 for v in judgments):
        return Judgments.from_padded(np.asarray(judgments, dtype=float))
    return Judgments.from_lists(judgments)
