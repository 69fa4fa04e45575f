r"""The judging loop on the shipped code: how many votes ``status`` and ``next_battles`` need to
settle a question, and how often anything they print is wrong on the way.

Run:
    python benchmarks/bench_loop.py --streams 100 [--cells PATTERN ...] [--batch 50] [--level 0.9]

A *world* is a fixed pool of battles, each with a human verdict that stays hidden until the
battle is chosen:

``arena``
    the vendored Chatbot Arena battles (``data/arena/human.jsonl.gz`` and the three judges'
    tables, read by :func:`debias.config.tasks.load_preferences` with ``config/arena.yaml``,
    every human verdict kept): 26,919 battles of 20 models. The truth is the estimand computed
    by the shipped estimator on ALL the pool's human verdicts (its own win rates, ties half; its
    own Bradley-Terry strengths, centred to mean 0): the pool is the population.
``synth12`` / ``synth6``
    synthetic pools drawn once from a seed: 12 (6) systems with Bradley-Terry strengths holding
    near-ties, one rare system and unequal pair popularity (a pair's share of the pool is the
    product of its systems' popularity), verdicts drawn exactly from the Bradley-Terry model
    (no ties). Truth is the estimand on the full pool, as for the Arena, and also from the
    generating model (``model``: the strengths, centred; a system's win rate as the mean of its
    model probabilities over its battles in the pool).

A *policy* reveals verdicts in batches of ``--batch`` (50) until the question is settled or the
pool is exhausted: ``random`` reveals the pool in a uniformly random order; ``next`` chooses each
batch with :func:`debias.stats.preferences.allocation.next_battles` from the current
:func:`debias.stats.preferences.status.pairs_status` (the first batch by ``first_battles``).

At every look (after every batch) the status is checked against the truth: every printed row's
``[ci_low, ci_high]`` (a system's row against the system's true value, a contrast row
``first - second`` against the true difference) and every decision (a contrast settled as
"X better", a system "in" or "not in the top K", a rank or a rank-set "ranks a-b"). A stream
errs *familywise* when any look has any miss; at level 0.9 that should happen in at most 10 %
of streams. A stream *stalls* when ``next_battles`` writes no battle while the question is open
and unjudged battles remain (the loop cannot go on; the stream counts as unresolved). Votes are
battles with a human verdict; a stream that exhausts the pool (or stalls) is counted at the
votes it reached, so its policy's mean is a lower bound.

Only the public behaviour is read: the status's ``resolved``, ``rows`` (``first``, ``second``,
``ci_low``, ``ci_high``, ``resolved``, ``status``), ``n_votes`` and the allocation's ``battles``.
Each cell's streams are seeded from the cell's name (``zlib.crc32``): the output is deterministic.
Progress goes to stderr, a markdown table to stdout.
"""

from __future__ import annotations

import argparse
import fnmatch
import re
import sys
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from debias.data import JudgedPairs  # noqa: E402
from debias.stats.preferences.allocation import first_battles, next_battles  # noqa: E402
from debias.stats.preferences.battles import Battles  # noqa: E402
from debias.stats.preferences.estimands import ESTIMANDS  # noqa: E402
from debias.stats.preferences.status import pairs_status  # noqa: E402

LEVEL = 0.9
BATCH = 50
POLICIES = ("random", "next")


@dataclass
class World:
    """A pool of battles with every human verdict, its truths and the questions asked of it."""

    name: str
    pool: JudgedPairs
    questions: list[tuple[str, str, str]]  # (question, estimand, estimator)
    truth: dict[str, np.ndarray] = field(default_factory=dict)  # estimand -> pool truth
    model: dict[str, np.ndarray] = field(default_factory=dict)  # estimand -> generating model's truth


def pool_truth(pool: JudgedPairs, estimand: str) -> np.ndarray:
    """The estimand by the shipped estimator (people alone) on every human verdict of the pool."""
    joint = ESTIMANDS[estimand](Battles.of(pool, "half"), "human", level=LEVEL, ties="half")
    return np.asarray(joint.estimate, dtype=float)


