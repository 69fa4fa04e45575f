"""The debias command: its rows are the workflow table functions' rows for the same files, and a
bad file stops it with the file and line."""

from __future__ import annotations

import copy
import io
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import synthetic_task

from debias.cli import main
from debias.config.labels import compare_spec, estimates_spec, plan_spec
from debias.io.canonical import read_references, read_system
from debias.tables.comparisons import system_comparisons_table
from debias.tables.estimates import system_estimates_table
from debias.tables.joined import join_system
from debias.tables.leaderboard import ratings_leaderboard_table
from debias.tables.plans import plan_table

PROMPTS = {"quality": {"label": "Quality", "min": -1, "max": 1}}


@pytest.fixture
def task(tmp_path):
    root = synthetic_task(tmp_path / "data", "toy", ["alpha", "beta"], n_items=40)
    config = {
        "data_dir": str(tmp_path / "data"),
        "results_dir": str(tmp_path / "results"),
        "metrics": {"m1": {"label": "M1"}, "m2": {"label": "M2"}},
        "min_judged_items": 10,
        "tasks": {
            "toy": {
                "label": "Toy",
                "systems": {"alpha": {"label": "Alpha"}, "beta": {"label": "Beta"}},
                "prompts": copy.deepcopy(PROMPTS),  # tests change it
            }
        },
        "bootstrap": {"replicates": 10, "seed": 3},
        "compare": {"sample_sizes": [10, 20], "repeats": 50, "de_n": 15},
        "plan": {"auto_n": [20], "check": {"pilots": 10, "pilot_size": 15, "n": 20}},
    }
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    rng = np.random.default_rng(0)
    for system in ("alpha", "beta"):
        ids = [line["id"] for line in map(yaml.safe_load, (root / "systems" / f"{system}.jsonl").open())]
        scores = pd.DataFrame({"id": ids, "m1": rng.random(len(ids)), "m2": rng.random(len(ids))})
        scores.to_csv(tmp_path / f"{system}.csv", index=False)
    return tmp_path, root, config


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def joined(tmp_path, root, system):
    references = read_references(root / "references.jsonl")
    items = read_system(root / "systems" / f"{system}.jsonl", PROMPTS, references)
    scores = pd.read_csv(tmp_path / f"{system}.csv", dtype={"id": str})
    return join_system("toy", system, items, ["quality"], scores, ["m1", "m2"])


def as_csv(table):
    return table.to_csv(index=False, float_format="%.6g", lineterminator="\n")


def test_estimate_compare_plan_print_the_table_rows(task):
    tmp_path, root, config = task
    common = ["--config", str(tmp_path / "config.yaml")]
    alpha, beta = (str(root / "systems" / f"{s}.jsonl") for s in ("alpha", "beta"))
    frames = [joined(tmp_path, root, s) for s in ("alpha", "beta")]
    prompts = {"toy": ["quality"]}

    code, out, err = run("estimate", alpha, "--scores", str(tmp_path / "alpha.csv"), *common)
    level = estimates_spec(config)["level"]
    assert level == 0.95  # the config leaves estimates.level to the schema's default
    assert code == 0 and err == "debias estimate: 95% intervals\n"
    assert out == as_csv(system_estimates_table(frames[:1], prompts, ["m1", "m2"], level=level))

    scores = ["--scores", str(tmp_path / "alpha.csv"), "--scores", str(tmp_path / "beta.csv")]
    code, out, _ = run("compare", alpha, beta, *scores, *common)
    spec = compare_spec(config)
    assert code == 0
    assert out == as_csv(system_comparisons_table(frames, prompts, ["m1", "m2"], spec, min_items=10))
    assert "cv:combined" in out

    code, out, _ = run("plan", alpha, "--scores", str(tmp_path / "alpha.csv"), "--metric", "m1", *common)
    assert code == 0
    assert out == as_csv(plan_table(frames[:1], prompts, ["m1"], plan_spec(config)))

    code, out, _ = run("estimate", alpha, "--scores", str(tmp_path / "alpha.csv"), "--format", "markdown", *common)
    assert out.startswith("95% intervals (level 0.95).\n\n| task | prompt | system |") and out.count("\n") == 2 + 2 + 4


