"""One judgment per item: σ_a² is not identifiable, and every table says so instead of NaN
rows that count nothing; mixed data uses the items judged several times."""

import logging

import numpy as np
import pandas as pd
import pytest

from debias.io.canonical import SystemItem
from debias.stats.ratings.theory import theory_by_condition
from debias.stats.ratings.variance import ONE_JUDGMENT_PER_ITEM, variance_components, variance_note
from debias.tables.curves import NOT_IDENTIFIABLE, system_experiment
from debias.tables.joined import join_system
from debias.tables.variance import TABLE2_COLUMNS, noted_rows, table2, variance_by_system

#: The intervals' nominal coverage in these checks.
LEVEL = 0.8


def system(name, judgments, seed=0):
    """A joined table of one system on prompt ``p`` with one metric ``m`` tracking the judgments."""
    rng = np.random.default_rng(seed)
    items = [SystemItem(str(i), f"out {i}", {"p": list(js)}) for i, js in enumerate(judgments)]
    means = np.array([np.mean(js) for js in judgments])
    scores = pd.DataFrame({"id": [item.id for item in items], "m": means + rng.normal(0, 0.5, len(items))})
    return join_system("t", name, items, ["p"], scores, ["m"])


def test_one_judgment_per_item_counts_the_items_and_says_why():
    components = variance_components([[1.0], [2.0], [4.0]])
    assert np.isnan(components["sigma2_a"]) and np.isnan(components["gamma"])
    assert (components["n_items"], components["n_judgments"]) == (3, 3)
    assert components["note"] == ONE_JUDGMENT_PER_ITEM
    assert variance_components([[1.0, 2.0], [2.0, 2.0]])["note"] == ""
    assert variance_note(0, 0, 0) == "no judged item"
    assert "σ_f²" in variance_note(5, 6, 1)


def test_mixed_data_uses_the_items_judged_several_times():
    components = variance_components([[1.0], [0.0, 2.0], [3.0, 3.0, 3.0], [5.0]])
    # only the two multiply judged items: deviations 1 + 1 and 0 over (1 + 2) degrees of freedom
    assert components["sigma2_a"] == pytest.approx(2.0 / 3.0)
    assert (components["n_items"], components["n_judgments"], components["note"]) == (2, 5, "")


def test_table2_and_variance_by_system_of_one_judgment_data():
    rng = np.random.default_rng(1)
    joined = {"t": {s: system(s, rng.integers(0, 26, (30, 1)).astype(float), seed=i) for i, s in enumerate("ab")}}
    table = table2(joined, {"t": ["p"]}, with_note=True)
    row = table.iloc[0]
    assert (row["n_items"], row["n_judgments"], row["note"]) == (60, 60, ONE_JUDGMENT_PER_ITEM)
    assert np.isnan(row["sigma2_a"])
    # the table written to CSV keeps the paper's columns
    assert list(table2(joined, {"t": ["p"]}).columns) == TABLE2_COLUMNS
    by_system = variance_by_system(joined, {"t": ["p"]}, with_note=True)
    assert by_system["n_items"].tolist() == [30, 30] and set(by_system["note"]) == {ONE_JUDGMENT_PER_ITEM}
    assert "note" not in variance_by_system(joined, {"t": ["p"]}).columns
    assert noted_rows(by_system, ["task", "system", "prompt"]) == [
        f"t/a/p: {ONE_JUDGMENT_PER_ITEM}",
        f"t/b/p: {ONE_JUDGMENT_PER_ITEM}",
    ]


def test_theory_of_noiseless_and_perfect_is_not_identifiable_without_annotator_noise():
    unknown = theory_by_condition(0.6, 0.0, annotator_noise_known=False)
    assert unknown["cv"] == pytest.approx(1 / (1 - 0.36))
    assert np.isnan(unknown["noiseless"]) and np.isnan(unknown["perfect"])
    assert theory_by_condition(0.6, 0.0)["perfect"] == np.inf  # known to be noiseless: a perfect metric is exact
    assert np.isnan(theory_by_condition(0.6, float("nan"))["perfect"])
    assert theory_by_condition(0.6, 0.5)["perfect"] == pytest.approx(3.0)


def test_bootstrap_marks_noiseless_and_perfect_not_identifiable_with_one_judgment(caplog):
    rng = np.random.default_rng(2)
    frame = system("a", rng.normal(0, 1, (80, 1)))
    with caplog.at_level(logging.WARNING):
        curves, efficiency = system_experiment(frame, prompts=["p"], metrics=["m"], replicates=40, seed=3, level=LEVEL)
    assert NOT_IDENTIFIABLE in caplog.text
    assert set(curves["condition"]) == {"mean", "cv"}
    by_condition = efficiency.set_index("condition")
    for condition in ("noiseless", "perfect"):
        assert np.isnan(by_condition.loc[condition, ["de", "de_theory", "gamma_resampling"]].astype(float)).all()
    assert np.isfinite(by_condition.loc["cv", ["de", "de_theory"]].astype(float)).all()


