"""The installed package in an environment that had the oldest numpy and pandas before it: the
versions pip kept and chose are printed, numpy and pandas must be the ones installed first, and
the `debias` command answers `--version` and `preferences` on a small table of battles.

Run with that environment's Python: oldest_commands.py NUMPY PANDAS (the versions installed first);
exits non-zero with the failing check's message."""

import subprocess
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pandas as pd

numpy_first, pandas_first = sys.argv[1:3]
chosen = {name: version(name) for name in ("numpy", "pandas", "pyarrow", "scipy", "debias-eval")}
print("installed:", ", ".join(f"{name} {v}" for name, v in chosen.items()))
assert chosen["numpy"] == numpy_first and chosen["pandas"] == pandas_first, "pip replaced numpy or pandas"

command = Path(sys.executable).with_name("debias")
shown = subprocess.run([str(command), "--version"], capture_output=True, text=True)
assert shown.returncode == 0, shown.stderr[-2000:]
assert shown.stdout.strip() == f"debias {chosen['debias-eval']}", shown.stdout
print(shown.stdout.strip())

rng, strength, rows = np.random.default_rng(1), {"w": 0.6, "x": 0.3, "y": 0.0, "z": -0.5}, []
for q in range(600):
    a, b = rng.choice(list(strength), 2, replace=False)
    won = "a" if rng.random() < 1 / (1 + np.exp(strength[b] - strength[a])) else "b"
    judge = won if rng.random() < 0.8 else {"a": "b", "b": "a"}[won]
    rows.append((f"q{q}", a, b, won if q < 200 else None, judge))
with tempfile.TemporaryDirectory() as folder:
    table = Path(folder) / "battles.csv"
    pd.DataFrame(rows, columns=["q", "A", "B", "winner", "gpt4"]).to_csv(table, index=False)
    argv = ["preferences", str(table), "--item", "q", "--system-a", "A", "--system-b", "B"]
    done = subprocess.run(
        [str(command), *argv, "--verdict", "winner", "--judge", "gpt4"], capture_output=True, text=True
    )
assert done.returncode == 0, done.stderr[-2000:]
lines = [line for line in done.stdout.splitlines() if line and not line.startswith("#")]
assert len(lines) > 1 and "ppi++:gpt4" in done.stdout, done.stdout[-2000:]
print(f"debias preferences: {len(lines) - 1} rows")
