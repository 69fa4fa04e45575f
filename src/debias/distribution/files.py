"""Where the workflow's files are: the repository's ``workflow/`` and ``data/paper/`` in a
checkout, or their copies inside the installed package (``debias/_workflow``, ``debias/_paper``,
mapped there at build time by setup.py), so that ``debias run`` works from a pip install in any
folder."""

from __future__ import annotations

from pathlib import Path

__all__ = ["paper_values_file", "snakefile", "workflow_dir"]

_PACKAGE = Path(__file__).resolve().parents[1]
#: The source tree's root when the package runs from a checkout (src/debias -> the checkout).
_CHECKOUT = _PACKAGE.parents[1]


def workflow_dir() -> Path:
    """The folder of the workflow's Snakefile: the checkout's ``workflow/``, else the copy
    shipped in the package."""
    for folder in (_CHECKOUT / "workflow", _PACKAGE / "_workflow"):
        if (folder / "Snakefile").is_file():
            return folder
    raise FileNotFoundError(
        f"the workflow is not installed (no Snakefile in {_PACKAGE / '_workflow'}): reinstall the package"
    )


def snakefile() -> Path:
    """The workflow's Snakefile (:func:`workflow_dir`)."""
    return workflow_dir() / "Snakefile"


def paper_values_file(workflow: str | Path | None = None) -> Path:
    """The numbers the paper states, ``reported_values.yaml``: beside the workflow's folder in a
    checkout (``data/paper/``), else the checkout's of this package (when the workflow is a
    module of another workflow, whose folder is ``workflow``), else the copy shipped in the
    package."""
    base = Path(workflow) if workflow is not None else workflow_dir()
    candidates = (base.parent, _CHECKOUT)
    for path in (
        *(c / "data/paper/reported_values.yaml" for c in candidates),
        _PACKAGE / "_paper/reported_values.yaml",
    ):
        if path.is_file():
            return path
    raise FileNotFoundError("the paper's reported values are not installed: reinstall the package")
