"""Rule `figure5`: heatmap of metric-human correlations for one task and its configured prompt."""

from pathlib import Path

from debias.pipeline.logs import run_script
from debias.plots import draw_figure5, save_figure
from debias.tables.correlations import correlation_table
from debias.tables.joined import read_joined


def main(smk, log):
    task = smk.wildcards.task
    prompts = {task: list(smk.params.config["tasks"][task]["prompts"])}
    table = correlation_table([read_joined(path) for path in smk.input.joined], prompts, list(smk.params.metrics))
    # The values correlations.csv holds (six significant digits), so the figure matches the table.
    for column in ("rho", "rho_corrected"):
        table[column] = table[column].map(lambda value: float(f"{value:.6g}"))
    figure = draw_figure5(table, smk.params.config, task, smk.params.prompt)
    save_figure(figure, Path(smk.output.pdf).with_suffix(""))
    log.info("drew %s", smk.output.pdf)


run_script(main, snakemake)  # noqa: F821
