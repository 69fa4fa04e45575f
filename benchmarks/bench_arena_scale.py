"""Arena-scale pairwise preferences: ``debias.preferences`` and the leaderboard beside a floor.

Run:
    python benchmarks/bench_arena_scale.py                     # 26,919 / 300k / 1M battles x 20 / 100 / 200 models
    python benchmarks/bench_arena_scale.py --large             # also 3M battles
    python benchmarks/bench_arena_scale.py --battles 3000000 --models 200 --repeats 3

Battles are Arena-like: model popularity log-normal (a model's share of battles proportional to
a log-normal weight, sigma 1), model A and model B drawn by popularity (never the same), the
verdict from Bradley-Terry strengths with 15% ties (a third of them "tie (bothbad)"), a unique
battle number as the item, a human verdict on 10% of the battles drawn at random (the others
are the judges' pool: an empty verdict), and three judges agreeing with the true outcome 80%,
70% and 60% of the time (else a verdict at random). Each size runs in a fresh process that
builds the frame, then times, in CPU seconds of the process (``time.process_time``, every
thread):

* the floor: the passes any analysis of the table needs, factorizing the item and the two
  system columns with pandas and one ``numpy.bincount`` grouping of the battles by ordered pair
  of systems and whether people judged them;
* ``debias.preferences`` on the frame (reading, both estimands, every estimator), and its ratio
  to the floor;
* the leaderboard's rank-sets (``debias.tables.leaderboard.preferences_leaderboard`` on the
  estimates: both estimands x 8 estimators, step-down, canonical order), which grows with the
  models, not with the battles;

each the median of ``--repeats`` after an untimed call on a small table (imports and first-call
set-up), and the process's peak resident memory (``ru_maxrss``, the frame included; the frame
alone is printed beside it).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np
import pandas as pd

SIZES = (26_919, 300_000, 1_000_000)
LARGE = (3_000_000,)
MODELS = (20, 100, 200)
JUDGES = ("gpt4", "claude3", "gpt35")
COLUMNS = dict(item="num", system_a="model_a", system_b="model_b", verdict="winner")


def arena_like_frame(n_battles: int, n_models: int, seed: int = 0) -> pd.DataFrame:
    """Arena-like battles (module notes) as a frame of text columns, as a JSONL file reads."""
    rng = np.random.default_rng(seed)
    popularity = rng.lognormal(0.0, 1.0, n_models)
    popularity /= popularity.sum()
    strength = rng.normal(0.0, 0.7, n_models)
    a = rng.choice(n_models, n_battles, p=popularity)
    b = rng.choice(n_models, n_battles, p=popularity)
    same = a == b
    while same.any():  # redraw B where it is A
        b[same] = rng.choice(n_models, int(same.sum()), p=popularity)
        same = a == b
    p_a = 1.0 / (1.0 + np.exp(strength[b] - strength[a]))
    u = rng.random(n_battles)
    outcome = np.where(u < 0.15, 2, np.where(rng.random(n_battles) < p_a, 0, 1))  # 0: A, 1: B, 2: tie
    outcome[(outcome == 2) & (rng.random(n_battles) < 1 / 3)] = 3
    spelling = np.array(["model_a", "model_b", "tie", "tie (bothbad)"], dtype=object)
    names = np.array([f"model-{k:03d}" for k in range(n_models)], dtype=object)
    labelled = rng.random(n_battles) < 0.10
    columns = {
        "num": np.char.add("b", np.arange(n_battles).astype(str)).astype(object),
        "model_a": names[a],
        "model_b": names[b],
        "winner": np.where(labelled, spelling[outcome], None),
    }
    for judge, agree in zip(JUDGES, (0.8, 0.7, 0.6)):
        said = np.where(rng.random(n_battles) < agree, outcome, rng.integers(0, 4, n_battles))
        columns[judge] = spelling[said]
    return pd.DataFrame(columns)


def floor(frame: pd.DataFrame) -> None:
    """The passes any analysis needs: items and systems coded, battles grouped once."""
    pd.factorize(frame["num"])
    codes, names = pd.factorize(pd.concat([frame["model_a"], frame["model_b"]], ignore_index=True))
    a, b = codes[: len(frame)], codes[len(frame) :]
    labelled = frame["winner"].notna().to_numpy()
    np.bincount((a * len(names) + b) * 2 + labelled, minlength=2 * len(names) ** 2)


def cpu_median(call, repeats: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        start = time.process_time()
        result = call()
        times.append(time.process_time() - start)
    return float(np.median(times)), result


def child(n_battles: int, n_models: int, repeats: int) -> dict:
    import debias
    from debias.io.pairs import read_pair_table
    from debias.stats.preferences.estimands import preference_estimates
    from debias.tables.leaderboard import preferences_leaderboard

    small = arena_like_frame(2_000, 5, seed=1)  # imports and first-call set-up, untimed
    preferences_leaderboard(
        preference_estimates(read_pair_table(small, **COLUMNS, judges=list(JUDGES)), level=0.9), level=0.9
    )
    debias.preferences(small, **COLUMNS, judges=list(JUDGES), level=0.9)
    frame = arena_like_frame(n_battles, n_models)
    frame_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    floor_cpu, _ = cpu_median(lambda: floor(frame), repeats)
    call = lambda: debias.preferences(frame, **COLUMNS, judges=list(JUDGES), level=0.9)  # noqa: E731
    preferences_cpu, table = cpu_median(call, repeats)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    pairs = read_pair_table(frame, **COLUMNS, judges=list(JUDGES))
    estimates = preference_estimates(pairs, level=0.9)
    board_cpu, board = cpu_median(lambda: preferences_leaderboard(estimates, level=0.9), repeats)
    return {
        "battles": n_battles,
        "models": n_models,
        "systems_seen": pairs.n_systems,
        "rows": len(table),
        "floor_cpu": floor_cpu,
        "preferences_cpu": preferences_cpu,
        "leaderboard_cpu": board_cpu,
        "leaderboard_rows": len(board),
        "peak_gb": peak,
        "frame_gb": frame_peak,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--battles", type=int, nargs="+", help="sizes (default 26,919 / 300k / 1M)")
    parser.add_argument("--models", type=int, nargs="+", default=list(MODELS))
    parser.add_argument("--large", action="store_true", help="also 3,000,000 battles (minutes, ~2 GB)")
    parser.add_argument("--repeats", type=int, default=1, help="CPU time is the median of this many calls")
    parser.add_argument("--child", nargs=3, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(*args.child)))
        return 0
    sizes = list(args.battles or SIZES) + (list(LARGE) if args.large and not args.battles else [])
    print(f"CPU seconds (median of {args.repeats}), peak RSS; load average {os.getloadavg()[0]:.1f} at the start")
    print(
        f"{'battles':>10s} {'models':>6s} {'floor':>7s} {'preferences':>11s} {'ratio':>6s} "
        f"{'leaderboard':>11s} {'peak GB':>8s} {'frame GB':>8s}"
    )
    for n_battles in sizes:
        for n_models in args.models:
            run = subprocess.run(
                [sys.executable, __file__, "--child", str(n_battles), str(n_models), str(args.repeats)],
                capture_output=True,
                text=True,
                check=False,
            )
            if run.returncode:
                print(f"{n_battles} x {n_models}: failed\n{run.stderr[-2000:]}", file=sys.stderr)
                return 1
            r = json.loads(run.stdout.strip().splitlines()[-1])
            print(
                f"{r['battles']:>10,} {r['models']:>6d} {r['floor_cpu']:7.2f} {r['preferences_cpu']:11.2f} "
                f"{r['preferences_cpu'] / r['floor_cpu']:6.1f} {r['leaderboard_cpu']:11.2f} "
                f"{r['peak_gb']:8.2f} {r['frame_gb']:8.2f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
