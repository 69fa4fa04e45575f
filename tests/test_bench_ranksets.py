"""The rank-sets benchmark (``benchmarks/bench_ranksets.py``) in small: the step-down rank-sets
keep their familywise error in Gaussian worlds with a known covariance, and the script runs."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "bench_ranksets.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_ranksets", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_step_down_familywise_error_is_within_two_standard_errors_of_alpha():
    bench = _bench()
    repeats, level = 400, 0.9
    worlds = ["equal, 5 independent", "two tied blocks, 20 independent", "mixed, 15 correlated"]
    rows = bench.run(worlds, repeats, level, None, ("single", "after"))
    assert {(r["world"], r["procedure"]) for r in rows} == {(w, p) for w in worlds for p in ("single", "after")}
    se = np.sqrt(level * (1 - level) / repeats)
    for row in rows:
        assert row["rank_fwer"] <= row["sign_fwer"]  # a rank outside its set needs a wrong declaration
        assert row["sign_fwer"] <= 1 - level + 2 * se, row
    by = {(r["world"], r["procedure"]): r for r in rows}
    for world in worlds:  # the step-down is never larger than the single step
        assert by[world, "after"]["size"] <= by[world, "single"]["size"]


@pytest.mark.slow
def test_the_script_prints_its_table():
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    done = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--repeats",
            "30",
            "--worlds",
            "equal, 5 independent",
            "near ties, 10 independent",
            "--no-before",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert (
        sum(line.startswith(("equal, 5", "near ties, 10")) for line in lines) == 2 * 2
    )  # single, after (no git history needed)
    assert lines[-1].startswith("targets:")
