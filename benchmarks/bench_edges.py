"""Win-rate intervals and rank-sets at small n: two equal systems, and coverage, before and after.

Run:
    python benchmarks/bench_edges.py [--draws 4000] [--level 0.9]

Two systems x and y meet in battles only against each other. A pool of battles is built with
exact shares (x wins 45%, y wins 45%, a tie 10%: equal systems; and x wins 70%, y 20%, a tie
10%: a win rate of 0.75), and each draw labels n battles of it at random (without replacement,
n a few per cent of the pool or less), through :func:`debias.stats.preferences.win_rate_draws`
(the people-only estimator, vectorised over draws). Printed, with Monte-Carlo standard errors:

(a) the share of draws in which the simultaneous rank-sets at ``level`` separate the two equal
systems (rank-sets [1, 1] and [2, 2]; a valid procedure does so in at most 1 - level of draws),
at n = 3, 5, 10 and 40;
(b) the coverage of x's win-rate interval at n = 3, 5, 10, 40 and 100, in both worlds.

"before" is the normal (Wald) interval on the sandwich covariance, as the package computed it
until 2026-11-26 (``win_rate_core`` without the small-sample widening); "after" is the
package's interval (:func:`debias.stats.intervals.proportion_covariance`: the interval about the
estimate contains the Agresti-Coull interval). Exact probabilities (enumerating the
multinomial outcomes of n battles drawn with replacement) are printed beside the simulated ones.
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
from debias.stats.battles import labelled_groups  # noqa: E402
from debias.stats.intervals import proportion_covariance  # noqa: E402
from debias.stats.preferences import win_rate_draws  # noqa: E402
from debias.stats.ranking import max_contrast_quantile, rank_bounds  # noqa: E402
from debias.stats.win_rate import win_rate_core  # noqa: E402

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=4000)
    parser.add_argument("--level", type=float, default=0.9)
    parser.add_argument("--seed", type=int, default=20261126)
    args = parser.parse_args()
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
