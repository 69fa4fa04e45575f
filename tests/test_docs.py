"""The documented rule graphs (docs/workflow.md) are the workflow's: every rule dependency Snakemake reports for the
paper's configuration, and for config/arena.yaml (preference tasks alone), is drawn, and nothing else."""

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def workflow_edges(*args: str) -> set[tuple[str, str]]:
    """(upstream, downstream) rule pairs of ``snakemake --rulegraph mermaid-js``, without ``all``."""
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "--rulegraph", "mermaid-js", "--cores", "1", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    names = dict(re.findall(r"^\s*(id\d+)\[([^\]]+)\]", result.stdout, flags=re.M))
    edges = re.findall(r"^\s*(id\d+) --> (id\d+)", result.stdout, flags=re.M)
    return {(names[a], names[b]) for a, b in edges if "all" not in (names[a], names[b])}


def documented_edges(which: int = 0) -> set[tuple[str, str]]:
    """The edges of the ``which``-th mermaid block of the section "Rule graph"."""
    text = (REPO / "docs" / "workflow.md").read_text(encoding="utf-8")
    section = text.split("## Rule graph\n", 1)
    assert len(section) == 2, "docs/workflow.md has no '## Rule graph' section"
    blocks = re.findall(r"```mermaid\n(.*?)```", section[1], flags=re.S)
    assert len(blocks) > which, f"docs/workflow.md's '## Rule graph' has {len(blocks)} mermaid blocks"
    return set(re.findall(r"^\s*(\w+) --> (\w+)\s*$", blocks[which], flags=re.M))


def test_documented_rule_graph_is_the_workflows():
    drawn, actual = documented_edges(), workflow_edges()
    assert actual, "snakemake reported no rule dependencies"
    assert drawn == actual, (
        f"missing from docs/workflow.md: {sorted(actual - drawn)}; not in the workflow: {sorted(drawn - actual)}"
    )


def test_documented_rule_graph_of_the_arena_configuration_is_the_workflows():
    drawn, actual = documented_edges(1), workflow_edges("--configfile", "config/arena.yaml")
    assert ("preferences", "report") in actual
    assert drawn == actual, (
        f"missing from docs/workflow.md: {sorted(actual - drawn)}; not in the workflow: {sorted(drawn - actual)}"
    )
