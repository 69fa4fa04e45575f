"""The sample-size planner: least cost against brute force, monotone in the target, the cost
and the variances; the upper bound raises the plan; the pilot check runs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from debias.stats.plan_check import check_target_width, plan_check_experiment
from debias.stats.planning import PlanComponents, pilot_components, plan_design, planned_width, upper_bound_components


def brute_force(components, target, level, cj, ci, k_max):
    best = None
    for k in range(1, k_max + 1):
        for n in range(components.fitted + 1, components.n_outputs + 1):
            width = planned_width(n, k, components, level)
            if width <= target:
                cost = n * (k * cj + ci)
                if best is None or (cost, k, n) < best[:3]:
                    best = (cost, k, n)
                break  # width decreases in n: the first n is the cheapest for this k
    return best


@pytest.mark.parametrize("item, noise, cj, ci", [(1.0, 0.5, 1, 0), (0.2, 2.0, 1, 5), (0.5, 1.0, 1, 20), (1, 0, 2, 1)])
def test_least_cost_matches_brute_force(item, noise, cj, ci):
    components = PlanComponents(item, noise, n_outputs=300)
    for target in (0.15, 0.25, 0.4):
        plan = plan_design(components, target, level=0.8, cost_per_judgment=cj, cost_per_item=ci, k_max=6)
        best = brute_force(components, target, 0.8, cj, ci, 6)
        assert (plan.cost, plan.k, plan.n) == best
        assert plan.width <= target


def test_monotone_and_trades_items_for_annotators():
    base = PlanComponents(0.3, 1.5, n_outputs=1000)
    ns = [plan_design(base, w).n for w in (0.1, 0.15, 0.2, 0.3)]
    assert ns == sorted(ns, reverse=True)  # a wider target never needs more items
    more_noise = PlanComponents(0.3, 3.0, n_outputs=1000)
    assert plan_design(more_noise, 0.15).n >= plan_design(base, 0.15).n
    # free judgments, costly items: several judgments per item become cheaper
    assert plan_design(base, 0.15, cost_per_judgment=1, cost_per_item=10).k > 1
    assert plan_design(base, 0.15, cost_per_judgment=1, cost_per_item=0).k == 1
    # unreachable: no design
    assert plan_design(PlanComponents(1.0, 1.0, n_outputs=20), 0.01).n == 0


def test_upper_bound_raises_the_plan_and_pilot_components():
    rng = np.random.default_rng(4)
    judgments = rng.normal(0, 1, (50, 1)) + rng.normal(0, 0.5, (50, 2))
    components, q = pilot_components(judgments, 500)
    assert q.mean() == pytest.approx(components.item + components.noise)
    upper = upper_bound_components(components, q, 0.8, rng=rng)
    assert upper.item > components.item and upper.noise > components.noise
    assert plan_design(upper, 0.3).n > plan_design(components, 0.3).n
    with pytest.raises(ValueError, match="target width"):
        plan_design(components, -1)


def test_plan_check_on_a_gaussian_world():
    # 200 pilots: Monte-Carlo s.e. of met about 0.03; tolerance 0.12 around the 0.8 assurance
    rng = np.random.default_rng(5)
    n = 600
    truth = rng.normal(0, 1, n)
    judgments = truth[:, None] + rng.normal(0, 0.7, (n, 3))
    metric = truth + rng.normal(0, 1, n)
    target = check_target_width(judgments, 150, 0.8)
    table = pd.DataFrame(
        plan_check_experiment(
            judgments,
            {"m": metric},
            target_width=target,
            n_pilots=200,
            pilot_size=50,
            level=0.8,
            assurance=0.8,
            rng=rng,
        )
    )
    assert list(table["estimator"]) == ["mean", "cv"]
    assert table["met"].between(0.68, 0.92).all(), table
    mean = table.set_index("estimator").loc["mean"]
    assert 120 < mean["median_planned_n"] < 220
