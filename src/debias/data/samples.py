"""An evaluation sample of one system, and a paired sample of two (see :mod:`debias.data`)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from debias.data.judgments import Judgments, as_judgments, finite_values

__all__ = ["EvalSample", "PairedSample"]


def _scores_2d(scores, rows: int | None, what: str) -> np.ndarray:
    array = np.asarray(scores, dtype=float)
    if array.ndim == 1:
        array = array[:, None]
    if array.ndim != 2 or (rows is not None and array.shape[0] != rows):
        expected = f"({rows}, M)" if rows is not None else "(N, M)"
        raise ValueError(f"{what} must have shape {expected}, got {array.shape}")
    return finite_values(array, what)


def _checked_clusters(clusters, population_clusters, n: int, n_outputs: int, n_metrics: int):
    """The clusters of n judged items and of N outputs as object arrays, checked: the judged
    items' are needed for the outputs', and the outputs' with metrics and outputs nobody judged
    (their metrics move the estimate too); without outputs beyond the judged items, the items'."""
    if clusters is not None:
        clusters = np.asarray(clusters).astype(str).reshape(-1)  # text: one label space for every sample
        if clusters.size != n:
            raise ValueError(f"{clusters.size} clusters for {n} judged items")
        if population_clusters is None:
            if n_metrics and n_outputs > n:
                raise ValueError(
                    "clusters of the judged items without the clusters of every output (population_clusters):"
                    " the metrics on the outputs nobody judged move the estimate too"
                )
            population_clusters = clusters if n_outputs == n else None
    if population_clusters is not None:
        if clusters is None:
            raise ValueError("population_clusters without the judged items' clusters")
        population_clusters = np.asarray(population_clusters).astype(str).reshape(-1)
        if population_clusters.size != n_outputs:
            raise ValueError(f"{population_clusters.size} clusters for {n_outputs} outputs")
    return clusters, population_clusters


def _shares(clusters, population_clusters) -> bool:
    """Whether some cluster holds two judged items or two outputs."""
    if clusters is None:
        return False
    labels = [clusters] + ([] if population_clusters is None else [population_clusters])
    return any(np.unique(x).size < len(x) for x in labels)


