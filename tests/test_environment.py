"""The dependency lists agree: pyproject.toml (pip), environment.yml (conda users), the rules'
conda environment, and the lock file that `make setup` installs from."""

import re
import tomllib

import yaml


def split(requirement: str) -> tuple[str, str]:
    name, spec = re.match(r"^([A-Za-z0-9_.\-]+)\s*(.*)$", requirement.strip()).groups()
    return name.lower().replace("_", "-"), spec.replace(" ", "")


def conda_specs(path) -> dict[str, str]:
    """Conda packages and the PyPI-only ones of the ``pip:`` section (not the project itself)."""
    env = yaml.safe_load(path.read_text())
    specs = dict(split(d) for d in env["dependencies"] if isinstance(d, str) and not d.startswith(("python", "pip")))
    for entry in env["dependencies"]:
        if isinstance(entry, dict):
            specs.update(split(r) for r in entry.get("pip", []) if not r.startswith("-"))
    return specs


def test_conda_and_pip_dependencies_agree(repo):
    project = tomllib.loads((repo / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    pip = dict(split(r) for r in project["dependencies"] + extras["paper"] + extras["test"] + extras["cluster"])
    assert conda_specs(repo / "environment.yml") == pip
    env = yaml.safe_load((repo / "environment.yml").read_text())
    python_pin = next(d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python"))
    assert split(python_pin)[1] == project["requires-python"].replace(" ", "")
    assert {"conda-forge", "bioconda"} <= set(env["channels"])


def test_rule_environment_lists_the_runtime_dependencies(repo):
    project = tomllib.loads((repo / "pyproject.toml").read_text())["project"]
    runtime = dict(split(r) for r in project["dependencies"] + project["optional-dependencies"]["paper"])
    runtime.pop("snakemake")  # runs the rules; the rules' scripts do not import it
    assert conda_specs(repo / "workflow/envs/debias.yaml") == runtime


def test_lock_pins_every_dependency_exactly_and_within_the_declared_ranges(repo):
    lock = {}
    for line in (repo / "requirements.lock").read_text().splitlines():
        if line and not line.startswith("#"):
            name, version = line.split("==")
            lock[name.lower().replace("_", "-")] = version
    project = tomllib.loads((repo / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    for requirement in project["dependencies"] + extras["paper"] + extras["test"] + extras["cluster"]:
        name, spec = split(requirement)
        assert name in lock, f"{name} is not in requirements.lock"
        if spec.startswith("=="):
            assert lock[name] == spec[2:], f"{name}: lock {lock[name]} vs pyproject {spec}"
