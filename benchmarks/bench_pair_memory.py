"""Peak memory of reading a large table of battles as a preference task does.

Writes (once) a table of 5,000,001 rows to a folder (default ``/tmp/debias-pair-memory``), as
Parquet and as CSV: 1,666,667 battles of 20 systems, three raters each, one LLM judge's verdict
per row, and columns the task does not use (the two conversations, ~80 characters each, a turn
number and a language). Then, in a fresh process per file, reads it through
:func:`debias.config.tasks.load_preferences` (the workflow's reader) and prints the peak resident
memory of that process (``ru_maxrss``), the time and the battles read::

    python benchmarks/bench_pair_memory.py            # both formats
    python benchmarks/bench_pair_memory.py --rows 1000000 --formats parquet

Run it with ``PYTHONPATH`` pointing at another checkout's ``src`` to measure that code.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

SYSTEMS = [f"model-{k:02d}" for k in range(20)]


def write_tables(folder: Path, rows: int) -> dict[str, Path]:
    """The table as Parquet and CSV in ``folder`` (kept: written once per size)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    paths = {"parquet": folder / f"battles-{rows}.parquet", "csv": folder / f"battles-{rows}.csv"}
    if all(p.exists() for p in paths.values()):
        return paths
    rng = np.random.default_rng(0)
    verdicts = np.array(["model_a", "model_b", "tie", "tie (bothbad)"], dtype=object)
    parquet = csv = None
    chunk = 500_000
    for start in range(0, rows, chunk):
        n = min(chunk, rows - start)
        index = np.arange(start, start + n)
        battle = index // 3
        a = (battle * 7919) % len(SYSTEMS)
        b = (a + 1 + (battle * 104729) % (len(SYSTEMS) - 1)) % len(SYSTEMS)
        text = rng.bytes(80 * n).hex()
        table = pa.table(
            {
                "num": pa.array(battle.astype(str)),
                "model_a": pa.array(np.asarray(SYSTEMS, dtype=object)[a]),
                "model_b": pa.array(np.asarray(SYSTEMS, dtype=object)[b]),
                "winner": pa.array(verdicts[rng.integers(0, 4, n)]),
                "rater": pa.array(np.char.add("rater", (index % 3).astype(str)).astype(object)),
                "judge": pa.array(verdicts[:3][(battle * 31) % 3]),
                "conversation_a": pa.array([text[160 * k : 160 * k + 80] for k in range(n)]),
                "conversation_b": pa.array([text[160 * k + 80 : 160 * k + 160] for k in range(n)]),
                "turn": pa.array(rng.integers(1, 5, n)),
                "language": pa.array(np.asarray(["English", "German", "Chinese"], dtype=object)[index % 3]),
            }
        )
        if parquet is None:
            parquet = pq.ParquetWriter(paths["parquet"], table.schema)
            csv = pcsv.CSVWriter(paths["csv"], table.schema)
        parquet.write_table(table)
        csv.write_table(table)
    parquet.close()
    csv.close()
    return paths


def measure(path: str) -> dict:
    """Read ``path`` as a preference task (in this process) and report its peak memory."""
    import resource

    from debias.config.settings import with_defaults
    from debias.config.tasks import load_preferences

    spec = {
        "label": "large",
        "battles": path,
        "item": "num",
        "system_a": "model_a",
        "system_b": "model_b",
        "verdict": "winner",
        "rater": "rater",
        "judges": {"judge": {"label": "judge"}},
    }
    config = with_defaults({"results_dir": "/tmp/unused", "preferences": {"large": spec}})
    start = time.perf_counter()
    pairs = load_preferences(config, "large")
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {"battles": pairs.n_battles, "verdicts": int(pairs.human.size), "seconds": seconds, "peak_bytes": peak}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5_000_001)
    parser.add_argument("--folder", type=Path, default=Path("/tmp/debias-pair-memory"))
    parser.add_argument("--formats", nargs="+", default=["parquet", "csv"], choices=["parquet", "csv"])
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure:
        print(json.dumps(measure(args.measure)))
        return 0
    paths = write_tables(args.folder, args.rows)
    for fmt in args.formats:
        path = paths[fmt]
        run = subprocess.run(
            [sys.executable, __file__, "--measure", str(path)], capture_output=True, text=True, check=False
        )
        if run.returncode:
            print(f"{fmt}: failed\n{run.stderr[-2000:]}", file=sys.stderr)
            return 1
        result = json.loads(run.stdout.strip().splitlines()[-1])
        size = path.stat().st_size / 1e9
        print(
            f"{fmt}: {args.rows:,} rows, {size:.2f} GB file: {result['battles']:,} battles, "
            f"{result['verdicts']:,} verdicts read in {result['seconds']:.1f} s, "
            f"peak {result['peak_bytes'] / 2**30:.2f} GiB"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
