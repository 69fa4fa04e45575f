"""Large evaluations on one machine: synthetic tasks written to a temporary folder and run.

  bench_scale.py metrics [--sizes 10000 30000 100000]   the metric stage of one system of N
      outputs (BLEU, ROUGE-1/2/L, METEOR; modern implementations) with --cores 2: wall time
      and the largest process's peak memory, per N (flat in N: blocks of
      metric_chunk_outputs lines, one job each);
  bench_scale.py checks [--items 20000]   the two simulation checks whose memory grows with N (one
      cell's coverage check, one pair's comparisons check) with the default settings (2000
      repeats, the default sizes and memory_mb, PPI++ on), five metrics, each in a fresh
      process: time and peak memory;
  bench_scale.py task [--systems 20 --items 20000] [--provided]   the whole workflow on a task
      of that many systems x judged items, --cores 2: wall time and the largest process's peak
      memory; --provided puts five metric scores in the system files instead of computing them.

  bench_scale.py default [--keep DIR]   the paper's configuration (config/config.yaml, the
      released data) from an empty results/ with --cores 2, then again after one system is
      added (a copy of a task's last system under a new name): wall and CPU time (user + sys of
      every process of the run) of each, and the jobs that cost most CPU (from the jobs' logs).

Texts are drawn from the released MS MARCO answers and CNN/DM summaries' words (short
outputs, 5-40 words); each system keeps a share of its reference's words that varies by
system and item, and the judgments follow that share with annotator noise. `--keep DIR`
keeps the folder (data, config, results).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml

REPO = Path(__file__).resolve().parent.parent


def vocabulary() -> list[str]:
    words = []
    for path in sorted((REPO / "data").glob("*/references.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            for line in handle:
                words.extend(json.loads(line)["reference"].split())
    return words


PROVIDED = ("m1", "m2", "m3", "m4", "m5")


def write_task(folder: Path, n_systems: int, n_items: int, judged: bool, seed: int = 0, provided: bool = False) -> dict:
    """references.jsonl.gz and systems/sysNN.jsonl.gz under folder/synth; returns the task's config.

    With ``provided`` every line also carries five metric scores ("scores"), correlated with
    the output's quality at 0.1 to 0.7, so that the workflow skips the metric stage."""
    rng = np.random.default_rng(seed)
    words = np.array(vocabulary())
    task = folder / "synth"
    (task / "systems").mkdir(parents=True, exist_ok=True)
    lengths = rng.integers(5, 40, n_items)
    references = [" ".join(words[rng.integers(0, words.size, length)]) for length in lengths]
    with gzip.open(task / "references.jsonl.gz", "wt", encoding="utf-8", compresslevel=1) as out:
        for i, text in enumerate(references):
            out.write(json.dumps({"id": f"q{i:06d}", "reference": text}) + "\n")
    systems = {}
    for s in range(n_systems):
        name = f"sys{s:02d}"
        systems[name] = {"label": name}
        skill = 0.3 + 0.5 * s / max(n_systems - 1, 1)
        with gzip.open(task / "systems" / f"{name}.jsonl.gz", "wt", encoding="utf-8", compresslevel=1) as out:
            for i, reference in enumerate(references):
                ref_words = reference.split()
                keep = rng.beta(4 * skill, 4 * (1 - skill))
                kept = rng.random(len(ref_words)) < keep
                out_words = [w if k else words[rng.integers(0, words.size)] for w, k in zip(ref_words, kept)]
                record = {"id": f"q{i:06d}", "output": " ".join(out_words), "judgments": {}}
                if judged:
                    k = 2 if rng.random() < 0.5 else 1
                    noisy = 2 * keep - 1 + rng.normal(0, 0.6, k)
                    record["judgments"] = {
                        "quality": np.clip(np.round(noisy), -1, 1).tolist(),
                        "correct": (rng.random(k) < keep).astype(float).tolist(),
                    }
                if provided:
                    z = (keep - skill) * 4
                    record["scores"] = {
                        m: round(float(r * z + np.sqrt(1 - r * r) * rng.normal()), 6)
                        for m, r in zip(PROVIDED, (0.1, 0.25, 0.4, 0.55, 0.7))
                    }
                out.write(json.dumps(record) + "\n")
    return {
        "label": "Synthetic",
        "systems": systems,
        "prompts": {
            "quality": {"label": "Quality", "min": -1, "max": 1},
            "correct": {"label": "Correct", "min": 0, "max": 1},
        },
    }


