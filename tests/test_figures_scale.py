"""Figures stay readable with many systems: nothing drawn off the canvas, no tick labels on top
of each other; what cannot be drawn (one judgment per item) is said in the figure."""

from itertools import combinations

import numpy as np
import pandas as pd
import pytest

from debias.plots import draw_comparisons, draw_figure3, draw_figure5, draw_leaderboard, draw_system_scores
from debias.plots.figure5 import UNCORRECTED_NOTE

N_SYSTEMS = 20
METRICS = ["bleu", "chrf", "chrf++", "rouge1", "rouge2", "rougeL", "ter", "comet"]


def config(prompts):
    return {
        "metrics": {m: {"label": m.upper()} for m in METRICS},
        "tasks": {
            "t": {
                "label": "WMT MQM news en-de, document-level human evaluation",
                "systems": {f"s{i}": {"label": f"Online-Translator-{i:02d}"} for i in range(N_SYSTEMS)},
                "prompts": {p: {"label": p.title()} for p in prompts},
            }
        },
    }


def estimates(prompts):
    rng = np.random.default_rng(0)
    rows = []
    for prompt in prompts:
        for i in range(N_SYSTEMS):
            for estimator, half in [("mean", 0.3), ("cv:chrf", 0.2 if i % 2 else 0.299)]:  # odd systems: cv helps
                m = rng.normal()
                rows.append(
                    {"task": "t", "prompt": prompt, "system": f"s{i}", "estimator": estimator, "estimate": m}
                    | {"ci_low": m - half, "ci_high": m + half, "level": 0.8, "n_judged": 60, "n_outputs": 60}
                )
    return pd.DataFrame(rows)


def comparisons(prompts):
    rows = []
    for prompt in prompts:
        for a, b in combinations(range(N_SYSTEMS), 2):
            for estimator in ["mean", "cv:chrf"]:
                rows.append(
                    {"task": "t", "prompt": prompt, "system_a": f"s{a}", "system_b": f"s{b}", "estimator": estimator}
                    | {"n_shared": 60, "difference": 0.1 * (b - a), "ci_low": 0.1 * (b - a) - 0.2}
                    | {"ci_high": 0.1 * (b - a) + 0.2, "p_value": 0.1, "de_vs_independent": 1.23}
                )
    return pd.DataFrame(rows)


def correlations(prompt, corrected=True):
    rng = np.random.default_rng(1)
    rows = []
    for system in [f"s{i}" for i in range(N_SYSTEMS)] + ["combined"]:
        for metric in METRICS:
            rho = rng.uniform(-0.5, 0.8)
            rows.append(
                {"task": "t", "prompt": prompt, "system": system, "metric": metric, "rho": rho}
                | {"rho_corrected": rho * 1.1 if corrected else np.nan, "n_items": 60}
            )
    return pd.DataFrame(rows)


def assert_readable(fig):
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    box, canvas = fig.get_tightbbox(renderer), fig.bbox_inches
    assert box.x0 >= canvas.x0 - 1e-6 and box.y0 >= canvas.y0 - 1e-6, (box, canvas)
    assert box.x1 <= canvas.x1 + 1e-6 and box.y1 <= canvas.y1 + 1e-6, (box, canvas)
    for ax in fig.axes:
        for labels in (ax.get_xticklabels(), ax.get_yticklabels()):
            boxes = [label.get_window_extent(renderer) for label in labels if label.get_visible() and label.get_text()]
            for first, second in combinations(boxes, 2):
                overlap_w = min(first.x1, second.x1) - max(first.x0, second.x0)
                overlap_h = min(first.y1, second.y1) - max(first.y0, second.y0)
                assert overlap_w <= 0.5 or overlap_h <= 0.5, (first, second)


