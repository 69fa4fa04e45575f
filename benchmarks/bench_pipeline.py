"""Wall time of the whole workflow on the real data, in a scratch copy of config/ and data/:

(a) `snakemake --cores 2` from an empty results/ (environment already set up),
(b) a rerun with nothing changed,
(c) a rerun after adding one system (a copy of an existing system's file under a new name).

Targets: (a) < 60 s, (b) < 5 s, (c) < 8 s (five modern metrics, the default here; with
--paper-metrics the start-up of ROUGE-1.5.5 and METEOR 1.5 is printed on its own line). Run with `make benchmark` or
`.venv/bin/python benchmarks/bench_pipeline.py [--cores 2] [--keep DIR]`.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
TARGETS = {"full run": 60.0, "rerun, nothing changed": 5.0, "after adding one system": 8.0}


def modern_config(config: dict) -> dict:
    """The paper's config with only the five modern metrics (no Perl or Java run): a figure
    panel that named a paper-implementation metric draws the best metric instead. The coverage
    check runs without the PPI++ peer (one library call per repeat: minutes per system)."""
    config = dict(config)
    config["estimates"] = {**config.get("estimates", {}), "ppi": False}
    config["metrics"] = {name: spec for name, spec in config["metrics"].items() if "implementation" not in spec}
    for panel in config["figures"]["figure6"].values():
        if panel["metric"] not in ("best", *config["metrics"]):
            panel["metric"] = "best"
    return config


def backend_startup(config: dict) -> None:
    """Start-up of each paper-faithful backend the config uses (a JVM, a Perl run): the time to
    score one pair, in a fresh process after imports. Each metrics job pays it once (all of its
    outputs go through one METEOR process and one ROUGE-1.5.5 run), not once per output."""
    from debias.metrics import IMPLEMENTATIONS, resolve_implementations

    chosen = resolve_implementations(config["metrics"])
    for family in ("rouge155", "meteor15"):
        implementation = next((i for i in chosen.values() if IMPLEMENTATIONS[i].family == family), None)
        if implementation is None:
            continue
        code = (
            "import time; from debias.metrics import score_outputs; t = time.perf_counter(); "
            f"score_outputs(['a cat sat .'], ['the cat sat .'], None, {{'m': '{implementation}'}}); "
            "print(time.perf_counter() - t)"
        )
        out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
        print(f"  {family} start-up (one pair, once per metrics job): {float(out.stdout.split()[-1]):.1f} s")


def run(workdir: Path, cores: int, snakefile: Path = REPO / "workflow/Snakefile") -> float:
    # The checkout's own environment runs its workflow (its package, its scripts).
    python = snakefile.resolve().parent.parent / ".venv/bin/python"
    start = time.perf_counter()
    subprocess.run(
        [
            str(python) if python.exists() else sys.executable,
            "-m",
            "snakemake",
            "--snakefile",
            str(snakefile),
            "--directory",
            str(workdir),
            "--cores",
            str(cores),
            "--quiet",
        ],
        check=True,
        cwd=workdir,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    parser.add_argument(
        "--paper-metrics",
        action="store_true",
        help="keep the config's ROUGE-1.5.5 and METEOR 1.5 metrics (default: the five modern ones only)",
    )
    parser.add_argument(
        "--no-checks",
        action="store_true",
        help="estimates.coverage, compare.coverage and plan.check false: none of the three simulation checks "
        "(a config may choose so; they are not per-system artefacts and rerun in full when a system is added)",
    )
    parser.add_argument(
        "--snakefile", type=Path, default=REPO / "workflow/Snakefile", help="another checkout's workflow, to compare"
    )
    args = parser.parse_args()
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="bench-pipeline-"))
    try:
        shutil.copytree(REPO / "data", workdir / "data", dirs_exist_ok=True)
        config = yaml.safe_load((REPO / "config/config.yaml").read_text())
        if not args.paper_metrics:
            config = modern_config(config)
        if args.no_checks:
            config["estimates"] = {**config.get("estimates", {}), "coverage": False}
            config["compare"] = {**config.get("compare", {}), "coverage": False}
            config["plan"] = {**config.get("plan", {}), "check": False}
        config["nltk_data"] = str(REPO / config["nltk_data"])
        (workdir / "config").mkdir(exist_ok=True)
        (workdir / "config/config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
        shutil.rmtree(workdir / "results", ignore_errors=True)

        times = {
            "full run": run(workdir, args.cores, args.snakefile),
            "rerun, nothing changed": run(workdir, args.cores, args.snakefile),
        }
        shutil.copy(
            workdir / "data/cnndm/systems/pointer.jsonl.gz", workdir / "data/cnndm/systems/pointer-copy.jsonl.gz"
        )
        config["tasks"]["cnndm"]["systems"]["pointer-copy"] = {"label": "pointer (copy)"}
        (workdir / "config/config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
        times["after adding one system"] = run(workdir, args.cores, args.snakefile)
    finally:
        if args.keep is None:
            shutil.rmtree(workdir, ignore_errors=True)
    estimates = config.get("estimates", {})
    print(
        f"workflow wall time, --cores {args.cores}, real data (B = {config['bootstrap']['replicates']}; "
        f"{len(config['metrics'])} metrics; simulation checks {'off' if args.no_checks else 'on'}, "
        f"PPI++ {'on' if estimates.get('ppi', True) else 'off'}):"
    )
    for name, seconds in times.items():
        verdict = "ok" if seconds < TARGETS[name] else "over target"
        print(f"  {name:<26} {seconds:7.1f} s   (target < {TARGETS[name]:.0f} s: {verdict})")
    backend_startup(config)
    return 0


if __name__ == "__main__":
    sys.exit(main())
