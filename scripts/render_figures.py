"""Snakemake rule script: draw every figure the config asks for.

Inputs: table2, correlations, data_efficiency (CSV) and curves (list of per-system CSVs);
params: figures_dir. All figures are drawn into a temporary directory next to figures_dir
and moved into place only once every one of them has been written, so a failed run leaves
no partial figure behind.
"""

import shutil
import tempfile
from pathlib import Path

import pandas as pd

from debias import figures

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive

out_dir = Path(smk.params.figures_dir)
out_dir.mkdir(parents=True, exist_ok=True)

table2 = pd.read_csv(smk.input.table2)
correlations = pd.read_csv(smk.input.correlations)
data_efficiency = pd.read_csv(smk.input.data_efficiency)
curves = figures.load_curves(list(smk.input.curves))

staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", dir=out_dir.parent))
try:
    written = figures.render_all(table2, correlations, data_efficiency, curves, smk.config, staging)
    for path in written:
        path.replace(out_dir / path.name)
finally:
    shutil.rmtree(staging, ignore_errors=True)
