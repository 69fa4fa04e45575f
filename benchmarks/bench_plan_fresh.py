"""The planner in the fresh-rater world: how often plans meet their width, against the assurance.

Prints, with binomial Monte-Carlo standard errors:

1. ``paper``: per task x prompt of the released data, the share of the fresh-rater check's
   pilots (``plan_check.csv``, ``world`` = fresh; 200 pilots per system, 4 systems) whose plan
   met its width, beside the resampled check's; target >= assurance - 0.05.
2. ``synthetic``: a one-rater and a three-rater task (Likert 1-5 judgments, low rater
   agreement; 96 and 500 items), the fresh-rater check with ``--pilots`` pilots at the default
   costs and with items costing ten judgments (plans with k > 1).
3. ``gaussian``: a Gaussian task (2,000 items, 2 raters, item and rater variance 1) with five
   metrics of correlation 0.41-0.67 with the items' true scores, where ``cv`` plans with the
   pilot's best metric: the fresh-rater and the resampled check with ``--pilots`` pilots of 50
   items, beside the same checks with the best metric alone; and the median planned n over the
   n a planner knowing the world's variances plans (the oracle; for ``cv``, with the world's
   best metric).
4. ``example``: the issue's case, a 96-item three-rater pilot with low rater agreement planned
   for full widths 0.2-0.3 at the default costs, in the resampled world (the planner before) and
   in the fresh one (now), each plan's width with fresh raters in the world fitted to it.

    python benchmarks/bench_plan_fresh.py [--results results] [--pilots 1000] [paper|synthetic|gaussian|example ...]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from debias.data import Judgments
from debias.stats.checks.plan_check import (
    check_target_width,
    fit_fresh_world,
    fresh_check_experiment,
    plan_check_experiment,
    world_components,
)
from debias.stats.ratings.planning import pilot_components, plan_design, planned_width
from debias.tables.joined import judged_rows, metric_columns, read_joined

ASSURANCE = 0.8
N_ITEMS = (96, 500)
#: The Gaussian task's metrics: correlations with the items' true scores.
GAUSSIAN_RHO = (0.41, 0.475, 0.54, 0.605, 0.67)


def paper(results: Path) -> None:
    check = pd.read_csv(results / "tables" / "plan_check.csv").dropna(subset=["met"])
    print("== released data: met per task x prompt (4 systems x 200 pilots), assurance 0.8, target >= 0.75")
    rows = []
    for (task, prompt, world, estimator), group in check.groupby(["task", "prompt", "world", "estimator"], sort=False):
        pilots = group["pilots"].sum()
        met = float((group["met"] * group["pilots"]).sum() / pilots)
        se = float(np.sqrt((group["met"] * (1 - group["met"]) * group["pilots"]).sum()) / pilots)
        rows.append((task, prompt, world, estimator, met, se, group["met"].min(), group["median_planned_k"].max()))
    table = pd.DataFrame(rows, columns=["task", "prompt", "world", "estimator", "met", "se", "lowest_cell", "max_k"])
    print(table.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    fresh = table[table["world"] == "fresh"]
    print(
        f"  fresh: lowest task x prompt {fresh['met'].min():.3f}; all >= 0.75: {bool((fresh['met'] >= 0.75).all())}; "
        f"mean over cells {check[check['world'] == 'fresh']['met'].mean():.3f}"
    )
    if (results / "joined").is_dir():
        oracle_ratios(results, check[check["world"] == "fresh"])


def oracle_ratios(results: Path, fresh: pd.DataFrame) -> None:
    """Per fresh-rater row, the median planned n over the n planned from the fitted world's own
    components (for ``cv``, with the world's best metric; default costs, k <= 5)."""
    ratios = {"mean": [], "cv": []}
    for (task, system), rows in fresh.groupby(["task", "system"], sort=False):
        joined = read_joined(results / "joined" / task / f"{system}.csv")
        for _, row in rows.iterrows():
            judged = judged_rows(joined, row["prompt"])
            world = fit_fresh_world(Judgments.from_joined(judged))
            truths = [world.components()]
            if row["estimator"] == "cv":
                names = [m for m in metric_columns(judged) if judged[m].std() > 0]
                truths = [world.components(judged[m].to_numpy(dtype=float)) for m in names]
            oracle = min(
                plan_design(truth, row["target_width"], level=0.8, k_max=5).n or row["n_items"] for truth in truths
            )
            ratios[row["estimator"]].append(row["median_planned_n"] / oracle)
    for estimator, values in ratios.items():
        print(
            f"  fresh, {estimator}: median planned n / oracle n, median over {len(values)} cells "
            f"{np.median(values):.3f} (range {np.min(values):.3f}-{np.max(values):.3f})"
        )


def likert_task(rng: np.random.Generator, n_items: int, raters: int, item_sd: float, rater_sd: float):
    """Judgments on 1-5 (rounded, clipped) around item qualities, and a metric correlated about
    0.5 with the quality."""
    quality = rng.normal(3.2, item_sd, n_items)
    judgments = np.clip(np.round(quality[:, None] + rng.normal(0, rater_sd, (n_items, raters))), 1, 5)
    metric = quality + rng.normal(0, 1.5 * item_sd, n_items)
    return judgments, metric


def synthetic(pilots: int) -> None:
    print(f"== synthetic tasks, fresh-rater check, {pilots} pilots of 50 items, assurance 0.8, target >= 0.75")
    for n_items in N_ITEMS:
        for raters in (1, 3):
            rng = np.random.default_rng(1000 * n_items + raters)
            judgments, metric = likert_task(rng, n_items, raters, item_sd=0.5, rater_sd=0.9)
            sigma2_a = 0.9**2 if raters == 1 else None  # a one-rater task states its rater variance
            for cost_per_item in (0.0, 10.0):
                start = time.process_time()
                rows = fresh_check_experiment(
                    judgments,
                    {"metric": metric},
                    target_n=150,
                    n_pilots=pilots,
                    pilot_size=50,
                    level=0.8,
                    assurance=ASSURANCE,
                    rng=np.random.default_rng(rng.integers(2**63)),
                    annotator_variance=sigma2_a,
                    cost_per_item=cost_per_item,
                )
                seconds = time.process_time() - start
                for r in rows:
                    print(
                        f"  {n_items} items x {raters} rater(s), item cost {cost_per_item:g}, {r['estimator']}: "
                        f"met {r['met']:.3f} (s.e. {r['met_se']:.3f}), median plan {r['median_planned_n']:.0f} x "
                        f"{r['median_planned_k']:.0f}, median width/target {r['median_ratio']:.3f}"
                        + (f"; {r['note']}" if r["note"] else "")
                    )
                print(f"    ({seconds:.1f} s CPU for both estimators)")


def gaussian_task(rng: np.random.Generator, n_items: int = 2000, raters: int = 2):
    """Judgments (true score N(0, 1) plus rater noise N(0, 1)) and metrics of correlation
    :data:`GAUSSIAN_RHO` with the true score (independent errors)."""
    truth = rng.normal(0.0, 1.0, n_items)
    judgments = truth[:, None] + rng.normal(0.0, 1.0, (n_items, raters))
    z = (truth - truth.mean()) / truth.std()
    metrics = {
        f"metric{j + 1}": rho * z + np.sqrt(1 - rho**2) * rng.normal(0.0, 1.0, n_items)
        for j, rho in enumerate(GAUSSIAN_RHO)
    }
    return judgments, metrics


def gaussian(pilots: int) -> None:
    print(
        f"== Gaussian task, 2000 items x 2 raters, metrics of correlation {GAUSSIAN_RHO[0]}-{GAUSSIAN_RHO[-1]}: "
        f"{pilots} pilots of 50 items, assurance 0.8, target >= 0.75"
    )
    rng = np.random.default_rng(2000)
    values, metrics = gaussian_task(rng)
    judgments = Judgments.from_padded(values)
    world = fit_fresh_world(judgments)
    best = list(metrics)[-1]
    for label, chosen in (("5 metrics", metrics), ("the best metric alone", {best: metrics[best]})):
        seed = int(rng.integers(2**63))
        start = time.process_time()
        fresh = fresh_check_experiment(
            judgments,
            chosen,
            target_n=150,
            n_pilots=pilots,
            pilot_size=50,
            level=0.8,
            assurance=ASSURANCE,
            rng=np.random.default_rng(seed),
        )
        seconds = time.process_time() - start
        target = fresh[0]["target_width"]
        resampled = plan_check_experiment(
            judgments,
            chosen,
            target_width=check_target_width(judgments, 150, 0.8),
            n_pilots=pilots,
            pilot_size=50,
            level=0.8,
            assurance=ASSURANCE,
            rng=np.random.default_rng(seed + 1),
        )
        for r in fresh + resampled:
            truth = world.components(None if r["estimator"] == "mean" else metrics[best])
            if r["world"] == "fresh":
                oracle = plan_design(truth, target, level=0.8, k_max=5)
                oracle_n, oracle_k = oracle.n, oracle.k
            else:
                truth = world_components(judgments, None if r["estimator"] == "mean" else metrics[best])
                oracle_n, oracle_k = plan_design(truth, r["target_width"], level=0.8, k_max=1).n, 1
            print(
                f"  {label}, {r['world']}, {r['estimator']}: met {r['met']:.3f} (s.e. {r['met_se']:.3f}), median plan "
                f"{r['median_planned_n']:.0f} x {r['median_planned_k']:.0f}, oracle {oracle_n} x {oracle_k}, "
                f"median n / oracle n {r['median_planned_n'] / oracle_n:.3f}"
            )
        print(f"    ({seconds:.1f} s CPU for the fresh-rater check, both estimators)")


def example() -> None:
    print("== a 96-item, 3-rater pilot (low agreement), default costs, no bound: plan widths with fresh raters")
    rng = np.random.default_rng(26)
    judgments, _ = likert_task(rng, 96, 3, item_sd=0.45, rater_sd=1.0)
    pilot = Judgments.from_padded(judgments)
    truth = fit_fresh_world(pilot).components()
    for target in (0.2, 0.25, 0.3):
        for world in ("resampled", "fresh"):
            components, _ = pilot_components(pilot, 96, world=world)
            plan = plan_design(components, target, level=0.8, k_max=5)
            fresh = float(planned_width(plan.n, plan.k, truth, 0.8)) if plan.n else float("nan")
            print(
                f"  full width {target}: planned in the {world} world (sigma2_item {components.item:.4f}, sigma2_a "
                f"{components.noise:.4f}): {plan.n} x {plan.k}, planned width {plan.width:.4f}, "
                f"width with fresh raters {fresh:.4f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="*", default=["paper", "synthetic", "gaussian", "example"])
    parser.add_argument("--results", type=Path, default=Path("results"))
    parser.add_argument("--pilots", type=int, default=1000)
    args = parser.parse_args()
    for part in args.parts:
        parts = {
            "paper": lambda: paper(args.results),
            "synthetic": lambda: synthetic(args.pilots),
            "gaussian": lambda: gaussian(args.pilots),
            "example": example,
        }
        parts[part]()


if __name__ == "__main__":
    main()
