"""Reading a pair table: every judge read or refused, every battle one battle, only the columns used.

Each case of the pairwise door ends in a clear error (file, row, column, what was expected) or
a correct result: judges' codes without and with a mapping, a judge's probabilities, the text
``none``, battles written in either order by raters and by judge tables, judge columns named like
the table's own, a judge answering few battles, and the columns read from a file.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd
import pytest

import debias
from debias.config.settings import with_defaults
from debias.config.tasks import load_preferences
from debias.data.pairs import UnknownVerdicts, parse_mapping, verdict_codes
from debias.io.canonical import InputError
from debias.io.pairs import canonical_pair_table, join_judge_tables, read_pair_file, read_pair_table

COLUMNS = dict(item="q", system_a="A", system_b="B", verdict="winner")
CODE = {"a": 1, "b": 2, "tie": 3}
FLIP = {"a": "b", "b": "a", "tie": "tie", None: None}


def tidy(n_battles=240, n_systems=8, raters=3, seed=1):
    """A new user's table: ``n_systems`` systems, ``raters`` verdicts per battle, two judges,
    a third of the battles judged by the judges alone."""
    rng = np.random.default_rng(seed)
    systems = [f"sys{k}" for k in range(n_systems)]
    strength = np.linspace(-1, 1, n_systems)
    rows = []
    for battle in range(n_battles):
        a, b = rng.choice(n_systems, 2, replace=False)
        p = 1 / (1 + np.exp(strength[b] - strength[a]))
        truth = rng.choice(["a", "b", "tie"], p=[0.8 * p, 0.8 * (1 - p), 0.2])
        judges = {
            j: truth if rng.random() < accuracy else rng.choice(["a", "b", "tie"])
            for j, accuracy in (("gpt", 0.8), ("claude", 0.7))
        }
        labelled = battle % 3 != 0
        for r in range(raters if labelled else 1):
            verdict = (truth if rng.random() < 0.7 else rng.choice(["a", "b", "tie"])) if labelled else None
            rows.append(
                {
                    "q": f"item{battle}",
                    "A": systems[a],
                    "B": systems[b],
                    "winner": verdict,
                    "rater": f"r{r}" if labelled else None,
                    **judges,
                }
            )
    return pd.DataFrame(rows)


def as_codes(frame):
    """The judges' verdicts as the source codes 1 (A), 2 (B), 3 (tie)."""
    return frame.assign(**{j: frame[j].map(CODE) for j in ("gpt", "claude")})


def flipped(frame, rows):
    """``frame`` with the rows ``rows`` written as (item, B, A), verdicts flipped to match."""
    out = frame.copy()
    out.loc[rows, ["A", "B"]] = frame.loc[rows, ["B", "A"]].to_numpy()
    for column in ("winner", "gpt", "claude"):
        out.loc[rows, column] = frame.loc[rows, column].map(FLIP)
    return out


def _by_system(table):
    keys = ["estimand", "estimator", "system"]
    return table.sort_values(keys).reset_index(drop=True)


def test_the_issues_case_codes_and_half_the_rows_flipped_give_the_tidy_tables_numbers():
    frame = tidy()
    options = dict(**COLUMNS, rater="rater", judges=["gpt", "claude"], level=0.9)
    expected = debias.preferences(frame, **options)
    rng = np.random.default_rng(7)
    messy = flipped(frame, frame.index[rng.random(len(frame)) < 0.5])
    assert (messy["A"] != frame["A"]).mean() > 0.4
    messy = as_codes(messy)
    with pytest.raises(
        InputError, match=r"unknown verdicts of judge 'gpt': .*1 \(\d+x\).*e\.g\. \{1: 'a', 2: 'b', 3: 'tie'\}"
    ):
        debias.preferences(messy, **options)
    got = debias.preferences(messy, **options, mapping={1: "a", 2: "b", 3: "tie"})
    pd.testing.assert_frame_equal(_by_system(got), _by_system(expected), check_exact=False, rtol=1e-9, atol=1e-12)
    pairs = read_pair_table(
        messy, **COLUMNS, rater="rater", judges=["gpt", "claude"], mapping=parse_mapping("1=a,2=b,3=tie")
    )
    assert pairs.n_battles == 240 and pairs.human_counts.max() == 3 and pairs.n_systems == 8


