"""Simultaneous rank-sets: their coverage and size on Chatbot Arena, and a large ratings leaderboard.

Run:
    python benchmarks/bench_ranking.py arena [--draws 500] [--n 1000] [--level 0.9]
    python benchmarks/bench_ranking.py ratings [--systems 20] [--items 20000]
    python benchmarks/bench_ranking.py ratings-coverage [--draws 400] [--level 0.8]

``arena``: the 12 models of Chatzi et al. (NeurIPS 2024), their decisive human battles (human
ties left out). The truth is the ranking by human win rate on all of them. Each draw takes n
battles at random as the human-labelled ones; GPT-4 (0125 preview) judges every battle, and
the battles not drawn are the judge-only pool. Per draw and estimator, the rank-sets of
:func:`debias.stats.common.ranking.rank_sets` (max-|t| of the pairwise contrasts under the joint
covariance), its step-down version (``step_down=True``, systems in canonical order, as the
preference leaderboards compute it) and Chatzi et al.'s chi-square projection (the same pairwise rule with the critical
value sqrt(chi2_S(level)), computed here with :func:`debias.stats.common.ranking.rank_bounds`) on the
same estimates and covariance; and the projection with the covariance normalised as their
released ``estimate.py`` does (every model's sums divided by n^2 instead of n_m n_l). Prints
the simultaneous coverage of the true ranking with its Monte-Carlo s.e. and the mean rank-set
size (mean over draws of the mean over models, with its s.e. over draws).

A model's win rate is the share of its battles it wins (human battles are decisive; a judge's
tie counts half, an unparseable verdict is missing). ``human`` and ``ppi++:judge`` are the
pairwise-preference estimators of :mod:`debias.stats.preferences.estimands` (``win_rate_draws``: many
labelled sets at once) with their joint covariance (a battle's two models get opposite terms).

``ratings``: a synthetic evaluation with S systems judged on the same N items (a shared item
effect, one metric, half the items judged twice), through :func:`debias.leaderboard`; prints the
time of the call. ``ratings-coverage``: the simultaneous level of the ratings leaderboard for
every estimator (``mean``, ``cv``, ``ppi++``), on simulated evaluations of systems with equal
means, where the level is attained exactly.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy.stats import chi2  # noqa: E402

from debias.io.pairs import read_pair_table  # noqa: E402
from debias.stats.common.ranking import max_contrast_quantile, point_ranks, rank_bounds, rank_sets  # noqa: E402
from debias.stats.common.resampling import setting_seed  # noqa: E402
from debias.stats.preferences.estimands import win_rate_draws, win_rates  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
#: The 12 models of Chatzi et al.'s study (their scripts/config.json).
MODELS = [
    "vicuna-13b",
    "koala-13b",
    "gpt-3.5-turbo",
    "gpt-4",
    "oasst-pythia-12b",
    "alpaca-13b",
    "claude-v1",
    "RWKV-4-Raven-14B",
    "chatglm-6b",
    "fastchat-t5-3b",
    "palm-2",
    "claude-instant-v1",
]
JUDGE = "gpt-4-0125-preview"


def read_verdicts(name: str) -> pd.DataFrame:
    with gzip.open(ROOT / "data" / "arena" / f"{name}.jsonl.gz", "rt") as f:
        return pd.DataFrame([json.loads(line) for line in f]).set_index("num")


def arena_pairs():
    """The decisive human battles among the 12 models with GPT-4's verdicts, as
    :class:`debias.data.JudgedPairs` (a judge's tie counts half; an unparseable verdict is missing)."""
    human, judge = read_verdicts("human"), read_verdicts(JUDGE)
    frame = human.assign(judge=judge["winner"]).reset_index()
    keep = frame["model_a"].isin(MODELS) & frame["model_b"].isin(MODELS) & frame["winner"].isin(["model_a", "model_b"])
    columns = dict(item="num", system_a="model_a", system_b="model_b", verdict="winner")
    return read_pair_table(frame[keep], **columns, judges=["judge"])


def summarise(name, low, high, truth, draws):
    covered = np.all((low <= truth) & (truth <= high), axis=1)
    size = (high - low + 1).mean(axis=1)
    cov, cov_se = covered.mean(), covered.std(ddof=1) / np.sqrt(draws)
    size_se = size.std(ddof=1) / np.sqrt(draws)
    print(f"  {name:<44} coverage {cov:.3f} (s.e. {cov_se:.3f})   mean size {size.mean():.3f} (s.e. {size_se:.3f})")
    return size


def arena(args) -> None:
    start = time.perf_counter()
    pairs = arena_pairs()
    systems = pairs.systems
    truth = point_ranks(win_rates(pairs, "human", level=args.level).estimate)
    s, total = len(systems), pairs.n_battles
    print(
        f"== Chatbot Arena: {s} models, {total} decisive human battles, judge {JUDGE}; n = {args.n} labelled, "
        f"{args.draws} draws, level {args.level}"
    )
    print("  truth (rank by human win rate on all):", dict(zip(systems, truth.tolist())))
    rng = np.random.default_rng(setting_seed(0, "bench_ranking", "arena", args.n, args.draws))
    names = ["human", "ppi++:judge"]
    draws = {name: ([], [], []) for name in names}
    for first in range(0, args.draws, 50):  # labelled sets of n battles, 50 draws per call
        count = min(50, args.draws - first)
        order = np.argsort(rng.random((count, total)), axis=1)[:, : args.n]
        mask = np.zeros((count, total), bool)
        np.put_along_axis(mask, order, True, axis=1)
        for name, parts in win_rate_draws(pairs, mask, names, level=args.level).items():
            for store, part in zip(draws[name], parts):
                store.append(part)
    chi = np.sqrt(chi2.ppf(args.level, s))
    results = {}
    for name in names:
        theta, cov, n_m = (np.concatenate(part) for part in draws[name])
        i, j = np.triu_indices(s, k=1)
        spread = np.var(theta[:, i] - theta[:, j], axis=0, ddof=1)  # over draws, per pair
        predicted = (cov[:, i, i] + cov[:, j, j] - 2 * cov[:, i, j]).mean(axis=0)
        print(
            f"- {name}: variance of the pairwise differences over draws / mean estimated: "
            f"{np.mean(spread / predicted):.3f} on average over pairs (sampling {args.n} of {total} without "
            f"replacement: expected 1 - n/N = {1 - args.n / total:.3f})"
        )
        c = np.array([max_contrast_quantile(cov[d], args.level, n_draws=args.mc, rng=rng) for d in range(args.draws)])
        print(f"  max-|t| critical value {c.mean():.3f} on average; chi-square projection {chi:.3f}")
        low, high, _ = rank_bounds(theta, cov, c)
        results[name] = summarise("max-|t| rank-sets (this project)", low, high, truth, args.draws)
        low, high, _ = rank_bounds(theta, cov, chi)
        chatzi = summarise("chi-square projection, corrected covariance", low, high, truth, args.draws)
        ratio = results[name] / chatzi
        ratio_se = ratio.std(ddof=1) / np.sqrt(args.draws)
        print(f"  size ratio max-|t| / chi-square: {ratio.mean():.3f} (s.e. {ratio_se:.3f})")
        sets = [
            rank_sets(theta[d], cov[d], level=args.level, systems=systems, n_draws=args.mc, rng=rng, step_down=True)
            for d in range(args.draws)
        ]
        low, high = np.array([r.rank_low for r in sets]), np.array([r.rank_high for r in sets])
        print(f"  step-down critical value {np.mean([r.critical_value for r in sets]):.3f} on average (last step)")
        down = summarise("step-down max-|t| (preference leaderboards)", low, high, truth, args.draws)
        ratio = down / chatzi
        ratio_se = ratio.std(ddof=1) / np.sqrt(args.draws)
        print(f"  size ratio step-down / chi-square: {ratio.mean():.3f} (s.e. {ratio_se:.3f})")
        ratio = down / results[name]
        print(
            f"  size ratio step-down / max-|t|: {ratio.mean():.3f} (s.e. {ratio.std(ddof=1) / np.sqrt(args.draws):.3f})"
        )
        if name == "human":  # the released estimate.py divides every model's sums by n^2, not n_m n_l
            released = cov * (n_m[:, :, None] * n_m[:, None, :]) / args.n**2
            low, high, _ = rank_bounds(theta, released, chi)
            summarise("chi-square projection, covariance / n^2 (as released)", low, high, truth, args.draws)
    difference = results["ppi++:judge"] - results["human"]
    print(
        f"- ppi++:judge minus human, mean size on the same draws: {difference.mean():.3f} "
        f"(s.e. {difference.std(ddof=1) / np.sqrt(args.draws):.3f})"
    )
    print(f"  ({time.perf_counter() - start:.1f} s)")


def ratings(args) -> None:
    import debias

    rng = np.random.default_rng(setting_seed(0, "bench_ranking", "ratings", args.systems, args.items))
    s, n = args.systems, args.items
    item = rng.normal(0, 1, n)
    quality = item[None, :] + np.linspace(0, 0.5, s)[:, None] + rng.normal(0, 0.5, (s, n))
    twice = rng.random(n) < 0.5
    first = quality + rng.normal(0, 0.5, (s, n))
    second = quality + rng.normal(0, 0.5, (s, n))
    metric = quality + rng.normal(0, 0.7, (s, n))
    systems = np.repeat([f"sys{k:02d}" for k in range(s)], n)
    items = np.tile([f"i{i}" for i in range(n)], s)
    frame = pd.DataFrame({"item": items, "system": systems, "score": first.ravel(), "metric": metric.ravel()})
    extra = pd.DataFrame(
        {
            "item": items[np.tile(twice, s)],
            "system": systems[np.tile(twice, s)],
            "score": second[:, twice].ravel(),
            "metric": metric[:, twice].ravel(),
        }
    )
    frame = pd.concat([frame, extra], ignore_index=True)
    print(f"== ratings leaderboard: {s} systems x {n} items, {len(frame)} judgments, one metric")
    start, cpu = time.perf_counter(), time.process_time()
    table = debias.leaderboard(frame, item="item", judgment="score", system="system", scores=["metric"], level=0.9)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    for estimator, rows in table.groupby("estimator", sort=False):
        size = (rows["rank_high"] - rows["rank_low"] + 1).mean()
        print(f"  {estimator:<12} mean rank-set size {size:.2f}")
    print(f"  debias.leaderboard: {elapsed:.2f} s wall, {cpu:.2f} s CPU ({len(table)} rows)")


def ratings_coverage(args) -> None:
    """The level of the ratings leaderboard's rank-sets, through :func:`debias.leaderboard`, on
    a world where every system has the same mean: all true ranks are 1, and the rank-sets hold
    exactly when no pair is separated, which the construction makes happen with probability
    ``level`` (for every estimator, with its own terms and covariance)."""
    import debias

    rng = np.random.default_rng(setting_seed(0, "bench_ranking", "ratings-coverage", args.systems, args.n))
    s, big_n, n = args.systems, args.outputs, args.n
    item = rng.normal(0, 1, big_n)
    quality = item[None, :] + rng.normal(0, 0.5, (s, big_n))
    quality -= quality.mean(axis=1, keepdims=True)  # equal true means
    metric = quality + rng.normal(0, 0.7, (s, big_n))
    names = [f"sys{k:02d}" for k in range(s)]
    population = pd.DataFrame(
        {"item": np.tile(np.arange(big_n).astype(str), s), "system": np.repeat(names, big_n), "metric": metric.ravel()}
    )
    print(
        f"== ratings rank-sets' level: {s} systems with equal means, N = {big_n} outputs each, n = {n} judged "
        f"items (the same for every system, half judged twice), {args.draws} draws, level {args.level}"
    )
    start = time.perf_counter()
    held: dict[str, list[bool]] = {}
    sizes: dict[str, list[float]] = {}
    for _ in range(args.draws):  # one public call per simulated evaluation
        idx = rng.choice(big_n, n, replace=False)
        twice = idx[: n // 2]
        rows_item = np.concatenate([np.tile(idx, s), np.tile(twice, s)])
        rows_system = np.concatenate([np.repeat(np.arange(s), n), np.repeat(np.arange(s), twice.size)])
        judged = quality[rows_system, rows_item] + rng.normal(0, 0.5, rows_item.size)
        frame = pd.DataFrame(
            {
                "item": rows_item.astype(str),
                "system": np.array(names)[rows_system],
                "score": judged,
                "metric": metric[rows_system, rows_item],
            }
        )
        table = debias.leaderboard(
            frame, item="item", judgment="score", system="system", scores=["metric"], population=population,
            level=args.level,
        )  # fmt: skip
        for estimator, rows in table.groupby("estimator", sort=False):
            held.setdefault(estimator, []).append(bool((rows["rank_low"] == 1).all()))
            sizes.setdefault(estimator, []).append(float((rows["rank_high"] - rows["rank_low"] + 1).mean()))
    for estimator, values in held.items():
        rate = np.mean(values)
        se = np.sqrt(rate * (1 - rate) / len(values))
        print(f"  {estimator:<12} rank-sets hold {rate:.3f} (s.e. {se:.3f}); mean size {np.mean(sizes[estimator]):.2f}")
    print(f"  ({time.perf_counter() - start:.1f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    a = sub.add_parser("arena")
    a.add_argument("--draws", type=int, default=500)
    a.add_argument("--n", type=int, default=1000)
    a.add_argument("--level", type=float, default=0.9)
    a.add_argument("--mc", type=int, default=20_000, help="Gaussian draws per critical value")
    r = sub.add_parser("ratings")
    r.add_argument("--systems", type=int, default=20)
    r.add_argument("--items", type=int, default=20_000)
    c = sub.add_parser("ratings-coverage")
    c.add_argument("--systems", type=int, default=6)
    c.add_argument("--outputs", type=int, default=2000)
    c.add_argument("--n", type=int, default=200)
    c.add_argument("--draws", type=int, default=400)
    c.add_argument("--level", type=float, default=0.8)
    args = parser.parse_args()
    {"arena": arena, "ratings": ratings, "ratings-coverage": ratings_coverage}[args.what](args)


if __name__ == "__main__":
    main()
