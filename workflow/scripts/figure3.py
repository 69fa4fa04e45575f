"""Rule `figure3`: inverse data-efficiency contours with each task x prompt's measured (rho, gamma)."""

from pathlib import Path

import pandas as pd

from debias.pipeline.logs import run_script
from debias.plots import draw_figure3, save_figure


def main(smk, log):
    figure = draw_figure3(pd.read_csv(smk.input.table2), pd.read_csv(smk.input.best_metrics), smk.params.config)
    save_figure(figure, Path(smk.output.pdf).with_suffix(""))
    log.info("drew %s", smk.output.pdf)


run_script(main, snakemake)  # noqa: F821
