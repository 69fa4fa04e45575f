r"""Coverage of the head-to-head matrix (simultaneous over the pairs) and of breakdowns by a column.

Run:
    python benchmarks/bench_head_to_head.py [--repeats 1000] [--seed 20261129] [--levels 0.9 0.95]
    python benchmarks/bench_head_to_head.py --only matrix       # or clustered, breakdown: one world
    python benchmarks/bench_head_to_head.py --quick          # a smoke test: 30 draws
    python benchmarks/bench_head_to_head.py --output results/benchmarks/head_to_head.csv

Worlds (new battles every draw; the truth is known):

- ``matrix``: S = 8 systems of Bradley-Terry strengths :math:`\beta` = 0.25 x (0, 1, 2, 3, 3, 4,
  5, 6) (two equal), every pair in 100 battles, sides in random order; a verdict is a tie with
  probability 0.1, else a win for A with probability :math:`\text{logistic}(\beta_A - \beta_B)`,
  so the truth of the cell (A, B) is :math:`0.05 + 0.9\,\text{logistic}(\beta_A - \beta_B)`
  (ties half a win). People's verdict on a random half of the battles, an LLM judge on every
  battle (people's verdict with probability 0.7, a uniform verdict otherwise).
- ``matrix, clustered``: the same systems on Q = 100 questions, every pair once per question,
  with a question-by-system effect :math:`u_{q,s} \sim N(0, 1)` on the logit; the question is
  the cluster; the truth of a cell is
  :math:`E_u[0.05 + 0.9\,\text{logistic}(\beta_A - \beta_B + u_A - u_B)]` (Gauss-Hermite over
  :math:`u_A - u_B \sim N(0, 2)`).
- ``breakdown``: the same 8 systems, 2,400 battles, each of a uniformly drawn pair and of a
  category drawn uniformly from 3, the strengths shifted per category by a fixed
  :math:`\delta_{c,s} \sim N(0, 0.5^2)`; people's verdict on half, the judge as above. Truths per
  category: the win rate of s, the mean over its 7 opponents of
  :math:`0.05 + 0.9\,\text{logistic}(\beta_{c,s} - \beta_{c,o})`; the strength, the
  Bradley-Terry fit to those expected pairwise scores (every pair weighted alike, centred).

``--ties 0`` makes every verdict decisive (the Agresti-Coull containment of the win-rate
intervals then bounds the verdicts' own variance; with ties it is the larger, RESULTS.md).

Printed per world, estimator and level:

- ``cover``: the matrix: the share of draws whose every pair's interval covers its truth (the
  simultaneous coverage); breakdowns: the share of (draw, system) whose intervals in every
  category cover (simultaneous over the levels), averaged over systems; ``s.e.``: its
  Monte-Carlo standard error (the spread of the per-draw values over sqrt(R));
  ``target``: ``ok`` when within 0.02 of nominal;
- ``single``: the coverage of one interval (every cell, or every system and category): far above
  the level, as each is built at Šidák's level;
- ``naive``: the simultaneous coverage of normal intervals at the nominal level each,
  estimate +- z se (no adjustment), for comparison;
- ``width``: the mean interval width; ``pairs``: the mean number of pairs the intervals were
  simultaneous over (fewer than 28 when a pair had no human battle or one).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import expit, ndtri

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from debias.data import JudgedPairs  # noqa: E402
from debias.stats.preferences.matrix import head_to_head  # noqa: E402
from debias.tables.preferences import BY, preference_breakdown  # noqa: E402

BETA = 0.25 * np.array([0, 1, 2, 3, 3, 4, 5, 6], dtype=float)
NAMES = [f"s{k}" for k in range(BETA.size)]
ESTIMATORS = ("human", "ppi++:judge")
CATEGORIES = ("chat", "code", "math")
#: The share of ties (``--ties``): the worlds' default 0.1.
TIES = 0.1
#: Battles of each pair in the world ``matrix`` (``--per-pair``).
PER_PAIR = 100


def _verdicts(rng, logit):
    """Tie with probability TIES, else A wins with probability logistic(logit)."""
    tie = rng.random(logit.size) < TIES
    return np.where(tie, 0.5, (rng.random(logit.size) < expit(logit)).astype(float))


def _judge(rng, verdict):
    return np.where(rng.random(verdict.size) < 0.7, verdict, rng.choice([0.0, 0.5, 1.0], verdict.size))


def _pairs(rng, a, b, verdict, items, labelled=0.5, facets=None):
    flip = rng.random(a.size) < 0.5  # sides in random order
    a, b = np.where(flip, b, a), np.where(flip, a, b)
    verdict = np.where(flip, 1 - verdict, verdict)
    judge = _judge(rng, verdict)
    human = np.where(rng.random(a.size) < labelled, verdict, np.nan)
    pairs = JudgedPairs.from_arrays(
        [NAMES[k] for k in a], [NAMES[k] for k in b], human, {"judge": judge}, items=items, systems=NAMES
    )
    if facets is None:
        return pairs
    fields = [f for f in JudgedPairs.__dataclass_fields__ if f != "facets"]
    return JudgedPairs(*(getattr(pairs, f) for f in fields), facets=facets)


def _matrix_truth(sigma: float) -> np.ndarray:
    diff = BETA[:, None] - BETA[None, :]
    if sigma == 0:
        return TIES / 2 + (1 - TIES) * expit(diff)
    nodes, weights = np.polynomial.hermite_e.hermegauss(200)
    weights = weights / weights.sum()
    spread = np.sqrt(2.0) * sigma * nodes
    return TIES / 2 + (1 - TIES) * np.einsum("k,ijk->ij", weights, expit(diff[..., None] + spread))


def matrix_world(rng, clustered: bool):
    first, second = np.triu_indices(BETA.size, 1)
    if clustered:
        questions = 100
        u = rng.normal(0.0, 1.0, (questions, BETA.size))
        q = np.repeat(np.arange(questions), first.size)
        a, b = np.tile(first, questions), np.tile(second, questions)
        logit = BETA[a] - BETA[b] + u[q, a] - u[q, b]
        items = [f"q{k}" for k in q]
    else:
        a, b = np.repeat(first, PER_PAIR), np.repeat(second, PER_PAIR)
        logit = BETA[a] - BETA[b]
        items = [f"b{k}" for k in range(a.size)]
    return _pairs(rng, a, b, _verdicts(rng, logit), items)


def _bt_fit(scores: np.ndarray) -> np.ndarray:
    """The Bradley-Terry strengths fitted to expected pairwise scores, every pair alike, centred."""
    theta = np.zeros(scores.shape[0])
    off = ~np.eye(scores.shape[0], dtype=bool)
    for _ in range(100):
        p = expit(theta[:, None] - theta[None, :])
        gradient = np.sum(np.where(off, scores - p, 0.0), axis=1)
        w = np.where(off, p * (1 - p), 0.0)
        hessian = np.diag(w.sum(axis=1)) - w
        step = np.linalg.lstsq(hessian, gradient, rcond=None)[0]
        theta += step - step.mean()
        if np.max(np.abs(step)) < 1e-12:
            break
    return theta - theta.mean()


def breakdown_truth(delta):
    rates, strengths = {}, {}
    for c, name in enumerate(CATEGORIES):
        beta = BETA + delta[c]
        scores = TIES / 2 + (1 - TIES) * expit(beta[:, None] - beta[None, :])
        off = ~np.eye(BETA.size, dtype=bool)
        rates[name] = np.where(off, scores, 0.0).sum(axis=1) / (BETA.size - 1)
        strengths[name] = _bt_fit(scores)
    return rates, strengths


def breakdown_world(rng, delta, n_battles=2400):
    first, second = np.triu_indices(BETA.size, 1)
    pick = rng.integers(0, first.size, n_battles)
    category = rng.integers(0, len(CATEGORIES), n_battles)
    a, b = first[pick], second[pick]
    logit = BETA[a] + delta[category, a] - BETA[b] - delta[category, b]
    labels = np.array(CATEGORIES, dtype=object)[category]
    # the category goes through the flip in _pairs unchanged: it labels the battle
    return _pairs(rng, a, b, _verdicts(rng, logit), [f"b{k}" for k in range(n_battles)], facets={"category": labels})


def run_matrix(rng, repeats, levels, clustered):
    truth = _matrix_truth(1.0 if clustered else 0.0)
    order = list(NAMES)
    rows = []
    records = {(e, lv): [] for e in ESTIMATORS for lv in levels}
    for _ in range(repeats):
        pairs = matrix_world(rng, clustered)
        for estimator in ESTIMATORS:
            for level in levels:
                m = head_to_head(pairs, estimator, level=level, systems=order)
                upper = np.triu(np.ones_like(truth, dtype=bool), 1)
                live = upper & np.isfinite(m.ci_low) & np.isfinite(m.ci_high)
                inside = (m.ci_low <= truth) & (truth <= m.ci_high)
                naive = np.abs(m.estimate - truth) <= ndtri(0.5 + level / 2) * m.se
                records[(estimator, level)].append(
                    (
                        bool(inside[live].all()),
                        float(inside[live].mean()),
                        bool(naive[live].all()),
                        float(np.mean((m.ci_high - m.ci_low)[live])),
                        int(live.sum()),
                    )
                )
    world = "matrix, clustered" if clustered else "matrix"
    for (estimator, level), values in records.items():
        together, single, naive, width, count = (np.array(v, dtype=float) for v in zip(*values))
        rows.append(_row(world, estimator, level, together, single, naive, width, count))
    return rows


def run_breakdown(rng, repeats, levels, delta):
    rates, strengths = breakdown_truth(delta)
    rows = []
    records = {(e, s, lv): [] for e in ESTIMATORS for s in ("win_rate", "strength") for lv in levels}
    for _ in range(repeats):
        pairs = breakdown_world(rng, delta)
        for level in levels:
            table = preference_breakdown(pairs, "category", level=level)
            table = table[table[BY].notna()]
            for (estimator, estimand, lv), store in records.items():
                if lv != level:
                    continue
                part = table[(table["estimator"] == estimator) & (table["estimand"] == estimand)]
                truth_of = rates if estimand == "win_rate" else strengths
                cover = np.ones(BETA.size, dtype=bool)
                single, naive_all, widths = [], np.ones(BETA.size, dtype=bool), []
                for category in CATEGORIES:
                    rows_c = part[part[BY] == category].set_index("system").reindex(NAMES)
                    low, high = rows_c["ci_low"].to_numpy(float), rows_c["ci_high"].to_numpy(float)
                    est = rows_c["estimate"].to_numpy(float)
                    t = truth_of[category]
                    if estimand == "strength":  # centred over the systems with an estimate: all here
                        t = t - t.mean()
                    inside = (low <= t) & (t <= high)
                    cover &= inside
                    naive_all &= np.abs(est - t) <= ndtri(0.5 + level / 2) * rows_c["se"].to_numpy(float)
                    single.append(inside.mean())
                    widths.append(np.nanmean(high - low))
                store.append((cover.mean(), np.mean(single), naive_all.mean(), np.mean(widths), len(CATEGORIES)))
    for (estimator, estimand, level), values in records.items():
        together, single, naive, width, count = (np.array(v, dtype=float) for v in zip(*values))
        rows.append(_row(f"breakdown, {estimand}", estimator, level, together, single, naive, width, count))
    return rows


def _row(world, estimator, level, together, single, naive, width, count):
    cover = float(together.mean())
    se = float(together.std(ddof=1) / np.sqrt(together.size))
    return {
        "world": world,
        "estimator": estimator,
        "level": level,
        "cover": round(cover, 4),
        "s.e.": round(se, 4),
        "target": "ok" if abs(cover - level) <= 0.02 else ("LOW" if cover < level else "HIGH"),
        "single": round(float(single.mean()), 4),
        "naive": round(float(naive.mean()), 4),
        "width": round(float(width.mean()), 4),
        "pairs": round(float(count.mean()), 2),
        "draws": together.size,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--levels", type=float, nargs="+", default=[0.9, 0.95])
    parser.add_argument("--quick", action="store_true", help="30 draws: a smoke test")
    parser.add_argument(
        "--only", choices=("matrix", "clustered", "breakdown"), help="one world: matrix, matrix clustered, breakdown"
    )
    parser.add_argument("--ties", type=float, default=0.1, help="the share of ties in every world (default 0.1)")
    parser.add_argument("--per-pair", type=int, default=100, help="battles of each pair in the world matrix")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args(argv)
    repeats = 30 if args.quick else args.repeats
    global TIES, PER_PAIR
    TIES, PER_PAIR = args.ties, args.per_pair
    delta = np.random.default_rng(args.seed + 1).normal(0.0, 0.5, (len(CATEGORIES), BETA.size))
    start = time.perf_counter()
    rows = []
    if args.only in (None, "matrix"):
        rows += run_matrix(np.random.default_rng([args.seed, 1]), repeats, args.levels, clustered=False)
    if args.only in (None, "clustered"):
        rows += run_matrix(np.random.default_rng([args.seed, 2]), repeats, args.levels, clustered=True)
    if args.only in (None, "breakdown"):
        rows += run_breakdown(np.random.default_rng([args.seed, 3]), repeats, args.levels, delta)
    table = pd.DataFrame(rows)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.to_string(index=False))
    print(f"{repeats} draws per world, seed {args.seed}: {time.perf_counter() - start:.1f} s")
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(args.output, index=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
