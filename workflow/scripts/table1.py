"""Rule `table1`: per panel, judged system responses by human judgment (good/bad) and metric
(high/low)."""

import pandas as pd

from debias.io.atomic import write_csv, write_text
from debias.pipeline.logs import run_script
from debias.tables.render import to_markdown
from debias.tables.table1 import table1_panel, table1_title

HEADERS = ["Human", "Metric", "Count", "%", "Example question", "Reference", "Output", "Systems", "Human", "Metric"]
SHOWN = [
    "judgment",
    "metric_side",
    "count",
    "percent",
    "example_input",
    "example_reference",
    "example_output",
    "example_systems",
    "example_judgment",
    "example_metric",
]


def main(smk, log):
    config, tables, sections = smk.params.config, [], []
    for panel, spec in smk.params.table1.items():
        table = table1_panel(panel, spec, config)
        tables.append(table)
        title = table1_title(spec, config, int(table["total"].iloc[0]))
        sections.append(f"## Table 1({panel}): {title}\n\n" + to_markdown(table[SHOWN], digits=2, headers=HEADERS))
        log.info(
            "Table 1(%s):\n%s", panel, table[["judgment", "metric_side", "count", "percent"]].to_string(index=False)
        )
    write_csv(pd.concat(tables, ignore_index=True), smk.output.csv)
    write_text(smk.output.md, "\n\n".join(sections))


run_script(main, snakemake)  # noqa: F821