def test_codes_without_a_mapping_are_refused_naming_the_judge_the_values_their_counts_and_the_mapping():
    frame = as_codes(tidy(n_battles=30))
    with pytest.raises(InputError) as error:
        read_pair_table(frame, **COLUMNS, rater="rater", judges=["gpt"])
    message = error.value.message
    counts = frame["gpt"].value_counts()
    assert error.value.where == "table: row 2" and error.value.column == "gpt"
    assert "unknown verdicts of judge 'gpt'" in message
    for code, count in counts.items():
        assert f"{code} ({count}x)" in message
    assert "explicit mapping" in message and "--mapping" in message and "mapping:" in message


def test_codes_with_a_mapping_are_read_in_the_api_per_judge_and_in_the_config(tmp_path):
    frame = as_codes(tidy(n_battles=30)).assign(claude=lambda f: f["claude"].map({1: "x", 2: "y", 3: "t"}))
    plain = read_pair_table(tidy(n_battles=30), **COLUMNS, rater="rater", judges=["gpt", "claude"])
    mapped = read_pair_table(
        frame,
        **COLUMNS,
        rater="rater",
        judges=["gpt", "claude"],
        mapping={1: "a", 2: "b", 3: "tie"},
        judge_mappings={"claude": {"x": "a", "y": "b", "t": "tie"}},
    )
    np.testing.assert_array_equal(mapped.judge_verdicts, plain.judge_verdicts)
    frame.to_csv(tmp_path / "b.csv", index=False)  # the codes written as text "1", "2", "3"
    spec = {
        "label": "T",
        "battles": str(tmp_path / "b.csv"),
        **COLUMNS,
        "rater": "rater",
        "mapping": {1: "a", 2: "b", 3: "tie"},
        "judges": {"gpt": {"label": "G"}, "claude": {"label": "C", "mapping": {"x": "a", "y": "b", "t": "tie"}}},
    }
    config = with_defaults({"results_dir": "r", "preferences": {"t": spec}})
    loaded = load_preferences(config, "t")
    np.testing.assert_array_equal(loaded.judge_verdicts, plain.judge_verdicts)
    np.testing.assert_array_equal(loaded.human, plain.human)
    del spec["judges"]["claude"]["mapping"]
    with pytest.raises(InputError, match=r"b\.csv: row 2: column 'claude': unknown verdicts of judge 'claude'"):
        load_preferences(with_defaults({"results_dir": "r", "preferences": {"t": spec}}), "t")


def test_a_mapping_on_one_line_as_the_command_line_gives_it():
    assert parse_mapping("1=a, 2=b,3=tie, none=") == {"1": "a", "2": "b", "3": "tie", "none": None}
    assert verdict_codes([1, "2", 3.0, "none"], mapping=parse_mapping("1=a,2=b,3=tie,none=missing")).codes[
        :3
    ].tolist() == [
        1.0,
        0.0,
        0.5,
    ]
    with pytest.raises(ValueError, match="not value=target"):
        parse_mapping("1:a")
    with pytest.raises(ValueError, match="a target must be"):
        parse_mapping("1=left")


