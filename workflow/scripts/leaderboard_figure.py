"""Rule `leaderboard_figure`: a task's systems in order with their intervals and simultaneous
rank-sets, per prompt."""

from pathlib import Path

import pandas as pd

from debias.pipeline.logs import run_script
from debias.plots import draw_leaderboard, save_figure


def main(smk, log):
    table = pd.read_csv(smk.input.leaderboard, dtype={"system": str, "prompt": str, "task": str})
    figure = draw_leaderboard(table, smk.params.config, smk.wildcards.task)
    written = save_figure(figure, Path(smk.output.pdf).with_suffix(""))
    log.info("wrote %s", ", ".join(map(str, written)))


run_script(main, snakemake)  # noqa: F821
