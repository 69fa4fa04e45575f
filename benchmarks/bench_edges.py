"""Win-rate intervals and rank-sets at small n: two equal systems, and coverage, before and after.

Run:
    python benchmarks/bench_edges.py [--draws 4000] [--level 0.9]
    python benchmarks/bench_edges.py coverage [--draws 500] [--n 300] [--level 0.9]

Two systems x and y meet in battles only against each other. A pool of battles is built with
exact shares (x wins 45%, y wins 45%, a tie 10%: equal systems; and x wins 70%, y 20%, a tie
10%: a win rate of 0.75), and each draw labels n battles of it at random (without replacement,
n a few per cent of the pool or less), through :func:`debias.stats.preferences.estimands.win_rate_draws`
(the people-only estimator, vectorised over draws). Printed, with Monte-Carlo standard errors:

(a) the share of draws in which the simultaneous rank-sets at ``level`` separate the two equal
systems (rank-sets [1, 1] and [2, 2]; a valid procedure does so in at most 1 - level of draws),
at n = 3, 5, 10 and 40;
(b) the coverage of x's win-rate interval at n = 3, 5, 10, 40 and 100, in both worlds.

"before" is the normal (Wald) interval on the sandwich covariance, as the package computed it
until 2026-11-26 (``win_rate_core`` without the small-sample widening); "after" is the
package's interval (:func:`debias.stats.common.intervals.proportion_covariance`: the interval about the
estimate contains the Agresti-Coull interval). Exact probabilities (enumerating the
multinomial outcomes of n battles drawn with replacement) are printed beside the simulated ones.

``coverage``: every system's win rate and Bradley-Terry strength at n human battles, people only
and PPI++. A Bradley-Terry world of 10 systems (strengths N(0, 1), no ties) whose popularity is
log-normal (sigma 2), so that a pair meets in proportion to the product of its systems'
popularities and a few systems get under 10 of the n human battles; a pool of 6,000 battles
with people's verdicts on all of them and a judge that agrees with people on 80% of them (the
opposite verdict otherwise). The truth is the estimand on the whole pool (people's win rate, and
the Bradley-Terry fit of people's verdicts on all 6,000 battles). Each draw labels n battles at
random; the others are the judge-only pool of PPI++. Printed: the coverage of the intervals at
``level``, over the (draw, system) cells, separately for systems with 1-4, 5-9 and at least 10
human battles in the draw (Monte-Carlo s.e. from the spread over draws of each draw's share; a
cell without an interval, e.g. a strength not identifiable, is counted as missing and reported).
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from scipy.special import ndtri  # noqa: E402
from scipy.stats import multinomial  # noqa: E402

from debias.data import JudgedPairs  # noqa: E402
from debias.stats.common.intervals import proportion_covariance  # noqa: E402
from debias.stats.common.ranking import max_contrast_quantile, rank_bounds  # noqa: E402
from debias.stats.preferences.battles import labelled_groups  # noqa: E402
from debias.stats.preferences.bradley_terry import bradley_terry  # noqa: E402
from debias.stats.preferences.estimands import win_rate_draws, win_rates  # noqa: E402
from debias.stats.preferences.win_rate import win_rate_core  # noqa: E402

POOL = 4000


def pool(shares, rng) -> JudgedPairs:
    """POOL battles of x against y with exact shares (x wins, y wins, tie), shuffled."""
    counts = np.round(np.asarray(shares) * POOL).astype(int)
    verdicts = np.repeat([1.0, 0.0, 0.5], counts)
    rng.shuffle(verdicts)
    return JudgedPairs.from_arrays(["x"] * POOL, ["y"] * POOL, verdicts)


def draws(pairs, n, repeats, level, rng):
    """(before, after): each (estimate (R, 2), covariance (R, 2, 2)) of the people-only win rates."""
    keys = rng.random((repeats, POOL))
    masks = keys <= np.partition(keys, n - 1, axis=1)[:, [n - 1]]
    after = win_rate_draws(pairs, masks, ["human"], level=level)["human"][:2]
    groups, forms = labelled_groups(pairs, "half", masks)
    before = win_rate_core(groups, forms[0], [])[:2]
    return before, after


def exact(shares, n, level):
    """Exact separation and coverage of the Wald and widened intervals for n battles (with replacement)."""
    z = ndtri(0.5 + level / 2.0)
    truth = shares[0] + shares[2] / 2.0
    out = np.zeros(4)  # separated (Wald, widened), covered (Wald, widened)
    for w in range(n + 1):
        for t in range(n + 1 - w):
            p = multinomial.pmf([w, n - w - t, t], n, shares)
            theta = (w + t / 2.0) / n
            wald = (w * (1 - theta) ** 2 + t * (0.5 - theta) ** 2 + (n - w - t) * theta**2) / n / n
            wide = float(proportion_covariance([theta], [[wald]], [n], level)[0, 0])
            for k, v in enumerate((wald, wide)):
                out[k] += p * (abs(theta - 0.5) > z * np.sqrt(v))  # two systems: c = z, contrast sd 2 se
                out[2 + k] += p * (abs(theta - truth) <= z * np.sqrt(v))
    return out


SYSTEMS, COVERAGE_POOL = 10, 6000
BANDS = ((1, 4), (5, 9), (10, None))


def bt_world(rng):
    """The pool of the coverage benchmark: (pairs with people's verdict on every battle and the judge's)."""
    theta = rng.normal(size=SYSTEMS)
    popularity = np.exp(2.0 * rng.normal(size=SYSTEMS))
    i, j = np.triu_indices(SYSTEMS, k=1)
    weight = popularity[i] * popularity[j]
    pick = rng.choice(i.size, size=COVERAGE_POOL, p=weight / weight.sum())
    a, b = i[pick], j[pick]
    swap = rng.random(COVERAGE_POOL) < 0.5
    a, b = np.where(swap, b, a), np.where(swap, a, b)
    human = (rng.random(COVERAGE_POOL) < 1.0 / (1.0 + np.exp(theta[b] - theta[a]))).astype(float)
    judge = np.where(rng.random(COVERAGE_POOL) < 0.8, human, 1.0 - human)
    names = [f"s{k}" for k in range(SYSTEMS)]
    return JudgedPairs.from_arrays([names[k] for k in a], [names[k] for k in b], human, {"judge": judge}, systems=names)


def band_table(title, covered, valid, n_human, level):
    """Coverage per band of human battles: share of covered cells among those with an interval."""
    print(f"  {title}")
    for low, high in BANDS:
        cell = (n_human >= low) & (n_human <= (high if high is not None else np.inf))
        has = cell & valid
        per_draw = np.array([covered[d][has[d]].mean() for d in range(covered.shape[0]) if has[d].any()])
        share = covered[has].mean() if has.any() else np.nan
        se = per_draw.std(ddof=1) / np.sqrt(per_draw.size) if per_draw.size > 1 else np.nan
        band = f"{low}-{high}" if high is not None else f">={low}"
        flag = "" if not np.isfinite(share) or share >= level - 0.05 else "   below level - 0.05"
        print(
            f"    {band:>5} human battles: coverage {share:.3f} (s.e. {se:.3f}) over {int(has.sum())} cells"
            f" in {per_draw.size} draws; {int((cell & ~valid).sum())} cells without an interval{flag}"
        )


def coverage(args) -> None:
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    world = bt_world(rng)
    level, repeats, n = args.level, args.draws, args.n
    z = ndtri(0.5 + level / 2.0)
    estimators = ["human", "ppi++:judge"]
    truth_rate = win_rates(world, "human", level=level).estimate
    truth_strength = bradley_terry(world, "human", level=level).estimate
    expected = np.bincount(np.r_[world.system_a, world.system_b], minlength=SYSTEMS) * n / COVERAGE_POOL
    print(
        f"coverage at n = {n} human battles of a pool of {COVERAGE_POOL} ({SYSTEMS} systems, judge 80% accurate), "
        f"level {level}, {repeats} draws"
    )
    print("  expected human battles per system:", np.round(np.sort(expected), 1).tolist())
    keys = rng.random((repeats, COVERAGE_POOL))
    masks = keys <= np.partition(keys, n - 1, axis=1)[:, [n - 1]]
    rates = win_rate_draws(world, masks, estimators, level=level)
    n_human = rates["human"][2]
    for name in estimators:
        estimate, covariance = rates[name][:2]
        half = z * np.sqrt(np.diagonal(covariance, axis1=1, axis2=2))
        low, high = np.clip(estimate - half, 0, 1), np.clip(estimate + half, 0, 1)
        valid = np.isfinite(low) & np.isfinite(high)
        band_table(f"win rate, {name}", (low <= truth_rate) & (truth_rate <= high), valid, n_human, level)
    for name in estimators:
        low = np.full((repeats, SYSTEMS), np.nan)
        high = np.full((repeats, SYSTEMS), np.nan)
        for d in range(repeats):
            fit = bradley_terry(world.without_human(~masks[d]), name, level=level)
            low[d], high[d] = fit.ci_low, fit.ci_high
        valid = np.isfinite(low) & np.isfinite(high)
        band_table(f"strength, {name}", (low <= truth_strength) & (truth_strength <= high), valid, n_human, level)
    print(f"\n{time.perf_counter() - start:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", nargs="?", choices=["separation", "coverage"], default="separation")
    parser.add_argument("--draws", type=int, default=None, help="default 4000 (separation), 500 (coverage)")
    parser.add_argument("--n", type=int, default=300, help="human battles per draw (coverage)")
    parser.add_argument("--level", type=float, default=0.9)
    parser.add_argument("--seed", type=int, default=20261126)
    args = parser.parse_args()
    if args.what == "coverage":
        args.draws = args.draws or 500
        coverage(args)
        return
    args.draws = args.draws or 4000
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    level, repeats = args.level, args.draws
    c = max_contrast_quantile(np.array([[1.0, -1.0], [-1.0, 1.0]]), level)
    equal = pool([0.45, 0.45, 0.10], rng)
    print(f"(a) two equal systems (45% x, 45% y, 10% tie), rank-sets at level {level}: share of {repeats} draws")
    print("    separating them (Monte-Carlo s.e.; exact, battles with replacement)")
    print("  n   before (Wald)          after                  exact before / after")
    for n in (3, 5, 10, 40):
        shares = []
        for estimate, covariance in draws(equal, n, repeats, level, rng):
            low, high, _ = rank_bounds(estimate, covariance, np.full(repeats, c))
            shares.append(np.mean((low[:, 0] == high[:, 0]) & (low[:, 1] == high[:, 1])))
        se = [np.sqrt(p * (1 - p) / repeats) for p in shares]
        e = exact([0.45, 0.45, 0.10], n, level)
        print(
            f"{n:3d}   {shares[0]:.3f} ({se[0]:.3f})        {shares[1]:.3f} ({se[1]:.3f})"
            f"        {e[0]:.3f} / {e[1]:.3f}"
        )
    print()
    print(f"(b) coverage of x's win-rate interval at level {level} ({repeats} draws; exact in brackets)")
    for shares in ([0.45, 0.45, 0.10], [0.70, 0.20, 0.10]):
        world = pool(shares, rng)
        truth = shares[0] + shares[2] / 2.0
        print(f"  world: x wins {shares[0]:.0%}, y {shares[1]:.0%}, tie {shares[2]:.0%} (win rate {truth})")
        print("  n     before (Wald)              after")
        for n in (3, 5, 10, 40, 100):
            covered = []
            for estimate, covariance in draws(world, n, repeats, level, rng):
                half = ndtri(0.5 + level / 2.0) * np.sqrt(covariance[:, 0, 0])
                low, high = np.clip(estimate[:, 0] - half, 0, 1), np.clip(estimate[:, 0] + half, 0, 1)
                covered.append(np.mean((low <= truth) & (truth <= high)))
            se = [np.sqrt(p * (1 - p) / repeats) for p in covered]
            e = exact(shares, n, level) if n <= 40 else [np.nan] * 4
            print(
                f"  {n:3d}   {covered[0]:.3f} ({se[0]:.3f}) [{e[2]:.3f}]"
                f"      {covered[1]:.3f} ({se[1]:.3f}) [{e[3]:.3f}]"
            )
    print(f"\n{time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
