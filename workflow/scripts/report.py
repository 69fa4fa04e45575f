"""Rule `report`: the report (Markdown) about the user's own tasks and, for the paper's tasks, our
numbers beside the paper's, with the figures it links as inputs so that none of its links dangles."""

import os
from pathlib import Path

import pandas as pd

from debias.io.atomic import write_text
from debias.pipeline.logs import run_script
from debias.report import build_report, load_paper_values


def main(smk, log):
    out = Path(smk.output.report)

    def relative(folder):
        return Path(os.path.relpath(folder, out.parent)).as_posix()

    text = build_report(
        pd.read_csv(smk.input.table2),
        pd.read_csv(smk.input.correlations),
        pd.read_csv(smk.input.best_metrics),
        pd.read_csv(smk.input.data_efficiency),
        load_paper_values(smk.input.paper_values),
        smk.params.config,
        figures=list(smk.input.figures) + list(smk.input.figure1_figures) + list(smk.input.task_figures),
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
    )
    write_text(out, text)
    log.info("wrote %s", out)


run_script(main, snakemake)  # noqa: F821
