"""Splitting one system's metric scoring into blocks of lines, and joining the blocks' tables.

A system with more outputs than ``metric_chunk_outputs`` (config) is scored in blocks of
that many lines, one job each, so that a 100,000-output system keeps every core busy and
each job's memory is that of one block. The joined table is byte-identical to the table
one job would write: scores are per output, the blocks are in line order, and every block
writes the same CSV format.
"""

from __future__ import annotations

import math
import os
import shutil
from collections.abc import Sequence

from debias.io.atomic import atomic_path

__all__ = ["DEFAULT_CHUNK_OUTPUTS", "line_blocks", "concat_part_tables"]

#: Outputs per metrics job unless the config says otherwise (``metric_chunk_outputs``).
DEFAULT_CHUNK_OUTPUTS = 10_000


def line_blocks(n_outputs: int, chunk_outputs: int = DEFAULT_CHUNK_OUTPUTS) -> list[tuple[int, int]]:
    """``(start, stop)`` of each block (0-based output numbers), as even as possible.

    ``ceil(n / chunk_outputs)`` blocks whose sizes differ by at most one, so that two
    blocks of a system a little over the limit take about as long as each other.
    """
    if chunk_outputs < 1:
        raise ValueError("chunk_outputs must be positive")
    count = max(1, math.ceil(n_outputs / chunk_outputs))
    bounds = [n_outputs * i // count for i in range(count + 1)]
    return list(zip(bounds[:-1], bounds[1:]))


def concat_part_tables(
    tables: Sequence[str | os.PathLike], versions: Sequence[str | os.PathLike], out_table, out_versions
) -> int:
    """Join block CSVs (one header, then every block's rows) and check the blocks agree on
    the implementations' versions; stream the bytes, so memory does not grow with the system.
    Returns the number of rows."""
    texts = [open(path, encoding="utf-8").read() for path in versions]
    if any(text != texts[0] for text in texts[1:]):
        raise ValueError(
            f"metric blocks were scored with different implementation versions: {', '.join(map(str, versions))}"
        )
    rows = 0
    with atomic_path(out_table) as tmp, open(tmp, "wb") as sink:
        header = None
        for path in tables:
            with open(path, "rb") as source:
                first = source.readline()
                if header is None:
                    header = first
                    sink.write(first)
                elif first != header:
                    raise ValueError(f"{path}: header {first!r} differs from the first block's {header!r}")
                for line in source:
                    sink.write(line)
                    rows += 1
    with atomic_path(out_versions) as tmp:
        shutil.copyfile(versions[0], tmp)
    return rows
