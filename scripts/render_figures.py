"""Rule scripts `figures_overview` and `figures_curves`: draw the named figures.

Inputs: table2 and correlations (CSV), and for the curve figures the per-system
efficiency and curve files; params: names, figures_dir, figure_config. Everything is drawn into a
staging folder and moved into place only once every figure has been written, so a failed
run leaves no partial figure behind.
"""

import shutil
import tempfile
from pathlib import Path

import pandas as pd

from debias import figures
from debias.logs import setup_logging


def main(smk):
    log = setup_logging(smk.log[0])
    out_dir = Path(smk.params.figures_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    efficiency, curves = getattr(smk.input, "efficiency", None), getattr(smk.input, "curves", None)
    tables = {
        "table2": pd.read_csv(smk.input.table2),
        "correlations": pd.read_csv(smk.input.correlations),
        "data_efficiency": pd.concat(map(pd.read_csv, efficiency), ignore_index=True) if efficiency else pd.DataFrame(),
        "curves": figures.load_curves(list(curves)) if curves else pd.DataFrame(),
    }
    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", dir=out_dir.parent))
    try:
        written = figures.render_all(**tables, config=smk.params.figure_config, out_dir=staging, names=smk.params.names)
        for path in written:
            path.replace(out_dir / path.name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    log.info("drew %s", ", ".join(smk.params.names))


main(snakemake)  # noqa: F821
