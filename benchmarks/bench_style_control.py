"""Style control beside ``arena-rank``: parity on the Arena battles and speed at 3 M battles x 200 models.

``arena-rank`` pins its own numpy and jax, so it lives in a virtual environment of its own; this
script runs in either environment and does the part each can do:

    # in an environment with arena-rank (python -m venv /tmp/arena && /tmp/arena/bin/pip install arena-rank):
    /tmp/arena/bin/python benchmarks/bench_style_control.py reference   # tests/data/arena_rank_reference.json
    # in the project's environment (runs both, alternating, each in a fresh process):
    python benchmarks/bench_style_control.py compare --battles 3000000 --models 200 --arena-python /tmp/arena/bin/python
    python benchmarks/bench_style_control.py coverage --repeats 1000 --battles 2000

``reference``: people's verdicts of the vendored Arena battles (``data/arena/human.jsonl.gz``, ties
and "tie (bothbad)" half a win), with two covariates drawn once per battle from a seeded
generator (the battles carry no response texts): ``length`` (log-normal characters per side) and
``headers`` (Poisson counts per side); each model's feature is the side difference A - B
divided by its root mean square over the battles, the project's normalisation, given to
``arena-rank`` as its features with its own normalisation off, no reweighting and no L2 penalty
(``reg=0``): the same model. Writes arena-rank's plain ``BradleyTerry`` and
``ContextualBradleyTerry`` ratings (converted to natural-log odds, centred) and coefficients, with
its default L-BFGS stopping rule and with a tightened one (:data:`TIGHT`).

``compare`` (``time-arena`` and ``time-debias`` in turn, each a fresh process): the same
Arena-like table (:func:`large_frame`: people's verdict on every battle, the two covariates),
timed from the DataFrame in wall and CPU seconds: arena-rank's dataset, contextual fit and
sandwich intervals; the project's reading (``debias.read_pairs`` with the covariates) and
style-controlled strengths by people with their intervals and coefficients
(``preference_estimates``, its public path); each after an untimed call on 5,000 battles,
``--repeats`` calls per process. ``coverage``: the adjusted strengths' intervals against known truth.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "tests" / "data" / "arena_rank_reference.json"
ELO = 400.0 / np.log(10.0)


def arena_battles() -> pd.DataFrame:
    with gzip.open(ROOT / "data" / "arena" / "human.jsonl.gz", "rt") as handle:
        return pd.DataFrame([json.loads(line) for line in handle])


def synthetic_sides(n: int, seed: int = 2024) -> dict[str, np.ndarray]:
    """The two covariates' sides (n, 2), drawn once per battle."""
    rng = np.random.default_rng(seed)
    return {
        "length": rng.lognormal(7.0, 0.6, (n, 2)).round(),
        "headers": rng.poisson(1.5, (n, 2)).astype(float),
    }


def features_of(sides: dict[str, np.ndarray]) -> np.ndarray:
    """The side differences divided by their root mean square: what the model uses."""
    columns = []
    for value in sides.values():
        difference = value[:, 0] - value[:, 1]
        columns.append(difference / np.sqrt(np.mean(difference**2)))
    return np.column_stack(columns)


def outcome(winner) -> np.ndarray:
    return np.select([winner == "model_a", winner == "model_b"], [1.0, 0.0], 0.5)


#: arena-rank's L-BFGS stopping rule tightened (its defaults: ftol 1e-9, gtol 1e-9, 1,000 steps)
TIGHT = {"ftol": 1e-15, "gtol": 1e-13, "max_iter": 20000}


def arena_rank_fit(frame: pd.DataFrame, features: np.ndarray | None, *, intervals: bool = False, solver=None):
    """arena-rank's ratings (natural-log odds, centred, in the order of ``sorted`` model names)
    and coefficients."""
    import jax.numpy as jnp
    from arena_rank.models.bradley_terry import BradleyTerry
    from arena_rank.models.contextual_bradley_terry import ContextualBradleyTerry
    from arena_rank.utils.data_utils import ContextualPairDataset, PairDataset

    if features is None:
        data = PairDataset.from_pandas(frame, competitor_cols=["model_a", "model_b"], outcome_col="winner")
        model = BradleyTerry(n_competitors=len(data.competitors), **(solver or {}))
        result = model.compute_ratings_and_cis(data) if intervals else None
        model.fit(data) if result is None else None
        coefficients = np.zeros(0)
    else:
        frame = frame.assign(**{f"f{k}": features[:, k] for k in range(features.shape[1])})
        data = ContextualPairDataset.from_pandas(
            frame,
            [f"f{k}" for k in range(features.shape[1])],
            competitor_cols=["model_a", "model_b"],
            outcome_col="winner",
            reweighted=False,
            normalize_features=False,
        )
        model = ContextualBradleyTerry(
            n_competitors=len(data.competitors), n_features=features.shape[1], reg=0.0, **(solver or {})
        )
        result = model.compute_ratings_and_cis(data) if intervals else None
        model.fit(data) if result is None else None
        coefficients = np.asarray(model.params["coeffs"], dtype=float)
    ratings = np.asarray(model.params["ratings"], dtype=float)
    del jnp
    return list(data.competitors), ratings - ratings.mean(), coefficients


