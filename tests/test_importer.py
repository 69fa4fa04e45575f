"""`debias import`: a long table of ratings becomes canonical files and a config block the
workflow accepts; bad rows are named with their row and column."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from debias.cli import main
from debias.config.settings import schema_problem
from debias.io.canonical import read_references, read_system


def mqm_like(path, systems=14, items=40):
    """One rater per segment, German text with a lone quote, error scores 0-25, a COMET-like score."""
    rng = np.random.default_rng(1)
    rows = []
    for s in range(systems):
        name = "Human ref" if s == systems - 1 else f"sys-{s}"
        for i in range(items):
            q = rng.normal(-0.1 * s, 1)
            rows.append(
                {
                    "seg": f"s{i:03d}",
                    "system": name,
                    "rater": f"r{i % 3}",
                    "mqm": float(np.clip(round(5 - 3 * q, 2), 0, 25)),
                    "target": f'Größe „{i}" des Flüchtlingshotels "{name}',
                    "comet": round(q + rng.normal(0, 0.5), 4),
                }
            )
    pd.DataFrame(rows).to_csv(path, sep="\t", index=False, quoting=csv.QUOTE_NONE)
    return rows


def likert_like(path, systems=12, items=30):
    """Three raters, four 1-5 prompts with a ceiling at 5, a per-output score."""
    rng = np.random.default_rng(2)
    rows = []
    for s in range(systems):
        for i in range(items):
            for prompt in ("coherence", "consistency", "fluency", "relevance"):
                for rater in ("c", "a", "b"):
                    score = 5 if rng.random() < 0.85 else int(rng.integers(1, 5))
                    rows.append(
                        {"item": i, "system": f"m{s}", "prompt": prompt, "rater": rater, "score": score,
                         "bertscore": round(0.5 + 0.01 * s - 0.001 * i, 4)}
                    )  # fmt: skip
    pd.DataFrame(rows).to_csv(path, index=False)
    return rows


def run(capsys, *argv):
    code = main(["import", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_mqm_like_table_round_trips(tmp_path, capsys):
    rows = mqm_like(tmp_path / "mqm.tsv")
    out = tmp_path / "data" / "mqm"
    code, printed, _ = run(
        capsys, tmp_path / "mqm.tsv", "--task", "mqm", "--item", "seg", "--system", "system", "--judgment", "mqm",
        "--rater", "rater", "--output", "target", "--reference-system", "Human ref", "--score", "comet",
        "--lower-is-better", "--out", out,
    )  # fmt: skip
    assert code == 0
    block = yaml.safe_load(printed)
    task = block["tasks"]["mqm"]
    assert task["reference_system"] == "Human_ref" and "Human_ref" not in task["systems"]
    assert len(task["systems"]) == 13 and task["prompts"]["score"]["higher_is_better"] is False
    assert block["metrics"] == {"comet": {"label": "comet", "provided": True}}
    items = read_system(out / "systems" / "sys-3.jsonl.gz", task["prompts"], provided=["comet"])
    first = next(r for r in rows if r["system"] == "sys-3" and r["seg"] == "s000")
    assert items[0].output == first["target"]  # umlauts, ß and lone quotes kept exactly
    assert items[0].judgments["score"] == [first["mqm"]] and items[0].scores["comet"] == first["comet"]
    references = read_references(out / "references.jsonl.gz")
    assert references["s005"] == 'Größe „5" des Flüchtlingshotels "Human ref'
    config = {
        "data_dir": str(tmp_path / "data"), "results_dir": "results", "nltk_data": "nltk_data",
        "metrics": block["metrics"], "tasks": block["tasks"], "bootstrap": {"replicates": 10, "seed": 1}, "figures": {},
    }  # fmt: skip
    assert schema_problem(config) is None


def test_likert_table_keeps_rater_order(tmp_path, capsys):
    rows = likert_like(tmp_path / "likert.csv")
    out = tmp_path / "likert"
    code, printed, _ = run(
        capsys, tmp_path / "likert.csv", "--task", "summeval", "--item", "item", "--system", "system",
        "--judgment", "score", "--prompt", "prompt", "--rater", "rater", "--score", "bertscore", "--out", out,
    )  # fmt: skip
    assert code == 0
    task = yaml.safe_load(printed)["tasks"]["summeval"]
    assert list(task["prompts"]) == ["coherence", "consistency", "fluency", "relevance"]
    assert task["prompts"]["fluency"]["max"] == 5.0
    items = read_system(out / "systems" / "m0.jsonl.gz", task["prompts"], provided=["bertscore"])
    expected = [
        r["score"]
        for r in sorted(
            (r for r in rows if r["system"] == "m0" and r["item"] == 0 and r["prompt"] == "fluency"),
            key=lambda r: r["rater"],
        )
    ]
    assert items[0].judgments["fluency"] == expected  # raters a, b, c


def test_config_option_adds_the_task_once(tmp_path, capsys):
    likert_like(tmp_path / "likert.csv", systems=2, items=3)
    config = tmp_path / "config.yaml"
    config.write_text("tasks:\n  other: {label: Other}\n")
    args = [tmp_path / "likert.csv", "--task", "s", "--item", "item", "--system", "system", "--judgment", "score",
            "--prompt", "prompt", "--score", "bertscore", "--out", tmp_path / "s", "--config", config]  # fmt: skip
    assert run(capsys, *args)[0] == 0
    assert set(yaml.safe_load(config.read_text())["tasks"]) == {"other", "s"}
    code, _, err = run(capsys, *args)
    assert code == 2 and "already has ['s']" in err
    fresh = tmp_path / "new.yaml"  # a config file that does not exist yet is created
    code, _, err = run(capsys, *args[:-1], fresh)  # ... but the data files are there already
    assert code == 2 and "exist" in err and "--force" in err and not fresh.exists()
    assert run(capsys, *args[:-1], fresh, "--force")[0] == 0
    assert set(yaml.safe_load(fresh.read_text())["tasks"]) == {"s"}
    broken = tmp_path / "broken.yaml"
    broken.write_text("tasks: [")
    code, _, err = run(capsys, *args[:-1], broken, "--force")
    assert code == 2 and "cannot be read as YAML" in err


def test_a_new_config_file_runs_as_it_is(tmp_path, capsys):
    """A config file created by the import is complete: it passes the workflow's schema with every
    required key, computes the language-independent metrics from the outputs, and leaves METEOR out
    for German."""
    from debias.config.settings import load_config

    mqm_like(tmp_path / "mqm.tsv", systems=3, items=5)
    args = [tmp_path / "mqm.tsv", "--task", "de", "--item", "seg", "--system", "system", "--judgment", "mqm",
            "--output", "target", "--reference-system", "Human ref", "--out", tmp_path / "data" / "de"]  # fmt: skip
    assert run(capsys, *args, "--language", "de", "--config", tmp_path / "de.yaml")[0] == 0
    config = load_config(tmp_path / "de.yaml")  # the workflow's schema, every required key
    # Paths relative to the configuration's folder, whatever folder the import ran in.
    assert config["relative_to_config"] is True and config["data_dir"] == "data"
    assert config["results_dir"] == "results/de" and not Path(config["nltk_data"]).is_absolute()
    assert config["tasks"]["de"]["language"] == "de"
    assert list(config["metrics"]) == ["bleu", "chrf", "chrfpp", "rouge1", "rouge2", "rougeL"]
    assert run(capsys, *args[:-1], tmp_path / "en", "--config", tmp_path / "en.yaml")[0] == 0
    assert "meteor" in load_config(tmp_path / "en.yaml")["metrics"]
    # without output texts nothing can be computed: only the provided scores are metrics
    plain = [a for a in args if a not in ("--output", "target")]
    assert run(capsys, *plain[:-1], tmp_path / "p", "--score", "comet", "--config", tmp_path / "p.yaml")[0] == 0
    assert list(load_config(tmp_path / "p.yaml")["metrics"]) == ["comet"]


@pytest.mark.parametrize(
    ("rows", "options", "message"),
    [
        ([{"item": 1, "system": "a", "score": "x"}], [], "row 2: column 'score': expected a finite number, found 'x'"),
        ([{"item": 1, "system": "a", "score": "1_0"}], [], "found '1_0'"),
        ([{"item": 1, "system": "a", "score": "inf"}], [], "finite number"),
        ([{"item": 1, "system": "", "score": 1}], [], "row 2: column 'system' is empty"),
        ([{"item": 1, "system": "a", "score": 1}], ["--rater", "who"], "no column 'who'"),
        (
            [{"item": 1, "system": "a", "score": 1, "r": "x"}, {"item": 1, "system": "a", "score": 2, "r": "x"}],
            ["--rater", "r"],
            "row 3: rater 'x' judged this item, system and prompt twice",
        ),
        (
            [{"item": 1, "system": "a", "score": 1, "t": "u"}, {"item": 1, "system": "a", "score": 2, "t": "v"}],
            ["--output", "t"],
            "rows 2 and 3: column 't' differs",
        ),
        (
            [{"item": 1, "system": "a", "score": 1, "m": 0.1}, {"item": 1, "system": "a", "score": 2, "m": 0.2}],
            ["--score", "m"],
            "rows 2 and 3",
        ),
        (
            [{"item": 1, "system": "a", "score": 1}],
            ["--reference-system", "b"],
            "'b' is not a value of column 'system'",
        ),
    ],
)
def test_bad_rows_are_named(tmp_path, capsys, rows, options, message):
    pd.DataFrame(rows).to_csv(tmp_path / "t.csv", index=False)
    out = tmp_path / "out"
    code, _, err = run(capsys, tmp_path / "t.csv", "--task", "t", "--item", "item", "--system", "system",
                       "--judgment", "score", "--out", out, *options)  # fmt: skip
    assert code == 2, err
    assert message in err and "Traceback" not in err
    assert not (out / "systems").exists() or not any((out / "systems").iterdir())


def test_unreadable_tables(tmp_path, capsys):
    (tmp_path / "latin.csv").write_bytes("item,system,score\n1,caf\xe9,3\n".encode("latin-1"))
    code, _, err = run(capsys, tmp_path / "latin.csv", "--task", "t", "--item", "item", "--system", "system",
                       "--judgment", "score", "--out", tmp_path / "o")  # fmt: skip
    assert code == 2 and "not UTF-8" in err
    code, _, err = run(capsys, tmp_path / "table.xlsx", "--task", "t", "--item", "i", "--system", "s",
                       "--judgment", "j")  # fmt: skip
    assert code == 2 and "no such file" in err


def test_a_german_task_added_to_the_papers_config_gets_its_own_metrics(tmp_path, capsys):
    """Added to a config with English metrics, a German task computes chrF and chrF++ (added to
    the config) and the language-independent metrics, no METEOR; the config's other tasks keep
    exactly the metrics they had."""
    from conftest import REPO

    from debias.config.labels import computed_metrics, provided_metrics, task_metrics
    from debias.config.settings import load_config
    from debias.pipeline.inputs import check_config

    config = tmp_path / "config.yaml"
    config.write_text((REPO / "config" / "config.yaml").read_text())
    before = load_config(config)
    mqm_like(tmp_path / "mqm.tsv", systems=3, items=5)
    args = [tmp_path / "mqm.tsv", "--task", "de", "--item", "seg", "--system", "system", "--judgment", "mqm",
            "--output", "target", "--reference-system", "Human ref", "--score", "comet", "--language", "de",
            "--out", tmp_path / "de", "--config", config]  # fmt: skip
    assert run(capsys, *args)[0] == 0
    after = load_config(config)
    check_config(after)
    assert computed_metrics(after, "de") == ["bleu", "rouge1", "rouge2", "rougeL", "rouge1_155", "rougeL_155", "chrf",
                                             "chrfpp"]  # fmt: skip
    assert provided_metrics(after, "de") == ["comet"]
    for task in before["tasks"]:
        assert task_metrics(after, task) == task_metrics(before, task)
        assert after["tasks"][task] | {"metrics": None} == before["tasks"][task] | {"metrics": None}
