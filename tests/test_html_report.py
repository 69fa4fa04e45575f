"""Snakemake's HTML report of the test configuration, opened in headless Chromium as a reviewer
opens it: no script errors, the report about the systems on the first screen, every figure as a
PNG grouped by kind, every table readable in the page, every file a caption cites linked, and
nothing out of reach on a phone-sized window. Needs Debian's chromium (`make test` installs it)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser import chromium, visit
from workflow_runs import snakemake

from debias.report.html import report_html

pytestmark = [
    pytest.mark.workflow,
    pytest.mark.skipif(chromium() is None, reason="Chromium is not installed (Debian package chromium)"),
]

# Snakemake's report template loads Tailwind's in-browser build, which warns about itself.
SNAKEMAKE_OWN = ("cdn.tailwindcss.com should not be used in production",)

REPORT = "document.querySelector('.debias-report h1')"
PAGE = {
    "categories": "categories",
    "results": "Object.fromEntries(Object.entries(results).map(([k, v]) => [k, v.mime_type]))",
    "first_heading": f"{REPORT} ? {REPORT}.textContent : null",
    "report_top": f"{REPORT} ? Math.round({REPORT}.getBoundingClientRect().top) : null",
    "broken_images": "Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0)).length",
    "report_images": "document.querySelectorAll('.debias-report img').length",
    "table_sections": (
        "Array.from(document.querySelectorAll('.debias-report section[id^=table-] code')).map(c => c.textContent)"
    ),
    "dead_anchors": (
        "Array.from(document.querySelectorAll('.debias-report a[href^=\"#\"]'))"
        ".filter(a => !document.getElementById(a.getAttribute('href').slice(1))).length"
    ),
    "page_width": "document.documentElement.scrollWidth",
    "text_right": (
        "Math.max(...Array.from(document.querySelectorAll('.debias-report p'))"
        ".map(p => p.getBoundingClientRect().right))"
    ),
}


@pytest.fixture(scope="module")
def html_report(base_run, tmp_path_factory):
    """Snakemake's HTML report of the shared base run (written outside the run's folder)."""
    page = tmp_path_factory.mktemp("html") / "report.html"
    out = snakemake(base_run, "--report", str(page))
    assert "Report created" in out.stderr + out.stdout
    return page


def test_the_report_opens_with_the_report_about_the_systems(html_report, base_run, tmp_path):
    seen = visit(html_report, PAGE, screenshot=tmp_path / "wide.png")
    assert seen.problems(ignore=SNAKEMAKE_OWN) == []
    values = seen.values
    # First screen: the report (report.md rendered), not the rule graph.
    assert values["first_heading"] == "Evaluation report"
    assert 0 <= values["report_top"] < 900
    assert values["broken_images"] == 0 and values["report_images"] >= 6
    assert values["dead_anchors"] == 0
    tables = sorted(p.name for p in (base_run / "results/tables").glob("*.csv"))
    assert sorted(values["table_sections"]) == tables  # every table shown in the page
    categories, results = values["categories"], values["results"]
    assert sorted(categories) == ["1 Report", "2 Figures", "3 Tables", "4 Table files (CSV)"]
    assert categories["1 Report"] == {"Other": ["results/report.html"]}
    figures = [path for group in categories["2 Figures"].values() for path in group]
    assert figures and all(results[path] == "image/png" for path in figures)
    assert not [path for path, mime in results.items() if mime == "application/pdf"]
    drawn = {p.name for p in (base_run / "results/figures").glob("*.png")}
    assert {Path(path).name for path in figures} == drawn
    kinds = set(categories["2 Figures"])
    assert {"Figure 1", "Figure 3", "Figure 5", "Figure 6", "System scores", "Comparisons"} <= kinds
    pages = [path for group in categories["3 Tables"].values() for path in group]
    assert {Path(p).stem for p in pages} == {Path(t).stem for t in tables}
    assert all(results[path] == "text/html" for path in pages)
    csv_files = [Path(path).name for group in categories["4 Table files (CSV)"].values() for path in group]
    assert sorted(csv_files) == tables


def test_every_file_a_caption_cites_is_in_the_report(html_report):
    """A caption that names a table links to it, and the table is in the report."""
    seen = visit(
        html_report, {"captions": "Object.fromEntries(Object.entries(results).map(([k, v]) => [k, v.caption]))"}
    )
    captions = seen.values["captions"]
    registered = {Path(path).name for path in captions}
    cited_somewhere = set()
    for path, caption in captions.items():
        for name in re.findall(r"([\w.]+\.csv)", re.sub(r"<[^>]+>", " ", caption or "")):
            cited_somewhere.add(name)
            assert name in registered, (path, name)
            assert re.search(rf"<a [^>]*href=\"javascript:app.showResultInfo[^\"]*{re.escape(name)}", caption), (
                path,
                name,
            )
    assert {"figure1.csv", "correlations.csv", "best_metrics.csv"} <= cited_somewhere


def test_nothing_is_out_of_reach_on_a_narrow_screen(html_report, tmp_path):
    seen = visit(html_report, PAGE, width=390, height=844, screenshot=tmp_path / "narrow.png")
    assert seen.problems(ignore=SNAKEMAKE_OWN) == []
    assert seen.values["page_width"] <= 390
    assert seen.values["text_right"] <= 390  # paragraphs wrap inside the window
    assert 0 <= seen.values["report_top"] < 844


def test_a_table_page_and_the_report_page_alone(base_run):
    """The pages the report holds open on their own too, without errors."""
    results = base_run / "results"
    seen = visit(results / "report.html", {"rows": "document.querySelectorAll('tbody tr').length"}, settle=0.5)
    assert seen.problems() == [] and seen.values["rows"] > 0
    seen = visit(results / "html/table2.html", {"cells": "document.querySelectorAll('td').length"}, settle=0.5)
    assert seen.problems() == [] and seen.values["cells"] > 0


def test_report_links_to_tables_lead_into_the_page(tmp_path):
    (tmp_path / "tables").mkdir()
    (tmp_path / "figures").mkdir()
    (tmp_path / "tables/plan.csv").write_text("task,n\ntoy,20\n")
    (tmp_path / "figures/f.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    text = "# Title\n\nSee [the plan](tables/plan.csv) and [elsewhere](https://example.org).\n\n![f](figures/f.png)\n"
    page = report_html(text, tmp_path, [tmp_path / "tables/plan.csv"])
    assert '<a href="#table-plan">the plan</a>' in page
    assert 'href="https://example.org"' in page
    assert 'src="data:image/png;base64,' in page
    assert '<section id="table-plan">' in page and '<td class="number">20</td>' in page
    assert "<title>Title</title>" in page
