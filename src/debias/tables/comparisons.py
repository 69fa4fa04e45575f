"""Paired comparisons of every two systems of a task, and their coverage check, as tables.

Both read the joined tables (:mod:`debias.tables.joined`), one per scored system. For a task and
prompt every pair of systems (A before B in the order given; the difference is B - A) is
aligned on the ids both have (:func:`paired_sample`); a pair with fewer than
``min_judged_items`` shared judged items is skipped with a log line. Random numbers of a pair
come from ``setting_seed(seed, task, prompt, system_a, system_b, "compare")``, so its rows do
not depend on which other pairs or sizes run. ``de_vs_independent`` in
``system_comparisons.csv`` is the design's expected value
(:func:`debias.stats.checks.paired_coverage.expected_de_vs_independent`, no random numbers: the
``debias compare`` command prints it in a fraction of a second); ``comparison_coverage.csv``
measures it by resampling at every size. ``p_holm`` and ``p_bh`` adjust ``p_value`` for testing
every pair at once: the family is all pairs of one task x prompt x estimator
(:func:`debias.stats.common.multiplicity.holm`, family-wise;
:func:`debias.stats.common.multiplicity.benjamini_hochberg`,
false discovery rate).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
from collections.abc import Iterator, Mapping, Sequence
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd

from debias.data import Judgments, PairedSample
from debias.io.atomic import write_text
from debias.stats.checks.coverage import resolve_sample_sizes
from debias.stats.checks.paired_coverage import (
    PAIRED_COVERAGE_COLUMNS,
    expected_de_vs_independent,
    paired_coverage_experiment,
)
from debias.stats.common.multiplicity import benjamini_hochberg, holm
from debias.stats.common.resampling import setting_seed
from debias.stats.ratings import paired_difference_estimates
from debias.tables.columns import CI_HIGH, CI_LOW
from debias.tables.joined import cluster_column, present_metrics

__all__ = [
    "COMPARISON_COLUMNS",
    "COMPARISON_COVERAGE_COLUMNS",
    "adjust_p_values",
    "comparison_coverage_table",
    "checked_pairs",
    "comparison_pairs",
    "de_sample_size",
    "paired_sample",
    "system_comparisons_table",
]

KEYS = ["task", "prompt", "system_a", "system_b"]
COMPARISON_COLUMNS = [
    *KEYS,
    "estimator",
    "n_shared",
    "difference",
    CI_LOW,
    CI_HIGH,
    "p_value",
    "p_holm",
    "p_bh",
    "de_vs_independent",
]
#: The family of the adjusted p-values: every pair of one task x prompt x estimator.
FAMILY = ["task", "prompt", "estimator"]
COMPARISON_COVERAGE_COLUMNS = [*KEYS, *PAIRED_COVERAGE_COLUMNS]

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class _PromptRows:
    """One system's rows of one prompt, read once from its joined table for every pair it is in."""

    ids: tuple[str, ...]
    where: dict[str, int]  # the row of each id
    n_judgments: np.ndarray
    judged_output: np.ndarray
    judgments: list  # each row's judgments (a list or an array)
    scores: dict[str, np.ndarray]  # each metric column present
    clusters: np.ndarray | None

    @classmethod
    def of(cls, frame: pd.DataFrame, prompt: str, metrics: Sequence[str]) -> _PromptRows:
        rows = frame[frame["prompt"] == prompt]
        ids = tuple(rows["id"])
        cells = [(json.loads(c) if c else []) if isinstance(c, str) else c for c in rows["judgments"]]
        return cls(
            ids=ids,
            where={i: k for k, i in enumerate(ids)},
            n_judgments=rows["n_judgments"].to_numpy(),
            judged_output=rows["judged_output"].to_numpy(),
            judgments=cells,
            scores={m: rows[m].to_numpy(dtype=float) for m in metrics if m in rows.columns},
            clusters=cluster_column(rows),
        )


