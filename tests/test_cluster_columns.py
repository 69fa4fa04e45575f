"""Judgments that share a question: the cluster column wherever data are read (the Python API,
the command line, a task's ``cluster`` key, both imports), each error naming the file, row and
column, the clusters reaching the battles and the rated systems, and the columns and report
sentence of clustered estimates (absent for data of independent judgments)."""

from __future__ import annotations

import io
import json
import warnings
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import write_jsonl

import debias
from debias.api import PAIRS_KEYWORDS, RATINGS_KEYWORDS
from debias.cli.analyse import _parser, main
from debias.config.settings import schema_problem, with_defaults
from debias.config.tasks import load_preferences, load_task
from debias.io.canonical import InputError, read_system
from debias.pipeline.inputs import validate_inputs
from debias.stats.common.joint import JointEstimate
from debias.tables.columns import CLUSTER_COLUMNS
from debias.tables.joined import CLUSTER, join_evaluation_table, join_system, read_joined, write_joined

PAIR_COLUMNS = {"item": "q", "system_a": "A", "system_b": "B", "verdict": "winner"}


def battles(n=120, seed=0, per_cluster=6):
    """Battles of three systems, a judge agreeing with people 80% of the time, ``per_cluster``
    consecutive battles sharing a topic."""
    rng = np.random.default_rng(seed)
    systems = ["x", "y", "z"]
    a = rng.integers(0, 3, n)
    b = (a + 1 + rng.integers(0, 2, n)) % 3
    human = rng.choice(["a", "b", "tie"], n, p=[0.45, 0.35, 0.2])
    return pd.DataFrame(
        {
            "q": [f"q{i}" for i in range(n)],
            "A": [systems[i] for i in a],
            "B": [systems[i] for i in b],
            "winner": np.where(np.arange(n) < 2 * n // 3, human, ""),
            "gpt": np.where(rng.random(n) < 0.8, human, rng.choice(["a", "b", "tie"], n)),
            "topic": [f"t{i // per_cluster}" for i in range(n)],
        }
    )


def ratings(n=30, seed=0, per_cluster=5, judged=24):
    """Two systems on ``n`` items, ``per_cluster`` consecutive items sharing a document, the first
    ``judged`` items judged (the others unjudged, with their metric score)."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        for system, quality in (("a", 3.0), ("b", 3.5)):
            truth = quality + rng.normal(0, 0.8)
            score = float(np.clip(np.round(truth + rng.normal(0, 0.4)), 1, 5)) if i < judged else np.nan
            rows.append((f"i{i}", system, score, 0.1 * truth + rng.normal(0, 0.02), f"doc{i // per_cluster}"))
    return pd.DataFrame(rows, columns=["seg", "sys", "score", "bleu", "doc"])


def read_ratings(frame, **more):
    return debias.read_ratings(frame, item="seg", system="sys", judgment="score", scores=["bleu"], **more)


def clustered(result, effects=1.5):
    """``result`` as the statistics give it for clustered data: clusters and design effects."""
    size = len(result.systems)
    return replace(
        result, n_clusters=np.arange(size, dtype=np.int64) + 4, design_effect=np.linspace(effects, effects + 1, size)
    )


# --- pairwise verdicts: the read step -------------------------------------------------------------


def test_battles_carry_the_cluster_of_their_rows_trimmed_and_in_the_pool_too():
    frame = battles()
    frame.loc[0, "topic"] = "  t0 "
    pool = frame.iloc[:3].assign(q=["p0", "p1", "p2"], topic=["pool", "pool", "t0"]).drop(columns="winner")
    pairs = debias.read_pairs(frame, **PAIR_COLUMNS, judges=["gpt"], pool=pool, cluster="topic")
    assert pairs.clusters.tolist() == frame["topic"].str.strip().tolist() + ["pool", "pool", "t0"]
    assert pairs.n_clusters == 21 and pairs.clustered
    assert debias.read_pairs(frame, **PAIR_COLUMNS).clusters is None, "without cluster= the item is the cluster"


def test_a_battles_raters_in_either_order_share_its_cluster():
    frame = pd.DataFrame(
        {
            "q": ["1", "1", "2"],
            "A": ["x", "y", "x"],
            "B": ["y", "x", "z"],
            "winner": ["a", "a", "tie"],
            "rater": ["r1", "r2", "r1"],
            "topic": ["t1", "t1", "t1"],
        }
    )
    pairs = debias.read_pairs(frame, **PAIR_COLUMNS, rater="rater", cluster="topic")
    assert pairs.n_battles == 2 and pairs.clusters.tolist() == ["t1", "t1"]
    frame.loc[1, "topic"] = "t2"
    with pytest.raises(InputError, match=r"^table: row 3: column 'topic': cluster 't2'.*row 2\) names 't1'") as error:
        debias.read_pairs(frame, **PAIR_COLUMNS, rater="rater", cluster="topic")
    assert (error.value.row, error.value.column) == (3, "topic")


def test_an_empty_cluster_or_a_missing_column_is_refused_naming_where():
    frame = battles()
    frame.loc[4, "topic"] = "  "
    with pytest.raises(InputError, match=r"^table: row 6: column 'topic' is empty") as error:
        debias.read_pairs(frame, **PAIR_COLUMNS, cluster="topic")
    assert error.value.column == "topic"
    pool = battles().iloc[:3].drop(columns="winner").assign(q=["p0", "p1", "p2"], topic=["t1", None, "t1"])
    with pytest.raises(InputError, match=r"^pool: row 3: column 'topic' is empty"):
        debias.read_pairs(battles(), **PAIR_COLUMNS, pool=pool, cluster="topic")
    with pytest.raises(InputError, match=r"^pool: no column 'topic'"):
        debias.read_pairs(battles(), **PAIR_COLUMNS, pool=pool.drop(columns="topic"), cluster="topic")
    with pytest.raises(InputError, match=r"^table: no column 'doc'"):
        debias.read_pairs(battles(), **PAIR_COLUMNS, cluster="doc")
    with pytest.raises(InputError, match="judge 'topic' is the table's cluster column"):
        debias.read_pairs(battles(), **PAIR_COLUMNS, judges=["topic"], cluster="topic")
    with pytest.raises(InputError, match=r"^cluster: expected a column name"):
        debias.read_pairs(battles(), **PAIR_COLUMNS, cluster=["topic"])


# --- ratings: the read step -----------------------------------------------------------------------


def test_ratings_carry_each_items_cluster_kept_by_the_population_and_the_settings():
    frame = ratings()
    table = read_ratings(frame, cluster="doc", task="docs", higher_is_better=False)
    assert table.item_cluster == {f"i{i}": f"doc{i // 5}" for i in range(30)}
    assert table.task == "docs" and table.output_cluster.tolist() == [f"doc{i // 5}" for i in range(30) for _ in "ab"]
    judged, unjudged = frame[frame["score"].notna()], frame[frame["score"].isna()]
    population = unjudged.drop(columns="score")
    both = read_ratings(judged, cluster="doc", population=population)
    assert both.item_cluster == table.item_cluster
    assert read_ratings(frame).item_cluster is None and read_ratings(frame).output_cluster is None
    with pytest.raises(InputError, match=r"^population: no column 'doc'"):
        read_ratings(judged, cluster="doc", population=population.drop(columns="doc"))
    moved = population.assign(doc="elsewhere")
    with pytest.raises(InputError, match="item 'i24' is in cluster 'elsewhere' here and in 'doc4' in the table"):
        read_ratings(frame, cluster="doc", population=moved)


def test_an_item_in_two_clusters_or_none_is_refused_naming_the_row_and_column(tmp_path, capsys):
    frame = ratings()
    frame.loc[3, "doc"] = "doc9"  # item i1, system b: its row a (row 4) says doc0
    with pytest.raises(InputError, match=r"^table: row 5: column 'doc': item 'i1' is in cluster 'doc9' here and in "
                       r"'doc0' on row 4: an item belongs to one cluster") as error:  # fmt: skip
        read_ratings(frame, cluster="doc")
    assert (error.value.row, error.value.column) == (5, "doc")
    frame = ratings()
    frame.loc[7, "doc"] = None
    path = tmp_path / "ratings.csv"
    frame.to_csv(path, index=False)
    with pytest.raises(InputError, match=r"^table: row 9: column 'doc' is empty"):
        debias.read_ratings(pd.read_csv(path), item="seg", system="sys", judgment="score", cluster="doc")
    code = main(
        ["status", str(path), "--item", "seg", "--system", "sys", "--judgment", "score", "--cluster", "doc"]
        + ["--question", "top:1"]
    )
    assert code == 2 and f"{path}: row 9: column 'doc' is empty" in capsys.readouterr().err


def test_the_one_call_forms_and_the_keyword_lists_take_cluster():
    assert "cluster" in RATINGS_KEYWORDS and "cluster" in PAIRS_KEYWORDS
    frame = ratings()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        one_call = debias.estimate(frame, item="seg", system="sys", judgment="score", scores=["bleu"], cluster="doc")
        board = debias.leaderboard(battles(), **PAIR_COLUMNS, judges=["gpt"], cluster="topic")
        with pytest.raises(InputError, match=r"^table: no column 'document'"):
            debias.leaderboard(frame, item="seg", system="sys", judgment="score", cluster="document")
    pd.testing.assert_frame_equal(one_call, debias.estimate(read_ratings(frame, cluster="doc")))
    pairs = debias.read_pairs(battles(), **PAIR_COLUMNS, judges=["gpt"], cluster="topic")
    pd.testing.assert_frame_equal(board, debias.leaderboard(pairs))
    with pytest.raises(InputError, match="the ratings are read already: estimate takes no cluster="):
        debias.estimate(read_ratings(frame), cluster="doc")


# --- from the ratings to the rated systems --------------------------------------------------------


def test_the_joined_tables_carry_the_cluster_and_the_rated_systems_their_items_clusters(monkeypatch, tmp_path):
    table = read_ratings(ratings(), cluster="doc")
    joined = join_evaluation_table(table, "t")
    assert list(joined[0].columns[-2:]) == [CLUSTER, "bleu"], "the cluster before the metrics"
    path = tmp_path / "a.csv"
    write_joined(joined[0], path)
    pd.testing.assert_series_equal(read_joined(path)[CLUSTER], joined[0][CLUSTER].astype(object), check_dtype=False)
    assert CLUSTER not in join_evaluation_table(read_ratings(ratings()), "t")[0].columns

    import debias.tables.leaderboard as leaderboard

    seen = []
    real = leaderboard.ratings_estimates

    def spy(systems, **kwargs):
        seen.append(list(systems))
        return real(systems, **kwargs)

    monkeypatch.setattr(leaderboard, "ratings_estimates", spy)
    debias.leaderboard(table)
    (systems,) = seen
    for system in systems:  # the clusters are the sample's: its intervals use them
        sample = system.sample
        assert sample.clusters.tolist() == [f"doc{int(i[1:]) // 5}" for i in system.items]
        assert sample.population_clusters.tolist() == [f"doc{int(i[1:]) // 5}" for i in system.outputs]
        assert len(sample.clusters) == 24 and len(sample.population_clusters) == 30 and sample.clustered
    seen.clear()
    debias.leaderboard(read_ratings(ratings()))
    assert all(s.sample.clusters is None and s.sample.population_clusters is None for s in seen[0])


def test_a_question_on_ratings_reads_the_rated_systems_with_their_clusters(monkeypatch):
    from debias.stats.ratings import shape

    seen = []
    real = shape.ratings_estimates
    monkeypatch.setattr(shape, "ratings_estimates", lambda data, **k: seen.append(list(data)) or real(data, **k))
    debias.status(read_ratings(ratings(), cluster="doc"), "top:1")
    assert seen and all(s.sample.clustered and len(s.sample.population_clusters) == 30 for s in seen[0])


# --- canonical files, the task's cluster key and the start-up check ------------------------------

PROMPTS = {"q": {"min": 1, "max": 5}}


def canonical_task(root, clusters=None, other=None):
    """Two systems' canonical files; ``clusters`` (item -> cluster) on each line under ``"doc"``,
    ``other`` the second system's if they differ."""
    for system, given in (("a", clusters), ("b", other or clusters)):
        lines = [
            {"id": f"i{i}", "output": "", "judgments": {"q": [float(1 + (i + len(system)) % 5)]}}
            | ({} if given is None else {"doc": given[f"i{i}"]})
            for i in range(25)
        ]
        write_jsonl(root / "t" / "systems" / f"{system}.jsonl", lines)


def task_config(root, **spec):
    return with_defaults(
        {
            "data_dir": str(root),
            "results_dir": "r",
            "nltk_data": "n",
            "metrics": {"judge": {"label": "J", "provided": True}},
            "bootstrap": {"replicates": 10, "seed": 1},
            "figures": {},
            "tasks": {
                "t": {"label": "T", "systems": {"a": {"label": "A"}, "b": {"label": "B"}}}
                | {"prompts": {"q": {"label": "Q", "min": 1, "max": 5}}, "metrics": []}
                | spec
            },
        }
    )


def test_a_tasks_cluster_key_names_the_lines_key_checked_line_by_line(tmp_path):
    clusters = {f"i{i}": f"d{i // 5}" for i in range(25)}
    canonical_task(tmp_path, clusters | {"i3": 7})
    config = task_config(tmp_path, cluster="doc")
    _, systems = load_task(config, "t")
    assert [item.cluster for item in systems["a"][:5]] == ["d0", "d0", "d0", "7", "d0"]
    assert all(item.cluster is None for item in load_task(task_config(tmp_path), "t")[1]["a"])
    path = tmp_path / "t" / "systems" / "a.jsonl"
    lines = path.read_text().splitlines()
    without = json.loads(lines[2])
    del without["doc"]
    path.write_text("\n".join([*lines[:2], json.dumps(without), *lines[3:]]) + "\n")
    with pytest.raises(InputError, match=rf"^{path}:3: missing key 'doc'.*tasks.<task>.cluster: doc"):
        read_system(path, PROMPTS, cluster="doc")
    path.write_text("\n".join([*lines[:2], json.dumps(without | {"doc": ""}), *lines[3:]]) + "\n")
    with pytest.raises(InputError, match=rf"^{path}:3: 'doc' \(the item's cluster\) must be a non-empty string"):
        read_system(path, PROMPTS, cluster="doc")
    path.write_text("\n".join([*lines[:2], json.dumps(without | {"doc": True}), *lines[3:]]) + "\n")
    with pytest.raises(InputError, match=r"must be a non-empty string or an integer, found true"):
        validate_inputs(config)


def test_an_item_in_two_clusters_across_systems_stops_the_start_up_check(tmp_path):
    clusters = {f"i{i}": f"d{i // 5}" for i in range(25)}
    canonical_task(tmp_path, clusters, clusters | {"i7": "d9"})
    with pytest.raises(InputError, match=r"b\.jsonl: id 'i7' is in cluster 'd9' here and in 'd1' in system 'a'"):
        validate_inputs(task_config(tmp_path, cluster="doc"))
    canonical_task(tmp_path, clusters)
    assert validate_inputs(task_config(tmp_path, cluster="doc")) == {"t": {"a": 25, "b": 25}}


def test_the_cluster_key_of_the_wrong_type_is_refused_by_name():
    task = {"label": "T", "systems": {"a": {"label": "A"}}, "prompts": {"q": {"label": "Q", "min": 1, "max": 5}}}
    problem = schema_problem({"tasks": {"t": task | {"cluster": 3}}}, _rules())
    assert problem.startswith("config key tasks.t.cluster: 3 is not of type 'string'")
    assert "system file's line" in problem
    problem = schema_problem({"preferences": {"p": {"label": "P", "battles": "b.csv", "cluster": ["topic"]}}}, _rules())
    assert problem.startswith("config key preferences.p.cluster: ['topic'] is not of type 'string'")
    assert "each battle's cluster" in problem
    assert "tasks.t.cluster" in schema_problem({"tasks": {"t": task | {"cluster": ""}}}, _rules())


def _rules():
    from debias.config.settings import key_rules

    return key_rules()


def test_the_joined_table_of_a_clustered_task_carries_the_cluster(tmp_path):
    clusters = {f"i{i}": f"d{i // 5}" for i in range(25)}
    canonical_task(tmp_path, clusters)
    _, systems = load_task(task_config(tmp_path, cluster="doc"), "t")
    frame = join_system("t", "a", systems["a"], ["q"], None, [])
    assert frame[CLUSTER].tolist() == [clusters[i] for i in frame["id"]]
    with pytest.raises(InputError, match="a metric named 'cluster'"):
        join_system("t", "a", [replace(i, scores={"cluster": 1.0}) for i in systems["a"]], ["q"], None, ["cluster"],
                    ["cluster"])  # fmt: skip


def test_a_preference_tasks_cluster_key_reads_the_column_in_every_table(tmp_path):
    frame = battles()
    frame.drop(columns="gpt").to_csv(tmp_path / "human.csv", index=False)
    extra = pd.DataFrame({"q": ["new"], "A": ["x"], "B": ["z"], "gpt": ["a"], "topic": ["t-new"]})
    judge = pd.concat([frame[["q", "A", "B", "gpt", "topic"]], extra], ignore_index=True)
    judge.to_csv(tmp_path / "judge.csv", index=False)
    spec = {"battles": str(tmp_path / "human.csv"), **PAIR_COLUMNS, "cluster": "topic"}
    spec["judges"] = {"gpt": {"label": "G", "table": str(tmp_path / "judge.csv")}}
    config = with_defaults({"results_dir": "r", "preferences": {"p": {"label": "P", **spec}}})
    pairs = load_preferences(config, "p")
    assert pairs.clusters.tolist() == [*frame["topic"], "t-new"], "a battle only the judge's table holds"
    direct = debias.read_pairs(battles(), **PAIR_COLUMNS, judges=["gpt"], cluster="topic", task="p")
    np.testing.assert_array_equal(pairs.clusters[:-1], direct.clusters)
    judge.drop(columns="topic").to_csv(tmp_path / "judge.csv", index=False)
    with pytest.raises(InputError, match=r"judge\.csv: no column 'topic'"):
        load_preferences(config, "p")
    spec["judges"] = {"topic": {"label": "T"}}
    with pytest.raises(InputError, match="judge has the name of the task's cluster column"):
        load_preferences(with_defaults({"results_dir": "r", "preferences": {"p": {"label": "P", **spec}}}), "p")


# --- the command line ------------------------------------------------------------------------------

#: The commands that read tables of the user's: each takes --cluster.
READS_TABLES = ("import", "import-pairs", "preferences", "status", "next", "estimate", "compare", "leaderboard", "plan")


def test_every_command_that_reads_a_users_table_takes_cluster():
    import argparse

    (sub,) = [a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction)]
    for name, parser in sub.choices.items():
        options = {o: a for a in parser._actions for o in a.option_strings}
        if name in READS_TABLES:
            assert options["--cluster"].dest == "cluster" and options["--cluster"].metavar == "COL", name
        else:
            assert "--cluster" not in options, name


