"""Rule `correlations`: instance-level correlations of every metric with the mean human
judgment (Figure 5's numbers), and the best metric of every task x prompt x system."""

from debias.io.atomic import write_csv
from debias.pipeline.logs import run_script
from debias.tables.correlations import correlation_table
from debias.tables.joined import read_joined
from debias.tables.selection import best_metrics


def main(smk, log):
    metrics = list(smk.params.metrics)
    table = correlation_table([read_joined(path) for path in smk.input.joined], dict(smk.params.prompts), metrics)
    write_csv(table, smk.output.correlations)
    write_csv(best_metrics(table, metrics), smk.output.best_metrics)
    log.info("%d correlations", len(table))


run_script(main, snakemake)  # noqa: F821
