"""Plain-text renderings (Markdown, LaTeX) of result tables, without extra dependencies."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

#: Markdown delimiter-row cell of each column alignment; "default" leaves it to the renderer.
MARKDOWN_ALIGNMENTS = {"default": "---", "left": ":---", "right": "---:", "center": ":---:"}


def _cell(value, digits: int) -> str:
    if isinstance(value, float):
        return "–" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def _markdown_escape(text: str) -> str:
    """A cell's text on one line, with ``|`` escaped so that it does not end the cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def _markdown_row(cells) -> str:
    return "| " + " | ".join(_markdown_escape(cell) for cell in cells) + " |"


def to_markdown(
    frame: pd.DataFrame,
    digits: int = 3,
    headers: Sequence[str] | None = None,
    align: Sequence[str] | None = None,
) -> str:
    """A GitHub-flavoured Markdown table of ``frame``, one line per row, ending in a newline.

    Parameters
    ----------
    frame : pandas.DataFrame
        The rows to show. Floats are shown with ``digits`` decimals and NaN as "–"; any other
        value as ``str(value)``. A ``|`` in a cell or header is escaped and a line break
        becomes a space, so no text can break the table.
    digits : int
        Decimals of float cells.
    headers : sequence of str, optional
        Column headers; the frame's column names by default.
    align : sequence of str, optional
        One alignment per column: ``"default"``, ``"left"``, ``"right"`` or ``"center"``. By
        default numeric columns are right-aligned and the others take the renderer's default.
    """
    headers = [str(h) for h in (frame.columns if headers is None else headers)]
    if align is None:
        align = ["right" if pd.api.types.is_numeric_dtype(frame[c]) else "default" for c in frame.columns]
    if len(headers) != frame.shape[1] or len(align) != frame.shape[1]:
        raise ValueError(
            f"to_markdown: {frame.shape[1]} columns, but {len(headers)} headers and {len(align)} alignments"
        )
    unknown = [a for a in align if a not in MARKDOWN_ALIGNMENTS]
    if unknown:
        raise ValueError(f"to_markdown: unknown alignment {unknown[0]!r}; expected one of {list(MARKDOWN_ALIGNMENTS)}")
    lines = [_markdown_row(headers), "|" + "|".join(MARKDOWN_ALIGNMENTS[a] for a in align) + "|"]
    lines += [_markdown_row(_cell(v, digits) for v in row) for row in frame.itertuples(index=False)]
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
