"""End-to-end runs of the Snakemake workflow on a small synthetic task (copies in tmp dirs,
never the real data/): the outputs of one shared base run (conftest.base_run), what reruns
after an edit (dry runs on a copy of the base run), clean failures on bad input, and, marked
``slow``, the properties that need more runs from scratch: determinism across --cores, what an
edit's real rerun writes, provided scores, preference tasks."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import synthetic_task, write_jsonl
from workflow_runs import (
    SNAKEFILE,
    clone,
    make_run_dir,
    read_config,
    result_files,
    scheduled,
    scheduled_outputs,
    scheduled_rules,
    snakemake,
    write_config,
)

import debias

pytestmark = pytest.mark.workflow

TABLES = ["table2.csv", "variance_by_system.csv", "data_efficiency.csv", "correlations.csv", "best_metrics.csv"]
METRICS = ["bleu", "rouge1", "rouge2", "rougeL", "meteor"]
#: The rules that run once per system of a task: what an edit of another system, task or
#: label must leave alone.
PER_SYSTEM = {"metrics", "metrics_part", "join", "curves", "coverage_system", "plan_check_system"}


def systems_of(jobs, rules=PER_SYSTEM) -> set[tuple[str, str]]:
    """(task, system) of the scheduled jobs of per-system rules."""
    return {(job.wildcards["task"], job.wildcards["system"]) for job in jobs if job.rule in rules}


def test_every_output_is_written(base_run):
    results = base_run / "results"
    for name in TABLES + ["table2.md", "table2.tex", "data_efficiency.md"]:
        assert (results / "tables" / name).stat().st_size > 0, name
    for name in ["figure3", "figure5_toy", "figure6a", "figure6b"]:
        assert (results / "figures" / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert (results / "figures" / f"{name}.pdf").read_bytes()[:4] == b"%PDF"
    assert (results / "report.md").read_text().strip()
    scores = pd.read_csv(results / "metrics/toy/beta+1.0.csv")
    assert list(scores.columns) == ["id", "system", "bleu", "rouge1", "rouge2", "rougeL", "meteor"]
    assert scores[["bleu", "rouge1", "rouge2", "rougeL", "meteor"]].apply(lambda c: c.between(0, 1).all()).all()
    versions = json.loads((results / "metrics/toy/alpha.json").read_text())
    assert "nrefs:1" in json.dumps(versions)  # the sacrebleu signature is recorded


def test_leaderboard_table_and_figure(base_run):
    results = base_run / "results"
    table = pd.read_csv(results / "tables/leaderboard.csv", dtype={"system": str}, keep_default_na=False)
    estimates = pd.read_csv(results / "tables/system_estimates.csv", dtype={"system": str})
    ranked = table[table["note"] == ""]
    keys = ["task", "prompt", "system", "estimator"]
    merged = ranked.merge(estimates, on=keys, suffixes=("", "_estimates"))
    assert len(merged) == len(ranked) == len(estimates)  # every estimate ranked, at the same value
    assert (merged["estimate"] - merged["estimate_estimates"]).abs().max() < 1e-5
    assert ((ranked["rank_low"] <= ranked["rank"]) & (ranked["rank"] <= ranked["rank_high"])).all()
    assert (results / "figures/leaderboard_toy.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "figures/leaderboard_toy.png)" in (results / "report.md").read_text()


def test_estimate_and_coverage_tables(base_run):
    results = base_run / "results"
    estimators = ["mean"] + [f"cv:{m}" for m in METRICS] + ["cv:combined"]
    estimates = pd.read_csv(results / "tables/system_estimates.csv")
    columns = ["task", "prompt", "system", "estimator", "n_judged", "n_outputs", "estimate", "ci_low", "ci_high"]
    assert list(estimates.columns) == columns + ["level", "effective_n", "note"]
    for system in ("alpha", "beta+1.0"):
        rows = estimates[estimates["system"] == system]
        assert rows["note"].isna().all()  # every interval there: nothing to explain
        # every output is judged: no unjudged outputs for ppi++ to use
        assert sorted(rows["estimator"]) == sorted(estimators), system
        assert ((rows["ci_low"] <= rows["estimate"]) & (rows["estimate"] <= rows["ci_high"])).all()
        assert (rows["level"] == 0.8).all()
    coverage = pd.read_csv(results / "tables/coverage.csv")
    assert set(coverage["n"]) == {10, 20}  # sample_sizes [10, 0.5N] with N = 40
    ppi = [f"{family}:{m}" for family in ("ppi++", "ppi++fpc") for m in METRICS]
    assert sorted(set(coverage["estimator"])) == sorted(estimators + ppi)
    assert len(coverage) == 2 * 2 * (len(estimators) + len(ppi))  # systems x sizes x estimators
    assert (coverage["repeats"] == 50).all() and coverage["coverage"].between(0, 1).all()
    assert (coverage.loc[coverage["estimator"] == "mean", "de"] == 1).all()
    for task in ("toy",):
        assert (results / f"figures/system_scores_{task}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert (results / f"figures/system_scores_{task}.pdf").read_bytes()[:4] == b"%PDF"


def provided_score_dir(root: Path, unjudged: str) -> Path:
    """The test task with a provided metric; alpha's lines 0-2 of every 10 (30%) carry no
    judgment (``unjudged="keep"``) or are left out altogether (``"drop"``)."""
    run = make_run_dir(root)
    config = read_config(run)
    config["metrics"] = {"judge": {"label": "Judge", "provided": True}}
    config["figures"].pop("figure6", None)
    write_config(run, config)
    for path in [run / "data/toy/systems/alpha.jsonl", run / "data/toy/systems/beta+1.0.jsonl"]:
        lines = []
        for number, line in enumerate(path.read_text().splitlines()):
            record = json.loads(line)
            judged = record["judgments"].get("quality") or [0.0]
            record["scores"] = {"judge": sum(judged) / len(judged) + 0.1 * ((number * 7) % 5)}
            if path.stem == "alpha" and number % 10 < 3:
                if unjudged == "drop":
                    continue
                record["judgments"] = {}
            lines.append(json.dumps(record))
        path.write_text("\n".join(lines) + "\n")
    return run


PROVIDED_TABLES = [f"results/tables/{name}" for name in TABLES + ["coverage.csv", "system_estimates.csv"]]


def provided_score_run(root: Path, unjudged: str) -> Path:
    run = provided_score_dir(root, unjudged)
    snakemake(run, *PROVIDED_TABLES)
    return run


def test_a_provided_metric_is_read_not_computed(tmp_path):
    """With every metric provided, no job computes a metric: each system's join reads the scores
    in its file (the dry-run side of the end-to-end test below)."""
    run = provided_score_dir(tmp_path / "unjudged", "keep")
    jobs = scheduled(run, *PROVIDED_TABLES)
    assert not {job.rule for job in jobs} & {"metrics", "metrics_part"}
    assert {("toy", "alpha"), ("toy", "beta+1.0")} <= systems_of(jobs, {"join"})
    assert not any(output.startswith("results/metrics/") for output in scheduled_outputs(jobs))


@pytest.mark.slow
def test_provided_score_and_unjudged_outputs_end_to_end(tmp_path):
    """A metric scored elsewhere is used like a computed one. Unjudged outputs only add to the
    metric's population: with 30% of a system's outputs unjudged its control-variate interval
    narrows against the mean's, and every other table is the same as without those outputs."""
    run = provided_score_run(tmp_path / "unjudged", "keep")
    alone = provided_score_run(tmp_path / "judged-only", "drop")
    assert not (run / "results/metrics").exists(), "nothing to compute when every metric is provided"
    for name in TABLES + ["coverage.csv"]:
        assert (run / "results/tables" / name).read_bytes() == (alone / "results/tables" / name).read_bytes(), name
    estimates, judged_only = (
        pd.read_csv(r / "results/tables/system_estimates.csv").set_index(["system", "estimator"]) for r in (run, alone)
    )
    pd.testing.assert_frame_equal(estimates.loc["beta+1.0"], judged_only.loc["beta+1.0"], check_dtype=False)
    alpha, alpha_alone = estimates.loc["alpha"], judged_only.loc["alpha"]
    assert set(alpha.index) == {"mean", "cv:judge", "ppi++:judge"}
    assert set(alpha_alone.index) == {"mean", "cv:judge"}  # ppi++ needs unjudged outputs
    assert (alpha["n_judged"] == 28).all() and (alpha["n_outputs"] == 40).all()
    assert (alpha_alone["n_outputs"] == 28).all()
    assert alpha.loc["mean", "estimate"] == pytest.approx(alpha_alone.loc["mean", "estimate"])
    width = alpha["ci_high"] - alpha["ci_low"]
    assert width["cv:judge"] < width["mean"]
    # the metric on the 12 unjudged outputs is what the interval gains from: the effective
    # number of judged items grows past n, where with every output judged it cannot
    assert alpha.loc["cv:judge", "effective_n"] > 28 >= alpha_alone.loc["cv:judge", "effective_n"] - 1e-9


