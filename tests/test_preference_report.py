"""The report of a preference task: people's agreement with each other beside the judges', the
reason a judge saves nothing, distinct markers for every estimator, counts in one unit."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from debias.data.pairs import JudgedPairs
from debias.plots import draw_preferences
from debias.report.preferences import PreferenceTables, preference_lines
from debias.tables.preferences import (
    agreement_table,
    human_agreement,
    judge_only_battles,
    preference_analysis,
    preference_summary,
)


def rated(n=240, raters=3, judges=("j1", "j2", "j3", "j4"), pool=0, seed=1):
    """Battles of four systems, each judged by ``raters`` people who agree 70% of the time with
    its true verdict, and ``judges`` that agree 80% of the time; ``pool`` more battles only the
    judges saw."""
    rng = np.random.default_rng(seed)
    total = n + pool
    a = rng.integers(0, 4, total)
    b = (a + 1 + rng.integers(0, 3, total)) % 4
    truth = rng.choice([1.0, 0.0, 0.5], total, p=[0.45, 0.35, 0.2])

    def noisy(p):
        return np.where(rng.random(total) < p, truth, rng.choice([1.0, 0.0, 0.5], total))

    counts = np.r_[np.full(n, raters), np.zeros(pool, dtype=int)]
    human = np.concatenate([noisy(0.7)[:n] for _ in range(raters)]).reshape(raters, n).T.ravel()
    verdicts = np.stack([noisy(0.8) for _ in judges], axis=1)
    return JudgedPairs(("s0", "s1", "s2", "s3"), a, b, human, counts, tuple(judges), verdicts)


def tables_of(pairs):
    analysis = preference_analysis(pairs, level=0.9)
    summary = json.loads(json.dumps(preference_summary(pairs, analysis)))
    return analysis.table, PreferenceTables("t", analysis.table, agreement_table(pairs, level=0.9), summary)


def report(pairs):
    config = {"preferences": {"t": {"label": "T", "battles": "b.csv"}}}
    return "\n".join(preference_lines(tables_of(pairs)[1], config, figures=set()))


def test_human_agreement_compares_every_pair_of_raters_of_a_battle():
    # battle 0: A, A; battle 1: A, B; battle 2: one tie (no pair); battle 3: no human verdict
    pairs = JudgedPairs(
        ("x", "y"),
        np.array([0, 0, 1, 0]),
        np.array([1, 1, 0, 1]),
        np.array([1.0, 1.0, 1.0, 0.0, 0.5]),
        np.array([2, 2, 1, 0]),
        ("j",),
        np.array([[1.0], [np.nan], [0.0], [1.0]]),
    )
    told = human_agreement(pairs)
    assert told["battles"] == 2 and told["rater_pairs"] == 2 and told["accuracy"] == 0.5
    # margins over the paired verdicts: A 3/4, B 1/4; p_e = 0.625
    assert told["kappa"] == pytest.approx((0.5 - 0.625) / 0.375)
    assert judge_only_battles(pairs) == {"j": 1}
    three = JudgedPairs(("x", "y"), np.array([0]), np.array([1]), np.array([1.0, 1.0, 0.5]), np.array([3]))
    assert human_agreement(three)["rater_pairs"] == 3 and human_agreement(three)["accuracy"] == pytest.approx(1 / 3)
    alone = JudgedPairs(("x", "y"), np.array([0]), np.array([1]), np.array([1.0]), np.array([1]))
    assert human_agreement(alone) == {"battles": 0, "rater_pairs": 0, "accuracy": None, "kappa": None}


def test_the_report_puts_people_against_people_beside_the_judges():
    pairs = rated(pool=200)
    told = human_agreement(pairs)
    assert 0.45 < told["accuracy"] < 0.75 and told["rater_pairs"] == 240 * 3
    text = report(pairs)
    assert f"two raters of the same battle agree on {told['accuracy']:.3f} of their 720 pairs" in text
    assert f"(Cohen's κ {told['kappa']:.3f})" in text and "| human verdicts compared |" in text
    single = JudgedPairs(
        pairs.systems,
        pairs.system_a,
        pairs.system_b,
        pairs.human_mean.round(0)[:240],
        np.r_[np.ones(240, int), np.zeros(200, int)],
        pairs.judges,
        pairs.judge_verdicts,
    )
    assert "How people agree with each other is not known here" in report(single)


def test_a_judge_without_judge_only_battles_is_told_why_it_saves_nothing():
    text = report(rated(pool=0))
    assert "no battle without a human verdict was judged by the judge" in text
    assert "no battle without a human verdict was judged by the judges" in text  # ppi++:combined
    assert "do not narrow the intervals" not in text
    with_pool = report(rated(pool=400))
    assert "no battle without a human verdict" not in with_pool


def test_every_estimator_of_the_figure_is_drawn_its_own_way():
    table, _ = tables_of(rated(pool=100, judges=tuple(f"j{k}" for k in range(9))))
    figure = draw_preferences(table)
    handles = figure.legends[0].legend_handles
    styles = [(h.get_color(), h.get_marker(), h.get_fillstyle()) for h in handles]
    assert len(styles) == 1 + 9 + 9 + 1 and len(set(styles)) == len(styles)
    labels = [h.get_label() for h in handles]
    assert styles[labels.index("ppi++:combined")] != styles[labels.index("human")]


def test_counts_of_the_tables_are_battles_for_every_estimator():
    full = rated(pool=100)
    verdicts = full.judge_verdicts.copy()
    verdicts[::3, 0] = np.nan
    verdicts[::5, 1] = np.nan
    pairs = JudgedPairs(
        full.systems, full.system_a, full.system_b, full.human, full.human_counts, full.judges, verdicts
    )
    table, _ = tables_of(pairs)
    battles = pd.Series(np.bincount(pairs.system_a, minlength=4) + np.bincount(pairs.system_b, minlength=4))
    for estimator in ("ppi++:j1", "ppi++:combined", "judge:j2"):
        rows = table[(table["estimator"] == estimator) & (table["estimand"] == "win_rate")]
        total = (rows["n_judge"] + rows["n_missing"]).to_numpy()
        np.testing.assert_array_equal(total, battles[rows["system"].str[1].astype(int)].to_numpy())
