"""The judging-loop benchmark (``benchmarks/bench_loop.py``) drives the shipped ``pairs_status``,
``first_battles`` and ``next_battles``, and its detectors say what they claim: a stall only when
``next_battles`` writes nothing for an open question with battles left, a miss only when a
printed interval or decision contradicts the truth."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "bench_loop.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_loop", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_loop"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_the_loop_calls_the_shipped_functions_and_counts_streams(monkeypatch):
    from debias.stats.preferences import allocation, status

    bench = _bench()
    assert bench.pairs_status is status.pairs_status
    assert bench.next_battles is allocation.next_battles and bench.first_battles is allocation.first_battles
    calls = {"status": 0, "next": 0, "first": 0}

    def counted(name, function):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return function(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(bench, "pairs_status", counted("status", status.pairs_status))
    monkeypatch.setattr(bench, "next_battles", counted("next", allocation.next_battles))
    monkeypatch.setattr(bench, "first_battles", counted("first", allocation.first_battles))
    world = bench.synthetic_world("synth6")
    assert world.pool.n_systems == 6 and world.pool.labelled.all()
    runs = {}
    for policy in bench.POLICIES:
        runs[policy], _ = bench.run_cell(world, "top:3", "win_rate", "human", policy, 3, 50, 0.9)
    assert calls["first"] == 3 and calls["next"] >= 1
    assert calls["status"] == sum(r.looks for rs in runs.values() for r in rs)
    for r in runs["random"] + runs["next"]:
        # a stream ends settled or with the pool spent (or stalled), its votes what the status counted
        assert r.resolved or r.votes == world.pool.n_battles or r.stalled
        assert 50 <= r.votes <= world.pool.n_battles and r.votes <= 50 * r.looks
        assert r.familywise == (r.intervals or r.decisions)
    error, se = bench.rate([r.familywise for r in runs["random"]])
    assert 0.0 <= error <= 1.0 and se >= 0.0
    # the same seeds give the same streams
    again, _ = bench.run_cell(world, "top:3", "win_rate", "human", "next", 3, 50, 0.9)
    assert [r.votes for r in again] == [r.votes for r in runs["next"]]


@pytest.mark.slow
def test_the_stall_and_miss_detectors():
    from debias.stats.preferences.allocation import next_battles
    from debias.stats.preferences.status import pairs_status

    bench = _bench()
    world = bench.synthetic_world("synth6")
    pool = world.pool
    half = np.zeros(pool.n_battles, dtype=bool)
    half[: pool.n_battles // 2] = True
    data = pool.without_human(~half)  # the first half judged
    state = pairs_status(data, "ranks", level=0.9, estimand="win_rate", estimator="human")
    assert not state.resolved
    left = int((~half).sum())
    rng = np.random.default_rng(1)
    chosen = next_battles(data, state, 50, rng).battles
    assert chosen.size == 50 and not bench.stalled(state, chosen, left)
    # crafted: an open question whose status leaves no pair open, so nothing is eligible
    stuck = replace(state, open_pairs=np.zeros_like(state.open_pairs), open_systems=np.zeros_like(state.open_systems))
    nothing = next_battles(data, stuck, 50, rng).battles
    assert nothing.size == 0 and bench.stalled(stuck, nothing, left)
    assert not bench.stalled(stuck, nothing, 0)  # the pool spent is not a stall
    settled = pairs_status(pool, "better:s00,s01", level=0.9, estimand="win_rate", estimator="human")
    assert settled.resolved and not bench.stalled(settled, np.zeros(0, dtype=int), left)

    # the truth itself: nothing missed; the truth reversed: the settled "better" is a wrong decision
    truth = world.truth["win_rate"]
    assert bench.look_misses(settled, truth) == (False, False)
    assert bench.look_misses(settled, -truth)[1]
    ranked = pairs_status(pool, "top:3", level=0.9, estimand="win_rate", estimator="human")
    assert ranked.resolved and bench.look_misses(ranked, truth) == (False, False)
    assert bench.look_misses(ranked, -truth) == (True, True)


@pytest.mark.slow
def test_the_command_prints_a_table():
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--streams", "3", "--cells", "synth6/better*/win_rate/*"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    loop, guide = done.stdout.split("\n\n")[:2]  # the loop's table, then the votes guide's
    rows = [line for line in loop.splitlines() if line.startswith("| synth6")]
    assert len(rows) == 1 and "| better:s00,s01 | win_rate | human | 3 |" in rows[0]
    assert "more_votes" in guide and len([x for x in guide.splitlines() if x.startswith("| synth6")]) == 1
    assert "3/3 streams" in done.stderr
