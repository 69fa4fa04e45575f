r"""Clustered inference: coverage of every estimand's interval when judgments share a question.

Run:
    python benchmarks/bench_clustered.py [--repeats 400] [--seed 20261201] [--only pairs|ratings|vendored]
    python benchmarks/bench_clustered.py --quick                      # a smoke test: few worlds, 20 draws
    python benchmarks/bench_clustered.py --output results/benchmarks/clustered.csv

Judgments that share a question (a *cluster*) are not independent: a hard question is hard for
every battle on it, a document that reads badly drags every summary of it down. Each world below
draws new questions for every repeat, so the truth is a superpopulation quantity, and the
estimators see the question of every judgment (``JudgedPairs.from_arrays(..., items=question)``,
``RatedSystem(..., clusters=document, output_clusters=document)``). Printed per world, estimand,
estimator and level (0.9 and 0.95):

- ``cover``: the coverage of the systems' intervals, averaged over systems and draws; ``s.e.``
  its Monte-Carlo standard error, the spread of the per-draw averages over sqrt(R) (for one
  system, or a share of draws, this is sqrt(p (1 - p) / R)); ``low`` the lowest system's
  coverage; ``target`` ``ok`` when the coverage is within 0.02 of nominal and at least
  nominal - 2 s.e., else ``LOW`` or ``HIGH``;
- ``width``: the mean interval width; ``x indep``: the mean width over that of the same
  estimator on the same draws told nothing of the questions (every judgment its own cluster),
  at level 0.9 (target: within 5% at ICC 0); ``deff``: the mean of the estimate's
  ``design_effect`` (blank while the estimators return none);
- ``ranks``: the simultaneous coverage of the rank-sets
  (:func:`debias.stats.common.ranking.rank_sets` on the estimate's joint covariance, step-down
  and canonical as the leaderboards compute them, with the smallest ``df`` where the estimate
  has one, 5,000 Gaussian draws for the critical value), a draw counting when every system's
  true rank (1 + the systems truly better: ties share the best rank) is in its set (target: at
  least the level); ``split``: the share of draws whose rank-sets separate the world's two
  equal systems (target: at most 1 - level); ``size``: the mean rank-set size.

Pairwise worlds. Q questions; on each, one battle for every pair of S systems (or a random half
of the pairs, drawn afresh per question), sides A and B in random order. A question-by-system
effect :math:`u_{q,s} \sim N(0, \sigma^2)` shifts the logit:
:math:`P(A \text{ beats } B \text{ on } q) = \text{logistic}(\beta_A - \beta_B + u_{qA} - u_{qB})`;
a verdict is a tie with probability 0.1, else a win for A with that probability. The strengths
:math:`\beta` are evenly spaced by 0.2 with the two middle systems equal. An LLM judge gives a
verdict on every battle, people's verdict with probability 0.7 and a uniformly random verdict
(A, B or tie) otherwise; people's verdict is revealed on a random 30% of the battles (the
labelled set; the rest is PPI++'s pool), or on all of them in the worlds ``all human``. The
truths: the win rate :math:`\theta_s` = the mean over opponents o of
:math:`E_u[0.05 + 0.9\,\text{logistic}(\beta_s - \beta_o + u_s - u_o)]` (ties half a win), by
Gauss-Hermite quadrature over :math:`u_s - u_o \sim N(0, 2\sigma^2)` (200 nodes, exact to
rounding); the Bradley-Terry strengths = the fit of the Bradley-Terry model to those expected
pairwise scores with every pair weighted equally (the root of the population estimating
equation, centred), what the estimator converges to.

Ratings worlds. G documents of 3 items each; every system answers every item. The score of an
output of system s on item i of document g is
:math:`y = \mu_s + d_g + e_{g,s} + \epsilon_{i,s}`, with :math:`d_g \sim N(0, 0.6 c)` (shared by
every system), :math:`e_{g,s} \sim N(0, 0.4 c)` (the document-by-system effect) and
:math:`\epsilon \sim N(0, 0.64)`; a judgment is :math:`y + N(0, 0.36)` (annotator noise), 1-3
judgments per judged output (uniform). The metric, on every output, is
:math:`y + b_s + N(0, 0.36)` with a system bias :math:`b_s = \pm 0.1` (correlation about 0.7
with an output's mean judgment at c = 0). :math:`\mu` = 3.0, 3.2, 3.4, 3.4, 3.6, 3.8 (two
equal). Designs: ``judged documents``: the G documents are judged in full (every item, every
system), and 20 G further documents are the unjudged outputs (n/N = 1/21: the finite-population
correction of the independent intervals, 1 - n/N, costs them about 0.01 of coverage of
:math:`\mu_s`); ``30% of items``: a random 30% of the items of the G documents
are judged (the same items for every system), the others are the unjudged outputs. Estimators
``mean``, ``cv:metric`` and ``ppi++:metric``. The truth is :math:`\mu_s` (superpopulation);
``cover fp`` is the coverage of the finite-population mean instead (the mean of :math:`y` over
the system's outputs in the draw, the estimand of the package's finite-population correction).

Intra-cluster correlation (ICC), as reported. Ratings: the correlation of two single judgments
of one system's outputs on two different items of the same document,
:math:`\text{ICC} = c/(c + 1)` (:math:`c = \sigma_d^2 + \sigma_{ds}^2`, the rest of a
judgment's variance being 0.64 + 0.36 = 1); worlds at ICC 0, 0.1, 0.3 and 0.5. Pairwise: the
correlation of system s's scores (1, 0.5 or 0) in two of its battles on the same question
against two different opponents, averaged over systems and opponents (observed scale, computed
by simulation of 100,000 questions; what drives the design effect of a win rate, about 1 + (m -
1) ICC with m battles of a system per question); beside it the latent-scale ICC of a system's
utility, :math:`\sigma^2/(\sigma^2 + \pi^2/3)`, the usual one of multilevel logistic models.
The observed ICC cannot exceed one half (the opponent's effect is as variable as the system's)
and is 0.21 at :math:`\sigma = 2` (latent 0.55).

Vendored data. The released judgments are checked for judgments sharing a question within a
system (the paper's ratings: an item is one output of a system; Chatbot Arena: the
``question_id`` of each battle); resampling questions would test clustering only where
questions are shared, so a source without shared questions is reported and skipped.

Machine: one process, one BLAS thread (``OMP_NUM_THREADS=1``); the elapsed time is printed.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core, as stated in the printout

import numpy as np  # noqa: E402
from scipy.special import expit  # noqa: E402

from debias.data import EvalSample, JudgedPairs  # noqa: E402
from debias.data.judgments import Judgments  # noqa: E402
from debias.stats.common.ranking import rank_sets  # noqa: E402
from debias.stats.common.resampling import setting_seed  # noqa: E402
from debias.stats.preferences.estimands import preference_estimates  # noqa: E402
from debias.stats.ratings import RatedSystem, ratings_estimates  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
LEVELS = (0.9, 0.95)
WIDTH_LEVEL = 0.9  # the level of the width ratio against the independent analysis
TOLERANCE = 0.02  # coverage target: within this of nominal (and at least nominal - 2 s.e.)
RANK_DRAWS = 5_000
TIE_RATE, JUDGE_AGREES, LABELLED_SHARE = 0.1, 0.7, 0.3
SIGMAS = (0.0, 0.5, 1.0, 2.0)
RATING_ICCS = (0.0, 0.1, 0.3, 0.5)
ITEM_SD, ANNOTATOR_SD, METRIC_SD = 0.8, 0.6, 0.6
MEANS = np.array([3.0, 3.2, 3.4, 3.4, 3.6, 3.8])  # two equal systems: 2 and 3
POOL_DOCUMENTS = 20  # unjudged documents per judged one (design "judged documents")
ITEMS_PER_DOCUMENT = 3


# Pairwise worlds ----------------------------------------------------------------------------


@dataclass(frozen=True)
class PairsWorld:
    design: str
    systems: int
    questions: int
    sigma: float
    half: bool = False  # a random half of the pairs per question
    all_human: bool = False  # people's verdict on every battle (no judge-only pool)

    @property
    def name(self) -> str:
        return f"{self.design}, sigma {self.sigma:g}"

    @property
    def beta(self) -> np.ndarray:
        """Evenly spaced by 0.2, the two middle systems equal (centred)."""
        s = self.systems
        steps = np.concatenate([np.arange(s // 2), np.arange(s // 2 - 1, s - 1)]) * 0.2
        return steps - steps.mean()

    @property
    def equal(self) -> tuple[int, int]:
        return self.systems // 2 - 1, self.systems // 2

    @property
    def estimators(self) -> list[str]:
        return ["human"] if self.all_human else ["human", "ppi++:judge"]


def expected_scores(beta: np.ndarray, sigma: float, nodes: int = 200) -> np.ndarray:
    """P[a, b]: a's expected score (ties half) against b over questions, by Gauss-Hermite
    quadrature over u_a - u_b ~ N(0, 2 sigma^2)."""
    x, w = np.polynomial.hermite.hermgauss(nodes)
    gap = beta[:, None] - beta[None, :]
    p = np.tensordot(expit(gap[..., None] + 2.0 * sigma * x), w, axes=([-1], [0])) / np.sqrt(np.pi)
    return TIE_RATE / 2.0 + (1.0 - TIE_RATE) * p


def true_win_rates(score: np.ndarray) -> np.ndarray:
    s = score.shape[0]
    return (score.sum(axis=1) - np.diag(score)) / (s - 1)


def true_strengths(score: np.ndarray) -> np.ndarray:
    """The Bradley-Terry fit to the expected pairwise scores, every pair weighted equally:
    the root of sum_b (P[a, b] - logistic(t_a - t_b)) = 0 for every a, centred."""
    s = score.shape[0]
    off = ~np.eye(s, dtype=bool)
    theta = np.zeros(s)
    for _ in range(100):
        p = expit(theta[:, None] - theta[None, :])
        gradient = np.where(off, score - p, 0.0).sum(axis=1)
        w = np.where(off, p * (1 - p), 0.0)
        laplacian = np.diag(w.sum(axis=1)) - w
        step = np.linalg.lstsq(laplacian, gradient, rcond=None)[0]
        theta += step
        theta -= theta.mean()
        if np.max(np.abs(step)) < 1e-13:
            break
    return theta


def pairs_icc(world: PairsWorld, rng, n: int = 100_000) -> tuple[float, float]:
    """Observed-scale ICC of a system's scores in two of its battles on one question (different
    opponents), and the latent-scale sigma^2 / (sigma^2 + pi^2 / 3)."""
    latent = world.sigma**2 / (world.sigma**2 + np.pi**2 / 3.0)
    if world.sigma == 0:
        return 0.0, 0.0
    beta, s = world.beta, world.systems
    covariances, variances = [], []
    for first in range(0, n, 20_000):
        u = rng.normal(0.0, world.sigma, (min(20_000, n - first), s))
        p = expit(beta[:, None] - beta[None, :] + u[:, :, None] - u[:, None, :])
        m = TIE_RATE / 2.0 + (1.0 - TIE_RATE) * p  # E[score | u]
        within = TIE_RATE / 4.0 + (1.0 - TIE_RATE) * p - m**2  # Var[score | u]
        covariances.append(m)
        variances.append(within.mean(axis=0))
    m = np.concatenate(covariances)
    mc = m - m.mean(axis=0)
    var_x = np.mean(variances, axis=0) + m.var(axis=0)
    num, den = [], []
    for a in range(s):
        others = [o for o in range(s) if o != a]
        c = mc[:, a, others].T @ mc[:, a, others] / m.shape[0]
        k = len(others)
        num.append((c.sum() - np.trace(c)) / (k * (k - 1)))
        den.append(var_x[a, others].mean())
    return float(np.mean(num) / np.mean(den)), float(latent)


class PairsDraws:
    """New questions, battles and verdicts of one world, draw after draw."""

    def __init__(self, world: PairsWorld, rng):
        self.world, self.rng = world, rng
        s, q = world.systems, world.questions
        self.i, self.j = np.triu_indices(s, 1)
        self.names = np.array([f"s{k:02d}" for k in range(s)], dtype=object)
        self.question_names = np.array([f"q{k}" for k in range(q)], dtype=object)

    def draw(self) -> tuple[JudgedPairs, JudgedPairs]:
        """The battles with their questions as items, and the same without (independent)."""
        w, rng = self.world, self.rng
        n_pairs = self.i.size
        q = np.repeat(np.arange(w.questions), n_pairs)
        a, b = np.tile(self.i, w.questions), np.tile(self.j, w.questions)
        if w.half:
            order = np.argsort(rng.random((w.questions, n_pairs)), axis=1)[:, : n_pairs // 2]
            keep = np.zeros((w.questions, n_pairs), bool)
            np.put_along_axis(keep, order, True, axis=1)
            q, a, b = q[keep.ravel()], a[keep.ravel()], b[keep.ravel()]
        flip = rng.random(q.size) < 0.5
        a, b = np.where(flip, b, a), np.where(flip, a, b)
        u = rng.normal(0.0, w.sigma, (w.questions, w.systems))
        p = expit(w.beta[a] - w.beta[b] + u[q, a] - u[q, b])
        r = rng.random(q.size)
        verdict = np.where(r < TIE_RATE, 0.5, (r < TIE_RATE + (1.0 - TIE_RATE) * p).astype(float))
        judge = np.where(rng.random(q.size) < JUDGE_AGREES, verdict, rng.integers(0, 3, q.size) / 2.0)
        labelled = np.ones(q.size, bool) if w.all_human else rng.random(q.size) < LABELLED_SHARE
        human = np.where(labelled, verdict, np.nan)
        judges = {} if w.all_human else {"judge": judge}
        common = dict(systems=list(self.names))
        clustered = JudgedPairs.from_arrays(
            self.names[a], self.names[b], human, judges, items=self.question_names[q], **common
        )
        independent = JudgedPairs.from_arrays(self.names[a], self.names[b], human, judges, **common)
        return clustered, independent


def pairs_worlds(quick: bool) -> list[PairsWorld]:
    if quick:
        return [PairsWorld("6 systems x 40 questions, all pairs", 6, 40, sigma) for sigma in (0.0, 1.0)]
    designs = [
        dict(design="6 systems x 60 questions, all pairs, all human", systems=6, questions=60, all_human=True),
        dict(design="6 systems x 40 questions, all pairs", systems=6, questions=40),
        dict(design="12 systems x 200 questions, half the pairs", systems=12, questions=200, half=True),
    ]
    return [PairsWorld(sigma=sigma, **d) for d in designs for sigma in SIGMAS]


# Ratings worlds -----------------------------------------------------------------------------


@dataclass(frozen=True)
class RatingsWorld:
    design: str
    documents: int
    icc: float
    judged_share: float = 1.0  # < 1: a random share of the G documents' items judged, no pool

    @property
    def name(self) -> str:
        return f"{self.design}, ICC {self.icc:g}"

    @property
    def equal(self) -> tuple[int, int]:
        return 2, 3

    @property
    def estimators(self) -> list[str]:
        return ["mean", "cv:metric", "ppi++:metric"]


class RatingsDraws:
    """New documents, outputs, judgments and metric scores of one world, draw after draw."""

    def __init__(self, world: RatingsWorld, rng):
        self.world, self.rng = world, rng
        m = ITEMS_PER_DOCUMENT
        total = world.documents * (1 + POOL_DOCUMENTS) if world.judged_share == 1.0 else world.documents
        self.total = total
        # numpy strings, not Python objects: the estimators read labels as such
        self.documents = np.repeat(np.array([f"d{k}" for k in range(total)]), m)
        self.items = np.array([f"d{k}.{i}" for k in range(total) for i in range(m)])
        self.systems = [f"s{k}" for k in range(MEANS.size)]
        self.bias = np.where(np.arange(MEANS.size) % 2 == 0, 0.1, -0.1)

    def draw(self) -> tuple[list[RatedSystem], list[RatedSystem], np.ndarray]:
        """The rated systems with their documents as clusters, the same without, and each
        system's finite-population mean (of y over its outputs)."""
        w, rng, m = self.world, self.rng, ITEMS_PER_DOCUMENT
        c = w.icc / (1.0 - w.icc)
        s = MEANS.size
        d = rng.normal(0.0, np.sqrt(0.6 * c), (self.total, 1, 1))
        e = rng.normal(0.0, np.sqrt(0.4 * c), (self.total, 1, s))
        y = (MEANS + d + e + rng.normal(0.0, ITEM_SD, (self.total, m, s))).reshape(-1, s)  # (outputs, S)
        metric = y + self.bias + rng.normal(0.0, METRIC_SD, y.shape)
        if w.judged_share == 1.0:
            judged = np.zeros(y.shape[0], bool)
            judged[: w.documents * m] = True
        else:
            judged = rng.random(y.shape[0]) < w.judged_share
        where = np.flatnonzero(judged)
        rest = np.flatnonzero(~judged)
        counts = rng.integers(1, 4, (where.size, s))
        clustered, independent = [], []
        for k, system in enumerate(self.systems):
            values = np.repeat(y[where, k], counts[:, k]) + rng.normal(0.0, ANNOTATOR_SD, counts[:, k].sum())
            sample = EvalSample.from_arrays(
                Judgments(values, counts[:, k]),
                metric[where, k, None],
                unjudged_scores=metric[rest, k, None],
                metrics=("metric",),
            )
            items = self.items[where]
            outputs = np.concatenate([items, self.items[rest]])
            output_clusters = np.concatenate([self.documents[where], self.documents[rest]])
            clustered.append(
                RatedSystem(
                    system, sample, items, outputs, clusters=self.documents[where], output_clusters=output_clusters
                )
            )
            independent.append(RatedSystem(system, sample, items, outputs))
        return clustered, independent, y.mean(axis=0)


