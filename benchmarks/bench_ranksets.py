"""The familywise error of the step-down rank-sets in Gaussian worlds with a known covariance.

Run:
    python benchmarks/bench_ranksets.py [--repeats 4000] [--level 0.9] [--worlds NAME ...]
        [--before COMMIT] [--no-before]

Each world is a vector of true scores mu and a covariance Sigma (5 to 20 systems; all equal,
near ties, well separated, mixed; independent and correlated estimates). Its repeats draw the
estimates from N(mu, Sigma) at once, from a generator seeded by the world's name, and each
repeat gets the rank-sets of :func:`debias.stats.common.ranking.rank_sets` with the known Sigma
(``step_down=True``, default draws: what the leaderboards call). So that 4,000 repeats per
world take minutes, the step-down's steps are taken here with the module's own simulated
maximum, each step's critical value remembered by the pairs in play (the repeats of a world
share most of them); the first 50 repeats of every world are also ranked by ``rank_sets``
itself, and the run stops unless the critical value and the rank-sets are the same to the last
bit (:func:`step_down`). Per world and procedure the table gives

* ``rank FWER``: the share of repeats where some true rank is outside its rank-set (true rank
  1 + #{systems truly better}, ties sharing the best rank of the tie);
* ``sign FWER``: the share where some pair is declared in the wrong order (i surely better than
  j while mu_i <= mu_j); a rank outside its set needs such a declaration, so it is at least
  the rank FWER;
* their Monte-Carlo standard errors, the mean last critical value and the mean rank-set size.

Procedures: ``single`` (the single step: one critical value for every repeat, the rank-sets of
all repeats at once through :func:`debias.stats.common.ranking.rank_bounds`), ``after`` (the
step-down of this tree) and ``before`` (the step-down of the module at ``--before``, default
842a8dc, read with ``git show`` and imported beside this tree's; skipped without git or with
``--no-before``). The target: every sign FWER at most 1 - level + 2 s.e.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from debias.stats.common import ranking  # noqa: E402
from debias.stats.common.ranking import max_contrast_quantile, point_ranks, rank_bounds  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MODULE = "src/debias/stats/common/ranking.py"
BEFORE = "842a8dc"
PROCEDURES = ("single", "before", "after")
#: Repeats per world also ranked by the module's ``rank_sets`` itself (the same numbers required).
CHECK = 50


def seed_of(name: str) -> int:
    """A generator seed from a name: the first 8 bytes of its SHA-256."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "little")


def equicorrelated(sd, rho: float) -> np.ndarray:
    sd = np.asarray(sd, dtype=float)
    return (rho * np.ones((sd.size, sd.size)) + (1 - rho) * np.eye(sd.size)) * np.outer(sd, sd)


def factor(rng, s: int, loadings: int = 2, strength: float = 0.8) -> np.ndarray:
    """A covariance of unit-order variances with ``loadings`` shared factors (correlations of
    either sign) and spread variances."""
    spread = np.exp(rng.normal(0.0, 0.3, s))
    weights = rng.normal(0.0, strength, (s, loadings))
    return np.diag(spread**2) + weights @ weights.T


@dataclass(frozen=True)
class World:
    name: str
    mu: np.ndarray
    sigma: np.ndarray


