"""The package as a user installs it (a wheel of `pip wheel .` with the extra `workflow`, not
editable), used from outside the checkout: the public API on a long table, the schema's defaults,
the `debias` command (its version, `python -m debias`, plain-text help), the workflow shipped in
the package (`debias run`, a dry run of a configuration), the wheel's contents (the LICENSE,
py.typed, the package alone: no repository tools) and metadata (its name, the project's URLs),
the source distribution's (the tests with their conftest.py, the documentation), and a build
whose output holds no warning.

Run with the installed environment's Python from a directory outside the checkout; exits non-zero
with the failing check's message."""

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pandas as pd
import yaml

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
ratings = debias.read_ratings(frame, item="seg", system="sys", judgment="score", scores=["bleu"])
table = debias.estimate(ratings)
assert table["estimator"].tolist() == ["mean", "cv:bleu", "mean", "cv:bleu"], table
assert abs(table["estimate"].iloc[0] - 3.375) < 1e-12
assert debias.status(ratings, "better:b,a", level=0.8).rows[0].first == "b"  # the statistics' folders shipped

command = Path(sys.executable).with_name("debias")
for argv in (["--help"], ["estimate", "--help"], ["import", "--help"], ["run", "--help"]):
    done = subprocess.run([str(command), *argv], capture_output=True, text=True, cwd=os.getcwd())
    assert done.returncode == 0 and "usage: debias" in done.stdout, (argv, done.stderr)
    assert "``" not in done.stdout and ":func:`" not in done.stdout, (argv, "reST markup in the help")
done = subprocess.run([str(command), "--version"], capture_output=True, text=True, check=True)
assert done.stdout.strip() == f"debias {debias.__version__}" != "debias 0+unknown", done.stdout
done = subprocess.run([sys.executable, "-m", "debias", "--help"], capture_output=True, text=True, check=True)
assert "usage: debias" in done.stdout

# The wheel holds the LICENSE, the workflow and the paper's values; the installed package finds them.
wheel = Path(sys.argv[2])
with zipfile.ZipFile(wheel) as archive:
    names = archive.namelist()
assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), "no LICENSE in the wheel"
for shipped in (
    "debias/_workflow/Snakefile",
    "debias/_workflow/rules/common.smk",
    "debias/_paper/reported_values.yaml",
):
    assert shipped in names, f"{shipped} not in the wheel"
assert "debias/py.typed" in names, "no py.typed in the wheel"
tops = {n.split("/")[0] for n in names if not n.startswith("debias_eval-")}
assert tops == {"debias"}, f"top-level names in the wheel besides debias: {sorted(tops - {'debias'})}"
(metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
with zipfile.ZipFile(wheel) as archive:
    fields = archive.read(metadata).decode()
assert "\nName: debias-eval\n" in fields, "the distribution is not named debias-eval"
assert "\nProject-URL: Documentation, https://" in fields, "no documentation URL in the metadata"
entry_points = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
with zipfile.ZipFile(wheel) as archive:
    scripts = archive.read(entry_points[0]).decode()
assert "tools." not in scripts, scripts

import tarfile  # noqa: E402

with tarfile.open(sys.argv[3]) as archive:
    members = {m.name.split("/", 1)[1] for m in archive.getmembers() if "/" in m.name}
for shipped in ("tests/conftest.py", "tests/browser.py", "tests/test_api.py", "docs/conf.py", "config/README.md"):
    assert shipped in members, f"{shipped} not in the source distribution"
log = Path(sys.argv[4]).read_text()
warnings = [line for line in log.splitlines() if "warning" in line.lower()]
assert not warnings, "the build warns:\n" + "\n".join(warnings[:20])

from debias.distribution.files import paper_values_file, snakefile  # noqa: E402

assert checkout not in snakefile().parents and snakefile().is_file(), snakefile()
assert paper_values_file().is_file()

# `debias run` from here, on the checkout's small test configuration (data read there): a dry run.
config = yaml.safe_load((checkout / ".test/config/config.yaml").read_text())
config["data_dir"] = str(checkout / ".test/data")
config["results_dir"] = "results"
Path("config.yaml").write_text(yaml.safe_dump(config))
done = subprocess.run([str(command), "run", "--configfile", "config.yaml", "-n", "--cores", "1"],
                      capture_output=True, text=True)  # fmt: skip
assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
assert not Path("results").exists()
print(f"installed package at {where.parent}: import, estimate, the debias command and debias run work")
