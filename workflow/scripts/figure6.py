"""Rule `figure6`: CI width against number of human judgments for one configured panel."""

from pathlib import Path

import pandas as pd

from debias.pipeline.logs import run_script
from debias.plots import draw_figure6, save_figure
from debias.tables.correlations import correlation_table
from debias.tables.joined import read_joined
from debias.tables.selection import best_metrics, panel_metric


def main(smk, log):
    spec = smk.params.panel
    metrics = list(smk.params.metrics)
    prompts = {spec["task"]: list(smk.params.config["tasks"][spec["task"]]["prompts"])}
    # The panel system's correlations and best metric, as the correlations rule computes them.
    best = best_metrics(correlation_table([read_joined(smk.input.joined)], prompts, metrics), metrics)
    metric, chosen = panel_metric(spec, best)
    panel = {**spec, "name": smk.wildcards.panel, "metric": metric, "chosen_as_best": chosen}
    curves = pd.read_csv(smk.input.curves)
    figure = draw_figure6(curves, pd.read_csv(smk.input.efficiency), panel, smk.params.config)
    save_figure(figure, Path(smk.output.pdf).with_suffix(""))
    log.info("drew %s with %s", smk.output.pdf, metric)


run_script(main, snakemake)  # noqa: F821
