"""debias: combine cheap automatic metrics with human judgments without bias, and measure how
many judgments that saves (Chaganty, Mussmann and Liang, ACL 2018).

The public API, importable from here:

- on a long table (one row per judgment): :func:`estimate`, :func:`compare`, :func:`plan`,
  :func:`leaderboard` (:mod:`debias.api`); of pairwise verdicts: :func:`preferences`,
  :func:`judge_agreement`;
- on arrays: :func:`estimate_mean`, :func:`variance_components`, :func:`data_efficiency`;
- the data model: :class:`Judgments`, :class:`EvalSample`, :class:`PairedSample`,
  :class:`JudgedPairs` (:mod:`debias.data`) and the result :class:`MeanEstimate`.

The statistics core, :mod:`debias.stats`, needs numpy and scipy only. Names are loaded on
first use, so ``import debias`` stays light.
"""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version

try:  # one source of truth: the version in pyproject.toml, as installed
    __version__ = version("debias")
except PackageNotFoundError:  # the source tree on sys.path without an installed copy
    __version__ = "0+unknown"

__all__ = [
    "EvalSample",
    "JudgedPairs",
    "Judgments",
    "MeanEstimate",
    "PairedSample",
    "compare",
    "data_efficiency",
    "estimate",
    "estimate_mean",
    "judge_agreement",
    "leaderboard",
    "plan",
    "preferences",
    "variance_components",
]

_HOMES = {
    "EvalSample": "debias.data",
    "Judgments": "debias.data",
    "PairedSample": "debias.data",
    "JudgedPairs": "debias.data",
    "MeanEstimate": "debias.stats.common.intervals",
    "compare": "debias.api",
    "data_efficiency": "debias.api",
    "estimate": "debias.api",
    "estimate_mean": "debias.api",
    "leaderboard": "debias.api",
    "judge_agreement": "debias.api",
    "preferences": "debias.api",
    "plan": "debias.api",
    "variance_components": "debias.api",
}


def __getattr__(name: str):
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'debias' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public names (what tab completion offers), not this module's own imports."""
    return sorted(__all__)