def test_a_judges_probabilities_are_a_continuous_prediction_with_ties_as_half_a_win():
    frame = tidy(n_battles=60)
    rng = np.random.default_rng(3)
    score = frame["gpt"].map({"a": 0.9, "b": 0.1, "tie": 0.5}) + rng.uniform(-0.05, 0.05, len(frame))
    first = frame.groupby("q")["q"].transform(lambda s: s.index[0])
    frame["gpt"] = score.loc[first].to_numpy()  # one probability per battle
    pairs = read_pair_table(frame, **COLUMNS, rater="rater", judges=["gpt"])
    assert pairs.continuous_judges == ("gpt",)
    assert np.nanmin(pairs.judge_verdicts) > 0.0 and not np.isin(pairs.judge_verdicts, [0.0, 0.5, 1.0]).all()
    table = debias.preferences(frame, **COLUMNS, rater="rater", judges=["gpt"], level=0.9)
    assert set(table["estimator"]) == {"human", "judge:gpt", "ppi++:gpt"} and table["estimate"].notna().all()
    with pytest.raises((InputError, ValueError), match="probabilities that A is better.*ties='half'"):
        debias.preferences(frame, **COLUMNS, rater="rater", judges=["gpt"], level=0.9, ties="drop")
    text = frame.assign(gpt=frame["gpt"].map(lambda v: f"{v:.3f}"))  # as a CSV gives it
    np.testing.assert_allclose(
        read_pair_table(text, **COLUMNS, rater="rater", judges=["gpt"]).judge_verdicts, pairs.judge_verdicts, atol=1e-3
    )
    flip = frame.copy()  # the second row of a battle the other way round
    assert frame.loc[2, "q"] == frame.loc[1, "q"]
    flip.loc[2, ["A", "B"]] = frame.loc[2, ["B", "A"]].to_numpy()
    flip.loc[2, "winner"] = FLIP[frame.loc[2, "winner"]]
    flip.loc[2, "gpt"] = 1 - frame.loc[2, "gpt"]
    again = read_pair_table(flip, **COLUMNS, rater="rater", judges=["gpt"])
    np.testing.assert_allclose(again.judge_verdicts, pairs.judge_verdicts)
    # a number outside [0, 1], or a probability beside a verdict, is neither
    for bad in (1.5, "a"):
        with pytest.raises(InputError, match="judge 'gpt' that are not probabilities"):
            read_pair_table(frame.assign(gpt=[bad, *frame["gpt"][1:]]), **COLUMNS, rater="rater", judges=["gpt"])


def test_the_text_none_is_refused_for_people_until_mapped_and_a_null_is_missing():
    frame = tidy(n_battles=12)
    frame.loc[frame.index[frame["winner"].notna()][:2], "winner"] = "None"
    with pytest.raises(InputError) as error:
        read_pair_table(frame, **COLUMNS, rater="rater")
    assert "'None' (2x)" in error.value.message and "neither is good" in error.value.message
    assert "map it to None (no verdict) or to 'tie'" in error.value.message
    missing = read_pair_table(frame, **COLUMNS, rater="rater", mapping={"none": None})
    ties = read_pair_table(frame, **COLUMNS, rater="rater", mapping={"none": "tie"})
    assert missing.human.size == ties.human.size - 2
    assert read_pair_table(tidy(n_battles=12), **COLUMNS, rater="rater").human.size == ties.human.size


def test_raters_of_one_battle_in_either_order_are_one_battle_with_the_verdicts_flipped():
    frame = pd.DataFrame(
        {
            "q": ["q1", "q1", "q1", "q2"],
            "A": ["x", "y", "x", "y"],
            "B": ["y", "x", "y", "z"],
            "winner": ["a", "a", "tie", "b"],
            "rater": ["r1", "r2", "r3", "r1"],
            "j": ["a", "b", "a", "tie"],
        }
    )
    pairs = read_pair_table(frame, **COLUMNS, rater="rater", judges=["j"])
    assert pairs.n_battles == 2 and pairs.human_counts.tolist() == [3, 1]
    assert pairs.human[:3].tolist() == [1.0, 0.0, 0.5]  # r2 said y (its A) won: x lost
    assert pairs.judge_verdicts[:, 0].tolist() == [1.0, 0.5]
    with pytest.raises(InputError, match="differs from the one on the battle's first row"):
        read_pair_table(frame.assign(j=["a", "a", "a", "tie"]), **COLUMNS, rater="rater", judges=["j"])
    with pytest.raises(InputError, match=r"table: row 3: rater 'r1' judged this battle twice \(first on row 2\)"):
        read_pair_table(frame.assign(rater=["r1", "r1", "r3", "r1"]), **COLUMNS, rater="rater")