def worlds() -> list[World]:
    """The worlds, their true scores in units of a difference's standard error where stated."""
    out = []
    out.append(World("equal, 5 independent", np.zeros(5), np.eye(5)))
    rng = np.random.default_rng(seed_of("equal, 20 correlated"))
    out.append(World("equal, 20 correlated", np.zeros(20), equicorrelated(np.exp(rng.normal(0, 0.3, 20)), 0.5)))
    # near ties: five pairs 0.25 s.e. apart, the pairs 4 s.e. apart (s.e. of a difference = sqrt 2)
    near = np.repeat(np.arange(5) * 4.0, 2) + np.tile([0.0, 0.25], 5)
    out.append(World("near ties, 10 independent", near * np.sqrt(2), np.eye(10)))
    out.append(World("well separated, 8 independent", np.arange(8) * 6.0 * np.sqrt(2), np.eye(8)))
    # two blocks of ten tied systems, 8 s.e. apart: every pair across declared at the first step
    out.append(World("two tied blocks, 20 independent", np.repeat([0.0, 8.0], 10) * np.sqrt(2), np.eye(20)))
    rng = np.random.default_rng(seed_of("ladder, 12 correlated"))
    sigma = factor(rng, 12)
    sd_diff = np.sqrt(np.median(np.diag(sigma)[:, None] + np.diag(sigma)[None, :] - 2 * sigma))
    out.append(World("ladder 1.5 s.e., 12 correlated", np.arange(12) * 1.5 * sd_diff, sigma))
    out.append(World("ladder 1 s.e., 20 independent", np.arange(20) * 1.0 * np.sqrt(2), np.eye(20)))
    rng = np.random.default_rng(seed_of("mixed, 15 correlated"))
    sigma = factor(rng, 15)
    sd_diff = np.sqrt(np.median(np.diag(sigma)[:, None] + np.diag(sigma)[None, :] - 2 * sigma))
    steps = [0.0, 0.0, 0.0, 0.3, 2.0, 2.0, 2.5, 6.0, 6.0, 6.2, 6.2, 9.0, 12.0, 12.0, 12.1]
    out.append(World("mixed, 15 correlated", np.array(steps) * sd_diff, sigma))
    return out