def arena_world() -> World:
    import yaml

    from debias.config.tasks import load_preferences

    config = yaml.safe_load((ROOT / "config" / "arena.yaml").read_text())
    spec = config["preferences"]["arena"]
    spec.pop("human_battles", None)  # every human verdict: the pool is the population
    spec["battles"] = str(ROOT / spec["battles"])  # the paths are the repository's, wherever it runs from
    for judge in spec["judges"].values():
        judge["table"] = str(ROOT / judge["table"])
    pool = load_preferences(config, "arena")
    questions = [
        ("top:3", "win_rate", "human"),
        ("top:3", "strength", "human"),
        ("ranks", "win_rate", "human"),
        ("better:gpt-4,claude-v1", "win_rate", "human"),
        ("within:0.07", "win_rate", "human"),
        ("top:3", "win_rate", "ppi++:gpt4"),
        ("better:gpt-4,claude-v1", "strength", "human"),
        ("top:3", "strength", "ppi++:gpt4"),
        ("top:1", "win_rate", "human"),  # the one top-K the whole pool settles at 0.9 (not top:2 or top:3)
        ("top:1", "strength", "human"),
    ]
    world = World("arena", pool, questions)
    world.truth = {e: pool_truth(pool, e) for e in ("win_rate", "strength")}
    return world


def synthetic_world(name: str) -> World:
    """A pool drawn once (seeded by the world's name) from an exact Bradley-Terry model."""
    if name == "synth12":
        theta = np.array([1.1, 0.8, 0.55, 0.05, 0.0, -0.03, -0.1, -0.12, -0.35, -0.6, -0.85, -1.1])
        popularity = np.array([1.0, 0.6, 1.2, 1.0, 1.5, 0.8, 1.0, 1.3, 0.15, 0.7, 1.0, 0.9])  # system 8 rare
        n, better = 5000, "better:s00,s02"
        within = "within:0.2"
    elif name == "synth6":
        theta = np.array([1.0, 0.6, 0.3, -0.4, -0.45, -0.9])
        popularity = np.array([1.0, 0.7, 1.2, 1.0, 0.25, 0.8])  # system 4 rare
        n, better = 2000, "better:s00,s01"
        within = "within:0.12"
    else:
        raise ValueError(f"unknown world {name!r}")
    s = theta.size
    theta = theta - theta.mean()
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    weight = np.outer(popularity, popularity)
    np.fill_diagonal(weight, 0.0)
    first, second = np.triu_indices(s, 1)
    p = weight[first, second] / weight[first, second].sum()
    k = rng.choice(first.size, size=n, p=p)
    swap = rng.random(n) < 0.5
    a = np.where(swap, second[k], first[k])
    b = np.where(swap, first[k], second[k])
    prob = 1.0 / (1.0 + np.exp(-(theta[a] - theta[b])))
    human = (rng.random(n) < prob).astype(float)
    names = [f"s{i:02d}" for i in range(s)]
    pool = JudgedPairs.from_arrays(
        [names[i] for i in a], [names[i] for i in b], human, items=[f"q{i}" for i in range(n)], systems=names
    )
    questions = [
        ("top:3", "win_rate", "human"),
        ("top:3", "strength", "human"),
        ("ranks", "win_rate", "human"),
        (better, "win_rate", "human"),
        (within, "win_rate", "human"),
        (better, "strength", "human"),
        ("ranks", "strength", "human"),
    ]
    world = World(name, pool, questions)
    world.truth = {e: pool_truth(pool, e) for e in ("win_rate", "strength")}
    score = np.zeros(s)
    count = np.zeros(s)
    np.add.at(score, a, prob)
    np.add.at(score, b, 1.0 - prob)
    np.add.at(count, a, 1.0)
    np.add.at(count, b, 1.0)
    world.model = {"win_rate": score / count, "strength": theta}
    return world


