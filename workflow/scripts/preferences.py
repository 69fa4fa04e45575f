"""Rule `preferences`: one preference task's win rates and Bradley-Terry strengths by every
estimator, how each judge agrees with people, a summary of the battles, and the figure of the
win rates with their intervals per estimator."""

import json
from pathlib import Path

import pandas as pd

from debias.config.tasks import load_preferences
from debias.io.atomic import write_csv, write_text
from debias.pipeline.logs import run_script
from debias.plots import draw_preferences, save_figure
from debias.tables.preferences import AGREEMENT_COLUMNS, agreement_table, preference_summary, preference_table


def main(smk, log):
    name, settings = smk.wildcards.preference, smk.params.settings
    spec = settings["spec"]
    pairs = load_preferences({"preferences": {name: spec}}, name)
    log.info(
        "%s: %d battles, %d with a human verdict, %d systems",
        name,
        pairs.n_battles,
        pairs.labelled.sum(),
        pairs.n_systems,
    )
    table = preference_table(pairs, level=settings["level"], ties=spec["ties"])
    if pairs.judges:
        agreement = agreement_table(pairs, level=settings["level"])
    else:
        agreement = pd.DataFrame(columns=AGREEMENT_COLUMNS)
    write_csv(table, smk.output.table)
    write_csv(agreement, smk.output.agreement)
    write_text(smk.output.summary, json.dumps(preference_summary(pairs, table), indent=1, ensure_ascii=False) + "\n")
    figure = draw_preferences(table, title=spec["label"])
    written = save_figure(figure, Path(smk.output.pdf).with_suffix(""))
    log.info("wrote %s", ", ".join(map(str, [smk.output.table, smk.output.agreement, smk.output.summary, *written])))


run_script(main, snakemake)  # noqa: F821
