"""The package as people install and use it: its license, citation and version; the `debias`
command's shared plumbing (plain-text help, --version, --output FILE, --format json, progress);
optional packages that name their extra; the workflow shipped inside the package and `debias
run`; start-up checks that a command computing nothing skips; configurations that `debias import`
writes to run from any folder, with a reference system nobody judged; strengths in Elo points."""

from __future__ import annotations

import io
import json
import math
import os
import re
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REPO, synthetic_task

import debias
from debias.cli import main
from debias.cli.shared import plain_text, progress

PYTHON_ENV = {**os.environ, "PYTHONPATH": str(REPO / "src")}


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


# -- hygiene ---------------------------------------------------------------------------------


def test_license_and_citation_agree_with_the_project():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    text = (REPO / "LICENSE").read_text()
    assert text.startswith("MIT License") and project["authors"][0]["name"] in text
    citation = yaml.safe_load((REPO / "CITATION.cff").read_text())
    assert citation["cff-version"] == "1.2.0" and citation["license"] == "MIT"
    assert citation["version"] == project["version"]
    paper = citation["preferred-citation"]
    assert paper["title"] == "The price of debiasing automatic metrics in natural language evaluation"
    assert [a["family-names"] for a in paper["authors"]] == ["Chaganty", "Mussmann", "Liang"]
    assert paper["year"] == 2018 and "ACL" in paper["conference"]["name"]


def test_build_backend_is_bounded():
    build = tomllib.loads((REPO / "pyproject.toml").read_text())["build-system"]
    (requirement,) = [r for r in build["requires"] if r.startswith("setuptools")]
    assert re.fullmatch(r"setuptools>=(\d+),<(\d+)", requirement)
    low = int(re.search(r">=(\d+)", requirement).group(1))
    assert low >= 77  # SPDX license expressions and license-files


def test_version_has_one_source(capsys):
    from importlib.metadata import version

    assert debias.__version__ == version("debias-eval")
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"debias {debias.__version__}"
    shown = subprocess.run(
        [sys.executable, "-m", "debias", "--version"], capture_output=True, text=True, env=PYTHON_ENV, check=True
    )
    assert shown.stdout.strip() == f"debias {debias.__version__}"


def test_plain_text_strips_restructured_text():
    assert plain_text("see :func:`debias.estimate` and ``--scores``") == "see debias.estimate and --scores"
    assert plain_text(":class:`~debias.stats.common.joint.JointEstimate`, `x`") == "JointEstimate, x"
    assert plain_text(":math:`\\lambda` in ``a``") == "\\lambda in a"
    assert plain_text("no markup: a, b (c)") == "no markup: a, b (c)"


def test_every_help_page_is_plain_text():
    """The top-level help and every subcommand's, as `python -m debias` shows them."""
    from debias.cli.analyse import _parser

    parser = _parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    pages = [parser.format_help()] + [sub.format_help() for sub in commands.values()]
    assert len(pages) >= 9
    for page in pages:
        assert not re.search(r"``|:(func|mod|class|meth|data|math):`", page), page[:300]
    shown = subprocess.run(
        [sys.executable, "-m", "debias", "--help"], capture_output=True, text=True, env=PYTHON_ENV, check=True
    )
    assert "usage: debias" in shown.stdout and "run" in shown.stdout and "``" not in shown.stdout


# -- --output, --format json, progress ---------------------------------------------------------