def test_bootstrap_keeps_every_condition_when_some_items_have_two_judgments():
    rng = np.random.default_rng(4)
    judgments = [list(rng.normal(0, 1, 2 if i % 4 == 0 else 1)) for i in range(80)]
    curves, efficiency = system_experiment(
        system("a", judgments), prompts=["p"], metrics=["m"], replicates=40, seed=3, level=LEVEL
    )
    assert set(curves["condition"]) == {"mean", "cv", "noiseless", "perfect"}
    assert np.isfinite(efficiency["de"]).all()


def _estimates_frame():
    """System a judged on 8 items, b on 2, c on 5 that all got a 5."""
    return pd.DataFrame(
        {
            "seg": [f"s{i}" for i in range(8)] + ["s0", "s1"] + [f"s{i}" for i in range(5)],
            "sys": ["a"] * 8 + ["b"] * 2 + ["c"] * 5,
            "score": [3, 4, 2, 5, 4, 3, 4, 2] + [4, 5] + [5] * 5,
            "bleu": [0.3, 0.5, 0.2, 0.7, 0.4, 0.3, 0.5, 0.2] + [0.5, 0.6] + [0.1, 0.2, 0.3, 0.4, 0.5],
        }
    )


def test_estimates_of_few_or_identical_judgments_give_the_mean_and_say_why_there_is_no_interval():
    import debias

    table = debias.estimate(_estimates_frame(), item="seg", system="sys", judgment="score", scores=["bleu"])
    a, b, c = (table[table["system"] == s] for s in "abc")
    assert a["note"].eq("").all() and (a["ci_high"] > a["ci_low"]).all()
    (row,) = b.itertuples()  # one row: the mean of what was judged, no interval
    assert (row.estimator, row.n_judged, row.estimate) == ("mean", 2, 4.5)
    assert np.isnan(row.ci_low) and np.isnan(row.ci_high)
    assert row.note == "2 judged items (an interval needs at least 3): no interval"
    assert len(c) == 2 and (c["estimate"] == 5.0).all() and c["ci_low"].isna().all() and c["ci_high"].isna().all()
    assert c["note"].eq("every judged item's mean score is 5: no interval").all()


def test_a_leaderboard_does_not_rank_a_system_whose_judgments_do_not_vary():
    import debias

    board = debias.leaderboard(_estimates_frame(), item="seg", system="sys", judgment="score", scores=["bleu"])
    c = board[board["system"] == "c"]
    assert c["rank"].isna().all()
    assert c["note"].str.startswith("every judged item's mean score is 5: no interval, not ranked").all()
    a = board[board["system"] == "a"]
    assert (a["rank"] == 1).all()


def _estimates_as_read(tmp_path) -> pd.DataFrame:
    """The estimates of :func:`_estimates_frame` written as the workflow writes them and read back."""
    import debias
    from debias.io.atomic import write_csv

    table = debias.estimate(_estimates_frame(), item="seg", system="sys", judgment="score", scores=["bleu"])
    write_csv(table, tmp_path / "system_estimates.csv")
    return pd.read_csv(tmp_path / "system_estimates.csv")


def test_the_report_gives_the_reason_beside_a_mean_without_an_interval(tmp_path):
    from debias.report.context import ReportContext
    from debias.report.user_tables import estimate_lines

    table = _estimates_as_read(tmp_path)
    config = {"tasks": {"evaluation": {"prompts": {"score": {}}, "systems": {s: {} for s in "abc"}}}}
    empty = pd.DataFrame()
    context = ReportContext(empty, empty, empty, empty, {}, config, frozenset(), "figures", "tables", table)
    lines = "\n".join(estimate_lines(context, "evaluation"))
    assert "5.000 (every judged item's mean score is 5: no interval)" in lines
    assert "4.500 (2 judged items (an interval needs at least 3): no interval)" in lines
    assert "not computed" not in lines


def test_the_system_scores_figure_labels_a_mean_without_an_interval(tmp_path):
    pytest.importorskip("matplotlib")
    from debias.plots.system_scores import _no_interval

    table = _estimates_as_read(tmp_path)
    labels = [_no_interval(row) for _, row in table[table["system"].isin(["b", "c"])].iterrows()]
    assert labels[0] == "no interval: 2 judged items"
    assert set(labels[1:]) == {"no interval: every judged item scored the same"}
