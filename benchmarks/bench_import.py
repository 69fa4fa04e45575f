"""Time `debias import` on a long table of 100,000 ratings (20 systems x 1,700 items x 3 raters,
with output texts and a metric score), written to a temporary folder. Target: < 10 s.

    python benchmarks/bench_import.py [--systems 20 --items 1700 --raters 3]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from debias.cli import main


def write_table(path: Path, systems: int, items: int, raters: int) -> int:
    rng = np.random.default_rng(0)
    n = systems * items * raters
    system = np.repeat([f"sys{s:02d}" for s in range(systems)], items * raters)
    item = np.tile(np.repeat([f"seg{i:05d}" for i in range(items)], raters), systems)
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


def run(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--systems", type=int, default=20)
    parser.add_argument("--items", type=int, default=1700)
    parser.add_argument("--raters", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        table = Path(folder) / "ratings.tsv"
        rows = write_table(table, args.systems, args.items, args.raters)
        start = time.perf_counter()
        code = main(
            ["import", str(table), "--task", "bench", "--item", "item", "--system", "system", "--judgment", "score",
             "--rater", "rater", "--output", "output", "--score", "bleu", "--out", str(Path(folder) / "out"),
             "--config", str(Path(folder) / "config.yaml")]
        )  # fmt: skip
        seconds = time.perf_counter() - start
    assert code == 0
    print(f"debias import: {rows:,} rating rows in {seconds:.2f} s (target < 10 s)")


if __name__ == "__main__":
    run()
