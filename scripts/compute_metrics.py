"""Rule `metrics`: score every output of one system against its reference."""

import json

import pandas as pd

from debias.io import read_references, read_system, write_csv, write_text
from debias.logs import setup_logging
from debias.metrics import metric_versions, score_outputs


def main(smk):
    log = setup_logging(smk.log[0])
    references = read_references(smk.input.references)
    items = read_system(smk.input.system, smk.params.prompts, references)
    log.info("scoring %d outputs of %s with %s", len(items), smk.input.system, ", ".join(smk.params.metrics))
    metrics = list(smk.params.metrics)
    scores = score_outputs([i.output for i in items], [references[i.id] for i in items], smk.params.nltk_data, metrics)
    frame = pd.concat([pd.DataFrame({"id": [i.id for i in items], "system": smk.wildcards.system}), scores], axis=1)
    write_csv(frame, smk.output.scores, float_format="%.6f")
    write_text(
        smk.output.versions,
        json.dumps(metric_versions(smk.params.nltk_data, meteor="meteor" in metrics), indent=2, sort_keys=True) + "\n",
    )
    log.info("wrote %s", smk.output.scores)


main(snakemake)  # noqa: F821