def ratings_worlds(quick: bool) -> list[RatingsWorld]:
    if quick:
        return [RatingsWorld("40 judged documents", 40, icc) for icc in (0.0, 0.3)]
    designs = [
        dict(design="40 judged documents", documents=40),
        dict(design="200 judged documents", documents=200),
        dict(design="100 documents, 30% of items judged", documents=100, judged_share=0.3),
    ]
    return [RatingsWorld(icc=icc, **d) for d in designs for icc in RATING_ICCS]


# Tallies ------------------------------------------------------------------------------------


class Tally:
    """One (world, estimand, estimator, level): what every draw gave."""

    def __init__(self):
        self.covered, self.covered_fp, self.width, self.ratio = [], [], [], []
        self.ranks, self.split, self.size, self.deff = [], [], [], []
        self.missing = 0

    def add(self, result, truth, equal, seed, finite=None, independent=None):
        estimate, low, high = result.estimate, result.ci_low, result.ci_high
        valid = np.isfinite(estimate) & np.isfinite(low) & np.isfinite(high)
        self.missing += int((~valid).sum())
        inside = np.where(valid, (low <= truth) & (truth <= high), np.nan)
        self.covered.append(inside)
        if finite is not None:
            self.covered_fp.append(np.where(valid, (low <= finite) & (finite <= high), np.nan))
        self.width.append(np.nanmean(np.where(valid, high - low, np.nan)))
        if independent is not None:
            self.ratio.append(np.nanmean(high - low) / np.nanmean(independent.ci_high - independent.ci_low))
        deff = getattr(result, "design_effect", None)
        if deff is not None:
            self.deff.append(np.nanmean(np.asarray(deff, dtype=float)))
        keep = np.flatnonzero(valid & np.isfinite(np.diag(result.covariance)))
        if keep.size < len(truth):  # a system without an interval: no simultaneous statement
            self.ranks.append(np.nan)
            self.split.append(np.nan)
            return
        df = getattr(result, "df", None)
        df = None if df is None else float(np.min(np.asarray(df, dtype=float)))
        sets = rank_sets(
            estimate,
            result.covariance,
            level=result.level,
            systems=list(result.systems),
            rng=np.random.default_rng(seed),
            n_draws=RANK_DRAWS,
            canonical=True,
            step_down=True,
            df=df,
        )
        scale = max(np.max(np.abs(truth)), 1.0)
        true_rank = 1 + (truth[None, :] > truth[:, None] + 1e-9 * scale).sum(axis=1)
        self.ranks.append(float(np.all((sets.rank_low <= true_rank) & (true_rank <= sets.rank_high))))
        a, b = equal
        self.split.append(float(sets.better[a, b] or sets.better[b, a]))
        self.size.append(float(np.mean(sets.rank_high - sets.rank_low + 1)))


