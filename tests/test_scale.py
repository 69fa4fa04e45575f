"""Large systems: blocks of lines for the metrics jobs, streaming reads, and job resources."""

import json

import pytest

from debias.io.canonical import count_outputs, iter_system, read_references, read_system
from debias.pipeline.metric_chunks import concat_part_tables, line_blocks
from debias.pipeline.resources import bootstrap_mem_mb, metrics_mem_mb, metrics_runtime, paired_coverage_mem_mb

PROMPTS = {"q": {"min": 0, "max": 1}}


def write_system(path, n):
    lines = [json.dumps({"id": f"i{i}", "output": f"out {i}", "judgments": {"q": [i % 2]}}) for i in range(n)]
    lines.insert(3, "")  # a blank line is not an output
    path.write_text("\n".join(lines) + "\n")


def test_line_blocks_cover_every_output_once_in_order():
    assert line_blocks(5, 10) == [(0, 5)]
    assert line_blocks(0, 10) == [(0, 0)]
    blocks = line_blocks(100_001, 10_000)
    assert len(blocks) == 11
    assert blocks[0][0] == 0 and blocks[-1][1] == 100_001
    assert all(a[1] == b[0] for a, b in zip(blocks, blocks[1:]))
    sizes = [stop - start for start, stop in blocks]
    assert max(sizes) - min(sizes) <= 1 and max(sizes) <= 10_000
    with pytest.raises(ValueError):
        line_blocks(10, 0)


def test_streamed_blocks_equal_the_whole_file(tmp_path):
    path = tmp_path / "sys.jsonl"
    write_system(path, 23)
    whole = read_system(path, PROMPTS)
    assert count_outputs(path) == 23
    streamed = [item for start, stop in line_blocks(23, 5) for item in iter_system(path, PROMPTS, (), start, stop)]
    assert streamed == whole
    refs = tmp_path / "refs.jsonl"
    refs.write_text("".join(json.dumps({"id": f"i{i}", "reference": f"r{i}"}) + "\n" for i in range(23)))
    assert read_references(refs, ids={"i2", "i7"}) == {"i2": "r2", "i7": "r7"}
    assert len(read_references(refs)) == 23


def test_joined_block_tables_are_the_single_table(tmp_path):
    header = "id,system,bleu\n"
    rows = [f"i{i},s,0.{i:06d}\n" for i in range(7)]
    parts = []
    for n, (start, stop) in enumerate(line_blocks(7, 3)):
        part = tmp_path / f"{n}.csv"
        part.write_text(header + "".join(rows[start:stop]))
        version = tmp_path / f"{n}.json"
        version.write_text('{"v": 1}\n')
        parts.append((part, version))
    out, out_json = tmp_path / "all.csv", tmp_path / "all.json"
    assert concat_part_tables([p for p, _ in parts], [v for _, v in parts], out, out_json) == 7
    assert out.read_text() == header + "".join(rows)
    assert out_json.read_text() == '{"v": 1}\n'
    parts[1][1].write_text('{"v": 2}\n')
    with pytest.raises(ValueError, match="different implementation versions"):
        concat_part_tables([p for p, _ in parts], [v for _, v in parts], out, out_json)


def test_resources_grow_with_the_data_they_get():
    modern = ["sacrebleu", "nltk-meteor"]
    assert metrics_mem_mb(0, modern) < metrics_mem_mb(500, modern) < metrics_mem_mb(10_000, modern)
    assert metrics_mem_mb(500, [*modern, "meteor15"]) > metrics_mem_mb(500, modern) + 1000  # the JVM
    assert metrics_runtime(100_000, modern) > metrics_runtime(500, modern) >= 1
    # The bootstrap's memory stops growing with N once the grid and the chunks cap it.
    assert bootstrap_mem_mb(500, 5, 1000) < bootstrap_mem_mb(5_000, 5, 1000)
    assert bootstrap_mem_mb(100_000, 5, 1000) == bootstrap_mem_mb(1_000_000, 5, 1000) < 1536


PAIRED_PEAK = """
import resource, sys, tracemalloc
import numpy as np
from debias.data import PairedSample
from debias.stats.checks.paired_coverage import paired_coverage_experiment

R, N, M = 100, 20_000, 5
rng = np.random.default_rng(0)
ja = rng.integers(0, 3, (N, 2)).astype(float)
jb = rng.integers(0, 3, (N, 2)).astype(float)
a = rng.random((N, M))
b = a + 0.1 * rng.random((N, M))
pair = PairedSample(ja, jb, np.zeros(N, bool), a, b, a, b, tuple(f"m{i}" for i in range(M)))
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
tracemalloc.start()
paired_coverage_experiment(pair, sample_sizes=[20, "0.5N", "0.8N"], n_repeats=R, level=0.8, rng=rng)
allocated = tracemalloc.get_traced_memory()[1]
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024, allocated / 2**20)
"""


def test_paired_coverage_memory_is_what_the_rule_declares():
    """The comparison coverage check's declared memory covers what one pair's experiment uses
    (R = 100, N = 20,000, five metrics, in a fresh process), without asking for twice as much.

    The resident peak covers the pages the process touched, which depends on the machine's state
    (the same run measured 300-350 MB after other tests and 813 MB on a fresh machine); the
    largest total of live allocations (``tracemalloc``, numpy's arrays included) does not, so it
    bounds the declaration from below and above."""
    import subprocess
    import sys

    printed = subprocess.run([sys.executable, "-c", PAIRED_PEAK], capture_output=True, text=True, check=True).stdout
    resident, allocated = map(float, printed.split())
    declared = paired_coverage_mem_mb(20_000, 5, 100)
    assert resident < declared, (resident, declared)
    assert allocated < declared < 2 * allocated + 400, (allocated, declared)
