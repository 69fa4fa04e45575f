"""A configuration with only the user's own task (no task of the paper's): the workflow's report
speaks about the user's systems, with intervals, comparisons, data efficiency and plans, and
says plainly what one judgment per item rules out."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import REPO, write_jsonl
from workflow_runs import snakemake, write_config

# A run of its own configuration from scratch.
pytestmark = [pytest.mark.workflow, pytest.mark.slow]

WORDS = "der die das Größe Grüße Flüchtlingshotel Straße schön über Bürger Mädchen wählen Stadt Haus".split()
SYSTEMS = [f"sys-{c}" for c in "ABCDEFGH"]


def mqm_like_task(root: Path, n_items: int = 60, seed: int = 5) -> None:
    """8 systems x ``n_items`` German outputs, one rater each, error scores 0-25 (lower is better)."""
    rng = np.random.default_rng(seed)
    references = [{"id": f"seg{i:03d}", "reference": " ".join(rng.choice(WORDS, 10))} for i in range(n_items)]
    write_jsonl(root / "data/mqm/references.jsonl", references)
    for s, system in enumerate(SYSTEMS):
        lines = []
        for ref in references:
            words = ref["reference"].split()
            keep = rng.random(len(words)) < 0.35 + 0.07 * s
            output = [w if k else str(rng.choice(WORDS)) for w, k in zip(words, keep)]
            errors = float(np.clip(round(25 * (1 - keep.mean()) + rng.normal(0, 3)), 0, 25))
            lines.append({"id": ref["id"], "output": " ".join(output), "judgments": {"mqm": [errors]}})
        write_jsonl(root / f"data/mqm/systems/{system}.jsonl", lines)


def user_config(repo: Path) -> dict:
    return {
        "data_dir": "data",
        "results_dir": "results",
        "nltk_data": str(repo / "nltk_data"),
        "metrics": {"bleu": {"label": "BLEU"}, "rouge1": {"label": "ROUGE-1"}, "rougeL": {"label": "ROUGE-L"}},
        "min_judged_items": 20,
        "tasks": {
            "mqm": {
                "label": "MQM en-de",
                "systems": {name: {"label": f"Übersetzer {name[-1]}"} for name in SYSTEMS},
                "prompts": {"mqm": {"label": "MQM errors", "min": 0, "max": 25, "higher_is_better": False}},
            }
        },
        "bootstrap": {"replicates": 40, "seed": 3, "level": 0.8, "de_range": [0.2, 0.9]},
        "estimates": {"level": 0.8, "sample_sizes": [20], "repeats": 30, "ppi": False},
        "compare": {"sample_sizes": [20], "repeats": 30, "de_n": 20},
        "plan": {"auto_n": [40], "check": {"pilots": 10, "pilot_size": 20, "n": 40}},
        "figures": {"figure5": {"mqm": "mqm"}},
    }


@pytest.fixture(scope="module")
def user_run(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("user")
    mqm_like_task(root)
    write_config(root, user_config(REPO))
    snakemake(root, "results/report.md")
    return root


def test_report_is_about_the_users_systems(user_run):
    text = (user_run / "results/report.md").read_text()
    assert text.startswith("# Evaluation report")
    for name in SYSTEMS:
        assert f"Übersetzer {name[-1]}" in text
    for paper in ("Paper vs reproduction", "CNN/Daily Mail", "MS MARCO", "within rounding", "numbers:"):
        assert paper not in text
    assert re.search(r"\b(nan|inf)\b", text, flags=re.IGNORECASE) is None
    assert "one judgment per item" in text
    for heading in ("Estimated mean human scores", "Paired comparisons", "Data efficiency", "Planning"):
        assert f"### {heading}" in text
    resolved = re.search(r"(\d+) of (\d+) differences resolved", text)
    assert resolved and int(resolved.group(2)) == len(SYSTEMS) * (len(SYSTEMS) - 1) // 2
    # every link of the page points at a file the workflow wrote
    for link in re.findall(r"\]\(([^)]+)\)", text):
        assert (user_run / "results" / link).is_file(), link


def test_one_judgment_per_item_tables_count_and_leave_out(user_run):
    table2 = pd.read_csv(user_run / "results/tables/table2.csv")
    assert table2[["n_items", "n_judgments"]].values.tolist() == [[480, 480]]
    assert table2["sigma2_a"].isna().all()
    assert "one judgment per item" in (user_run / "results/tables/table2.md").read_text()
    assert "one judgment per item" in (user_run / "results/logs/table2.log").read_text()
    efficiency = pd.read_csv(user_run / "results/tables/data_efficiency.csv")
    quiet = efficiency[efficiency["condition"].isin(["noiseless", "perfect"])]
    assert len(quiet) and quiet[["de", "de_theory"]].isna().all().all()
    assert np.isfinite(efficiency.loc[efficiency["condition"] == "cv", "de"]).all()
    # the blank attenuation-corrected correlations are counted and explained in the log
    correlations = pd.read_csv(user_run / "results/tables/correlations.csv")
    blank = int(correlations["rho_corrected"].isna().sum())
    assert blank == len(correlations) > 0
    log = (user_run / "results/logs/correlations.log").read_text()
    assert f"mqm/mqm: rho_corrected blank in {blank} of {blank} rows: no output judged twice" in log
