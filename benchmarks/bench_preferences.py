"""Pairwise preferences on the Chatbot Arena battles: interval coverage, effective sample size and
the time and memory of one call.

Run:
    .venv/bin/python benchmarks/bench_preferences.py [--draws 400] [--n 1000] [--level 0.8]
    .venv/bin/python benchmarks/bench_preferences.py --scale 3000000

Coverage: n human battles drawn at random (without replacement) from the 26,919 of
``data/arena`` are the labelled set of one draw, the other battles its pool with the three
judges' verdicts; the target is each system's human win rate on all 26,919 battles (ties half a
win). Printed per estimator: the coverage averaged over systems and draws with its Monte-Carlo
standard error (the spread of the per-draw averages over sqrt(draws)), the lowest system's
coverage with sqrt(c (1 - c) / draws), and the effective sample size against ``human`` (per
draw the mean over systems of the ratio of squared widths, averaged over draws, with its
standard error). Win rates are computed for all draws at once
(:func:`debias.stats.preferences.estimands.win_rate_draws`); Bradley-Terry strengths, whose Newton fit
differs per draw, one draw at a time on the first ``--strength-draws`` draws.

Timing: one ``debias.preferences`` call on all Arena battles with three judges (from the data
frame: reading, all estimators of both estimands), and ``--scale N``: N synthetic battles
(20 systems, 1% with a human verdict, three judges) in a fresh process, with the process's peak
resident memory (frame included) from ``getrusage``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core, as stated in the printout

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy.special import ndtri  # noqa: E402

import debias  # noqa: E402
from debias.io.pairs import read_pair_table  # noqa: E402
from debias.stats.common.resampling import setting_seed  # noqa: E402
from debias.stats.common.vocabulary import is_biased  # noqa: E402
from debias.stats.preferences.estimands import (  # noqa: E402
    bradley_terry,
    preference_estimator_names,
    win_rate_draws,
    win_rates,
)

REPO = Path(__file__).resolve().parent.parent
ARENA = REPO / "data" / "arena"
JUDGES = {"gpt-4": "gpt-4-0125-preview", "claude-3-opus": "claude-3-opus-20240229", "gpt-3.5": "gpt-3.5-turbo"}
#: The battle number is the item: nine questions were battled twice by the same two systems, and
#: the judges' verdicts differ between the two conversations.
COLUMNS = dict(item="num", system_a="model_a", system_b="model_b", verdict="winner")


def arena_frame() -> pd.DataFrame:
    """The human battles with one column per judge's verdict (joined on the battle number)."""

    def rows(name):
        with gzip.open(ARENA / f"{name}.jsonl.gz", "rt", encoding="utf-8") as handle:
            return pd.DataFrame([json.loads(line) for line in handle]).set_index("num")

    frame = rows("human")
    for short, name in JUDGES.items():
        judge = rows(name)
        same = (judge[["model_a", "model_b", "question_id"]] == frame[["model_a", "model_b", "question_id"]]).all()
        assert same.all(), f"{name}: battles differ from the human file"
        frame[short] = judge["winner"]
    return frame.reset_index()


def labelled_masks(n_battles: int, n: int, draws: int, rng) -> np.ndarray:
    order = np.argsort(rng.random((draws, n_battles)), axis=1)[:, :n]
    mask = np.zeros((draws, n_battles), bool)
    np.put_along_axis(mask, order, True, axis=1)
    return mask


def coverage(frame: pd.DataFrame, n: int, draws: int, level: float, strength_draws: int, chunk: int = 50) -> None:
    pairs = read_pair_table(frame, **COLUMNS, judges=list(JUDGES))
    names = preference_estimator_names(pairs.judges)
    truth = win_rates(pairs, "human", level=level).estimate
    z = ndtri(0.5 + level / 2.0)
    rng = np.random.default_rng(setting_seed(0, "arena", "preferences", n))
    covered = {name: [] for name in names}
    squared_se = {name: [] for name in names}
    masks = []
    start = time.perf_counter()
    for first in range(0, draws, chunk):
        mask = labelled_masks(pairs.n_battles, n, min(chunk, draws - first), rng)
        masks.append(mask[: max(0, strength_draws - first)])
        for name, (estimate, covariance, _) in win_rate_draws(pairs, mask, names, level=level).items():
            se = np.sqrt(np.einsum("...ss->...s", covariance))
            estimate, se = (
                np.broadcast_to(estimate, (mask.shape[0], pairs.n_systems)),
                np.broadcast_to(se, (mask.shape[0], pairs.n_systems)),
            )
            covered[name].append(np.abs(estimate - truth) <= z * se)
            squared_se[name].append(se**2)
    elapsed = time.perf_counter() - start
    print(
        f"\nArena win rates: {pairs.n_battles} battles, {pairs.n_systems} systems, n = {n} human battles per draw, "
        f"{draws} draws, level {level}; {elapsed:.1f} s for all draws and estimators"
    )
    print(f"{'estimator':22s} {'coverage':>16s} {'lowest system':>22s} {'ESS vs human':>16s}")
    base = np.concatenate(squared_se["human"])
    for name in names:
        hits = np.concatenate(covered[name]).astype(float)
        per_draw = hits.mean(axis=1)
        per_system = hits.mean(axis=0)
        low = int(np.argmin(per_system))
        low_se = np.sqrt(per_system[low] * (1 - per_system[low]) / draws)
        text = f"{name:22s} {per_draw.mean():8.3f} ± {per_draw.std(ddof=1) / np.sqrt(draws):.3f}"
        text += f"   {per_system[low]:.3f} ± {low_se:.3f} ({pairs.systems[low][:12]})"
        if not is_biased(name):
            ratio = (base / np.concatenate(squared_se[name])).mean(axis=1)
            text += f"   {ratio.mean():6.3f} ± {ratio.std(ddof=1) / np.sqrt(draws):.3f}"
        print(text)
    if strength_draws:
        strengths(pairs, np.concatenate(masks)[:strength_draws], level)


