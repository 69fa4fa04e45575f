"""Concatenate per-system tables with the same columns into one table, in input order."""

import pandas as pd

from debias.io.atomic import write_csv
from debias.pipeline.logs import run_script


def main(smk, log):
    frames = [pd.read_csv(path, dtype={"system": str, "prompt": str, "task": str}) for path in smk.input]
    table = pd.concat(frames, ignore_index=True)
    write_csv(table, smk.output[0])
    log.info("%d rows from %d tables", len(table), len(frames))


run_script(main, snakemake)  # noqa: F821
