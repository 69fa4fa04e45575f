"""Plain-text renderings (Markdown, LaTeX) of result tables, without extra dependencies."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd


def _cell(value, digits: int) -> str:
    if isinstance(value, float):
        return "–" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def _markdown_escape(text: str) -> str:
    """A cell's text on one line, with ``|`` escaped so that it does not end the cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(frame: pd.DataFrame, digits: int = 3, headers: Sequence[str] | None = None) -> str:
    """A GitHub-flavoured Markdown table, numbers right-aligned (other columns take the
    renderer's default). Floats are shown with ``digits`` decimals, NaN as "–"; a ``|`` in a
    cell is escaped and a line break becomes a space."""
    headers = list(headers or frame.columns)
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) for c in frame.columns]
    lines = [
        "| " + " | ".join(_markdown_escape(str(h)) for h in headers) + " |",
        "|" + "|".join("---:" if n else "---" for n in numeric) + "|",
    ]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(_markdown_escape(_cell(v, digits)) for v in row) + " |")
    return "\n".join(lines) + "\n"


def _latex_escape(text: str) -> str:
    for char, escaped in (("\\", r"\textbackslash{}"), ("_", r"\_"), ("&", r"\&"), ("%", r"\%"), ("#", r"\#")):
        text = text.replace(char, escaped)
    return text


def to_latex(frame: pd.DataFrame, digits: int = 2, headers: Sequence[str] | None = None, caption: str = "") -> str:
    """A booktabs LaTeX tabular (wrapped in a table environment when a caption is given)."""
    headers = list(headers or frame.columns)
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) for c in frame.columns]
    spec = "".join("r" if n else "l" for n in numeric)
    body = [r"\begin{tabular}{" + spec + "}", r"\toprule", " & ".join(headers) + r" \\", r"\midrule"]
    for row in frame.itertuples(index=False):
        body.append(" & ".join(_latex_escape(_cell(v, digits)) for v in row) + r" \\")
    body += [r"\bottomrule", r"\end{tabular}"]
    if caption:
        body = [r"\begin{table}[t]", r"\centering"] + body + [r"\caption{" + caption + "}", r"\end{table}"]
    return "\n".join(body) + "\n"
