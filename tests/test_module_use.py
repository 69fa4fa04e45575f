"""The workflow used as a module of another Snakemake workflow (docs/usage.md, "The workflow as a
module"), with the configuration `debias import-pairs` writes (``relative_to_config: true``):
the host's working directory stays where it is, so the host's own rules find their inputs, and
the module reads the configuration's paths from the configuration's folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REPO

from debias.cli import main
from debias.config.paths import rooted


def test_rooted_joins_every_relative_path_to_the_folder(tmp_path):
    config = {
        "relative_to_config": True,
        "data_dir": "../data",
        "results_dir": "results/own",
        "nltk_data": "/opt/nltk_data",
        "released": [{"path": "raw/file.tsv", "sha256": "0" * 64}],
        "preferences": {
            "mine": {
                "label": "Mine",
                "battles": "data/battles.csv",
                "pool": "pool.csv",
                "judges": {"j": {"table": "j.csv"}},
            }
        },
        "bootstrap": {"replicates": 10},
    }
    folder = tmp_path / "config"
    got = rooted(config, folder)
    assert got["data_dir"] == str(tmp_path / "data") and got["results_dir"] == str(folder / "results/own")
    assert got["nltk_data"] == "/opt/nltk_data" and got["bootstrap"] == {"replicates": 10}
    assert got["released"][0]["path"] == str(folder / "raw/file.tsv")
    task = got["preferences"]["mine"]
    assert task["battles"] == str(folder / "data/battles.csv") and task["pool"] == str(folder / "pool.csv")
    assert task["judges"]["j"]["table"] == str(folder / "j.csv")
    assert config["data_dir"] == "../data" and config["preferences"]["mine"]["pool"] == "pool.csv"  # not changed


HOST = """\
configfile: "analysis/prefs.yaml"


module debias:
    snakefile:
        {snakefile!r}
    config:
        config


use rule * from debias as debias_*


rule host_lines:
    input:
        "host/input.txt",
    output:
        "host/lines.txt",
    shell:
        "wc -l < {{input}} > {{output}}"


rule all:
    input:
        rules.debias_all.input,
        "host/lines.txt",
    default_target: True
"""


def battles(n: int = 240, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    strength = {"x": 0.5, "y": 0.0, "z": -0.4}
    rows = []
    for q in range(n):
        a, b = rng.choice(list(strength), 2, replace=False)
        won = "a" if rng.random() < 1 / (1 + np.exp(strength[b] - strength[a])) else "b"
        judge = won if rng.random() < 0.8 else {"a": "b", "b": "a"}[won]
        rows.append((f"q{q}", a, b, won if q < n // 2 else "", judge))
    return pd.DataFrame(rows, columns=["q", "A", "B", "winner", "gpt"])


@pytest.mark.workflow
@pytest.mark.slow
def test_a_host_workflow_keeps_its_folder_and_the_module_reads_the_imported_configuration(tmp_path, monkeypatch):
    host = tmp_path / "project"
    (host / "analysis").mkdir(parents=True)
    (host / "host").mkdir()
    (host / "host/input.txt").write_text("one\ntwo\nthree\n")
    battles().to_csv(host / "battles.csv", index=False)
    monkeypatch.chdir(host / "analysis")
    argv = ["import-pairs", "../battles.csv", "--task", "mine", "--item", "q", "--system-a", "A", "--system-b", "B"]
    assert main([*argv, "--verdict", "winner", "--judge", "gpt", "--out", "data", "--config", "prefs.yaml"]) == 0
    monkeypatch.chdir(tmp_path)
    written = yaml.safe_load((host / "analysis/prefs.yaml").read_text())
    assert written["relative_to_config"] is True and not Path(written["results_dir"]).is_absolute()
    (host / "Snakefile").write_text(HOST.format(snakefile=str(REPO / "workflow" / "Snakefile")))
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    done = subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", "2"], cwd=host, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert (host / "host/lines.txt").read_text().strip() == "3"  # the host's rule ran in the host's folder
    results = host / "analysis" / written["results_dir"]
    assert (results / "report.md").is_file(), sorted(p.name for p in results.parent.rglob("*"))[:40]
    assert not (host / written["results_dir"]).exists()  # nothing written relative to the host's folder


def test_the_workflow_catalogs_metadata_describes_the_workflow():
    """.snakemake-workflow-catalog.yml: the usage keys the catalog reads, the conda environments
    the rules name, and the report Snakemake writes."""
    catalog = yaml.safe_load((REPO / ".snakemake-workflow-catalog.yml").read_text())
    usage = catalog["usage"]
    assert set(usage) == {"mandatory-flags", "software-stack-deployment", "report"}
    assert usage["software-stack-deployment"]["conda"] is True and usage["report"] is True
    assert (REPO / "workflow/Snakefile").is_file() and (REPO / "config/README.md").is_file()
    assert "conda:" in (REPO / "workflow/rules/bootstrap.smk").read_text()
    assert (REPO / "workflow/envs/debias.yaml").is_file()
    assert "--configfile" in usage["mandatory-flags"]["flags"]