def paired_sample(frame_a: pd.DataFrame, frame_b: pd.DataFrame, prompt: str, metrics: Sequence[str]) -> PairedSample:
    """Align two systems' joined tables (:mod:`debias.tables.joined`) on the ids both have.

    Outputs only one system has are ignored; the judged items are those judged for both on
    ``prompt``, in the order of ``frame_a``.
    """
    metrics = present_metrics(metrics, frame_a, frame_b)
    return _paired(_PromptRows.of(frame_a, prompt, metrics), _PromptRows.of(frame_b, prompt, metrics), metrics)


def _paired(a: _PromptRows, b: _PromptRows, metrics: Sequence[str]) -> PairedSample:
    """:func:`paired_sample` of two systems' rows of a prompt read once (:class:`_PromptRows`)."""
    shared = [i for i in a.ids if i in b.where]
    ka = np.array([a.where[i] for i in shared], dtype=np.int64)
    kb = np.array([b.where[i] for i in shared], dtype=np.int64)
    judged = (a.n_judgments[ka] > 0) & (b.n_judgments[kb] > 0)
    ja, jb = ka[judged], kb[judged]
    same = (a.judged_output[ja] != "") & (a.judged_output[ja] == b.judged_output[jb])
    judged_ids = [str(shared[k]) for k in np.flatnonzero(judged)]

    def scores(rows: _PromptRows, index: np.ndarray) -> np.ndarray:
        return np.column_stack([rows.scores[m][index] for m in metrics]) if metrics else np.zeros((index.size, 0))

    return PairedSample(
        clusters=None if a.clusters is None else a.clusters[ja],
        population_clusters=None if a.clusters is None else a.clusters[ka],
        judgments_a=Judgments.from_lists([a.judgments[k] for k in ja], ids=judged_ids),
        judgments_b=Judgments.from_lists([b.judgments[k] for k in jb], ids=judged_ids),
        same_judgment=np.asarray(same, dtype=bool),
        scores_a=scores(a, ja),
        scores_b=scores(b, jb),
        all_a=scores(a, ka),
        all_b=scores(b, kb),
        metrics=tuple(metrics),
    )


def comparison_pairs(
    joined: Sequence[pd.DataFrame], prompts: Mapping[str, Sequence[str]], metrics: Sequence[str], *, min_items: int
) -> Iterator[tuple[str, str, str, str, PairedSample]]:
    """Yield ``(task, prompt, system_a, system_b, pair)`` for every pair of systems of a task
    sharing at least ``min_items`` judged items on the prompt, in input order (each system's
    rows of a prompt read once, :class:`_PromptRows`)."""
    by_task: dict[str, list[pd.DataFrame]] = {}
    for frame in joined:
        by_task.setdefault(str(frame["task"].iloc[0]), []).append(frame)
    for task, frames in by_task.items():
        for prompt in prompts[task]:
            read = [_PromptRows.of(frame, prompt, metrics) for frame in frames]
            for (frame_a, rows_a), (frame_b, rows_b) in combinations(zip(frames, read), 2):
                a, b = str(frame_a["system"].iloc[0]), str(frame_b["system"].iloc[0])
                pair = _paired(rows_a, rows_b, present_metrics(metrics, frame_a, frame_b))
                if pair.n_shared < max(min_items, 3):
                    log.warning(
                        "%s/%s: %s and %s share %d judged items (fewer than %d), no comparison",
                        task,
                        prompt,
                        a,
                        b,
                        pair.n_shared,
                        min_items,
                    )
                    continue
                yield task, prompt, a, b, pair


def de_sample_size(spec: Sequence, n_items: int, target: int) -> int | None:
    """The configured sample size (:func:`debias.stats.checks.coverage.resolve_sample_sizes`) nearest to
    ``target`` (the smaller one on a tie); ``None`` when no size fits the world."""
    sizes = resolve_sample_sizes(spec, n_items)
    return min(sizes, key=lambda n: (abs(n - target), n)) if sizes else None


def _experiment(task, prompt, a, b, pair, sizes, spec, seed):
    rng = np.random.default_rng(setting_seed(seed, task, prompt, a, b, "compare"))
    rows = paired_coverage_experiment(
        pair,
        sample_sizes=sizes,
        n_repeats=spec["repeats"],
        level=spec["level"],
        rng=rng,
        memory_mb=spec.get("memory_mb"),
    )
    return pd.DataFrame(rows, columns=PAIRED_COVERAGE_COLUMNS)


