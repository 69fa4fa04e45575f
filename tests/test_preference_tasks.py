"""Preference tasks of the configuration (key ``preferences``): the schema, judge tables joined on
the battle, the draw of ``human_battles``, the start-up check and the report section."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REPO

from debias.config.settings import ConfigError, schema_problem, with_defaults
from debias.config.tasks import load_preferences, preference_files
from debias.io.canonical import InputError
from debias.io.pairs import join_judge_tables
from debias.pipeline.inputs import validate_preferences
from debias.pipeline.startup import checked_preferences
from debias.report.preferences import PreferenceTables, preference_lines
from debias.tables.preferences import agreement_table, preference_analysis, preference_summary


def battles(n=300, systems=("x", "y", "z"), labelled=0.4, seed=0):
    """Battles with human verdicts on a share of them and a judge that agrees with people 80% of
    the time (its own verdict on the others)."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, len(systems), n)
    b = (a + 1 + rng.integers(0, len(systems) - 1, n)) % len(systems)
    human = rng.choice(["model_a", "model_b", "tie"], n, p=[0.45, 0.35, 0.2])
    judge = np.where(rng.random(n) < 0.8, human, rng.choice(["model_a", "model_b", "tie"], n))
    return pd.DataFrame(
        {
            "num": np.arange(n).astype(str),
            "model_a": [systems[i] for i in a],
            "model_b": [systems[i] for i in b],
            "winner": np.where(rng.random(n) < labelled, human, ""),
            "judge": judge,
        }
    )


def config_of(spec, name="t"):
    return with_defaults({"results_dir": "r", "preferences": {name: {"label": "T", **spec}}})


ARENA_COLUMNS = {"item": "num", "system_a": "model_a", "system_b": "model_b", "verdict": "winner"}


def test_a_configuration_of_preference_tasks_alone_is_valid_and_a_partial_paper_one_is_not():
    assert schema_problem({"results_dir": "r", "preferences": {"t": {"label": "T", "battles": "b.csv"}}}) is None
    paper = yaml.safe_load((REPO / "config/config.yaml").read_text())
    assert schema_problem(paper) is None
    del paper["figures"]
    assert "'figures' is a required property" in schema_problem(paper)
    assert "preferences.t.ties" in schema_problem(
        {"results_dir": "r", "preferences": {"t": {"label": "T", "battles": "b", "ties": "never"}}}
    )
    arena = yaml.safe_load((REPO / "config/arena.yaml").read_text())
    assert schema_problem(arena) is None
    filled = with_defaults(arena)
    assert filled["preferences"]["arena"]["ties"] == "half"
    with pytest.raises(ConfigError, match="human_battles"):
        with_defaults({"results_dir": "r", "preferences": {"t": {"label": "T", "battles": "b", "human_battles": 1}}})


def test_judge_tables_join_on_the_battle_and_battles_only_they_hold_join_the_pool():
    frame = battles()
    human = frame.drop(columns="judge")
    judged = frame[["num", "model_a", "model_b", "judge"]].rename(columns={"judge": "winner"})
    extra = pd.DataFrame({"num": ["999"], "model_a": ["x"], "model_b": ["y"], "winner": ["model_a"]})
    judged = pd.concat([judged.iloc[::-1], extra], ignore_index=True)  # another order, one more battle
    joined = join_judge_tables(
        human, {"j": (judged, "winner", "j.csv")}, item="num", system_a="model_a", system_b="model_b"
    )
    assert len(joined) == len(frame) + 1 and joined["num"].tolist()[: len(frame)] == frame["num"].tolist()
    spelled = frame["judge"].str.lower().map({"model_a": "a", "model_b": "b", "tie": "tie"}).fillna("")
    np.testing.assert_array_equal(joined["j"].to_numpy()[: len(frame)], spelled.to_numpy())
    assert pd.isna(joined["winner"].iloc[-1]) and joined["j"].iloc[-1] == "a"
    twice = pd.concat([judged, judged.iloc[[5]]], ignore_index=True)
    with pytest.raises(InputError, match=rf"j\.csv: row {len(twice) + 1}.*also on row 7"):
        join_judge_tables(human, {"j": (twice, "winner", "j.csv")}, item="num", system_a="model_a", system_b="model_b")
    with pytest.raises(InputError, match="no column 'verdict'"):
        join_judge_tables(
            human, {"j": (judged, "verdict", "j.csv")}, item="num", system_a="model_a", system_b="model_b"
        )


