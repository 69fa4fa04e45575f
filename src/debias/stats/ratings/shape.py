"""The ratings as a :class:`~debias.stats.common.contract.Shape`: the systems' mean scores on one
prompt, from their :class:`~debias.stats.ratings.joint.RatedSystem` (judged items, metrics)."""

from __future__ import annotations

from collections.abc import Sequence

from debias.stats.common.joint import JointEstimate
from debias.stats.ratings.estimators import estimator_names
from debias.stats.ratings.joint import RatedSystem, ratings_estimates, with_every_system

__all__ = ["RATINGS", "RatingsShape"]


class RatingsShape:
    """Ratings: one estimand, ``mean``; the estimators of the systems' metrics (``mean``,
    ``cv:<metric>``, ``cv:combined``, ``ppi++:<metric>`` when some outputs are unjudged)."""

    name = "ratings"
    estimands = ("mean",)

    def estimator_names(self, data: Sequence[RatedSystem]) -> list[str]:
        names: dict[str, None] = {}
        for entry in data:
            sample = entry.sample
            unjudged = sample.unjudged is not None and sample.unjudged.shape[0] > 0
            names.update(dict.fromkeys(estimator_names(sample.metrics, unjudged=unjudged)))
        return list(names)

    def estimates(self, data: Sequence[RatedSystem], *, level: float) -> list[JointEstimate]:
        """Every estimator's joint estimate of every system (a system without it: NaN and its
        reason), as :func:`debias.stats.ratings.joint.ratings_estimates` computes them."""
        joint, notes = ratings_estimates(data, level=level)
        systems = [entry.system for entry in data]
        counts = [entry.sample.judgments.n_items for entry in data]
        return [
            with_every_system(joint.get(name), systems, notes, estimator=name, level=level, n_judged=counts)
            for name in self.estimator_names(data)
        ]


#: The ratings' shape.
RATINGS = RatingsShape()
