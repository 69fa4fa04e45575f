"""What each workflow job needs: memory (MB) and run time (minutes) from the size of its input.

Snakemake's ``resources`` (``mem_mb``, ``runtime``) are what a cluster scheduler reserves and
what ``--resources mem_mb=...`` limits locally, so they follow the data a job gets rather
than a fixed guess. The constants are measured on the project's 2-core machine
(``benchmarks/bench_bootstrap.py``, ``benchmarks/bench_metrics.py``,
``benchmarks/bench_scale.py``) with a safety factor of about 1.5 on top; the run times are
generous (a scheduler kills a job that overruns, while a slack estimate only costs queue
priority).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import cache

from debias.io.canonical import count_outputs
from debias.stats.checks.bootstrap_grid import DEFAULT_CHUNK_ELEMENTS, DEFAULT_DENSE, DEFAULT_POINTS

__all__ = [
    "PYTHON_MB",
    "preferences_mem_mb",
    "bootstrap_mem_mb",
    "bootstrap_runtime",
    "coverage_mem_mb",
    "coverage_runtime",
    "metrics_mem_mb",
    "metrics_runtime",
    "system_outputs",
    "table_mem_mb",
]

#: A job's Python with numpy, pandas and the project imported (measured ~150 MB), with slack.
PYTHON_MB = 300
#: NLTK's WordNet loaded for METEOR (measured ~150 MB).
WORDNET_MB = 250
#: The METEOR 1.5 JVM (measured 1.2-1.4 GB) and the ROUGE-1.5.5 Perl child (0.2 GB).
CHILD_MB = {"meteor15": 2000, "rouge155": 300}
#: Seconds per output on one core, by implementation family (bench_metrics.py, x 1.5).
SECONDS_PER_OUTPUT = {"modern": 0.008, "rouge155": 0.012, "meteor15": 0.012, "rouge021": 0.006, "vecsim": 0.05}
#: One-off start-up of a family in a job, seconds (JVM, Perl, WordNet load).
STARTUP_SECONDS = {"modern": 5, "rouge155": 5, "meteor15": 20, "rouge021": 1, "vecsim": 30}


@cache
def system_outputs(path) -> int:
    """Outputs (non-blank lines) of a system file; read once per workflow start."""
    return count_outputs(path)


def _families(implementations: Iterable[str]) -> set[str]:
    from debias.metrics import IMPLEMENTATIONS  # only the registry; no metric package is imported

    return {IMPLEMENTATIONS[name].family for name in implementations}


def _minutes(seconds: float) -> int:
    return max(1, math.ceil(seconds / 60))


def metrics_mem_mb(n_outputs: int, implementations: Iterable[str]) -> int:
    """Memory of one metrics job scoring ``n_outputs`` outputs (0: joining blocks' tables)."""
    if n_outputs == 0:
        return PYTHON_MB
    families = _families(implementations)
    children = max((CHILD_MB.get(f, 0) for f in families), default=0)
    # Texts, tokens and caches: about 20 kB per output for CNN/DM-length summaries.
    return PYTHON_MB + (WORDNET_MB if "modern" in families else 0) + children + math.ceil(0.02 * n_outputs)


def metrics_runtime(n_outputs: int, implementations: Iterable[str]) -> int:
    """Minutes for one metrics job; the families run one after another in the job."""
    if n_outputs == 0:
        return 1
    families = _families(implementations)
    seconds = sum(STARTUP_SECONDS.get(f, 5) + SECONDS_PER_OUTPUT.get(f, 0.05) * n_outputs for f in families)
    return _minutes(10 + seconds)


def _grid_size(n_items: int, dense: int, points: int) -> int:
    return n_items if n_items <= dense else dense + points + 3


def bootstrap_mem_mb(
    n_items: int, n_metrics: int, replicates: int, dense: int = DEFAULT_DENSE, points: int = DEFAULT_POINTS
) -> int:
    """Memory of one ``curves`` job: one prompt at a time, ``n_items`` judged items at most.

    The estimates kept for the quantiles, (2 + 2M) x B x G floats and a copy while sorting,
    plus about ten chunk x N working arrays (:data:`DEFAULT_CHUNK_ELEMENTS` draws a chunk).
    """
    grid = _grid_size(n_items, dense, points)
    kept = (2 + 2 * n_metrics) * replicates * grid * 8 * 2
    working = 10 * min(DEFAULT_CHUNK_ELEMENTS, replicates * n_items) * 8
    return PYTHON_MB + math.ceil((kept + working) / 2**20)


def bootstrap_runtime(n_items: int, n_metrics: int, replicates: int, n_prompts: int) -> int:
    """Minutes for one ``curves`` job: about 15 ns per draw and curve (measured ~7 ns), per prompt."""
    seconds = n_prompts * (1 + 15e-9 * replicates * n_items * (2 + 2 * n_metrics))
    return _minutes(10 + seconds)


def coverage_mem_mb(n_items: int, n_metrics: int, repeats: int, memory_mb: float = 1000) -> int:
    """Memory of one ``coverage_system`` job: the R x N orders, draws and gathered metrics
    (about (3 + 2M) x 8 bytes per repeat and item), processed in chunks of ``memory_mb``."""
    floats = repeats * n_items * (3 + 2 * n_metrics)
    return PYTHON_MB + math.ceil(min(floats * 8 / 2**20, 1.5 * memory_mb))


def paired_coverage_mem_mb(n_shared: int, n_metrics: int, repeats: int, memory_mb: float = 1000) -> int:
    """Memory of one ``comparison_coverage_task`` job: each pair's R x N draws of both systems
    and of the independent samples, their values and the metric differences at the largest size
    (160 bytes per repeat and shared item with five metrics; the combined control variate's
    leave-one-out terms are computed in cache-sized blocks, :data:`debias.stats.ratings.combined.BLOCK_ELEMENTS`,
    and add no term in R x N), processed in chunks of ``memory_mb``."""
    floats = repeats * n_shared * (15 + n_metrics)
    return PYTHON_MB + math.ceil(min(floats * 8 / 2**20, 1.5 * memory_mb))


def coverage_runtime(n_items: int, n_metrics: int, repeats: int, n_prompts: int, n_sizes: int, ppi: bool) -> int:
    """Minutes for one ``coverage_system`` job (measured ~2.3 s per prompt at N = 500, R = 2000,
    five sizes, without PPI++; PPI++ is one library call per repeat, size and metric)."""
    seconds = n_prompts * repeats * n_items * (n_metrics + 2) * 4e-7
    if ppi:
        seconds += n_prompts * repeats * n_sizes * n_metrics * 0.01
    return _minutes(10 + seconds)


def preferences_mem_mb(battles: int) -> int:
    """Memory of a preference task's job: ~0.4 kB per battle with three judges (the table as read
    and the grouped sums; 3,000,000 battles peaked at 1.22 GB, benchmarks/RESULTS.md) and 200 MB
    for the figure."""
    return PYTHON_MB + 200 + math.ceil(battles * 4e-4)


def table_mem_mb(total_rows: int) -> int:
    """Memory of a job that reads every joined table: ~2 kB per joined row (pandas frames)."""
    return PYTHON_MB + math.ceil(total_rows * 2e-3)
