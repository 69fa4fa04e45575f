"""Ratings: a system's mean human score from its judged outputs and automatic metrics.

The shape's public names, for the code above the statistics (tables, API, workflow): the
estimators of :mod:`~debias.stats.ratings.estimators` behind one registry, their estimates on an
:class:`~debias.data.EvalSample` (:mod:`~debias.stats.ratings.estimate`), the systems' joint
estimates (:mod:`~debias.stats.ratings.joint`), paired differences, variance components, the
metrics' correlation with people, the planner and the paper's theory. Each module is loaded on
first use.
"""

from debias.stats.common.exports import lazy_exports

_HOMES = {
    "RATINGS": "shape",
    "attenuation_corrected_correlation": "metric_correlation",
    "best_metric": "metric_correlation",
    "correlation": "metric_correlation",
    "estimate_all": "estimate",
    "estimate_mean": "estimate",
    "estimate_with_terms": "estimate",
    "REGISTRY": "estimators",
    "estimator_names": "estimators",
    "resolve_estimator": "estimators",
    "paired_difference_estimates": "paired",
    "upper_bound_components": "plan_bound",
    "DesignPlan": "planning",
    "ClusterComponents": "planning",
    "ClusterPlan": "planning",
    "cluster_components": "planning",
    "plan_clusters": "planning",
    "candidate_contributions": "planning",
    "pilot_components": "planning",
    "plan_design": "planning",
    "planned_width": "planning",
    "theory_by_condition": "theory",
    "theory_data_efficiency": "theory",
    "theory_variance": "theory",
    "MIN_ITEMS": "joint",
    "RatedSystem": "joint",
    "default_estimator": "joint",
    "OutputAllocation": "allocation",
    "next_outputs": "allocation",
    "few_items": "joint",
    "no_variation": "joint",
    "one_cluster": "joint",
    "ratings_estimates": "joint",
    "with_every_system": "joint",
    "item_noise": "variance",
    "resampling_components": "variance",
    "variance_components": "variance",
}
__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