def _config(tmp_path: Path) -> Path:
    synthetic_task(tmp_path / "data", "toy", ["a", "b"], n_items=30)
    config = {
        "data_dir": "data",
        "results_dir": "results",
        "nltk_data": "nltk_data",
        "metrics": {"bleu": {"label": "BLEU"}},
        "tasks": {
            "toy": {
                "label": "Toy",
                "systems": {"a": {"label": "a"}, "b": {"label": "b"}},
                "prompts": {"quality": {"label": "Quality", "min": -1, "max": 1}},
            }
        },
        "bootstrap": {"replicates": 50, "seed": 1},
        "figures": {},
    }
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def test_json_holds_the_csv_rows_and_output_writes_a_file(tmp_path, capsys):
    config = _config(tmp_path)
    system = tmp_path / "data/toy/systems/a.jsonl"
    code, csv_text, _ = run(capsys, "estimate", system, "--config", config)
    assert code == 0
    code, json_text, _ = run(capsys, "estimate", system, "--config", config, "--format", "json")
    assert code == 0
    printed = json.loads(json_text)
    arguments = ["estimate", str(system), "--config", str(config), "--format", "json"]
    assert {k: v for k, v in printed.items() if k != "rows"} == {
        "version": debias.__version__,
        "command": "estimate",
        "arguments": arguments,
        "level": 0.95,  # the config leaves estimates.level to the schema's default
    }
    rows = printed["rows"]
    table = pd.read_csv(io.StringIO(csv_text))
    assert [list(r) for r in rows] == [list(table.columns)] * len(table)
    for row, (_, expected) in zip(rows, table.iterrows()):
        for column, value in row.items():
            if isinstance(value, float):
                assert value == pytest.approx(expected[column], rel=1e-5)  # CSV holds 6 digits
            elif value is None or value == "":  # an empty text (a note) reads back from CSV as missing
                assert pd.isna(expected[column])
            else:
                assert str(value) == str(expected[column])
    out = tmp_path / "out" / "estimates.json"
    code, printed, _ = run(capsys, "estimate", system, "--config", config, "--format", "json", "--output", out)
    assert code == 0 and printed == "" and json.loads(out.read_text())["rows"] == rows
    # a failing command leaves the earlier file as it was, and writes no new one
    code, _, err = run(
        capsys, "estimate", tmp_path / "data/toy/systems/nope.jsonl", "--config", config, "--output", out
    )
    assert code == 2 and "nope.jsonl" in err and json.loads(out.read_text())["rows"] == rows
    missing = tmp_path / "never.csv"
    assert (
        run(capsys, "estimate", tmp_path / "data/toy/systems/nope.jsonl", "--config", config, "--output", missing)[0]
        == 2
    )
    assert not missing.exists() and not list(tmp_path.glob(".never*"))


def test_progress_speaks_only_for_slow_steps():
    stream = io.StringIO()
    with progress("quick step", after=0.5, stream=stream):
        pass
    assert stream.getvalue() == ""
    with progress("slow step", after=0.05, stream=stream):
        time.sleep(0.3)
    lines = stream.getvalue().splitlines()
    assert lines[0] == "debias: slow step ..." and re.fullmatch(r"debias: slow step: done in \d+\.\d s", lines[1])


def test_computing_metrics_reports_progress_on_stderr(tmp_path, capsys, monkeypatch):
    import debias.cli.shared

    monkeypatch.setattr(debias.cli.shared, "PROGRESS_AFTER", 0.0)
    config = _config(tmp_path)
    code, out, err = run(capsys, "estimate", tmp_path / "data/toy/systems/a.jsonl", "--config", config,
                         "--compute", "bleu")  # fmt: skip
    assert code == 0 and "cv:bleu" in out
    assert "debias: scoring bleu on the 30 outputs of a ..." in err and "done in" in err


# -- optional packages, the core's weight ------------------------------------------------------


@pytest.mark.parametrize(
    ("module", "blocked", "extra"),
    [
        ("debias.plots", "matplotlib", "workflow"),
        ("debias.metrics.modern", "sacrebleu", "workflow"),
        ("debias.report.html", "markdown_it", "workflow"),
    ],
)
def test_a_missing_optional_package_names_its_extra(module, blocked, extra):
    code = f"import sys; sys.modules[{blocked!r}] = None\nimport {module}"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=PYTHON_ENV)
    assert done.returncode != 0
    assert "MissingExtraError" in done.stderr and f"pip install 'debias-eval[{extra}]'" in done.stderr


