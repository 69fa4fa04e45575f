"""Rule `comparisons_figure`: every pair's difference on each prompt of a task, the paired mean
beside the best control variate, with intervals."""

from pathlib import Path

import pandas as pd

from debias.pipeline.logs import run_script
from debias.plots import draw_comparisons, save_figure


def main(smk, log):
    table = pd.read_csv(smk.input.comparisons, dtype={"system_a": str, "system_b": str, "prompt": str, "task": str})
    figure = draw_comparisons(table, smk.params.config, smk.wildcards.task, smk.params.level)
    written = save_figure(figure, Path(smk.output.pdf).with_suffix(""))
    log.info("wrote %s", ", ".join(map(str, written)))


run_script(main, snakemake)  # noqa: F821
