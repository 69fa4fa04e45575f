"""Rule `plan_check`: plans made from random pilots, and whether their realised width met the
target, for every system and prompt."""

from debias.io.atomic import write_csv
from debias.pipeline.logs import run_script
from debias.tables.joined import read_joined
from debias.tables.plans import plan_check_table


def main(smk, log):
    joined = [read_joined(path) for path in smk.input.joined]
    table = plan_check_table(joined, dict(smk.params.prompts), list(smk.params.metrics), smk.params.plan)
    write_csv(table, smk.output[0])
    log.info("%d cells checked", table[["task", "prompt", "system"]].drop_duplicates().shape[0])


run_script(main, snakemake)  # noqa: F821
