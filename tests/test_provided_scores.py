"""Inputs a real evaluation has: unjudged outputs, and metric scores computed elsewhere."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import synthetic_task

from debias.io.canonical import InputError, read_system
from debias.pipeline.inputs import validate_inputs
from debias.tables.joined import join_system, judged_rows

PROMPTS = {"quality": {"min": -1, "max": 1}}


def add_scores(path: Path, metric: str = "judge", drop_line: int | None = None, value=None) -> None:
    """Give every line of a system file a provided score (optionally not on one line, or a bad value)."""
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for number, record in enumerate(lines, start=1):
        if number == drop_line:
            record.pop("scores", None)
            continue
        record["scores"] = {metric: (value if value is not None and number == 5 else number / 10)}
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))


def unjudge(path: Path, numbers) -> None:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for number in numbers:
        lines[number - 1]["judgments"] = {}
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))


def config_with_provided(root: Path) -> dict:
    synthetic_task(root, "toy", ["a", "b"], n_items=30)
    for system in "ab":
        add_scores(root / f"toy/systems/{system}.jsonl")
    return {
        "data_dir": str(root),
        "metrics": {"bleu": {"label": "BLEU"}, "judge": {"label": "LLM judge", "provided": True}},
        "min_judged_items": 10,
        "tasks": {
            "toy": {
                "label": "Toy",
                "systems": {"a": {"label": "A"}, "b": {"label": "B"}},
                "prompts": {"quality": {"label": "Q", "min": -1, "max": 1}},
            }
        },
        "figures": {},
    }


def error_of(config) -> str:
    with pytest.raises(InputError) as info:
        validate_inputs(config)
    return str(info.value)


def test_provided_scores_are_read(tmp_path):
    config = config_with_provided(tmp_path)
    assert validate_inputs(config) == {"toy": {"a": 30, "b": 30}}
    items = read_system(tmp_path / "toy/systems/a.jsonl", PROMPTS, provided=["judge"])
    assert [item.scores["judge"] for item in items[:3]] == [0.1, 0.2, 0.3]


def test_score_missing_on_one_line_names_file_line_and_metric(tmp_path):
    config = config_with_provided(tmp_path)
    path = tmp_path / "toy/systems/b.jsonl"
    add_scores(path, drop_line=12)
    message = error_of(config)
    assert f"{path}:12" in message and "'judge'" in message and "no score" in message


def test_declared_but_absent_everywhere(tmp_path):
    config = config_with_provided(tmp_path)
    config["metrics"]["other"] = {"label": "Other", "provided": True}
    message = error_of(config)
    assert "toy/systems/a.jsonl:1" in message and "'other'" in message and "no line of this file" in message


@pytest.mark.parametrize("value", ["0.5", True, float("inf"), float("nan"), [1]])
def test_score_that_is_not_a_finite_number(tmp_path, value):
    config = config_with_provided(tmp_path)
    path = tmp_path / "toy/systems/a.jsonl"
    add_scores(path, value=value)
    message = error_of(config)
    assert f"{path}:5" in message and "'judge'" in message and "finite number" in message


def test_score_for_an_undeclared_metric(tmp_path):
    config = config_with_provided(tmp_path)
    del config["metrics"]["judge"]
    message = error_of(config)
    assert "toy/systems/a.jsonl:1" in message and "'judge'" in message and "does not declare" in message


def test_scores_must_be_an_object(tmp_path):
    config = config_with_provided(tmp_path)
    path = tmp_path / "toy/systems/a.jsonl"
    lines = path.read_text().splitlines()
    record = json.loads(lines[2])
    record["scores"] = [0.3]
    lines[2] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")
    assert f"{path}:3" in error_of(config)


def test_unknown_metric_that_is_not_provided(tmp_path):
    config = config_with_provided(tmp_path)
    config["metrics"]["bertscore"] = {"label": "BERTScore"}
    message = error_of(config)
    assert "metrics.bertscore" in message and "provided: true" in message


def test_unjudged_outputs_are_accepted_and_not_counted_as_judged(tmp_path):
    config = config_with_provided(tmp_path)
    unjudge(tmp_path / "toy/systems/a.jsonl", range(1, 10))
    assert validate_inputs(config) == {"toy": {"a": 21, "b": 30}}
    unjudge(tmp_path / "toy/systems/b.jsonl", range(1, 22))
    message = error_of(config)
    assert "9 judged items" in message and "min_judged_items" in message


def test_join_puts_provided_scores_in_metric_columns_and_keeps_unjudged_rows(tmp_path):
    config_with_provided(tmp_path)
    path = tmp_path / "toy/systems/a.jsonl"
    unjudge(path, [1, 2, 3])
    items = read_system(path, PROMPTS, provided=["judge"])
    computed = pd.DataFrame({"id": [item.id for item in items], "bleu": np.linspace(0, 1, len(items))})
    frame = join_system("toy", "a", items, ["quality"], computed, ["bleu", "judge"], provided=["judge"])
    assert list(frame.columns[-2:]) == ["bleu", "judge"]
    np.testing.assert_allclose(frame["judge"], np.arange(1, 31) / 10)
    np.testing.assert_allclose(frame["bleu"], np.linspace(0, 1, 30))
    assert (frame["n_judgments"].iloc[:3] == 0).all() and frame["mean_judgment"].iloc[:3].isna().all()
    assert len(judged_rows(frame, "quality")) == 27
    only_provided = join_system("toy", "a", items, ["quality"], None, ["judge"], provided=["judge"])
    np.testing.assert_allclose(only_provided["judge"], frame["judge"])
    with pytest.raises(InputError, match="no computed scores"):
        join_system("toy", "a", items, ["quality"], None, ["bleu", "judge"], provided=["judge"])
