"""The documentation site (docs/conf.py, `make docs`): Sphinx builds it with warnings as errors, a
broken section link fails that build, the command reference holds every subcommand of the
command's own parser, the API reference every public name, and the front page and the API page
open in headless Chromium with no script error, working section links and the return type of
``debias.estimate`` shown. Needs the extra `docs` (Sphinx, MyST, sphinx-argparse, furo)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from browser import chromium, visit
from conftest import REPO

import debias

pytest.importorskip("sphinx", reason="the extra 'docs' is not installed")
pytest.importorskip("myst_parser", reason="the extra 'docs' is not installed")


def build(source: Path, out: Path) -> subprocess.CompletedProcess:
    """``make docs``'s build of ``source`` into ``out``: strict (-W), every warning reported."""
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(source), str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = build(REPO / "docs", out)
    assert done.returncode == 0, done.stderr[-4000:]
    assert done.stderr.strip() == "", done.stderr[-4000:]
    return out


#: Sphinx's MathJax, and what Chromium says when it cannot reach it (tests run offline).
MATHJAX = "https://cdn.jsdelivr.net/npm/mathjax@4/tex-mml-chtml.js"
OFFLINE = ("net::ERR_NAME_NOT_RESOLVED", "net::ERR_INTERNET_DISCONNECTED")

#: What a page shows: dead links into the page's own sections, the main heading, the links.
PAGE = {
    "title": "document.title",
    "heading": "document.querySelector('article h1') ? document.querySelector('article h1').textContent : null",
    "dead_anchors": (
        "Array.from(document.querySelectorAll('article a[href^=\"#\"]'))"
        ".filter(a => a.getAttribute('href').length > 1"
        " && !document.getElementById(decodeURIComponent(a.getAttribute('href').slice(1)))).length"
    ),
    "links": "Array.from(document.querySelectorAll('a[href]')).map(a => a.getAttribute('href'))",
    "broken_images": "Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0)).length",
}


def test_the_command_reference_is_the_parsers(site):
    from debias.cli.analyse import _parser

    parser = _parser()
    (commands,) = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
    page = (site / "cli.html").read_text(encoding="utf-8")
    assert len(commands.choices) >= 10
    for name in commands.choices:
        assert f"debias {name}" in page, name
    assert "--system-a" in page and "--configfile" in page
    assert "\u2013scores" not in page  # options in the prose stay as typed, not with an en dash


def test_the_api_reference_documents_every_public_name(site):
    page = (site / "api.html").read_text(encoding="utf-8")
    for name in debias.__all__:
        assert f'id="debias.{name}"' in page, name


def test_a_broken_section_link_fails_the_build(tmp_path):
    """The site's settings on two small pages: a link to a section that does not exist is an
    error, and so is a link to a page that does not exist."""
    source = tmp_path / "docs"
    source.mkdir()
    shutil.copy(REPO / "docs" / "conf.py", source)
    (source / "index.md").write_text("# Front\n\n```{toctree}\nguide\n```\n\nSee [it](guide.md#a-section).\n")
    (source / "guide.md").write_text("# Guide\n\n## A section\n\nText.\n")
    done = build(source, tmp_path / "good")
    assert done.returncode == 0, done.stderr[-4000:]
    (source / "guide.md").write_text("# Guide\n\n## A section\n\n[here](#no-such-section), [there](gone.md).\n")
    done = build(source, tmp_path / "bad")
    assert done.returncode != 0
    assert "no-such-section" in done.stderr and "gone.md" in done.stderr, done.stderr[-4000:]


@pytest.mark.skipif(chromium() is None, reason="Chromium is not installed (Debian package chromium)")
def test_the_front_page_opens_in_chromium(site):
    seen = visit(site / "index.html", PAGE)
    assert seen.problems() == []
    values = seen.values
    assert values["heading"].startswith("The price of debiasing"), values["heading"]
    assert f"debias {debias.__version__}" in values["title"], values["title"]
    assert values["dead_anchors"] == 0 and values["broken_images"] == 0
    for page in ("usage.html", "methods.html", "api.html", "cli.html", "configuration.html", "changelog.html"):
        assert any(link.split("#")[0] == page for link in values["links"]), page


@pytest.mark.skipif(chromium() is None, reason="Chromium is not installed (Debian package chromium)")
def test_the_api_page_opens_in_chromium_with_the_return_types(site):
    expressions = {
        **PAGE,
        "estimate": "document.getElementById('debias.estimate').parentElement.textContent",
        "functions": "document.querySelectorAll('dl.py.function > dt').length",
    }
    seen = visit(site / "api.html", expressions)
    # The page's formulas are set by MathJax from its CDN, the one resource the site loads from
    # elsewhere; offline its load fails and the formulas stay TeX.
    page = (site / "api.html").read_text(encoding="utf-8")
    assert re.findall(r'<script[^>]* src="(https?://[^"]+)"', page) == [MATHJAX], "another script from elsewhere"
    assert seen.problems(ignore=OFFLINE) == []
    values = seen.values
    assert values["heading"].startswith("The Python API"), values["heading"]
    assert values["dead_anchors"] == 0
    assert values["functions"] == sum(name[0].islower() for name in debias.__all__)
    assert "DataFrame" in values["estimate"] and "read_ratings" in values["estimate"], values["estimate"][:500]
