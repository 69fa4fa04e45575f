"""Best-metric selection: the highest |rho| wins (sign ignored), ties go to the first configured
metric, and a Figure 6 panel's metric is "chosen" only when the config says ``best``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from debias.tables.selection import BEST_METRIC_COLUMNS, best_metrics, panel_metric

METRICS = ["bleu", "rouge1", "rougeL", "meteor"]


def correlations(rows):
    return pd.DataFrame(rows, columns=["task", "prompt", "system", "metric", "rho"])


def test_highest_absolute_correlation_wins_and_negative_rho_counts_by_magnitude():
    table = correlations(
        [
            ("t", "p", "s", "bleu", 0.30),
            ("t", "p", "s", "rouge1", -0.55),
            ("t", "p", "s", "rougeL", 0.50),
            ("t", "p", "s", "meteor", np.nan),
            ("t", "p", "other", "bleu", 0.99),
        ]
    )
    best = best_metrics(table, METRICS)
    assert list(best.columns) == BEST_METRIC_COLUMNS
    row = best[best.system == "s"].iloc[0]
    assert (row["metric"], row["rho"]) == ("rouge1", -0.55)  # the signed rho is kept
    assert best[best.system == "other"]["metric"].tolist() == ["bleu"]


def test_only_the_listed_metrics_are_candidates():
    table = correlations([("t", "p", "s", "perfect", 1.0), ("t", "p", "s", "bleu", 0.2), ("t", "p", "s", "x", 0.9)])
    assert best_metrics(table, METRICS)["metric"].tolist() == ["bleu"]
    assert best_metrics(table, ["meteor"]).empty  # no candidate has a correlation


def test_ties_go_to_the_first_configured_metric_whatever_the_table_order():
    table = correlations(
        [("t", "p", "s", "rougeL", 0.4), ("t", "p", "s", "bleu", -0.4), ("t", "p", "s", "rouge1", 0.4)]
    )
    assert best_metrics(table, METRICS)["metric"].tolist() == ["bleu"]
    assert best_metrics(table, ["rougeL", "rouge1", "bleu"])["metric"].tolist() == ["rougeL"]


def test_one_row_per_task_prompt_system_including_combined():
    rows = [
        (task, prompt, system, metric, 0.1 * (i + 1))
        for task in ("t1", "t2")
        for prompt in ("p1", "p2")
        for system in ("a", "combined")
        for i, metric in enumerate(METRICS)
    ]
    best = best_metrics(correlations(rows), METRICS)
    assert len(best) == 8
    assert set(best["system"]) == {"a", "combined"}
    assert set(best["metric"]) == {"meteor"}


def test_panel_with_explicit_metric_is_not_chosen():
    best = pd.DataFrame([("t", "p", "s", "rouge1", 0.5)], columns=BEST_METRIC_COLUMNS)
    assert panel_metric({"task": "t", "prompt": "p", "system": "s", "metric": "bleu"}, best) == ("bleu", False)
    assert panel_metric({"task": "t", "prompt": "p", "system": "s", "metric": "best"}, best) == ("rouge1", True)


def test_best_panel_without_a_row_is_an_error_naming_the_cell():
    best = pd.DataFrame([("t", "p", "s", "rouge1", 0.5)], columns=BEST_METRIC_COLUMNS)
    with pytest.raises(LookupError, match="t/p/other"):
        panel_metric({"task": "t", "prompt": "p", "system": "other", "metric": "best"}, best)
