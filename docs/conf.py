"""Sphinx configuration of the documentation site: the Markdown guides of docs/ (MyST), the
repository's other Markdown references included as pages (configuration keys, the input format,
benchmarks, the changelog), the API reference from the docstrings (autodoc) and the command
reference from the `debias` command's own parser (sphinx-argparse).

Build: ``make docs`` (``sphinx-build -W --keep-going -b html docs docs/_build/html``): a warning
fails the build."""

from __future__ import annotations

import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
REPO = DOCS.parent
sys.path.insert(0, str(REPO / "src"))  # the checkout's package, also where an older one is installed

import debias  # noqa: E402

project = "debias"
author = "The debias authors"
copyright = "The debias authors (MIT License)"
release = debias.__version__
version = ".".join(release.split(".")[:2])

extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinxarg.ext"]
# The docstrings are in NumPy's style (Parameters, Returns, Examples).
napoleon_google_docstring = False
napoleon_numpy_docstring = True
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]
myst_enable_extensions = ["colon_fence"]
# Section links (usage.md#set-up-in-detail) as the repository's Markdown writes them.
myst_heading_anchors = 4
# Mermaid diagrams (the rule graphs of workflow.md) are shown as their source.
highlight_language = "none"
# Options stay as typed: --scores, not an en dash.
smartquotes = False
suppress_warnings = ["misc.highlighting_failure"]

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": True}

html_theme = "furo"
html_title = f"debias {release}"
html_show_sourcelink = False

#: Markdown files of the repository that are pages of the site, by the page that shows them.
INCLUDED = {
    "config/README.md": "configuration.md",
    "data/README.md": "data-format.md",
    "benchmarks/RESULTS.md": "benchmarks.md",
    "CHANGELOG.md": "changelog.md",
    "README.md": "index.md",
}


def site_links(text: str, folder: str) -> str:
    """Links of a Markdown file in the repository's ``folder`` ("docs", "config", "" for the
    root) as links of the site: a page of docs/ or an included file becomes that page; a link to
    another file of the repository becomes its path in code, as the site does not hold it."""

    def target(match: re.Match) -> str:
        label, path, anchor = match.group(1), match.group(2), match.group(3) or ""
        if re.match(r"[a-z]+:", path):  # https:, mailto:
            return match.group(0)
        resolved = Path(folder, path).as_posix()
        parts = []
        for part in resolved.split("/"):
            if part == "..":
                parts = parts[:-1]
            elif part not in ("", "."):
                parts.append(part)
        resolved = "/".join(parts)
        if resolved in INCLUDED:
            return f"[{label}]({INCLUDED[resolved]}{anchor})"
        if resolved.startswith("docs/") and resolved.endswith(".md"):
            return f"[{label}]({resolved[len('docs/') :]}{anchor})"
        if not path and anchor:
            return match.group(0)
        return label if label.startswith("`") else f"{label} (`{resolved}`)"

    return re.sub(r"\[([^\]]+)\]\(([^)#\s]*)(#[^)\s]*)?\)", target, text)


def rewrite_page(app, docname: str, source: list[str]) -> None:
    if Path(app.srcdir, docname + ".md").is_file():
        source[0] = site_links(source[0], "docs")


def rewrite_included(app, relative_path: Path, parent_docname: str, content: list[str]) -> None:
    folder = (Path(app.srcdir) / relative_path).resolve().parent.relative_to(REPO).as_posix()
    content[0] = site_links(content[0], "" if folder == "." else folder)


def setup(app):
    app.connect("source-read", rewrite_page)
    app.connect("include-read", rewrite_included)
