"""Throughput of the vectorised bootstrap against a per-replicate Python loop.

Run: .venv/bin/python benchmarks/bench_bootstrap.py

Unit of work: one "replicate-prefix estimate" is the value of one estimator on
the first n draws of one bootstrap replicate. A condition curve (e.g. ``cv``
for one metric) holds B * N of them; a call of ``bootstrap_ci_widths`` with M
metrics computes 2 + 2 M curves (mean, perfect, and cv + noiseless per metric).
Both timings include drawing/gathering data and the percentile step.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from debias.bootstrap import bootstrap_ci_widths, draw_resamples, judgment_counts
from debias.control_variates import control_variates_estimate
from debias.experiment import system_experiment
from debias.inputs import load_task

REPO = Path(__file__).resolve().parent.parent


def synthetic_prompt(rng: np.random.Generator, n_items: int, n_metrics: int):
    """Items with 2-3 Likert-like judgments and metrics of varying correlation."""
    f = rng.normal(2.0, 0.5, n_items)
    k = rng.integers(2, 4, n_items)
    judgments = np.full((n_items, 3), np.nan)
    noise = rng.normal(0.0, 0.5, (n_items, 3))
    for j in range(3):
        judgments[j < k, j] = np.clip(np.round(f + noise[:, j]), 1, 3)[j < k]
    rhos = np.linspace(0.1, 0.5, n_metrics)
    z = (f - f.mean()) / f.std()
    metrics = np.stack([r * z + np.sqrt(1 - r**2) * rng.standard_normal(n_items) for r in rhos])
    return judgments, metrics


def best_of(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def loop_cv_curve(judgments, metric, items, cols, level=0.8):
    """The straightforward way: loop over replicates and prefixes, Algorithm 1 each time."""
    n_rep, n_items = items.shape
    y = judgments[items, cols]
    g = metric[items]
    g_mean, g_var = metric.mean(), metric.var()
    est = np.empty((n_rep, n_items))
    for b in range(n_rep):
        for n in range(1, n_items + 1):
            est[b, n - 1] = control_variates_estimate(y[b, :n], g[b, :n], g_mean, g_var)[0]
    lower, upper = np.quantile(est, [(1 - level) / 2, (1 + level) / 2], axis=0)
    return upper - lower


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=500)
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--metrics", type=int, default=5)
    parser.add_argument("--prompts", type=int, default=4)
    parser.add_argument("--loop-replicates", type=int, default=20, help="replicates timed for the loop, then scaled")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    n_items, n_rep, n_metrics = args.items, args.replicates, args.metrics

    rng = np.random.default_rng(0)
    judgments, metrics = synthetic_prompt(rng, n_items, n_metrics)
    per_curve = n_rep * n_items
    print(f"N = {n_items} items, B = {n_rep} replicates, M = {n_metrics} metrics")
    print(f"one condition curve = B*N = {per_curve:,} replicate-prefix estimates")

    # (a) vectorised kernel, a full call: 2 + 2M curves.
    curves = 2 + 2 * n_metrics
    t_vec = best_of(
        lambda: bootstrap_ci_widths(judgments, metrics, n_replicates=n_rep, rng=np.random.default_rng(1)),
        args.repeats,
    )
    vec_rate = curves * per_curve / t_vec
    print(
        f"(a) vectorised bootstrap_ci_widths, all {curves} curves (mean, perfect, cv x{n_metrics}, "
        f"noiseless x{n_metrics}): {t_vec:.3f} s (best of {args.repeats}) "
        f"-> {vec_rate:,.0f} estimates/s ({t_vec / curves * 1e3:.1f} ms per curve)"
    )

    # (b) loop over replicates for one cv curve, on a subset of replicates, then scaled.
    items, cols = draw_resamples(judgment_counts(judgments), args.loop_replicates, np.random.default_rng(2))
    start = time.perf_counter()
    loop_cv_curve(judgments, metrics[0], items, cols)
    t_sub = time.perf_counter() - start
    loop_rate = args.loop_replicates * n_items / t_sub
    t_loop_curve = per_curve / loop_rate
    print(
        f"(b) Python loop over replicates x prefixes with control_variates_estimate, one cv curve: "
        f"timed {args.loop_replicates} of {n_rep} replicates in {t_sub:.2f} s "
        f"-> {loop_rate:,.0f} estimates/s; scaled to B = {n_rep}: {t_loop_curve:.1f} s per curve"
    )

    # (c) ratio of per-estimate throughputs.
    print(f"(c) speed-up (vectorised / loop, estimates per second): {vec_rate / loop_rate:,.0f}x")

    # Whole per-system run: several prompts, all conditions, all metrics.
    prompts = [synthetic_prompt(rng, n_items, n_metrics) for _ in range(args.prompts)]

    def system_run():
        for p, (jud, met) in enumerate(prompts):
            bootstrap_ci_widths(jud, met, n_replicates=n_rep, rng=np.random.default_rng(100 + p))

    t_sys = best_of(system_run, args.repeats)
    loop_equiv = args.prompts * curves * t_loop_curve
    print(
        f"whole per-system run ({args.prompts} prompts x {n_metrics} metrics, all conditions, "
        f"B = {n_rep}, N = {n_items}): {t_sys:.2f} s (the loop would need ~{loop_equiv / 60:.0f} min)"
    )

    whole_stage()


def whole_stage() -> None:
    """The pipeline's whole bootstrap stage on the real data, in one process on one core:
    every configured task x system x prompt x metric x condition (scores from results/)."""
    config = yaml.safe_load((REPO / "config/config.yaml").read_text())
    config["data_dir"] = str(REPO / config["data_dir"])
    results = REPO / config["results_dir"]
    settings = config["bootstrap"]
    work = []
    for task, spec in config["tasks"].items():
        _, systems = load_task(config, task, list(spec["systems"]))
        for system, items in systems.items():
            scores_path = results / "metrics" / task / f"{system}.csv"
            if not scores_path.exists():
                print(f"whole bootstrap stage: skipped, {scores_path} missing (run the workflow first)")
                return
            work.append((task, system, items, pd.read_csv(scores_path, dtype={"id": str}), list(spec["prompts"])))
    start = time.perf_counter()
    curves = 0
    for task, system, items, scores, prompts in work:
        frame, _ = system_experiment(
            items,
            scores,
            task=task,
            system=system,
            prompts=prompts,
            metrics=list(config["metrics"]),
            replicates=settings["replicates"],
            seed=settings["seed"],
        )
        curves += frame.groupby(["prompt", "metric", "condition"]).ngroups
    elapsed = time.perf_counter() - start
    print(
        f"whole bootstrap stage, real data, one process: {len(work)} systems, {curves} curves, "
        f"B = {settings['replicates']}: {elapsed:.1f} s (target < 20 s)"
    )


if __name__ == "__main__":
    main()
