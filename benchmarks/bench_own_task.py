"""A user's own evaluation from a raw long table to the report, with default settings: the three
documented commands (`debias import ... --config FILE`, the block it adds, `snakemake --cores 2
--configfile FILE`) on a synthetic table, timed, with the largest process of the run.

Two shapes, unlike the paper's data:
- ``mqm``: 13 systems and a judged human reference, 529 segments, one rater per segment, German
  text, MQM-like error scores 0-25 (lower is better; most segments have none). Target: <= 4 min.
- ``likert``: 12 systems x 100 summaries, three raters on four 1-5 prompts, about 85% of the
  ratings at the ceiling (SummEval-like). Target: finishes.

    python benchmarks/bench_own_task.py mqm|likert [--cores 2] [--keep DIR]
"""

from __future__ import annotations

import argparse
import csv
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parent.parent
GERMAN = (
    "Größe Flüchtlingshotel müssen über Straße Bürger Maß schön Grüße wir haben die der das ein eine "
    "nicht auch mit für auf sich ist sind wurde Jahr Stadt Frage öffentlich Überblick Ärger Zeitung"
).split()
ENGLISH = (
    "the a of to in and is was for on with as by at from he she they it said new year people "
    "police court city report government company family told would could after before over"
).split()


def words(rng: np.random.Generator, vocabulary: list[str], n: int) -> str:
    return " ".join(rng.choice(vocabulary, size=n))


def mqm_table(path: Path, systems: int = 14, items: int = 529) -> list[str]:
    rng = np.random.default_rng(0)
    references = [words(rng, GERMAN, int(rng.integers(8, 30))) for _ in range(items)]
    rows = []
    for s in range(systems):
        name = "Human ref" if s == systems - 1 else f"sys-{s:02d}"
        keep = 0.9 - 0.02 * s
        for i, reference in enumerate(references):
            tokens = [w if rng.random() < keep else str(rng.choice(GERMAN)) for w in reference.split()]
            errors = rng.poisson(2 * (1 - keep) * len(tokens) / 10)
            mqm = float(min(25.0, 5 * rng.binomial(errors, 0.3) + rng.binomial(errors, 0.7)))
            rows.append(
                {"seg": f"{i:04d}", "system": name, "rater": f"rater{i % 6}", "mqm": mqm, "target": " ".join(tokens)}
            )
    pd.DataFrame(rows).to_csv(path, sep="\t", index=False, quoting=csv.QUOTE_NONE)
    return [
        "--task", "mqm_like", "--item", "seg", "--system", "system", "--judgment", "mqm", "--rater", "rater",
        "--output", "target", "--reference-system", "Human ref", "--lower-is-better", "--language", "de",
    ]  # fmt: skip


def likert_table(path: Path, systems: int = 12, items: int = 100) -> list[str]:
    rng = np.random.default_rng(1)
    references = [words(rng, ENGLISH, int(rng.integers(20, 60))) for _ in range(items)]
    rows = []
    for s in range(systems):
        for i, reference in enumerate(references):
            summary = " ".join(w for w in reference.split() if rng.random() < 0.6 + 0.02 * s)
            for prompt in ("coherence", "consistency", "fluency", "relevance"):
                for rater in ("expert1", "expert2", "expert3"):
                    score = 5 if rng.random() < 0.85 else int(rng.integers(1, 5))
                    rows.append(
                        {"id": i, "model": f"M{s:02d}", "prompt": prompt, "rater": rater, "score": score,
                         "summary": summary, "reference": reference}
                    )  # fmt: skip
    pd.DataFrame(rows).to_csv(path, index=False)
    return [
        "--task", "likert_like", "--item", "id", "--system", "model", "--judgment", "score", "--prompt", "prompt",
        "--rater", "rater", "--output", "summary", "--reference", "reference",
    ]  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shape", choices=["mqm", "likert"])
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench_own_"))
    root.mkdir(parents=True, exist_ok=True)
    (root / "nltk_data").exists() or (root / "nltk_data").symlink_to(REPO / "nltk_data")
    table = root / ("ratings.tsv" if args.shape == "mqm" else "ratings.csv")
    options = (mqm_table if args.shape == "mqm" else likert_table)(table)
    bin_dir = Path(sys.executable).parent
    started = time.perf_counter()
    subprocess.run([bin_dir / "debias", "import", table, *options, "--config", "config.yaml"], cwd=root, check=True)
    imported = time.perf_counter()
    command = [bin_dir / "snakemake", "--snakefile", REPO / "workflow/Snakefile", "--cores", str(args.cores)]
    subprocess.run([*command, "--configfile", "config.yaml", "--quiet", "all"], cwd=root, check=True)
    finished = time.perf_counter()
    largest = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20
    task = options[options.index("--task") + 1]
    report = (root / "results" / task / "report.md").read_text(encoding="utf-8")
    print(f"{args.shape}: ratings in the table: {sum(1 for _ in table.open(encoding='utf-8')) - 1:,}")
    print(f"{args.shape}: debias import: {imported - started:.1f} s")
    print(f"{args.shape}: snakemake --cores {args.cores} (default settings): {finished - imported:.1f} s")
    print(f"{args.shape}: largest process: {largest:.2f} GB")
    print(f"{args.shape}: report mentions the paper's tasks: {'CNN/Daily Mail' in report or 'MS MARCO' in report}")
    if not args.keep:
        shutil.rmtree(root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
