"""Rule `report`: the report (Markdown) about the user's own tasks, each preference task and, for
the paper's tasks, our numbers beside the paper's, with the figures it links as inputs so that none
of its links dangles."""

import json
import os
from pathlib import Path

import pandas as pd

from debias.io.atomic import write_text
from debias.pipeline.logs import run_script
from debias.report import build_report, load_paper_values
from debias.report.html import report_html, table_html
from debias.report.preferences import PreferenceTables, preferences_page


def preference_tables(paths):
    """Each preference task's tables from the report's inputs (tables/preferences/<name>/...)."""
    folders = dict.fromkeys(Path(p).parent for p in paths if Path(p).name == "summary.json")
    return [
        PreferenceTables(
            folder.name,
            pd.read_csv(folder / "preferences.csv", dtype={"system": str}, keep_default_na=False, na_values=[""]),
            pd.read_csv(
                folder / "judge_agreement.csv",
                dtype={"judge": str, "system": str},
                keep_default_na=False,
                na_values=[""],
            ),
            json.loads((folder / "summary.json").read_text(encoding="utf-8")),
            _status(folder),
            *(_optional(folder / f"{stem}.csv") for stem in ("head_to_head", "judge_agreement_non_tie", "breakdown")),
        )
        for folder in folders
    ]


def _optional(path):
    """A table the task's configuration may leave out (the head-to-head matrix, the breakdown)."""
    if not path.exists():
        return None
    return pd.read_csv(
        path, dtype={"system": str, "opponent": str, "judge": str, "by": str}, keep_default_na=False, na_values=[""]
    )


def _status(folder):
    """The task's question status (status.json), when it declares a question."""
    path = folder / "status.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def main(smk, log):
    out = Path(smk.output.report)

    def relative(folder):
        return Path(os.path.relpath(folder, out.parent)).as_posix()

    preferences = preference_tables(smk.input.preferences)
    if not smk.input.get("table2"):  # preference tasks alone
        figures = [p for p in smk.input.preferences if p.endswith(".png")]
        text = preferences_page(
            preferences,
            smk.params.config,
            figures=frozenset(Path(p).stem for p in figures),
            figures_dir=relative(Path(figures[0]).parent),
            tables_dir=relative(Path(smk.input.preferences[0]).parent.parent.parent),
        )
    else:
        text = paper_and_user_report(smk, relative, preferences)
    write_text(out, text)
    log.info("wrote %s", out)
    tables = [Path(table) for table in smk.input.tables]
    write_text(smk.output.html, report_html(text, out.parent, tables))
    log.info("wrote %s", smk.output.html)
    for table, page in zip(tables, smk.output.table_pages, strict=True):
        write_text(page, table_html(table, table.name))


def paper_and_user_report(smk, relative, preferences):
    """The report of a configuration with tasks of scored outputs (and any preference tasks)."""
    return build_report(
        pd.read_csv(smk.input.table2),
        pd.read_csv(smk.input.correlations),
        pd.read_csv(smk.input.best_metrics),
        pd.read_csv(smk.input.data_efficiency),
        load_paper_values(smk.input.paper_values),
        smk.params.config,
        figures=list(smk.input.figures)
        + list(smk.input.figure1_figures)
        + list(smk.input.task_figures)
        + [p for p in smk.input.preferences if p.endswith(".png")],
        figures_dir=relative(Path(smk.input.figures[0]).parent),
        tables_dir=relative(Path(smk.input.table2).parent),
        system_estimates=pd.read_csv(smk.input.system_estimates, dtype={"system": str, "prompt": str}),
        coverage=(
            pd.read_csv(smk.input.coverage, dtype={"system": str, "prompt": str}) if smk.input.get("coverage") else None
        ),
        table1=pd.read_csv(smk.input.table1) if smk.input.get("table1") else None,
        figure1=pd.read_csv(smk.input.figure1) if smk.input.get("figure1") else None,
        by_system=pd.read_csv(smk.input.by_system, dtype={"system": str, "prompt": str}),
        comparisons=pd.read_csv(smk.input.comparisons, dtype={"system_a": str, "system_b": str, "prompt": str}),
        comparison_coverage=(
            pd.read_csv(smk.input.comparison_coverage, dtype={"system_a": str, "system_b": str, "prompt": str})
            if smk.input.get("comparison_coverage")
            else None
        ),
        plan=pd.read_csv(smk.input.plan, dtype={"system": str, "prompt": str}),
        plan_check=(
            pd.read_csv(smk.input.plan_check, dtype={"system": str, "prompt": str})
            if smk.input.get("plan_check")
            else None
        ),
        preferences=preferences,
        leaderboard=pd.read_csv(smk.input.leaderboard, dtype={"system": str, "prompt": str}),
    )


run_script(main, snakemake)  # noqa: F821