def _fingerprint(value, digest) -> None:
    """Feed ``value`` (dataclasses, arrays, mappings, sequences, scalars) into ``digest``."""
    if dataclasses.is_dataclass(value):
        digest.update(type(value).__name__.encode())
        for field in dataclasses.fields(value):
            digest.update(field.name.encode())
            _fingerprint(getattr(value, field.name), digest)
    elif isinstance(value, np.ndarray):
        array = np.ascontiguousarray(value)
        digest.update(f"{array.dtype.str}{array.shape}".encode())
        digest.update(array.tobytes() if array.dtype != object else repr(array.tolist()).encode())
    elif isinstance(value, Mapping):
        for key in sorted(value, key=str):
            digest.update(repr(key).encode())
            _fingerprint(value[key], digest)
    elif isinstance(value, (list, tuple)):
        digest.update(f"{type(value).__name__}{len(value)}".encode())
        for item in value:
            _fingerprint(item, digest)
    else:
        digest.update(repr(value).encode())


def _code_digest() -> str:
    """The source of the statistics and data modules and of this one, and the numeric libraries'
    versions: what a cached pair's rows depend on besides its inputs."""
    import scipy

    digest = hashlib.sha256(f"numpy {np.__version__} scipy {scipy.__version__}".encode())
    package = Path(__file__).resolve().parents[1]
    for path in sorted([*package.glob("stats/**/*.py"), *package.glob("data/*.py"), Path(__file__).resolve()]):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _cached_experiment(cache_dir, task, prompt, a, b, pair, sizes, spec, seed):
    if cache_dir is None:
        return _experiment(task, prompt, a, b, pair, sizes, spec, seed)
    digest = hashlib.sha256(_code_digest().encode())
    settings = {key: spec.get(key) for key in ("repeats", "level", "memory_mb")}
    _fingerprint((task, prompt, a, b, pair, list(sizes), settings, seed), digest)
    path = Path(cache_dir) / f"{digest.hexdigest()}.json"
    if path.is_file():
        stored = json.loads(path.read_text(encoding="utf-8"))
        return pd.DataFrame(
            {column: pd.Series(values, dtype=stored["dtypes"][column]) for column, values in stored["data"].items()}
        )
    table = _experiment(task, prompt, a, b, pair, sizes, spec, seed)
    stored = {
        "pair": [task, prompt, a, b],
        "dtypes": {column: str(dtype) for column, dtype in table.dtypes.items()},
        "data": {column: [_plain(value) for value in table[column]] for column in table.columns},
    }
    write_text(path, json.dumps(stored, allow_nan=True) + "\n")
    return table