def reference(_args) -> None:
    from importlib.metadata import version

    import arena_rank  # noqa: F401  (fails here outside its environment)

    frame = arena_battles()[["model_a", "model_b", "winner"]]
    features = features_of(synthetic_sides(len(frame)))
    names, plain, _ = arena_rank_fit(frame, None)
    _, styled, coefficients = arena_rank_fit(frame, features)
    _, plain_tight, _ = arena_rank_fit(frame, None, solver=TIGHT)
    _, styled_tight, coefficients_tight = arena_rank_fit(frame, features, solver=TIGHT)
    out = {
        "arena_rank_version": version("arena-rank"),
        "dtype": "float64 (arena-rank's default; jax_enable_x64 on)",
        "seed": 2024,
        "covariates": ["length", "headers"],
        "systems": names,
        "plain": plain.tolist(),
        "style": styled.tolist(),
        "coefficients": coefficients.tolist(),
        "tight_solver": TIGHT,
        "plain_tight": plain_tight.tolist(),
        "style_tight": styled_tight.tolist(),
        "coefficients_tight": coefficients_tight.tolist(),
    }
    REFERENCE.parent.mkdir(parents=True, exist_ok=True)
    REFERENCE.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {REFERENCE.relative_to(ROOT)}")


def large_frame(n_battles: int, n_models: int) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
    """Arena-like battles: models drawn by log-normal popularity (never the same twice in a
    battle), verdicts from Bradley-Terry strengths and the covariates, 15% ties."""
    rng = np.random.default_rng(0)
    popularity = rng.lognormal(0.0, 1.0, n_models)
    popularity /= popularity.sum()
    strength = rng.normal(0.0, 0.7, n_models)
    a = rng.choice(n_models, n_battles, p=popularity)
    b = (a + 1 + rng.choice(n_models - 1, n_battles)) % n_models
    sides = {
        "length": rng.lognormal(7.0, 0.6, (n_battles, 2)).round(),
        "headers": rng.poisson(1.5, (n_battles, 2)).astype(float),
    }
    p = 1.0 / (1.0 + np.exp(-(strength[a] - strength[b] + features_of(sides) @ np.array([0.3, 0.1]))))
    u = rng.random(n_battles)
    winner = np.where(u < 0.85 * p, "model_a", np.where(u < 0.85 * p + 0.15, "tie", "model_b"))
    names = np.array([f"model-{k:03d}" for k in range(n_models)], dtype=object)
    return pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": winner}), sides


def _timed(function, repeats: int) -> dict:
    """Wall and CPU seconds (this process, every thread) of each of ``repeats`` calls."""
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        function()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return {"wall_seconds": wall, "cpu_seconds": cpu}


def time_arena(args) -> None:
    """arena-rank from the frame: its dataset (factorising, features), its contextual fit and its
    sandwich intervals; the first call includes JAX's compilation for the table's shape."""
    frame, sides = large_frame(args.battles, args.models)
    features = features_of(sides)
    arena_rank_fit(frame.iloc[:5000], features[:5000], intervals=True)  # imports, a first compilation
    out = _timed(lambda: arena_rank_fit(frame, features, intervals=True), args.repeats)
    print(json.dumps({"tool": "arena-rank", "battles": len(frame), "models": args.models, **out}))


def time_debias(args) -> None:
    """The project from the frame: reading the battles with their covariates
    (``debias.read_pairs``) and the style-controlled strengths by people with their intervals
    (``adjusted_estimates``)."""
    import debias
    from debias.stats.preferences.estimands import preference_estimates

    frame, sides = large_frame(args.battles, args.models)
    for name, value in sides.items():
        frame[f"{name}_a"], frame[f"{name}_b"] = value[:, 0], value[:, 1]
    frame["num"] = np.arange(len(frame))
    spec = {name: (f"{name}_a", f"{name}_b") for name in sides}

    def run(rows):
        pairs = debias.read_pairs(
            rows, item="num", system_a="model_a", system_b="model_b", verdict="winner", covariates=spec
        )
        return preference_estimates(
            pairs, level=0.95, estimands=("strength",), estimators=["human"], covariates=list(sides)
        )

    run(frame.iloc[:5000])
    out = _timed(lambda: run(frame), args.repeats)
    print(json.dumps({"tool": "debias", "battles": len(frame), "models": args.models, **out}))


