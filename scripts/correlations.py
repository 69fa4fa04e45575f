"""Rule `correlations`: instance-level correlation of each metric with the mean human judgment."""

import pandas as pd

from debias.inputs import load_task
from debias.io import write_csv
from debias.joined import correlation_table, item_table
from debias.logs import setup_logging


def main(smk):
    log = setup_logging(smk.log[0])
    config = {"data_dir": smk.params.data_dir, "tasks": smk.params.tasks}
    joined = {}
    score_files = iter(smk.input.scores)  # per_system() order: tasks, then their systems
    for task, spec in config["tasks"].items():
        _, systems = load_task(config, task, list(spec["systems"]))
        for system, items in systems.items():
            scores = pd.read_csv(next(score_files), dtype={"id": str})
            for prompt in spec["prompts"]:
                joined[(task, prompt, system)] = item_table(items, scores, prompt, smk.params.metrics)
    table = correlation_table(joined, smk.params.metrics)
    write_csv(table, smk.output[0])
    log.info("%d correlations", len(table))


main(snakemake)  # noqa: F821