def share(values) -> tuple[float, float]:
    """Mean of per-draw values (NaN left out) and its Monte-Carlo s.e."""
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    if x.size == 0:
        return np.nan, np.nan
    return float(x.mean()), float(x.std(ddof=1) / np.sqrt(x.size)) if x.size > 1 else np.nan


def verdict(cover: float, se: float, nominal: float) -> str:
    if not np.isfinite(cover):
        return "-"
    if cover < nominal - TOLERANCE or cover < nominal - 2 * se:
        return "LOW"
    if cover > nominal + TOLERANCE:
        return "HIGH"
    return "ok"


def summarise(tally: Tally, level: float) -> dict:
    cells = np.array(tally.covered, dtype=float)  # (R, S)
    per_draw = np.nanmean(cells, axis=1)
    cover, se = share(per_draw)
    per_system = np.nanmean(cells, axis=0)
    cover_fp, se_fp = (
        share(np.nanmean(np.array(tally.covered_fp, dtype=float), axis=1))
        if tally.covered_fp
        else (
            np.nan,
            np.nan,
        )
    )
    ranks, ranks_se = share(tally.ranks)
    split, split_se = share(tally.split)
    return {
        "draws": len(tally.covered),
        "cover": cover,
        "cover_se": se,
        "lowest_system": float(np.min(per_system)),
        "target": verdict(cover, se, level),
        "cover_fp": cover_fp,
        "cover_fp_se": se_fp,
        "width": float(np.nanmean(tally.width)),
        "width_ratio": float(np.mean(tally.ratio)) if tally.ratio else np.nan,
        "design_effect": float(np.mean(tally.deff)) if tally.deff else np.nan,
        "ranks": ranks,
        "ranks_se": ranks_se,
        "ranks_target": "-" if not np.isfinite(ranks) else ("ok" if ranks >= level - 2 * ranks_se else "LOW"),
        "split": split,
        "split_se": split_se,
        "split_target": "-" if not np.isfinite(split) else ("ok" if split <= 1 - level + 2 * split_se else "HIGH"),
        "set_size": float(np.mean(tally.size)) if tally.size else np.nan,
        "missing": tally.missing,
    }


