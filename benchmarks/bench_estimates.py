"""Coverage, width and data efficiency of the system-score intervals on the released data, and
the timing of the coverage stage on one core.

Run (after the workflow has written results/joined/):
    .venv/bin/python benchmarks/bench_estimates.py [--level 0.8] [--repeats 2000] [--no-ppi]

Prints, per estimator and sample size, the coverage averaged over the system x prompt cells and
the row furthest from the level (Monte-Carlo s.e. sqrt(level (1 - level) / repeats) per row),
the cells where cv:combined's DE falls below the best single metric's with the Monte-Carlo error
of that gap (delta method over the repeats) and the upward bias of a maximum over noisy DEs
(bootstrap over the repeats), and a synthetic task with a provided score of correlation 0.8 with
the true quality against Eq. (7) at n = 50, 200 and 500 of N = 5,000.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core, as stated in the printout

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import yaml  # noqa: E402

from debias.data import Judgments  # noqa: E402
from debias.stats.checks.coverage import coverage_intervals, resolve_sample_sizes  # noqa: E402
from debias.stats.common.resampling import setting_seed  # noqa: E402
from debias.stats.ratings.theory import theory_data_efficiency, theory_variance  # noqa: E402
from debias.stats.ratings.variance import resampling_components  # noqa: E402
from debias.tables.estimates import coverage_table  # noqa: E402
from debias.tables.joined import judged_rows, read_joined  # noqa: E402

REPO = Path(__file__).resolve().parent.parent


def released_coverage(config: dict, level: float, repeats: int, ppi: bool):
    results = REPO / config["results_dir"]
    prompts = {task: list(spec["prompts"]) for task, spec in config["tasks"].items()}
    joined = [read_joined(p) for task in config["tasks"] for p in sorted((results / "joined" / task).glob("*.csv"))]
    joined = [j for j in joined if set(config["metrics"]) <= set(j.columns)]
    sizes = (config.get("estimates") or {}).get("sample_sizes", [20, 50, 100, "0.5N", "0.8N"])
    start, cpu = time.perf_counter(), time.process_time()
    table = coverage_table(
        joined, prompts, list(config["metrics"]), sample_sizes=sizes, n_repeats=repeats, level=level, seed=0, ppi=ppi
    )
    print(
        f"coverage stage: {len(joined)} systems, {time.perf_counter() - start:.1f} s wall, "
        f"{time.process_time() - cpu:.1f} s CPU (OMP_NUM_THREADS=1; load average {os.getloadavg()[0]:.1f})"
    )
    return table, joined, prompts, sizes


def de_influence(base, other):
    """Influence values over the repeats of DE = mean(base) / mean(other) (squared widths): their
    standard deviation over sqrt(R) is the delta method's Monte-Carlo standard error."""
    return (base - base.mean()) / other.mean() - base.mean() * (other - other.mean()) / other.mean() ** 2