def test_data_efficiency_grid_is_complete(base_run):
    table = pd.read_csv(base_run / "results/tables/data_efficiency.csv")
    columns = ["task", "prompt", "system", "metric", "condition", "de", "de_theory", "rho", "gamma_resampling"]
    assert list(table.columns) == columns
    # 2 systems x 1 prompt x (5 metrics x {cv, noiseless} + perfect)
    assert len(table) == 2 * 11
    assert set(table.loc[table.condition == "perfect", "metric"]) == {"perfect"}
    assert (table["de"] > 0).all()


def test_report_alone_draws_the_figures_it_links(base_run, tmp_path):
    """Asked for the report alone, a fresh run schedules every figure the report links (the
    links of the base run's report, made from the same configuration)."""
    report = (base_run / "results/report.md").read_text()
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", report)
    assert links, "the report embeds figures"
    run = make_run_dir(tmp_path / "report-only")
    made = scheduled_outputs(scheduled(run, "results/report.md"))
    for link in links:
        assert f"results/{link}" in made, link


def test_rerun_does_nothing(base_run, tmp_path):
    run = clone(base_run, tmp_path)
    before = result_files(run)
    out = snakemake(run)
    assert "Nothing to be done" in out.stdout + out.stderr
    assert result_files(run) == before


@pytest.mark.slow
def test_tables_identical_with_one_core(base_run, tmp_path):
    other = make_run_dir(tmp_path / "one-core")
    snakemake(other, cores=1)
    for name in TABLES + ["table2.md", "data_efficiency.md"]:
        assert (other / "results/tables" / name).read_bytes() == (base_run / "results/tables" / name).read_bytes(), name
    for path in (base_run / "results/curves").rglob("*.csv"):
        assert (other / path.relative_to(base_run)).read_bytes() == path.read_bytes(), path


# -- What reruns after an edit: dry runs on a copy of the base run; the properties that need the
# rerun's outputs, marked slow, run it on a copy. -------------------------------------------------


def add_system(base: Path, tmp_path: Path) -> Path:
    """A copy of the base run with a third system, gamma.new, in the toy task."""
    run = clone(base, tmp_path)
    synthetic_task(tmp_path / "extra", "toy", ["gamma.new"], n_items=40, seed=11)
    shutil.copy(tmp_path / "extra/toy/systems/gamma.new.jsonl", run / "data/toy/systems/gamma.new.jsonl")
    config = read_config(run)
    config["tasks"]["toy"]["systems"]["gamma.new"] = {"label": "gamma"}
    write_config(run, config)
    return run


def test_adding_a_system_reruns_only_its_jobs(base_run, tmp_path):
    jobs = scheduled(add_system(base_run, tmp_path))
    # every per-system job of the new system, none of the others'
    assert systems_of(jobs) == {("toy", "gamma.new")}
    assert {job.rule for job in jobs if job.wildcards.get("system") == "gamma.new"} == PER_SYSTEM - {"metrics_part"}
    made = scheduled_outputs(jobs)
    assert {"results/metrics/toy/gamma.new.csv", "results/tables/data_efficiency.csv"} <= made
    # Figure 6a draws alpha from alpha's own tables: another system does not redraw it.
    assert "results/figures/figure6a.png" not in made


