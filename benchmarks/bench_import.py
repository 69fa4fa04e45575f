"""Time and peak memory of `debias import`, and of `debias.estimate` on the same long table.

The table: systems x items x raters rating rows (default 20 x 83,334 x 3 = 5,000,040 rows), with
output texts and a metric score, written as TSV to a temporary folder. Each measured step runs in
its own process, so its peak resident memory (VmHWM) is its own. Targets for 5 million rows:
import within 30 s and 1 GB.

    python benchmarks/bench_import.py [--systems 20 --items 83334 --raters 3] [--api]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd


def write_table(path: Path, systems: int, items: int, raters: int) -> int:
    rng = np.random.default_rng(0)
    n = systems * items * raters
    system = np.repeat([f"sys{s:02d}" for s in range(systems)], items * raters)
    item = np.tile(np.repeat([f"seg{i:06d}" for i in range(items)], raters), systems)
    rater = np.tile([f"r{r}" for r in range(raters)], systems * items)
    quality = rng.normal(size=systems * items).repeat(raters)
    frame = pd.DataFrame(
        {
            "item": item,
            "system": system,
            "rater": rater,
            "score": np.clip(np.round(3 + quality + rng.normal(0, 0.7, n)), 1, 5),
            "output": np.char.add("Größe des Hotels Nummer ", item.astype(str)),
            "bleu": np.round(0.3 + 0.1 * quality, 6),
        }
    )
    frame.to_csv(path, sep="\t", index=False)
    return n


IMPORT = """
import sys
from debias.cli import main
table, folder = sys.argv[1:3]
sys.exit(main(["import", table, "--task", "bench", "--item", "item", "--system", "system", "--judgment", "score",
               "--rater", "rater", "--output", "output", "--score", "bleu", "--out", folder + "/out",
               "--config", folder + "/config.yaml"]))
"""

API = """
import sys
import pandas as pd
import debias
table = sys.argv[1]
frame = pd.read_csv(table, sep="\\t", engine="pyarrow")
rows = debias.estimate(frame, item="item", system="system", judgment="score", rater="rater", scores=["bleu"])
assert len(rows) > 0
"""


# VmHWM, the peak resident memory of the process's own address space (ru_maxrss would carry
# over this parent's peak, which writing the table raised, through fork and exec).
PEAK = (
    "import atexit, sys\n"
    "atexit.register(lambda: print(next(line for line in open('/proc/self/status') if line.startswith('VmHWM')),"
    " file=sys.stderr))\n"
)


def measure(code: str, *args: str) -> tuple[float, float]:
    """Wall seconds and peak resident memory (MB) of ``python -c code args``."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", PEAK + code, *args], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"failed ({done.returncode}): {done.stderr[-2000:]}")
    peak = next(line for line in done.stderr.splitlines()[::-1] if line.startswith("VmHWM"))
    return seconds, int(peak.split()[1]) / 1024


def run(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--systems", type=int, default=20)
    parser.add_argument("--items", type=int, default=83334)
    parser.add_argument("--raters", type=int, default=3)
    parser.add_argument("--api", action="store_true", help="also time debias.estimate on the same table")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        table = Path(folder) / "ratings.tsv"
        rows = write_table(table, args.systems, args.items, args.raters)
        size = table.stat().st_size / 2**20
        print(f"table: {rows:,} rating rows ({args.systems} systems x {args.items:,} items x {args.raters} raters), "
              f"{size:.0f} MB of TSV")  # fmt: skip
        seconds, peak = measure(IMPORT, str(table), folder)
        written = sum(p.stat().st_size for p in (Path(folder) / "out").rglob("*.gz")) / 2**20
        print(f"debias import: {seconds:.1f} s, peak RSS {peak:.0f} MB ({written:.0f} MB of gzipped JSONL written)")
        if args.api:
            seconds, peak = measure(API, str(table))
            print(f"debias.estimate (reading the TSV included): {seconds:.1f} s, peak RSS {peak:.0f} MB")


if __name__ == "__main__":
    run()
