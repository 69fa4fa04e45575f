"""Anytime-valid confidence sequences under peeking: a simulator on the Chatbot Arena battles and
a synthetic ratings stream.

Run:
    python benchmarks/bench_sequential.py pairs [--streams 1000] [--horizon 20000] [--every 50]
    python benchmarks/bench_sequential.py ratings [--streams 4000]
    python benchmarks/bench_sequential.py top [--streams 500] [--k 3]
    python benchmarks/bench_sequential.py timing [--votes 100000]

``pairs``: for pairs (A, B) of Arena models with true win-rate gaps from 0.02 to 0.08 (and the
two pairs with the smallest gap, near-null), votes are drawn with replacement from every battle
of A or of B (the pool's empirical distribution is the population; the truth is the pool's
difference of human win rates D = theta_A - theta_B, ties half a win). After every ``every``
votes (read once each of A and B has 30 votes, as status does): the human estimate of D and
the PPI++ estimate with the three judges (weights refitted on the votes so far; the judges'
population means known, as for a pool of every battle), with
their delta-method standard errors; the confidence sequence of :mod:`debias.stats.common.sequential`
(t* = 1,000) and the fixed-n normal interval looked at every time. Prints, per pair and
alpha, the share of streams whose interval ever misses D (by 500, 2,000 and the horizon), and,
at alpha = 0.05, the votes until the sequence excludes 0 (the sign resolved) against the fixed n
an oracle who knew D and the standard deviation would choose for 80 % power
(((z_{1-alpha/2} + z_0.8) sigma / D)^2, for the same estimator), and the judges' saving.
Everything is vectorised over streams and looks (counts of battle types per block of votes).

``ratings``: a synthetic ratings stream (ratings 1-5 of two systems on shared inputs, a metric
per output that sees each output's quality with noise, items drawn with replacement from a
population of 200,000): a system's mean rating and a paired difference of
two systems on the same items, each by the sample mean and by the control-variate mean with
the coefficient refitted at every look (the metric's population mean known). Error rates of the
sequence and of the peeking fixed-n interval.

``top``: which are the top K of the 20 Arena models (human win rates, ties half, the sandwich
covariance of :mod:`debias.stats.preferences.win_rate`; a union bound over the 190 pairwise contrasts at
alpha = 0.1, every decision kept once taken). Votes drawn in batches of 250 either uniformly
from all battles, or by the allocation of ``debias next`` (uniformly from the battles of the
systems still in an open contrast, :mod:`debias.stats.preferences.allocation`), or from the battles of the
open pairs only (for comparison: this tilts each system's mix of opponents). Prints the votes until the
top K is settled (mean, quartiles; streams not settled by the horizon counted at the horizon
and reported), and how often a wrong set was settled. Superseded as evidence about the judging
loop: it reimplements the win rates, the union bound and the allocation, and draws votes with
replacement; ``benchmarks/bench_loop.py`` runs the shipped ``pairs_status`` and ``next_battles``.

``timing``: one :func:`debias.api.status` call (question top:3, three judges, PPI++) on a table
of ``votes`` battles drawn with replacement from the Arena battles, all with a human verdict,
in CPU seconds (the machine is shared); and ``debias status`` on the same table written to CSV.

Seeds are derived from the setting's names (:func:`debias.stats.common.resampling.setting_seed`).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy.special import ndtri  # noqa: E402

from debias.stats.common.resampling import setting_seed  # noqa: E402
from debias.stats.common.sequential import MIN_VOTES, mixture_multiplier  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
JUDGES = {
    "gpt4": "gpt-4-0125-preview",
    "claude3": "claude-3-opus-20240229",
    "gpt35": "gpt-3.5-turbo",
}
SCORE = {"model_a": 1.0, "model_b": 0.0, "tie": 0.5, "tie (bothbad)": 0.5}
SEED = 20261126
OPTIMAL_AT = 1000


def arena():
    """The Arena battles: system indices, names, human scores of A and each judge's (B, 3)."""
    human = pd.read_json(ROOT / "data/arena/human.jsonl.gz", lines=True)
    names = sorted(set(human.model_a) | set(human.model_b))
    index = {n: i for i, n in enumerate(names)}
    a = human.model_a.map(index).to_numpy()
    b = human.model_b.map(index).to_numpy()
    score = human.winner.map(SCORE).to_numpy(float)
    judges = []
    for file in JUDGES.values():
        table = pd.read_json(ROOT / f"data/arena/{file}.jsonl.gz", lines=True)
        assert (table.num.to_numpy() == human.num.to_numpy()).all()
        verdict = table.winner.map(SCORE).to_numpy(float).copy()
        verdict[np.isnan(verdict)] = np.nanmean(verdict)  # a missing verdict: the judge's mean
        judges.append(verdict)
    return a, b, names, score, np.column_stack(judges), human


