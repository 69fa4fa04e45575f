r"""The contract every shape of data writes its statistics on.

A *shape* is one form evaluation data takes: ratings of outputs (a system's mean score) or
pairwise verdicts on battles (win rates, Bradley-Terry strengths). Each shape is three things:

1. a **data type** and its **read step**: :class:`~debias.io.reader.EvaluationTable` from
   :func:`debias.read_ratings`, :class:`~debias.data.JudgedPairs` from :func:`debias.read_pairs`;
2. a folder of :mod:`debias.stats` (``ratings/``, ``preferences/``) holding its kernels and an
   object satisfying :class:`Shape`: its estimands, the estimators it offers for given data and
   its estimates of every estimand by every estimator, each a :class:`JointEstimate`;
3. nothing else: whatever is written on :class:`JointEstimate` serves every shape at once.

What is written once, on :class:`JointEstimate`, for every shape: leaderboards with simultaneous
rank-sets (:func:`debias.tables.leaderboard.leaderboard_rows`,
:func:`debias.stats.common.ranking.rank_sets`), a question's anytime-valid status
(:func:`debias.stats.common.status.question_status`,
:mod:`debias.stats.common.sequential`), the estimators' vocabulary and labels
(:mod:`debias.stats.common.vocabulary`), the PPI++ weight rule
(:func:`debias.stats.common.ppi.power_tuned_weights`) and multiplicity adjustments.

Adding an estimator is its family in the vocabulary (:data:`debias.stats.common.vocabulary.FAMILIES`:
whom it asks, whether it is unbiased, its label) and one kernel per estimand of each shape it
applies to; kernels branch on the vocabulary's words (:class:`~debias.stats.common.vocabulary.EstimatorInfo`),
never on spellings. Adding a shape (multi-way rankings, say) is a data type with its read step,
and a folder of :mod:`debias.stats` with a :class:`Shape`; the shapes never import each other
and this folder imports no shape (tests/test_imports.py).

The same design as a ranking library's one result type and one method signature (every method
returns the same result, so that one bootstrap and one plotting routine serve them all), here
with the joint covariance in the result, so that simultaneous inference also serves them all.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from debias.stats.common.joint import JointEstimate
from debias.stats.common.vocabulary import SHAPES, describe

__all__ = ["JointEstimate", "Shape", "check_shape_estimates"]


@runtime_checkable
class Shape(Protocol):
    """What a shape of data provides to the shared statistics.

    Attributes
    ----------
    name : str
        One of :data:`debias.stats.common.vocabulary.SHAPES`.
    estimands : tuple of str
        What it estimates of each system (``("mean",)``; ``("win_rate", "strength")``).
    """

    name: str
    estimands: tuple[str, ...]

    def estimator_names(self, data: Any) -> list[str]:
        """The estimators this data supports, as the vocabulary writes them."""

    def estimates(self, data: Any, *, level: float) -> list[JointEstimate]:
        """Every estimand by every estimator of :meth:`estimator_names`, each a
        :class:`JointEstimate` of the systems, with the reason in ``notes`` where a system has
        no estimate."""


def check_shape_estimates(shape: Shape, estimates: Sequence[JointEstimate]) -> None:
    """Refuse results that break the contract: a result that is no :class:`JointEstimate`, an
    estimand the shape does not declare, an estimator of another shape, arrays that do not
    match the systems, or a covariance that is not square over them (a ``ValueError``)."""
    if shape.name not in SHAPES:
        raise ValueError(f"unknown shape {shape.name!r}; the shapes: {SHAPES}")
    for result in estimates:
        if not isinstance(result, JointEstimate):
            raise ValueError(f"{shape.name}: a result of type {type(result).__name__}, not a JointEstimate")
        if result.estimand not in shape.estimands:
            raise ValueError(f"{shape.name}: estimand {result.estimand!r} is not one of {shape.estimands}")
        if shape.name not in describe(result.estimator).family.shapes:
            raise ValueError(f"{shape.name}: estimator {result.estimator!r} belongs to another shape")
        s = len(result.systems)
        for field in ("estimate", "se", "ci_low", "ci_high", "n_judged"):
            if len(getattr(result, field)) != s:
                raise ValueError(f"{shape.name}: {result.estimator} {field} has not one value per system")
        if result.covariance.shape != (s, s) or len(result.notes) != s:
            raise ValueError(f"{shape.name}: {result.estimator} covariance or notes do not match its {s} systems")
