"""Rule script `report`: the reproduction report (Markdown), our numbers beside the paper's.

Figure and table links are written relative to the report; the file is written atomically.
"""

import os
from pathlib import Path

import pandas as pd

from debias import report
from debias.io import write_text
from debias.logs import setup_logging


def main(smk):
    log = setup_logging(smk.log[0])
    out = Path(smk.output.report)
    relative = lambda folder: Path(os.path.relpath(folder, out.parent)).as_posix()  # noqa: E731
    text = report.build_report(
        pd.read_csv(smk.input.table2),
        pd.read_csv(smk.input.correlations),
        pd.read_csv(smk.input.data_efficiency),
        report.load_paper_values(smk.input.paper_values),
        smk.params.report_config,
        figures=None,  # every configured figure; `rule all` makes sure they are drawn
        figures_dir=relative(smk.params.figures_dir),
        tables_dir=relative(Path(smk.input.table2).parent),
    )
    write_text(out, text)
    log.info("wrote %s", out)


main(snakemake)  # noqa: F821
