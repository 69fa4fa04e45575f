r"""The ratings' joint estimates: every estimator's mean human score of S systems at once.

The ratings enter the shared contract here: for one prompt, each estimator of
:mod:`debias.stats.ratings.estimators` gives a :class:`~debias.stats.common.joint.JointEstimate`
of the systems (estimand ``"mean"``), the covariance from the items the systems share
(:func:`debias.stats.common.joint.shared_item_covariance`). What the leaderboards rank and what a
question's status (:func:`debias.stats.common.status.question_status`) reads is this one result,
as it is for win rates and strengths.

PPI++ is ranked with the finite-population variance of its terms (``ppi++fpc``) on the
diagonal, the design of its covariances: its own interval, for infinitely many outputs, is wider.
The covariances carry the finite-population factor where the estimator's variance has it (when
the annotator noise is known).

Why a system has no estimate is decided here, once, and written in the result's notes: fewer
than :data:`MIN_ITEMS` judged items, judged items that all have the same mean score (nothing to
measure a spread from), or an estimator that needs outputs nobody judged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from debias.data import EvalSample
from debias.stats.common.clusters import few_clusters
from debias.stats.common.joint import JointEstimate, shared_item_covariance
from debias.stats.common.vocabulary import describe, estimator_name
from debias.stats.ratings.clustered import ClusterInfluence, cluster_influence, clustered_covariance
from debias.stats.ratings.estimate import estimate_with_terms
from debias.stats.ratings.estimators import estimator_names
from debias.stats.ratings.variance import item_noise

__all__ = [
    "MIN_ITEMS",
    "RatedSystem",
    "default_estimator",
    "few_items",
    "no_variation",
    "one_cluster",
    "ratings_estimates",
    "with_every_system",
]

#: The fewest judged items an interval is computed from.
MIN_ITEMS = 3


@dataclass(frozen=True, eq=False)
class RatedSystem:
    """One system's ratings on one prompt: its judged items and every output's metrics.

    ``sample`` is the :class:`~debias.data.EvalSample` (the judged items and the population's
    metric scores); ``items`` the judged items' names, aligned with ``sample.judgments``;
    ``outputs`` the names of all its outputs (judged or not), whose overlap with another
    system's is the finite population two systems share. ``clusters`` and ``output_clusters``
    (optional, aligned with ``items`` and ``outputs``) name the cluster of each (the document
    or question several items share) and are given to the sample
    (:meth:`debias.data.EvalSample.with_clusters`); without them the sample's own clusters, if
    any, are used, and otherwise every item is its own cluster."""

    system: str
    sample: EvalSample
    items: np.ndarray
    outputs: np.ndarray
    clusters: np.ndarray | None = None
    output_clusters: np.ndarray | None = None

    def __post_init__(self):
        if self.clusters is not None:  # the clusters belong to the sample: its intervals use them
            object.__setattr__(self, "sample", self.sample.with_clusters(self.clusters, self.output_clusters))


def few_items(n: int) -> str:
    """Why ``n`` judged items give no estimate (``""`` when they are enough)."""
    if n >= MIN_ITEMS:
        return ""
    return f"{n} judged items (fewer than {MIN_ITEMS}): no estimate"


def no_variation(item_means) -> str:
    """``"every judged item's mean score is V"`` when the judged items' mean scores are all one
    value V (nothing to measure a spread from), else ``""``."""
    means = np.asarray(item_means, dtype=float)
    return f"every judged item's mean score is {means[0]:g}" if means.size and np.all(means == means[0]) else ""


def one_cluster(sample: EvalSample) -> str:
    """``"its judged items all share one cluster"`` when the sample is clustered and its judged
    items fall in a single cluster (a clustered interval then has no degrees of freedom), else
    ``""``."""
    if not sample.clustered or np.unique(np.asarray(sample.clusters, dtype=str)).size >= 2:
        return ""
    return "its judged items all share one cluster"


def default_estimator(metrics) -> str:
    """The estimator a question's status uses unless told: the control variate of every metric
    (two or more), of the one metric, or the mean of the judgments without metrics."""
    metrics = list(metrics)
    if len(metrics) >= 2:
        return estimator_name("cv")
    if metrics:
        return estimator_name("cv", metrics[0])
    return estimator_name("mean")


def ratings_estimates(
    systems: Sequence[RatedSystem], *, level: float
) -> tuple[dict[str, JointEstimate], dict[str, str]]:
    """Every estimator's :class:`~debias.stats.common.joint.JointEstimate` of the systems of
    one prompt (module notes).

    Returns the joint estimates by estimator (each holding the systems that have that
    estimator's estimate), and for every system left out the reason: ``system -> note`` when it
    has no estimate at all, ``"system|estimator" -> note`` when only that estimator is missing.
    """
    notes: dict[str, str] = {}
    per_estimator: dict[str, list] = {}
    output_ids: dict[str, list] = {}
    for entry in systems:
        sample = entry.sample
        n = sample.judgments.n_items
        if few_items(n):
            notes[entry.system] = f"{few_items(n)}, not ranked"
            continue
        flat = no_variation(sample.judgments.item_means) or one_cluster(sample)
        if flat:
            notes[entry.system] = f"{flat}: no interval, not ranked"
            continue
        unjudged = sample.unjudged is not None and sample.unjudged.shape[0] > 0
        output_ids[entry.system] = list(dict.fromkeys(np.asarray(entry.outputs).astype(str).tolist()))
        ids = np.asarray(entry.items).astype(str)
        noise_known = item_noise(sample.judgments, None) is not None
        for name in estimator_names(sample.metrics, unjudged=unjudged):
            result, terms = estimate_with_terms(sample, name, level=level)
            variance = float(result.variance)
            info = describe(name)
            if sample.clustered:  # the clustered variance is the ranking's too
                terms = cluster_influence(sample, terms)
            elif info.family.family == "ppi++":  # ranked with its terms' finite-population variance
                fpc = estimator_name("ppi++fpc", info.proxy)
                variance = float(estimate_with_terms(sample, fpc, level=level)[0].variance)
            per_estimator.setdefault(name, []).append((entry.system, result, terms, ids, noise_known, variance))
    order = {system: k for k, system in enumerate(output_ids)}
    shared_outputs = None
    joint = {}
    for name, entries in per_estimator.items():
        names = tuple(e[0] for e in entries)
        influences = [e[2] for e in entries]
        n_clusters = effect = None
        if any(isinstance(x, ClusterInfluence) for x in influences):
            influences = [
                x if isinstance(x, ClusterInfluence) else _own_clusters(x, e) for x, e in zip(influences, entries)
            ]
            covariance, n_clusters, effect = clustered_covariance(influences)
        else:
            if shared_outputs is None:  # once: the outputs (inputs) every two systems share
                shared_outputs = _shared_outputs(output_ids)
            rows = [order[system] for system in names]
            finite = np.array([e[4] for e in entries])
            shared = np.where(np.outer(finite, finite), shared_outputs[np.ix_(rows, rows)], np.inf)
            covariance = shared_item_covariance(influences, [e[3] for e in entries], [e[5] for e in entries], shared)
        zeros = np.zeros(len(names), dtype=np.int64)
        joint[name] = JointEstimate(
            estimand="mean",
            estimator=name,
            systems=names,
            estimate=np.array([float(e[1].estimate) for e in entries]),
            covariance=covariance,
            se=np.array([float(e[1].se) for e in entries]),
            ci_low=np.array([float(e[1].ci_low) for e in entries]),
            ci_high=np.array([float(e[1].ci_high) for e in entries]),
            level=level,
            n_judged=np.array([e[1].n_judged for e in entries]),
            n_judge=zeros,
            n_missing=zeros,
            notes=("",) * len(names) if n_clusters is None else tuple(few_clusters(g) for g in n_clusters),
            weights=np.zeros(0),
            df=np.array([float(e[1].df) for e in entries]),
            n_clusters=n_clusters,
            design_effect=effect,
        )
        for entry in systems:
            if entry.system not in notes and entry.system not in names:
                notes[f"{entry.system}|{name}"] = f"no {name} estimate (it needs outputs nobody judged): not ranked"
    return joint, notes


def _shared_outputs(output_ids: dict) -> np.ndarray:
    """(S, S): the outputs (inputs) every two systems share, from each system's output names."""
    codes: dict[str, int] = {}
    coded = [[codes.setdefault(i, len(codes)) for i in ids] for ids in output_ids.values()]
    incidence = np.zeros((len(coded), len(codes)))
    for k, positions in enumerate(coded):
        incidence[k, positions] = 1.0
    return incidence @ incidence.T


def _own_clusters(terms, entry) -> ClusterInfluence:
    """The influence of an unclustered system's estimate beside clustered ones: its terms, each
    judged item its own cluster (named by the item, so that it meets other systems' items)."""
    terms = np.asarray(terms, dtype=float)
    return ClusterInfluence((terms - terms.mean()) / terms.size, np.zeros(0), entry[3], np.array([], dtype=str))


def with_every_system(
    joint: JointEstimate | None,
    systems: Sequence[str],
    notes: dict[str, str],
    *,
    estimator: str,
    level: float,
    n_judged: Sequence[int] | None = None,
) -> JointEstimate:
    """``joint`` (the systems with an estimate) widened to every system of ``systems``, in that
    order: a system without an estimate gets NaN, NaN rows and columns of the covariance, its
    judged items in ``n_judged`` and the reason from ``notes`` (:func:`ratings_estimates`)
    without the leaderboard's "not ranked"; what a question's status reads."""
    systems = tuple(systems)
    s = len(systems)
    counts = np.zeros(s, dtype=np.int64) if n_judged is None else np.asarray(n_judged, dtype=np.int64)
    estimate, se, low, high = (np.full(s, np.nan) for _ in range(4))
    covariance = np.full((s, s), np.nan)
    df = np.full(s, np.nan)
    text = []
    where = {name: k for k, name in enumerate(joint.systems)} if joint is not None else {}
    for system in systems:
        note = notes.get(system) or notes.get(f"{system}|{estimator}") or ("" if system in where else "no estimate")
        for suffix in (", not ranked", ": not ranked"):
            note = note.removesuffix(suffix)
        text.append(note)
    inside = [i for i, system in enumerate(systems) if system in where]
    clustered = joint is not None and joint.n_clusters is not None
    n_clusters = np.zeros(s, dtype=np.int64) if clustered else None
    effect = np.full(s, np.nan) if clustered else None
    if joint is not None and inside:
        k = [where[systems[i]] for i in inside]
        estimate[inside], se[inside] = joint.estimate[k], joint.se[k]
        low[inside], high[inside] = joint.ci_low[k], joint.ci_high[k]
        covariance[np.ix_(inside, inside)] = joint.covariance[np.ix_(k, k)]
        counts[inside] = np.asarray(joint.n_judged)[k]
        if joint.df is not None:
            df[inside] = np.asarray(joint.df, dtype=float)[k]
        if clustered:
            n_clusters[inside], effect[inside] = joint.n_clusters[k], joint.design_effect[k]
    zeros = np.zeros(s, dtype=np.int64)
    return JointEstimate(
        estimand="mean",
        estimator=estimator,
        systems=systems,
        estimate=estimate,
        covariance=covariance,
        se=se,
        ci_low=low,
        ci_high=high,
        level=level,
        n_judged=counts,
        n_judge=zeros,
        n_missing=zeros,
        notes=tuple(text),
        weights=np.zeros(0),
        df=df,
        n_clusters=n_clusters,
        design_effect=effect,
    )