def _plain(value):
    """A table cell as a JSON value that reads back as the same value (floats by repr)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not np.isfinite(value):
        return None if np.isnan(value) else value
    return value


def system_comparisons_table(
    joined: Sequence[pd.DataFrame],
    prompts: Mapping[str, Sequence[str]],
    metrics: Sequence[str],
    spec: Mapping,
    *,
    min_items: int = 20,
) -> pd.DataFrame:
    """Every estimator of every pair's difference (``system_comparisons.csv``).

    ``spec`` is the ``compare`` config section (:func:`debias.config.labels.compare_spec`) with ``level``,
    ``sample_sizes`` and ``de_n``: ``de_vs_independent`` is the expected ratio at the
    configured size nearest ``de_n`` (:func:`de_sample_size`).
    """
    rows = []  # one table at the end: a frame per pair costs more than its estimates at 200 systems
    for task, prompt, a, b, pair in comparison_pairs(joined, prompts, metrics, min_items=min_items):
        n = de_sample_size(spec["sample_sizes"], pair.n_shared, int(spec["de_n"]))
        de = {} if n is None else expected_de_vs_independent(pair, n)
        for row in paired_difference_estimates(pair, level=spec["level"]):
            keys = dict(zip(KEYS, (task, prompt, a, b)))
            rows.append({**keys, **row, "de_vs_independent": de.get(row["estimator"], np.nan)})
    if not rows:
        return pd.DataFrame(columns=COMPARISON_COLUMNS)
    return adjust_p_values(pd.DataFrame(rows))[COMPARISON_COLUMNS]


def adjust_p_values(table: pd.DataFrame) -> pd.DataFrame:
    """Add ``p_holm`` and ``p_bh``: ``p_value`` adjusted within each family of :data:`FAMILY`
    (every pair of one task x prompt x estimator)."""
    table = table.copy()
    table["p_holm"] = np.nan
    table["p_bh"] = np.nan
    for _, rows in table.groupby(FAMILY, sort=False).groups.items():
        p = table.loc[rows, "p_value"].to_numpy(dtype=float)
        table.loc[rows, "p_holm"] = holm(p)
        table.loc[rows, "p_bh"] = benjamini_hochberg(p)
    return table


def checked_pairs(joined: Sequence[pd.DataFrame], prompts: Mapping[str, Sequence[str]], named) -> set[tuple]:
    """The ``(task, prompt, system_a, system_b)`` whose comparison the coverage check resamples:
    systems adjacent in each prompt's ranking by mean judgment (the ``mean`` estimate), plus the
    pairs ``named`` in either order; ``named == "all"``: every pair. Pairs keep the input order
    (A before B), as :func:`comparison_pairs` yields them."""
    selected = set()
    by_task: dict[str, list[pd.DataFrame]] = {}
    for frame in joined:
        by_task.setdefault(str(frame["task"].iloc[0]), []).append(frame)
    for task, frames in by_task.items():
        order = [str(frame["system"].iloc[0]) for frame in frames]
        for prompt in prompts[task]:
            if named == "all":
                selected |= {(task, prompt, a, b) for a, b in combinations(order, 2)}
                continue
            means = {}
            for name, frame in zip(order, frames):
                judged = frame[(frame["prompt"] == prompt) & (frame["n_judgments"] > 0)]
                if len(judged):
                    means[name] = float(judged["mean_judgment"].mean())
            ranked = sorted(means, key=lambda name: (means[name], order.index(name)))
            pairs = {frozenset(p) for p in zip(ranked, ranked[1:])} | {frozenset(map(str, p)) for p in named}
            selected |= {(task, prompt, a, b) for a, b in combinations(order, 2) if frozenset((a, b)) in pairs}
    return selected


def comparison_coverage_table(
    joined: Sequence[pd.DataFrame],
    prompts: Mapping[str, Sequence[str]],
    metrics: Sequence[str],
    spec: Mapping,
    *,
    seed: int,
    min_items: int = 20,
    cache_dir: str | os.PathLike | None = None,
) -> pd.DataFrame:
    """:func:`debias.stats.checks.paired_coverage.paired_coverage_experiment` at every configured size
    on the pairs :func:`checked_pairs` selects (``comparison_coverage.csv``).

    With ``cache_dir``, each pair's rows are kept there under a digest of everything they
    depend on (the pair's data, the settings, the seed and the names it is derived from, the
    source of the statistics code and the numpy and scipy versions): a pair whose rows are
    there is not resampled again, so that adding a system to a task resamples its new pairs
    only. The rows are the same either way.
    """
    frames = []
    selected = checked_pairs(joined, prompts, spec.get("pairs", []))
    for task, prompt, a, b, pair in comparison_pairs(joined, prompts, metrics, min_items=min_items):
        if (task, prompt, a, b) not in selected:
            continue
        if not resolve_sample_sizes(spec["sample_sizes"], pair.n_shared):
            log.warning("%s/%s: %s vs %s share %d items, fewer than every compare.sample_sizes: no coverage rows",
                        task, prompt, a, b, pair.n_shared)  # fmt: skip
            continue
        table = _cached_experiment(cache_dir, task, prompt, a, b, pair, spec["sample_sizes"], spec, seed)
        for position, (key, value) in enumerate(zip(KEYS, (task, prompt, a, b))):
            table.insert(position, key, value)
        frames.append(table)
        log.info("%s/%s: %s vs %s, %d rows", task, prompt, a, b, len(table))
    if not frames:
        return pd.DataFrame(columns=COMPARISON_COVERAGE_COLUMNS)
    return pd.concat(frames, ignore_index=True)[COMPARISON_COVERAGE_COLUMNS]
