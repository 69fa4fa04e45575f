"""Rule `curves`: bootstrap CI-width curves and data efficiencies for one system."""

from debias.io.atomic import write_csv
from debias.pipeline.logs import run_script
from debias.tables.curves import system_experiment
from debias.tables.joined import read_joined


def main(smk, log):
    settings = smk.params.bootstrap
    log.info("bootstrap for %s/%s: %d replicates", smk.wildcards.task, smk.wildcards.system, settings["replicates"])
    curves, efficiency = system_experiment(
        read_joined(smk.input.joined),
        prompts=list(smk.params.prompts),
        metrics=list(smk.params.metrics),
        replicates=settings["replicates"],
        seed=settings["seed"],
        level=settings["level"],
        de_range=settings["de_range"],
        grid_dense=settings["grid_dense"],
        grid_points=settings["grid_points"],
    )
    write_csv(curves, smk.output.curves)
    write_csv(efficiency, smk.output.efficiency)


run_script(main, snakemake)  # noqa: F821
