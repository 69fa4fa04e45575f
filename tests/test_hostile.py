"""The `debias` command on hostile input: every case exits with status 2 and a one-line message
naming the input and what was expected, or makes a documented choice; never a traceback."""

from __future__ import annotations

import gzip
import json

import pytest
import yaml
from conftest import synthetic_task
from test_cli import run, task  # noqa: F401  (the fixture)

from debias.cli import main


def _alpha(root):
    return str(root / "systems" / "alpha.jsonl")


def _fails(code, err, *words):
    assert code == 2, err
    assert "Traceback" not in err and err.count("\n") <= 1
    for word in words:
        assert word in err, err


def test_empty_system_file(task):  # noqa: F811
    tmp_path, root, _ = task
    empty = root / "systems" / "empty.jsonl"
    empty.write_text("\n\n")
    _fails(*run("estimate", str(empty), "--config", str(tmp_path / "config.yaml"))[::2], "no outputs")


@pytest.mark.parametrize(
    ("value", "message"),
    [("1" + "0" * 400, "401-digit integer"), ("1e308", "1e154")],
)
def test_numbers_whose_squares_overflow(task, value, message):  # noqa: F811
    tmp_path, root, config = task
    config["tasks"]["toy"]["prompts"]["quality"]["max"] = None
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    bad = root / "systems" / "big.jsonl"
    bad.write_text(f'{{"id": "000", "output": "x", "judgments": {{"quality": [{value}]}}}}\n')
    code, _, err = run("estimate", str(bad), "--config", str(tmp_path / "config.yaml"))
    _fails(code, err, f"{bad}:1", message)


def test_judged_output_named_twice_in_one_file(task):  # noqa: F811
    tmp_path, root, _ = task
    lines = [json.loads(line) for line in (root / "systems" / "alpha.jsonl").read_text().splitlines()]
    lines[0]["judged_output"] = lines[1]["judged_output"] = "shared-1"
    (root / "systems" / "twice.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, _, err = run("estimate", str(root / "systems" / "twice.jsonl"), "--config", str(tmp_path / "config.yaml"))
    _fails(code, err, "twice.jsonl", "named by two lines")


def test_compare_across_tasks_is_refused(task):  # noqa: F811
    tmp_path, root, config = task
    other = synthetic_task(tmp_path / "data", "toy2", ["gamma"], n_items=40)
    config["tasks"]["toy2"] = {
        "label": "Toy 2",
        "systems": {"gamma": {"label": "G"}},
        "prompts": config["tasks"]["toy"]["prompts"],
    }
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    code, _, err = run(
        "compare", _alpha(root), str(other / "systems" / "gamma.jsonl"), "--config", str(tmp_path / "config.yaml")
    )
    _fails(code, err, "different tasks")


def test_scores_files(task):  # noqa: F811
    tmp_path, root, _ = task
    common = ["--config", str(tmp_path / "config.yaml")]
    text = (tmp_path / "alpha.csv").read_text()
    lines = text.splitlines()
    (tmp_path / "dup.csv").write_text("\n".join([*lines, lines[1].replace(lines[1].split(",")[1], "0.5")]) + "\n")
    _fails(*run("estimate", _alpha(root), "--scores", str(tmp_path / "dup.csv"), *common)[::2], "appears twice")
    (tmp_path / "latin.csv").write_bytes("id,m1\n000,0.5\n001,caf\xe9\n".encode("latin-1"))
    _fails(*run("estimate", _alpha(root), "--scores", str(tmp_path / "latin.csv"), *common)[::2], "not UTF-8")
    (tmp_path / "under.csv").write_text("id,m1\n000,1_0\n")
    _fails(*run("estimate", _alpha(root), "--scores", str(tmp_path / "under.csv"), *common)[::2], "'1_0'")
    # gzipped and BOM-headed files are read as they are
    with gzip.open(tmp_path / "alpha.csv.gz", "wt", encoding="utf-8") as handle:
        handle.write(text)
    (tmp_path / "bom.csv").write_text("\ufeff" + text, encoding="utf-8")
    plain = run("estimate", _alpha(root), "--scores", str(tmp_path / "alpha.csv"), *common)
    for name in ("alpha.csv.gz", "bom.csv"):
        assert run("estimate", _alpha(root), "--scores", str(tmp_path / name), *common) == plain
    _fails(
        *run("estimate", _alpha(root), "--scores", str(tmp_path / "alpha.csv"), "--compute", "bleu", *common)[::2],
        "either",
    )


@pytest.mark.parametrize(
    "options",
    [
        ["--level", "0"], ["--level", "1"], ["--level", "1.5"], ["--level", "-0.2"], ["--level", "nan"],
        ["--level", "inf"],
        ["--target-width", "0"], ["--target-width", "-1"], ["--target-width", "nan"], ["--target-width", "inf"],
        ["--assurance", "0"], ["--assurance", "1"], ["--assurance", "1.5"], ["--assurance", "nan"],
        ["--cost-per-judgment", "0"], ["--cost-per-judgment", "-1"], ["--cost-per-item", "-1"],
        ["--cost-per-item", "nan"], ["--max-judgments-per-item", "0"], ["--max-judgments-per-item", "-1"],
    ],
)  # fmt: skip
def test_out_of_range_options(task, options, capsys):  # noqa: F811
    tmp_path, root, _ = task
    with pytest.raises(SystemExit) as exit_info:
        main(["plan", _alpha(root), "--config", str(tmp_path / "config.yaml"), *options])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert options[0] in err and "expected" in err


@pytest.mark.parametrize(
    ("content", "message"),
    [("a: [1, 2", "not valid YAML"), ("", "expected a mapping"), (None, "not a file"), ("estimates", "mapping")],
)
def test_bad_config_files(task, content, message):  # noqa: F811
    tmp_path, root, config = task
    path = tmp_path / "bad.yaml"
    if content is None:
        path.mkdir()
    else:
        path.write_text(content)
    _fails(*run("estimate", _alpha(root), "--config", str(path))[::2], message)
    config["estimates"] = {"level": 5}
    path = tmp_path / "level.yaml"
    path.write_text(yaml.safe_dump(config))
    _fails(*run("estimate", _alpha(root), "--config", str(path))[::2], "estimates.level")


def test_a_metric_named_twice_counts_once(task):  # noqa: F811
    tmp_path, root, _ = task
    scores = str(tmp_path / "alpha.csv")
    config = str(tmp_path / "config.yaml")
    code, out, _ = run(
        "estimate", _alpha(root), "--scores", scores, "--metric", "m1", "--metric", "m1", "--config", config
    )
    assert code == 0
    estimators = [line.split(",")[3] for line in out.splitlines()[1:]]
    assert estimators == ["mean", "cv:m1"]
