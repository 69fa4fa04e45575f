"""Wall time of the whole workflow on the real data, in a scratch copy of config/ and data/:

(a) `snakemake --cores 2` from an empty results/ (environment already set up),
(b) a rerun with nothing changed,
(c) a rerun after adding one system (a copy of an existing system's file under a new name).

Targets: (a) < 60 s, (b) < 5 s, (c) < 15 s. Run with `make benchmark` or
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
TARGETS = {"full run": 60.0, "rerun, nothing changed": 5.0, "after adding one system": 15.0}


def run(workdir: Path, cores: int) -> float:
    start = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "--snakefile",
            str(REPO / "workflow/Snakefile"),
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
    args = parser.parse_args()
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="bench-pipeline-"))
    try:
        shutil.copytree(REPO / "data", workdir / "data", dirs_exist_ok=True)
        config = yaml.safe_load((REPO / "config/config.yaml").read_text())
        config["nltk_data"] = str(REPO / config["nltk_data"])
        (workdir / "config").mkdir(exist_ok=True)
        (workdir / "config/config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
        shutil.rmtree(workdir / "results", ignore_errors=True)

        times = {"full run": run(workdir, args.cores), "rerun, nothing changed": run(workdir, args.cores)}
        shutil.copy(
            workdir / "data/cnndm/systems/pointer.jsonl.gz", workdir / "data/cnndm/systems/pointer-copy.jsonl.gz"
        )
        config["tasks"]["cnndm"]["systems"]["pointer-copy"] = {"label": "pointer (copy)"}
        (workdir / "config/config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
        times["after adding one system"] = run(workdir, args.cores)
    finally:
        if args.keep is None:
            shutil.rmtree(workdir, ignore_errors=True)
    print(f"workflow wall time, --cores {args.cores}, real data (B = {config['bootstrap']['replicates']}):")
    for name, seconds in times.items():
        verdict = "ok" if seconds < TARGETS[name] else "over target"
        print(f"  {name:<26} {seconds:7.1f} s   (target < {TARGETS[name]:.0f} s: {verdict})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
