"""Rule `system_estimates`: every estimator of every system's mean human score, per prompt."""

from debias.io.atomic import write_csv
from debias.pipeline.logs import run_script
from debias.tables.estimates import system_estimates_table
from debias.tables.joined import read_joined


def main(smk, log):
    joined = [read_joined(path) for path in smk.input.joined]
    table = system_estimates_table(joined, dict(smk.params.prompts), list(smk.params.metrics), level=smk.params.level)
    write_csv(table, smk.output[0])
    log.info("%d estimates of %d systems", len(table), len(joined))


run_script(main, snakemake)  # noqa: F821