def compare(args) -> None:
    """Both, side by side in one run: each in a fresh process, alternating, arena-rank in the
    environment of ``--arena-python``."""
    import subprocess

    here = str(Path(__file__).resolve())
    sizes = ["--battles", str(args.battles), "--models", str(args.models), "--repeats", str(args.repeats)]
    rows = []
    for _ in range(args.rounds):
        for python, what in ((args.arena_python, "time-arena"), (sys.executable, "time-debias")):
            done = subprocess.run([python, here, what, *sizes], capture_output=True, text=True, check=True)
            rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
            print(json.dumps(rows[-1]), flush=True)


def coverage(args) -> None:
    """Coverage of the style-controlled strengths' intervals (level 0.9) in worlds with known
    strengths and covariate effects: 8 systems, battles between random pairs, Bradley-Terry
    verdicts without ties (or Davidson's with nu = 0.5); people's verdicts on every battle, or with
    ``--estimator ppi++:j`` on a quarter of them and a judge right 75% of the time on all. The
    coverage of a world is the share of its systems covered (one value per world, since the
    systems of one world are dependent), its Monte-Carlo standard error over the worlds."""
    from debias.data import JudgedPairs
    from debias.stats.preferences.battles import Battles
    from debias.stats.preferences.style import adjusted_estimates

    rng = np.random.default_rng(7)
    n_systems, n_battles, level = 8, args.battles, 0.9
    names = [f"m{k}" for k in range(n_systems)]
    truth = np.linspace(-1.0, 1.0, n_systems)
    truth -= truth.mean()
    beta = np.array([0.4, -0.2])
    hits, coefficient_hits = [], []
    for _ in range(args.repeats):
        a = rng.integers(0, n_systems, n_battles)
        b = (a + rng.integers(1, n_systems, n_battles)) % n_systems
        sides = {"length": rng.lognormal(7.0, 0.6, (n_battles, 2)), "headers": rng.poisson(1.5, (n_battles, 2)) * 1.0}
        z = features_of(sides)
        eta = truth[a] - truth[b] + z @ beta
        if args.ties == "davidson":  # Davidson's model with nu = 0.5
            win, loss, tie = np.exp(eta / 2), np.exp(-eta / 2), 0.5
            u = rng.random(n_battles) * (win + loss + tie)
            verdict = np.where(u < win, 1.0, np.where(u < win + tie, 0.5, 0.0))
        else:
            verdict = (rng.random(n_battles) < 1.0 / (1.0 + np.exp(-eta))).astype(float)
        judges = None
        if args.estimator != "human":  # a judge right 75% of the time, people on a quarter of the battles
            judge = np.where(rng.random(n_battles) < 0.75, verdict, rng.choice([0.0, 0.5, 1.0], n_battles))
            judges = {"j": judge}
            verdict = np.where(rng.random(n_battles) < 0.25, verdict, np.nan)
        pairs = JudgedPairs.from_arrays(
            [names[k] for k in a], [names[k] for k in b], verdict, judges, systems=names, covariates=sides
        )
        strength, *coefficients = adjusted_estimates(
            Battles.of(pairs, args.ties), args.estimator, level=level, ties=args.ties, covariates=list(sides)
        )
        hits.append((strength.ci_low <= truth) & (truth <= strength.ci_high))
        values = list(beta) + ([0.5] if args.ties == "davidson" else [])  # the tie parameter last
        coefficient_hits.append([c.ci_low[0] <= t <= c.ci_high[0] for c, t in zip(coefficients, values)])
    hits, coefficient_hits = np.asarray(hits, float), np.asarray(coefficient_hits, float)
    per_world = hits.mean(axis=1)  # the systems of one world are dependent: one value per world
    print(
        json.dumps(
            {
                "level": level,
                "estimator": args.estimator,
                "ties": args.ties,
                "systems": n_systems,
                "battles": n_battles,
                "repeats": args.repeats,
                "strength_coverage": float(per_world.mean()),
                "strength_mc_se": float(per_world.std(ddof=1) / np.sqrt(per_world.size)),
                "coefficient_coverage": coefficient_hits.mean(axis=0).tolist(),
                "coefficient_mc_se": (
                    np.sqrt(coefficient_hits.mean(axis=0) * (1 - coefficient_hits.mean(axis=0)) / args.repeats)
                ).tolist(),
            }
        )
    )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["reference", "time-arena", "time-debias", "compare", "coverage"])
    parser.add_argument("--battles", type=int, default=3_000_000)
    parser.add_argument("--models", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=2, help="timed calls per process (coverage: worlds)")
    parser.add_argument("--estimator", default="human", help="coverage: human or ppi++:j")
    parser.add_argument("--ties", default="half", choices=["half", "davidson"], help="coverage: the outcome model")
    parser.add_argument("--rounds", type=int, default=2, help="compare: processes of each tool, alternating")
    parser.add_argument(
        "--arena-python", default="/tmp/arena-venv/bin/python", help="compare: a python with arena-rank"
    )
    args = parser.parse_args(argv)
    commands = {"reference": reference, "time-arena": time_arena, "time-debias": time_debias, "compare": compare}
    commands["coverage"] = coverage
    commands[args.what](args)


if __name__ == "__main__":
    main()
