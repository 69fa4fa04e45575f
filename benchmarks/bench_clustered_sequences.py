"""Anytime-valid sequences when votes arrive question by question: the chance of ever missing.

Worlds: S systems, every pair once per question, verdicts from a Bradley-Terry model with a
question-by-system effect u_{q,s} ~ N(0, sigma^2) on the logit scale (ties 10%), questions
arriving in random order. At a look after every ``--every`` questions the people's win rates of
the questions so far are estimated with their cluster-robust covariance (the question is the
cluster, ``debias.stats.preferences.win_rate.win_rates``) and read as confidence sequences
(``debias.stats.common.sequential``, every system at once at alpha/S, t = questions so far; the
pairwise contrasts at alpha/P). A draw *misses* when some look's sequence excludes a true value
(superpopulation win rates, by a large Monte-Carlo over u). The rate of misses over draws must
stay at most alpha (+ 2 Monte-Carlo s.e.). Looks before ``MIN_VOTES`` questions (when nothing
is declared) are reported separately.

    python benchmarks/bench_clustered_sequences.py [--repeats 400] [--questions 200] [--quick]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.special import expit

from debias.data import JudgedPairs
from debias.stats.common.sequential import MIN_VOTES, contrast_sequences, system_sequences
from debias.stats.preferences.win_rate import win_rates


def truth(beta, sigma, rng, draws=400_000):
    """Each system's superpopulation win rate (ties half, 10% ties: they move every rate to 1/2)."""
    s = beta.size
    first, second = np.triu_indices(s, 1)
    u = rng.normal(0.0, sigma, (draws, s))
    p = expit(beta[first] - beta[second] + u[:, first] - u[:, second]).mean(axis=0)
    score = 0.9 * p + 0.1 * 0.5
    wins = np.zeros((s, s))
    wins[first, second], wins[second, first] = score, 1.0 - score
    return wins.sum(axis=1) / (s - 1)


def one_stream(beta, sigma, n_questions, rng):
    """One stream of questions in random order: every pair's verdict on each question (Q, P),
    the systems' names and the pairs' first and second systems."""
    s = beta.size
    names = np.array([f"s{i}" for i in range(s)])
    first, second = np.triu_indices(s, 1)
    u = rng.normal(0.0, sigma, (n_questions, s))
    logit = beta[first] - beta[second] + u[:, first] - u[:, second]
    verdict = (rng.random(logit.shape) < expit(logit)).astype(float)
    verdict[rng.random(verdict.shape) < 0.1] = 0.5
    return verdict, names, first, second


def run(args):
    rng = np.random.default_rng(args.seed)
    level = args.level
    rows = []
    beta = np.linspace(-0.8, 0.8, args.systems)
    for sigma in args.sigmas:
        theta = truth(beta, sigma, rng)
        difference = theta[:, None] - theta[None, :]
        miss_any = miss_declared = miss_contrast = 0
        start = time.perf_counter()
        for _ in range(args.repeats):
            verdict, names, first, second = one_stream(beta, sigma, args.questions, rng)
            p = first.size
            hit_any = hit_declared = hit_contrast = False
            for t in range(args.every, args.questions + 1, args.every):
                items = np.repeat(np.arange(t), p).astype(str)
                pairs = JudgedPairs.from_arrays(
                    np.tile(names[first], t), np.tile(names[second], t), verdict[:t].ravel(), items=items,
                    systems=list(names),
                )  # fmt: skip
                joint = win_rates(pairs, level=level)
                cs = system_sequences(joint, level=level)
                out = np.any((cs.ci_low > theta) | (cs.ci_high < theta))
                hit_any |= bool(out)
                if t >= MIN_VOTES:
                    hit_declared |= bool(out)
                    contrasts = contrast_sequences(joint, level=level)
                    seq = contrasts.sequence
                    true = difference[contrasts.first, contrasts.second]
                    hit_contrast |= bool(np.any((seq.ci_low > true) | (seq.ci_high < true)))
            miss_any += hit_any
            miss_declared += hit_declared
            miss_contrast += hit_contrast
        elapsed = time.perf_counter() - start
        r = args.repeats
        for what, count in (
            ("systems, every look", miss_any),
            (f"systems, looks from {MIN_VOTES} questions", miss_declared),
            (f"contrasts, looks from {MIN_VOTES} questions", miss_contrast),
        ):
            rate = count / r
            rows.append((sigma, what, rate, np.sqrt(max(rate * (1 - rate), 1e-12) / r), elapsed))
    alpha = 1.0 - level
    print(
        f"{args.systems} systems, {args.questions} questions (every pair once each), a look every {args.every}"
        f" questions, level {level}, {args.repeats} draws per world"
    )
    print(f"{'sigma':>6} {'sequences':<36} {'ever missed':>12} {'MC s.e.':>8} {'<= alpha + 2 s.e.':>18}")
    for sigma, what, rate, se, _ in rows:
        ok = "yes" if rate <= alpha + 2 * se else "NO"
        print(f"{sigma:>6.2f} {what:<36} {rate:>12.3f} {se:>8.3f} {ok:>18}")
    print(f"time: {sum(r[4] for r in rows[::3]):.0f} s")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=400)
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--systems", type=int, default=6)
    parser.add_argument("--every", type=int, default=5)
    parser.add_argument("--level", type=float, default=0.9)
    parser.add_argument("--sigmas", type=float, nargs="+", default=[0.0, 1.0, 2.0])
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--quick", action="store_true", help="20 draws of 60 questions: a smoke run")
    args = parser.parse_args(argv)
    if args.quick:
        args.repeats, args.questions = 20, 60
    run(args)


if __name__ == "__main__":
    main()