def win_rates(a, b, score, n_systems):
    n = np.bincount(a, minlength=n_systems) + np.bincount(b, minlength=n_systems)
    s = np.bincount(a, score, n_systems) + np.bincount(b, 1.0 - score, n_systems)
    return s / n


# pairs ------------------------------------------------------------------------------------------


def pair_features(a, b, scores, first, second):
    """Per battle of ``first`` or ``second``: [x_A, x_B, x_A s_A^k (k providers), x_B s_B^k]."""
    keep = (a == first) | (b == first) | (a == second) | (b == second)
    aa, bb, sc = a[keep], b[keep], scores[keep]
    x_a = ((aa == first) | (bb == first)).astype(float)
    x_b = ((aa == second) | (bb == second)).astype(float)
    s_a = np.where((aa == first)[:, None], sc, 1.0 - sc) * x_a[:, None]
    s_b = np.where((aa == second)[:, None], sc, 1.0 - sc) * x_b[:, None]
    return np.column_stack([x_a, x_b, s_a, s_b])


def influence_moments(m1, m2, k):
    """From feature means m1 (..., F) and second moments m2 (..., F, F): every provider's
    difference D^k and the covariance Q (..., K, K) of their influence terms."""
    p_a, p_b = m1[..., 0], m1[..., 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        theta_a = m1[..., 2 : 2 + k] / p_a[..., None]
        theta_b = m1[..., 2 + k : 2 + 2 * k] / p_b[..., None]
    coef = np.zeros((*m1.shape[:-1], k, m1.shape[-1]))
    coef[..., 0] = -theta_a / p_a[..., None]
    coef[..., 1] = theta_b / p_b[..., None]
    for j in range(k):
        coef[..., j, 2 + j] = 1.0 / p_a
        coef[..., j, 2 + k + j] = -1.0 / p_b
    cov = m2 - m1[..., :, None] * m1[..., None, :]
    q = np.einsum("...kf,...fg,...mg->...km", coef, cov, coef)
    return theta_a - theta_b, q


def ppi_combine(d, q, d_population):
    """Human estimate and variance, and PPI++ with the judges' weights minimising the variance."""
    human, var_h = d[..., 0], q[..., 0, 0]
    qjj, qjh = q[..., 1:, 1:], q[..., 1:, 0]
    lam = np.einsum("...jk,...k->...j", np.linalg.pinv(qjj), qjh)
    var_p = var_h - 2 * np.einsum("...j,...j->...", lam, qjh) + np.einsum("...j,...jk,...k->...", lam, qjj, lam)
    est_p = human - np.einsum("...j,...j->...", lam, d[..., 1:] - d_population)
    return (human, np.maximum(var_h, 0.0)), (est_p, np.maximum(var_p, 0.0))


def run_pairs(args):
    a, b, names, human, judges, _ = arena()
    s = len(names)
    scores = np.column_stack([human, judges])
    k = scores.shape[1]
    theta = win_rates(a, b, human, s)
    i, j = np.triu_indices(s, 1)
    gap = theta[i] - theta[j]
    chosen = []
    for target in [*np.linspace(0.02, 0.08, 8), 0.0, 0.0]:
        order = np.argsort(np.abs(np.abs(gap) - target))
        chosen.append(next(p for p in order if p not in chosen))
    looks = np.arange(args.every, args.horizon + 1, args.every)
    alphas = (0.05, 0.1)
    z80 = ndtri(0.8)
    print(
        f"pairs: {args.streams} streams per pair, a look every {args.every} votes up to {args.horizon:,}, "
        f"t* = {OPTIMAL_AT}; truth = the pool's human win-rate difference"
    )
    error_rows, vote_rows = [], []
    started = time.process_time()
    for p in chosen:
        first, second = (i[p], j[p]) if gap[p] >= 0 else (j[p], i[p])
        features = pair_features(a, b, scores, first, second)
        kinds, kind_of = np.unique(features, axis=0, return_inverse=True)
        outer = (kinds[:, :, None] * kinds[:, None, :]).reshape(len(kinds), -1)
        n_f = features.shape[1]
        m1_pop = features.mean(axis=0)
        m2_pop = features.T @ features / len(features)
        d_pop, q_pop = influence_moments(m1_pop, m2_pop, k)
        truth = d_pop[0]
        (_, var_h_pop), (_, var_p_pop) = ppi_combine(d_pop, q_pop, d_pop[1:])
        rng = np.random.default_rng(setting_seed(SEED, "pairs", names[first], names[second]))
        ever = {(e, a_, w): [] for e in ("human", "ppi++") for a_ in alphas for w in ("sequence", "fixed-n")}
        resolve = {"human": [], "ppi++": []}
        wrong = {"human": [], "ppi++": []}
        chunk = 100
        for start in range(0, args.streams, chunk):
            r = min(chunk, args.streams - start)
            draws = kind_of[rng.integers(0, len(features), size=(r, args.horizon))]
            block = np.arange(args.horizon) // args.every
            key = (np.arange(r)[:, None] * len(looks) + block[None, :]) * len(kinds) + draws
            counts = np.bincount(key.ravel(), minlength=r * len(looks) * len(kinds)).reshape(r, len(looks), -1)
            counts = np.cumsum(counts, axis=1, dtype=np.float64)
            m1 = counts @ kinds / looks[None, :, None]
            m2 = (counts @ outer / looks[None, :, None]).reshape(r, len(looks), n_f, n_f)
            d, q = influence_moments(m1, m2, k)
            # a look is read once each system has MIN_VOTES votes (debias.stats.common.sequential)
            read = (np.minimum(m1[..., 0], m1[..., 1]) * looks) >= MIN_VOTES
            for name, (est, var) in zip(("human", "ppi++"), ppi_combine(d, q, d_pop[1:])):
                se = np.sqrt(var / looks)
                for alpha in alphas:
                    m = mixture_multiplier(looks, alpha, OPTIMAL_AT)
                    z = ndtri(1 - alpha / 2)
                    for what, mult in (("sequence", m), ("fixed-n", z)):
                        miss = read & (np.abs(est - truth) > mult * se)
                        ever[(name, alpha, what)].append(np.logical_or.accumulate(miss, axis=1))
                m = mixture_multiplier(looks, 0.05, OPTIMAL_AT)
                declared = read & (np.abs(est) > m * se)
                first_look = np.where(declared.any(axis=1), declared.argmax(axis=1), -1)
                votes = np.where(first_look >= 0, looks[first_look], np.inf)
                sign = np.sign(est[np.arange(r), np.maximum(first_look, 0)])
                resolve[name].append(votes)
                wrong[name].append((first_look >= 0) & (sign != np.sign(truth)))
        for (name, alpha, what), parts in ever.items():
            missed = np.concatenate(parts)
            at = [np.searchsorted(looks, x) for x in (500, 2000, args.horizon)]
            rates = [missed[:, min(x, len(looks) - 1)].mean() for x in at]
            error_rows.append((names[first], names[second], truth, name, alpha, what, *rates))
        z = ndtri(0.975)
        for name, var in (("human", var_h_pop), ("ppi++", var_p_pop)):
            votes = np.concatenate(resolve[name])
            oracle = ((z + z80) ** 2) * var / truth**2 if truth != 0 else np.inf
            vote_rows.append(
                (names[first], names[second], truth, name, oracle, votes, np.concatenate(wrong[name]).mean())
            )
    elapsed = time.process_time() - started
    se_note = lambda x: np.sqrt(x * (1 - x) / args.streams)  # noqa: E731
    print("\nP(the interval ever misses D) by 500 / 2,000 / horizon votes (Monte-Carlo s.e. in brackets):")
    print("| A | B | D | estimator | alpha | interval | by 500 | by 2,000 | by horizon |")
    print("|---|---|---:|---|---:|---|---:|---:|---:|")
    for first, second, truth, name, alpha, what, r500, r2000, rend in error_rows:
        print(
            f"| {first} | {second} | {truth:.4f} | {name} | {alpha} | {what} | {r500:.3f} | {r2000:.3f} | "
            f"{rend:.3f} ({se_note(rend):.3f}) |"
        )
    for name in ("human", "ppi++"):
        for alpha in alphas:
            rows = [r for r in error_rows if r[3] == name and r[4] == alpha and r[5] == "sequence"]
            worst = max(r[-1] for r in rows)
            bound = alpha + 2 * se_note(alpha)
            print(
                f"summary {name} alpha={alpha}: sequence error over the horizon {min(r[-1] for r in rows):.3f}-"
                f"{worst:.3f} (s.e. {se_note(worst):.3f}; target <= {alpha} + 2 s.e. = {bound:.3f})"
            )
    print(
        "\nVotes to resolve the sign at alpha = 0.05 (sequence) against the oracle's fixed n (80 % power, same "
        "estimator); mean over streams with its s.e., censored streams counted at the horizon:"
    )
    print("| A | B | D | estimator | oracle n | mean votes | ratio (s.e.) | median ratio | unresolved | wrong sign |")
    print("|---|---|---:|---|---:|---:|---:|---:|---:|---:|")
    by_pair = {}
    for first, second, truth, name, oracle, votes, wrong_rate in vote_rows:
        capped = np.minimum(votes, args.horizon)
        unresolved = np.mean(~np.isfinite(votes))
        mean, se = capped.mean(), capped.std(ddof=1) / np.sqrt(capped.size)
        by_pair.setdefault((first, second), {})[name] = (capped, unresolved, oracle)
        ratio = f"{mean / oracle:.3f} ({se / oracle:.3f})" if np.isfinite(oracle) else "-"
        median = f"{np.median(capped) / oracle:.2f}" if np.isfinite(oracle) else "-"
        print(
            f"| {first} | {second} | {truth:.4f} | {name} | {oracle:,.0f} | {mean:,.0f} | {ratio} | {median} | "
            f"{unresolved:.3f} | {wrong_rate:.3f} |"
        )
    print("\nJudges' saving: mean votes with PPI++ / mean votes with people alone (pairs with < 2 % unresolved):")
    for (first, second), v in by_pair.items():
        (h, uh, _), (pp, up, _) = v["human"], v["ppi++"]
        if max(uh, up) < 0.02:
            ratio = pp.mean() / h.mean()
            # delta-method s.e. of a ratio of means over the same streams (both estimators see the same votes)
            se = np.std(pp - ratio * h, ddof=1) / np.sqrt(h.size) / h.mean()
            print(f"  {first} vs {second}: {ratio:.3f} (s.e. {se:.3f})")
    print(f"\nCPU time {elapsed:.0f} s (shared machine)")


# ratings ----------------------------------------------------------------------------------------


def run_ratings(args):
    rng = np.random.default_rng(setting_seed(SEED, "ratings", "population"))
    n_pop = 200_000
    item = rng.normal(size=n_pop)  # how hard the input is, shared by both systems
    q1 = item + 0.7 * rng.normal(size=n_pop)  # each system's quality on the item
    q2 = item + 0.7 * rng.normal(size=n_pop)
    g1 = q1 + 0.6 * rng.normal(size=n_pop)  # the metric sees the quality with noise
    g2 = q2 + 0.6 * rng.normal(size=n_pop)
    y1 = np.clip(np.round(3.2 + 0.9 * q1 + 0.8 * rng.normal(size=n_pop)), 1, 5)
    y2 = np.clip(np.round(2.9 + 0.9 * q2 + 0.8 * rng.normal(size=n_pop)), 1, 5)
    cases = {"mean rating": (y1, g1), "paired difference": (y1 - y2, g1 - g2)}
    looks = np.arange(args.every, args.horizon + 1, args.every)
    print(f"ratings: {args.streams} streams, a look every {args.every} items up to {args.horizon:,}, t* = {OPTIMAL_AT}")
    print("| quantity | estimator | alpha | sequence error (s.e.) | fixed-n peeking error | mean half-width at 1,000 |")
    print("|---|---|---:|---:|---:|---:|")
    started = time.process_time()
    for case, (y, g) in cases.items():
        truth, g_mean = y.mean(), g.mean()
        draws_rng = np.random.default_rng(setting_seed(SEED, "ratings", case))
        misses = {}
        widths = {}
        for start in range(0, args.streams, 200):
            r = min(200, args.streams - start)
            idx = draws_rng.integers(0, n_pop, size=(r, args.horizon))
            yy, gg = y[idx], g[idx]
            sums = {
                key: np.cumsum(v, axis=1)[:, looks - 1]
                for key, v in (("y", yy), ("g", gg), ("yy", yy * yy), ("gg", gg * gg), ("yg", yy * gg))
            }
            del yy, gg
            mean_y, mean_g = sums["y"] / looks, sums["g"] / looks
            var_y = sums["yy"] / looks - mean_y**2
            var_g = sums["gg"] / looks - mean_g**2
            cov = sums["yg"] / looks - mean_y * mean_g
            beta = np.where(var_g > 0, cov / np.where(var_g > 0, var_g, 1), 0.0)
            estimators = {
                "mean": (mean_y, np.maximum(var_y, 0)),
                "cv (refitted)": (mean_y - beta * (mean_g - g_mean), np.maximum(var_y - beta * cov, 0)),
            }
            for name, (est, var) in estimators.items():
                se = np.sqrt(var / looks)
                for alpha in (0.05, 0.1):
                    m = mixture_multiplier(looks, alpha, OPTIMAL_AT)
                    seq = np.any(np.abs(est - truth) > m * se, axis=1)
                    fixed = np.any(np.abs(est - truth) > ndtri(1 - alpha / 2) * se, axis=1)
                    misses.setdefault((name, alpha), []).append((seq, fixed))
                    at = np.searchsorted(looks, 1000)
                    widths.setdefault((name, alpha), []).append(m[at] * se[:, at])
        for (name, alpha), parts in misses.items():
            seq = np.concatenate([p[0] for p in parts]).mean()
            fixed = np.concatenate([p[1] for p in parts]).mean()
            width = np.concatenate(widths[(name, alpha)]).mean()
            print(
                f"| {case} | {name} | {alpha} | {seq:.4f} ({np.sqrt(seq * (1 - seq) / args.streams):.4f}) | "
                f"{fixed:.3f} | {width:.4f} |"
            )
    print(f"CPU time {time.process_time() - started:.0f} s (shared machine)")


# top-k ------------------------------------------------------------------------------------------


def run_top(args):
    a, b, names, human, _, _ = arena()
    s = len(names)
    theta = win_rates(a, b, human, s)
    truth = set(np.argsort(-theta)[: args.k].tolist())
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    i_idx, j_idx = np.triu_indices(s, 1)
    pair_of = -np.ones((s, s), dtype=np.int64)
    pair_of[i_idx, j_idx] = np.arange(i_idx.size)
    score_lo = np.where(a == lo, human, 1.0 - human)
    level_of = np.rint(score_lo * 2).astype(np.int64)  # 0, 1, 2 for 0, 0.5, 1
    cell = pair_of[lo, hi] * 3 + level_of
    n_cells = i_idx.size * 3
    pool = np.bincount(cell, minlength=n_cells).astype(float)
    cell_pair = np.repeat(np.arange(i_idx.size), 3)
    cell_value = np.tile([0.0, 0.5, 1.0], i_idx.size)
    incidence = np.zeros((n_cells, s))
    score = np.zeros((n_cells, s))
    incidence[np.arange(n_cells), i_idx[cell_pair]] = 1
    incidence[np.arange(n_cells), j_idx[cell_pair]] = 1
    score[np.arange(n_cells), i_idx[cell_pair]] = cell_value
    score[np.arange(n_cells), j_idx[cell_pair]] = 1 - cell_value
    alpha = 0.1
    tests = i_idx.size
    print(
        f"top-{args.k}: {args.streams} streams, batches of {args.batch} votes up to {args.horizon:,}; alpha = {alpha} "
        f"over {tests} contrasts (union bound); truth: {', '.join(names[x] for x in sorted(truth))} "
        f"(win rates {', '.join(f'{v:.3f}' for v in np.sort(theta)[::-1][: args.k + 2])} ...)"
    )
    results = {}
    for arm in ("uniform", "allocation", "open pairs only"):
        started = time.process_time()
        rng = np.random.default_rng(setting_seed(SEED, "top", str(args.k), arm))
        r = args.streams
        counts = np.zeros((r, n_cells))
        better = np.zeros((r, s, s), dtype=bool)
        settled_at = np.full(r, np.inf)
        settled_set = [None] * r
        done = np.zeros(r, dtype=bool)
        total = 0
        while total < args.horizon and not done.all():
            live = ~done
            if arm == "uniform":
                probs = np.broadcast_to(pool / pool.sum(), (live.sum(), n_cells))
            else:
                probs = pool * eligible_cells(better[live], args.k, i_idx, j_idx, cell_pair, arm == "allocation")
                probs = probs / probs.sum(axis=1, keepdims=True)
            counts[live] += rng.multinomial(args.batch, probs)
            total += args.batch
            c = counts[live]
            n = c @ incidence
            s1 = c @ score
            s2 = c @ score**2
            with np.errstate(invalid="ignore", divide="ignore"):
                th = s1 / n
                var = (s2 - 2 * th * s1 + th**2 * n) / n**2
                per_pair = c.reshape(-1, i_idx.size, 3)
                tl, th_ = th[:, i_idx], th[:, j_idx]
                values = np.array([0.0, 0.5, 1.0])
                cross = np.einsum("rpv,rpv->rp", per_pair, (values - tl[..., None]) * (1 - values - th_[..., None])) / (
                    n[:, i_idx] * n[:, j_idx]
                )
                contrast_var = var[:, i_idx] + var[:, j_idx] - 2 * cross
                n_pair = per_pair.sum(axis=2)
                t = n[:, i_idx] + n[:, j_idx] - n_pair
                half = np.sqrt(np.maximum(contrast_var, 0)) * mixture_multiplier(t, alpha / tests, OPTIMAL_AT)
                diff = tl - th_
                ok = (t >= MIN_VOTES) & (np.minimum(n[:, i_idx], n[:, j_idx]) >= MIN_VOTES)
                up = np.nan_to_num(diff - half) > 0
                down = np.nan_to_num(diff + half) < 0
            b_live = better[live]
            b_live[:, i_idx, j_idx] |= ok & up
            b_live[:, j_idx, i_idx] |= ok & down
            better[live] = b_live
            rank_high = s - b_live.sum(axis=2)
            surely_in = rank_high <= args.k
            now = surely_in.sum(axis=1) == args.k
            for row in np.flatnonzero(now):
                stream = np.flatnonzero(live)[row]
                done[stream] = True
                settled_at[stream] = total
                settled_set[stream] = set(np.flatnonzero(surely_in[row]).tolist())
        wrong = sum(1 for x in settled_set if x is not None and x != truth)
        results[arm] = (settled_at, wrong, time.process_time() - started)
    print("| sampling | mean votes (s.e.) | median | 75th pct | unsettled by horizon | wrong sets | CPU s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for arm, (at, wrong, cpu) in results.items():
        capped = np.minimum(at, args.horizon)
        print(
            f"| {arm} | {capped.mean():,.0f} ({capped.std(ddof=1) / np.sqrt(capped.size):,.0f}) | "
            f"{np.median(capped):,.0f} | {np.percentile(capped, 75):,.0f} | {np.mean(~np.isfinite(at)):.3f} | "
            f"{wrong} of {capped.size} | {cpu:.0f} |"
        )
    u = np.minimum(results["uniform"][0], args.horizon)
    for arm in ("allocation", "open pairs only"):
        al = np.minimum(results[arm][0], args.horizon)
        ratio = al.mean() / u.mean()
        se = ratio * np.sqrt(al.var(ddof=1) / al.size / al.mean() ** 2 + u.var(ddof=1) / u.size / u.mean() ** 2)
        print(
            f"{arm} / uniform mean votes: {ratio:.3f} (s.e. {se:.3f}; uniform's unsettled streams counted at the "
            "horizon, so the true ratio is smaller); target <= 0.5"
        )


def eligible_cells(better, k, i_idx, j_idx, cell_pair, by_systems=True):
    """Per stream, 1 for the cells whose battle involves a system still in an open contrast of
    the top-k question (:func:`debias.stats.common.status.question_status`), else 0; with
    ``by_systems=False`` only the battles of the open pairs themselves."""
    s = better.shape[-1]
    rank_high = s - better.sum(axis=2)
    rank_low = 1 + better.sum(axis=1)
    undecided = ~(rank_high <= k) & ~(rank_low > k)
    touch = undecided[:, :, None] | undecided[:, None, :]
    pending = touch & ~(better | np.swapaxes(better, 1, 2))
    pending[:, np.arange(s), np.arange(s)] = False
    if by_systems:
        open_systems = pending.any(axis=2)
        pair_open = open_systems[:, i_idx] | open_systems[:, j_idx]
    else:
        pair_open = pending[:, i_idx, j_idx]
    return pair_open[:, cell_pair].astype(float)


# timing -----------------------------------------------------------------------------------------


def run_timing(args):
    import debias.api

    a, b, names, human, judges, frame = arena()
    rng = np.random.default_rng(setting_seed(SEED, "timing", str(args.votes)))
    pick = rng.integers(0, len(frame), args.votes)
    table = pd.DataFrame(
        {
            "item": np.arange(args.votes),
            "model_a": frame.model_a.to_numpy()[pick],
            "model_b": frame.model_b.to_numpy()[pick],
            "winner": frame.winner.to_numpy()[pick],
        }
    )
    for name, file in JUDGES.items():
        verdict = pd.read_json(ROOT / f"data/arena/{file}.jsonl.gz", lines=True).winner.to_numpy()
        table[name] = verdict[pick]
    columns = dict(item="item", system_a="model_a", system_b="model_b", verdict="winner", judges=list(JUDGES))
    debias.api.status(table.head(2000), **columns, question="top:3", level=0.9)  # imports warmed
    times = []
    for _ in range(3):
        started = time.process_time()
        state = debias.api.status(table, **columns, question="top:3", level=0.9)
        times.append(time.process_time() - started)
    print(
        f"debias.api.status on {args.votes:,} votes (20 systems, 3 judges, PPI++ combined, top:3): CPU "
        f"{min(times):.2f} s best of 3 ({', '.join(f'{t:.2f}' for t in times)}); answer: {state.answer}"
    )
    path = Path(args.scratch) / f"status_{args.votes}.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(path, index=False)
    argv = [sys.executable, "-m", "debias.cli", "status", str(path), "--item", "item", "--system-a", "model_a"]
    argv += ["--system-b", "model_b", "--verdict", "winner", "--question", "top:3", "--level", "0.9"]
    for name in JUDGES:
        argv += ["--judge", name]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"debias status on the same table as CSV (start-up and reading included): CPU {cpu:.2f} s")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("pairs")
    p.add_argument("--streams", type=int, default=1000)
    p.add_argument("--horizon", type=int, default=20000)
    p.add_argument("--every", type=int, default=50)
    r = sub.add_parser("ratings")
    r.add_argument("--streams", type=int, default=4000)
    r.add_argument("--horizon", type=int, default=20000)
    r.add_argument("--every", type=int, default=50)
    t = sub.add_parser("top")
    t.add_argument("--streams", type=int, default=500)
    t.add_argument("--k", type=int, default=3)
    t.add_argument("--batch", type=int, default=250)
    t.add_argument("--horizon", type=int, default=150000)
    m = sub.add_parser("timing")
    m.add_argument("--votes", type=int, default=100000)
    m.add_argument("--scratch", default="/tmp/debias-bench-sequential")
    args = parser.parse_args(argv)
    {"pairs": run_pairs, "ratings": run_ratings, "top": run_top, "timing": run_timing}[args.what](args)


if __name__ == "__main__":
    main()