def de_gap_noise(joined, prompts, metrics, sizes, level: float, repeats: int, n_boot: int = 200) -> None:
    """cv:combined's DE minus the best single metric's, per cell and n >= 50, with Monte-Carlo error.

    The same samples as the coverage table (same seeds). For estimator e, DE_e = mean_r(W_mean^2)
    / mean_r(W_e^2) over the repeats r; the gap's standard error is the delta method's, the
    standard deviation over repeats of its influence values over sqrt(R), for the metric that is
    best in the table. The maximum of eight noisy DEs is biased upwards; its bias is estimated by
    resampling the repeats (mean over resamples of the resampled maximum minus the maximum).
    """
    rng_boot = np.random.default_rng(1)
    rows = []
    for frame in joined:
        task, system = str(frame["task"].iloc[0]), str(frame["system"].iloc[0])
        for prompt in prompts[task]:
            judged = judged_rows(frame, prompt)
            rng = np.random.default_rng(setting_seed(0, task, system, prompt, "coverage"))
            scores = {m: judged[m].to_numpy(dtype=float) for m in metrics}
            widths = {}
            intervals = coverage_intervals(
                Judgments.from_joined(judged),
                scores,
                sample_sizes=sizes,
                n_repeats=repeats,
                level=level,
                rng=rng,
                ppi=False,
            )
            for name, n, (low, high) in intervals:
                widths.setdefault(n, {})[name] = (high - low) ** 2
            for n, w in widths.items():
                if n < 50:
                    continue
                base = w["mean"]
                singles = np.array([w[f"cv:{m}"] for m in metrics])
                de = base.mean() / singles.mean(axis=1)
                best = int(np.argmax(de))
                combined = w["cv:combined"]
                gap = base.mean() / combined.mean() - de[best]
                influence = de_influence(base, combined) - de_influence(base, singles[best])
                se = float(np.std(influence) / np.sqrt(repeats))
                picks = rng_boot.integers(0, repeats, size=(n_boot, repeats))
                boot_max = (base[picks].mean(axis=1)[:, None] / singles[:, picks].mean(axis=2).T).max(axis=1)
                rows.append(
                    {
                        "cell": f"{task}/{system}/{prompt}",
                        "n": n,
                        "half": n >= len(judged) // 2,
                        "gap": gap,
                        "se": se,
                        "max_bias": float(boot_max.mean() - de.max()),
                    }
                )
    table = pd.DataFrame(rows)
    for label, part in (
        ("n = 50", table[table["n"] == 50]),
        ("n = 100", table[table["n"] == 100]),
        ("n >= 0.5N", table[table["half"]]),
    ):
        worst = part.loc[part["gap"].idxmin()]
        print(
            f"  DE gap {label:9s}: min {part['gap'].min():+.4f} "
            f"({worst['cell']}, n={worst['n']}, s.e. {worst['se']:.4f}); "
            f"below 0: {(part['gap'] < 0).sum()}/{len(part)}, below -0.02: {(part['gap'] < -0.02).sum()}, "
            f"below -2 s.e.: {(part['gap'] < -2 * part['se']).sum()}; median s.e. {part['se'].median():.4f}, "
            f"median bias of the max {part['max_bias'].median():+.4f}"
        )


def size_labels(table: pd.DataFrame, sizes) -> pd.Series:
    """Each row's sample size as configured ("20", "0.5N", ...), whatever the cell's N."""
    labels = {}
    for n_items in table["n_items"].unique():
        for entry in sizes:
            for n in resolve_sample_sizes([entry], int(n_items)):
                labels[(n_items, n)] = str(entry)
    return pd.Series([labels[key] for key in zip(table["n_items"], table["n"])], index=table.index)


def summarise(table: pd.DataFrame, level: float, repeats: int, sizes) -> None:
    print(f"level {level}, {repeats} repeats, per-row MC s.e. {np.sqrt(level * (1 - level) / repeats):.4f}")
    table = table.assign(size=size_labels(table, sizes))
    family = table["estimator"].str.split(":").str[0]
    for size in [str(entry) for entry in sizes]:
        rows = table[table["size"] == size]
        for name, part in rows.groupby(family[rows.index]):
            averages = part.groupby("estimator")["coverage"].mean()
            worst = part.iloc[(part["coverage"] - level).abs().argmax()]
            cells = part.groupby("estimator").size().max()
            print(
                f"  n={size:5s} {name:5s} averages over {cells} cells {averages.min():.3f}-{averages.max():.3f} "
                f"(s.e. {np.sqrt(level * (1 - level) / repeats / cells):.4f}); rows {part['coverage'].min():.3f}-"
                f"{part['coverage'].max():.3f}, furthest {worst['coverage']:.3f} "
                f"({worst['task']}/{worst['system']}/{worst['prompt']}, {worst['estimator']})"
            )
    for size in [str(entry) for entry in sizes]:
        rows = table[table["size"] == size]
        for estimator, part in rows.groupby("estimator"):
            print(
                f"    n={size:5s} {estimator:16s} average {part['coverage'].mean():.3f} "
                f"min {part['coverage'].min():.3f}"
            )
    cv = table[table["estimator"].str.startswith("cv:")]
    single = cv[cv["estimator"] != "cv:combined"].groupby(["task", "prompt", "system", "size"])["de"].max()
    combined = cv[cv["estimator"] == "cv:combined"].set_index(["task", "prompt", "system", "size"])["de"]
    gap = (combined - single).dropna()
    for size in [str(entry) for entry in sizes]:
        part = gap.xs(size, level="size")
        print(
            f"  n={size:5s} cv:combined DE - best single DE: min {part.min():+.4f}, mean {part.mean():+.4f}; "
            f"cells below 0: {(part < 0).sum()}, below -0.02: {(part < -0.02).sum()}"
        )


