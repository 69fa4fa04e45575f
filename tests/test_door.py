"""No command writes over what it reads: every file a command would write (``--output``,
``--figure``, the tables and configuration ``import`` and ``import-pairs`` write) is compared, by
device and inode, with every file it reads (named or read by default) before any work, and a
clash is refused with exit status 2 and one line naming the option, the path and the input."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pandas as pd
import pytest

from debias.cli.analyse import main

PAIRS = ["--item", "q", "--system-a", "A", "--system-b", "B", "--verdict", "winner"]
RATINGS = ["--item", "item", "--system", "system", "--judgment", "score"]


def _battles(path):
    systems = ["w", "x", "y"]
    rows = []
    for i in range(60):
        a, b = systems[i % 3], systems[(i + 1) % 3]
        rows.append((f"q{i}", a, b, ["a", "b", "tie"][i * 7 % 3] if i < 40 else None, ["a", "b"][i % 2]))
    pd.DataFrame(rows, columns=["q", "A", "B", "winner", "gpt4"]).to_csv(path, index=False)
    return path


def _ratings(path):
    rows = [
        (f"i{i}", s, float(1 + (i * 7 + k) % 5), f"text {s} {i}", f"reference {i}", 0.1 * ((i + k) % 7))
        for k, s in enumerate(["a", "b", "c"])
        for i in range(30)
    ]
    pd.DataFrame(rows, columns=["item", "system", "score", "out", "ref", "quality"]).to_csv(path, index=False)
    return path


def _refused(capsys, argv, option, path) -> str:
    """Run ``debias ARGV``; it must exit 2 with one line on stderr naming ``option`` and ``path``."""
    assert main([str(a) for a in argv]) == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert f"{option}: " in lines[0] and str(path) in lines[0], err
    return lines[0]


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_import_pairs_refuses_to_write_its_table_over_an_input(here, capsys):
    (here / "o").mkdir()
    table = _battles(here / "o" / "battles.csv")
    before = table.read_bytes()
    line = _refused(
        capsys,
        ["import-pairs", "o/battles.csv", "--task", "t", "--out", "o", "--force", *PAIRS],
        "--out",
        "o/battles.csv",
    )
    assert "input table" in line
    os.link(table, here / "hard.csv")  # a hard link is the same file
    _refused(
        capsys, ["import-pairs", "hard.csv", "--task", "t", "--out", "o", "--force", *PAIRS], "--out", "o/battles.csv"
    )
    (here / "link.csv").symlink_to(table)
    _refused(
        capsys, ["import-pairs", "link.csv", "--task", "t", "--out", "./o/", "--force", *PAIRS], "--out", "battles.csv"
    )
    assert table.read_bytes() == before


def test_import_pairs_refuses_to_write_its_table_over_the_pool(here, capsys):
    judged = _battles(here / "j.csv")
    (here / "data" / "t").mkdir(parents=True)
    pool = here / "data" / "t" / "battles.csv"
    frame = pd.read_csv(judged)
    frame.assign(q=frame["q"] + "p").drop(columns="winner").to_csv(pool, index=False)
    before = pool.read_bytes()
    argv = ["import-pairs", "j.csv", "--pool", pool, "--task", "t", *PAIRS, "--judge", "gpt4", "--force"]
    line = _refused(capsys, [*argv, "--config", "c.yaml"], "--out", "data/t/battles.csv")
    assert "--pool" in line
    assert pool.read_bytes() == before and not (here / "c.yaml").exists()


def test_import_pairs_refuses_a_config_that_is_the_table_and_another_tasks_table(here, capsys):
    table = _battles(here / "b.csv")
    _refused(
        capsys,
        ["import-pairs", table, "--task", "t", *PAIRS, "--out", "o", "--config", "o/battles.csv"],
        "--config",
        "o/battles.csv",
    )
    assert not (here / "o").exists()
    _refused(capsys, ["import-pairs", table, "--task", "t", *PAIRS, "--config", table], "--config", table)
    assert main(["import-pairs", str(table), "--task", "t", *PAIRS, "--config", "c.yaml"]) == 0
    capsys.readouterr()
    written = (here / "data" / "t" / "battles.csv").read_bytes()
    config = (here / "c.yaml").read_bytes()
    three = here / "three.csv"
    pd.read_csv(table).head(3).to_csv(three, index=False)
    argv = ["import-pairs", three, "--task", "u", "--out", "data/t", *PAIRS, "--config", "c.yaml", "--force"]
    line = _refused(capsys, argv, "--out", "data/t/battles.csv")
    assert "preference task 't'" in line
    assert (here / "data" / "t" / "battles.csv").read_bytes() == written and (here / "c.yaml").read_bytes() == config


def test_import_pairs_writes_a_config_through_its_link_and_removes_a_killed_imports_temporary(here, capsys):
    from debias.io.atomic import temporary_name_prefix

    real = here / "real.yaml"
    real.write_text("relative_to_config: true\n")
    real.chmod(0o640)
    (here / "c.yaml").symlink_to("real.yaml")
    battles = here / "data" / "t" / "battles.csv"
    battles.parent.mkdir(parents=True)
    stale = battles.parent / (temporary_name_prefix(battles).rsplit("-", 2)[0] + "-99999999-abcdefgh.tmp.csv")
    stale.write_text("half a table")
    old = time.time() - 3600
    os.utime(stale, (old, old))
    assert main(["import-pairs", str(_battles(here / "b.csv")), "--task", "t", *PAIRS, "--config", "c.yaml"]) == 0
    assert (here / "c.yaml").is_symlink() and "preferences" in real.read_text()
    assert real.stat().st_mode & 0o777 == 0o640
    assert not stale.exists() and battles.is_file()
    assert [p.name for p in battles.parent.iterdir()] == ["battles.csv"]


def test_import_refuses_to_write_a_system_file_it_reads(here, capsys):
    systems = here / "data" / "t" / "systems"
    systems.mkdir(parents=True)
    table = systems / "a.jsonl.gz"
    pd.read_csv(_ratings(here / "r.csv")).to_json(table, orient="records", lines=True)
    before = table.read_bytes()
    argv = ["import", table, "--task", "t", *RATINGS, "--score", "quality", "--force", "--config", "c.yaml"]
    line = _refused(capsys, argv, "--out", "data/t/systems/a.jsonl.gz")
    assert "input table" in line
    assert table.read_bytes() == before and not (here / "c.yaml").exists()
    assert sorted(p.name for p in systems.iterdir()) == ["a.jsonl.gz"]


def test_a_figure_that_is_an_input_or_the_output_is_refused(here, capsys):
    table = _battles(here / "in.png")
    before = table.read_bytes()
    _refused(
        capsys, ["preferences", table, *PAIRS, "--input-format", "csv", "--figure", here / "in"], "--figure", table
    )
    assert table.read_bytes() == before
    pool = here / "p.png"
    pd.read_csv(table).drop(columns="winner").assign(q=lambda f: f["q"] + "p").to_csv(pool, index=False)
    kept = pool.read_bytes()
    argv = ["preferences", table, *PAIRS, "--judge", "gpt4", "--pool", pool, "--input-format", "csv", "--figure", "p"]
    assert "--pool" in _refused(capsys, argv, "--figure", "p.png")
    assert pool.read_bytes() == kept
    argv = ["preferences", table, *PAIRS, "--input-format", "csv", "--figure", "f", "--output", "f.png"]
    assert "--output f.png" in _refused(capsys, argv, "--figure", "f.png")
    assert not (here / "f.png").exists() and not (here / "f.pdf").exists()


@pytest.fixture
def task(here, capsys):
    """A task of three systems imported with its references and a configuration; a metric
    scores file where the workflow writes it."""
    argv = ["import", _ratings(here / "r.csv"), "--task", "t", *RATINGS, "--output", "out", "--reference", "ref"]
    assert main([str(a) for a in [*argv, "--score", "quality", "--config", "config/config.yaml"]]) == 0
    capsys.readouterr()
    return here / "data" / "t"


def test_an_output_over_a_file_read_by_default_is_refused(task, here, capsys):
    references = task / "references.jsonl.gz"
    config = here / "config" / "config.yaml"
    kept = references.read_bytes(), config.read_bytes()
    system, other = task / "systems" / "a.jsonl.gz", task / "systems" / "b.jsonl.gz"
    for command in (["plan", system], ["estimate", system], ["leaderboard", system, other], ["compare", system, other]):
        line = _refused(capsys, [*command, "--output", references], "--output", references)
        assert "references read by default" in line
    line = _refused(capsys, ["estimate", system, "--output", "config/config.yaml"], "--output", "config/config.yaml")
    assert "configuration read by default" in line
    assert (references.read_bytes(), config.read_bytes()) == kept


def test_an_output_over_the_metric_scores_read_by_default_is_refused(task, here, capsys):
    scores = here / "results" / "t" / "metrics" / "t" / "a.csv"
    scores.parent.mkdir(parents=True)
    import gzip
    import json

    ids = [json.loads(line)["id"] for line in gzip.open(task / "systems" / "a.jsonl.gz", "rt")]
    pd.DataFrame({"id": ids, "bleu2": [0.5] * len(ids)}).to_csv(scores, index=False)
    before = scores.read_bytes()
    argv = ["estimate", task / "systems" / "a.jsonl.gz", "--config", "config/config.yaml", "--output", scores]
    assert main([str(a) for a in argv[:-2]]) == 0  # the scores file is read
    capsys.readouterr()
    line = _refused(capsys, argv, "--output", scores)
    assert "metric scores read by default" in line
    assert scores.read_bytes() == before


@pytest.mark.parametrize("name", ["/dev/stdout", "/dev/stdin", "/proc/self/fd/1", "/dev/null"])
def test_an_output_that_leads_to_a_pipe_or_device_is_refused_saying_so(here, capsys, name):
    if not os.path.exists(name):
        pytest.skip(f"no {name} here")
    table = _battles(here / "b.csv")
    argv = [sys.executable, "-m", "debias", "status", table, *PAIRS, "--question", "top:1", "--output", name]
    import debias

    source = os.path.dirname(os.path.dirname(os.path.abspath(debias.__file__)))  # this package, from any folder
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([source, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([str(a) for a in argv], input="", capture_output=True, text=True, timeout=120, env=env)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and f"--output {name}: " in lines[0], done.stderr
    assert "not a regular file" in lines[0] and "No such file" not in lines[0]
    assert done.stdout == ""


def test_a_folder_given_as_the_table_is_named_a_folder(here, capsys):
    (here / "folder").mkdir()
    for command in (["status", "folder", *PAIRS, "--question", "top:1"], ["preferences", "folder", *PAIRS]):
        assert main(command) == 2
        assert capsys.readouterr().err.strip().endswith("folder: is a folder, not a table file")


def test_status_names_its_options_with_two_dashes(here, capsys):
    ratings = _ratings(here / "r.csv")
    for extra, option in ((["--ties", "drop"], "--ties"), (["--estimand", "strength"], "--estimand")):
        assert main(["status", str(ratings), *RATINGS, "--question", "top:1", *extra]) == 2
        err = capsys.readouterr().err
        assert f"error: {option}: " in err and "----" not in err


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"\x1f\x8b\x08\x00binary", "not a text file in UTF-8"),
        (b"", "is empty"),
        (b"- 1\n- 2\n", "found a list"),
        (b"x: 1\na: [1,\n", "line 3: not valid YAML"),
        (b"a: 1\n  b: 2\n", "line 2: not valid YAML"),
    ],
)
def test_run_refuses_a_configuration_it_cannot_read_in_one_line(here, capsys, content, said):
    (here / "e.yaml").write_bytes(content)
    assert main(["run", "-n", "--configfile", "e.yaml"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--configfile e.yaml: " in err[0] and said in err[0]