def test_a_judge_table_with_the_systems_the_other_way_round_joins_with_its_verdicts_flipped():
    frame = tidy(n_battles=40)
    human = frame.drop(columns=["gpt", "claude"])
    battles = frame.drop_duplicates("q")[["q", "A", "B", "gpt"]].reset_index(drop=True)
    swapped = battles.rename(columns={"A": "B", "B": "A"}).assign(gpt=battles["gpt"].map(FLIP))
    swapped.loc[:4, ["A", "B", "gpt"]] = battles.loc[:4, ["A", "B", "gpt"]].to_numpy()  # a few as given
    codes = swapped.assign(gpt=swapped["gpt"].map(CODE))
    joined = join_judge_tables(
        human, {"gpt": (codes, "gpt", "gpt.csv", {1: "a", 2: "b", 3: "tie"})}, item="q", system_a="A", system_b="B"
    )
    assert len(joined) == len(human)
    got = read_pair_table(joined, **COLUMNS, rater="rater", judges=["gpt"])
    expected = read_pair_table(frame, **COLUMNS, rater="rater", judges=["gpt"])
    np.testing.assert_array_equal(got.judge_verdicts, expected.judge_verdicts)
    with pytest.raises(InputError, match=r"gpt\.csv: row 2: column 'gpt': unknown verdicts of judge 'gpt'"):
        join_judge_tables(human, {"gpt": (codes, "gpt", "gpt.csv")}, item="q", system_a="A", system_b="B")
    twice = pd.concat([swapped, battles.iloc[[7]]], ignore_index=True)  # battle 7 in both orders
    with pytest.raises(InputError, match=rf"gpt\.csv: row {len(twice) + 1}: .*also on row 9 \(in either order"):
        join_judge_tables(human, {"gpt": (twice, "gpt", "gpt.csv")}, item="q", system_a="A", system_b="B")


def test_a_judge_answer_mapped_to_no_verdict_keeps_the_judges_other_verdicts(tmp_path):
    frame = tidy(n_battles=30)
    human = frame.drop(columns=["gpt", "claude"])
    battles = frame.drop_duplicates("q")[["q", "A", "B", "gpt"]].reset_index(drop=True)
    battles.loc[0, "gpt"] = "I cannot decide"
    battles.to_json(tmp_path / "gpt.jsonl", orient="records", lines=True)  # as a file gives it back
    table = read_pair_file(tmp_path / "gpt.jsonl", ["q", "A", "B", "gpt"])
    joined = join_judge_tables(
        human, {"gpt": (table, "gpt", "gpt.jsonl", {"I cannot decide": None})}, item="q", system_a="A", system_b="B"
    )
    got = read_pair_table(
        joined, **COLUMNS, rater="rater", judges=["gpt"], judge_mappings={"gpt": {"I cannot decide": None}}
    )
    expected = read_pair_table(frame, **COLUMNS, rater="rater", judges=["gpt"])
    assert np.isnan(got.judge_verdicts[0, 0]) and got.judge_unknown.tolist() == [1]
    np.testing.assert_array_equal(got.judge_verdicts[1:], expected.judge_verdicts[1:])


def test_a_judge_table_joins_in_either_order_through_a_preference_task(tmp_path):
    frame = tidy(n_battles=40)
    frame.drop(columns=["gpt", "claude"]).to_csv(tmp_path / "human.csv", index=False)
    battles = frame.drop_duplicates("q")[["q", "A", "B", "gpt"]]
    swapped = battles.rename(columns={"A": "B", "B": "A"}).assign(gpt=battles["gpt"].map(FLIP))
    swapped.to_parquet(tmp_path / "gpt.parquet")
    spec = {"label": "T", "battles": str(tmp_path / "human.csv"), **COLUMNS, "rater": "rater"}
    spec["judges"] = {"gpt": {"label": "G", "table": str(tmp_path / "gpt.parquet")}}
    loaded = load_preferences(with_defaults({"results_dir": "r", "preferences": {"t": spec}}), "t")
    expected = read_pair_table(frame, **COLUMNS, rater="rater", judges=["gpt"])
    assert loaded.n_battles == expected.n_battles == 40
    np.testing.assert_array_equal(loaded.judge_verdicts, expected.judge_verdicts)


@pytest.mark.parametrize("judge", ["winner", "q", "A", "rater"])
def test_a_judge_column_that_is_one_of_the_tables_own_columns_is_refused(judge):
    with pytest.raises(InputError, match=rf"judge '{judge}' is the table's .* column"):
        read_pair_table(tidy(n_battles=6), **COLUMNS, rater="rater", judges=[judge])


@pytest.mark.parametrize("judge", ["verdict", "item", "system_a", "rater"])
def test_a_judge_named_like_a_canonical_column_is_refused(judge):
    with pytest.raises(InputError, match=f"judge '{judge}' has the name of a column of the canonical table"):
        canonical_pair_table(tidy(n_battles=6), **COLUMNS, rater="rater", judges={judge: "gpt"})