@pytest.mark.slow
def test_adding_a_system_leaves_the_other_systems_outputs_alone(base_run, tmp_path):
    run = add_system(base_run, tmp_path)
    before = result_files(run)
    snakemake(run)
    after = result_files(run)
    for system in ("alpha", "beta+1.0"):
        for folder in ("metrics", "joined", "curves", "efficiency"):
            kept = f"results/{folder}/toy/{system}.csv"
            assert after[kept] == before[kept], kept
            assert (run / kept).read_bytes() == (base_run / kept).read_bytes(), kept
    assert "results/metrics/toy/gamma.new.csv" in after
    table = pd.read_csv(run / "results/tables/data_efficiency.csv")
    assert "gamma.new" in set(table.system)
    assert after["results/tables/data_efficiency.csv"] != before["results/tables/data_efficiency.csv"]
    assert after["results/figures/figure6a.png"] == before["results/figures/figure6a.png"]


def switch_checks_off(base: Path, tmp_path: Path) -> Path:
    run = clone(base, tmp_path)
    config = read_config(run)
    config["estimates"] = {**config.get("estimates", {}), "coverage": False}
    config["compare"] = {**config.get("compare", {}), "coverage": False}
    config["plan"] = {**config.get("plan", {}), "check": False}
    write_config(run, config)
    return run


def test_simulation_checks_can_be_switched_off(base_run, tmp_path):
    """estimates.coverage, compare.coverage and plan.check false: none of the three checks is
    scheduled, and the report is rebuilt without them."""
    run = switch_checks_off(base_run, tmp_path)
    planned = scheduled_rules(run, "--forceall")
    checks = {"coverage_system", "coverage", "comparison_coverage_task", "comparison_coverage"}
    checks |= {"plan_check_system", "plan_check"}
    assert not planned & checks
    assert {"plan", "report"} <= planned
    assert scheduled_rules(run) == {"report"}  # the checks' tables no longer read; nothing else redone
    snakemake(run)
    report = (run / "results/report.md").read_text()
    assert "comparison_coverage.csv" not in report and "plan_check.csv" not in report
    assert "plan.csv" in report


def score_in_blocks(base: Path, tmp_path: Path) -> Path:
    """A copy of the base run whose alpha scores are gone, with blocks of 7 outputs per job."""
    run = clone(base, tmp_path)
    config = read_config(run)
    config["metric_chunk_outputs"] = 7  # toy systems have 30-40 outputs: five or six blocks
    write_config(run, config)
    (run / "results/metrics/toy/alpha.csv").unlink()
    return run


BLOCK_TARGETS = ("results/metrics/toy/alpha.csv", "results/metrics/toy/alpha.json")


def test_large_system_is_scored_in_blocks(base_run, tmp_path):
    jobs = scheduled(score_in_blocks(base_run, tmp_path), *BLOCK_TARGETS)
    parts = sorted(int(job.wildcards["part"]) for job in jobs if job.of("metrics_part", task="toy", system="alpha"))
    assert parts == list(range(6))  # 40 outputs, 7 a block
    assert [job.rule for job in jobs if job.rule != "metrics_part"] == ["metrics"]
    assert systems_of(jobs) == {("toy", "alpha")}


@pytest.mark.slow
def test_large_system_scored_in_blocks_gives_the_same_table(base_run, tmp_path):
    run = score_in_blocks(base_run, tmp_path)
    target = BLOCK_TARGETS[0]
    snakemake(run, *BLOCK_TARGETS)
    logs = sorted((run / "results/logs/metrics/toy").glob("alpha.*.log"))
    assert len(logs) >= 4
    assert (run / target).read_bytes() == (base_run / target).read_bytes()
    assert not list((run / "results/metric_parts").rglob("*.csv"))  # temporary blocks removed


#: The rules that show a label (of a task, system, prompt or metric) and nothing else of the
#: configuration a label edit changes.
SHOWS_LABELS = {"table1", "table2", "data_efficiency", "figure1", "figure3", "figure5", "figure6"}
SHOWS_LABELS |= {"task_figures", "report"}


def test_label_edit_redraws_figures_only(base_run, tmp_path):
    run = clone(base_run, tmp_path)
    config = read_config(run)
    config["tasks"]["toy"]["systems"]["alpha"]["label"] = "Alpha (renamed)"
    config["tasks"]["toy"]["prompts"]["quality"]["label"] = "Overall quality"
    write_config(run, config)
    jobs = scheduled(run)
    assert {job.rule for job in jobs} <= SHOWS_LABELS
    assert not systems_of(jobs)
    assert "results/figures/figure6a.png" in scheduled_outputs(jobs)


def add_prompt(base: Path, tmp_path: Path) -> Path:
    """A copy of the base run with a second prompt, clarity (1-5), judged twice on every item."""
    run = clone(base, tmp_path)
    config = read_config(run)
    config["tasks"]["toy"]["prompts"]["clarity"] = {"label": "Clarity", "min": 1, "max": 5}
    write_config(run, config)
    for path in (run / "data/toy/systems").glob("*.jsonl"):
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        for i, line in enumerate(lines):
            line["judgments"]["clarity"] = [1 + (i % 5), 1 + ((i * 7) % 5)]
        write_jsonl(path, lines)
    return run


def test_adding_a_prompt_reruns_every_system_and_table(base_run, tmp_path):
    """The judgments of a new prompt are in the system files: every system's jobs and every
    table that lists prompts run again."""
    jobs = scheduled(add_prompt(base_run, tmp_path))
    systems = {("toy", "alpha"), ("toy", "beta+1.0")}
    for rule in PER_SYSTEM - {"metrics_part"}:
        assert systems <= systems_of(jobs, {rule}), rule
    made = scheduled_outputs(jobs)
    for table in ("table2.csv", "data_efficiency.csv", "system_estimates.csv", "plan.csv"):
        assert f"results/tables/{table}" in made, table


#: The tables that list every task and prompt (what the real reruns below read).
LISTING_TABLES = ("results/tables/table2.csv", "results/tables/data_efficiency.csv")


