"""Rule `join`: one system's judgments joined with its metric scores, one row per output x prompt
(with the items' clusters when the task has them)."""

import pandas as pd

from debias.io.canonical import read_references, read_system
from debias.pipeline.logs import run_script
from debias.tables.joined import join_system, write_joined


def main(smk, log):
    references = read_references(smk.input.references) if smk.input.references else None
    scored = smk.params.scored
    provided = list(smk.params.provided) if scored else []
    items = read_system(smk.input.system, smk.params.prompts, references, provided, smk.params.cluster)
    scores = pd.read_csv(smk.input.scores, dtype={"id": str}) if smk.input.scores else None
    metrics = list(smk.params.metrics) if scored else []
    prompts = list(smk.params.prompts)
    frame = join_system(smk.wildcards.task, smk.wildcards.system, items, prompts, scores, metrics, provided)
    write_joined(frame, smk.output[0])
    log.info("%d outputs x %d prompts joined with %d metrics", len(items), len(smk.params.prompts), len(metrics))


run_script(main, snakemake)  # noqa: F821
