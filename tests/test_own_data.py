"""From a raw long table to a report about the user's systems in three commands: `debias import`,
the config block it adds, `snakemake`. Two fixtures unlike the paper's data: one shaped like a WMT
MQM study (one rater per segment, German text, error scores where lower is better) and one like
a SummEval Likert study (three raters, four 1-5 prompts, most ratings at the ceiling)."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REPO
from test_importer import likert_like, mqm_like
from workflow_runs import snakemake

from debias.cli import main

# Each test imports a table and runs the workflow on it from scratch.
pytestmark = [pytest.mark.workflow, pytest.mark.slow]

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


def command_rows(root: Path, *argv: str) -> pd.DataFrame:
    """What ``debias <argv> --config config.yaml`` prints, run from the user's folder."""
    command = [sys.executable, "-m", "debias.cli", *argv, "--config", "config.yaml"]
    printed = subprocess.run(command, capture_output=True, text=True, cwd=root, check=True).stdout
    return pd.read_csv(io.StringIO(printed), dtype=str, keep_default_na=False)


def workflow_rows(root: Path, table: str, **where) -> pd.DataFrame:
    """The rows of a workflow table, as the text it holds."""
    frame = pd.read_csv(root / "results/tables" / table, dtype=str, keep_default_na=False)
    for column, value in where.items():
        frame = frame[frame[column] == value]
    return frame.reset_index(drop=True)


def check_command_and_api(root: Path, ratings: pd.DataFrame, a: str, b: str, **columns) -> None:
    """``debias estimate|compare|plan`` on the imported files and ``debias.estimate`` on the raw
    long table give the workflow's rows for the same systems."""
    import debias

    files = {s: str(next((root / "data/own/systems").glob(f"{s}.jsonl*"))) for s in (a, b)}
    pd.testing.assert_frame_equal(
        command_rows(root, "estimate", files[a]), workflow_rows(root, "system_estimates.csv", system=a)
    )
    # The adjusted p-values depend on the family: the pairs the command is given (here one, so
    # they are the raw p-value), all pairs of the task in the workflow.
    adjusted = ["p_holm", "p_bh"]
    pair = command_rows(root, "compare", files[a], files[b])
    assert (pair["p_holm"] == pair["p_value"]).all() and (pair["p_bh"] == pair["p_value"]).all()
    pd.testing.assert_frame_equal(
        pair.drop(columns=adjusted),
        workflow_rows(root, "system_comparisons.csv", system_a=a, system_b=b).drop(columns=adjusted),
    )
    pd.testing.assert_frame_equal(command_rows(root, "plan", files[a]), workflow_rows(root, "plan.csv", system=a))
    # the public API on the raw long table: the workflow's rows of its estimators, as written (%.6g)
    provided = columns.pop("scores")
    ours = debias.estimate(ratings[ratings[columns["system"]].isin([a, b])], scores=provided, **columns)
    ours = pd.read_csv(io.StringIO(ours.to_csv(index=False, float_format="%.6g")), dtype=str, keep_default_na=False)
    theirs = workflow_rows(root, "system_estimates.csv")
    theirs = theirs[theirs["system"].isin([a, b]) & theirs["estimator"].isin(set(ours["estimator"]))]
    keys = ["prompt", "system", "estimator"]
    numbers = ["n_judged", "n_outputs", "estimate", "ci_low", "ci_high", "effective_n"]
    ours, theirs = (f.sort_values(keys).reset_index(drop=True)[keys + numbers] for f in (ours, theirs))
    assert len(ours) == len(theirs) > 0
    pd.testing.assert_frame_equal(ours, theirs)


def test_mqm_like_evaluation(tmp_path):
    mqm_like(tmp_path / "mqm.tsv", systems=8, items=40)
    report = three_commands(
        tmp_path, tmp_path / "mqm.tsv", "--task", "own", "--item", "seg", "--system", "system",
        "--judgment", "mqm", "--rater", "rater", "--output", "target", "--reference-system", "Human ref",
        "--score", "comet", "--lower-is-better",
    )  # fmt: skip
    check_report(tmp_path, report, [f"sys-{s}" for s in range(7)])
    assert "one judgment per item" in report
    ratings = pd.read_csv(tmp_path / "mqm.tsv", sep="\t", quoting=3)
    check_command_and_api(
        tmp_path,
        ratings,
        "sys-0",
        "sys-3",
        item="seg",
        system="system",
        judgment="mqm",
        rater="rater",
        scores=["comet"],
    )


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
    ratings = pd.read_csv(tmp_path / "likert.csv")
    check_command_and_api(
        tmp_path, ratings, "m0", "m4", item="item", system="system", judgment="score", prompt="prompt", rater="rater",
        scores=[],
    )  # fmt: skip