WORLDS = {
    "arena": arena_world,
    "synth12": lambda: synthetic_world("synth12"),
    "synth6": lambda: synthetic_world("synth6"),
}

#: The look at which the votes guide (a status's ``more_votes``, the further votes it expects
#: the next batches to need) is read and compared with the votes the stream then took.
GUIDE_LOOK = 10

RANK = re.compile(r"^ranks? (\d+)(?:-(\d+))?")
TOP = re.compile(r"^(not )?in the top (\d+)")


def look_misses(status, truth: np.ndarray, k: int = 0) -> tuple[bool, bool]:
    """Whether this look prints an interval that excludes its truth, and whether it states a
    wrong decision, from the status's rows alone."""
    systems = list(status.systems)
    where = {name: i for i, name in enumerate(systems)}
    order = np.argsort(-truth, kind="stable")
    true_rank = np.empty(truth.size, dtype=int)
    true_rank[order] = np.arange(1, truth.size + 1)
    interval = decision = False
    for row in status.rows:
        i = where[row.first]
        if row.second:
            j = where[row.second]
            target = truth[i] - truth[j]
        else:
            j = None
            target = truth[i]
        low, high = row.ci_low, row.ci_high
        if np.isfinite(low) and np.isfinite(high) and not (low <= target <= high):
            interval = True
        if j is not None:
            if row.resolved:
                said_first = row.status.startswith(f"{row.first} better")
                said_second = row.status.startswith(f"{row.second} better")
                if said_first and not truth[i] > truth[j] or said_second and not truth[j] > truth[i]:
                    decision = True
                if not (said_first or said_second) and np.sign(row.estimate) != np.sign(target):
                    decision = True
            continue
        m = TOP.match(row.status)
        if m:
            inside = m.group(1) is None
            if inside != (true_rank[i] <= int(m.group(2))):
                decision = True
            continue
        m = RANK.match(row.status)
        if m:
            lo = int(m.group(1))
            hi = int(m.group(2) or lo)
            if not lo <= true_rank[i] <= hi:
                decision = True
    return interval, decision


def stalled(status, chosen, unjudged_left: int) -> bool:
    """``next_battles`` wrote no battle while the question is open and unjudged battles remain."""
    return (not status.resolved) and len(chosen) == 0 and unjudged_left > 0


@dataclass
class Stream:
    votes: int
    resolved: bool
    stalled: bool
    familywise: bool  # any look: an interval or a decision wrong (pool truth)
    intervals: bool  # any look: an interval misses (pool truth)
    decisions: bool  # any look: a decision wrong (pool truth)
    final_wrong: bool  # the last look states a wrong decision (pool truth)
    model_familywise: bool  # as familywise, against the generating model's truth
    looks: int
    guide: float = float("nan")  # the status's more_votes at the guide's look (GUIDE_LOOK)
    guide_at: int = 0  # the votes at that look


def run_stream(world: World, question: str, estimand: str, estimator: str, policy: str, rng, batch: int,
               level: float) -> Stream:  # fmt: skip
    pool = world.pool
    n = pool.n_battles
    has_verdict = pool.labelled
    revealed = np.zeros(n, dtype=bool)
    truth = world.truth[estimand]
    model = world.model.get(estimand)
    order = rng.permutation(n) if policy == "random" else None
    position = 0
    if policy == "random":
        chosen, position = order[:batch], batch
    else:
        chosen = first_battles(pool.without_human(np.ones(n, dtype=bool)), batch, rng).battles
    fw = iv = dc = mfw = stall = False
    final_wrong = False
    looks = 0
    status = None
    guide, guide_at = float("nan"), 0
    while True:
        revealed[chosen] = True
        data = pool.without_human(~revealed)
        status = pairs_status(data, question, level=level, estimand=estimand, estimator=estimator)
        looks += 1
        if looks == GUIDE_LOOK and not status.resolved:
            guide, guide_at = float(status.more_votes), int(status.n_votes)
        i_miss, d_miss = look_misses(status, truth)
        iv |= i_miss
        dc |= d_miss
        final_wrong = d_miss
        if model is not None:
            mfw |= any(look_misses(status, model))
        if status.resolved:
            break
        left = int(np.sum(~revealed & has_verdict))
        if left == 0:
            break
        if policy == "random":
            chosen, position = order[position : position + batch], position + batch
        else:
            chosen = next_battles(data, status, batch, rng).battles
            if stalled(status, chosen, left):
                stall = True
                break
    fw = iv or dc
    return Stream(
        int(status.n_votes), bool(status.resolved), stall, fw, iv, dc, final_wrong, mfw, looks, guide, guide_at
    )