def test_a_task_judge_named_like_one_of_its_columns_is_refused(tmp_path):
    frame = tidy(n_battles=6)
    frame.to_csv(tmp_path / "b.csv", index=False)
    spec = {"label": "T", "battles": str(tmp_path / "b.csv"), **COLUMNS, "rater": "rater"}
    for judges, message in (
        ({"winner": {"label": "J", "column": "gpt"}}, "judges.winner: the judge has the name of the task's verdict"),
        ({"j": {"label": "J", "column": "q"}}, "judges.j: the judge's column 'q' is the task's item column"),
    ):
        config = with_defaults({"results_dir": "r", "preferences": {"t": {**spec, "judges": judges}}})
        with pytest.raises(InputError, match=message):
            load_preferences(config, "t")


def test_canonical_table_applies_the_mappings_and_reads_back_the_same():
    frame = as_codes(tidy(n_battles=30)).astype({"claude": object})
    frame.loc[0, "claude"] = "error"
    mapping = {1: "a", 2: "b", 3: "tie"}
    table = canonical_pair_table(
        frame,
        **COLUMNS,
        rater="rater",
        judges={"gpt": "gpt", "claude": "claude"},
        mapping=mapping,
        judge_mappings={"claude": {"error": None}},
    )
    assert set(table["gpt"]) <= {"a", "b", "tie"} and table.loc[0, "claude"] == ""
    canonical = dict(item="item", system_a="system_a", system_b="system_b", verdict="verdict", rater="rater")
    again = read_pair_table(table, **canonical, judges=["gpt", "claude"])
    errors = {"claude": {"error": None}}
    original = read_pair_table(
        frame, **COLUMNS, rater="rater", judges=["gpt", "claude"], mapping=mapping, judge_mappings=errors
    )
    np.testing.assert_array_equal(again.judge_verdicts, original.judge_verdicts)
    assert original.judge_unknown.tolist() == [0, 1]


def test_a_judge_answering_few_battles_is_named(caplog):
    frame = tidy(n_battles=30)
    first = ~frame["q"].duplicated()
    answered = frame["q"].isin(frame.loc[first, "q"].iloc[:10])
    frame["claude"] = np.where(answered, frame["claude"], "error")
    with caplog.at_level(logging.WARNING, logger="debias.io.pairs"):
        pairs = read_pair_table(
            frame, **COLUMNS, rater="rater", judges=["gpt", "claude"], judge_mappings={"claude": {"error": None}}
        )
    assert pairs.sparse_judges == ("claude",) and pairs.judge_coverage.tolist() == [1.0, pytest.approx(1 / 3)]
    assert pairs.judge_unknown.tolist() == [0, 20]
    assert "judge 'claude' gave a verdict on 10 of 30 battles (33%); 20 answers read as no verdict" in caplog.text


def test_a_file_is_read_for_its_used_columns_only(tmp_path):
    frame = tidy(n_battles=20).assign(conversation="some long text", extra=1.5)
    for name in ("t.parquet", "t.csv"):
        path = tmp_path / name
        frame.to_parquet(path) if name.endswith("parquet") else frame.to_csv(path, index=False)
        read = read_pair_file(path, ["q", "A", "B", "winner", "rater", "gpt"])
        assert list(read.columns) == ["q", "A", "B", "winner", "rater", "gpt"]
        pairs = read_pair_table(read, **COLUMNS, rater="rater", judges=["gpt"], source=str(path))
        expected = read_pair_table(frame, **COLUMNS, rater="rater", judges=["gpt"])
        np.testing.assert_array_equal(pairs.human, expected.human)
        np.testing.assert_array_equal(pairs.judge_verdicts, expected.judge_verdicts)
    with pytest.raises(InputError, match="no column 'missing'"):
        read_pair_file(tmp_path / "t.csv", ["q", "missing"])


def test_verdict_codes_refuse_a_judges_mixed_answers_with_every_hint():
    with pytest.raises(UnknownVerdicts) as error:
        verdict_codes([0.3, "a", 7, 7], judge="j")
    assert error.value.counts == {0.3: 1, 7: 2}
    assert "or a probability that A is better" in str(error.value)
