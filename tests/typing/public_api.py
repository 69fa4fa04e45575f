"""The public API as a type checker sees it (`make typecheck`: mypy on this file). Each
``assert_type`` fails the check when mypy sees another type, ``Any`` included: the names served
lazily by ``debias/__init__.py`` have their types (its ``TYPE_CHECKING`` imports) and the package
says it is typed (``py.typed``). Not run; only checked."""

from __future__ import annotations

from typing import assert_type

import numpy as np
import pandas as pd

import debias
from debias import EvaluationTable, JudgedPairs, MeanEstimate, NextBattles


def ratings_analyses(frame: pd.DataFrame) -> None:
    ratings = debias.read_ratings(frame, item="seg", system="sys", judgment="score", scores=["bleu"])
    assert_type(ratings, EvaluationTable)
    assert_type(debias.estimate(ratings), pd.DataFrame)
    assert_type(debias.estimate(ratings, level=0.9), pd.DataFrame)
    assert_type(debias.compare(ratings), pd.DataFrame)
    assert_type(debias.plan(ratings), pd.DataFrame)
    assert_type(debias.leaderboard(ratings, level=0.9), pd.DataFrame)
    assert_type(debias.next_battles(ratings, "top:1", 30), NextBattles)
    assert_type(debias.next_battles(ratings, "top:1", 30).battles, pd.DataFrame)


def pairs_analyses(battles: pd.DataFrame) -> None:
    pairs = debias.read_pairs(battles, item="q", system_a="A", system_b="B", verdict="winner", judges=["gpt4"])
    assert_type(pairs, JudgedPairs)
    assert_type(debias.preferences(pairs), pd.DataFrame)
    assert_type(debias.judge_agreement(pairs), pd.DataFrame)
    assert_type(debias.leaderboard(pairs), pd.DataFrame)


def array_analyses(judgments: np.ndarray, scores: np.ndarray) -> None:
    assert_type(debias.estimate_mean(judgments, scores), MeanEstimate)
    assert_type(debias.variance_components(judgments), dict[str, float | str])
    assert_type(debias.__version__, str)
