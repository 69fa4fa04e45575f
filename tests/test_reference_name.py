"""A misspelt reference_system is reported as that key, with the files that do exist; a missing
system file still points at tasks.<task>.systems."""

import pytest
from conftest import write_jsonl

from debias.config.tasks import system_path
from debias.io.canonical import InputError
from debias.pipeline.startup import checked_inputs


def task_config(tmp_path, reference="reference"):
    root = tmp_path / "data"
    write_jsonl(root / "t/references.jsonl", [{"id": "1", "reference": "a b c"}])
    for name in ("alpha", "reference"):
        write_jsonl(root / f"t/systems/{name}.jsonl", [{"id": "1", "output": "a b", "judgments": {"q": [1]}}])
    return {
        "data_dir": str(root),
        "metrics": {"bleu": {"label": "BLEU"}},
        "min_judged_items": 1,
        "tasks": {
            "t": {
                "label": "T",
                "systems": {"alpha": {"label": "alpha"}},
                "reference_system": reference,
                "prompts": {"q": {"label": "Q", "min": 0, "max": 1}},
            }
        },
    }


def test_a_misspelt_reference_system_names_its_key_and_the_files_there(tmp_path):
    config = task_config(tmp_path, reference="refrence")
    with pytest.raises(InputError) as error:
        system_path(config, "t", "refrence")
    assert error.value.where == "config: tasks.t.reference_system"
    assert "'refrence'" in error.value.message and "files there: alpha, reference" in error.value.message
    assert "tasks.t.systems" not in str(error.value)
    with pytest.raises(InputError, match="tasks.t.reference_system"):
        checked_inputs(config, cache_dir=tmp_path / "cache", base_dir=tmp_path)


def test_a_missing_system_file_still_names_the_systems_key(tmp_path):
    config = task_config(tmp_path)
    assert system_path(config, "t", "reference").name == "reference.jsonl"
    with pytest.raises(InputError, match=r"configured under tasks.t.systems.*files there: alpha, reference"):
        system_path(config, "t", "alpah")