@pytest.mark.parametrize("prompts", [["quality"], ["fluency", "adequacy", "overall"]])
def test_system_scores_of_twenty_systems_fit_the_canvas(prompts):
    fig = draw_system_scores(estimates(prompts), config(prompts), "t")
    assert_readable(fig)
    # the report's rule: a 0.3% narrower interval is no help, a third narrower one is drawn
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert texts.count("no metric helps") == texts.count("CHRF") == len(prompts) * N_SYSTEMS // 2
    assert fig.get_size_inches()[1] > 0.4 * N_SYSTEMS


def test_comparisons_of_twenty_systems_fit_the_canvas():
    prompts = ["quality"]
    fig = draw_comparisons(comparisons(prompts), config(prompts), "t", 0.8)
    assert_readable(fig)
    assert fig.get_size_inches()[1] > 0.25 * N_SYSTEMS * (N_SYSTEMS - 1) / 2


def test_figure5_of_twenty_systems_grows_and_turns_its_labels():
    fig = draw_figure5(correlations("quality"), config(["quality"]), "t", "quality")
    assert_readable(fig)
    assert fig.get_size_inches()[0] > 0.5 * N_SYSTEMS
    assert UNCORRECTED_NOTE.split()[0] not in fig.axes[0].get_title()


def test_figure5_of_one_judgment_per_item_draws_pearson_and_says_so():
    fig = draw_figure5(correlations("quality", corrected=False), config(["quality"]), "t", "quality")
    assert_readable(fig)
    title = " ".join(fig.axes[0].get_title().split())
    assert "not identifiable" in title and "Pearson" in title
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "n/a" not in texts and len(texts) == len(METRICS) * (N_SYSTEMS + 1)


def test_figure3_names_the_prompts_it_cannot_place():
    cfg = config(["quality", "fluency"])
    table2 = pd.DataFrame(
        [
            {"task": "t", "prompt": "quality", "gamma": np.nan, "n_items": 600, "n_judgments": 600},
            {"task": "t", "prompt": "fluency", "gamma": 0.8, "n_items": 600, "n_judgments": 1800},
        ]
    )
    best_metrics = pd.DataFrame(
        [{"task": "t", "prompt": p, "system": "combined", "metric": "chrf", "rho": 0.4} for p in ("quality", "fluency")]
    )
    fig = draw_figure3(table2, best_metrics, cfg)
    assert_readable(fig)
    title = " ".join(fig.axes[0].get_title().split())
    assert "Quality: one judgment per item, so γ is not identifiable" in title
    assert "Fluency:" not in title


def test_leaderboard_of_thirty_systems_fits_the_canvas_with_ranks_in_order():
    rng = np.random.default_rng(2)
    n, rows = 30, []
    cfg = config(["quality", "fluency"])
    cfg["tasks"]["t"]["systems"] = {f"s{i}": {"label": f"Online-Translator-{i:02d}"} for i in range(n)}
    for prompt in ("quality", "fluency"):
        for estimator, half in (("mean", 0.3), ("cv:chrf", 0.2)):
            value = np.sort(rng.normal(size=n))[::-1]
            for i in range(n):
                low, high = max(1, i + 1 - int(half * 10)), min(n, i + 1 + int(half * 10))
                rows.append(
                    {"task": "t", "prompt": prompt, "system": f"s{i}", "estimator": estimator, "estimate": value[i]}
                    | {"lower": value[i] - half, "upper": value[i] + half, "rank": i + 1, "rank_low": low}
                    | {"rank_high": high, "level": 0.8, "tied_with": "", "note": ""}
                )
    fig = draw_leaderboard(pd.DataFrame(rows), cfg, "t")
    assert_readable(fig)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    ticks = list(fig.axes[0].get_yticks())
    top_first = [label for _, label in sorted(zip(ticks, labels), reverse=True)]
    assert top_first == [f"Online-Translator-{i:02d}" for i in range(n)]  # best at the top
    assert "cv:chrf" in fig.axes[1].get_title()  # the narrower rank-sets drawn beside the mean
