"""Rule `curves`: bootstrap CI-width curves and data efficiencies for one system."""

import pandas as pd

from debias.experiment import system_experiment
from debias.io import read_references, read_system, write_csv
from debias.logs import setup_logging


def main(smk):
    log = setup_logging(smk.log[0])
    references = read_references(smk.input.references)
    items = read_system(smk.input.system, smk.params.prompts, references)
    scores = pd.read_csv(smk.input.scores, dtype={"id": str})
    settings = smk.params.bootstrap
    log.info("bootstrap for %s/%s: %d replicates", smk.wildcards.task, smk.wildcards.system, settings["replicates"])
    curves, efficiency = system_experiment(
        items,
        scores,
        task=smk.wildcards.task,
        system=smk.wildcards.system,
        prompts=list(smk.params.prompts),
        metrics=list(smk.params.metrics),
        replicates=settings["replicates"],
        seed=settings["seed"],
        level=settings.get("level", 0.8),
        de_range=settings.get("de_range", (0.2, 0.9)),
    )
    write_csv(curves, smk.output.curves)
    write_csv(efficiency, smk.output.efficiency)


main(snakemake)  # noqa: F821