@pytest.mark.slow
def test_adding_a_prompt(base_run, tmp_path):
    run = add_prompt(base_run, tmp_path)
    snakemake(run, *LISTING_TABLES)
    table2 = pd.read_csv(run / "results/tables/table2.csv")
    assert set(table2.prompt) == {"quality", "clarity"}
    efficiency = pd.read_csv(run / "results/tables/data_efficiency.csv")
    assert set(efficiency.prompt) == {"quality", "clarity"}


def add_task(base: Path, tmp_path: Path) -> Path:
    """A copy of the base run with a second task of two systems."""
    run = clone(base, tmp_path)
    synthetic_task(run / "data", "second", ["one", "two"], n_items=30, seed=5, prompts=("score",))
    config = read_config(run)
    config["tasks"]["second"] = {
        "label": "Second",
        "systems": {"one": {"label": "one"}, "two": {"label": "two"}},
        "prompts": {"score": {"label": "Score", "min": -1, "max": 1}},
    }
    write_config(run, config)
    return run


def test_adding_a_task_reruns_its_jobs_and_the_tables(base_run, tmp_path):
    jobs = scheduled(add_task(base_run, tmp_path))
    new = {("second", "one"), ("second", "two")}
    for rule in PER_SYSTEM - {"metrics_part"}:
        assert new <= systems_of(jobs, {rule}), rule
    # the first task's scores and curves are kept (its plan checks, whose settings hold every
    # task's scales, run again)
    assert systems_of(jobs, {"metrics", "join", "curves", "coverage_system"}) == new
    assert "results/tables/table2.csv" in scheduled_outputs(jobs)


@pytest.mark.slow
def test_adding_a_task(base_run, tmp_path):
    run = add_task(base_run, tmp_path)
    before = result_files(run)
    snakemake(run, *LISTING_TABLES)  # data_efficiency reads every system's curves
    after = result_files(run)
    assert after["results/curves/toy/alpha.csv"] == before["results/curves/toy/alpha.csv"]
    table2 = pd.read_csv(run / "results/tables/table2.csv")
    assert set(table2.task) == {"toy", "second"}


def test_a_task_with_one_system_gets_its_system_scores_figure_alone(base_run, tmp_path):
    """A task's figures are drawn by one job: all three (system scores, comparisons, leaderboard)
    for a task with two systems or more, the system-scores figure alone for a task with one
    system, which has nothing to compare or rank."""
    run = clone(base_run, tmp_path)
    synthetic_task(run / "data", "solo", ["only"], n_items=30, seed=5, prompts=("score",))
    config = read_config(run)
    config["tasks"]["solo"] = {
        "label": "Solo",
        "systems": {"only": {"label": "only"}},
        "prompts": {"score": {"label": "Score", "min": -1, "max": 1}},
    }
    write_config(run, config)
    planned = snakemake(run, "--dry-run").stdout
    assert re.search(r"^\s*task_figures\s+1\s*$", planned, re.M), planned[-3000:]
    assert re.search(r"^\s*system_scores_figure\s+1\s*$", planned, re.M), planned[-3000:]
    for figure in ("system_scores_toy", "comparisons_toy", "leaderboard_toy", "system_scores_solo"):
        assert f"results/figures/{figure}.png" in planned, figure
    assert "comparisons_solo" not in planned and "leaderboard_solo" not in planned
    snakemake(run, "results/figures/system_scores_solo.png")
    drawn = {path.name: path.stat().st_size for path in (run / "results/figures").glob("*_solo.*")}
    assert set(drawn) == {"system_scores_solo.png", "system_scores_solo.pdf"} and all(drawn.values()), drawn


def _replace_line(path: Path, number: int, text: str) -> None:
    lines = path.read_text().splitlines()
    lines[number - 1] = text
    path.write_text("\n".join(lines) + "\n")


def _bad_input(case: str, run: Path, config: dict) -> list[str]:
    """Break one input of a fresh run directory; return what the error message must say."""
    alpha = run / "data/toy/systems/alpha.jsonl"
    where = lambda number: f"{alpha.relative_to(run)}:{number}"  # noqa: E731
    if case == "unknown config key":
        config["bootstrap"]["replicatez"] = 5
        return ["replicatez"]
    if case == "wrong config type":
        config["bootstrap"]["replicates"] = "many"
        return ["many"]
    if case == "missing system file":
        config["tasks"]["toy"]["systems"]["nosuch"] = {"label": "x"}
        return ["nosuch.jsonl.gz", "not found"]
    if case == "not JSON":
        _replace_line(alpha, 3, '{"id": "002", "output": ')
        return [where(3), "not valid JSON"]
    if case == "missing judgments":
        _replace_line(alpha, 5, json.dumps({"id": "004", "output": "x", "judgements": {}}))
        return [where(5), "missing key 'judgments'"]
    if case == "judgment out of range":
        _replace_line(alpha, 6, json.dumps({"id": "005", "output": "x", "judgments": {"quality": [3]}}))
        return [where(6), "outside its declared range [-1, 1]"]
    if case == "judgment not a number":
        _replace_line(alpha, 6, json.dumps({"id": "005", "output": "x", "judgments": {"quality": ["yes"]}}))
        return [where(6), "must be a number or null", '"yes"']
    if case == "id without reference":
        _replace_line(alpha, 2, json.dumps({"id": "x99", "output": "x", "judgments": {"quality": [1]}}))
        return [where(2), "'x99' has no reference"]
    if case == "duplicate id":
        _replace_line(alpha, 4, json.dumps({"id": "000", "output": "x", "judgments": {"quality": [1]}}))
        return [where(4), "'000' appears twice", "line 1"]
    if case == "too few judged items":
        config["min_judged_items"] = 41
        return ["alpha", "40 judged items", "at least 41"]
    if case == "shared judgment disagrees":
        beta = run / "data/toy/systems/beta+1.0.jsonl"
        for path, judgments in ((alpha, [1]), (beta, [0])):
            _replace_line(
                path,
                1,
                json.dumps(
                    {"id": "000", "output": "x", "judgments": {"quality": judgments}, "judged_output": "shared-1"}
                ),
            )
        return ["beta+1.0.jsonl", "'shared-1'", "must agree"]
    if case.startswith("provided score"):
        config["metrics"]["judge"] = {"label": "Judge", "provided": True}
        for path in [alpha, run / "data/toy/systems/beta+1.0.jsonl"]:  # the reference system is not scored
            records = [json.loads(line) for line in path.read_text().splitlines()]
            for number, record in enumerate(records, start=1):
                if case == "provided score missing" and path == alpha and number == 4:
                    continue
                if case == "provided score not finite" and path == alpha and number == 7:
                    record["scores"] = {"judge": "NaN"}
                    continue
                if case != "provided score absent everywhere":
                    record["scores"] = {"judge": 0.5}
            path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
        if case == "provided score missing":
            return [where(4), "judge"]
        if case == "provided score not finite":
            return [where(7), "judge"]
        return ["alpha.jsonl", "judge"]
    if case == "released checksum":
        released = run / "data/raw.jsonl.gz"
        released.write_bytes(b"not the released file")
        config["released"] = [{"path": "data/raw.jsonl.gz", "sha256": "a" * 64}]
        return ["data/raw.jsonl.gz", "sha256", "a" * 64]
    raise ValueError(case)


