"""Rule `comparison_coverage_task`: coverage and saving over independent samples of every paired
estimator, for every two systems of one task, by resampling their shared judged items."""

from debias.io.atomic import write_csv
from debias.pipeline.logs import run_script
from debias.tables.comparisons import comparison_coverage_table
from debias.tables.joined import read_joined


def main(smk, log):
    joined = [read_joined(path) for path in smk.input.joined]
    spec = smk.params.compare
    table = comparison_coverage_table(
        joined,
        {smk.wildcards.task: list(smk.params.prompts)},
        list(smk.params.metrics),
        spec,
        seed=spec["seed"],
        min_items=spec["min_items"],
        cache_dir=smk.params.cache_dir,
    )
    write_csv(table, smk.output[0])


run_script(main, snakemake)  # noqa: F821