def write_config(folder: Path, task: dict, estimates: dict | None = None, provided: bool = False) -> Path:
    metrics = {name: {"label": name} for name in ("bleu", "rouge1", "rouge2", "rougeL", "meteor")}
    if provided:
        metrics = {name: {"label": name, "provided": True} for name in PROVIDED}
    config = {
        "data_dir": str(folder / "data"),
        "results_dir": str(folder / "results"),
        "nltk_data": str(REPO / "nltk_data"),
        "metrics": metrics,
        "min_judged_items": 20,
        "tasks": {"synth": task},
        "bootstrap": {"replicates": 1000, "seed": 1, "level": 0.8, "de_range": [0.2, 0.9]},
        "estimates": estimates or {"level": 0.8, "sample_sizes": [20, 50, 100, 500], "repeats": 200, "ppi": False},
        # The comparisons' check resamples every pair (190 here) R x N times: 0.65 s a pair at
        # these settings and N = 20,000, 4.9 s with the default sizes (up to 0.8N), ~2 min and
        # ~17 GB with the default 2000 repeats.
        "compare": {"sample_sizes": [20, 50, 100, 500], "repeats": 200},
        "figures": {
            "figure5": {"synth": "quality"},
            "figure6": {"a": {"task": "synth", "prompt": "quality", "system": "sys00", "metric": "best"}},
        },
    }
    path = folder / "config.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def snakemake(folder: Path, config: Path, targets: list[str], cores: int = 2) -> tuple[float, float]:
    """Wall time and the largest finished descendant's peak RSS (MB) of one Snakemake run."""
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "snakemake", *targets, "--snakefile", str(REPO / "workflow/Snakefile")]
        + ["--directory", str(folder), "--configfile", str(config), "--cores", str(cores), "--quiet"],
        check=True,
        cwd=folder,
        stdout=subprocess.DEVNULL,
    )
    elapsed = time.perf_counter() - start
    return elapsed, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def bench_metrics(args) -> None:
    print("metric stage of one synthetic system (bleu, rouge1/2/L, meteor; modern), --cores 2:")
    for n_items in args.sizes:
        folder = Path(tempfile.mkdtemp(prefix=f"bench-metrics-{n_items}-"))
        try:
            task = write_task(folder / "data", 1, n_items, judged=True)
            config = write_config(folder, task)
            # A fresh process per size, so that peak memory is this size's.
            out = subprocess.run(
                [sys.executable, __file__, "_metrics_once", str(folder), str(config)],
                check=True,
                capture_output=True,
                text=True,
            )
            elapsed, peak = json.loads(out.stdout.strip().splitlines()[-1])
            jobs = len(list((folder / "results/logs/metrics/synth").glob("*.log")))
            print(
                f"  N = {n_items:>7,}: {elapsed:6.1f} s wall ({n_items / elapsed:,.0f} outputs/s), "
                f"{jobs} metrics jobs, largest process {peak:,.0f} MB"
            )
        finally:
            if args.keep is None:
                shutil.rmtree(folder, ignore_errors=True)


def bench_task(args) -> None:
    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench-task-"))
    try:
        start = time.perf_counter()
        task = write_task(folder / "data", args.systems, args.items, judged=True, provided=args.provided)
        config = write_config(folder, task, provided=args.provided)
        print(f"wrote {args.systems} systems x {args.items:,} judged items in {time.perf_counter() - start:.0f} s")
        elapsed, peak = snakemake(folder, config, [])
        metrics = "five provided metric scores" if args.provided else "bleu, rouge1/2/L, meteor computed"
        print(
            f"whole workflow, --cores 2: {elapsed:.0f} s ({elapsed / 60:.1f} min), largest process {peak:,.0f} MB; "
            f"{metrics}; estimates and comparisons: repeats 200, sample sizes [20, 50, 100, 500], no PPI++"
        )
    finally:
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed_run(folder: Path) -> tuple[float, float]:
    """Wall and CPU seconds of ``snakemake --cores 2`` in ``folder`` (its own config)."""
    cpu, start = _cpu_seconds(), time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "workflow/Snakefile")]
        + ["--directory", str(folder), "--cores", "2", "--quiet"],
        check=True,
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - start, _cpu_seconds() - cpu


def _job_costs(results: Path) -> dict[str, float]:
    """CPU seconds per rule, summed over its jobs, from the last line of each job's log."""
    costs: dict[str, float] = {}
    pattern = re.compile(r"done: ([0-9.]+) s CPU in this process, ([0-9.]+) s in the programs")
    for log in (results / "logs").rglob("*.log"):
        found = pattern.findall(log.read_text(errors="replace"))
        if found:
            own, programs = map(float, found[-1])
            kind = log.relative_to(results / "logs").parts[0].removesuffix(".log")
            costs[kind] = costs.get(kind, 0.0) + own + programs
    return costs


