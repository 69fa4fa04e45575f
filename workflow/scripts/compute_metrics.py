"""Rule `metrics` / `metrics_part`: score the outputs of one system (or one block of its lines)
against their references; for a system split into blocks, `metrics` joins the blocks' tables."""

import json

import pandas as pd

from debias.io.atomic import write_csv, write_text
from debias.io.canonical import iter_system, read_references
from debias.metrics import metric_versions, score_outputs
from debias.pipeline.logs import run_script
from debias.pipeline.metric_chunks import concat_part_tables


def score(smk, log, start, stop):
    items = list(iter_system(smk.input.system, smk.params.prompts, smk.params.provided, start, stop))
    references = read_references(smk.input.references, ids={item.id for item in items})
    metrics = dict(smk.params.metrics)  # metric name -> implementation
    log.info(
        "scoring %d outputs (lines %d to %d) of %s with %s",
        len(items),
        start + 1,
        start + len(items),
        smk.input.system,
        ", ".join(f"{name} ({implementation})" for name, implementation in metrics.items()),
    )
    outputs, targets = [item.output for item in items], [references[item.id] for item in items]
    language = smk.params.language
    english_only = [name for name, implementation in metrics.items() if implementation in ("nltk-meteor", "meteor15")]
    if language != "en" and english_only:
        log.warning(
            "task %s is in %s: %s match English stems and synonyms, so for it they count little beyond exact "
            "word matches (chrF and chrF++ suit any language)",
            smk.wildcards.task,
            language,
            ", ".join(english_only),
        )
    scores = score_outputs(
        outputs, targets, smk.params.nltk_data, metrics, cache_dir=smk.params.cache_dir, language=language
    )
    ids = pd.DataFrame({"id": [item.id for item in items], "system": smk.wildcards.system})
    write_csv(pd.concat([ids, scores], axis=1), smk.output.scores, float_format="%.6f")
    versions = metric_versions(smk.params.nltk_data, metrics=metrics, language=language)
    write_text(smk.output.versions, json.dumps(versions, indent=2, sort_keys=True) + "\n")


def main(smk, log):
    parts = list(smk.input.get("parts", []))
    if parts:
        count = concat_part_tables(parts, list(smk.input.part_versions), smk.output.scores, smk.output.versions)
        log.info("joined %d blocks of %s: %d outputs", len(parts), smk.wildcards.system, count)
        return
    start, stop = smk.params.lines
    score(smk, log, start, stop)


run_script(main, snakemake)  # noqa: F821
