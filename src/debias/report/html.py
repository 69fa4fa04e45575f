"""The report as one self-contained HTML page, and every table as an HTML page of its own.

``results/report.html`` is ``results/report.md`` rendered (CommonMark with tables): its figures
are embedded (PNG as data URIs), and every table file it links is shown in the page, in a section
at the end that its links lead to. Snakemake's HTML report (``snakemake --report``) opens with
this page and lists each table's page (``results/html/<table>.html``) beside its CSV file, so
that nothing needs to be downloaded to be read. All styling is scoped to the page's own class, so
the page can be placed inside another one.
"""

from __future__ import annotations

import base64
import csv
import html
import mimetypes
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from debias.distribution.extras import missing

try:
    from markdown_it import MarkdownIt
except ModuleNotFoundError as error:
    raise missing(error, "The report's HTML page") from None

__all__ = ["CSS", "report_html", "table_html"]

#: The class of the element that holds a page; every rule of :data:`CSS` is under it.
PAGE_CLASS = "debias-report"

CSS = f"""
.{PAGE_CLASS} {{ font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328;
  background: #fff; max-width: 60rem; margin: 0 auto; padding: 1rem; overflow-wrap: anywhere; text-align: left; }}
.{PAGE_CLASS} h1 {{ font-size: 1.6rem; margin: 0.5rem 0 1rem; }}
.{PAGE_CLASS} h2 {{ font-size: 1.3rem; margin: 2rem 0 0.6rem; border-bottom: 1px solid #d0d7de; }}
.{PAGE_CLASS} h3 {{ font-size: 1.1rem; margin: 1.5rem 0 0.5rem; }}
.{PAGE_CLASS} p, .{PAGE_CLASS} ul, .{PAGE_CLASS} ol {{ margin: 0.5rem 0; }}
.{PAGE_CLASS} ul {{ list-style: disc; padding-left: 1.5rem; }}
.{PAGE_CLASS} ol {{ list-style: decimal; padding-left: 1.5rem; }}
.{PAGE_CLASS} a {{ color: #0969da; text-decoration: underline; }}
.{PAGE_CLASS} code {{ font-family: ui-monospace, monospace; font-size: 0.9em; background: #f3f4f6;
  padding: 0 0.2em; }}
.{PAGE_CLASS} img {{ display: block; max-width: 100%; height: auto; margin: 0.75rem 0; }}
.{PAGE_CLASS} .table-scroll {{ overflow-x: auto; max-width: 100%; margin: 0.5rem 0; }}
.{PAGE_CLASS} table {{ border-collapse: collapse; font-size: 0.85rem; }}
.{PAGE_CLASS} th, .{PAGE_CLASS} td {{ border: 1px solid #d0d7de; padding: 0.2rem 0.45rem; vertical-align: top;
  overflow-wrap: normal; }}
.{PAGE_CLASS} th {{ background: #f6f8fa; font-weight: 600; }}
.{PAGE_CLASS} td.number {{ text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }}
"""


def _page(title: str, body: str) -> str:
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n<style>{CSS}</style>\n</head>\n"
        f'<body>\n<div class="{PAGE_CLASS}">\n{body}</div>\n</body>\n</html>\n'
    )


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def table_body(path: str | os.PathLike, *, max_rows: int | None = None) -> str:
    """An HTML ``<table>`` of the CSV file at ``path``, numbers right-aligned; with ``max_rows``
    only the first rows, followed by a line saying how many were left out."""
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    if not rows:
        return "<p>(empty table)</p>\n"
    header, records = rows[0], rows[1:]
    shown = records if max_rows is None else records[:max_rows]
    lines = ['<div class="table-scroll"><table>', "<thead><tr>"]
    lines += [f"<th>{html.escape(name)}</th>" for name in header]
    lines.append("</tr></thead><tbody>")
    for record in shown:
        cells = []
        for value in record:
            kind = ' class="number"' if value and _is_number(value) else ""
            cells.append(f"<td{kind}>{html.escape(value)}</td>")
        lines.append("<tr>" + "".join(cells) + "</tr>")
    lines.append("</tbody></table></div>")
    if len(shown) < len(records):
        lines.append(f"<p>The first {len(shown)} of {len(records)} rows; the CSV file holds them all.</p>")
    return "\n".join(lines) + "\n"


def table_html(path: str | os.PathLike, title: str) -> str:
    """A page showing the CSV table at ``path`` under ``title``."""
    name = Path(path).name
    body = f"<h1>{html.escape(title)}</h1>\n<p><code>{html.escape(name)}</code></p>\n" + table_body(path)
    return _page(title, body)


def _anchor(name: str) -> str:
    return "table-" + "".join(c if c.isalnum() else "-" for c in Path(name).stem)


def _data_uri(path: Path) -> str:
    mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return f"data:{mime};base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def report_html(
    markdown: str,
    base_dir: str | os.PathLike,
    tables: Sequence[str | os.PathLike] = (),
    *,
    title: str | None = None,
    max_rows: int = 200,
    labels: Mapping[str, str] | None = None,
) -> str:
    """Render the report's Markdown as a self-contained page.

    Parameters
    ----------
    markdown : str
        The report (``results/report.md``).
    base_dir : path
        The folder the report's relative links start from (the report's own folder).
    tables : sequence of paths
        CSV tables to show at the end of the page; a link of the report to one of them (or to
        its Markdown rendering of the same name) leads there.
    title : str, optional
        The page's title (default: the report's first heading).
    max_rows : int
        Rows of each table shown in the page (the CSV file has them all).
    labels : mapping, optional
        A heading per table file name (default: the file name).

    Returns
    -------
    str
        The HTML page. An image the report links to that does not exist is left as a link.
    """
    base = Path(base_dir)
    tables = [Path(t) for t in tables]
    by_stem = {t.stem: t for t in tables}
    parser = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = parser.parse(markdown)
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag == "h1" and title is None:
            title = tokens[index + 1].content
        for child in token.children or ():
            if child.type == "image":
                source = base / str(child.attrGet("src"))
                if source.is_file():
                    child.attrSet("src", _data_uri(source))
            elif child.type == "link_open":
                target = str(child.attrGet("href") or "")
                if "://" in target or target.startswith("#"):
                    continue
                stem = Path(target).stem
                if Path(target).suffix in {".csv", ".md"} and stem in by_stem:
                    child.attrSet("href", "#" + _anchor(stem))
    body = parser.renderer.render(tokens, parser.options, {})
    body = body.replace("<table>", '<div class="table-scroll"><table>').replace("</table>", "</table></div>")
    if tables:
        labels = labels or {}
        parts = ['<h2 id="tables">Tables</h2>\n']
        for path in tables:
            label = labels.get(path.name, path.name)
            parts.append(
                f'<section id="{_anchor(path.stem)}"><h3>{html.escape(label)} '
                f"(<code>{html.escape(path.name)}</code>)</h3>\n"
            )
            parts.append(table_body(path, max_rows=max_rows))
            parts.append("</section>\n")
        body += "".join(parts)
    return _page(title or "Report", body)