def test_plan_target_width_is_the_full_width_and_half_width_is_half_of_it(task):
    tmp_path, root, _ = task
    common = ["--config", str(tmp_path / "config.yaml")]
    alpha = str(root / "systems" / "alpha.jsonl")
    pilot = [alpha, "--scores", str(tmp_path / "alpha.csv"), *common]
    code, full, _ = run("plan", *pilot, "--target-width", "0.4")
    assert code == 0 and ",0.4," in full
    assert run("plan", *pilot, "--half-width", "0.2") == (0, full, "debias plan: 95% intervals\n")
    code, narrower, _ = run("plan", *pilot, "--target-width", "0.2")
    assert narrower != full
    with pytest.raises(SystemExit), redirect_stdout(io.StringIO()) as help_text:
        main(["plan", "--help"])
    assert "FULL width" in " ".join(help_text.getvalue().split())


def test_leaderboard_prints_the_table_rows_and_ranks_lower_first_where_the_prompt_says(task):
    tmp_path, root, config = task
    alpha, beta = (str(root / "systems" / f"{s}.jsonl") for s in ("alpha", "beta"))
    scores = ["--scores", str(tmp_path / "alpha.csv"), "--scores", str(tmp_path / "beta.csv")]
    frames = [joined(tmp_path, root, s) for s in ("alpha", "beta")]
    code, out, _ = run("leaderboard", alpha, beta, *scores, "--config", str(tmp_path / "config.yaml"))
    assert code == 0
    seed = config["bootstrap"]["seed"]  # the workflow's seed: the command's rows are the workflow's
    level = estimates_spec(config)["level"]  # the schema's default, the config giving none
    expected = ratings_leaderboard_table(frames, {"toy": ["quality"]}, ["m1", "m2"], level=level, seed=seed)
    assert out == as_csv(expected)
    config["tasks"]["toy"]["prompts"]["quality"]["higher_is_better"] = False
    (tmp_path / "lower.yaml").write_text(yaml.safe_dump(config))
    code, lower, _ = run("leaderboard", alpha, beta, *scores, "--config", str(tmp_path / "lower.yaml"))
    higher, lower = pd.read_csv(io.StringIO(out)), pd.read_csv(io.StringIO(lower))
    for (_, a), (_, b) in zip(higher.groupby("estimator"), lower.groupby("estimator")):
        assert a["system"].tolist() == b["system"].tolist()[::-1]  # the same systems, the other way round


def test_bad_files_name_file_and_line(task):
    tmp_path, root, _ = task
    common = ["--config", str(tmp_path / "config.yaml")]
    bad = root / "systems" / "bad.jsonl"
    lines = (root / "systems" / "alpha.jsonl").read_text().splitlines()
    bad.write_text("\n".join(lines[:4] + ['{"id": "010", "output": "x", "judgments": {"quality": [5]}}']) + "\n")
    code, _, err = run("estimate", str(bad), *common)
    assert code == 2 and f"{bad}:5:" in err and "outside its declared range" in err

    scores = tmp_path / "bad.csv"
    scores.write_text("id,m1\n000,0.5\n001,oops\n")
    code, _, err = run("estimate", str(root / "systems" / "alpha.jsonl"), "--scores", str(scores), *common)
    assert code == 2 and f"{scores}:3:" in err and "'m1'" in err

    code, _, err = run("estimate", str(tmp_path / "missing.jsonl"), "--task", "toy", *common)
    assert code == 2 and "missing.jsonl" in err

    code, _, err = run("estimate", str(root / "systems" / "alpha.jsonl"), "--metric", "m9", *common)
    assert code == 2 and "m9" in err


def test_help_explains_every_command(capsys):
    for command in ("estimate", "compare", "leaderboard", "plan"):
        with pytest.raises(SystemExit) as exit_info:
            main([command, "--help"])
        assert exit_info.value.code == 0
        text = capsys.readouterr().out
        for option in ("--level", "--metric", "--format", "--scores", "--config"):
            assert option in text
