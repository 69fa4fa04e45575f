"""Rule `plan`: the least-cost number of items and judgments per item for every system, prompt
and target width."""

from debias.io.atomic import write_csv
from debias.pipeline.logs import run_script
from debias.tables.joined import read_joined
from debias.tables.plans import plan_table


def main(smk, log):
    joined = [read_joined(path) for path in smk.input.joined]
    table = plan_table(joined, dict(smk.params.prompts), list(smk.params.metrics), smk.params.plan)
    write_csv(table, smk.output[0])
    log.info("%d plans", len(table))


run_script(main, snakemake)  # noqa: F821