def test_the_commands_read_the_cluster_column_and_name_a_bad_row(tmp_path, capsys):
    path = tmp_path / "battles.csv"
    frame = battles()
    frame.to_csv(path, index=False)
    options = ["--item", "q", "--system-a", "A", "--system-b", "B", "--verdict", "winner", "--judge", "gpt"]
    assert main(["preferences", str(path), *options, "--cluster", "topic"]) == 0
    printed = pd.read_csv(io.StringIO(capsys.readouterr().out))
    pairs = debias.read_pairs(frame, **PAIR_COLUMNS, judges=["gpt"], cluster="topic")
    expected = debias.preferences(pairs)
    np.testing.assert_allclose(printed["estimate"], expected["estimate"], rtol=1e-5)
    assert main(["leaderboard", str(path), *options, "--cluster", "topic"]) == 0
    capsys.readouterr()
    for command in (["preferences"], ["status", "--question", "top:1"]):
        assert main([command[0], str(path), *options, "--cluster", "missing", *command[1:]]) == 2
        assert f"{path}: no column 'missing'" in capsys.readouterr().err
    frame.loc[[0, 1], ["q", "A", "B"]] = [["q0", "x", "y"], ["q0", "y", "x"]]
    frame.loc[[0, 1], "topic"] = ["t0", "t1"]
    frame.assign(rater=[f"r{i}" for i in range(len(frame))]).to_csv(path, index=False)
    assert main(["preferences", str(path), *options, "--rater", "rater", "--cluster", "topic"]) == 2
    err = capsys.readouterr().err
    assert f"{path}: row 3: column 'topic': cluster 't1', but the battle's first row ({path}: row 2) names 't0'" in err


