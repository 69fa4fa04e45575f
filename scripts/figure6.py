"""Rule `figure6`: CI width against number of human judgments for one configured panel."""

from pathlib import Path

import pandas as pd

from debias.logs import run_script
from debias.plots import draw_figure6, save_figure
from debias.selection import panel_metric


def main(smk, log):
    spec = smk.params.panel
    metric, chosen = panel_metric(spec, pd.read_csv(smk.input.best_metrics))
    panel = {**spec, "name": smk.wildcards.panel, "metric": metric, "chosen_as_best": chosen}
    curves = pd.read_csv(smk.input.curves)
    figure = draw_figure6(curves, pd.read_csv(smk.input.data_efficiency), panel, smk.params.config)
    save_figure(figure, Path(smk.output.pdf).with_suffix(""))
    log.info("drew %s with %s", smk.output.pdf, metric)


run_script(main, snakemake)  # noqa: F821
