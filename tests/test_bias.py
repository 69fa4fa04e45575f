"""Table 1 and Figure 1 (where metrics and humans disagree), on hand-made cases and on the released data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml

from debias.config.tasks import load_task, references_path
from debias.io.canonical import SystemItem, iter_json_lines
from debias.metrics import score_outputs
from debias.stats.ratings.metric_correlation import attenuation_corrected_correlation, correlation
from debias.tables.bias import bias_quadrants, instance_correlations, system_level_points, unique_responses
from debias.tables.joined import join_system


def scores_of(items, values):
    return pd.DataFrame({"id": [i.id for i in items], "m": values})


def test_shared_responses_count_once_with_every_system():
    shared = {"p": [1.0, 0.0, 1.0]}
    a = [SystemItem("1", "yes", shared, "line:3"), SystemItem("2", "no", {"p": [0.0, 0.0]})]
    b = [SystemItem("1", "yes", shared, "line:3"), SystemItem("2", "no", {"p": [1.0]}), SystemItem("3", "z", {})]
    refs = {"1": "yes", "2": "maybe", "3": "z"}
    frame = unique_responses({"b": b, "a": a}, refs, "p", {"a": scores_of(a, [1.0, 0.0]), "b": scores_of(b, [1, 0, 1])})
    assert frame[["id", "systems", "n_judgments"]].values.tolist() == [["1", "a;b", 3], ["2", "a", 2], ["2", "b", 1]]
    assert frame["mean_judgment"].tolist() == pytest.approx([2 / 3, 0.0, 1.0])
    assert frame["m"].tolist() == [1.0, 0.0, 0.0]
    assert len(unique_responses({"a": a, "b": b}, refs, "p", ids={"2"})) == 2


def test_quadrants_count_and_pick_the_clearest_example():
    responses = pd.DataFrame(
        {
            "id": list("abcdef"),
            "systems": ["s"] * 6,
            "input": "",
            "reference": "r",
            "output": "o",
            "n_judgments": 2,
            "mean_judgment": [1.0, 0.5, 0.0, 1.0, 0.0, np.nan],
            "m": [0.9, 0.6, 0.7, 0.1, 0.5, 0.8],
        }
    )
    table = bias_quadrants(responses, 0.5, "m", 0.5)
    # a, b good & high; c and f (no usable vote) bad & high; d good & low; e (0.5 is not > 0.5) bad & low.
    assert table["count"].tolist() == [2, 2, 1, 1]
    assert table["percent"].tolist() == pytest.approx([100 * 2 / 6, 100 * 2 / 6, 100 / 6, 100 / 6])
    assert table["example_id"].tolist() == ["a", "f", "d", "e"]
    lower = bias_quadrants(responses, 0.3, None, higher_is_better=False)
    assert lower[["judgment", "count"]].values.tolist() == [["good", 2], ["bad", 4]]


def test_attenuation_corrected_correlation_hand_computed():
    judgments = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 0.0], [1.0, np.nan]])
    g = np.array([0.5, 1.0, 0.0, 0.5])
    # σ_a² = (0.25 + 0.25) / (6 - 3) = 1/6; variance of the six judgments (ddof 1) = 0.3;
    # σ_f² = 0.3 - 1/6 = 2/15. Means 0.5, 1, 0, 1: Cov (ddof 0) = 1.75 / 4 - 0.625 * 0.5 = 0.125;
    # sd(g) (ddof 1) = sqrt(1/6).
    expected = 0.125 / (np.sqrt(2 / 15) * np.sqrt(1 / 6))
    assert attenuation_corrected_correlation(judgments, g) == pytest.approx(expected)
    assert attenuation_corrected_correlation(judgments, g, sigma2_f=0.25) == pytest.approx(
        0.125 / (0.5 * np.sqrt(1 / 6))
    )
    assert np.isnan(attenuation_corrected_correlation(judgments, np.ones(4)))


def test_corrected_correlation_undoes_annotator_noise_that_attenuates_pearson():
    rng = np.random.default_rng(7)
    n, rho = 20000, 0.5
    f = rng.standard_normal(n)
    g = rho * f + np.sqrt(1 - rho**2) * rng.standard_normal(n)
    judgments = f[:, None] + rng.standard_normal((n, 2))  # σ_a² = 1 = σ_f²
    assert correlation(judgments.mean(axis=1), g) == pytest.approx(rho / np.sqrt(1.5), abs=0.02)
    assert attenuation_corrected_correlation(judgments, g) == pytest.approx(rho, abs=0.02)


def test_instance_correlations_and_system_points():
    rng = np.random.default_rng(3)
    items = [SystemItem(str(i), "o", {"p": list(rng.integers(0, 2, 3).astype(float))}) for i in range(60)]
    scores = pd.DataFrame(
        {"id": [i.id for i in items], "m": [np.mean(i.judgments["p"]) + rng.normal(0, 0.3) for i in items]}
    )
    frame = join_system("t", "s", items, ["p"], scores, ["m"])
    table = instance_correlations(frame, "p", ["m"]).set_index("definition")
    assert table.loc["item_means", "rho"] == pytest.approx(correlation(frame["mean_judgment"], frame["m"]))
    assert table.loc["per_judgment", "n"] == 180 and table.loc["own_lines", "n"] == 60
    points, _ = system_level_points({"s": frame}, "p", "m", level=0.8, replicates=200, seed=1)
    (point,) = points
    assert point.judgment_low < point.judgment < point.judgment_high
    assert point.metric == pytest.approx(frame["m"].mean())
    again, _ = system_level_points({"s": frame}, "p", "m", level=0.8, replicates=200, seed=1)
    assert again == points


@pytest.fixture(scope="module")
def released(repo_root):
    config = yaml.safe_load((repo_root / "config/config.yaml").read_text())
    config["data_dir"] = str(repo_root / "data")
    return config


@pytest.fixture(scope="module")
def repo_root():
    from pathlib import Path

    return Path(__file__).resolve().parent.parent


def test_table1a_counts_on_the_released_msmarco_data(released, repo_root):
    """Table 1(a): 1,455 responses; a null vote is no vote (the released AnyCorrect label); ROUGE-L
    of rouge 0.2.1 on NLTK tokens with case kept. The four counts are the paper's exactly."""
    task = released["tasks"]["msmarco"]
    released["tasks"]["msmarco"] = {
        **task,
        "prompts": {p: {**spec, "null_as": float("nan")} for p, spec in task["prompts"].items()},
    }
    references, systems = load_task(released, "msmarco", list(task["systems"]))
    scores = {}
    for system, items in systems.items():
        frame = score_outputs([i.output for i in items], [references[i.id] for i in items], metrics={"m": "rouge021-L"})
        scores[system] = frame.assign(id=[i.id for i in items])
    inputs = {r["id"]: r["input"] for _, r in iter_json_lines(references_path(released, "msmarco"))}
    responses = unique_responses(systems, references, "any_correct", scores, inputs)
    table = bias_quadrants(responses, 0.5, "m", 0.5)
    paper = yaml.safe_load((repo_root / "data/paper/reported_values.yaml").read_text())["table1"]
    (expected,) = [entry for entry in paper if entry["task"] == "msmarco"]
    assert len(responses) == expected["total"]
    assert table["count"].tolist() == [cell["count"] for cell in expected["cells"]]
    assert table["percent"].round(1).tolist() == [cell["percent"] for cell in expected["cells"]]
    assert all(table["example_input"].str.len() > 0)


def test_table1b_edit_split_on_the_released_cnndm_data(released, repo_root):
    """Table 1(b) as configured: CNN/Daily Mail responses to articles with a judged reference,
    split by Edit < 0.3 alone (the paper's VecSim cannot be computed): 1,368 / 632 of 2,000."""
    from debias.tables.table1 import table1_panel

    spec = released["table1"]["b"]
    table = table1_panel("b", spec, released)
    paper = yaml.safe_load((repo_root / "data/paper/reported_values.yaml").read_text())["table1"]
    (expected,) = [entry for entry in paper if entry["task"] == "cnndm"]
    good = sum(c["count"] for c in expected["cells"] if c["judgment"] == "good")
    assert table["panel"].eq("b").all() and table["metric"].eq("").all()
    assert table["total"].iloc[0] == expected["total"]
    assert table["judgment"].tolist() == ["good", "bad"]
    assert table["count"].tolist() == [good, expected["total"] - good]
    # Without the judged-reference rule the pilot articles come in and the total moves.
    wider = table1_panel("b", {**spec, "require_judged_reference": False}, released)
    assert wider["total"].iloc[0] > expected["total"]
