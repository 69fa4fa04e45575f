"""Rule `coverage_system`: coverage, width and data efficiency of every estimator's interval for
one system, by drawing samples of its judged items."""

from debias.io.atomic import write_csv
from debias.pipeline.logs import run_script
from debias.tables.estimates import coverage_table
from debias.tables.joined import read_joined


def main(smk, log):
    joined = read_joined(smk.input.joined)
    spec = smk.params.estimates
    table = coverage_table(
        [joined],
        {smk.wildcards.task: list(smk.params.prompts)},
        list(smk.params.metrics),
        sample_sizes=spec["sample_sizes"],
        n_repeats=spec["repeats"],
        level=spec["level"],
        seed=spec["seed"],
        ppi=spec["ppi"],
        memory_mb=spec["memory_mb"],
    )
    write_csv(table, smk.output[0])


run_script(main, snakemake)  # noqa: F821
