"""The estimates' coverage stage on the released data, one process, one core: CPU seconds for
every system's coverage.csv rows with the configured settings (PPI++ included); and the
vectorised PPI++ against ppi-python on the same samples.

    python benchmarks/bench_coverage_stage.py [--results results]   (after `snakemake` made results/joined)
"""

from __future__ import annotations

import argparse
import glob
import time

import numpy as np
import yaml

from debias.config.labels import estimates_spec
from debias.stats.common.ppi import PopulationSums, ppi_tuned_mean_ci
from debias.tables.estimates import coverage_table
from debias.tables.joined import metric_columns, read_joined


def coverage_stage(results: str) -> None:
    config = yaml.safe_load(open("config/config.yaml", encoding="utf-8"))
    spec = estimates_spec(config)
    frames = [read_joined(p) for p in sorted(glob.glob(f"{results}/joined/*/*.csv")) if "reference" not in p]
    prompts = {task: list(c["prompts"]) for task, c in config["tasks"].items()}
    start = time.process_time()
    table = coverage_table(
        frames,
        prompts,
        metric_columns(frames[0]),
        sample_sizes=spec["sample_sizes"],
        n_repeats=spec["repeats"],
        level=spec["level"],
        seed=spec["seed"],
        ppi=spec["ppi"],
        memory_mb=spec["memory_mb"],
    )
    seconds = time.process_time() - start
    print(f"coverage stage: {len(frames)} systems, {len(table)} rows, {seconds:.1f} s CPU (target <= 60 s)")


def ppi_speed(repeats: int = 2000, n: int = 100, n_outputs: int = 500) -> None:
    from ppi_py import ppi_mean_ci

    rng = np.random.default_rng(0)
    g_all = rng.normal(size=n_outputs)
    y_all = g_all + rng.normal(size=n_outputs)
    order = np.argsort(rng.random((repeats, n_outputs)), axis=1)
    sums = PopulationSums.of(g_all)
    start = time.perf_counter()
    _, low, high, _, _ = ppi_tuned_mean_ci(y_all[order[:, :n]], g_all[order[:, :n]], sums, level=0.8)
    kernel = time.perf_counter() - start
    calls = 200
    start = time.perf_counter()
    worst = 0.0
    for r in range(calls):
        ref_low, ref_high = ppi_mean_ci(y_all[order[r, :n]], g_all[order[r, :n]], g_all[order[r, n:]], alpha=0.2)
        worst = max(worst, abs(float(ref_low[0]) - low[r]), abs(float(ref_high[0]) - high[r]))
    loop = (time.perf_counter() - start) / calls
    print(
        f"PPI++ intervals, n = {n} of N = {n_outputs}: vectorised {repeats / kernel:,.0f} per second, "
        f"ppi-python {1 / loop:,.0f} per second; largest difference {worst:.1e} (over {calls} samples)"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", default="results")
    args = parser.parse_args()
    ppi_speed()
    coverage_stage(args.results)
