"""The ratings commands on a long table, the reference system's rows without scores, what the
printed tables say about their level, and the level's defaults: 0.95 for a user's analyses, 0.8
kept by the paper's configuration."""

from __future__ import annotations

import gzip
import io
import json

import numpy as np
import pandas as pd
import yaml
from conftest import REPO

import debias
from debias.cli import main
from debias.config.labels import estimates_spec
from debias.config.settings import load_config, section_defaults

#: The columns of the MQM-like table below, as the commands name them.
COLUMNS = ["--item", "seg", "--system", "system", "--rater", "rater", "--judgment", "score", "--score", "comet"]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    printed = capsys.readouterr()
    return code, printed.out, printed.err


def _mqm(path, *, reference_comet=""):
    """An MQM-like table: systems A and B with COMET on every row, the human reference judged
    but without COMET (``reference_comet`` on its rows); 60 of 80 segments judged, by one or two
    raters; a lower score is better."""
    rng = np.random.default_rng(7)
    rows = []
    for i in range(80):
        for system, quality in {"A": -3.0, "B": -2.0, "human": -1.0}.items():
            truth = quality + rng.normal(0, 1)
            comet = reference_comet if system == "human" else round(0.5 + 0.05 * truth + rng.normal(0, 0.02), 4)
            for rater in ["r1", "r2"][: 1 + i % 2] if i < 60 else [""]:
                score = "" if rater == "" else min(0, round(truth + rng.normal(0, 0.5)))
                rows.append((f"s{i}", system, rater, score, comet))
    pd.DataFrame(rows, columns=["seg", "system", "rater", "score", "comet"]).to_csv(path, index=False)
    return path


def _ratings(path):
    """The table of :func:`_mqm` as the Python API reads it, the reference system left out."""
    frame = pd.read_csv(path, keep_default_na=True)
    frame = frame[frame["system"] != "human"]
    return debias.read_ratings(
        frame, item="seg", system="system", rater="rater", judgment="score", scores=["comet"], higher_is_better=False
    )


def _csv(table) -> str:
    return table.to_csv(index=False, float_format="%.6g", lineterminator="\n")


# -- the ratings commands on a long table -----------------------------------------------------------


def test_estimate_compare_leaderboard_plan_on_a_long_table_print_the_apis_rows(tmp_path, capsys):
    table = _mqm(tmp_path / "mqm.csv")
    ratings = _ratings(table)
    given = [*COLUMNS, "--reference-system", "human", "--lower-is-better"]
    for command, expected in (
        ("estimate", debias.estimate(ratings)),
        ("compare", debias.compare(ratings)),
        ("leaderboard", debias.leaderboard(ratings)),
        ("plan", debias.plan(ratings)),
    ):
        code, out, err = run(capsys, command, table, *given)
        assert code == 0, err
        assert out == _csv(expected), command
        assert err == f"debias {command}: 95% intervals\n"
        printed = pd.read_csv(io.StringIO(out))
        systems = set(printed["system"]) if "system" in printed else set(printed["system_a"]) | set(printed["system_b"])
        assert systems == {"A", "B"}, command  # the reference system's rows left out
    estimates = pd.read_csv(io.StringIO(run(capsys, "estimate", table, *given)[1]))
    assert set(estimates["estimator"]) == {"mean", "cv:comet", "ppi++:comet"}  # 20 segments nobody judged
    assert (estimates["level"] == 0.95).all() and (estimates["n_outputs"] == 80).all()
    board = pd.read_csv(io.StringIO(run(capsys, "leaderboard", table, *given)[1]))
    assert board.groupby("estimator")["system"].first().eq("A").all()  # lower is better: A's fewer errors first


def test_a_long_tables_level_task_and_plan_options_are_the_apis(tmp_path, capsys):
    table = _mqm(tmp_path / "mqm.csv")
    ratings = _ratings(table).with_settings(higher_is_better=False, task="mqm")
    given = [*COLUMNS, "--reference-system", "human", "--lower-is-better", "--task", "mqm"]
    code, out, err = run(capsys, "leaderboard", table, *given, "--level", "0.9", "--top-k", "1")
    assert code == 0 and err == "debias leaderboard: 90% intervals\n"
    assert out == _csv(debias.leaderboard(ratings, level=0.9, top_k=1))
    assert set(pd.read_csv(io.StringIO(out))["task"]) == {"mqm"}
    code, out, _ = run(capsys, "plan", table, *given, "--half-width", "0.2", "--assurance", "0.5")
    assert code == 0
    assert out == _csv(debias.plan(ratings, settings={"target_widths": [0.4], "assurance": 0.5}))


