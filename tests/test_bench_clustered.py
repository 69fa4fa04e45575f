"""The clustered-inference benchmark runs (``benchmarks/bench_clustered.py --quick``) and writes
the rows it says: every world, estimand, estimator and level, with the columns of its table.
The coverage numbers are the benchmark's to report, not this test's to check."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "bench_clustered.py"


@pytest.mark.slow
def test_quick_run_prints_and_writes_every_cell(tmp_path):
    output = tmp_path / "clustered.csv"
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--repeats", "4", "--seed", "7", "--output", str(output)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    text = done.stdout
    for heading in ("== pairwise verdicts", "== ratings", "== vendored data resampled by question", "targets:"):
        assert heading in text
    assert "skipped" in text  # no vendored source shares questions

    with output.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    pairs = [r for r in rows if r["shape"] == "pairs"]
    ratings = [r for r in rows if r["shape"] == "ratings"]
    # quick: two worlds of each shape, both levels; pairs 2 estimands x 2 estimators, ratings 3 estimators
    assert len(pairs) == 2 * 2 * 2 * 2 and len(ratings) == 2 * 2 * 3
    assert {(r["estimand"], r["estimator"]) for r in pairs} == {
        (estimand, estimator) for estimand in ("win_rate", "strength") for estimator in ("human", "ppi++:judge")
    }
    assert {r["estimator"] for r in ratings} == {"mean", "cv:metric", "ppi++:metric"}
    assert {float(r["level"]) for r in rows} == {0.9, 0.95}
    for row in rows:
        assert int(row["draws"]) == 4
        assert 0.0 <= float(row["cover"]) <= 1.0 and float(row["cover_se"]) >= 0.0
        assert 0.0 <= float(row["ranks"]) <= 1.0 and 0.0 <= float(row["split"]) <= 1.0
        assert float(row["width"]) > 0 and row["target"] in {"ok", "LOW", "HIGH"}
        if float(row["level"]) == 0.9:
            assert float(row["width_ratio"]) > 0
    assert all(0.0 <= float(r["cover_fp"]) <= 1.0 for r in ratings)
    # every table line of the printout is a row of the file
    assert sum(line.startswith(("6 systems", "40 judged")) for line in text.splitlines()) == len(rows)


@pytest.mark.slow
def test_the_sequences_benchmark_runs_quick():
    script = REPO / "benchmarks" / "bench_clustered_sequences.py"
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    done = subprocess.run(
        [sys.executable, str(script), "--quick"], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [line.split() for line in done.stdout.splitlines() if line.strip()[:1].isdigit() and "." in line[:7]]
    assert len(lines) == 9  # three worlds x (systems at every look, from 30 questions, contrasts)
    assert all(0.0 <= float(line[-3]) <= 1.0 for line in lines)
