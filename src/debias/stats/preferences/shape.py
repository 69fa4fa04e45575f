"""Pairwise verdicts as a :class:`~debias.stats.common.contract.Shape`: win rates and
Bradley-Terry strengths of the systems from battles (:class:`~debias.data.JudgedPairs`)."""

from __future__ import annotations

from debias.data import JudgedPairs
from debias.stats.common.joint import JointEstimate
from debias.stats.preferences.battles import preference_estimator_names
from debias.stats.preferences.estimands import ESTIMANDS, preference_estimates

__all__ = ["PREFERENCES", "PreferencesShape"]


class PreferencesShape:
    """Pairwise verdicts: the estimands of :data:`~debias.stats.preferences.estimands.ESTIMANDS`;
    ``human``, ``judge:<j>`` and ``ppi++:<j>`` per judge, ``ppi++:combined`` with two or more."""

    name = "preferences"
    estimands = tuple(ESTIMANDS)

    def estimator_names(self, data: JudgedPairs) -> list[str]:
        return preference_estimator_names(data.judges)

    def estimates(self, data: JudgedPairs, *, level: float, ties: str = "half") -> list[JointEstimate]:
        return preference_estimates(data, level=level, ties=ties)


#: The pairwise verdicts' shape.
PREFERENCES = PreferencesShape()