def test_a_scores_only_table_runs_from_import_to_report(tmp_path):
    """A public evaluation's wide table (one column per rater, LLM-judge and metric scores, no
    texts), reshaped with one melt, imported into a new config: the task runs with its provided
    scores only, without any references file, and without a hand-written file."""
    rng = np.random.default_rng(23)
    wide = pd.DataFrame(
        [
            {"story": f"p{i:02d}", "model": f"model {s}", "quality": q, "judge": q + rng.normal(0, 0.5),
             **{f"rater{r}": float(np.clip(np.round(3 + q + rng.normal(0, 0.8)), 1, 5)) if (i + r) % 4 else np.nan
                for r in range(3)}}
            for s in range(3) for i, q in enumerate(rng.normal(0, 1, 30))
        ]
    ).drop(columns="quality")  # fmt: skip
    long = wide.melt(id_vars=["story", "model", "judge"], var_name="rater", value_name="rating")
    long.to_csv(tmp_path / "ratings.csv", index=False)
    config = tmp_path / "config.yaml"
    args = ["import", str(tmp_path / "ratings.csv"), "--task", "own", "--item", "story", "--system", "model",
            "--judgment", "rating", "--rater", "rater", "--score", "judge", "--scale", "1", "5",
            "--out", str(tmp_path / "data" / "own"), "--config", str(config)]  # fmt: skip
    assert main(args) == 0
    assert not list((tmp_path / "data" / "own").glob("references*"))
    settings = yaml.safe_load(config.read_text())
    settings["results_dir"] = "results"  # the test's folder, not the project's results/<task>
    settings |= {key: BASE[key] for key in ("bootstrap", "estimates", "compare", "plan")}
    config.write_text(yaml.safe_dump(settings))
    snakemake(tmp_path, "--configfile", str(config))
    report = (tmp_path / "results" / "report.md").read_text(encoding="utf-8")
    check_report(tmp_path, report, ["model 0", "model 1", "model 2"])


def test_two_tasks_with_their_own_metrics_run_together(tmp_path):
    """A task with texts (computed metrics) and a task with provided scores only, in one config:
    each gets its own metrics, the second needs no references, and every table and the report
    are made for both."""
    rows = likert_like(tmp_path / "likert.csv", systems=3, items=25)
    frame = pd.DataFrame(rows).assign(summary=lambda f: "summary " + f["item"].astype(str), ref="reference text")
    frame.to_csv(tmp_path / "likert.csv", index=False)
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(BASE))
    common = ["--item", "item", "--system", "system", "--judgment", "score", "--prompt", "prompt", "--rater", "rater",
              "--config", str(tmp_path / "config.yaml")]  # fmt: skip
    assert main(["import", str(tmp_path / "likert.csv"), "--task", "own", "--output", "summary", "--reference", "ref",
                 "--out", str(tmp_path / "data" / "own"), *common]) == 0  # fmt: skip
    assert main(["import", str(tmp_path / "likert.csv"), "--task", "scored", "--score", "bertscore",
                 "--out", str(tmp_path / "data" / "scored"), *common]) == 0  # fmt: skip
    config = yaml.safe_load((tmp_path / "config.yaml").read_text())
    assert config["tasks"]["own"]["metrics"] == ["bleu", "rouge1"]
    assert config["tasks"]["scored"]["metrics"] == ["bertscore"]
    snakemake(tmp_path, "--configfile", str(tmp_path / "config.yaml"))
    estimates = pd.read_csv(tmp_path / "results" / "tables" / "system_estimates.csv")
    used = estimates.groupby("task")["estimator"].agg(lambda e: sorted(set(e)))
    assert "cv:bertscore" in used["scored"] and "cv:bleu" not in used["scored"]
    assert "cv:bleu" in used["own"] and "cv:bertscore" not in used["own"]
    assert (tmp_path / "results" / "report.md").stat().st_size > 0


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))
