"""Rule `system_comparisons`: every estimator of the difference between every two systems of a
task, per prompt, on the items both have judged."""

from debias.io.atomic import write_csv
from debias.pipeline.logs import run_script
from debias.tables.comparisons import system_comparisons_table
from debias.tables.joined import read_joined


def main(smk, log):
    joined = [read_joined(path) for path in smk.input.joined]
    spec = smk.params.compare
    table = system_comparisons_table(
        joined, dict(smk.params.prompts), list(smk.params.metrics), spec, min_items=spec["min_items"]
    )
    write_csv(table, smk.output[0])
    log.info("%d rows for %d pairs", len(table), len(table.drop_duplicates(["task", "prompt", "system_a", "system_b"])))


run_script(main, snakemake)  # noqa: F821