def bench_default(args) -> None:
    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench-default-"))
    try:
        for name in ("config", "data", "workflow"):
            shutil.copytree(REPO / name, folder / name, dirs_exist_ok=True)
        (folder / "nltk_data").symlink_to((REPO / "nltk_data").resolve())
        wall, cpu = _timed_run(folder)
        print(f"default configuration from an empty results/, --cores 2: {wall:.0f} s wall, {cpu:.0f} s CPU")
        costs = sorted(_job_costs(folder / "results").items(), key=lambda item: -item[1])
        print("  CPU by kind of job (log folder): " + ", ".join(f"{kind} {seconds:.0f} s" for kind, seconds in costs))
        config = yaml.safe_load((folder / "config/config.yaml").read_text())
        task = next(iter(config["tasks"]))
        last = list(config["tasks"][task]["systems"])[-1]
        source = next((folder / "data" / task / "systems").glob(f"{last}.jsonl*"))
        shutil.copy(source, source.with_name(source.name.replace(last, f"{last}.copy", 1)))
        # Appended as text, so that the config file's comments stay as they are.
        text = (folder / "config/config.yaml").read_text()
        entry = f"      {last}: " + "{"
        at = text.index(entry, text.index(f"\n  {task}:"))
        end = text.index("\n", at) + 1
        copy = f"      {last}.copy: " + "{label: " + f"{last}.copy" + "}\n"
        (folder / "config/config.yaml").write_text(text[:end] + copy + text[end:])
        for log in (folder / "results/logs").rglob("*.log"):
            log.unlink()
        wall, cpu = _timed_run(folder)
        print(f"one system added to {task} ({last}.copy): {wall:.0f} s wall, {cpu:.0f} s CPU")
        costs = sorted(_job_costs(folder / "results").items(), key=lambda item: -item[1])
        print("  CPU by kind of job (log folder): " + ", ".join(f"{kind} {seconds:.0f} s" for kind, seconds in costs))
    finally:
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)


CHECK = """
import resource, sys, time
import numpy as np
from debias.data import Judgments, PairedSample
from debias.config.settings import section_defaults
from debias.stats.checks.coverage import coverage_experiment
from debias.stats.checks.paired_coverage import paired_coverage_experiment

which, N, M = sys.argv[1], int(sys.argv[2]), 5
rng = np.random.default_rng(0)
quality = rng.normal(size=N)
judge = lambda: np.clip(np.round(quality[:, None] + rng.normal(0, 1, (N, 2))), -2, 2)
scores = quality[:, None] + rng.normal(0, 1, (N, M))
started = time.perf_counter()
if which == "coverage":
    spec = section_defaults("estimates")
    coverage_experiment(
        Judgments.from_padded(judge()), {f"m{i}": scores[:, i] for i in range(M)}, sample_sizes=spec["sample_sizes"],
        n_repeats=spec["repeats"], level=spec["level"], rng=rng, ppi=spec["ppi"], memory_mb=spec["memory_mb"],
    )
else:
    spec = section_defaults("compare")
    other = scores + 0.1 * rng.random((N, M))
    pair = PairedSample(judge(), judge() + 0.1, np.zeros(N, bool), scores, other, scores, other,
                        tuple(f"m{i}" for i in range(M)))
    paired_coverage_experiment(pair, sample_sizes=spec["sample_sizes"], n_repeats=spec["repeats"], level=0.8, rng=rng,
                               memory_mb=spec["memory_mb"])
print(time.perf_counter() - started, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20)
"""


def bench_checks(args) -> None:
    for which in ("coverage", "comparisons"):
        command = [sys.executable, "-c", CHECK, which, str(args.items)]
        seconds, gigabytes = map(
            float, subprocess.run(command, capture_output=True, text=True, check=True).stdout.split()
        )
        print(f"{which} check at N = {args.items:,}, default settings: {seconds:.1f} s, peak memory {gigabytes:.2f} GB")


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "_metrics_once":
        folder, config = Path(sys.argv[2]), Path(sys.argv[3])
        print(json.dumps(snakemake(folder, config, [str(folder / "results/metrics/synth/sys00.csv")])))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    metrics = sub.add_parser("metrics")
    metrics.add_argument("--sizes", type=int, nargs="+", default=[10_000, 30_000, 100_000])
    metrics.add_argument("--keep", type=Path)
    checks = sub.add_parser("checks")
    checks.add_argument("--items", type=int, default=20_000)
    task = sub.add_parser("task")
    task.add_argument("--systems", type=int, default=20)
    task.add_argument("--items", type=int, default=20_000)
    task.add_argument("--keep", type=Path)
    task.add_argument(
        "--provided", action="store_true", help="scores in the system files: no metric stage (see the metrics command)"
    )
    default = sub.add_parser("default")
    default.add_argument("--keep", type=Path)
    args = parser.parse_args()
    {"metrics": bench_metrics, "checks": bench_checks, "task": bench_task, "default": bench_default}[args.what](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