BAD_INPUTS = [
    "unknown config key",
    "wrong config type",
    "missing system file",
    "not JSON",
    "missing judgments",
    "judgment out of range",
    "judgment not a number",
    "id without reference",
    "duplicate id",
    "too few judged items",
    "shared judgment disagrees",
    "released checksum",
    "provided score missing",
    "provided score not finite",
    "provided score absent everywhere",
]


@pytest.mark.parametrize("case", BAD_INPUTS)
def test_bad_input_stops_before_any_job(tmp_path, case):
    run = make_run_dir(tmp_path / "run")
    config = read_config(run)
    expected = _bad_input(case, run, config)
    write_config(run, config)
    out = snakemake(run, check=False)
    assert out.returncode != 0
    for text in expected:
        assert text in out.stdout + out.stderr, (text, out.stderr[-2000:])
    assert not (run / "results").exists(), "nothing may be computed or written"


def test_bad_line_after_a_passed_check_still_stops_the_run(tmp_path):
    """The input check is remembered for unchanged files only: a line broken after a passed
    check stops the next start with its file and line, before anything is written."""
    run = make_run_dir(tmp_path / "run")
    snakemake(run, "--dry-run")
    assert list((run / ".snakemake/debias-input-checks").glob("*.json")), "a passed check is remembered"
    alpha = run / "data/toy/systems/alpha.jsonl"
    _replace_line(alpha, 6, json.dumps({"id": "005", "output": "x", "judgments": {"quality": [3]}}))
    out = snakemake(run, "--dry-run", check=False)
    assert out.returncode != 0
    said = out.stdout + out.stderr
    assert "data/toy/systems/alpha.jsonl:6" in said and "outside its declared range" in said
    assert not (run / "results").exists()


@pytest.mark.parametrize(
    ("value", "checked"),
    [(True, True), (False, False), ({"pilots": 20}, True), ("absent", True), (None, None), (0, None), ("false", None)],
)
def test_plan_check_values(tmp_path, value, checked):
    """plan.check is a mapping, true (the defaults) or false; any other value stops the dry run
    naming the key, before anything is written."""
    run = make_run_dir(tmp_path / "run")
    config = read_config(run)
    if value == "absent":
        del config["plan"]["check"]
    else:
        config["plan"]["check"] = value
    write_config(run, config)
    out = snakemake(run, "--dry-run", check=False)
    if checked is None:
        said = out.stdout + out.stderr
        assert out.returncode != 0 and "config key plan.check: " in said, said[-2000:]
        assert "AttributeError" not in said
        assert not (run / "results").exists()
    else:
        assert out.returncode == 0, out.stderr[-2000:]
        assert bool(re.search(r"^\s*plan_check\s+1\s*$", out.stdout, re.M)) == checked


def test_a_setting_reruns_only_the_rules_that_read_it(base_run, tmp_path):
    """Each rule gets only the settings it reads: a prompt's label redraws what shows it and
    leaves the tables that do not alone; a setting of the plan check reruns that check only."""
    run = clone(base_run, tmp_path)
    config = read_config(run)
    config["tasks"]["toy"]["prompts"]["quality"]["label"] = "Overall quality"
    write_config(run, config)
    assert scheduled_rules(run) == SHOWS_LABELS
    config = read_config(clone(base_run, tmp_path / "check"))
    config["plan"]["check"]["pilots"] = 30
    write_config(tmp_path / "check/run", config)
    assert scheduled_rules(tmp_path / "check/run") == {"plan_check_system", "plan_check", "report"}


def test_missing_wordnet_stops_before_any_job(tmp_path):
    """METEOR is never computed without WordNet: the run stops at start-up and says how to get it."""
    run = make_run_dir(tmp_path / "nowordnet")
    config = read_config(run)
    config["nltk_data"] = str(tmp_path / "empty-nltk-data")
    write_config(run, config)
    env = {**os.environ, "HOME": str(tmp_path / "home"), "NLTK_DATA": str(tmp_path / "empty-nltk-data")}
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "--snakefile",
            str(SNAKEFILE),
            "--directory",
            str(run),
            "--cores",
            "1",
        ],
        capture_output=True,
        text=True,
        cwd=run,
        env=env,
    )
    if out.returncode == 0:
        pytest.skip("an NLTK WordNet outside the project is visible on this machine")
    assert "WordNet" in out.stderr and "nltk.downloader" in out.stderr
    assert not (run / "results").exists()


def test_failed_job_leaves_no_partial_output_and_logs_its_error(base_run, tmp_path):
    """A job that fails half-way (here: scores missing for the join) leaves no output, and its
    own log file says why."""
    run = clone(base_run, tmp_path)
    joined, log = run / "results/joined/toy/alpha.csv", run / "results/logs/join/toy/alpha.log"
    joined.unlink()
    log.unlink()
    scores = run / "results/metrics/toy/alpha.csv"
    scores.write_text(scores.read_text().splitlines()[0] + "\n")  # header only: no item has scores
    assert [job.rule for job in scheduled(run, str(joined.relative_to(run)))] == ["join"]
    out = snakemake(run, str(joined.relative_to(run)), check=False)
    assert out.returncode != 0
    assert not joined.exists()
    assert "no scores for 40 outputs" in log.read_text() and "Traceback" in log.read_text()
    leftovers = [p for p in (run / "results").rglob("*") if p.is_file() and p.name.startswith(".")]
    assert leftovers == [], "temporary files left behind"