def rate(flags) -> tuple[float, float]:
    x = np.asarray(flags, dtype=float)
    p = float(x.mean())
    return p, float(np.sqrt(p * (1 - p) / x.size))


def mean_se(values) -> tuple[float, float]:
    x = np.asarray(values, dtype=float)
    return float(x.mean()), float(x.std(ddof=1) / np.sqrt(x.size)) if x.size > 1 else float("nan")


def cell_seed(*parts: str) -> int:
    return zlib.crc32("|".join(parts).encode())


def run_cell(world: World, question: str, estimand: str, estimator: str, policy: str, streams: int, batch: int,
             level: float) -> tuple[list[Stream], float]:  # fmt: skip
    name = f"{world.name}/{question}/{estimand}/{estimator}/{policy}"
    seeds = np.random.SeedSequence(cell_seed(name, str(batch), str(level))).spawn(streams)
    start = time.process_time()
    out = []
    for k, seed in enumerate(seeds):
        out.append(run_stream(world, question, estimand, estimator, policy, np.random.default_rng(seed), batch, level))
        if (k + 1) % 10 == 0 or k + 1 == streams:
            print(f"  {name}: {k + 1}/{streams} streams, {time.process_time() - start:.0f} s CPU", file=sys.stderr)
    return out, time.process_time() - start


def fmt(p: float, se: float, digits: int = 3) -> str:
    return f"{p:.{digits}f} ({se:.{digits}f})"


def summary_row(world: World, question, estimand, estimator, results: dict, cpu: dict) -> str:
    cells = [world.name, question, estimand, estimator, str(len(results["random"]))]
    means = {}
    for policy in POLICIES:
        runs = results[policy]
        votes = np.array([r.votes for r in runs], dtype=float)
        m, se = mean_se(votes)
        means[policy] = (m, se)
        resolved = rate([r.resolved for r in runs])[0]
        fw, fw_se = rate([r.familywise for r in runs])
        iv = rate([r.intervals for r in runs])[0]
        dc = rate([r.decisions for r in runs])[0]
        final = int(sum(r.final_wrong for r in runs))
        model = fmt(*rate([r.model_familywise for r in runs]), 2) if world.model else "-"
        stalls = int(sum(r.stalled for r in runs)) if policy == "next" else None
        cells += [
            f"{resolved:.2f}",
            f"{np.median(votes):,.0f}",
            f"{m:,.0f} ({se:,.0f})",
            fmt(fw, fw_se, 2),
            f"{iv:.2f} / {dc:.2f}",
            str(final),
            model,
        ]
        if stalls is not None:
            cells.append(str(stalls))
    (m1, s1), (m0, s0) = means["next"], means["random"]
    ratio = m1 / m0
    ratio_se = ratio * np.sqrt((s1 / m1) ** 2 + (s0 / m0) ** 2)
    cells.append(fmt(ratio, ratio_se))
    cells.append(f"{cpu['random']:.0f} + {cpu['next']:.0f}")
    return "| " + " | ".join(cells) + " |"


