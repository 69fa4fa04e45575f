"""The workflow's start-up checks: the config against its schema with the key named, and the
input check that parses every line only when a file or a setting it reads has changed."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest
import yaml
from conftest import REPO, synthetic_task

from debias.config.labels import plan_spec
from debias.config.settings import schema_problem, section_defaults
from debias.io.canonical import InputError, count_outputs
from debias.pipeline import startup
from debias.pipeline.startup import checked_inputs

SCHEMA = REPO / "src/debias/config/schema.yaml"


def input_config(root: Path) -> dict:
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


@pytest.fixture
def parses(monkeypatch):
    """Counts the full checks (every line parsed) that :func:`checked_inputs` runs."""
    calls = []
    real = startup.validate_inputs

    def counted(config, base_dir="."):
        calls.append(1)
        return real(config, base_dir)

    monkeypatch.setattr(startup, "validate_inputs", counted)
    return calls


def test_second_check_of_unchanged_inputs_parses_nothing(tmp_path, parses):
    config = input_config(tmp_path / "data")
    cache = tmp_path / "cache"
    first = checked_inputs(config, cache)
    second = checked_inputs(config, cache)
    assert (first.cached, second.cached) == (False, True)
    assert len(parses) == 1
    assert first.judged_items == second.judged_items == {"toy": {"a": 30, "b": 30}}
    system = tmp_path / "data/toy/systems/a.jsonl"
    assert first.outputs == second.outputs == {"toy": {"a": count_outputs(system), "b": 30}}


def test_touched_file_and_label_edit_parse_nothing_again(tmp_path, parses):
    config = input_config(tmp_path / "data")
    cache = tmp_path / "cache"
    checked_inputs(config, cache)
    system = tmp_path / "data/toy/systems/a.jsonl"
    os.utime(system, ns=(system.stat().st_atime_ns, system.stat().st_mtime_ns + 10**9))
    config["tasks"]["toy"]["label"] = "Toy task, renamed"
    config["tasks"]["toy"]["prompts"]["quality"]["label"] = "Quality"
    assert checked_inputs(config, cache).cached
    assert len(parses) == 1


def test_changed_line_is_checked_again_and_named(tmp_path, parses):
    config = input_config(tmp_path / "data")
    cache = tmp_path / "cache"
    checked_inputs(config, cache)
    system = tmp_path / "data/toy/systems/b.jsonl"
    lines = system.read_text().splitlines()
    lines[4] = json.dumps({"id": "004", "output": "x", "judgments": {"quality": [5]}})
    system.write_text("\n".join(lines) + "\n")
    for _ in range(2):  # a failed check is not remembered: it fails again
        with pytest.raises(InputError) as error:
            checked_inputs(config, cache)
        assert f"{system}:5" in str(error.value) and "[-1, 1]" in str(error.value)
    assert len(parses) == 3


def test_a_setting_the_check_reads_checks_again(tmp_path, parses):
    config = input_config(tmp_path / "data")
    cache = tmp_path / "cache"
    checked_inputs(config, cache)
    config["tasks"]["toy"]["prompts"]["quality"]["max"] = 0.5
    with pytest.raises(InputError, match="outside its declared range"):
        checked_inputs(config, cache)
    config["tasks"]["toy"]["prompts"]["quality"]["max"] = 1
    config["min_judged_items"] = 31
    with pytest.raises(InputError, match="at least 31"):
        checked_inputs(config, cache)
    assert len(parses) == 3


def test_missing_file_after_a_passed_check(tmp_path):
    config = input_config(tmp_path / "data")
    cache = tmp_path / "cache"
    checked_inputs(config, cache)
    (tmp_path / "data/toy/systems/b.jsonl").unlink()
    with pytest.raises(InputError, match=r"systems/b\.jsonl\.gz.*not found"):
        checked_inputs(config, cache)


def test_changed_released_file_fails_after_a_passed_check(tmp_path):
    config = input_config(tmp_path / "data")
    released = tmp_path / "released.jsonl.gz"
    released.write_bytes(gzip.compress(b"{}\n"))
    from debias.io.atomic import sha256sum

    config["released"] = [{"path": str(released), "sha256": sha256sum(released)}]
    cache = tmp_path / "cache"
    checked_inputs(config, cache)
    released.write_bytes(gzip.compress(b"[]\n"))
    with pytest.raises(InputError, match="sha256 is"):
        checked_inputs(config, cache)


def test_unreadable_cache_entry_is_checked_again(tmp_path, parses):
    config = input_config(tmp_path / "data")
    cache = tmp_path / "cache"
    checked_inputs(config, cache)
    (entry,) = cache.glob("*.json")
    entry.write_text("{not json")
    assert not checked_inputs(config, cache).cached
    assert checked_inputs(config, cache).cached
    assert len(parses) == 2


def test_cache_keeps_only_the_newest_entries(tmp_path, monkeypatch):
    monkeypatch.setattr(startup, "CACHE_KEEP", 2)
    config = input_config(tmp_path / "data")
    cache = tmp_path / "cache"
    for minimum in (10, 11, 12, 13):
        config["min_judged_items"] = minimum
        checked_inputs(config, cache)
    assert len(list(cache.glob("*.json"))) == 2


def paper_config() -> dict:
    return yaml.safe_load((REPO / "config/config.yaml").read_text())


@pytest.mark.parametrize("value", [None, 0, "false", "yes", [], 1.5])
def test_wrong_plan_check_is_refused_naming_the_key(value):
    config = paper_config()
    config["plan"]["check"] = value
    problem = schema_problem(config, SCHEMA)
    assert problem and problem.startswith("config key plan.check: ")
    assert json.dumps(value) in problem and "true for the defaults" in problem


@pytest.mark.parametrize("value", [True, False, {}, {"pilots": 20}])
def test_valid_plan_check_passes(value):
    config = paper_config()
    config["plan"]["check"] = value
    assert schema_problem(config, SCHEMA) is None


def test_wrong_setting_inside_plan_check_is_named():
    config = paper_config()
    config["plan"]["check"] = {"pilots": 5}
    assert schema_problem(config, SCHEMA) == "config key plan.check.pilots: 5 is less than the minimum of 10"


def test_schema_problem_names_nested_keys():
    config = paper_config()
    assert schema_problem(config, SCHEMA) is None
    config["bootstrap"]["replicates"] = "many"
    assert schema_problem(config, SCHEMA).startswith("config key bootstrap.replicates: 'many' is not of type")
    config = paper_config()
    config["tasks"]["cnndm"]["prompts"]["edit"]["higher_is_better"] = "no"
    assert "config key tasks.cnndm.prompts.edit.higher_is_better" in schema_problem(config, SCHEMA)


@pytest.mark.parametrize(
    ("check", "expected"),
    [
        (True, section_defaults("plan")["check"]),
        (None, section_defaults("plan")["check"]),
        ({"pilots": 20}, {**section_defaults("plan")["check"], "pilots": 20}),
        (False, False),
    ],
)
def test_plan_spec_check(check, expected):
    config = {"bootstrap": {"seed": 1}, "plan": {"check": check}}
    assert plan_spec(config)["check"] == expected
    assert plan_spec({"bootstrap": {"seed": 1}})["check"] == section_defaults("plan")["check"]
