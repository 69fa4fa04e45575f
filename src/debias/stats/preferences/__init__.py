"""Pairwise preferences: win rates and Bradley-Terry strengths from human and judge verdicts.

The shape's public names, for the code above the statistics (tables, API, workflow): the
estimands and their joint estimates (:mod:`~debias.stats.preferences.estimands`), the judges'
agreement with people, Elo points, the head-to-head matrix, a question's status on battles and the
battles to judge next.
Each module is loaded on first use.
"""

from debias.stats.common.exports import lazy_exports

_HOMES = {
    "PREFERENCES": "shape",
    "JudgeAgreement": "agreement",
    "judge_agreement": "agreement",
    "rater_agreement": "agreement",
    "Allocation": "allocation",
    "next_battles": "allocation",
    "first_battles": "allocation",
    "Battles": "battles",
    "FEW_BATTLES": "battles",
    "preference_estimator_names": "battles",
    "HeadToHead": "matrix",
    "MAX_SYSTEMS": "matrix",
    "NO_BATTLES": "matrix",
    "head_to_head": "matrix",
    "strength_order": "matrix",
    "ELO_POINTS_PER_UNIT": "bradley_terry",
    "elo_points": "bradley_terry",
    "ESTIMANDS": "estimands",
    "data_efficiency": "estimands",
    "preference_estimates": "estimands",
    "StatusPath": "status",
    "contrast_times": "status",
    "default_estimator": "status",
    "first_votes": "status",
    "pairs_status": "status",
    "status_path": "status",
    "STYLE_COVARIATES": "style",
}
__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