_POLICY_COLUMNS = (
    "resolved | median votes | mean votes (s.e.) | familywise error (s.e.) | interval / decision | final wrong"
    " | vs model"
)
HEADER = (
    "| world | question | estimand | estimator | streams"
    f" | random: {_POLICY_COLUMNS} | next: {_POLICY_COLUMNS} | stalls"
    " | votes next / random (s.e.) | CPU s (random + next) |"
)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=100, help="streams per cell and policy")
    parser.add_argument(
        "--cells",
        nargs="*",
        default=["*"],
        help="patterns (fnmatch) over world/question/estimand/estimator, e.g. 'synth12/*' 'arena/top:3/*'",
    )
    parser.add_argument("--batch", type=int, default=BATCH)
    parser.add_argument("--level", type=float, default=LEVEL)
    args = parser.parse_args(argv)

    wanted = [
        world
        for world in WORLDS
        if any(fnmatch.fnmatch(f"{world}/x/x/x", p) or p.split("/")[0] in ("*", world) for p in args.cells)
    ]
    start = time.process_time()
    guides = []
    print(HEADER)
    print("|" + "---|" * (HEADER.count("|") - 1), flush=True)
    for name in wanted:
        world = WORLDS[name]()
        print(f"{name}: {world.pool.n_battles} battles, {world.pool.n_systems} systems", file=sys.stderr)
        for question, estimand, estimator in world.questions:
            key = f"{name}/{question}/{estimand}/{estimator}"
            if not any(fnmatch.fnmatch(key, p) for p in args.cells):
                continue
            results, cpu = {}, {}
            for policy in POLICIES:
                results[policy], cpu[policy] = run_cell(
                    world, question, estimand, estimator, policy, args.streams, args.batch, args.level
                )
            print(summary_row(world, question, estimand, estimator, results, cpu), flush=True)
            guides.append(guide_row(world, question, estimand, estimator, results["next"]))
    print("\n" + GUIDE_HEADER)
    print("|" + "---|" * (GUIDE_HEADER.count("|") - 1))
    print("\n".join(guides))
    print(f"\ntotal {time.process_time() - start:.0f} s CPU", file=sys.stderr)


GUIDE_HEADER = (
    f"| world | question | estimand | estimator | `next` streams open at look {GUIDE_LOOK} and settled later"
    " | guide: median more_votes | median votes it took | median ratio taken / guide (s.e.) | quartiles |"
)

#: Bootstrap resamples behind the Monte-Carlo s.e. of the guide's median ratio.
GUIDE_BOOTSTRAP = 2000


def guide_row(world: World, question, estimand, estimator, runs) -> str:
    """How the votes guide read at look GUIDE_LOOK compares with the votes the stream then took
    to settle (``next`` streams that settled after that look, with a finite guide): the median
    ratio with its Monte-Carlo s.e. (the spread of the median over GUIDE_BOOTSTRAP resamples of
    the streams, seeded from the cell's name) and its quartiles."""
    kept = [r for r in runs if r.resolved and np.isfinite(r.guide) and r.guide > 0]
    cells = [world.name, question, estimand, estimator, str(len(kept))]
    if not kept:
        return "| " + " | ".join(cells + ["-", "-", "-", "-"]) + " |"
    guide = np.array([r.guide for r in kept])
    taken = np.array([r.votes - r.guide_at for r in kept], dtype=float)
    ratio = taken / guide
    q1, q2, q3 = np.percentile(ratio, [25, 50, 75])
    rng = np.random.default_rng(cell_seed(world.name, question, estimand, estimator, "guide"))
    medians = np.median(ratio[rng.integers(0, ratio.size, (GUIDE_BOOTSTRAP, ratio.size))], axis=1)
    cells += [
        f"{np.median(guide):,.0f}",
        f"{np.median(taken):,.0f}",
        f"{q2:.2f} ({medians.std(ddof=1):.2f})",
        f"{q1:.2f}-{q3:.2f}",
    ]
    return "| " + " | ".join(cells) + " |"


if __name__ == "__main__":
    main()
