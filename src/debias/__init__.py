"""debias: combine cheap automatic metrics with human judgments without bias, and measure how
many judgments that saves (Chaganty, Mussmann and Liang, ACL 2018).

The public API, importable from here (:mod:`debias.api`):

- one read step per shape of data: :func:`read_ratings` (a long table of ratings, one row per
  judgment) and :func:`read_pairs` (pairwise verdicts of people and LLM judges);
- analyses of what was read: :func:`estimate`, :func:`compare`, :func:`plan` (ratings),
  :func:`preferences`, :func:`head_to_head`, :func:`judge_agreement` (pairwise verdicts), :func:`leaderboard`,
  :func:`status` and :func:`next_battles` (either);
- on arrays: :func:`estimate_mean`, :func:`variance_components`, :func:`data_efficiency`;
- the data model: :class:`Judgments`, :class:`EvalSample`, :class:`PairedSample`,
  :class:`JudgedPairs` (:mod:`debias.data`), the read ratings :class:`EvaluationTable` and the
  result :class:`MeanEstimate`.

The statistics core, :mod:`debias.stats`, needs numpy and scipy only. Names are loaded on
first use, so ``import debias`` stays light.
"""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING

#: The name the package is published under on the package index (``pip install debias-eval``);
#: it installs this package, ``debias``, and the ``debias`` command.
DISTRIBUTION = "debias-eval"

try:  # one source of truth: the version in pyproject.toml, as installed
    __version__ = version(DISTRIBUTION)
except PackageNotFoundError:  # the source tree on sys.path without an installed copy
    __version__ = "0+unknown"

if TYPE_CHECKING:  # what a type checker sees; at run time each name is loaded on first use
    from debias import api as api
    from debias.api import (
        NextBattles,
        compare,
        data_efficiency,
        estimate,
        estimate_mean,
        head_to_head,
        judge_agreement,
        leaderboard,
        next_battles,
        plan,
        preferences,
        read_pairs,
        read_ratings,
        status,
        variance_components,
    )
    from debias.data import EvalSample, JudgedPairs, Judgments, PairedSample
    from debias.io.reader import EvaluationTable
    from debias.stats.common.intervals import MeanEstimate

__all__ = [
    "EvalSample",
    "EvaluationTable",
    "JudgedPairs",
    "Judgments",
    "MeanEstimate",
    "NextBattles",
    "PairedSample",
    "compare",
    "data_efficiency",
    "estimate",
    "estimate_mean",
    "head_to_head",
    "judge_agreement",
    "leaderboard",
    "next_battles",
    "plan",
    "preferences",
    "read_pairs",
    "read_ratings",
    "status",
    "variance_components",
]

_HOMES = {
    "EvalSample": "debias.data",
    "EvaluationTable": "debias.io.reader",
    "Judgments": "debias.data",
    "PairedSample": "debias.data",
    "JudgedPairs": "debias.data",
    "MeanEstimate": "debias.stats.common.intervals",
    "NextBattles": "debias.api",
    "compare": "debias.api",
    "data_efficiency": "debias.api",
    "estimate": "debias.api",
    "estimate_mean": "debias.api",
    "leaderboard": "debias.api",
    "head_to_head": "debias.api",
    "judge_agreement": "debias.api",
    "preferences": "debias.api",
    "plan": "debias.api",
    "next_battles": "debias.api",
    "read_pairs": "debias.api",
    "read_ratings": "debias.api",
    "status": "debias.api",
    "variance_components": "debias.api",
}


#: Subpackages and modules reachable as attributes without their own import (``debias.api``).
_MODULES = ("api",)


def __getattr__(name: str) -> object:
    if name in _MODULES:
        return importlib.import_module(f"debias.{name}")
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'debias' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public names (what tab completion offers), not this module's own imports."""
    return sorted(__all__)
