"""The sample-size planner: least cost against brute force, monotone in the target, the cost
and the variances; the upper bound raises the plan; the pilot check runs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from debias.stats.plan_bound import upper_bound_components
from debias.stats.plan_check import check_target_width, plan_check_experiment
from debias.stats.planning import PlanComponents, pilot_components, plan_design, planned_width
from debias.tables.plans import plan_check_table, plan_table

#: The intervals' nominal coverage in these checks.
LEVEL = 0.8


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
    ns = [plan_design(base, w, level=LEVEL).n for w in (0.1, 0.15, 0.2, 0.3)]
    assert ns == sorted(ns, reverse=True)  # a wider target never needs more items
    more_noise = PlanComponents(0.3, 3.0, n_outputs=1000)
    assert plan_design(more_noise, 0.15, level=LEVEL).n >= plan_design(base, 0.15, level=LEVEL).n
    # free judgments, costly items: several judgments per item become cheaper
    assert plan_design(base, 0.15, cost_per_judgment=1, cost_per_item=10, level=LEVEL).k > 1
    assert plan_design(base, 0.15, cost_per_judgment=1, cost_per_item=0, level=LEVEL).k == 1
    # unreachable: no design
    assert plan_design(PlanComponents(1.0, 1.0, n_outputs=20), 0.01, level=LEVEL).n == 0


def test_upper_bound_raises_the_plan_and_pilot_components():
    rng = np.random.default_rng(4)
    judgments = rng.normal(0, 1, (50, 1)) + rng.normal(0, 0.5, (50, 2))
    components, q = pilot_components(judgments, 500)
    assert q.mean() == pytest.approx(components.item + components.noise)
    upper = upper_bound_components(components, q, 0.8, rng=rng)
    assert upper.item > components.item and upper.noise > components.noise
    assert plan_design(upper, 0.3, level=LEVEL).n > plan_design(components, 0.3, level=LEVEL).n
    with pytest.raises(ValueError, match="target width"):
        plan_design(components, -1, level=LEVEL)


def test_plan_check_on_a_gaussian_world():
    # 200 pilots: Monte-Carlo s.e. of met about 0.03; tolerance 0.12 around the 0.8 assurance
    rng = np.random.default_rng(5)
    n = 600
    truth = rng.normal(0, 1, n)
    judgments = truth[:, None] + rng.normal(0, 0.7, (n, 3))
    metric = truth + rng.normal(0, 1, n)
    target = check_target_width(judgments, 150, 0.8)
    table = plan_check_experiment(
        judgments,
        {"m": metric},
        target_width=target,
        n_pilots=200,
        pilot_size=50,
        level=0.8,
        assurance=0.8,
        rng=rng,
    )
    assert [row["estimator"] for row in table] == ["mean", "cv"]
    assert all(0.68 <= row["met"] <= 0.92 for row in table), table
    assert 120 < table[0]["median_planned_n"] < 220
    assert all(row["note"] == "" for row in table)


def heavy_tailed_world(rng, n=520):
    """Item means like CNN/DM ml's Edit: log-normal with 6% zeros, one item 15 times the mean."""
    truth = np.exp(rng.normal(np.log(0.14), 1.05, n)) * (rng.random(n) > 0.06)
    truth[0] = 0.0
    truth[0] = 15 * truth.sum() / (n - 15)
    judgments = np.maximum(truth[:, None] + rng.normal(0, 0.12, (n, 2)), 0.0)
    return judgments, -truth + rng.normal(0, 0.4, n)


def test_plan_check_on_a_heavy_tailed_world():
    # 300 pilots: s.e. of met about 0.025; without the tail factor this world's met is about 0.6
    rng = np.random.default_rng(0)
    judgments, metric = heavy_tailed_world(rng)
    f = judgments.mean(axis=1)
    assert 12 < f.max() / f.mean() < 18
    target = check_target_width(judgments, 150, 0.8)
    table = plan_check_experiment(
        judgments, {"m": metric}, target_width=target, n_pilots=300, pilot_size=50, level=0.8, assurance=0.8, rng=rng
    )
    assert all(row["met"] >= 0.65 for row in table), table


def test_the_tail_factor_leaves_light_pilots_alone_and_raises_heavy_ones():
    rng = np.random.default_rng(1)
    light = rng.normal(0, 1, (50, 2))
    components, q = pilot_components(light, 500)
    assert q.max() / q.mean() < 2 * np.log(50)
    heavy = light.copy()
    heavy[0] += 12.0
    bounds = []
    for judgments in (light, heavy):
        components, q = pilot_components(judgments, 500)
        bound = upper_bound_components(components, q, 0.8, rng=np.random.default_rng(2))
        bounds.append((bound.item + bound.noise) / q.mean())
    assert bounds[1] > bounds[0] * 1.2