@dataclass(frozen=True, eq=False)
class EvalSample:
    """One evaluation of one system on one prompt: the judged items and every output's metrics.

    Attributes
    ----------
    judgments : Judgments
        The n judged items.
    scores : numpy.ndarray, shape (n, M)
        The metrics on the judged items, in the order of ``judgments``.
    population : numpy.ndarray, shape (N, M)
        The metrics on all N outputs of the system, judged or not (N >= n). With no metric
        (M = 0) only its number of rows, N, matters.
    metrics : tuple of str
        Metric names, the columns of ``scores`` and ``population``.
    unjudged : numpy.ndarray, shape (N - n, M)
        The rows of ``population`` nobody judged (what PPI++ calls the unlabelled data).
    clusters : numpy.ndarray of str, shape (n,), optional
        The cluster of each judged item (the document or question several items share).
    population_clusters : numpy.ndarray of str, shape (N,), optional
        The cluster of each output of ``population``; needed with ``clusters`` when there are
        metrics and outputs nobody judged, and otherwise ``clusters``. When some cluster holds
        two outputs, the intervals are cluster-robust (:attr:`clustered`,
        :mod:`debias.stats.ratings.clustered`).

    Notes
    -----
    One convention for the population everywhere: ``population`` holds every output, the
    judged ones included. :meth:`from_arrays` builds it from the judged items' scores and the
    unjudged outputs' scores when that is what a caller has.
    """

    judgments: Judgments
    scores: np.ndarray
    population: np.ndarray
    metrics: tuple[str, ...] = ()
    unjudged: np.ndarray | None = None
    clusters: np.ndarray | None = None
    population_clusters: np.ndarray | None = None

    def __post_init__(self):
        n = self.judgments.n_items
        scores = _scores_2d(self.scores, n, "scores")
        population = _scores_2d(self.population, None, "population scores")
        if population.shape[1] != scores.shape[1]:
            raise ValueError(f"population has {population.shape[1]} metrics, scores {scores.shape[1]}")
        if population.shape[0] < n:
            raise ValueError(f"the population has {population.shape[0]} outputs, fewer than the {n} judged items")
        metrics = tuple(self.metrics) or tuple(f"m{j}" for j in range(scores.shape[1]))
        if len(metrics) != scores.shape[1]:
            raise ValueError(f"{len(metrics)} metric names for {scores.shape[1]} score columns")
        if len(set(metrics)) != len(metrics):
            raise ValueError(f"metric names must be distinct, got {list(metrics)}")
        unjudged = self.unjudged
        if unjudged is not None:
            unjudged = _scores_2d(unjudged, population.shape[0] - n, "unjudged scores")
        clusters, population_clusters = _checked_clusters(
            self.clusters, self.population_clusters, n, population.shape[0], scores.shape[1]
        )
        object.__setattr__(self, "clusters", clusters)
        object.__setattr__(self, "population_clusters", population_clusters)
        object.__setattr__(self, "scores", scores)
        object.__setattr__(self, "population", population)
        object.__setattr__(self, "metrics", metrics)
        object.__setattr__(self, "unjudged", unjudged)

    @cached_property
    def clustered(self) -> bool:
        """Whether some cluster holds two judged items or two outputs: only then are the
        intervals cluster-robust."""
        return _shares(self.clusters, self.population_clusters)

    def with_clusters(self, clusters, population_clusters=None) -> EvalSample:
        """The same sample with the clusters of its judged items and outputs."""
        return EvalSample(
            self.judgments, self.scores, self.population, self.metrics, self.unjudged, clusters, population_clusters
        )

    @classmethod
    def from_arrays(
        cls,
        judgments,
        scores=None,
        *,
        all_scores=None,
        unjudged_scores=None,
        n_outputs=None,
        metrics=(),
        clusters=None,
        unjudged_clusters=None,
    ) -> EvalSample:
        """From arrays: ``judgments`` a :class:`Judgments`, lists per item or a NaN-padded matrix.

        The population is given by exactly one of ``all_scores`` (every output's scores, judged
        included), ``unjudged_scores`` (the outputs nobody judged) or, without metrics,
        ``n_outputs`` (default: only the judged items). ``clusters`` names the judged items'
        clusters, ``unjudged_clusters`` those of the outputs of ``unjudged_scores``.
        """
        if not isinstance(judgments, Judgments):
            if isinstance(judgments, np.ndarray) or (
                len(judgments) and not isinstance(judgments[0], list | tuple | np.ndarray)
            ):
                judgments = Judgments.from_padded(judgments)
            else:
                judgments = Judgments.from_lists(judgments)
        n = judgments.n_items
        given = sum(x is not None for x in (all_scores, unjudged_scores, n_outputs))
        if given > 1:
            raise ValueError("give the population once: all_scores, unjudged_scores or n_outputs")
        if scores is None:
            if all_scores is not None or unjudged_scores is not None:
                raise ValueError("population scores without the judged items' scores")
            total = n if n_outputs is None else int(n_outputs)
            if total < n:
                raise ValueError(f"n_outputs ({total}) is smaller than the number of judged items ({n})")
            return cls(judgments, np.zeros((n, 0)), np.zeros((total, 0)), (), None, clusters)
        scores = _scores_2d(scores, n, "scores")
        unjudged = None
        if all_scores is not None:
            population = _scores_2d(all_scores, None, "all_scores")
        elif unjudged_scores is not None:
            unjudged = _scores_2d(unjudged_scores, None, "unjudged_scores")
            population = np.concatenate([scores, unjudged])
        else:
            population = scores
            unjudged = np.zeros((0, scores.shape[1]))
        population_clusters = None
        if clusters is not None and unjudged_clusters is not None:
            judged_clusters = np.asarray(clusters, dtype=object)
            population_clusters = np.concatenate([judged_clusters, np.asarray(unjudged_clusters, dtype=object)])
        return cls(judgments, scores, population, tuple(metrics), unjudged, clusters, population_clusters)

    @property
    def n_judged(self) -> int:
        return self.judgments.n_items

    @property
    def n_outputs(self) -> int:
        return int(self.population.shape[0])

    @cached_property
    def metric_mean(self) -> np.ndarray:
        """Each metric's mean over all N outputs."""
        return self.population.mean(axis=0)

    @cached_property
    def metric_var(self) -> np.ndarray:
        """Each metric's variance (ddof 0) over all N outputs."""
        return self.population.var(axis=0)

    @cached_property
    def metric_cov(self) -> np.ndarray:
        """The metrics' covariance matrix (ddof 0) over all N outputs, (M, M)."""
        if not self.metrics:
            return np.zeros((0, 0))
        return np.atleast_2d(np.cov(self.population.T, ddof=0))


