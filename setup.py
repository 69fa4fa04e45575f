"""The package's files besides src/: the workflow (workflow/, kept where the snakemake-workflows
layout puts it) and the paper's reported values (data/paper/) are mapped into the package at build
time (their files: [tool.setuptools.package-data] of pyproject.toml), so that a wheel runs the
pipeline from any folder (`debias run`, debias.distribution.files). Every other setting is in
pyproject.toml."""

from setuptools import find_packages, setup

#: Folders of the repository that ship inside the package, as the package names they become.
SHIPPED = {"debias._workflow": "workflow", "debias._paper": "data/paper"}

setup(
    packages=[*find_packages("src"), *SHIPPED],
    package_dir={"": "src", **SHIPPED},
)