def test_comparison_and_plan_tables_and_the_command_agree(base_run):
    results = base_run / "results"
    comparisons = pd.read_csv(results / "tables/system_comparisons.csv", dtype={"system_a": str, "system_b": str})
    assert set(zip(comparisons["system_a"], comparisons["system_b"])) == {("alpha", "beta+1.0")}
    assert list(comparisons["estimator"]) == ["mean"] + [f"cv:{m}" for m in METRICS] + ["cv:combined"]
    assert (
        (comparisons["ci_low"] <= comparisons["difference"]) & (comparisons["difference"] <= comparisons["ci_high"])
    ).all()
    coverage = pd.read_csv(results / "tables/comparison_coverage.csv")
    assert set(coverage["n"]) == {10, 20} and (coverage["repeats"] == 50).all()
    plan = pd.read_csv(results / "tables/plan.csv", dtype={"system": str})
    assert set(plan["system"]) == {"alpha", "beta+1.0"} and (plan["n"] > 0).all()
    check = pd.read_csv(results / "tables/plan_check.csv")
    assert (check["pilots"] == 20).all() and check["met"].between(0, 1).all()
    assert (results / "figures/comparisons_toy.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # the test task is not one of the paper's: its section reports the comparisons and the plans
    report = (results / "report.md").read_text()
    for heading in ("## Toy task", "### Paired comparisons", "### Planning the next evaluation"):
        assert heading in report, heading
    assert "beta − alpha | 40 |" in report
    # the command prints the workflow's rows for the same files (scores from results/metrics/)
    systems = [str(base_run / "data/toy/systems" / f"{s}.jsonl") for s in ("alpha", "beta+1.0")]
    command = [sys.executable, "-m", "debias.cli"]
    printed = subprocess.run(command + ["compare", *systems], capture_output=True, text=True, cwd=base_run, check=True)
    assert printed.stdout == (results / "tables/system_comparisons.csv").read_text()
    printed = subprocess.run(command + ["plan", systems[0]], capture_output=True, text=True, cwd=base_run, check=True)
    expected = (results / "tables/plan.csv").read_text().splitlines()
    assert printed.stdout.splitlines() == [expected[0]] + [line for line in expected[1:] if ",alpha," in line]
    # the leaderboard too, rank-sets drawn from the same seed (bootstrap.seed) and names
    printed = subprocess.run(command + ["leaderboard", *systems], capture_output=True, text=True, cwd=base_run)
    assert printed.returncode == 0 and printed.stdout == (results / "tables/leaderboard.csv").read_text()


def preference_run(root: Path) -> Path:
    """A run directory with a configuration of one preference task alone: 60 battles of three
    systems, 40 with a human verdict (two raters on 10 of them), and a judge in its own table
    holding 10 more battles (the pool) and one answer mapped to no verdict, and a judge tossing
    a coin in a column of the battles table."""
    root.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(3)
    systems = ["alpha", "beta", "gamma"]
    rows, judged = [], []
    for battle in range(60):
        a, b = rng.choice(3, size=2, replace=False)
        verdict = str(rng.choice(["a", "b", "tie"]))
        guess = str(rng.choice(["model_a", "model_b"]))
        topic = "code" if battle % 3 == 0 else "chat"  # a column to break the estimates down by
        judged.append({"id": battle, "first": systems[a], "second": systems[b], "verdict": verdict, "topic": topic})
        if battle < 50:
            rows.append(
                {
                    "id": battle,
                    "first": systems[a],
                    "second": systems[b],
                    "human": verdict,
                    "rater": "r1",
                    "topic": topic,
                }
            )
            rows[-1]["coin"] = guess
        if battle < 10:
            rows.append({**rows[-1], "human": "tie", "rater": "r2"})
    for row in rows[40:50]:
        row["human"] = ""  # battles the judge alone saw
    judged[0]["verdict"] = "I cannot decide"
    (root / "data").mkdir(exist_ok=True)
    pd.DataFrame(rows).to_csv(root / "data/battles.csv", index=False)
    pd.DataFrame(judged).to_json(root / "data/judge.jsonl", orient="records", lines=True)
    config = {
        "results_dir": "results",
        "preferences": {
            "toy": {
                "label": "Toy battles",
                "battles": "data/battles.csv",
                "item": "id",
                "system_a": "first",
                "system_b": "second",
                "verdict": "human",
                "rater": "rater",
                "judges": {
                    "llm": {
                        "label": "An LLM",
                        "table": "data/judge.jsonl",
                        "column": "verdict",
                        "mapping": {"I cannot decide": None},
                    },
                    "coin": {"label": "A coin"},
                },
            }
        },
    }
    write_config(root, config)
    return root


def test_a_preference_task_alone_schedules_its_jobs_only(tmp_path):
    """A configuration of preference tasks alone runs none of the ratings' jobs; a question
    adds its status job (the dry-run side of the two end-to-end tests below)."""
    run = preference_run(tmp_path / "prefs")
    jobs = scheduled(run)
    assert sorted(job.rule for job in jobs) == ["head_to_head", "preferences", "report"]
    made = scheduled_outputs(jobs)
    assert {"results/tables/preferences/toy/head_to_head.csv", "results/figures/head_to_head_toy.png"} <= made
    for name in ("preferences.csv", "judge_agreement.csv", "leaderboard.csv", "summary.json"):
        assert f"results/tables/preferences/toy/{name}" in made, name
    config = read_config(run)
    config["preferences"]["toy"]["question"] = "better:alpha,beta"
    write_config(run, config)
    jobs = scheduled(run)
    assert sorted(job.rule for job in jobs) == ["head_to_head", "preference_status", "preferences", "report"]
    assert {"results/tables/preferences/toy/status.csv", "results/figures/status_toy.png"} <= scheduled_outputs(jobs)
    # a column to break the estimates down by adds the breakdown; head_to_head: false leaves the matrix out
    config["preferences"]["toy"].update(by="topic", head_to_head=False)
    del config["preferences"]["toy"]["question"]
    write_config(run, config)
    jobs = scheduled(run)
    assert sorted(job.rule for job in jobs) == ["breakdown", "preferences", "report"]
    assert {"results/tables/preferences/toy/breakdown.csv", "results/figures/breakdown_toy.png"} <= scheduled_outputs(
        jobs
    )


@pytest.mark.slow
def test_preference_task_alone_end_to_end(tmp_path):
    run = preference_run(tmp_path / "prefs")
    snakemake(run)
    tables = run / "results/tables/preferences/toy"
    estimates = pd.read_csv(tables / "preferences.csv", keep_default_na=False, na_values=[""])
    assert set(estimates["system"]) == {"alpha", "beta", "gamma"}
    assert set(estimates["estimator"]) == {
        "human",
        *(f"{kind}:{judge}" for kind in ("judge", "ppi++") for judge in ("llm", "coin")),
        "ppi++:combined",
    }
    assert set(estimates["estimand"]) == {"win_rate", "strength"}
    unbiased = estimates[estimates["estimator"] != "judge:llm"]
    assert (unbiased["ci_low"] <= unbiased["estimate"]).all() and (unbiased["estimate"] <= unbiased["ci_high"]).all()
    human = estimates[(estimates["estimator"] == "human") & (estimates["estimand"] == "win_rate")]
    assert human["n_judged"].sum() == 2 * 40, "every battle with a human verdict counts for both of its systems"
    agreement = pd.read_csv(tables / "judge_agreement.csv")
    assert set(agreement["judge"]) == {"llm", "coin"}
    assert agreement.groupby("judge")["n_unknown"].first().to_dict() == {"coin": 0, "llm": 1}
    summary = json.loads((tables / "summary.json").read_text())
    assert (summary["battles"], summary["human_battles"], summary["pool_battles"]) == (60, 40, 20)
    assert summary["multiply_rated"] == 10 and summary["rater_variance"] > 0
    assert summary["judge_unknown"] == {"llm": 1, "coin": 0}
    assert summary["human_agreement"]["battles"] == 10 and summary["human_agreement"]["rater_pairs"] == 10
    assert summary["judge_only_battles"] == {"llm": 20, "coin": 10}
    board = pd.read_csv(tables / "leaderboard.csv", keep_default_na=False, na_values=[""])
    assert set(board["estimand"]) == {"win_rate", "strength"} and set(board["estimator"]) == set(estimates["estimator"])
    ranked = board[board["rank"].notna()]
    assert ((ranked["rank_low"] <= ranked["rank"]) & (ranked["rank"] <= ranked["rank_high"])).all()
    assert board.loc[board["estimator"] == "judge:llm", "note"].str.contains("judge").all()
    # the API ranks the task's battles as the workflow does (the same seed, named after the task)
    from debias.config.tasks import load_preferences
    from debias.io.atomic import write_csv

    with contextlib.chdir(run):  # the configuration's paths are the run's
        write_csv(debias.leaderboard(load_preferences(read_config(run), "toy")), run / "api.csv")
    assert (run / "api.csv").read_text() == (tables / "leaderboard.csv").read_text()
    for suffix in ("pdf", "png"):
        assert (run / f"results/figures/preferences_toy.{suffix}").stat().st_size > 0
        assert (run / f"results/figures/preference_leaderboard_toy.{suffix}").stat().st_size > 0
    report = (run / "results/report.md").read_text()
    assert "![preference_leaderboard_toy](figures/preference_leaderboard_toy.png)" in report
    assert "## Toy battles (pairwise preferences)" in report and "| An LLM |" in report and "| A coin |" in report
    assert "![preferences_toy](figures/preferences_toy.png)" in report
    assert "variance of one rater's verdict" in report
    assert "two raters of the same battle agree on" in report and "| human verdicts compared |" in report
    assert "Toy battles (pairwise preferences)" in (run / "results/report.html").read_text()
    again = snakemake(run)
    assert "Nothing to be done" in again.stdout + again.stderr


@pytest.mark.slow
def test_a_preference_task_gets_its_head_to_head_matrix_and_breakdown(tmp_path):
    run = preference_run(tmp_path / "prefs")
    config = read_config(run)
    config["preferences"]["toy"]["by"] = "topic"
    write_config(run, config)
    snakemake(run)
    tables = run / "results/tables/preferences/toy"
    matrix = pd.read_csv(tables / "head_to_head.csv", keep_default_na=False, na_values=[""])
    assert len(matrix) == 6 * 3 * 2 and set(matrix["n_pairs"]) <= {1, 2, 3}
    assert set(matrix["estimator"]) == set(pd.read_csv(tables / "preferences.csv")["estimator"])
    non_tie = pd.read_csv(tables / "judge_agreement_non_tie.csv")
    assert set(non_tie["judge"]) == {"llm", "coin"} and (non_tie["n_non_tie"] <= non_tie["n_verdicts"]).all()
    breakdown = pd.read_csv(tables / "breakdown.csv", keep_default_na=False, na_values=[""])
    assert set(breakdown["by"].dropna()) == {"chat", "code"} and breakdown["by"].isna().any()
    for figure in ("head_to_head_toy", "breakdown_toy"):
        assert (run / f"results/figures/{figure}.png").stat().st_size > 0
    report = (run / "results/report.md").read_text()
    assert "Head to head, by people's verdicts" in report and "![head_to_head_toy]" in report
    assert "Agreement with people on non-tie verdicts" in report
    assert "levels of the breakdown column" in report and "![breakdown_toy]" in report


@pytest.mark.slow
def test_a_preference_tasks_question_gets_its_status_figure_and_report_paragraph(tmp_path):
    run = preference_run(tmp_path / "prefs")
    config = read_config(run)
    config["preferences"]["toy"]["question"] = "better:alpha,beta"
    write_config(run, config)
    snakemake(run)
    tables = run / "results/tables/preferences/toy"
    status = json.loads((tables / "status.json").read_text())
    assert status["question"] == "better:alpha,beta" and status["votes"] == 40
    assert status["answer"].startswith("unresolved so far")  # 40 coin-flip verdicts settle nothing
    table = pd.read_csv(tables / "status.csv", keep_default_na=False, na_values=[""])
    assert table[["system", "versus"]].values.tolist() == [["alpha", "beta"]]
    assert (table["ci_low"] <= table["estimate"]).all() and (table["estimate"] <= table["ci_high"]).all()
    for suffix in ("pdf", "png"):
        assert (run / f"results/figures/status_toy.{suffix}").stat().st_size > 0
    report = (run / "results/report.md").read_text()
    assert "**Question `better:alpha,beta`: unresolved so far" in report
    assert "![status_toy](figures/status_toy.png)" in report


def test_a_question_about_an_unknown_system_stops_before_any_job(tmp_path):
    run = preference_run(tmp_path / "prefs")
    config = read_config(run)
    config["preferences"]["toy"]["question"] = "better:alpha,nobody"
    write_config(run, config)
    out = snakemake(run, check=False)
    assert out.returncode != 0
    assert "config: preferences.toy.question: unknown system 'nobody'" in out.stdout + out.stderr
    assert not (run / "results").exists(), "stopped before any job"


def test_bad_preference_table_stops_before_any_job(tmp_path):
    run = preference_run(tmp_path / "prefs")
    frame = pd.read_csv(run / "data/battles.csv", keep_default_na=False)
    frame.loc[7, "human"] = "B!!"
    frame.to_csv(run / "data/battles.csv", index=False)
    out = snakemake(run, check=False)
    assert out.returncode != 0
    assert "data/battles.csv: row 9: column 'human': unknown human verdicts: 'B!!' (1x)" in out.stdout + out.stderr
    assert not (run / "results").exists()


def style_controlled(run: Path) -> dict:
    """The preference run's configuration with style control: two length columns in the battles
    table and in the judge's own table, a baseline and Davidson's ties."""
    rng = np.random.default_rng(5)
    # one length per response: every row of a battle (both raters', the judge's) gives the same
    len_a, len_b = rng.integers(50, 500, 60), rng.integers(50, 500, 60)  # by battle id
    frame = pd.read_csv(run / "data/battles.csv", keep_default_na=False)
    frame["len_a"], frame["len_b"] = len_a[frame["id"]], len_b[frame["id"]]
    frame.to_csv(run / "data/battles.csv", index=False)
    judge = pd.read_json(run / "data/judge.jsonl", lines=True, dtype=False)
    judge["len_a"], judge["len_b"] = len_a[judge["id"]], len_b[judge["id"]]
    judge.to_json(run / "data/judge.jsonl", orient="records", lines=True)
    config = read_config(run)
    config["preferences"]["toy"].update(covariates={"length": ["len_a", "len_b"]}, baseline="alpha", ties="davidson")
    write_config(run, config)
    return config


@pytest.mark.slow
def test_a_preference_task_with_style_control_a_baseline_and_davidson_ties(tmp_path):
    run = preference_run(tmp_path / "prefs")
    style_controlled(run)
    snakemake(run)
    tables = run / "results/tables/preferences/toy"
    estimates = pd.read_csv(tables / "preferences.csv", keep_default_na=False, na_values=[""])
    extra = {"coefficient:length", "tie_parameter", "baseline_win_rate", "lc_baseline_win_rate"}
    assert set(estimates["estimand"]) == {"win_rate", "strength", *extra}
    one = estimates[estimates["estimand"].isin(["coefficient:length", "tie_parameter"])]
    assert one["system"].isna().all() and len(one) == 2 * estimates["estimator"].nunique()
    human = estimates[estimates["estimator"] == "human"].set_index(["estimand", "system"], drop=False)
    assert human.loc[("tie_parameter", np.nan), "estimate"].item() > 0
    against = human[human["estimand"] == "lc_baseline_win_rate"]
    assert against.loc[against["system"] == "alpha", "estimate"].isna().all()
    assert against.loc[against["system"] != "alpha", "estimate"].between(0, 1).all()
    # the same rows as the API gives on the task's battles
    from debias.config.tasks import load_preferences

    with contextlib.chdir(run):
        pairs = load_preferences(read_config(run), "toy")
    api = debias.preferences(pairs, level=0.95, covariates=["length"], baseline="alpha", ties="davidson")
    assert np.allclose(
        api["estimate"].to_numpy(dtype=float), estimates["estimate"].to_numpy(dtype=float), equal_nan=True
    )
    board = pd.read_csv(tables / "leaderboard.csv", keep_default_na=False, na_values=[""])
    assert not board["estimand"].isin(["coefficient:length", "tie_parameter"]).any()
    assert "strength" in set(board["estimand"])
    coefficient = human.loc[("coefficient:length", np.nan)]
    report = (run / "results/report.md").read_text()
    paragraph = next(line for line in report.splitlines() if line.startswith("The strengths are style-controlled"))
    assert "length (`len_a`, `len_b`)" in paragraph
    assert f"length {coefficient['estimate'].item():.3f} [{coefficient['ci_low'].item():.3f}," in paragraph
    assert "Davidson's tie parameter" in paragraph and "Win rates against the baseline alpha" in paragraph
    assert "length-controlled" in paragraph
    assert "style-controlled" in (run / "results/report.html").read_text()


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        (
            "covariates",
            {"length": ["len_a", "words_b"]},
            "config: preferences.toy.covariates.length: no column 'words_b' in data/battles.csv",
        ),
        ("baseline", "nobody", "config: preferences.toy.baseline: no system 'nobody' in the battles"),
    ],
)
def test_an_unknown_covariate_column_or_baseline_stops_before_any_job(tmp_path, key, value, message):
    run = preference_run(tmp_path / "prefs")
    config = style_controlled(run)
    config["preferences"]["toy"][key] = value
    write_config(run, config)
    out = snakemake(run, check=False)
    assert out.returncode != 0
    assert message in out.stdout + out.stderr
    assert not (run / "results").exists(), "stopped before any job"