@dataclass(frozen=True, eq=False)
class PairedSample:
    """Two systems' judged items that both share, aligned by item id.

    Attributes
    ----------
    judgments_a, judgments_b : Judgments
        Judgments of the n items judged for both systems, same item order (anything
        :func:`debias.data.as_judgments` takes, e.g. NaN-padded arrays).
    same_judgment : numpy.ndarray of bool, shape (n,)
        True where both lines name the same ``judged_output`` (one judgment stands for both).
    scores_a, scores_b : numpy.ndarray, shape (n, M)
        The metrics on those items.
    all_a, all_b : numpy.ndarray, shape (N, M)
        The metrics on all N outputs both systems have (judged or not).
    metrics : tuple of str
        Metric names, the columns of the score arrays.
    clusters : numpy.ndarray of str, shape (n,), optional
        The cluster of each shared judged item (the document several items share).
    population_clusters : numpy.ndarray of str, shape (N,), optional
        The cluster of each shared output (the rows of ``all_a`` and ``all_b``); needed with
        ``clusters`` when there are metrics and shared outputs nobody judged. When a cluster
        holds two items, the difference's interval is cluster-robust (:attr:`clustered`).
    """

    judgments_a: Judgments
    judgments_b: Judgments
    same_judgment: np.ndarray
    scores_a: np.ndarray
    scores_b: np.ndarray
    all_a: np.ndarray
    all_b: np.ndarray
    metrics: tuple[str, ...]
    clusters: np.ndarray | None = None
    population_clusters: np.ndarray | None = None

    def __post_init__(self):
        a, b = as_judgments(self.judgments_a), as_judgments(self.judgments_b)
        if a.n_items != b.n_items:
            raise ValueError(f"both systems must have the same judged items ({a.n_items} and {b.n_items})")
        object.__setattr__(self, "judgments_a", a)
        object.__setattr__(self, "judgments_b", b)
        object.__setattr__(self, "same_judgment", np.asarray(self.same_judgment, dtype=bool).reshape(a.n_items))
        for name in ("scores_a", "scores_b"):
            object.__setattr__(self, name, _scores_2d(getattr(self, name), a.n_items, name))
        for name in ("all_a", "all_b"):
            object.__setattr__(self, name, _scores_2d(getattr(self, name), None, name))
        object.__setattr__(self, "metrics", tuple(self.metrics))
        clusters, population_clusters = _checked_clusters(
            self.clusters, self.population_clusters, a.n_items, self.all_a.shape[0], self.all_a.shape[1]
        )
        object.__setattr__(self, "clusters", clusters)
        object.__setattr__(self, "population_clusters", population_clusters)

    @cached_property
    def clustered(self) -> bool:
        """Whether some cluster holds two shared judged items or two shared outputs."""
        return _shares(self.clusters, self.population_clusters)

    @classmethod
    def from_samples(cls, a: EvalSample, b: EvalSample, same_judgment=None) -> PairedSample:
        """Pair two samples of the same inputs: their judged items and outputs must be aligned."""
        if a.metrics != b.metrics:
            raise ValueError(f"the samples have different metrics: {a.metrics} and {b.metrics}")
        if a.n_judged != b.n_judged or a.n_outputs != b.n_outputs:
            raise ValueError("the samples must judge the same items of the same outputs")
        same = np.zeros(a.n_judged, bool) if same_judgment is None else np.asarray(same_judgment, bool)
        return cls(
            a.judgments, b.judgments, same, a.scores, b.scores, a.population, b.population, a.metrics, a.clusters,
            a.population_clusters,
        )  # fmt: skip

    @property
    def n_shared(self) -> int:
        return self.judgments_a.n_items

    @property
    def n_outputs(self) -> int:
        return int(self.all_a.shape[0])

    @property
    def differences(self) -> np.ndarray:
        """Per-item difference of the mean judgments, B - A."""
        return self.judgments_b.item_means - self.judgments_a.item_means
