"""The documented rule graph (docs/workflow.md) is the workflow's: every rule dependency Snakemake reports for the
paper's configuration is drawn, and nothing else."""

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def workflow_edges() -> set[tuple[str, str]]:
    """(upstream, downstream) rule pairs of ``snakemake --rulegraph mermaid-js``, without ``all``."""
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "--rulegraph", "mermaid-js", "--cores", "1"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    names = dict(re.findall(r"^\s*(id\d+)\[([^\]]+)\]", result.stdout, flags=re.M))
    edges = re.findall(r"^\s*(id\d+) --> (id\d+)", result.stdout, flags=re.M)
    return {(names[a], names[b]) for a, b in edges if "all" not in (names[a], names[b])}


def documented_edges() -> set[tuple[str, str]]:
    text = (REPO / "docs" / "workflow.md").read_text(encoding="utf-8")
    block = re.search(r"## Rule graph\n.*?```mermaid\n(.*?)```", text, flags=re.S)
    assert block, "docs/workflow.md has no '## Rule graph' section with a mermaid block"
    return set(re.findall(r"^\s*(\w+) --> (\w+)\s*$", block.group(1), flags=re.M))


def test_documented_rule_graph_is_the_workflows():
    drawn, actual = documented_edges(), workflow_edges()
    assert actual, "snakemake reported no rule dependencies"
    assert drawn == actual, (
        f"missing from docs/workflow.md: {sorted(actual - drawn)}; not in the workflow: {sorted(drawn - actual)}"
    )
