"""Bad inputs are reported with the file, the line or key, what was found and what was expected."""

import gzip
import json
from pathlib import Path

import pytest
from conftest import synthetic_task, write_jsonl

from debias.io.canonical import InputError, read_system
from debias.pipeline.inputs import validate_inputs

PROMPTS = {"quality": {"min": -1, "max": 1}}


def base_config(root: Path) -> dict:
    synthetic_task(root, "toy", ["a", "b"], n_items=30)
    return {
        "data_dir": str(root),
        "metrics": {"bleu": {"label": "BLEU"}},
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


def corrupt_line(path: Path, line_number: int, text: str) -> None:
    lines = path.read_text().splitlines()
    lines[line_number - 1] = text
    path.write_text("\n".join(lines) + "\n")


def error_of(config) -> str:
    with pytest.raises(InputError) as info:
        validate_inputs(config)
    return str(info.value)


def test_valid_inputs_pass(tmp_path):
    counts = validate_inputs(base_config(tmp_path))
    assert counts == {"toy": {"a": 30, "b": 30}}


def test_line_that_is_not_json(tmp_path):
    config = base_config(tmp_path)
    path = tmp_path / "toy/systems/a.jsonl"
    corrupt_line(path, 7, '{"id": "006", "output": "x", ')
    message = error_of(config)
    assert f"{path}:7" in message and "not valid JSON" in message


@pytest.mark.parametrize("key", ["id", "output", "judgments"])
def test_line_missing_a_key(tmp_path, key):
    config = base_config(tmp_path)
    path = tmp_path / "toy/systems/b.jsonl"
    record = json.loads(path.read_text().splitlines()[2])
    del record[key]
    corrupt_line(path, 3, json.dumps(record))
    message = error_of(config)
    assert f"{path}:3" in message and f"missing key '{key}'" in message


def test_judgment_outside_declared_range(tmp_path):
    config = base_config(tmp_path)
    path = tmp_path / "toy/systems/a.jsonl"
    corrupt_line(path, 4, json.dumps({"id": "003", "output": "x", "judgments": {"quality": [1, 7]}}))
    message = error_of(config)
    assert f"{path}:4" in message and "7" in message and "[-1, 1]" in message


def test_judgment_not_a_number(tmp_path):
    config = base_config(tmp_path)
    path = tmp_path / "toy/systems/a.jsonl"
    corrupt_line(path, 5, json.dumps({"id": "004", "output": "x", "judgments": {"quality": ["good"]}}))
    message = error_of(config)
    assert f"{path}:5" in message and "must be a number or null" in message and '"good"' in message


def test_id_without_reference(tmp_path):
    config = base_config(tmp_path)
    path = tmp_path / "toy/systems/a.jsonl"
    corrupt_line(path, 2, json.dumps({"id": "999", "output": "x", "judgments": {"quality": [1]}}))
    message = error_of(config)
    assert f"{path}:2" in message and "'999' has no reference" in message


def test_same_id_twice(tmp_path):
    config = base_config(tmp_path)
    path = tmp_path / "toy/systems/b.jsonl"
    corrupt_line(path, 9, json.dumps({"id": "001", "output": "x", "judgments": {"quality": [1]}}))
    message = error_of(config)
    assert f"{path}:9" in message and "'001' appears twice" in message and "line 2" in message


def test_unknown_prompt(tmp_path):
    config = base_config(tmp_path)
    path = tmp_path / "toy/systems/b.jsonl"
    corrupt_line(path, 1, json.dumps({"id": "000", "output": "x", "judgments": {"qualty": [1]}}))
    assert "unknown prompt 'qualty'" in error_of(config)


def test_missing_system_file(tmp_path):
    config = base_config(tmp_path)
    config["tasks"]["toy"]["systems"]["c"] = {"label": "C"}
    message = error_of(config)
    assert "systems/c.jsonl.gz" in message and "tasks.toy.systems" in message and "not found" in message


def test_too_few_judged_items(tmp_path):
    config = base_config(tmp_path)
    config["min_judged_items"] = 31
    message = error_of(config)
    assert "30 judged items" in message and "at least 31" in message


def test_released_checksum_mismatch(tmp_path):
    config = base_config(tmp_path)
    released = tmp_path / "released.jsonl.gz"
    released.write_bytes(gzip.compress(b"{}\n"))
    config["released"] = [{"path": str(released), "sha256": "0" * 64}]
    message = error_of(config)
    assert str(released) in message and "sha256" in message and "0" * 64 in message


def test_figure_config_names_must_exist(tmp_path):
    config = base_config(tmp_path)
    config["figures"] = {"figure6": {"p": {"task": "toy", "prompt": "quality", "system": "zzz", "metric": "best"}}}
    assert "figures.figure6.p" in error_of(config) and "zzz" in error_of(config)


def test_table1_config_names_must_exist(tmp_path):
    config = base_config(tmp_path)
    config["table1"] = {
        "a": {"task": "toy", "prompt": "quality", "judgment_threshold": 0.5, "implementation": "rouge9"}
    }
    assert "table1.a.implementation" in error_of(config) and "rouge9" in error_of(config)
    config["table1"]["a"].update(implementation="rouge021-L", prompt="zzz")
    assert "table1.a.prompt" in error_of(config) and "zzz" in error_of(config)


def test_empty_output_is_valid(tmp_path):
    path = write_jsonl(tmp_path / "s.jsonl", [{"id": "1", "output": "", "judgments": {"quality": [0, None]}}])
    (item,) = read_system(path, PROMPTS, {"1": "ref"})
    assert item.output == "" and item.judgments == {"quality": [0.0]}


def test_gzip_and_plain_are_both_accepted(tmp_path):
    records = [{"id": "1", "output": "a", "judgments": {"quality": [1]}}]
    plain = write_jsonl(tmp_path / "s.jsonl", records)
    zipped = tmp_path / "s.jsonl.gz"
    zipped.write_bytes(gzip.compress(plain.read_bytes()))
    assert read_system(plain, PROMPTS)[0].id == read_system(zipped, PROMPTS)[0].id == "1"


@pytest.mark.parametrize(
    ("records", "expected"),
    [
        ([3], "at least two positive integers"),
        ([2, 0], "at least two positive integers"),
        ("2 1", "at least two positive integers"),
        ([1, 1], "adds up to 2 judgments, but prompt 'quality' has 3"),
    ],
)
def test_judgment_records_must_split_every_prompt(tmp_path, records, expected):
    config = base_config(tmp_path)
    path = tmp_path / "toy/systems/a.jsonl"
    line = {"id": "004", "output": "x", "judgments": {"quality": [1, 0, None]}, "judgment_records": records}
    corrupt_line(path, 5, json.dumps(line))
    message = error_of(config)
    assert f"{path}:5" in message and "'judgment_records'" in message and expected in message
