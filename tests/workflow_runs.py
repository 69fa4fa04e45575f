"""Runs of the Snakemake workflow for the tests: a run directory holding the committed test
configuration (.test/), Snakemake in a subprocess, copies of a finished run, and the jobs a dry
run schedules (what a real run would execute: the workflow has no checkpoints, so a dry run
sees every job)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
SNAKEFILE = REPO / "workflow/Snakefile"


def make_run_dir(root: Path) -> Path:
    """A run directory holding the committed test configuration (.test/) and its data."""
    root.mkdir(parents=True, exist_ok=True)
    config = yaml.safe_load((REPO / ".test/config/config.yaml").read_text())
    config.update(data_dir="data", results_dir="results", nltk_data=str(REPO / "nltk_data"))
    write_config(root, config)
    shutil.copytree(REPO / ".test/data", root / "data")
    return root


def write_config(root: Path, config: dict) -> None:
    (root / "config").mkdir(exist_ok=True)
    (root / "config/config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))


def read_config(root: Path) -> dict:
    return yaml.safe_load((root / "config/config.yaml").read_text())


def snakemake(root: Path, *args: str, check: bool = True, cores: int = 2) -> subprocess.CompletedProcess:
    command = [
        sys.executable,
        "-m",
        "snakemake",
        "--snakefile",
        str(SNAKEFILE),
        "--directory",
        str(root),
        "--cores",
        str(cores),
        *args,
    ]
    result = subprocess.run(command, capture_output=True, text=True, cwd=root)
    if check and result.returncode != 0:
        raise AssertionError(f"snakemake failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result


def result_files(root: Path) -> dict[str, int]:
    """Every file under results/ with its modification time (ns)."""
    return {str(p.relative_to(root)): p.stat().st_mtime_ns for p in (root / "results").rglob("*") if p.is_file()}


def clone(base: Path, tmp_path: Path, name: str = "run") -> Path:
    """A copy of a run directory (results, Snakemake's records and modification times kept), to
    change and run again without touching the original."""
    target = tmp_path / name
    shutil.copytree(base, target, copy_function=shutil.copy2)
    return target


@dataclass(frozen=True)
class Job:
    """One job of a dry run's listing."""

    rule: str
    outputs: tuple[str, ...] = ()
    wildcards: dict[str, str] = field(default_factory=dict)
    reason: str = ""

    def of(self, rule: str, **wildcards: str) -> bool:
        return self.rule == rule and all(self.wildcards.get(k) == v for k, v in wildcards.items())


_JOB = re.compile(r"^(?:local)?rule (\w+):$")
_FIELD = re.compile(r"^ {4}(\w+): (.*)$")


def parse_dry_run(listing: str) -> list[Job]:
    """The jobs of Snakemake's dry-run listing (``rule <name>:`` or ``localrule <name>:``, then
    its indented ``output:``, ``wildcards:`` and ``reason:`` lines), without the target rule
    ``all``."""
    jobs, current = [], None
    for line in listing.splitlines():
        started = _JOB.match(line)
        if started:
            current = {"rule": started.group(1)}
            jobs.append(current)
            continue
        found = _FIELD.match(line) if current is not None else None
        if found:
            current[found.group(1)] = found.group(2).strip()
        elif current is not None and not line.startswith(" "):
            current = None
    parsed = []
    for job in jobs:
        wildcards = dict(item.split("=", 1) for item in job.get("wildcards", "").split(", ") if "=" in item)
        outputs = tuple(o for o in job.get("output", "").split(", ") if o)
        parsed.append(Job(job["rule"], outputs, wildcards, job.get("reason", "")))
    return [job for job in parsed if job.rule != "all"]


def scheduled(root: Path, *args: str) -> list[Job]:
    """The jobs a run of ``snakemake *args`` in ``root`` would execute (a dry run)."""
    out = snakemake(root, "--dry-run", *args)
    said = out.stdout
    if "Nothing to be done" in said + out.stderr:
        return []
    assert "This was a dry-run" in said, said[-3000:]
    jobs = parse_dry_run(said)
    stats = said.split("Job stats:")[1].split("total")[0]
    counted = sum(int(n) for rule, n in re.findall(r"^(\w+)\s+(\d+)\s*$", stats, re.M) if rule not in ("all", "job"))
    assert len(jobs) == counted, f"{len(jobs)} jobs listed, {counted} counted:\n{said[-3000:]}"
    return jobs


def scheduled_rules(root: Path, *args: str) -> set[str]:
    return {job.rule for job in scheduled(root, *args)}


def scheduled_outputs(jobs: list[Job]) -> set[str]:
    return {output for job in jobs for output in job.outputs}
