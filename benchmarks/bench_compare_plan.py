"""The issue's target numbers for paired comparisons, the planner and the debias command.

Reads the workflow's tables (run `snakemake --cores 2` first) and the joined tables, and prints:
the saving of pairing over independent samples at n = 150 (expected and measured by
resampling), how much of it the metric adds, the coverage of the difference's interval, the
planner's `met` against its assurance, and the time the `debias` commands take on released files.

    python benchmarks/bench_compare_plan.py [--results results]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from debias.stats.checks.paired_coverage import expected_de_vs_independent
from debias.tables.comparisons import paired_sample
from debias.tables.joined import read_joined

TARGET_PAIRS = [
    ("snet.single", "snet.ensemble", 1.5),
    ("fastqa", "fastqa_ext", 1.5),
    ("fastqa_ext", "snet.single", 1.25),
]


def savings(tables: Path, results: Path, config: dict) -> None:
    comparisons = pd.read_csv(tables / "system_comparisons.csv", dtype={"system_a": str, "system_b": str})
    coverage = pd.read_csv(tables / "comparison_coverage.csv", dtype={"system_a": str, "system_b": str})
    metrics = list(config["metrics"])
    print("== de_vs_independent at n = 150, MS MARCO AnyCorrect (expected | measured by resampling, 2000 repeats)")
    for a, b, target in TARGET_PAIRS:
        rows = comparisons[(comparisons["prompt"] == "any_correct")]
        pair = rows[
            ((rows["system_a"] == a) & (rows["system_b"] == b)) | ((rows["system_a"] == b) & (rows["system_b"] == a))
        ]
        cvs = pair[pair["estimator"].str.startswith("cv:")]
        mean = float(pair.loc[pair["estimator"] == "mean", "de_vs_independent"].iloc[0])
        best = cvs.loc[cvs["de_vs_independent"].idxmax()]
        measured = coverage[(coverage["prompt"] == "any_correct") & (coverage["n"] == 150)]
        measured = measured[measured["system_a"].isin([a, b]) & measured["system_b"].isin([a, b])].set_index(
            "estimator"
        )
        frames = [read_joined(results / "joined/msmarco" / f"{s}.csv") for s in (a, b)]
        independent_judgments = replace(
            paired_sample(*frames, "any_correct", metrics), same_judgment=np.zeros(500, bool)
        )
        no_sharing = expected_de_vs_independent(independent_judgments, 150)["mean"]
        print(
            f"  {a} vs {b}: mean {mean:.3f} | {measured.loc['mean', 'de_vs_independent']:.3f}; best cv "
            f"{best['estimator']} {best['de_vs_independent']:.3f} | "
            f"{measured.loc[best['estimator'], 'de_vs_independent']:.3f}"
            f" (metric adds {best['de_vs_independent'] / mean - 1:+.1%}); target >= {target}; "
            f"mean if a shared output's judgment counted as two independent ones: {no_sharing:.3f}"
        )
    gaps = []
    for _, pair in comparisons.groupby(["task", "prompt", "system_a", "system_b"]):
        mean = pair.loc[pair["estimator"] == "mean", "de_vs_independent"].iloc[0]
        gaps.append(pair.loc[pair["estimator"].str.startswith("cv:"), "de_vs_independent"].max() - mean)
    print(f"  best cv - mean over all {len(gaps)} pairs: min {min(gaps):+.4f}, max {max(gaps):+.4f} (target >= -0.01)")
    print("== coverage of the difference's 80% interval, n >= 20, averaged over pairs [furthest rows]")
    kept = coverage[coverage["n"] >= 20]
    by = kept.groupby(["estimator", "n"])["coverage"]
    averages = by.mean()
    print(f"  averages per estimator and n: {averages.min():.3f}-{averages.max():.3f} (target [0.785, 0.815])")
    print(f"  rows: {kept['coverage'].min():.3f}-{kept['coverage'].max():.3f} (target [0.74, 0.86]), {len(kept)} rows")
    for n, group in kept[kept["estimator"] == "mean"].groupby("n"):
        low, high = group["coverage"].min(), group["coverage"].max()
        print(f"  mean, n = {n}: average {group['coverage'].mean():.3f}, range {low:.3f}-{high:.3f}")
    print(f"  per-row Monte-Carlo s.e. {np.sqrt(0.16 / kept['repeats'].iloc[0]):.4f}")


def planner(tables: Path) -> None:
    check = pd.read_csv(tables / "plan_check.csv")
    print("== plan check: met (share of pilot plans meeting the target) against the 0.8 assurance")
    check = check.dropna(subset=["met"])
    worlds = check["world"] if "world" in check else pd.Series("resampled", index=check.index)
    for (world, estimator), group in check.groupby([worlds, check["estimator"]], sort=False):
        low = group.loc[group["met"].idxmin()]
        print(
            f"  {world} {estimator}: mean met {group['met'].mean():.3f} over {len(group)} cells (target [0.75, 0.85]); "
            f"lowest {low['met']:.3f} ({low['system']}, {low['prompt']}; target >= 0.7; s.e. {low['met_se']:.3f}); "
            f"median realised/target {group['median_ratio'].min():.2f}-{group['median_ratio'].max():.2f}"
        )


def command_times(repeats: int = 3) -> None:
    print("== debias commands on released files (wall | CPU seconds, best of 3)")
    data = Path("data/msmarco/systems")
    commands = {
        "estimate": ["estimate", str(data / "fastqa.jsonl.gz")],
        "compare": ["compare", str(data / "fastqa.jsonl.gz"), str(data / "fastqa_ext.jsonl.gz")],
        "plan": ["plan", str(data / "fastqa.jsonl.gz")],
    }
    for name, argv in commands.items():
        best = (np.inf, np.inf)
        for _ in range(repeats):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "debias.cli", *argv], check=True, capture_output=True)
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
            best = min(best, (wall, cpu))
        print(f"  debias {name}: {best[0]:.2f} s wall | {best[1]:.2f} s CPU (target < 2 s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", default="results")
    args = parser.parse_args()
    results = Path(args.results)
    config = yaml.safe_load(Path("config/config.yaml").read_text())
    savings(results / "tables", results, config)
    planner(results / "tables")
    command_times()


if __name__ == "__main__":
    main()