def test_a_task_reads_judges_from_columns_or_their_own_tables_alike(tmp_path):
    frame = battles()
    frame.to_csv(tmp_path / "all.csv", index=False)
    frame.drop(columns="judge").to_json(tmp_path / "human.jsonl", orient="records", lines=True)
    frame[["num", "model_a", "model_b", "judge"]].to_csv(tmp_path / "judge.tsv.gz", sep="\t", index=False)
    in_column = config_of(
        {"battles": str(tmp_path / "all.csv"), **ARENA_COLUMNS, "judges": {"j": {"label": "J", "column": "judge"}}}
    )
    own_table = config_of(
        {
            "battles": str(tmp_path / "human.jsonl"),
            **ARENA_COLUMNS,
            "judges": {"j": {"label": "J", "table": str(tmp_path / "judge.tsv.gz"), "column": "judge"}},
        }
    )
    one, two = load_preferences(in_column, "t"), load_preferences(own_table, "t")
    assert one.systems == two.systems and one.judges == two.judges == ("j",)
    np.testing.assert_array_equal(one.human, two.human)
    np.testing.assert_array_equal(one.judge_verdicts, two.judge_verdicts)
    assert preference_files(own_table, "t") == [str(tmp_path / "human.jsonl"), str(tmp_path / "judge.tsv.gz")]


def test_human_battles_keeps_that_many_verdicts_drawn_by_the_tasks_name(tmp_path):
    frame = battles(n=400, labelled=1.0)
    frame.to_csv(tmp_path / "b.csv", index=False)
    spec = {
        "battles": str(tmp_path / "b.csv"),
        **ARENA_COLUMNS,
        "judges": {"judge": {"label": "J"}},
        "human_battles": 50,
    }
    first = load_preferences(config_of(spec), "t")
    again = load_preferences(config_of(spec), "t")
    other = load_preferences(config_of(spec, "u"), "u")
    assert first.labelled.sum() == 50 and first.n_battles == 400
    np.testing.assert_array_equal(first.labelled, again.labelled)
    assert not np.array_equal(first.labelled, other.labelled)
    with pytest.raises(InputError, match="human_battles: 401 battles .* has 400"):
        load_preferences(config_of({**spec, "human_battles": 401}), "t")


def test_start_up_check_names_the_file_row_or_key_and_remembers_a_pass(tmp_path):
    frame = battles()
    frame.to_csv(tmp_path / "b.csv", index=False)
    spec = {"battles": str(tmp_path / "b.csv"), **ARENA_COLUMNS, "judges": {"judge": {"label": "J"}}}
    cache = tmp_path / "cache"
    assert checked_preferences(config_of(spec), cache) == {"t": 300}
    assert len(list(cache.glob("preferences-*.json"))) == 1
    assert checked_preferences(config_of({**spec, "label": "relabelled"}), cache) == {"t": 300}
    assert len(list(cache.glob("preferences-*.json"))) == 1, "a label is not a reason to check again"
    bad = frame.copy()
    bad.loc[4, "winner"] = "A is better"
    bad.to_csv(tmp_path / "b.csv", index=False)
    with pytest.raises(
        InputError, match=r"b\.csv: row 6: column 'winner': unknown human verdicts: 'A is better' \(1x\)"
    ):
        checked_preferences(config_of(spec), cache)
    frame.assign(judge="banana").to_csv(tmp_path / "b.csv", index=False)
    with pytest.raises(
        InputError, match=r"b\.csv: row 2: column 'judge': unknown verdicts of judge 'judge': 'banana' \(300x\)"
    ):
        validate_preferences(config_of(spec))
    mapped = {**spec, "judges": {"judge": {"label": "J", "mapping": {"banana": None}}}}
    with pytest.raises(InputError, match=r"preferences\.t\.judges\.judge: the judge gave no verdict on any of the 300"):
        validate_preferences(config_of(mapped))
    with pytest.raises(InputError, match="not found"):
        validate_preferences(config_of({**spec, "battles": str(tmp_path / "missing.csv")}))


