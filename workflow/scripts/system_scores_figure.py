"""Rule `system_scores_figure`: each system's estimated mean human score per prompt, judgments
alone and with the best metric, with intervals."""

from pathlib import Path

import pandas as pd

from debias.pipeline.logs import run_script
from debias.plots import draw_system_scores, save_figure


def main(smk, log):
    estimates = pd.read_csv(smk.input.estimates, dtype={"system": str, "prompt": str, "task": str})
    figure = draw_system_scores(estimates, smk.params.config, smk.wildcards.task)
    written = save_figure(figure, Path(smk.output.pdf).with_suffix(""))
    log.info("wrote %s", ", ".join(map(str, written)))


run_script(main, snakemake)  # noqa: F821