def test_a_long_tables_clusters_are_read_as_the_api_reads_them(tmp_path, capsys):
    table = _mqm(tmp_path / "mqm.csv")
    frame = pd.read_csv(table)
    frame["doc"] = "d" + (frame["seg"].str[1:].astype(int) // 4).astype(str)  # four segments per document
    frame.to_csv(table, index=False)
    ratings = debias.read_ratings(
        frame[frame["system"] != "human"],
        item="seg",
        system="system",
        rater="rater",
        judgment="score",
        scores=["comet"],
        cluster="doc",
    )
    code, out, err = run(capsys, "leaderboard", table, *COLUMNS, "--reference-system", "human", "--cluster", "doc")
    assert code == 0, err
    assert out == _csv(debias.leaderboard(ratings))
    assert "design_effect" in out.splitlines()[0]


def test_the_reference_system_needs_naming_and_a_long_table_takes_no_system_file_options(tmp_path, capsys):
    table = _mqm(tmp_path / "mqm.csv")
    code, _, err = run(capsys, "estimate", table, *COLUMNS)
    assert code == 2 and err.count("\n") == 1
    assert f"{table}: row 4: column 'comet' has no value for system 'human', item 's0'" in err
    for option, value in (("--config", "config/config.yaml"), ("--metric", "comet"), ("--compute", "bleu")):
        code, _, err = run(capsys, "estimate", table, *COLUMNS, option, value)
        assert code == 2 and f"{option}: is an option of system files, not of a long table of ratings" in err
    code, _, err = run(capsys, "estimate", table, "--item", "seg")
    assert code == 2 and "--judgment: a long table of ratings needs --item and --judgment" in err
    code, _, err = run(capsys, "compare", table, *COLUMNS, "--reference-system", "nobody")
    assert code == 2 and "mqm.csv: reference system 'nobody' is not a value of column 'system'" in err
    code, _, err = run(capsys, "compare", table, table, *COLUMNS, "--reference-system", "human")
    assert code == 2 and "give one long table, found 2 files" in err
    code, _, err = run(capsys, "estimate", table)  # no columns named: not taken for a system file
    assert code == 2 and "a long table of ratings is read with its columns named (--item COL" in err


# -- debias import: the reference system's rows without scores ---------------------------------------


def test_import_takes_a_reference_system_without_scores_and_reads_none_of_its_scores(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    columns = ["--task", "mqm", *COLUMNS[:-2], "--score", "comet", "--reference-system", "human"]
    for name, value in (("empty", ""), ("text", "n/a"), ("number", 0.9)):
        table = _mqm(tmp_path / f"{name}.csv", reference_comet=value)
        code, out, err = run(capsys, "import", table, *columns, "--lower-is-better", "--out", tmp_path / name)
        assert code == 0, err
        block = yaml.safe_load(out)["tasks"]["mqm"]
        assert list(block["systems"]) == ["A", "B"] and block["reference_system"] == "human"  # judged on 60 items
        with gzip.open(tmp_path / name / "systems" / "human.jsonl.gz", "rt") as lines:
            reference = [json.loads(line) for line in lines]
        assert len(reference) == 80 and not any("scores" in line for line in reference)
        assert sum(bool(line["judgments"]) for line in reference) == 60
        with gzip.open(tmp_path / name / "systems" / "A.jsonl.gz", "rt") as lines:
            assert all(isinstance(json.loads(line)["scores"]["comet"], float) for line in lines)
    # a system that is not the reference still needs its score, and the error names the row
    frame = pd.read_csv(tmp_path / "empty.csv", keep_default_na=False)
    frame.loc[0, "comet"] = ""
    frame.to_csv(tmp_path / "gap.csv", index=False)
    code, _, err = run(capsys, "import", tmp_path / "gap.csv", *columns, "--out", tmp_path / "gap")
    assert code == 2 and "gap.csv: row 2: column 'comet' has no value for system 'A', item 's0'" in err
    assert not (tmp_path / "gap").exists()


# -- what the printed tables say about their level ---------------------------------------------------


def test_json_carries_version_command_arguments_and_level_and_markdown_states_the_level(tmp_path, capsys):
    table = _mqm(tmp_path / "mqm.csv")
    given = ["estimate", table, *COLUMNS, "--reference-system", "human", "--level", "0.9"]
    code, out, err = run(capsys, *given, "--format", "json")
    assert code == 0 and err == ""  # JSON says it itself
    printed = json.loads(out)
    assert list(printed) == ["version", "command", "arguments", "level", "rows"]
    assert printed["version"] == debias.__version__ and printed["command"] == "estimate"
    assert printed["arguments"] == [str(a) for a in given] + ["--format", "json"]
    assert printed["level"] == 0.9 and {row["level"] for row in printed["rows"]} == {0.9}
    code, csv_text, _ = run(capsys, *given)
    assert len(printed["rows"]) == len(pd.read_csv(io.StringIO(csv_text)))
    code, out, err = run(capsys, *given, "--format", "markdown")
    assert code == 0 and err == "" and out.startswith("90% intervals (level 0.9).\n\n| task | prompt |")
    # the comparisons have no level column: the header still says it
    code, out, _ = run(capsys, "compare", table, *COLUMNS, "--reference-system", "human", "--format", "json")
    assert "level" not in out.split('"rows"')[1] and json.loads(out)["level"] == 0.95


def test_pairwise_and_status_outputs_say_their_level(tmp_path, capsys):
    frame = pd.DataFrame(
        {
            "q": [f"q{i}" for i in range(30)],
            "A": ["x", "y", "z"] * 10,
            "B": ["y", "z", "x"] * 10,
            "winner": ["a", "b", "tie", "a", "a", "b"] * 5,
        }
    )
    path = tmp_path / "battles.csv"
    frame.to_csv(path, index=False)
    pairs = ["--item", "q", "--system-a", "A", "--system-b", "B", "--verdict", "winner"]
    code, out, err = run(capsys, "preferences", path, *pairs)
    assert code == 0 and err == "debias preferences: 95% intervals\n"
    code, out, _ = run(capsys, "leaderboard", path, *pairs, "--level", "0.8", "--format", "json")
    assert code == 0 and json.loads(out)["level"] == 0.8 and json.loads(out)["command"] == "leaderboard"
    code, out, err = run(capsys, "status", path, *pairs, "--question", "top:1", "--level", "0.9", "--format", "json")
    assert code == 0 and "level 0.9 at every look" in err
    assert json.loads(out)["level"] == 0.9 and json.loads(out)["command"] == "status"


# -- the level's defaults ------------------------------------------------------------------------------


def test_a_users_analyses_default_to_95_percent_and_the_papers_configuration_keeps_80():
    assert section_defaults("estimates")["level"] == 0.95
    assert section_defaults("bootstrap")["level"] == 0.95
    frame = pd.DataFrame({"seg": [f"s{i}" for i in range(8)] * 2, "sys": ["a"] * 8 + ["b"] * 8})
    frame["score"] = [3, 4, 2, 5, 4, 3, 4, 2, 4, 5, 3, 5, 4, 4, 5, 3]
    ratings = debias.read_ratings(frame, item="seg", system="sys", judgment="score")
    assert set(debias.estimate(ratings)["level"]) == {0.95}
    assert set(debias.leaderboard(ratings)["level"]) == {0.95}
    assert debias.estimate_mean([[4, 5], [3], [5, 4], [2, 3], [4]]).level == 0.95
    for name in ("config/config.yaml", ".test/config/config.yaml"):  # written out, not left to the default
        written = yaml.safe_load((REPO / name).read_text())
        assert written["estimates"]["level"] == written["bootstrap"]["level"] == 0.8, name
    arena = yaml.safe_load((REPO / "config/arena.yaml").read_text())
    assert arena["estimates"]["level"] == 0.9


def test_a_task_debias_import_writes_runs_at_95_percent(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    table = _mqm(tmp_path / "mqm.csv")
    config = tmp_path / "config" / "mqm.yaml"
    args = ["import", table, "--task", "mqm", *COLUMNS[:-2], "--score", "comet", "--reference-system", "human"]
    code, _, err = run(capsys, *args, "--config", config)
    assert code == 0, err
    loaded = load_config(config)
    assert estimates_spec(loaded)["level"] == loaded["bootstrap"]["level"] == 0.95
    assert "level" not in yaml.safe_load(config.read_text()).get("estimates", {})
