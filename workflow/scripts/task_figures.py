"""Rules `task_figures` and `system_scores_figure`: a task's figures, drawn in one job. Each
system's estimated mean human score per prompt (judgments alone and with the best metric, with
intervals); for a task with at least two systems, also every pair's difference on each prompt
(the paired mean beside the best control variate, with intervals) and the leaderboard (the
systems in order with their intervals and simultaneous rank-sets, per prompt)."""

from pathlib import Path

import pandas as pd

from debias.pipeline.logs import run_script
from debias.plots import draw_comparisons, draw_leaderboard, draw_system_scores, save_figure


def read_table(path, *text_columns):
    return pd.read_csv(path, dtype={column: str for column in (*text_columns, "prompt", "task")})


def main(smk, log):
    task, config = smk.wildcards.task, smk.params.config
    estimates = read_table(smk.input.estimates, "system")
    figures = [(smk.output.scores_pdf, lambda: draw_system_scores(estimates, config, task))]
    if "comparisons" in smk.input.keys():
        comparisons = read_table(smk.input.comparisons, "system_a", "system_b")
        leaderboard = read_table(smk.input.leaderboard, "system")
        figures += [
            (smk.output.comparisons_pdf, lambda: draw_comparisons(comparisons, config, task, smk.params.level)),
            (smk.output.leaderboard_pdf, lambda: draw_leaderboard(leaderboard, config, task)),
        ]
    for pdf, draw in figures:  # one figure at a time: drawn, written, let go
        written = save_figure(draw(), Path(pdf).with_suffix(""))
        log.info("wrote %s", ", ".join(map(str, written)))


run_script(main, snakemake)  # noqa: F821
