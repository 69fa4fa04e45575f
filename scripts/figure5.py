"""Rule `figure5`: heatmap of metric-human correlations for one task and its configured prompt."""

from pathlib import Path

import pandas as pd

from debias.logs import run_script
from debias.plots import draw_figure5, save_figure


def main(smk, log):
    correlations = pd.read_csv(smk.input.correlations)
    figure = draw_figure5(correlations, smk.params.config, smk.wildcards.task, smk.params.prompt)
    save_figure(figure, Path(smk.output.pdf).with_suffix(""))
    log.info("drew %s", smk.output.pdf)


run_script(main, snakemake)  # noqa: F821
