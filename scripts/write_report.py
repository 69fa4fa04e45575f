"""Snakemake rule script: write the reproduction report (markdown).

Inputs: table2, correlations, data_efficiency (CSV), paper_values (YAML) and figures (the
rendered figure files); output: report. Figure and table links are written relative to the
report. The report is written under a temporary name and renamed into place.
"""

import os
import tempfile
from pathlib import Path

import pandas as pd

from debias import report

smk = snakemake  # noqa: F821 - injected by Snakemake's script directive

out = Path(smk.output.report)
out.parent.mkdir(parents=True, exist_ok=True)
figure_files = [Path(f) for f in smk.input.figures]
figures_dir = (
    Path(os.path.relpath(figure_files[0].parent, out.parent)).as_posix() if figure_files else "figures"
)
tables_dir = Path(os.path.relpath(Path(smk.input.table2).parent, out.parent)).as_posix()

text = report.build_report(
    pd.read_csv(smk.input.table2),
    pd.read_csv(smk.input.correlations),
    pd.read_csv(smk.input.data_efficiency),
    report.load_paper_values(smk.input.paper_values),
    smk.config,
    figures=figure_files,
    figures_dir=figures_dir,
    tables_dir=tables_dir,
)

handle, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
try:
    with os.fdopen(handle, "w", encoding="utf-8") as stream:
        stream.write(text)
    os.replace(tmp, out)
finally:
    if os.path.exists(tmp):
        os.unlink(tmp)
