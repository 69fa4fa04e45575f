"""Which sections the report has: the user's own tasks lead, the paper's numbers appear only for
the paper's tasks, and a system or pair without metric scores says why it has only `mean`."""

from __future__ import annotations

import copy
import re

import pandas as pd
import pytest
from conftest import PAPER_CONFIG, REPO
from test_report import tables

from debias.report import build_report, load_paper_values

USER_TASK = {
    "label": "Likert study",
    "systems": {"alpha": {"label": "Alpha"}, "beta": {"label": "Beta"}},
    "reference_system": "human",
    "prompts": {"quality": {"label": "Quality", "min": 1, "max": 5}},
}


@pytest.fixture(scope="module")
def paper():
    return load_paper_values(REPO / "data/paper/reported_values.yaml")


def user_tables():
    """The user task's rows: `human` (the reference) has no metric scores, so only `mean`."""
    estimates, comparisons = [], []
    for system, value in (("alpha", 3.2), ("beta", 3.6), ("human", 4.4)):
        for estimator in ["mean"] + ([] if system == "human" else ["cv:bleu"]):
            estimates.append(
                {"task": "likert", "prompt": "quality", "system": system, "estimator": estimator}
                | {"n_judged": 50, "n_outputs": 50, "estimate": value, "ci_low": value - 0.2, "ci_high": value + 0.2}
                | {"level": 0.8, "effective_n": 50.0 if estimator == "mean" else 61.0}
            )
    for a, b, d in (("alpha", "beta", 0.4), ("alpha", "human", 1.2), ("beta", "human", 0.1)):
        for estimator in ["mean"] + ([] if "human" in (a, b) else ["cv:bleu"]):
            comparisons.append(
                {"task": "likert", "prompt": "quality", "system_a": a, "system_b": b, "estimator": estimator}
                | {"n_shared": 50, "difference": d, "p_value": 0.01}
                # the metric narrows the difference's interval: the report names it
                | ({"ci_low": d - 0.3, "ci_high": d + 0.3, "de_vs_independent": 1.4} if estimator == "mean" else {})
                | ({"ci_low": d - 0.2, "ci_high": d + 0.2, "de_vs_independent": 1.9} if estimator != "mean" else {})
            )
    table2 = pd.DataFrame(
        [
            {"task": "likert", "prompt": "quality", "sigma2_a": 0.4, "sigma2_f": 0.6, "gamma": 0.667}
            | {"sigma2_f_unbiased": 0.5, "gamma_unbiased": 0.8, "n_items": 150, "n_judgments": 450}
        ]
    )
    return table2, pd.DataFrame(estimates), pd.DataFrame(comparisons)


def report(paper, config, with_paper_tables: bool):
    t2, corr, best, de = tables() if with_paper_tables else (pd.DataFrame(columns=["task", "prompt"]),) * 4
    user_t2, estimates, comparisons = user_tables()
    return build_report(
        pd.concat([t2, user_t2], ignore_index=True),
        corr,
        best,
        de,
        paper,
        config,
        figures=[],
        system_estimates=estimates,
        comparisons=comparisons,
    )


def test_a_user_only_report_says_why_the_reference_has_only_the_mean(paper):
    config = {"metrics": {"bleu": {"label": "BLEU"}}, "tasks": {"likert": USER_TASK}, "figures": {}}
    text = report(paper, config, with_paper_tables=False)
    assert text.startswith("# Evaluation report") and "Reproduction report" not in text
    assert "no metric scores: human is the reference system" in text
    rows = {line.split("|")[1].strip(): line for line in text.splitlines() if line.startswith("|") and " − " in line}
    assert "cv:bleu" in rows["Beta − Alpha"] and rows["Beta − Alpha"].endswith("| yes |")
    assert "no metric scores: human is the reference system" in rows["human − Beta"]
    assert rows["human − Beta"].endswith("| no |")
    assert "2 of 3 differences resolved" in text
    assert re.search(r"\b(nan|inf)\b", text, flags=re.IGNORECASE) is None


def test_a_mixed_config_leads_with_the_users_task_and_keeps_the_paper_sections_to_the_papers(paper):
    config = copy.deepcopy(PAPER_CONFIG)
    config["tasks"]["likert"] = USER_TASK
    text = report(paper, config, with_paper_tables=True)
    own, reproduction = text.split("# Reproduction report", 1)
    assert own.startswith("# Evaluation report") and "## Likert study" in own
    assert "Likert study" not in reproduction and "Alpha" not in reproduction
    header = re.search(r"\*\*(\d+) numbers:", reproduction)
    assert header and "CNN/Daily Mail" in reproduction


def test_the_papers_own_config_gets_the_reproduction_report_alone(paper):
    t2, corr, best, de = tables()
    text = build_report(t2, corr, best, de, paper, PAPER_CONFIG, figures=[])
    assert text.startswith("# Reproduction report") and "# Evaluation report" not in text
