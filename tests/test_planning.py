"""The sample-size planner: least cost against brute force, monotone in the target, the cost
and the variances; the upper bound raises the plan; the pilot check runs."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from debias.stats.plan_bound import bound_factor, upper_bound_components
from debias.stats.plan_check import check_target_width, fit_fresh_world, fresh_check_experiment, plan_check_experiment
from debias.stats.planning import (
    PlanComponents,
    component_arrays,
    pilot_components,
    plan_design,
    plan_sizes,
    planned_width,
)
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


def test_fresh_components_are_unbiased_and_the_resampled_ones_are_not():
    # 3 raters, sigma_f^2 = 1, sigma_a^2 = 0.49: averaged over 200 pilots of 50 items
    rng = np.random.default_rng(11)
    truth = rng.normal(0, 1, (200, 50))
    y = truth[..., None] + rng.normal(0, 0.7, (200, 50, 3))
    item, noise, q, _, _, _ = component_arrays(y.mean(-1), y.var(-1), 3)
    assert noise.mean() == pytest.approx(0.49, abs=0.01)  # s.e. about 0.002
    assert item.mean() == pytest.approx(1.0, abs=0.04)  # s.e. about 0.015
    old_item, old_noise = component_arrays(y.mean(-1), y.var(-1), 3, world="resampled")[:2]
    assert old_noise.mean() == pytest.approx(0.49 * 2 / 3, abs=0.01)  # ddof 0: a third too small
    assert old_item.mean() == pytest.approx(1.0 + 0.49 / 3, abs=0.04)
    # same total variance of one judgment in both worlds, k = 3 throughout
    assert np.allclose(item + noise, old_item + old_noise)
    assert np.allclose(q.mean(-1), item + noise)
    # the scalar form agrees with the array form
    components, _ = pilot_components(y[0], 500)
    assert (components.item, components.noise) == pytest.approx((item[0], noise[0]))


def test_a_negative_items_variance_is_floored_with_its_reason():
    # items that hardly differ, rated by noisy raters: the unbiased items' variance is below 0
    rng = np.random.default_rng(2)
    y = 3.0 + rng.normal(0, 1.0, (30, 3))
    y[:, 0] += np.linspace(-0.01, 0.01, 30)
    components, _ = pilot_components(y, 300)
    raw = np.var(y.mean(1), ddof=1) - np.mean(np.var(y, axis=1, ddof=1)) / 3
    if raw < 0:
        assert components.item == 0.0 and "floored at 0" in components.note
    assert components.noise == pytest.approx(np.mean(np.var(y, axis=1, ddof=1)))


def test_plan_sizes_is_plan_design_for_every_pilot():
    rng = np.random.default_rng(8)
    item, noise = rng.uniform(0, 1, 40), rng.uniform(0, 2, 40)
    shape = PlanComponents(0.0, 0.0, n_outputs=400)
    n, k, cost, width = plan_sizes(item, noise, shape, 0.25, level=0.8, cost_per_item=3.0, k_max=4)
    for i in range(40):
        one = plan_design(PlanComponents(item[i], noise[i], 400), 0.25, level=0.8, cost_per_item=3.0, k_max=4)
        assert (n[i], k[i]) == (one.n, one.k)
        assert (cost[i], width[i]) == pytest.approx((one.cost, one.width), nan_ok=True)


def test_bound_factor_is_per_pilot():
    rng = np.random.default_rng(9)
    q = rng.gamma(1.0, 1.0, (6, 50))
    q[2] = 1.0  # a pilot whose contributions do not vary: no bound
    factor, fallback = bound_factor(q, 0.8, rng=rng)
    assert factor.shape == (6,) and not fallback.any()
    assert factor[2] == 1.0 and np.all(np.delete(factor, 2) > 1.0)
    # each pilot alone gives about the same factor (other bootstrap draws)
    alone = [float(bound_factor(q[i], 0.8, rng=np.random.default_rng(i))[0]) for i in range(6)]
    assert np.allclose(factor, alone, rtol=0.05)


@pytest.mark.parametrize("raters", [1, 3])
def test_fresh_check_meets_its_assurance_on_gaussian_worlds(raters):
    # 300 pilots: s.e. of met about 0.023; the target is assurance - 0.05 = 0.75
    rng = np.random.default_rng(raters)
    n = 600
    truth = rng.normal(0, 1, n)
    judgments = truth[:, None] + rng.normal(0, 0.8, (n, raters))
    metric = truth + rng.normal(0, 1, n)
    rows = fresh_check_experiment(
        judgments,
        {"m": metric},
        n_pilots=300,
        pilot_size=50,
        level=0.8,
        assurance=0.8,
        rng=rng,
        annotator_variance=0.64 if raters == 1 else None,
        cost_per_item=10.0,
    )
    assert [(r["estimator"], r["world"]) for r in rows] == [("mean", "fresh"), ("cv", "fresh")]
    assert all(r["met"] >= 0.75 for r in rows), rows
    assert all(r["met"] <= 0.97 for r in rows), rows  # and is not bought by planning far too much
    # an item costs ten judgments: the planner buys more than one judgment per item
    assert rows[0]["median_planned_k"] > 1


def test_fresh_world_fit():
    rng = np.random.default_rng(12)
    truth = rng.normal(0, 1, 2000)
    judgments = truth[:, None] + rng.normal(0, 0.7, (2000, 3))
    world = fit_fresh_world(judgments)
    assert world.noise == pytest.approx(0.49, rel=0.05)
    assert np.var(world.truth, ddof=1) == pytest.approx(1.0, rel=0.08)
    assert np.mean(world.residuals**2) == pytest.approx(world.noise)
    assert world.judgments_per_item == 3 and not world.items_only
    one = fit_fresh_world(judgments[:, :1])
    assert one.items_only and one.noise == 0.0 and one.judgments_per_item == 1
    given = fit_fresh_world(judgments[:, :1], annotator_variance=0.49)
    assert not given.items_only and given.residuals.size == 0
    assert np.var(given.truth, ddof=1) == pytest.approx(np.var(judgments[:, 0], ddof=1) - 0.49)


def test_each_k_gets_its_own_bound():
    rng = np.random.default_rng(13)
    y = rng.normal(0, 1, (40, 1)) + rng.normal(0, 0.8, (40, 3))
    components, q1 = pilot_components(y, 400)
    _, qk = pilot_components(y, 400, k_max=4)
    assert qk.shape == (4, 40) and np.array_equal(qk[0], q1)
    # row k estimates the variance of an item's mean of k judgments: S^2 + sigma_a^2 / k
    assert qk.mean(axis=1) == pytest.approx([components.item + components.noise / k for k in (1, 2, 3, 4)])
    bound = upper_bound_components(components, qk, 0.8, rng=np.random.default_rng(0))
    assert len(bound.k_factors) == 4 and bound.k_factors[0] == 1.0
    # the items' part is less certain than the total: larger k, relatively larger bound
    assert bound.k_factors[3] > 1.0
    assert planned_width(100, 4, bound, 0.8) > planned_width(100, 4, replace(bound, k_factors=()), 0.8)
    assert planned_width(100, 1, bound, 0.8) == planned_width(100, 1, replace(bound, k_factors=()), 0.8)
