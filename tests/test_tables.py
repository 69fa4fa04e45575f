"""Markdown tables: one row per line, numbers right-aligned unless an alignment is given, and a
cell's text never breaks the table (a ``|`` is escaped, a line break becomes a space); the
data-efficiency grid is built with the same renderer."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from debias.tables.efficiency import efficiency_markdown
from debias.tables.render import to_markdown


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


def test_markdown_alignment_is_explicit_when_asked():
    frame = pd.DataFrame({"a": ["x"], "b": [1.0], "c": ["y"], "d": [2]})
    lines = to_markdown(frame, align=["left", "center", "right", "default"]).splitlines()
    assert lines[1] == "|:---|:---:|---:|---|"
    with pytest.raises(ValueError, match="4 columns, but 4 headers and 3 alignments"):
        to_markdown(frame, align=["left", "right", "right"])
    with pytest.raises(ValueError, match="unknown alignment 'middle'"):
        to_markdown(frame, align=["left", "middle", "right", "left"])


def test_efficiency_markdown_has_one_table_per_task_and_prompt_in_config_order():
    tasks = {
        "t": {
            "label": "Task",
            "systems": {"s1": {"label": "One"}, "s2": {"label": "Two|2"}},
            "prompts": {"p": {"label": "P"}, "q": {"label": "Q"}},
        }
    }
    metrics = {"m": {"label": "M"}}
    rows = [("s2", "m", "cv", 1.234, 1.2), ("s1", "perfect", "perfect", 3.0, 2.5), ("s1", "m", "noiseless", 1.5, 1.4)]
    table = pd.DataFrame(
        [
            {"task": "t", "prompt": "q", "system": s, "metric": m, "condition": c, "de": de, "de_theory": th}
            for s, m, c, de, th in rows
        ]
    )
    text = efficiency_markdown(table, tasks, metrics)
    assert "## Task — P" not in text  # no rows for prompt p
    section = text.split("## Task — Q\n\n", 1)[1].splitlines()
    assert section[0] == "| condition | One | Two\\|2 |"
    assert section[1] == "|---|---:|---:|"
    assert section[2:5] == [
        "| Humans + M | – | 1.23 (1.20) |",
        "| Noiseless humans + M | 1.50 (1.40) | – |",
        "| Humans + perfect metric | 3.00 (2.50) | – |",
    ]
    assert text.endswith("| Humans + perfect metric | 3.00 (2.50) | – |\n")
