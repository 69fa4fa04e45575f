"""Rule `data_efficiency`: every system's efficiencies in one table (CSV and Markdown)."""

import pandas as pd

from debias.io.atomic import write_csv, write_text
from debias.pipeline.logs import run_script
from debias.tables.efficiency import efficiency_markdown, sort_efficiency


def main(smk, log):
    frames = [pd.read_csv(path) for path in smk.input]
    tasks, metrics = smk.params.labels["tasks"], smk.params.labels["metrics"]
    table = sort_efficiency(pd.concat(frames, ignore_index=True), tasks, metrics)
    write_csv(table, smk.output.csv)
    write_text(smk.output.md, efficiency_markdown(table, tasks, metrics))
    log.info("%d data-efficiency rows", len(table))


run_script(main, snakemake)  # noqa: F821