def before_module(commit: str):
    """The ranking module at ``commit`` (``git show``), imported under its own name; None when
    git cannot give it."""
    try:
        text = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{commit}:{MODULE}"], capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    path = Path(tempfile.mkdtemp()) / f"ranking_{commit}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(f"ranking_{commit}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


def errors(mu, low, high, better) -> tuple[np.ndarray, np.ndarray]:
    """Per repeat: some true rank outside its set; some pair declared in the wrong order."""
    truth = point_ranks(mu)
    outside = np.any((low > truth) | (high < truth), axis=-1)
    wrong = np.any(better & (mu[:, None] <= mu[None, :]), axis=(-2, -1))
    return outside, wrong


def step_down(module, estimates, sigma, level, ordered: bool, check: int):
    """Every repeat's step-down rank-sets and last critical value, by the module's own steps: its
    ``_contrast_quantile`` on the draws of its default generator (every step's), over the ordered
    pairs in play (``ordered``) or the unordered pairs not yet declared (the earlier step-down).
    A step's value depends on the repeat only through the pairs in play, so it is remembered by
    them (the repeats of a world share most of theirs), and the draws are made once per world.
    The first ``check`` repeats are ranked by ``module.rank_sets(..., step_down=True)`` itself as
    well, which must give the same critical value and rank-sets, to the last bit."""
    s = sigma.shape[0]
    i, j = np.triu_indices(s, k=1)
    sd = np.sqrt(np.maximum(np.diag(sigma)[:, None] + np.diag(sigma)[None, :] - 2 * sigma, 0.0))
    live = module._live_contrasts(sigma)
    if ordered:
        start = np.zeros((s, s), dtype=bool)
        start[i[live], j[live]] = start[j[live], i[live]] = True
    else:
        start = live
    known, cache = {}, {}

    def critical(remaining):
        key = remaining.tobytes()
        if key not in known:
            rng = np.random.default_rng(module.DEFAULT_SEED)
            known[key] = module._contrast_quantile(sigma, level, module.N_DRAWS, rng, remaining, None, cache)
        return known[key]

    cs = np.empty(len(estimates))
    for r, theta in enumerate(estimates):
        t = theta[:, None] - theta[None, :] if ordered else np.abs(theta[i] - theta[j])
        scale = sd if ordered else sd[i, j]
        remaining = start
        while True:
            c = critical(remaining)
            declared = remaining & (t > c * scale)
            if not declared.any():
                break
            remaining = remaining & ~declared
        cs[r] = c
    low, high, better = module.rank_bounds(estimates, np.broadcast_to(sigma, (len(estimates), s, s)), cs)
    for r in range(min(check, len(estimates))):
        shipped = module.rank_sets(estimates[r], sigma, level=level, step_down=True)
        if not (
            shipped.critical_value == cs[r]
            and np.array_equal(shipped.rank_low, low[r])
            and np.array_equal(shipped.rank_high, high[r])
        ):
            raise AssertionError(f"repeat {r}: the steps here differ from {module.__name__}.rank_sets")
    return low, high, better, cs, len(known)


def run(
    names=None,
    repeats: int = 4000,
    level: float = 0.9,
    before: str | None = BEFORE,
    procedures=PROCEDURES,
    check: int = CHECK,
) -> list[dict]:
    """Rows of (world, procedure, rank FWER and s.e., sign FWER and s.e., mean c, mean size, time)."""
    old = before_module(before) if before and "before" in procedures else None
    rows = []
    for world in worlds():
        if names and world.name not in names:
            continue
        rng = np.random.default_rng(seed_of(world.name))
        values, vectors = np.linalg.eigh(world.sigma)
        root = vectors * np.sqrt(np.clip(values, 0.0, None))
        estimates = world.mu + rng.standard_normal((repeats, world.mu.size)) @ root.T
        results = {}
        if "single" in procedures:
            start = time.perf_counter()
            c = max_contrast_quantile(world.sigma, level)
            stacked = np.broadcast_to(world.sigma, (repeats, *world.sigma.shape))
            low, high, better = rank_bounds(estimates, stacked, c)
            results["single"] = (low, high, better, np.full(repeats, c), time.perf_counter() - start)
        for label, module, ordered in (("before", old, False), ("after", ranking, True)):
            if module is None or label not in procedures:
                continue
            start = time.perf_counter()
            low, high, better, cs, _ = step_down(module, estimates, world.sigma, level, ordered, check)
            results[label] = (low, high, better, cs, time.perf_counter() - start)
        for label, (low, high, better, cs, seconds) in results.items():
            outside, wrong = errors(world.mu, low, high, better)
            rows.append(
                {
                    "world": world.name,
                    "systems": world.mu.size,
                    "procedure": label,
                    "repeats": repeats,
                    "rank_fwer": outside.mean(),
                    "rank_se": outside.std() / np.sqrt(repeats),
                    "sign_fwer": wrong.mean(),
                    "sign_se": wrong.std() / np.sqrt(repeats),
                    "critical_value": cs.mean(),
                    "size": (high - low + 1).mean(),
                    "seconds": seconds,
                }
            )
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=4000)
    parser.add_argument("--level", type=float, default=0.9)
    parser.add_argument("--worlds", nargs="*", help="names of the worlds to run (default: all)")
    parser.add_argument("--before", default=BEFORE, help="the commit whose step-down is 'before'")
    parser.add_argument("--no-before", action="store_true", help="leave the 'before' procedure out")
    parser.add_argument(
        "--procedures", nargs="*", choices=PROCEDURES, default=list(PROCEDURES), help="default: all three"
    )
    args = parser.parse_args(argv)
    alpha = 1 - args.level
    rows = run(args.worlds, args.repeats, args.level, None if args.no_before else args.before, args.procedures)
    print(f"level {args.level}, {args.repeats} repeats per world; Monte-Carlo s.e. in brackets")
    print(
        f"{'world':34s} {'S':>3s} {'procedure':9s} {'rank FWER':>15s} {'sign FWER':>15s} {'mean c':>7s} "
        f"{'size':>6s} {'target':>6s} {'s':>6s}"
    )
    failed = 0
    for row in rows:
        ok = row["sign_fwer"] <= alpha + 2 * row["sign_se"]
        failed += row["procedure"] == "after" and not ok
        print(
            f"{row['world']:34s} {row['systems']:3d} {row['procedure']:9s} "
            f"{row['rank_fwer']:7.3f} ({row['rank_se']:.3f}) {row['sign_fwer']:7.3f} ({row['sign_se']:.3f}) "
            f"{row['critical_value']:7.3f} {row['size']:6.2f} {'ok' if ok else 'HIGH':>6s} {row['seconds']:6.1f}"
        )
    print(
        f"targets: sign FWER <= {alpha:.2f} + 2 s.e. in every world for 'after': {'met' if not failed else 'NOT met'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