def cell(judgment_lists, *, system="s", prompt="p", metric=None, outputs=None):
    """One system's joined table for one prompt (judged rows first, then unjudged outputs)."""
    rows = []
    for i, values in enumerate(judgment_lists):
        rows.append(
            {"id": f"{i:04d}", "n_judgments": len(values), "judgments": "[" + ", ".join(map(str, values)) + "]"}
        )
    for i in range(len(judgment_lists), outputs or len(judgment_lists)):
        rows.append({"id": f"{i:04d}", "n_judgments": 0, "judgments": ""})
    frame = pd.DataFrame(rows)
    frame.insert(0, "task", "t")
    frame.insert(1, "system", system)
    frame["prompt"] = prompt
    frame["judged_output"] = ""
    frame["mean_judgment"] = [np.mean(v) if v else np.nan for v in judgment_lists] + [np.nan] * (
        len(frame) - len(judgment_lists)
    )
    frame["m"] = np.arange(len(frame), dtype=float) if metric is None else metric
    return frame


def plan_spec(**changes):
    spec = {
        "target_widths": [],
        "auto_n": [100, 200],
        "level": 0.8,
        "seed": 1,
        "assurance": 0.8,
        "cost_per_judgment": 1.0,
        "cost_per_item": 0.0,
        "max_judgments_per_item": 5,
        "annotator_variance": None,
        "scales": {"t": {"p": (1, 5)}},
        "check": {"pilots": 20, "pilot_size": 10, "n": 30},
    }
    return {**spec, **changes}


def run_both(frame, spec):
    plans = plan_table([frame], {"t": ["p"]}, ["m"], spec)
    checks = plan_check_table([frame], {"t": ["p"]}, ["m"], spec)
    return plans, checks


def test_all_judgments_equal_assumes_the_scale_and_says_so():
    plans, checks = run_both(cell([[5, 5, 5]] * 40, outputs=300), plan_spec())
    assert len(plans) and (plans["n"] > 0).all() and np.isfinite(plans["planned_width"]).all()
    assert plans["note"].str.contains("cannot bound the variance").all()
    assert plans["note"].str.contains(r"\[1, 5\], 4").all()
    assert plans["sigma2_item"].eq(4.0).all()
    assert len(checks) == 1 and "do not vary" in checks["note"].iloc[0]
    # without a bounded scale there is no plan, and the row says why
    plans, _ = run_both(cell([[5, 5, 5]] * 40, outputs=300), plan_spec(scales={}))
    assert (plans["n"] == 0).all() and plans["note"].str.contains("no plan").all()


def test_one_judgment_per_item_plans_items_only_unless_the_variance_is_given():
    rng = np.random.default_rng(3)
    lists = [[float(v)] for v in rng.integers(1, 6, 60)]
    plans, checks = run_both(cell(lists, outputs=400), plan_spec())
    assert (plans["k"] == 1).all() and (plans["n"] > 0).all()
    assert plans["sigma2_a"].isna().all() and plans["note"].str.contains("planned items only").all()
    assert checks["met"].notna().all()
    plans, _ = run_both(cell(lists, outputs=400), plan_spec(annotator_variance=1.0, cost_per_item=5.0))
    assert plans["sigma2_a"].eq(1.0).all() and plans["note"].str.contains("from the configuration").all()
    assert (plans["k"] > 1).any()  # a known annotator variance lets a costly item earn more judgments


@pytest.mark.parametrize("judged", [2, 3])
def test_two_or_three_judged_items_give_a_stated_plan(judged):
    plans, checks = run_both(cell([[1, 2], [4, 5], [3, 3]][:judged], outputs=judged), plan_spec())
    assert len(plans) >= 1 and plans["note"].str.contains(f"{judged} judged items").all()
    assert len(checks) == 1 and "no plan check" in checks["note"].iloc[0]


def test_a_ceiling_bound_prompt_never_raises():
    rng = np.random.default_rng(4)
    lists = [[5.0 if rng.random() < 0.97 else float(rng.integers(1, 5)) for _ in range(3)] for _ in range(100)]
    lists[:3] = [[5.0, 5.0, 4.0], [5.0, 5.0, 5.0], [5.0, 5.0, 5.0]]
    spec = plan_spec(check={"pilots": 50, "pilot_size": 10, "n": 60})
    plans, checks = run_both(cell(lists, outputs=100, metric=rng.normal(size=100)), spec)
    assert (plans["sigma2_item"] + plans["sigma2_a"].fillna(0) <= 4.0 + 1e-12).all()
    assert np.isfinite(plans["planned_width"]).all() and (plans["n"] > 0).all()
    assert checks["met"].between(0, 1).all()
    # the 10-item pilots are often all at the ceiling: the check says how many assumed the scale
    assert checks["note"].str.contains("pilots: ").any()
