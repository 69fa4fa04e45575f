"""Rule `head_to_head`: one preference task's head-to-head matrix (every pair's win rate by every
estimator, intervals simultaneous over the pairs shown) and its heatmap, with each judge's
agreement with people on non-tie verdicts."""

from pathlib import Path

import pandas as pd

from debias.config.tasks import load_preferences, win_rate_ties
from debias.io.atomic import write_csv
from debias.pipeline.logs import run_script
from debias.plots import save_figure
from debias.plots.head_to_head import draw_head_to_head
from debias.tables.preferences import agreement_table, head_to_head_table

#: Per judge, what the non-tie agreement table holds (the same on every row of a judge in
#: judge_agreement.csv, with the non-tie columns beside them).
NON_TIE = ["judge", "n_verdicts", "accuracy", "kappa", "n_non_tie", "non_tie_accuracy"]


def main(smk, log):
    name, settings = smk.wildcards.preference, smk.params.settings
    spec = settings["spec"]
    pairs = load_preferences({"preferences": {name: spec}}, name)
    table = head_to_head_table(pairs, level=settings["level"], ties=win_rate_ties(spec["ties"]))
    omitted = table.attrs.get("omitted") or []
    if omitted:
        log.info("%s: the %d strongest of %d systems shown", name, table["system"].nunique(), pairs.n_systems)
    write_csv(table, smk.output.table)
    if pairs.judges:
        agreement = agreement_table(pairs, level=settings["level"], non_tie=True)
        agreement = agreement[NON_TIE].drop_duplicates("judge").reset_index(drop=True)
    else:
        agreement = pd.DataFrame(columns=NON_TIE)
    write_csv(agreement, smk.output.non_tie)
    figure = draw_head_to_head(table, title=spec["label"], ties=win_rate_ties(spec["ties"]))
    written = save_figure(figure, Path(smk.output.pdf).with_suffix(""))
    log.info("wrote %s", ", ".join(map(str, [smk.output.table, smk.output.non_tie, *written])))


run_script(main, snakemake)  # noqa: F821
