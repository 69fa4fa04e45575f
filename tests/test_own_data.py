"""From a raw long table to a report about the user's systems in three commands: `debias import`,
the config block it adds, `snakemake`. Two fixtures unlike the paper's data: one shaped like a WMT
MQM study (one rater per segment, German text, error scores where lower is better) and one like
a SummEval Likert study (three raters, four 1-5 prompts, most ratings at the ceiling)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import REPO
from test_importer import likert_like, mqm_like
from test_workflow import snakemake

from debias.cli import main

pytestmark = pytest.mark.workflow

BASE = {
    "data_dir": "data",
    "results_dir": "results",
    "nltk_data": str(REPO / "nltk_data"),
    "metrics": {"bleu": {"label": "BLEU"}, "rouge1": {"label": "ROUGE-1"}},
    "bootstrap": {"replicates": 100, "seed": 3},
    "estimates": {"repeats": 100},
    "compare": {"repeats": 100},
    "plan": {"check": {"pilots": 20, "pilot_size": 10, "n": 20}},
    "figures": {},
}


def three_commands(root: Path, table: Path, *options: str) -> str:
    (root / "config.yaml").write_text(yaml.safe_dump(BASE))
    assert (
        main(
            ["import", str(table), "--out", str(root / "data" / "own"), "--config", str(root / "config.yaml"), *options]
        )
        == 0
    )
    snakemake(root, "--configfile", str(root / "config.yaml"))
    return (root / "results" / "report.md").read_text(encoding="utf-8")


def check_report(root: Path, report: str, systems) -> None:
    assert report.startswith("# Evaluation report")
    assert "Paper vs reproduction" not in report and "numbers:" not in report
    for system in systems:
        assert f"| {system} |" in report
    assert not re.search(r"\b(nan|inf)\b", report), "a number without its reason"
    estimates = pd.read_csv(root / "results" / "tables" / "system_estimates.csv")
    numbers = estimates[["estimate", "ci_low", "ci_high", "effective_n"]].to_numpy()
    assert pd.notna(numbers).all() and (abs(numbers) < float("inf")).all()
    for figure in ("figure3", "system_scores_own"):
        assert (root / "results" / "figures" / f"{figure}.png").stat().st_size > 0


def test_mqm_like_evaluation(tmp_path):
    mqm_like(tmp_path / "mqm.tsv", systems=8, items=40)
    report = three_commands(
        tmp_path, tmp_path / "mqm.tsv", "--task", "own", "--item", "seg", "--system", "system",
        "--judgment", "mqm", "--rater", "rater", "--output", "target", "--reference-system", "Human ref",
        "--score", "comet", "--lower-is-better",
    )  # fmt: skip
    check_report(tmp_path, report, [f"sys-{s}" for s in range(7)])
    assert "one judgment per item" in report


def test_likert_evaluation_with_a_ceiling(tmp_path):
    rows = likert_like(tmp_path / "likert.csv", systems=6, items=30)
    pd.DataFrame(rows).assign(summary=lambda f: "summary " + f["item"].astype(str), ref="reference text").to_csv(
        tmp_path / "likert.csv", index=False
    )
    report = three_commands(
        tmp_path, tmp_path / "likert.csv", "--task", "own", "--item", "item", "--system", "system",
        "--judgment", "score", "--prompt", "prompt", "--rater", "rater", "--output", "summary", "--reference", "ref",
    )  # fmt: skip
    check_report(tmp_path, report, [f"m{s}" for s in range(6)])


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))
