"""The package as a user installs it (`pip install .`, not editable), used from outside the
checkout: the public API on a long table, the schema's defaults, and the `debias` command.

Run with the installed environment's Python from a directory outside the checkout; exits non-zero
with the failing check's message."""

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd

import debias
from debias.config.settings import SCHEMA_PATH, section_defaults

checkout = Path(sys.argv[1]).resolve()
where = Path(debias.__file__).resolve()
assert checkout not in where.parents, f"debias imported from the checkout: {where}"
assert SCHEMA_PATH.is_file() and checkout not in SCHEMA_PATH.parents, f"schema not shipped: {SCHEMA_PATH}"
assert 0 < section_defaults("estimates")["level"] < 1

frame = pd.DataFrame(
    {
        "seg": [f"s{i}" for i in range(8)] * 2,
        "sys": ["a"] * 8 + ["b"] * 8,
        "score": [3, 4, 2, 5, 4, 3, 4, 2, 4, 5, 3, 5, 4, 4, 5, 3],
        "bleu": [0.3, 0.5, 0.2, 0.7, 0.4, 0.3, 0.5, 0.2, 0.5, 0.6, 0.3, 0.8, 0.4, 0.5, 0.6, 0.3],
    }
)
table = debias.estimate(frame, item="seg", system="sys", judgment="score", scores=["bleu"])
assert table["estimator"].tolist() == ["mean", "cv:bleu", "mean", "cv:bleu"], table
assert abs(table["estimate"].iloc[0] - 3.375) < 1e-12

command = Path(sys.executable).with_name("debias")
for argv in (["--help"], ["estimate", "--help"], ["import", "--help"]):
    done = subprocess.run([str(command), *argv], capture_output=True, text=True, cwd=os.getcwd())
    assert done.returncode == 0 and "usage: debias" in done.stdout, (argv, done.stderr)
print(f"installed package at {where.parent}: import, estimate and the debias command work")
