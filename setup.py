"""The package's files besides src/: the workflow (workflow/, kept where the snakemake-workflows
layout puts it) and the paper's reported values (data/paper/) are mapped into the package at build
time (their files: [tool.setuptools.package-data] of pyproject.toml), so that a wheel runs the
pipeline from any folder (`debias run`, debias.distribution.files). Every other setting is in
pyproject.toml."""

from setuptools import find_namespace_packages, find_packages, setup

#: Folders of the repository that ship inside the package, as the package names they become.
SHIPPED = {"debias._workflow": "workflow", "debias._paper": "data/paper"}


def shipped_packages() -> list[str]:
    """Every shipped folder and its subfolders as packages (debias._workflow.rules, ...): folders
    of data that Python could import are named, so the build says nothing about them."""
    names = []
    for package, folder in SHIPPED.items():
        found = find_namespace_packages(folder, exclude=["*__pycache__*"])
        names += [package, *(f"{package}.{sub}" for sub in found)]
    return names


setup(
    packages=[*find_packages("src"), *shipped_packages()],
    package_dir={"": "src", **SHIPPED},
)