def test_status_on_ratings_reads_the_cluster_column(tmp_path, capsys):
    path = tmp_path / "ratings.csv"
    ratings().to_csv(path, index=False)
    options = ["--item", "seg", "--system", "sys", "--judgment", "score", "--score", "bleu", "--question", "top:1"]
    assert main(["status", str(path), *options, "--cluster", "doc"]) == 0
    clustered_rows = capsys.readouterr().out
    assert main(["status", str(path), *options]) == 0
    plain_rows = capsys.readouterr().out
    assert "clusters,design_effect" in clustered_rows.splitlines()[0]
    assert "clusters" not in plain_rows.splitlines()[0]
    chosen = tmp_path / "n.csv"
    # the open documents hold 2 and 10 unjudged outputs: a budget below the largest is refused
    assert main(["next", str(path), *options, "--cluster", "doc", "--budget", "2", "--output", str(chosen)]) == 2
    assert "give a budget of at least 10" in capsys.readouterr().err and not chosen.exists()
    assert main(["next", str(path), *options, "--cluster", "doc", "--budget", "10", "--output", str(chosen)]) == 0
    drawn = pd.read_csv(chosen)
    assert len(drawn) in (2, 10) and drawn["seg"].map(lambda seg: int(seg[1:]) // 5).nunique() == 1  # one whole doc


# --- the imports keep the column -------------------------------------------------------------------


def test_debias_import_writes_each_lines_cluster_and_the_tasks_key(tmp_path, capsys):
    frame = ratings()
    frame.loc[0, "doc"] = " doc0 "
    frame.to_csv(tmp_path / "ratings.csv", index=False)
    config = tmp_path / "config.yaml"
    argv = ["import", str(tmp_path / "ratings.csv"), "--task", "own", "--item", "seg", "--system", "sys"]
    argv += ["--judgment", "score", "--score", "bleu", "--cluster", "doc", "--out", str(tmp_path / "data" / "own")]
    assert main([*argv, "--config", str(config)]) == 0
    written = yaml.safe_load(config.read_text())
    assert written["tasks"]["own"]["cluster"] == "cluster"
    assert schema_problem(written) is None
    written["data_dir"] = str(tmp_path / "data")
    _, systems = load_task(with_defaults(written), "own")
    table = read_ratings(ratings(), cluster="doc")
    for items in systems.values():
        assert [item.cluster for item in items] == [table.item_cluster[item.id] for item in items]
    line = json.loads(_first_line(tmp_path))
    assert list(line)[:3] == ["id", "cluster", "output"] and line["cluster"] == "doc0"
    assert validate_inputs(with_defaults(written))
    capsys.readouterr()
    assert main([*argv[:-4], "--out", str(tmp_path / "plain")]) == 0
    assert "cluster" not in capsys.readouterr().out, "a table without clusters: no cluster key"


def _first_line(tmp_path):
    import gzip

    with gzip.open(tmp_path / "data/own/systems/a.jsonl.gz", "rt") as handle:
        return handle.readline()


def test_debias_import_pairs_writes_the_cluster_column_and_the_tasks_key(tmp_path, capsys):
    frame = battles()
    frame.to_csv(tmp_path / "raw.csv", index=False)
    config = tmp_path / "config.yaml"
    options = ["--item", "q", "--system-a", "A", "--system-b", "B", "--verdict", "winner", "--judge", "gpt"]
    out = tmp_path / "data" / "mine"
    argv = ["import-pairs", str(tmp_path / "raw.csv"), "--task", "mine", *options, "--cluster", "topic"]
    assert main([*argv, "--out", str(out), "--config", str(config)]) == 0
    written = pd.read_csv(out / "battles.csv", dtype=str, keep_default_na=False)
    assert list(written.columns) == ["item", "system_a", "system_b", "verdict", "cluster", "gpt"]
    assert written["cluster"].tolist() == frame["topic"].tolist()
    spec = yaml.safe_load(config.read_text())["preferences"]["mine"]
    assert spec["cluster"] == "cluster"
    spec["battles"] = str(out / "battles.csv")
    pairs = load_preferences(with_defaults({"results_dir": "r", "preferences": {"mine": spec}}), "mine")
    np.testing.assert_array_equal(pairs.clusters, frame["topic"].to_numpy(dtype=object))
    capsys.readouterr()
    frame.assign(cluster=frame["gpt"]).to_csv(tmp_path / "raw.csv", index=False)
    code = main(["import-pairs", str(tmp_path / "raw.csv"), "--task", "other", *options[:-2], "--judge", "cluster"])
    assert code == 2 and "would be named 'cluster', a column of the written table" in capsys.readouterr().err
    assert main([*argv[:2], "--task", "x", *options, "--cluster", "gpt"]) == 2
    assert "column 'gpt' is the --cluster column" in capsys.readouterr().err


# --- the columns of clustered estimates --------------------------------------------------------------


def test_a_leaderboard_of_clustered_estimates_says_the_clusters_and_design_effects():
    from debias.tables.leaderboard import leaderboard_rows, preferences_leaderboard

    pairs = debias.read_pairs(battles(), **PAIR_COLUMNS, judges=["gpt"])
    from debias.stats.preferences import preference_estimates

    results = preference_estimates(pairs, level=0.9)
    plain = preferences_leaderboard(results, level=0.9, names=("t",))
    assert not set(CLUSTER_COLUMNS) & set(plain.columns)
    board = preferences_leaderboard([clustered(r) for r in results], level=0.9, names=("t",))
    assert list(board.columns[-3:]) == ["clusters", "design_effect", "note"]
    assert str(board["clusters"].dtype) == "Int64" and board["clusters"].notna().all()
    pd.testing.assert_frame_equal(board.drop(columns=list(CLUSTER_COLUMNS)), plain)
    human = results[0]
    rows = leaderboard_rows({"human": clustered(human)}, level=0.9)
    order = [human.systems.index(s) for s in rows["system"]]
    assert rows["clusters"].tolist() == [4 + k for k in order]
    np.testing.assert_allclose(rows["design_effect"], np.linspace(1.5, 2.5, 3)[order])


def test_preference_tables_add_the_cluster_columns_only_for_clustered_estimates(monkeypatch):
    import debias.tables.preferences as tables

    pairs = debias.read_pairs(battles(), **PAIR_COLUMNS, judges=["gpt"], cluster="topic")
    independent = debias.read_pairs(battles(), **PAIR_COLUMNS, judges=["gpt"])  # every item distinct
    plain = tables.preference_analysis(independent, level=0.9)
    assert not set(CLUSTER_COLUMNS) & set(plain.table.columns)
    analysis = tables.preference_analysis(pairs, level=0.9)
    table = analysis.table
    assert list(table.columns) == [*tables.PREFERENCE_COLUMNS[:-1], "clusters", "design_effect", "note"]
    live = table["estimator"] != "judge:gpt"
    assert table.loc[live, "clusters"].between(12, 20).all() and table.loc[live, "design_effect"].notna().all()
    people = (table["estimator"] == "human") & (table["estimand"] == "win_rate")
    same = (plain.table["estimator"] == "human") & (plain.table["estimand"] == "win_rate")
    np.testing.assert_allclose(table.loc[people, "estimate"], plain.table.loc[same, "estimate"])
    summary = tables.preference_summary(pairs, analysis)
    assert summary["clusters"] == 20
    assert "clusters" not in tables.preference_summary(independent, plain)


def test_a_ratings_leaderboard_adds_the_cluster_columns_only_for_clustered_estimates(monkeypatch):
    import debias.tables.leaderboard as leaderboard

    plain = debias.leaderboard(read_ratings(ratings()))
    assert not set(CLUSTER_COLUMNS) & set(plain.columns)
    board = debias.leaderboard(read_ratings(ratings(), cluster="doc"))
    assert list(board.columns) == [*leaderboard.LEADERBOARD_COLUMNS[:-1], "clusters", "design_effect", "note"]
    assert board["clusters"].notna().all() and (board["design_effect"] > 0).all()
    pd.testing.assert_series_equal(board["estimate"], plain["estimate"])


def test_a_status_table_says_each_systems_clusters_from_the_joint_estimate():
    from debias.tables.status import STATUS_COLUMNS, status_joint, status_table

    plain_pairs = debias.read_pairs(battles(), **PAIR_COLUMNS, judges=["gpt"])
    state = debias.status(plain_pairs, "top:1", level=0.9)
    assert status_joint(plain_pairs, state) is None
    assert list(status_table(state).columns) == STATUS_COLUMNS
    pairs = debias.read_pairs(battles(), **PAIR_COLUMNS, judges=["gpt"], cluster="topic")
    state = debias.status(pairs, "top:1", level=0.9)
    joint = status_joint(pairs, state)
    assert isinstance(joint, JointEstimate) and joint.estimator == state.estimator and joint.systems == state.systems
    assert joint.n_clusters is not None
    rows = status_table(state, joint)
    assert list(rows.columns) == [*STATUS_COLUMNS[:-1], "clusters", "design_effect", "note"]
    single = rows["versus"].isna() | (rows["versus"] == "")
    assert rows.loc[single, "clusters"].notna().all() and rows.loc[~single, "clusters"].isna().all()
    rated = read_ratings(ratings(), cluster="doc")
    state = debias.status(rated, "top:1")
    assert status_joint(rated, state).estimator == state.estimator
    assert status_joint(read_ratings(ratings()), debias.status(read_ratings(ratings()), "top:1")) is None


# --- the report ------------------------------------------------------------------------------------


def test_the_report_says_a_clustered_tasks_clusters_and_design_effects(monkeypatch):
    import debias.tables.preferences as tables
    from debias.report.preferences import PreferenceTables, preference_lines
    from debias.report.user_tables import cluster_sentence

    clustered_pairs = debias.read_pairs(battles(), **PAIR_COLUMNS, judges=["gpt"], cluster="topic")
    pairs = debias.read_pairs(battles(), **PAIR_COLUMNS, judges=["gpt"])  # every item distinct
    config = {"preferences": {"p": {"label": "P", "judges": {"gpt": {"label": "G"}}}}}

    def section(pairs):
        analysis = tables.preference_analysis(pairs, level=0.9)
        summary = json.loads(json.dumps(tables.preference_summary(pairs, analysis)))
        agreement = tables.agreement_table(pairs, level=0.9)
        shown = PreferenceTables("p", analysis.table, agreement, summary)
        return "\n".join(preference_lines(shown, config, figures=set()))

    assert "clusters" not in section(pairs), "no sentence for independent battles"
    text = section(clustered_pairs)
    assert "The battles share clusters" in text and "20 clusters, each estimate resting on" in text
    assert "design effects from" in text
    rows = pd.DataFrame({"task": "t", "clusters": [12, 12], "design_effect": [1.2, 1.2]})
    assert "12 clusters behind each estimate" in cluster_sentence(rows, "judged items")
    assert "a design effect of 1.20" in cluster_sentence(rows, "judged items")
    assert cluster_sentence(rows.drop(columns=list(CLUSTER_COLUMNS)), "judged items") is None


def test_a_users_ratings_task_with_clusters_gets_its_sentence(monkeypatch):
    from conftest import REPO
    from test_report_tasks import USER_TASK, user_tables

    from debias.report import build_report, load_paper_values

    paper = load_paper_values(REPO / "data/paper/reported_values.yaml")
    config = {"metrics": {"bleu": {"label": "BLEU"}}, "tasks": {"likert": USER_TASK}, "figures": {}}
    empty = pd.DataFrame(columns=["task", "prompt"])
    table2, estimates, comparisons = user_tables()
    board = pd.DataFrame(
        {"task": "likert", "prompt": "quality", "system": ["alpha", "beta"], "estimator": "mean"}
        | {"clusters": [8, 9], "design_effect": [1.1, 1.7], "note": ""}
    )

    def text(leaderboard):
        return build_report(table2, empty, empty, empty, paper, config, figures=[], system_estimates=estimates,
                            comparisons=comparisons, leaderboard=leaderboard)  # fmt: skip

    clustered_text = text(board)
    assert "The judged items share clusters" in clustered_text
    assert "8 to 9 clusters behind each estimate" in clustered_text and "from 1.10 to 1.70" in clustered_text
    assert text(board.drop(columns=list(CLUSTER_COLUMNS))) == text(None)
    assert "share clusters" not in text(None)


# --- the workflow ------------------------------------------------------------------------------------


@pytest.mark.workflow
@pytest.mark.slow
def test_the_workflow_reads_a_tasks_clusters_as_the_commands_do(tmp_path):
    """Both imports with --cluster into one configuration, then snakemake: the joined tables carry
    the clusters, the preference task's summary counts them, and the workflow's leaderboard and
    preference rows are those of the commands reading the same clusters."""
    from workflow_runs import snakemake

    ratings(n=60, judged=45).to_csv(tmp_path / "ratings.csv", index=False)
    battles().to_csv(tmp_path / "battles.csv", index=False)
    config = tmp_path / "config.yaml"
    columns = ["--item", "seg", "--system", "sys", "--judgment", "score", "--score", "bleu", "--cluster", "doc"]
    columns += ["--out", str(tmp_path / "data" / "own"), "--config", str(config)]
    assert main(["import", str(tmp_path / "ratings.csv"), "--task", "own", *columns]) == 0
    pair_options = ["--item", "q", "--system-a", "A", "--system-b", "B", "--verdict", "winner", "--judge", "gpt"]
    pair_options += ["--cluster", "topic", "--out", str(tmp_path / "data" / "duels"), "--config", str(config)]
    assert main(["import-pairs", str(tmp_path / "battles.csv"), "--task", "duels", *pair_options]) == 0
    settings = yaml.safe_load(config.read_text())
    settings["results_dir"] = "results"
    settings |= {"estimates": {"repeats": 100}, "compare": {"repeats": 100}}
    settings["plan"] = {"check": {"pilots": 20, "pilot_size": 10, "n": 20}}
    config.write_text(yaml.safe_dump(settings))
    snakemake(tmp_path, "--configfile", str(config))
    results = tmp_path / "results"
    joined = read_joined(results / "joined/own/a.csv")
    assert joined[CLUSTER].tolist() == [f"doc{int(i[1:]) // 5}" for i in joined["id"]]
    summary = json.loads((results / "tables/preferences/duels/summary.json").read_text())
    assert summary["clusters"] == 20
    workflow = pd.read_csv(results / "tables/preferences/duels/preferences.csv")
    pairs = debias.read_pairs(battles(), **PAIR_COLUMNS, judges=["gpt"], cluster="topic", task="duels")
    ours = debias.preferences(pairs)
    for column in ("estimate", "ci_low", "ci_high"):  # written to 6 significant digits
        np.testing.assert_allclose(workflow[column], ours[column], rtol=1e-5)
    board = pd.read_csv(results / "tables/leaderboard.csv")
    table = read_ratings(ratings(n=60, judged=45), cluster="doc", task="own")
    ours = debias.leaderboard(table, seed=settings["bootstrap"]["seed"])
    for column in ("estimate", "lower", "upper"):
        np.testing.assert_allclose(board[column], ours[column], rtol=1e-5)
    assert board[["rank_low", "rank_high"]].to_numpy().tolist() == ours[["rank_low", "rank_high"]].to_numpy().tolist()