def test_the_api_runs_without_the_extras():
    """`import debias` and `debias.estimate` load none of the workflow's packages (they may be
    missing: the core install)."""
    code = """
import sys
for name in ("matplotlib", "snakemake", "nltk", "sacrebleu", "rouge_score", "markdown_it"):
    sys.modules[name] = None
import pandas as pd
import debias
frame = pd.DataFrame({"seg": list("abcdefgh") * 2, "sys": ["x"] * 8 + ["y"] * 8,
                      "score": [3, 4, 2, 5, 4, 3, 4, 2, 4, 5, 3, 5, 4, 4, 5, 3], "m": range(16)})
table = debias.estimate(frame, item="seg", system="sys", judgment="score", scores=["m"])
assert set(table["estimator"]) == {"mean", "cv:m"}, table
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=PYTHON_ENV)
    assert done.returncode == 0, done.stderr


def test_a_metric_missing_its_package_is_named_at_start_up(monkeypatch):
    import importlib.util

    from debias.metrics import implementation_unavailable

    assert implementation_unavailable("sacrebleu") is None
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "sacrebleu" else real(name, *a))
    assert "pip install 'debias-eval[workflow]'" in implementation_unavailable("sacrebleu")


# -- the workflow in the package -------------------------------------------------------------


def test_the_workflow_and_the_paper_values_are_found():
    from debias.distribution.files import paper_values_file, snakefile, workflow_dir

    assert snakefile() == REPO / "workflow" / "Snakefile"  # in a checkout: the checkout's own
    assert paper_values_file(workflow_dir()) == REPO / "data/paper/reported_values.yaml"
    setup = (REPO / "setup.py").read_text()
    assert '"debias._workflow": "workflow"' in setup and '"debias._paper": "data/paper"' in setup
    data = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert data["debias._workflow"] == ["**/*"] and data["debias._paper"] == ["*.yaml"]


def test_run_passes_snakemakes_arguments_with_the_package_snakefile(tmp_path, capsys, monkeypatch):
    from debias.cli.run import snakemake_argv
    from debias.distribution.files import snakefile

    argv = ["--configfile", "my.yaml", "--cores", "2", "-n"]
    assert snakemake_argv(argv) == ["snakemake", "--snakefile", str(snakefile()), *argv]
    monkeypatch.chdir(tmp_path)
    assert snakemake_argv(["--report", "r.html"])[-1] == str(tmp_path / "r.html")
    assert snakemake_argv(["--report=r.html"])[-1] == f"--report={tmp_path / 'r.html'}"
    with pytest.raises(ValueError, match="--snakefile"):
        snakemake_argv(["--snakefile", "other/Snakefile"])
    code, _, err = run(capsys, "run", "--cores", "1")
    assert code == 2 and "give --configfile FILE" in err


@pytest.mark.parametrize(
    ("argv", "nothing"),
    [
        (["snakemake", "-n", "--configfile", "c.yaml"], True),
        (["snakemake", "-np"], True),
        (["/venv/bin/snakemake", "--report", "report.html"], True),
        (["/venv/lib/python3.11/site-packages/snakemake/__main__.py", "--lint"], True),
        (["snakemake", "--rulegraph"], True),
        (["snakemake", "--cores", "2", "--configfile", "c.yaml"], False),
        (["snakemake", "--cores", "2", "--forcerun", "report"], False),
        (["python", "-m", "pytest", "-n"], False),
        ([], False),
    ],
)
def test_computes_nothing_reads_snakemakes_command_line(argv, nothing):
    from debias.pipeline.startup import computes_nothing

    assert computes_nothing(argv) is nothing


def _unprovisioned_config(tmp_path: Path) -> Path:
    """The committed test configuration, its data where it is, with WordNet nowhere."""
    config = yaml.safe_load((REPO / ".test/config/config.yaml").read_text())
    config["data_dir"] = str(REPO / ".test/data")
    config["results_dir"] = str(tmp_path / "results")
    config["nltk_data"] = str(tmp_path / "no_nltk_data")
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def test_commands_that_compute_nothing_skip_the_provisioning_checks(tmp_path):
    config = _unprovisioned_config(tmp_path)
    env = {**PYTHON_ENV, "HOME": str(tmp_path), "NLTK_DATA": str(tmp_path / "no_nltk_data")}
    probe = (  # in a fresh process: this one's NLTK search path holds what earlier tests added
        "from debias.metrics.wordnet import WordNetUnavailableError, use_wordnet\n"
        f"try:\n    use_wordnet({str(tmp_path / 'no_nltk_data')!r})\nexcept WordNetUnavailableError:\n"
        "    raise SystemExit(3)"
    )
    if subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True).returncode != 3:
        pytest.skip("WordNet is on NLTK's search path of a new process here")
    base = [str(Path(sys.executable).with_name("snakemake")), "--snakefile", str(REPO / "workflow/Snakefile")]
    base += ["--configfile", str(config), "--directory", str(tmp_path)]
    dry = subprocess.run([*base, "-n", "--cores", "1"], capture_output=True, text=True, env=env)
    assert dry.returncode == 0, dry.stderr[-2000:]
    real = subprocess.run([*base, "--cores", "1"], capture_output=True, text=True, env=env)
    assert real.returncode != 0 and "WordNet" in real.stdout + real.stderr
    assert not (tmp_path / "results").exists()


# -- debias import: configurations that run from any folder; an unjudged reference ---------------


def _table(path: Path, *, judged_reference: bool, systems: int = 3, items: int = 30) -> None:
    rng = np.random.default_rng(4)
    rows = []
    for s in range(systems):
        for i in range(items):
            quality = rng.normal(0.2 * s, 1)
            rows.append({"seg": f"s{i}", "system": f"sys-{s}", "rater": f"r{i % 2}",
                         "score": round(float(np.clip(3 + quality, 1, 5)), 2),
                         "target": f"output {i} of system {s} with words {i % 7}"})  # fmt: skip
        rows.append({"seg": f"s{items}", "system": f"sys-{s}", "rater": "r0", "score": 1.0000001, "target": "x"})
    for i in range(items + 1):
        judged = {"rater": "r0", "score": 4.0} if judged_reference else {"rater": "", "score": None}
        rows.append({"seg": f"s{i}", "system": "human", **judged, "target": f"reference {i} with words {i % 5}"})
    pd.DataFrame(rows).to_csv(path, sep="\t", index=False)


def _import(tmp_path, capsys, table, config, *extra):
    return run(capsys, "import", table, "--task", "own", "--item", "seg", "--system", "system",
               "--judgment", "score", "--rater", "rater", "--output", "target", "--reference-system", "human",
               "--config", config, *extra)  # fmt: skip


def test_an_unjudged_reference_system_gives_the_references_only(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _table(tmp_path / "ratings.tsv", judged_reference=False)
    code, _, err = _import(tmp_path, capsys, "ratings.tsv", "config/own.yaml")
    assert code == 0 and "reference system 'human': 0 judged items" in err
    config = yaml.safe_load((tmp_path / "config/own.yaml").read_text())
    task = config["tasks"]["own"]
    assert "reference_system" not in task and set(task["systems"]) == {"sys-0", "sys-1", "sys-2"}
    assert not (tmp_path / "data/own/systems/human.jsonl.gz").exists()
    from debias.io.canonical import read_references

    references = read_references(tmp_path / "data/own/references.jsonl.gz")
    assert references["s3"] == "reference 3 with words 3"
    # judged on enough items it stays the task's judged reference
    _table(tmp_path / "judged.tsv", judged_reference=True)
    assert _import(tmp_path, capsys, "judged.tsv", "config/judged.yaml", "--out", "data/judged")[0] == 0
    task = yaml.safe_load((tmp_path / "config/judged.yaml").read_text())["tasks"]["own"]
    assert task["reference_system"] == "human" and (tmp_path / "data/judged/systems/human.jsonl.gz").exists()


def test_a_new_config_has_relative_paths_and_scales_as_written(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _table(tmp_path / "ratings.tsv", judged_reference=False)
    assert _import(tmp_path, capsys, "ratings.tsv", "config/own.yaml")[0] == 0
    text = (tmp_path / "config/own.yaml").read_text()
    config = yaml.safe_load(text)
    assert config["relative_to_config"] is True
    assert config["data_dir"] == "../data" and config["results_dir"] == "../results/own"
    for key in ("data_dir", "results_dir", "nltk_data"):
        assert not Path(config[key]).is_absolute() and str(tmp_path) not in config[key]
    scale = config["tasks"]["own"]["prompts"]["score"]
    assert (scale["min"], scale["max"]) == (1, 5) and "1.0000001" not in text  # widened to 1-5
    assert isinstance(scale["min"], int) and isinstance(scale["max"], int)


@pytest.mark.parametrize(
    ("low", "high", "written"),
    [
        (1.0, 5.0, (1, 5)),
        (1.0000001, 4.9999999, (1, 5)),
        (-24.666666666666668, 0.0, (-25, 0)),
        (0.1000000015, 0.8999999762, (0.1, 0.9)),
        (0.0312, 0.9871, (0.03, 0.99)),
        (0, 100, (0, 100)),
    ],
)
def test_inferred_scales_are_written_as_a_user_would(low, high, written):
    from debias.io.importer import written_scale

    got = written_scale(low, high)
    assert got == written and got[0] <= low and got[1] >= high
    assert all(len(repr(b)) <= 5 for b in got)


@pytest.mark.workflow
@pytest.mark.slow
def test_the_readme_recipe_runs_from_any_folder_with_an_unjudged_reference(tmp_path):
    """The README's three commands for your own evaluation, as written (a reference system
    nobody judged), then the workflow started from another folder with `debias run`, and the
    HTML report of that run."""
    project = tmp_path / "project"
    project.mkdir()
    _table(project / "ratings.tsv", judged_reference=False, systems=3, items=25)
    env = {**PYTHON_ENV, "NLTK_DATA": str(REPO / "nltk_data")}
    command = [sys.executable, "-m", "debias"]
    subprocess.run(
        [*command, "import", "ratings.tsv", "--task", "mqm", "--item", "seg", "--system", "system",
         "--judgment", "score", "--rater", "rater", "--output", "target", "--reference-system", "human",
         "--lower-is-better", "--language", "de", "--config", "config/mqm.yaml"],
        cwd=project, env=env, check=True, capture_output=True, text=True,
    )  # fmt: skip
    config = yaml.safe_load((project / "config/mqm.yaml").read_text())
    config["estimates"] = {"repeats": 100}  # a quicker run; the paths are the import's own
    config["compare"] = {"repeats": 100}
    config["plan"] = {"check": {"pilots": 20, "pilot_size": 10, "n": 20}}
    config["bootstrap"]["replicates"] = 100
    (project / "config/mqm.yaml").write_text(yaml.safe_dump(config))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    configfile = str(project / "config/mqm.yaml")
    done = subprocess.run([*command, "run", "--configfile", configfile, "--cores", "2"],
                          cwd=elsewhere, env=env, capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    report = (project / "results/mqm/report.md").read_text()
    assert report.startswith("# Evaluation report") and "| sys-1 |" in report
    assert not (elsewhere / "results").exists()
    html = project / "report.html"
    done = subprocess.run([*command, "run", "--configfile", configfile, "--report", str(html)],
                          cwd=elsewhere, env={**env, "NLTK_DATA": str(tmp_path / "none")},
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert html.stat().st_size > 10_000


# -- strengths in Elo points ---------------------------------------------------------------------


def _battles(path: Path) -> None:
    rng = np.random.default_rng(8)
    strength = {"x": 0.6, "y": 0.0, "z": -0.6}
    rows = []
    names = list(strength)
    for i in range(400):
        a, b = rng.choice(names, 2, replace=False)
        p = 1 / (1 + math.exp(strength[b] - strength[a]))
        human = ("a" if rng.random() < p else "b") if i < 150 else None
        judge = "a" if rng.random() < p else "b"
        rows.append({"q": f"q{i}", "A": a, "B": b, "winner": human, "j": judge})
    pd.DataFrame(rows).to_csv(path, index=False)


def test_strengths_on_the_elo_scale(tmp_path, capsys):
    from debias.stats.preferences.bradley_terry import ELO_POINTS_PER_UNIT, elo_points

    assert ELO_POINTS_PER_UNIT == pytest.approx(173.7177927613007)
    assert elo_points(0.0) == 1000.0 and elo_points(math.log(10)) == pytest.approx(1400.0)
    path = tmp_path / "battles.csv"
    _battles(path)
    args = ["preferences", path, "--item", "q", "--system-a", "A", "--system-b", "B", "--verdict", "winner",
            "--judge", "j", "--format", "json"]  # fmt: skip
    log_odds = pd.DataFrame(json.loads(run(capsys, *args)[1])["rows"])
    elo = pd.DataFrame(json.loads(run(capsys, *args, "--scale", "elo")[1])["rows"])
    anchored = pd.DataFrame(json.loads(run(capsys, *args, "--scale", "elo", "--anchor", "y")[1])["rows"])
    strength = log_odds["estimand"] == "strength"
    assert strength.any() and (~strength).any()
    pd.testing.assert_frame_equal(elo[~strength], log_odds[~strength])  # win rates unchanged
    for column in ("estimate", "ci_low", "ci_high"):
        assert np.allclose(elo.loc[strength, column], 1000 + ELO_POINTS_PER_UNIT * log_odds.loc[strength, column])
    assert np.allclose(elo.loc[strength, "se"], ELO_POINTS_PER_UNIT * log_odds.loc[strength, "se"])
    for estimator, rows in elo[strength].groupby("estimator"):
        assert rows["estimate"].mean() == pytest.approx(1000.0), estimator  # the mean system at 1000
        anchor = anchored[strength & (anchored["estimator"] == estimator)].set_index("system")
        assert anchor.loc["y", "estimate"] == pytest.approx(1000.0)
        widths = anchor["ci_high"] - anchor["ci_low"]
        assert np.allclose(
            widths.to_numpy(), (rows.set_index("system")["ci_high"] - rows.set_index("system")["ci_low"])
        )
    board = pd.DataFrame(json.loads(run(capsys, *args, "--leaderboard", "--scale", "elo")[1])["rows"])
    ranked = board[board["estimand"] == "strength"]
    assert ranked["estimate"].between(500, 1500).all() and (ranked["lower"] <= ranked["estimate"]).all()
    code, _, err = run(capsys, *args, "--anchor", "y")
    assert code == 2 and "--anchor" in err and "--scale elo" in err
    code, _, err = run(capsys, *args, "--scale", "elo", "--anchor", "nobody")
    assert code == 2 and "no system 'nobody'" in err


def test_import_pairs_writes_a_config_that_runs_from_any_folder(tmp_path, capsys, monkeypatch):
    from debias.config.settings import schema_problem

    monkeypatch.chdir(tmp_path)
    _battles(tmp_path / "raw.csv")
    argv = ["import-pairs", "raw.csv", "--task", "mine", "--item", "q", "--system-a", "A", "--system-b", "B",
            "--verdict", "winner", "--judge", "j", "--config", "config/pairs.yaml"]  # fmt: skip
    assert run(capsys, *argv)[0] == 0
    config = yaml.safe_load((tmp_path / "config/pairs.yaml").read_text())
    assert config["relative_to_config"] is True and schema_problem(config) is None
    assert config["results_dir"] == "../results/mine"
    battles = config["preferences"]["mine"]["battles"]
    assert battles == "../data/mine/battles.csv" and (tmp_path / "config" / battles).is_file()


def test_debias_run_says_in_one_line_what_stops_it_before_snakemake_starts(tmp_path, capsys, monkeypatch):
    from debias.cli.run import config_files, run_command

    assert config_files(["--configfile", "a.yaml", "b.yaml", "--cores", "2", "--configfile=c.yaml"]) == [
        "a.yaml",
        "b.yaml",
        "c.yaml",
    ]
    monkeypatch.chdir(tmp_path)
    assert run_command(["--configfile", "missing.yaml", "-n"]) == 2
    assert capsys.readouterr().err.strip() == "debias run: error: --configfile missing.yaml: no such file"
    (tmp_path / "folder").mkdir()
    assert run_command(["--configfile=folder", "-n"]) == 2
    assert "a folder, not a configuration file" in capsys.readouterr().err