def strengths(pairs, masks, level: float) -> None:
    """Coverage of the full-data human strengths, one draw at a time."""
    truth = bradley_terry(pairs, "human", level=level).estimate
    names = [name for name in preference_estimator_names(pairs.judges) if not is_biased(name)]
    covered = {name: [] for name in names}
    squared = {name: [] for name in names}
    start = time.perf_counter()
    for mask in masks:
        draw = pairs.without_human(~mask)
        for name in names:
            result = bradley_terry(draw, name, level=level)
            inside = ((result.ci_low <= truth) & (truth <= result.ci_high)).astype(float)
            covered[name].append(np.where(np.isfinite(result.se), inside, np.nan))  # a reason: no interval
            squared[name].append(result.se**2)
    draws = len(masks)
    blank = int(np.isnan(np.array(covered["human"])).sum())
    print(
        f"\nArena strengths (centred log-odds): {draws} draws, {time.perf_counter() - start:.1f} s; "
        f"{blank} system x draw cells without a human interval (left out)"
    )
    print(f"{'estimator':22s} {'coverage':>16s} {'lowest system':>16s} {'ESS vs human':>16s}")
    base = np.array(squared["human"])
    for name in names:
        hits = np.array(covered[name], dtype=float)
        per_draw, per_system = np.nanmean(hits, axis=1), np.nanmean(hits, axis=0)
        ratio = np.nanmean(base / np.array(squared[name]), axis=1)
        low = per_system.min()
        print(
            f"{name:22s} {per_draw.mean():8.3f} ± {per_draw.std(ddof=1) / np.sqrt(draws):.3f}"
            f"   {low:.3f} ± {np.sqrt(low * (1 - low) / draws):.3f}"
            f"   {ratio.mean():6.3f} ± {ratio.std(ddof=1) / np.sqrt(draws):.3f}"
        )


def arena_call(frame: pd.DataFrame, level: float) -> None:
    times = []
    for _ in range(3):
        start = time.perf_counter()
        table = debias.preferences(frame, **COLUMNS, judges=list(JUDGES), level=level)
        times.append(time.perf_counter() - start)
    print(
        f"\none debias.preferences call, all {len(frame)} Arena battles x 3 judges ({len(table)} rows): "
        f"first {times[0]:.2f} s, best of 3 {min(times):.2f} s (load average {os.getloadavg()[0]:.1f})"
    )


def synthetic_frame(n: int, seed: int = 0) -> pd.DataFrame:
    """n battles among 20 systems (Bradley-Terry with ties), 1% with a human verdict, three judges
    agreeing with it 70% of the time."""
    rng = np.random.default_rng(seed)
    n_systems = 20
    strength = np.linspace(-1.5, 1.5, n_systems)
    a = rng.integers(0, n_systems, n)
    b = (a + rng.integers(1, n_systems, n)) % n_systems
    p = 1.0 / (1.0 + np.exp(strength[b] - strength[a]))
    u = rng.random(n)
    human = np.where(u < 0.2, 0.5, (u < 0.2 + 0.8 * p).astype(float))
    spelling = np.array(["model_b", "tie", "model_a"], dtype=object)
    names = np.array([f"model-{k}" for k in range(n_systems)], dtype=object)
    labelled = rng.random(n) < 0.01
    columns = {
        "num": pd.RangeIndex(n).astype(str),
        "model_a": names[a],
        "model_b": names[b],
        "winner": np.where(labelled, spelling[(human * 2).astype(int)], None),
    }
    for j in range(3):
        verdict = np.where(rng.random(n) < 0.7, human, rng.choice([0.0, 0.5, 1.0], n))
        columns[f"judge{j}"] = spelling[(verdict * 2).astype(int)]
    return pd.DataFrame(columns)


def scale_child(n: int) -> None:
    frame = synthetic_frame(n)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
    start, cpu = time.perf_counter(), time.process_time()
    table = debias.preferences(frame, **COLUMNS, judges=["judge0", "judge1", "judge2"], level=0.8)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
    print(
        f"{n} synthetic battles x 3 judges ({len(table)} rows): {wall:.1f} s wall, {cpu:.1f} s CPU; peak RSS "
        f"{peak:.2f} GB (the frame alone {before:.2f} GB; load average {os.getloadavg()[0]:.1f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=400)
    parser.add_argument("--strength-draws", type=int, default=200)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--level", type=float, default=0.8)
    parser.add_argument("--scale", type=int, default=0, help="time N synthetic battles in a fresh process")
    parser.add_argument("--scale-child", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.scale_child:
        scale_child(args.scale_child)
        return
    if args.scale:
        subprocess.run([sys.executable, __file__, "--scale-child", str(args.scale)], check=True)
        return
    frame = arena_frame()
    arena_call(frame, args.level)
    coverage(frame, args.n, args.draws, args.level, args.strength_draws)


if __name__ == "__main__":
    main()