def section(frame, tmp_path, **spec):
    frame.to_csv(tmp_path / "b.csv", index=False)
    config = config_of(
        {"battles": str(tmp_path / "b.csv"), **ARENA_COLUMNS, "judges": {"judge": {"label": "Judge J"}}, **spec}
    )
    pairs = load_preferences(config, "t")
    analysis = preference_analysis(pairs, level=0.9)
    table = analysis.table
    summary = json.loads(json.dumps(preference_summary(pairs, analysis)))
    tables = PreferenceTables("t", table, agreement_table(pairs, level=0.9), summary)
    return summary, "\n".join(preference_lines(tables, config, figures={"preferences_t"}))


def test_report_section_states_estimates_saving_agreement_and_what_is_missing(tmp_path):
    frame = battles(n=2000, systems=("x", "y", "z", "w"), labelled=0.2)
    silent = (frame["model_a"] == "w") | (frame["model_b"] == "w")
    frame.loc[silent, "winner"] = ""
    summary, text = section(frame, tmp_path)
    assert summary["systems_without_human"] == ["w"] and summary["battles"] == 2000
    assert "No unbiased estimate for w: none of its battles has a human verdict" in text
    ess = summary["data_efficiency"]["win_rate"]["ppi++:judge"]
    assert ess > 1.2, "a judge agreeing 80% of the time saves human battles"
    assert f"PPI++, Judge J: {ess:.2f}×" in text and "fewer needed for the same width" in text
    assert "| Judge J | " in text and "Cohen's κ" in text
    assert "![preferences_t](figures/preferences_t.png)" in text
    assert "w | none (no human verdict" in text, "the system's row says why it has no estimate"


def test_report_section_of_raters_who_disagree_and_of_ties_only(tmp_path):
    frame = battles(n=200, labelled=1.0)
    second = frame.assign(winner=np.where(np.arange(200) % 3 == 0, "tie", frame["winner"]), rater="r2")
    summary, text = section(pd.concat([frame.assign(rater="r1"), second]), tmp_path, rater="rater")
    assert summary["multiply_rated"] == 200 and summary["rater_variance"] > 0
    assert f"variance of one rater's verdict around its battle's mean is {summary['rater_variance']:.3f}" in text
    ties = battles(n=200, labelled=1.0).assign(winner="tie")
    _, text = section(ties, tmp_path)
    # every verdict a tie: the intervals still have a width (Agresti-Coull), nothing to save
    assert "no saving" in text and "covariance" not in text


