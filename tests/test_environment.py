"""environment.yml (conda) and pyproject.toml (pip) list the same dependencies."""

import re

import tomllib
import yaml


def split(requirement: str) -> tuple[str, str]:
    name, spec = re.match(r"^([A-Za-z0-9_.\-]+)\s*(.*)$", requirement.strip()).groups()
    return name.lower().replace("_", "-"), spec.replace(" ", "")


def test_conda_and_pip_dependencies_agree(repo):
    project = tomllib.loads((repo / "pyproject.toml").read_text())["project"]
    pip = dict(split(r) for r in project["dependencies"] + project["optional-dependencies"]["test"])
    env = yaml.safe_load((repo / "environment.yml").read_text())
    conda = dict(split(d) for d in env["dependencies"] if isinstance(d, str) and not d.startswith(("python", "pip")))
    assert conda == pip
    python_pin = next(d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python"))
    assert split(python_pin)[1] == project["requires-python"].replace(" ", "")
    assert {"conda-forge", "bioconda"} <= set(env["channels"])
