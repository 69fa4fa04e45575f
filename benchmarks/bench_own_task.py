"""A user's own evaluation from a raw long table to the report, with default settings: the three
documented commands (`debias import ... --config FILE`, the block it adds, `snakemake --cores 2
--configfile FILE`) on a synthetic table, timed, with the largest process of the run.

Two shapes, unlike the paper's data:
- ``mqm``: 13 systems and a judged human reference, 529 segments, one rater per segment, German
  text, MQM-like error scores 0-25 (lower is better; most segments have none). Target: <= 4 min.
- ``likert``: 12 systems x 100 summaries, three raters on four 1-5 prompts, about 85% of the
  ratings at the ceiling (SummEval-like). Target: finishes.
- ``realistic``: 20 systems x 20,000 items, the same 4,000 items judged by two raters (1-5) in
  every system and the other 16,000 unjudged, a judge's score (1-10) on every output; no texts.
  Target: <= 15 min. With ``--texts`` every output and reference has a text (20-60 English
  words) and the computed metrics are scored too. Target: <= 30 min.

    python benchmarks/bench_own_task.py mqm|likert|realistic [--texts] [--size 20 20000 4000] [--cores 2] [--keep DIR]
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


def realistic_table(
    path: Path, systems: int = 20, items: int = 20_000, judged: int = 4_000, texts: bool = False
) -> list[str]:
    """Rows of the judged items (two raters each), then one row per unjudged output (no rating)."""
    rng = np.random.default_rng(2)
    difficulty = rng.normal(0, 0.8, items)
    references = [words(rng, ENGLISH, int(n)) for n in rng.integers(20, 61, items)] if texts else None
    frames = []
    for s in range(systems):
        quality = 3 + 0.05 * (s - systems / 2) + difficulty + rng.normal(0, 0.7, items)
        outputs = pd.DataFrame({"item": np.arange(items), "system": f"model-{s:02d}"})
        outputs["judge"] = np.clip(np.round(2 * quality - 0.5 + rng.normal(0, 1.2, items)), 1, 10)
        if texts:
            keep = np.clip(0.35 + 0.1 * (quality - 3), 0.05, 0.95)
            outputs["output"] = [
                " ".join(w if rng.random() < k else str(rng.choice(ENGLISH)) for w in reference.split())
                for reference, k in zip(references, keep)
            ]
            outputs["reference"] = references
        for rater in ("r1", "r2"):
            rating = np.clip(np.round(quality[:judged] + rng.normal(0, 0.8, judged)), 1, 5)
            frames.append(outputs.iloc[:judged].assign(rater=rater, rating=rating))
        frames.append(outputs.iloc[judged:].assign(rater="", rating=np.nan))
    pd.concat(frames, ignore_index=True).to_csv(path, sep="\t", index=False, quoting=csv.QUOTE_NONE)
    options = ["--task", "realistic", "--item", "item", "--system", "system", "--judgment", "rating"]
    options += ["--rater", "rater", "--score", "judge", "--scale", "1", "5"]
    return options + (["--output", "output", "--reference", "reference"] if texts else [])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shape", choices=["mqm", "likert", "realistic"])
    parser.add_argument("--texts", action="store_true", help="realistic: with output and reference texts")
    parser.add_argument(
        "--size", type=int, nargs=3, default=[20, 20_000, 4_000], metavar=("SYSTEMS", "ITEMS", "JUDGED")
    )
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench_own_"))
    root.mkdir(parents=True, exist_ok=True)
    (root / "nltk_data").exists() or (root / "nltk_data").symlink_to(REPO / "nltk_data")
    table = root / ("ratings.csv" if args.shape == "likert" else "ratings.tsv")
    if args.shape == "realistic":
        options = realistic_table(table, *args.size, texts=args.texts)
    else:
        options = (mqm_table if args.shape == "mqm" else likert_table)(table)
    print(f"{args.shape}: table written", flush=True)
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
