"""Defects a second hostile test found: a configuration key given twice under another spelling,
ties left out of strengths, systems named in other scripts, and option names in messages."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import debias
from debias.config.settings import ConfigError, load_config, repeated_key_problem


@pytest.mark.parametrize("mapping", ["{1: a, 2: b, 1.0: b}", "{1: a, 2: b, 1: b}", "{1: a, 2: b, true: b}"])
def test_a_key_given_twice_under_any_spelling_is_named_with_both_lines(tmp_path, mapping):
    path = tmp_path / "config.yaml"
    path.write_text(f"estimates:\n  level: 0.9\npreferences:\n  t:\n    mapping: {mapping}\n", encoding="utf-8")
    problem = repeated_key_problem(path)
    assert problem and problem.startswith(f"{path}: line 5: key ") and "repeats the key '1'" in problem
    with pytest.raises(ConfigError, match="repeats the key"):
        load_config(path)
    path.write_text("preferences:\n  t:\n    mapping: {1: a, 2: b, 3: tie}\n", encoding="utf-8")
    assert repeated_key_problem(path) is None


def ties_and_wins(ties=400, wins=12):
    rows = [{"q": f"t{i}", "A": "A", "B": "B", "w": "tie"} for i in range(ties)]
    rows += [{"q": f"w{i}", "A": "A", "B": "B", "w": "model_a"} for i in range(wins)]
    return debias.read_pairs(pd.DataFrame(rows), item="q", system_a="A", system_b="B", verdict="w")


def test_ties_left_out_are_left_out_of_strengths_and_of_the_votes_too():
    pairs = ties_and_wins()
    for estimand in ("strength", "win_rate"):
        state = debias.status(pairs, "better:A,B", estimand=estimand, ties="drop", level=0.9)
        assert not state.resolved and state.n_votes == 12  # the 12 wins alone settle nothing
    table = debias.preferences(pairs, ties="drop", level=0.9)
    strengths = table[table["estimand"] == "strength"]
    assert (strengths["n_judged"] == 12).all() and strengths["estimate"].isna().all()
    assert strengths["note"].str.contains("not identifiable").all()
    kept = debias.preferences(pairs, level=0.9)  # ties as half a win: 412 votes
    assert (kept[kept["estimand"] == "strength"]["n_judged"] == 412).all()


def test_systems_named_in_other_scripts_stay_distinct():
    rows = [
        {"seg": i, "system": name, "score": mean + np.sin(i)}
        for name, mean in (("מערכת", 3.0), ("نظام", 3.5), ("系统", 4.0), ("système", 2.0))
        for i in range(40)
    ]
    ratings = debias.read_ratings(pd.DataFrame(rows), item="seg", system="system", judgment="score")
    assert ratings.systems == ("מערכת", "نظام", "系统", "système")
    assert debias.status(ratings, "top:1", level=0.9).answer == "top 1: 系统"


def test_an_option_refused_by_the_status_command_is_named_once(tmp_path):
    path = tmp_path / "ratings.csv"
    pd.DataFrame({"item": [1, 2, 1, 2], "system": ["a", "a", "b", "b"], "score": [1, 2, 3, 4]}).to_csv(path)
    options = ["--item", "item", "--system", "system", "--judgment", "score", "--question", "top:1"]
    command = [sys.executable, "-m", "debias", "status", str(path), *options, "--ties", "drop"]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 2 and "error: --ties:" in done.stderr and "----" not in done.stderr


def test_debias_run_names_a_repeated_key_in_one_line(tmp_path):
    path = tmp_path / "dup.yaml"
    path.write_text("preferences:\n  t:\n    mapping: {1: a, 2: b, true: b}\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "debias", "run", "-n", "--configfile", str(path)], capture_output=True, text=True
    )
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and "line 3: key 'true' repeats the key '1'" in lines[0]


def test_a_closed_standard_output_is_one_line_not_a_traceback(tmp_path):
    path = tmp_path / "battles.csv"
    rows = [{"q": i, "A": "x", "B": "y", "w": "model_a" if i % 3 else "model_b"} for i in range(40)]
    pd.DataFrame(rows).to_csv(path, index=False)
    options = ["--item", "q", "--system-a", "A", "--system-b", "B", "--verdict", "w"]
    command = f"{sys.executable} -m debias preferences {path} {' '.join(options)} >&-"
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr and "standard output is closed" in done.stderr


@pytest.mark.parametrize("command", ["estimate", "compare", "plan", "leaderboard", "preferences"])
@pytest.mark.parametrize("redirect", [">&-", ">/dev/full"])
def test_a_standard_output_that_takes_nothing_is_one_line_for_every_table_command(tmp_path, command, redirect):
    if redirect == ">/dev/full" and not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    if command == "preferences":
        rows = [{"q": i, "A": "x", "B": "y", "w": "model_a" if i % 3 else "model_b"} for i in range(40)]
        options = "--item q --system-a A --system-b B --verdict w"
    else:
        rows = [{"seg": i, "system": s, "score": i % 5 + (s == "y")} for i in range(40) for s in ("x", "y")]
        options = "--item seg --system system --judgment score"
    path = tmp_path / "table.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    done = subprocess.run(
        ["bash", "-c", f"{sys.executable} -m debias {command} {path} {options} {redirect}"],
        capture_output=True,
        text=True,
    )
    errors = [line for line in done.stderr.splitlines() if "error" in line]
    assert done.returncode in (1, 2) and "Traceback" not in done.stderr and "Exception ignored" not in done.stderr
    assert len(errors) == 1 and ("standard output is closed" in errors[0] or "No space left" in errors[0])


def test_a_merge_key_is_yamls_own_and_a_pipe_is_no_configuration(tmp_path):
    import os

    path = tmp_path / "merge.yaml"
    path.write_text("common: &c {label: M}\npreferences:\n  t:\n    <<: *c\n    ties: half\n", encoding="utf-8")
    assert repeated_key_problem(path) is None
    fifo = tmp_path / "c.yaml"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-m", "debias", "run", "-n", "--configfile", str(fifo)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "not a regular file" in done.stderr


def test_one_judge_mapped_twice_is_refused(tmp_path):
    path = tmp_path / "battles.csv"
    rows = [{"q": i, "A": "x", "B": "y", "w": "model_a", "j": 1 + i % 3} for i in range(20)]
    pd.DataFrame(rows).to_csv(path, index=False)
    options = ["--item", "q", "--system-a", "A", "--system-b", "B", "--verdict", "w", "--judge", "j"]
    twice = ["--judge-mapping", "j:1=a,2=b,3=tie", "--judge-mapping", "j:1=b"]
    done = subprocess.run(
        [sys.executable, "-m", "debias", "preferences", str(path), *options, *twice], capture_output=True, text=True
    )
    assert done.returncode == 2 and "mapped twice" in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_a_battle_whose_rows_disagree_on_a_covariate_is_refused_naming_both_rows():
    rows = []
    for i in range(30):  # two raters, the second writing the battle the other way round
        rows.append(
            {"q": i, "A": "x", "B": "y", "w": "model_a" if i % 3 else "model_b", "r": "r1", "la": 100 + i, "lb": 80}
        )
        rows.append(
            {"q": i, "A": "y", "B": "x", "w": "model_b" if i % 3 else "model_a", "r": "r2", "la": 80, "lb": 100 + i}
        )
    frame = pd.DataFrame(rows)
    columns = {"item": "q", "system_a": "A", "system_b": "B", "verdict": "w", "rater": "r"}
    pairs = debias.read_pairs(frame, **columns, covariates={"length": ("la", "lb")})
    assert pairs.n_battles == 30 and pairs.covariates["length"][0].tolist() == [100.0, 80.0]
    frame.loc[3, "la"] = 999  # the second rater's row of battle 1 now says another length
    with pytest.raises(debias.io.canonical.InputError, match=r"row 5: covariate 'length'.*first row \(table: row 4\)"):
        debias.read_pairs(frame, **columns, covariates={"length": ("la", "lb")})


@pytest.mark.parametrize("ties", ["half", "drop"])
def test_every_row_without_a_number_says_why_even_when_every_verdict_is_a_tie(ties):
    rows = [{"q": i, "A": "wxyz"[i % 4], "B": "wxyz"[(i + 1) % 4], "w": "tie", "j": "tie"} for i in range(80)]
    pairs = debias.read_pairs(pd.DataFrame(rows), item="q", system_a="A", system_b="B", verdict="w", judges=["j"])
    table = debias.preferences(pairs, ties=ties, level=0.9)
    silent = table[table["estimate"].isna() & (table["note"].fillna("") == "")]
    assert silent.empty, silent
    if ties == "drop":
        judge = table[table["estimator"] == "judge:j"]
        assert judge["estimate"].isna().all() and judge["note"].str.contains("judge in its battles is a tie").all()
        human = table[table["estimator"] == "human"]
        assert human["note"].str.contains("every human verdict in its battles is a tie").all()


def test_next_with_standard_output_closed_still_writes_its_battles_and_says_so_on_stderr(tmp_path):
    path, out = tmp_path / "battles.csv", tmp_path / "next.csv"
    rows = [
        {"q": i, "A": "xyz"[i % 3], "B": "xyz"[(i + 1) % 3], "w": "model_a" if i % 3 else "model_b"} for i in range(90)
    ]
    pd.DataFrame(rows).assign(w=lambda t: t.w.where(t.index < 30, "")).to_csv(path, index=False)
    options = f"--item q --system-a A --system-b B --verdict w --question top:1 --budget 4 --output {out}"
    done = subprocess.run(
        ["bash", "-c", f"{sys.executable} -m debias next {path} {options} >&-"], capture_output=True, text=True
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert len(pd.read_csv(out)) == 4 and "wrote 4 battles" in done.stderr


@pytest.mark.parametrize(
    "extra, option",
    [
        (["--covariate", "length=la,lb", "--matrix"], "--covariate"),
        (["--covariate", "length=la,lb", "--by", "cat"], "--covariate"),
        (["--baseline", "x", "--matrix"], "--baseline"),
        (["--pool", "POOL"], "--pool"),
        (["--judge", "j", "--agreement", "--figure", "FIG"], "--figure"),
    ],
)
def test_an_option_the_chosen_table_would_ignore_is_refused_naming_it(tmp_path, capsys, extra, option):
    from debias.cli.analyse import main

    rows = [
        {"q": i, "A": "xyz"[i % 3], "B": "xyz"[(i + 1) % 3], "w": "model_a" if i % 4 else "model_b",
         "la": i % 7, "lb": i % 5, "cat": "c" if i % 2 else "d", "j": "model_a" if i % 5 else "model_b"}
        for i in range(60)
    ]  # fmt: skip
    path, pool = tmp_path / "battles.csv", tmp_path / "pool.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    pd.DataFrame(rows).drop(columns="w").to_csv(pool, index=False)
    extra = [{"POOL": str(pool), "FIG": str(tmp_path / "f")}.get(value, value) for value in extra]
    code = main(
        ["preferences", str(path), "--item", "q", "--system-a", "A", "--system-b", "B", "--verdict", "w", *extra]
    )
    err = capsys.readouterr().err
    assert code == 2 and f"error: {option}:" in err and len(err.strip().splitlines()) == 1, err
    assert not list(tmp_path.glob("f.*"))


def test_a_configuration_whose_aliases_expand_to_millions_of_values_is_refused_at_once(tmp_path):
    from debias.config.settings import yaml_problem

    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"{c}: &{c} [{', '.join([f'*{p}'] * 10)}]" for p, c in zip("abcdefg", "bcdefgh")]  # 10^8 values
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    problem = yaml_problem(path)
    assert problem and "expand to over 1,000,000 values" in problem
    with pytest.raises(ConfigError, match="expand to over"):
        load_config(path)
    done = subprocess.run(
        [sys.executable, "-m", "debias", "run", "-n", "--configfile", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "expand to over" in done.stderr
    small = tmp_path / "small.yaml"
    small.write_text("\n".join(lines[:4]) + "\n", encoding="utf-8")  # 10,000 values: aliases are fine
    assert yaml_problem(small) is None


@pytest.mark.parametrize("scale", [[1, 2, 3], "1-5", (1, "x")])
def test_a_declared_scale_of_the_wrong_shape_is_an_input_error_naming_it(scale):
    frame = pd.DataFrame({"seg": [1, 1, 2, 2], "system": ["a", "b", "a", "b"], "score": [1, 2, 3, 4]})
    from debias.io.canonical import InputError

    with pytest.raises(InputError, match="expected two numbers"):
        debias.read_ratings(frame, item="seg", system="system", judgment="score", scale=scale)


@pytest.mark.parametrize("cores", [["--cores", "0"], ["--cores=0"], ["-c0"], ["-j", "-1"]])
def test_debias_run_refuses_fewer_than_one_core_at_once(tmp_path, cores):
    path = tmp_path / "c.yaml"
    path.write_text(f"results_dir: {tmp_path / 'results'}\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "debias", "run", *cores, "-n", "--configfile", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 2 and "give at least 1" in done.stderr and done.stderr.count("\n") == 1


def _dry_run_with_results_dir(tmp_path, results_dir: str):
    """``debias run -n`` on a configuration of one preference task writing to ``results_dir``
    (a YAML double-quoted string, escapes read as YAML reads them)."""
    battles = tmp_path / "battles.csv"
    rows = [{"q": i, "A": "x", "B": "y", "w": "model_a" if i % 3 else "model_b"} for i in range(40)]
    pd.DataFrame(rows).to_csv(battles, index=False)
    path = tmp_path / "c.yaml"
    path.write_text(
        f'results_dir: "{results_dir}"\npreferences:\n  t:\n    label: T\n    battles: {battles}\n'
        "    item: q\n    system_a: A\n    system_b: B\n    verdict: w\n",
        encoding="utf-8",
    )
    return subprocess.run(
        [sys.executable, "-m", "debias", "run", "-n", "--configfile", str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )


@pytest.mark.parametrize("under", ["", "/sub"])
def test_a_results_dir_that_is_a_file_or_inside_one_stops_the_workflow_naming_it(tmp_path, under):
    taken = tmp_path / "taken.csv"
    taken.write_text("a,b\n", encoding="utf-8")
    done = _dry_run_with_results_dir(tmp_path, f"{taken}{under}")
    assert done.returncode != 0 and "exists and is not a folder" in done.stdout + done.stderr
    assert "NotADirectoryError" not in done.stdout + done.stderr and taken.read_text() == "a,b\n"


def test_an_import_whose_block_cannot_be_printed_says_so_in_one_line(tmp_path):
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    path = tmp_path / "battles.csv"
    rows = [{"q": i, "A": "x", "B": "y", "w": "model_a" if i % 3 else "model_b"} for i in range(40)]
    pd.DataFrame(rows).to_csv(path, index=False)
    options = "--task t --item q --system-a A --system-b B --verdict w"
    done = subprocess.run(
        ["bash", "-c", f"{sys.executable} -m debias import-pairs {path} {options} >/dev/full"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr and "Exception ignored" not in done.stderr
    assert (
        done.stderr.strip()
        .splitlines()[-1]
        .endswith("could not be written to standard output: No space left on device")
    )


@pytest.mark.parametrize("kind", ["deep", "large"])
def test_a_configuration_nested_too_deep_or_too_large_is_refused_before_snakemake_reads_it(tmp_path, kind):
    path = tmp_path / "c.yaml"
    if kind == "deep":
        path.write_text("results_dir: r\nextra: " + "[" * 3000 + "]" * 3000 + "\n", encoding="utf-8")
    else:
        path.write_text("results_dir: r\nextra: [" + ", ".join(["1"] * 1_100_000) + "]\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "debias", "run", "-n", "--configfile", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    said = "nested over 64 levels deep" if kind == "deep" else "a configuration is a few kilobytes"
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and said in done.stderr, done.stderr[-300:]


def test_importing_into_a_configuration_nested_too_deep_is_refused_before_writing(tmp_path):
    path = tmp_path / "battles.csv"
    rows = [{"q": i, "A": "x", "B": "y", "w": "model_a" if i % 3 else "model_b"} for i in range(40)]
    pd.DataFrame(rows).to_csv(path, index=False)
    config = tmp_path / "c.yaml"
    config.write_text("results_dir: r\nextra: " + "[" * 3000 + "]" * 3000 + "\n", encoding="utf-8")
    options = ["--task", "t", "--item", "q", "--system-a", "A", "--system-b", "B", "--verdict", "w"]
    done = subprocess.run(
        [sys.executable, "-m", "debias", "import-pairs", str(path), *options, "--config", str(config)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 2 and "nested over 64 levels deep" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "data").exists()


def test_a_name_holding_del_is_refused_as_the_other_control_characters_are():
    from debias.io.canonical import InputError

    frame = pd.DataFrame({"q": [1, 2, 3], "A": ["x", "x\x7f", "y"], "B": ["y", "y", "x"], "w": ["a", "b", "a"]})
    with pytest.raises(InputError, match="U\\+007F"):
        debias.read_pairs(frame, item="q", system_a="A", system_b="B", verdict="w")


@pytest.mark.parametrize("name", ["~", "~/results", "r\\0x", "r\\x7fx"])
def test_a_results_dir_starting_with_a_tilde_or_holding_a_control_character_is_refused(tmp_path, name):
    done = _dry_run_with_results_dir(tmp_path, name)
    said = done.stdout + done.stderr
    assert done.returncode != 0 and "without a control character and not starting with '~'" in said, said[-400:]
    assert "Traceback" not in said and not list(tmp_path.glob("~*")) and not (tmp_path / "r").exists()
