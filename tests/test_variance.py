"""Variance estimators on synthetic judgments whose true variances are known."""

import numpy as np
import pytest

from debias.io import SystemItem
from debias.joined import join_system, judgment_matrix
from debias.variance import (
    annotator_variance,
    human_metric_variance,
    human_metric_variance_unbiased,
    pooled_judged_rows,
    table2,
    variance_components,
)


def simulate(n_items, counts, sigma2_f, sigma2_a, seed=0):
    rng = np.random.default_rng(seed)
    f = rng.normal(0.3, np.sqrt(sigma2_f), n_items)
    k = rng.choice(counts, n_items)
    matrix = np.full((n_items, max(counts)), np.nan)
    for i in range(n_items):
        matrix[i, : k[i]] = f[i] + rng.normal(0, np.sqrt(sigma2_a), k[i])
    return matrix


def test_annotator_variance_recovers_truth_with_mixed_counts():
    m = simulate(20000, [2, 3, 5], sigma2_f=0.2, sigma2_a=0.3)
    assert annotator_variance(m) == pytest.approx(0.3, rel=0.02)


def test_item_mean_variance_contains_annotator_noise_and_unbiased_removes_it():
    m = simulate(20000, [2], sigma2_f=0.2, sigma2_a=0.3, seed=1)
    # the variance of means of two judgments is σ_f² + σ_a²/2
    assert human_metric_variance(m) == pytest.approx(0.2 + 0.3 / 2, rel=0.03)
    assert human_metric_variance_unbiased(m) == pytest.approx(0.2, rel=0.05)


def test_components_and_gamma():
    m = simulate(20000, [2, 3], sigma2_f=0.5, sigma2_a=0.25, seed=2)
    c = variance_components(m)
    assert c["gamma_unbiased"] == pytest.approx(0.5, rel=0.06)
    assert c["gamma"] == pytest.approx(c["sigma2_a"] / c["sigma2_f"])
    assert c["n_items"] == 20000


def test_single_judgment_items_are_left_out():
    m = np.array([[1.0, np.nan], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0]])
    # only the last three rows count: deviations 0.25+0.25, 0, 0 over 3 degrees of freedom
    assert annotator_variance(m) == pytest.approx(0.5 / 3)
    assert variance_components(m)["n_judgments"] == 6


def test_hand_computed_example():
    m = np.array([[1.0, -1.0], [1.0, 1.0], [0.0, np.nan]])
    assert annotator_variance(m) == pytest.approx(2.0 / 2)  # (1+1 + 0) / (1 + 1)
    assert human_metric_variance(m) == pytest.approx(np.var([0.0, 1.0], ddof=1))


def test_shared_judgments_pool_once_and_same_text_alone_does_not():
    a = [
        SystemItem("1", "same text", {"p": [1.0, 0.0]}, judged_output="shared:1"),
        SystemItem("2", "x", {"p": [1.0, 1.0]}),
    ]
    b = [
        SystemItem("1", "same text", {"p": [1.0, 0.0]}, judged_output="shared:1"),
        SystemItem("2", "x", {"p": [0.0, 0.0]}),
    ]
    systems = {name: join_system("t", name, items, ["p"], None, []) for name, items in {"a": a, "b": b}.items()}
    pooled = pooled_judged_rows(systems, "p")
    # the shared judgment counts once; the two "x" lines were judged separately and both count
    assert len(pooled) == 3
    assert judgment_matrix(pooled).shape == (3, 2)
    assert sorted(pooled["mean_judgment"]) == [0.0, 0.5, 1.0]


def test_table2_on_released_data_is_close_to_the_paper(repo):
    """Checks the estimator definitions against the published table (±0.02, the paper's rounding)."""
    import yaml

    from debias.inputs import load_task

    config = yaml.safe_load((repo / "config/config.yaml").read_text())
    config["data_dir"] = str(repo / "data")
    prompts = {t: list(spec["prompts"]) for t, spec in config["tasks"].items()}
    joined = {
        task: {
            system: join_system(task, system, items, prompts[task], None, [])
            for system, items in load_task(config, task)[1].items()
        }
        for task in config["tasks"]
    }
    table = table2(joined, prompts).set_index(["task", "prompt"])
    paper = yaml.safe_load((repo / "data/paper/reported_values.yaml").read_text())
    rows = paper_table2_rows(paper)
    assert len(rows) == 6
    for (task, prompt), (sigma2_a, sigma2_f) in rows.items():
        assert abs(table.loc[(task, prompt), "sigma2_a"] - sigma2_a) <= 0.02, (task, prompt)
        assert abs(table.loc[(task, prompt), "sigma2_f"] - sigma2_f) <= 0.02, (task, prompt)


def paper_table2_rows(paper):
    """(task, prompt) -> (σ_a², σ_f²) from the paper's reported values file."""
    rows = {}
    for entry in paper["table2"]:
        rows[(entry["task"], entry["prompt"])] = (entry["sigma2_a"], entry["sigma2_f"])
    return rows