def synthetic_provided_score(rho: float, repeats: int, level: float) -> None:
    """Quality q ~ N(0, 1) per item, judgments q + noise (variance gamma), a provided score with
    correlation rho with q; DE of cv:score at n = 50, 200 and 500 against Eq. (7) and against
    the same theory with the finite-population correction (:func:`theory_variance` with N).
    N = 5,000 keeps that correction near 1 at n = 50, as Eq. (7) assumes; at n = 500 it takes
    about 2% off. The rest of the shortfall, the price of estimating alpha, shrinks as 1/n."""
    rng = np.random.default_rng(20180715)
    n_items, gamma, sizes = 5000, 0.5, [50, 200, 500]
    quality = rng.standard_normal(n_items)
    score = rho * quality + np.sqrt(1 - rho**2) * rng.standard_normal(n_items)
    judgments = quality[:, None] + np.sqrt(gamma) * rng.standard_normal((n_items, 3))
    rng = np.random.default_rng(setting_seed(0, "synthetic", "s", "quality", "coverage"))  # as coverage_table
    widths = {}
    for name, n, (low, high) in coverage_intervals(
        judgments, {"score": score}, sample_sizes=sizes, n_repeats=repeats, level=level, rng=rng, ppi=False
    ):
        widths[(name, n)] = (high - low) ** 2
    # The same theory in the world the experiment samples: item means of 3 judgments, one drawn.
    noise, _ = resampling_components(judgments)
    means = judgments.mean(axis=1)
    world = [float(means.var()), noise, float(np.corrcoef(means, score)[0, 1])]
    eq7 = theory_data_efficiency(rho, gamma)
    for n in sizes:
        base, cv = widths[("mean", n)], widths[("cv:score", n)]
        de = base.mean() / cv.mean()
        se = float(np.std(de_influence(base, cv)) / np.sqrt(repeats))
        finite = float(
            theory_variance(world[0], world[1], 0.0, n, n_population=n_items)
            / theory_variance(*world, n, n_population=n_items)
        )
        print(
            f"synthetic rho={rho}, gamma={gamma}, N={n_items}, n={n}: DE {de:.3f} (MC s.e. {se:.3f}) vs Eq. (7) "
            f"{eq7:.3f} ({de / eq7 - 1:+.1%}); with the finite-population correction {finite:.3f} "
            f"({de / finite - 1:+.1%})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(REPO / "config/config.yaml"))
    parser.add_argument("--level", type=float, default=0.8)
    parser.add_argument("--repeats", type=int, default=2000)
    parser.add_argument("--no-ppi", action="store_true")
    parser.add_argument("--no-gap", action="store_true", help="skip the DE gap's Monte-Carlo error (a second pass)")
    parser.add_argument("--synthetic-only", action="store_true", help="only the synthetic check against Eq. (7)")
    args = parser.parse_args()
    config = yaml.safe_load(Path(args.config).read_text())
    synthetic_provided_score(0.8, args.repeats, args.level)
    if args.synthetic_only:
        return
    table, joined, prompts, sizes = released_coverage(config, args.level, args.repeats, not args.no_ppi)
    summarise(table, args.level, args.repeats, sizes)
    if not args.no_gap:
        de_gap_noise(joined, prompts, list(config["metrics"]), sizes, args.level, args.repeats)


if __name__ == "__main__":
    main()
