"""Markdown tables: one row per line, numbers right-aligned, and a cell's text never breaks the
table (a ``|`` is escaped, a line break becomes a space)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from debias.tables import to_markdown


def cells(line: str) -> list[str]:
    return [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]


def test_markdown_table_keeps_every_cell_in_its_column():
    frame = pd.DataFrame({"name": ["a|b", "two\nlines"], "value": [1.23456, np.nan]})
    lines = to_markdown(frame, digits=2, headers=["Name | label", "Value"]).splitlines()
    assert len(lines) == 4
    assert all(len(cells(line)) == 2 for line in lines)
    assert cells(lines[0]) == ["Name \\| label", "Value"]
    assert lines[1] == "|---|---:|"
    assert cells(lines[2]) == ["a\\|b", "1.23"]
    assert cells(lines[3]) == ["two lines", "–"]


def test_markdown_table_of_text_only_uses_default_alignment_and_may_be_empty():
    frame = pd.DataFrame([], columns=["#", "Quantity"], dtype=object)
    assert to_markdown(frame) == "| # | Quantity |\n|---|---|\n"
