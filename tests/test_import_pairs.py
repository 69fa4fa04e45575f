"""``debias import-pairs`` under the import rules (names, order of writes, undo, ``--force``, the
lock on the configuration, results under results/<task>), the pairwise leaderboard of the command
line, and the one-line errors of a corrupt table or an unwritable figure path."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REPO

import debias
from debias.cli.analyse import main
from debias.config.settings import schema_problem
from debias.io.canonical import InputError
from debias.pipeline.startup import checked_preferences, preference_results_problem

COLUMNS = ["--item", "num", "--system-a", "model_a", "--system-b", "model_b", "--verdict", "winner"]


def battles(n=90, seed=0):
    rng = np.random.default_rng(seed)
    systems = ["x", "y", "z"]
    a = rng.integers(0, 3, n)
    b = (a + 1 + rng.integers(0, 2, n)) % 3
    human = rng.choice(["a", "b", "tie"], n, p=[0.45, 0.35, 0.2])
    return pd.DataFrame(
        {
            "num": np.arange(n).astype(str),
            "model_a": [systems[i] for i in a],
            "model_b": [systems[i] for i in b],
            "winner": np.where(np.arange(n) < 2 * n // 3, human, ""),
            "gpt": np.where(rng.random(n) < 0.8, human, rng.choice(["a", "b", "tie"], n)),
        }
    )


@pytest.fixture
def raw(tmp_path):
    path = tmp_path / "raw.csv"
    battles().to_csv(path, index=False)
    return path


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_judge_names_cannot_shadow_the_canonical_columns_nor_be_a_battle_column(tmp_path, raw, capsys):
    frame = battles().assign(verdict=lambda f: f["gpt"], item=lambda f: f["gpt"])
    frame.to_csv(raw, index=False)
    for judge in ("verdict", "item"):
        code, _, err = run(capsys, "import-pairs", raw, "--task", "t", *COLUMNS, "--judge", judge)
        assert code == 2 and f"judge column '{judge}' would be named '{judge}', a column of the written" in err
        assert "Traceback" not in err
    code, _, err = run(capsys, "import-pairs", raw, "--task", "t", *COLUMNS, "--judge", "winner")
    assert code == 2 and "column 'winner' is the --verdict column" in err
    assert not (tmp_path / "data").exists() and not (REPO / "data/t").exists()


def test_task_names_that_leave_their_folder_are_refused_by_the_command_the_schema_and_the_start_up(
    tmp_path, raw, capsys, monkeypatch
):
    (tmp_path / "battles.csv").write_text("precious\n")
    monkeypatch.chdir(tmp_path)
    for name in ("..", "."):
        code, _, err = run(capsys, "import-pairs", raw, "--task", name, *COLUMNS, "--config", "c.yaml")
        assert code == 2 and "is not a usable file name" in err
    assert (tmp_path / "battles.csv").read_text() == "precious\n" and not (tmp_path / "c.yaml").exists()
    for name in ("..", "."):
        config = {"results_dir": "r", "preferences": {name: {"label": "T", "battles": "b.csv"}}}
        assert "does not match" in schema_problem(config)
        assert "outside results_dir/tables/preferences/<task>/" in preference_results_problem(config)
    twins = {"results_dir": "r", "preferences": {n: {"label": n, "battles": "b.csv"} for n in ("Arena", "arena")}}
    with pytest.raises(InputError, match="would land on those of preferences.Arena"):
        checked_preferences(twins, cache_dir=tmp_path / "cache")


def test_a_new_config_writes_results_under_results_task_and_retries_and_force_are_told(
    tmp_path, raw, capsys, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    argv = ["import-pairs", raw, "--task", "mine", *COLUMNS, "--judge", "gpt", "--config", "c.yaml"]
    assert run(capsys, *argv)[0] == 0
    config = yaml.safe_load((tmp_path / "c.yaml").read_text())
    assert config["results_dir"] == "results/mine" and schema_problem(config) is None
    table = tmp_path / "data/mine/battles.csv"
    assert oct(table.stat().st_mode & 0o777) != oct(0o600)
    # a second task into the same config keeps its results folder; an existing table is not
    # replaced, and the table another task of the config reads not even with --force
    mine = table.read_bytes()
    code, _, err = run(capsys, *argv[:3], "other", *argv[4:], "--out", "data/mine", "--force")
    assert code == 2 and "--out: data/mine/battles.csv is read by preference task 'mine' of c.yaml" in err
    assert table.read_bytes() == mine
    table = tmp_path / "data/other/battles.csv"
    table.parent.mkdir()
    table.write_text("other\n")
    code, _, err = run(capsys, *argv[:3], "other", *argv[4:], "--out", "data/other")
    assert code == 2 and "data/other/battles.csv: exists; give --force to replace it" in err
    assert table.read_text() == "other\n" and "other" not in yaml.safe_load((tmp_path / "c.yaml").read_text())
    assert run(capsys, *argv[:3], "other", *argv[4:], "--out", "data/other", "--force")[0] == 0
    config = yaml.safe_load((tmp_path / "c.yaml").read_text())
    assert list(config["preferences"]) == ["mine", "other"] and config["results_dir"] == "results/mine"
    assert table.read_text().startswith("item,system_a,system_b,verdict,gpt\n")
    # the retry of an import that wrote its table but not its config: the same bytes are no clash
    (tmp_path / "c.yaml").unlink()
    assert run(capsys, *argv)[0] == 0
    # a name the configuration has, as a ratings task too
    (tmp_path / "r.yaml").write_text(yaml.safe_dump({"tasks": {"rated": {"label": "R"}}}))
    code, _, err = run(capsys, *argv[:3], "rated", *argv[4:-1], "r.yaml")
    assert code == 2 and "r.yaml: tasks already has ['rated']" in err


def test_a_failed_write_leaves_neither_table_nor_config(tmp_path, raw, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    base = ["import-pairs", raw, *COLUMNS, "--judge", "gpt"]
    # a folder standing where the table goes
    (tmp_path / "data/t1/battles.csv").mkdir(parents=True)
    code, _, err = run(capsys, *base, "--task", "t1", "--config", "c.yaml")
    assert code == 2 and "battles.csv: is a folder" in err and not (tmp_path / "c.yaml").exists()
    # a read-only folder for the table
    (tmp_path / "ro").mkdir(mode=0o555)
    code, _, err = run(capsys, *base, "--task", "t2", "--out", "ro/t2", "--config", "c.yaml")
    assert code == 2 and "ro: is read-only" in err and not (tmp_path / "c.yaml").exists()
    assert list((tmp_path / "ro").iterdir()) == []
    # a read-only configuration: refused before the table is written
    (tmp_path / "c.yaml").write_text(yaml.safe_dump({"results_dir": "r"}))
    (tmp_path / "c.yaml").chmod(0o444)
    code, _, err = run(capsys, *base, "--task", "t3", "--config", "c.yaml")
    assert code == 2 and "c.yaml: is read-only" in err and not (tmp_path / "data/t3").exists()
    (tmp_path / "c.yaml").chmod(0o644)
    # the configuration cannot be written after the table was: the table is taken back, the old one put back
    (tmp_path / "data/t4").mkdir(parents=True)
    (tmp_path / "data/t4/battles.csv").write_text("old\n")
    import debias.io.importer as importer

    def fail(*args, **kwargs):
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(importer, "_stage_config", fail)
        code, _, err = run(capsys, *base, "--task", "t4", "--config", "c.yaml", "--force")
    assert code == 2 and "cannot write (No space left on device)" in err
    assert (tmp_path / "data/t4/battles.csv").read_text() == "old\n"
    assert yaml.safe_load((tmp_path / "c.yaml").read_text()) == {"results_dir": "r"}
    assert [p.name for p in (tmp_path / "data/t4").iterdir()] == ["battles.csv"]
    code, _, err = run(capsys, *base, "--task", "t5", "--out", "new/deep/t5", "--config", "c.yaml")
    assert code == 0 and (tmp_path / "new/deep/t5/battles.csv").exists()


def test_parallel_imports_into_one_config_keep_every_task(tmp_path, raw):
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    runs = [
        subprocess.Popen(
            [sys.executable, "-m", "debias.cli", "import-pairs", str(raw), *COLUMNS, "--judge", "gpt"]
            + ["--task", f"t{k}", "--config", "c.yaml"],
            cwd=tmp_path,
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        for k in range(6)
    ]
    assert [r.wait(timeout=120) for r in runs] == [0] * 6, [r.stderr.read() for r in runs]
    config = yaml.safe_load((tmp_path / "c.yaml").read_text())
    assert sorted(config["preferences"]) == [f"t{k}" for k in range(6)]
    assert schema_problem(config) is None
    assert not (tmp_path / ".c.yaml.lock").exists(), "the lock file goes with the last lock"


def test_the_leaderboard_of_a_pair_table_on_the_command_line_is_the_apis(raw, capsys):
    frame = pd.read_csv(raw, keep_default_na=False, dtype=str)
    expected = debias.leaderboard(
        frame, item="num", system_a="model_a", system_b="model_b", verdict="winner", judges=["gpt"], level=0.9, top_k=1
    )
    code, out, err = run(capsys, "leaderboard", raw, *COLUMNS, "--judge", "gpt", "--level", "0.9", "--top-k", "1")
    assert code == 0 and err == "debias leaderboard: 90% intervals\n"
    from io import StringIO

    printed = pd.read_csv(StringIO(out), keep_default_na=False)
    assert list(printed.columns) == list(expected.columns)
    assert printed["system"].tolist() == expected["system"].tolist()
    assert printed["estimator"].tolist() == expected["estimator"].tolist()
    np.testing.assert_allclose(printed["estimate"], expected["estimate"], rtol=1e-5)
    assert printed["rank_high"].tolist() == expected["rank_high"].tolist()
    code, again, _ = run(capsys, "preferences", raw, *COLUMNS, "--judge", "gpt", "--level", "0.9", "--leaderboard")
    assert code == 0 and again.splitlines()[0] == out.splitlines()[0]
    code, _, err = run(capsys, "leaderboard", raw, *COLUMNS, "--figure", "f")
    assert code == 2 and err.startswith("debias leaderboard: error: --figure")
    code, _, err = run(capsys, "preferences", raw, *COLUMNS, "--top-k", "2")
    assert code == 2 and "--top-k: goes with --leaderboard" in err


def test_a_corrupt_table_or_an_unwritable_figure_is_one_line_naming_the_file(tmp_path, raw, capsys):
    (tmp_path / "bad.parquet").write_bytes(b"PAR1 not really parquet PAR1")
    (tmp_path / "bad.jsonl").write_text('{"num": \n')
    for bad in ("bad.parquet", "bad.jsonl"):
        for command in (["preferences"], ["import-pairs", "--task", "t"], ["leaderboard"]):
            code, _, err = run(capsys, command[0], tmp_path / bad, *command[1:], *COLUMNS)
            assert code == 2 and f"{bad}: not a " in err and " table: " in err, err
            assert len(err.strip().splitlines()) == 1
    (tmp_path / "afile").write_text("")
    (tmp_path / "ro").mkdir(mode=0o555)
    for figure, told in (("afile/fig", "afile: is a file, not a folder"), ("ro/fig", "ro: is read-only")):
        code, _, err = run(capsys, "preferences", raw, *COLUMNS, "--figure", tmp_path / figure)
        assert code == 2 and told in err and len(err.strip().splitlines()) == 1
    code, _, _ = run(capsys, "preferences", raw, *COLUMNS, "--figure", tmp_path / "new/sub/fig")
    assert code == 0 and (tmp_path / "new/sub/fig.png").exists()


def test_codes_are_mapped_on_the_command_line_as_in_python(tmp_path, capsys):
    frame = battles(120, seed=3)
    codes = {"a": "1", "b": "2", "tie": "3", "": ""}
    coded = frame.assign(winner=frame["winner"].map(codes), gpt=frame["gpt"].map({"a": "A", "b": "B", "tie": "0"}))
    path = tmp_path / "coded.csv"
    coded.to_csv(path, index=False)
    args = [*COLUMNS, "--judge", "gpt", "--level", "0.9"]
    code, _, err = run(capsys, "preferences", path, *args)
    assert code == 2 and "'1'" in err and "mapping" in err  # codes without a mapping are refused, named
    code, out, err = run(
        capsys, "preferences", path, *args, "--mapping", "1=a,2=b,3=tie", "--judge-mapping", "gpt:0=tie"
    )
    assert code == 0, err
    expected = debias.preferences(
        frame.replace({"": None}), item="num", system_a="model_a", system_b="model_b", verdict="winner", judges=["gpt"]
    )
    from io import StringIO

    printed = pd.read_csv(StringIO(out))
    np.testing.assert_allclose(printed["estimate"], expected["estimate"], rtol=1e-5)
    code, _, err = run(capsys, "preferences", path, *args, "--judge-mapping", "claude:1=a")
    assert code == 2 and "--judge-mapping" in err and "--judge column" in err
    code, _, err = run(capsys, "import-pairs", path, *COLUMNS, "--task", "t", "--out", tmp_path / "t", "--mapping", "1")
    assert code == 2 and "--mapping" in err and "value=target" in err
    code, _, err = run(
        capsys, "import-pairs", path, *args[:-2], "--task", "t", "--out", tmp_path / "t", "--mapping", "1=a,2=b,3=tie",
        "--judge-mapping", "gpt:0=tie",
    )  # fmt: skip
    assert code == 0, err
    written = pd.read_csv(tmp_path / "t" / "battles.csv", keep_default_na=False)
    assert set(written["verdict"]) <= {"a", "b", "tie", ""} and set(written["gpt"]) == {"a", "b", "tie"}