def test_import_pairs_writes_a_canonical_table_the_task_reads_as_the_original(tmp_path, capsys, monkeypatch):
    from debias.cli.analyse import main

    frame = battles(n=120)
    frame["rater"] = "r1"
    frame.loc[3, "judge"] = None
    second = frame.iloc[:5].assign(rater="r2", winner="tie")
    pd.concat([frame, second]).to_csv(tmp_path / "raw.csv", index=False)
    pool = frame.iloc[:0].reindex(columns=["num", "model_a", "model_b", "judge"])
    pool.loc[0] = ["1000", "x", "z", "Model_A"]
    pool.to_csv(tmp_path / "pool.csv", index=False)
    config = tmp_path / "prefs.yaml"
    argv = ["import-pairs", str(tmp_path / "raw.csv"), "--task", "mine", "--item", "num", "--system-a", "model_a"]
    argv += ["--system-b", "model_b", "--verdict", "winner", "--rater", "rater", "--judge", "judge"]
    argv += ["--pool", str(tmp_path / "pool.csv"), "--out", str(tmp_path / "data"), "--config", str(config)]
    assert main(argv) == 0
    written = yaml.safe_load(config.read_text())
    assert schema_problem(written) is None
    canonical = pd.read_csv(tmp_path / "data/battles.csv", keep_default_na=False)
    assert list(canonical.columns) == ["item", "system_a", "system_b", "verdict", "rater", "judge"]
    assert set(canonical["verdict"]) == {"a", "b", "tie", ""} and "" in set(canonical["judge"])
    assert written["relative_to_config"] is True  # its paths are read from its folder, as the workflow does
    monkeypatch.chdir(config.parent)
    imported = load_preferences(with_defaults(written), "mine")
    original = load_preferences(
        config_of(
            {
                "battles": str(tmp_path / "raw.csv"),
                "pool": str(tmp_path / "pool.csv"),
                **ARENA_COLUMNS,
                "rater": "rater",
                "judges": {"judge": {"label": "J"}},
            }
        ),
        "t",
    )
    assert imported.systems == original.systems and imported.n_battles == original.n_battles == 121
    np.testing.assert_array_equal(imported.human, original.human)
    np.testing.assert_array_equal(imported.judge_verdicts, original.judge_verdicts)
    assert imported.judge_unknown.tolist() == original.judge_unknown.tolist() == [0]
    assert main(argv) == 2 and "preferences already has ['mine']" in capsys.readouterr().err
    bad = frame.assign(winner=np.where(np.arange(120) == 9, "A>B", frame["winner"]))
    bad.to_csv(tmp_path / "raw.csv", index=False)
    assert main(argv[:-2]) == 2
    assert "raw.csv: row 11: column 'winner': unknown human verdicts: 'A>B' (1x)" in capsys.readouterr().err


def test_report_section_without_judges_and_with_intervals_on_few_battles(tmp_path):
    frame = pd.DataFrame(
        {"num": list("1234"), "model_a": list("xyxz"), "model_b": list("yzzy"), "winner": ["a", "tie", "b", "a"]}
    )
    frame.to_csv(tmp_path / "b.csv", index=False)
    config = config_of({"battles": str(tmp_path / "b.csv"), **ARENA_COLUMNS})
    pairs = load_preferences(config, "t")
    analysis = preference_analysis(pairs, level=0.9)
    table = analysis.table
    summary = json.loads(json.dumps(preference_summary(pairs, analysis)))
    text = "\n".join(preference_lines(PreferenceTables("t", table, pd.DataFrame(), summary), config, figures=set()))
    assert "Judges: none" in text and "biased" not in text and "What the judges save" not in text
    win_rates = table.query("estimand == 'win_rate'")
    assert (win_rates["ci_low"] >= 0).all() and (win_rates["ci_high"] <= 1).all()  # proportions stay in [0, 1]
    assert win_rates["note"].str.contains("rests on few battles").all()
    # the systems as the table lists them: best first
    assert "Intervals on fewer than 10 battles with a human verdict (z, x, y; as few as 2) are widened" in text


def test_a_mapping_with_keys_of_mixed_types_is_refused_by_name_not_by_a_crash(tmp_path):
    battles().to_csv(tmp_path / "b.csv", index=False)
    spec = {"battles": str(tmp_path / "b.csv"), **ARENA_COLUMNS}
    for mapping, message in (({1: "a", "1": "b"}, "keys 1 and '1' are the same value"), ({None: "a"}, "missing value")):
        with pytest.raises(InputError, match=message):
            checked_preferences(config_of({**spec, "mapping": mapping}), tmp_path / "cache")
