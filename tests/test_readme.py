"""The README is a short user guide: its Python examples run as written and print what they say,
the examples of docs/usage.md run too, and every file and section the two link to exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
USAGE = REPO / "docs" / "usage.md"


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.S)


def run_blocks(path: Path) -> dict:
    namespace: dict = {}
    for block in python_blocks(path):
        exec(compile(block, str(path), "exec"), namespace)  # noqa: S102
    return namespace


def test_the_readme_is_at_most_150_lines():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines; the rest belongs in docs/usage.md"


def test_readme_python_examples_run(capsys):
    assert len(python_blocks(README)) == 2  # your ratings, your pairwise verdicts
    namespace = run_blocks(README)
    out = capsys.readouterr().out

    # Ratings: every system by the mean, the control variate and PPI++ (outputs nobody judged).
    estimates = namespace["estimates"]
    assert sorted(set(estimates["system"])) == ["A", "B", "C"]
    for _, rows in estimates.groupby("system"):
        assert list(rows["estimator"]) == ["mean", "cv:bleu", "ppi++:bleu"]
    assert (estimates["ci_low"] <= estimates["estimate"]).all()
    assert (estimates["estimate"] <= estimates["ci_high"]).all()
    width = (estimates["ci_high"] - estimates["ci_low"]).to_numpy().reshape(3, 3)
    assert (width[:, 1] < width[:, 0]).all()  # the metric narrows every system's interval
    assert "cv:bleu" in out and "ppi++:bleu" in out
    comparisons = namespace["comparisons"]
    assert set(zip(comparisons["system_a"], comparisons["system_b"])) == {("A", "B"), ("A", "C"), ("B", "C")}
    assert {"mean", "cv:bleu"} <= set(comparisons["estimator"])
    assert (comparisons["p_holm"] >= comparisons["p_value"]).all()
    board = namespace["board"]
    assert (board["rank_low"] <= board["rank_high"]).all()
    best = board[board["estimator"] == "cv:bleu"].sort_values("rank")
    assert list(best["system"]) == ["C", "B", "A"] and best["rank_low"].iloc[0] == 1
    question = namespace["question"]
    assert question.answer in out and not question.resolved
    assert question.answer.startswith("unresolved so far")
    batch = namespace["batch"].battles
    assert len(batch) == 30 and list(batch.columns) == ["item", "system"]
    assert not set(batch["item"]) & {f"s{i}" for i in range(60)}  # outputs nobody judged

    # Pairwise verdicts: PPI++ with the judge narrows every win rate's interval.
    wins = namespace["wins"].query("estimand == 'win_rate'").set_index(["system", "estimator"])
    assert set(wins.index.get_level_values("estimator")) == {"human", "judge:gpt4", "ppi++:gpt4"}
    assert wins["estimate"].between(0, 1).all()
    width = wins["ci_high"] - wins["ci_low"]
    for system in "wxyz":
        assert width[(system, "ppi++:gpt4")] < width[(system, "human")]
    human = wins.xs("human", level="estimator")["estimate"]
    assert human.idxmax() == "w" and human.idxmin() == "z"
    agreement = namespace["agreement"]
    assert set(agreement["system"]) == set("wxyz") and agreement["accuracy"].between(0.7, 0.9).all()
    ranking = namespace["ranking"]
    assert (ranking["rank_low"] <= ranking["rank_high"]).all()
    spread = (ranking["rank_high"] - ranking["rank_low"]).groupby([ranking["estimand"], ranking["estimator"]]).sum()
    assert spread[("win_rate", "ppi++:gpt4")] <= spread[("win_rate", "human")]
    top = namespace["top"]
    assert top.answer in out and (top.resolved or top.answer.startswith("unresolved so far"))
    send = namespace["send"].battles
    assert len(send) == 50 and list(send.columns) == ["item", "system_a", "system_b"]
    judged = {f"q{i}" for i in range(500)}
    assert not set(send["item"]) & judged  # battles without a human verdict


def test_usage_python_examples_run(capsys):
    namespace = run_blocks(USAGE)
    long = namespace["long"]
    assert list(long.columns) == ["item", "system", "prompt", "score"] and len(long) == 4
    result = namespace["result"]
    assert result.n_judged == 5 and result.n_outputs == 100
    assert result.ci_low < result.estimate < result.ci_high
    assert f"{result.estimate} {result.ci_low} {result.ci_high}" in capsys.readouterr().out
    assert float(namespace["debias"].data_efficiency(rho=0.5, gamma=0.25)) == 1.25


def slug(heading: str) -> str:
    """The anchor a Markdown renderer gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    return {slug(h) for h in re.findall(r"^#+ (.*)$", path.read_text(encoding="utf-8"), flags=re.M)}


@pytest.mark.parametrize("path", [README, USAGE], ids=["README.md", "docs/usage.md"])
def test_links_lead_to_files_and_sections_that_exist(path):
    text = path.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    assert links
    for link in links:
        target, _, anchor = link.partition("#")
        file = (path.parent / target).resolve() if target else path
        assert file.exists(), f"{path.name} links to {link}: no such file"
        if anchor:
            assert anchor in anchors(file), f"{path.name} links to {link}: no such section"
    # The documents the README names in backquotes exist as well.
    for name in re.findall(r"`((?:docs|config|data|benchmarks)/[\w./-]+\.md|CHANGELOG\.md)`", text):
        assert (REPO / name).exists(), f"{path.name} names {name}: no such file"


def test_usage_covers_what_left_the_readme():
    """What the README points to docs/usage.md for is there: the reading rules, the commands and
    their options, rubric criteria as prompts, questions with anytime-valid status."""
    text = USAGE.read_text(encoding="utf-8")
    for command in ("import", "import-pairs", "preferences", "status", "next", "run", "estimate", "plan"):
        assert f"debias {command}" in text
    assert "Rubric criteria are prompts" in text
    assert "How a pair table is read" in text and "How a ratings table is read" in text
    assert "--input-format" in text and "--table-format" not in text
    assert "--for-prompt" in text and "relative_to_config: true" in text
