"""Rule `metrics`: score every output of one system against its reference."""

import json

import pandas as pd

from debias.io import read_references, read_system, write_csv, write_text
from debias.logs import run_script
from debias.metrics import metric_versions, score_outputs


def main(smk, log):
    references = read_references(smk.input.references)
    items = read_system(smk.input.system, smk.params.prompts, references, smk.params.provided)
    metrics = dict(smk.params.metrics)  # metric name -> implementation
    log.info(
        "scoring %d outputs of %s with %s",
        len(items),
        smk.input.system,
        ", ".join(f"{name} ({implementation})" for name, implementation in metrics.items()),
    )
    outputs, targets = [item.output for item in items], [references[item.id] for item in items]
    scores = score_outputs(outputs, targets, smk.params.nltk_data, metrics, cache_dir=smk.params.cache_dir)
    ids = pd.DataFrame({"id": [item.id for item in items], "system": smk.wildcards.system})
    frame = pd.concat([ids, scores], axis=1)
    write_csv(frame, smk.output.scores, float_format="%.6f")
    versions = metric_versions(smk.params.nltk_data, metrics=metrics)
    write_text(smk.output.versions, json.dumps(versions, indent=2, sort_keys=True) + "\n")


run_script(main, snakemake)  # noqa: F821