# Running ------------------------------------------------------------------------------------


def run_pairs(world: PairsWorld, repeats: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(setting_seed(seed, "pairs", world.name))
    icc, latent = pairs_icc(world, np.random.default_rng(setting_seed(seed, "pairs icc", world.name)))
    score = expected_scores(world.beta, world.sigma)
    truths = {"win_rate": true_win_rates(score), "strength": true_strengths(score)}
    draws = PairsDraws(world, rng)
    tallies = {}
    for r in range(repeats):
        clustered, independent = draws.draw()
        for level in LEVELS:
            results = preference_estimates(clustered, level=level, estimators=world.estimators)
            baseline = {}
            if level == WIDTH_LEVEL:
                for other in preference_estimates(independent, level=level, estimators=world.estimators):
                    baseline[other.estimand, other.estimator] = other
            for result in results:
                key = (result.estimand, result.estimator, level)
                tally = tallies.setdefault(key, Tally())
                tally.add(
                    result,
                    truths[result.estimand],
                    world.equal,
                    setting_seed(seed, "ranks", world.name, *map(str, key), r),
                    independent=baseline.get((result.estimand, result.estimator)),
                )
    rows = []
    for (estimand, estimator, level), tally in tallies.items():
        row = {"shape": "pairs", "world": world.name, "icc": icc, "latent_icc": latent, "clusters": world.questions}
        rows.append(row | {"estimand": estimand, "estimator": estimator, "level": level} | summarise(tally, level))
    return rows


def run_ratings(world: RatingsWorld, repeats: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(setting_seed(seed, "ratings", world.name))
    draws = RatingsDraws(world, rng)
    tallies = {}
    for r in range(repeats):
        clustered, independent, finite = draws.draw()
        for level in LEVELS:
            joint, notes = ratings_estimates(clustered, level=level)
            baseline = ratings_estimates(independent, level=level)[0] if level == WIDTH_LEVEL else {}
            for name in world.estimators:
                result = joint[name]
                assert result.systems == tuple(draws.systems), (name, notes)
                key = ("mean", name, level)
                tallies.setdefault(key, Tally()).add(
                    result,
                    MEANS,
                    world.equal,
                    setting_seed(seed, "ranks", world.name, *map(str, key), r),
                    finite=finite,
                    independent=baseline.get(name),
                )
    rows = []
    for (estimand, estimator, level), tally in tallies.items():
        row = {"shape": "ratings", "world": world.name, "icc": world.icc, "latent_icc": np.nan}
        row["clusters"] = world.documents
        rows.append(row | {"estimand": estimand, "estimator": estimator, "level": level} | summarise(tally, level))
    return rows


def vendored() -> list[str]:
    """Whether any vendored source has judgments sharing a question within a system."""
    lines = []
    for task in ("cnndm", "msmarco"):
        folder = REPO / "data" / task / "systems"
        for path in sorted(folder.glob("*.jsonl.gz")):
            with gzip.open(path, "rt", encoding="utf-8") as handle:
                ids = [json.loads(line)["id"] for line in handle]
            shared = len(ids) - len(set(ids))
            lines.append(
                f"  {task}/{path.name.removesuffix('.jsonl.gz')}: {len(ids)} outputs on {len(set(ids))} items"
                f" ({shared} outputs sharing an item)"
            )
    with gzip.open(REPO / "data" / "arena" / "human.jsonl.gz", "rt", encoding="utf-8") as handle:
        questions = [json.loads(line)["question_id"] for line in handle]
    counts = np.unique(questions, return_counts=True)[1]
    in_shared = int(counts[counts > 1].sum())
    lines.append(
        f"  arena: {len(questions)} battles on {counts.size} questions; {in_shared} battles "
        f"({in_shared / len(questions):.2%}) share a question with another, at most {counts.max()} on one"
    )
    lines.append(
        "  no vendored source has questions shared by a substantial share of its judgments: a system's ratings"
        " have one output per item, and the Arena's battles one question each but for 9 pairs; resampling"
        " questions would resample independent judgments, so the vendored check is skipped"
    )
    return lines


# Printing -----------------------------------------------------------------------------------


def fmt(x, digits=3) -> str:
    return "" if x is None or not np.isfinite(x) else f"{x:.{digits}f}"


def print_table(rows: list[dict], ratings: bool) -> None:
    head = (
        f"{'world':56s} {'ICC':>5s} {'estimand':8s} {'estimator':13s} {'level':>5s} {'cover':>6s} {'s.e.':>6s}"
        f" {'low':>6s} {'target':>6s} "
    )
    head += f"{'cover fp':>8s} " if ratings else f"{'latent':>6s} "
    head += f"{'width':>7s} {'x indep':>7s} {'deff':>5s} {'ranks':>6s} {'s.e.':>6s} {'split':>6s} {'s.e.':>6s}"
    head += f" {'size':>5s}"
    print(head)
    for row in rows:
        text = (
            f"{row['world'][:56]:56s} {fmt(row['icc'], 2):>5s} {row['estimand']:8s} {row['estimator'][:13]:13s}"
            f" {row['level']:5.2f} {fmt(row['cover']):>6s} {fmt(row['cover_se']):>6s} {fmt(row['lowest_system']):>6s}"
            f" {row['target']:>6s} "
        )
        text += f"{fmt(row['cover_fp']):>8s} " if ratings else f"{fmt(row['latent_icc'], 2):>6s} "
        text += (
            f"{fmt(row['width']):>7s} {fmt(row['width_ratio']):>7s} {fmt(row['design_effect'], 2):>5s}"
            f" {fmt(row['ranks']):>6s} {fmt(row['ranks_se']):>6s} {fmt(row['split']):>6s} {fmt(row['split_se']):>6s}"
            f" {fmt(row['set_size'], 2):>5s}"
        )
        if row["missing"]:
            text += f"  ({row['missing']} system x draw cells without an interval, left out)"
        print(text)


def print_targets(rows: list[dict]) -> None:
    cover = [r for r in rows if np.isfinite(r["cover"])]
    missed = [r for r in cover if r["target"] != "ok"]
    print(
        f"\ntargets: coverage within {TOLERANCE} of nominal and at least nominal - 2 s.e.: "
        f"{len(cover) - len(missed)} of {len(cover)} cells"
    )
    for r in missed:
        print(f"  {r['target']:4s} {r['world']} | {r['estimand']} {r['estimator']} at {r['level']}: {r['cover']:.3f}")
    ranked = [r for r in rows if np.isfinite(r["ranks"])]
    low = [r for r in ranked if r["ranks_target"] != "ok"]
    print(f"rank-sets' simultaneous coverage at least the level (2 s.e.): {len(ranked) - len(low)} of {len(ranked)}")
    for r in low:
        print(f"  LOW  {r['world']} | {r['estimand']} {r['estimator']} at {r['level']}: {r['ranks']:.3f}")
    split = [r for r in rows if np.isfinite(r["split"])]
    high = [r for r in split if r["split_target"] != "ok"]
    print(f"equal systems separated at most 1 - level of the time (2 s.e.): {len(split) - len(high)} of {len(split)}")
    for r in high:
        print(f"  HIGH {r['world']} | {r['estimand']} {r['estimator']} at {r['level']}: {r['split']:.3f}")
    flat = [r for r in rows if r["icc"] == 0 and np.isfinite(r["width_ratio"])]
    wide = [r for r in flat if abs(r["width_ratio"] - 1.0) > 0.05]
    print(f"widths at ICC 0 within 5% of the independent ones ({WIDTH_LEVEL}): {len(flat) - len(wide)} of {len(flat)}")
    for r in wide:
        print(f"  {r['world']} | {r['estimand']} {r['estimator']}: x {r['width_ratio']:.3f}")


def write_csv(rows: list[dict], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def section(title: str, worlds, run: Callable, repeats: int, seed: int, ratings: bool) -> list[dict]:
    print(f"\n== {title}")
    rows = []
    for world in worlds:
        start = time.perf_counter()
        out = run(world, repeats, seed)
        rows += out
        print(f"  {world.name}: {time.perf_counter() - start:.1f} s")
    print()
    print_table(rows, ratings)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=None, help="draws per world (default 400; 20 with --quick)")
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--quick", action="store_true", help="a smoke test: two worlds of each shape, 20 draws")
    parser.add_argument("--only", choices=["pairs", "ratings", "vendored"], default=None)
    parser.add_argument("--output", type=Path, default=None, help="also write every row as CSV here")
    args = parser.parse_args()
    repeats = args.repeats or (20 if args.quick else 400)
    start = time.perf_counter()
    print(
        f"Clustered inference: {repeats} draws per world, seed {args.seed}, levels {LEVELS}"
        f"{' (quick)' if args.quick else ''}; load average {os.getloadavg()[0]:.1f}"
    )
    rows: list[dict] = []
    if args.only in (None, "pairs"):
        rows += section("pairwise verdicts", pairs_worlds(args.quick), run_pairs, repeats, args.seed, False)
    if args.only in (None, "ratings"):
        rows += section("ratings", ratings_worlds(args.quick), run_ratings, repeats, args.seed, True)
    if args.only in (None, "vendored"):
        print("\n== vendored data resampled by question")
        print("\n".join(vendored()))
    if rows:
        print_targets(rows)
    if args.output is not None and rows:
        write_csv(rows, args.output)
        print(f"\nwrote {len(rows)} rows to {args.output}")
    print(f"\n{time.perf_counter() - start:.1f} s (load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
