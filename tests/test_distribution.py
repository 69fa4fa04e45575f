"""The distribution as the package index shows it: its own name (`debias-eval`, installing the
package `debias` and the `debias` command), a version the changelog's newest section names, the
documentation's URLs, classifiers and keywords, the package alone in the wheel (the repository's
tools run from tools/), and the installs the documents give."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib

import yaml
from conftest import REPO

PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


def test_the_distribution_has_its_own_name_and_installs_debias():
    assert PROJECT["name"] == "debias-eval"
    assert PROJECT["scripts"]["debias"] == "debias.cli:main"
    assert not [target for target in PROJECT["scripts"].values() if not target.startswith("debias.")]
    for extra in PROJECT["optional-dependencies"].values():
        assert not [r for r in extra if r.startswith("debias[")], extra
    for path in ("README.md", "docs/usage.md"):
        text = (REPO / path).read_text()
        installs = re.findall(r"pip install[^\n`]*", text)
        assert installs, path
        for line in installs:
            assert not re.search(r"pip install (--no-build-isolation )?'?debias(\[|\s|'|$)", line), (path, line)
    citation = yaml.safe_load((REPO / "CITATION.cff").read_text())
    assert citation["title"].startswith("debias-eval") and citation["version"] == PROJECT["version"]


def test_the_changelog_is_by_version_and_names_this_one_first():
    headings = re.findall(r"^## (\S+)", (REPO / "CHANGELOG.md").read_text(), flags=re.M)
    assert headings[0] == PROJECT["version"], headings[:3]
    assert all(re.fullmatch(r"\d+\.\d+\.\d+", h) for h in headings), headings
    assert headings == sorted(headings, key=lambda v: tuple(map(int, v.split("."))), reverse=True)


def test_the_index_shows_where_the_documentation_is():
    urls = PROJECT["urls"]
    assert urls["Documentation"].startswith("https://")
    assert {"Changelog", "API reference", "Command reference"} <= set(urls)
    classifiers = PROJECT["classifiers"]
    assert "Typing :: Typed" in classifiers and "License :: OSI Approved :: MIT License" not in classifiers
    assert any(c.startswith("Programming Language :: Python :: 3.11") for c in classifiers)
    assert "control variates" in PROJECT["keywords"]
    assert (REPO / "src/debias/py.typed").is_file()


def test_the_repository_tools_run_from_its_root_and_are_not_in_the_package():
    assert not (REPO / "src/debias_tools").exists()
    for module in ("tools.provision.wordnet", "tools.provision.system", "tools.cluster.check"):
        done = subprocess.run([sys.executable, "-m", module, "--help"], cwd=REPO, capture_output=True, text=True)
        assert done.returncode == 0 and f"python -m {module}" in done.stdout, (module, done.stderr[-1000:])
