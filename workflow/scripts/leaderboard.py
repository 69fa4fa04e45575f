"""Rule `leaderboard`: every system's estimate, interval and simultaneous rank-set per task,
prompt and estimator."""

from debias.io.atomic import write_csv
from debias.pipeline.logs import run_script
from debias.tables.joined import read_joined
from debias.tables.leaderboard import ratings_leaderboard_table


def main(smk, log):
    joined = [read_joined(path) for path in smk.input.joined]
    table = ratings_leaderboard_table(
        joined,
        dict(smk.params.prompts),
        list(smk.params.metrics),
        level=smk.params.level,
        seed=smk.params.seed,
        lower_is_better={tuple(pair) for pair in smk.params.lower_is_better},
    )
    write_csv(table, smk.output[0])
    ranked = table[table["note"] == ""]
    log.info(
        "%d rows; mean rank-set size %.2f over %d ranked rows",
        len(table),
        float((ranked["rank_high"] - ranked["rank_low"] + 1).mean()) if len(ranked) else float("nan"),
        len(ranked),
    )


run_script(main, snakemake)  # noqa: F821
