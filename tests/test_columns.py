"""One column vocabulary for the public tables (:mod:`debias.tables.columns`): every table names
an interval ``ci_low``/``ci_high``, except the leaderboards' ``lower``/``upper``; no table uses a
retired name; the preference results reach their readers as a typed result, not ``attrs``."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil

import numpy as np
import pandas as pd
import pytest

import debias
import debias.tables
from debias.tables.columns import INTERVAL, LEADERBOARD_INTERVAL, N_JUDGED, NOTE, RETIRED


def _column_lists():
    """Every ``*_COLUMNS`` list of the modules of :mod:`debias.tables`, by qualified name."""
    found = {}
    for info in pkgutil.iter_modules(debias.tables.__path__):
        module = importlib.import_module(f"debias.tables.{info.name}")
        for name, value in vars(module).items():
            if name.endswith("_COLUMNS") and isinstance(value, list | tuple):
                found[f"{module.__name__}.{name}"] = list(value)
    return found


COLUMN_LISTS = _column_lists()


def test_the_tables_layer_has_its_column_lists():
    names = {name.rsplit(".", 1)[1] for name in COLUMN_LISTS}
    assert {"PREFERENCE_COLUMNS", "AGREEMENT_COLUMNS", "LEADERBOARD_COLUMNS", "ESTIMATE_COLUMNS"} <= names
    assert all(isinstance(c, str) for columns in COLUMN_LISTS.values() for c in columns)


@pytest.mark.parametrize("name", sorted(COLUMN_LISTS))
def test_every_table_uses_the_vocabulary(name):
    columns = COLUMN_LISTS[name]
    assert not set(columns) & set(RETIRED), f"{name} uses a retired name"
    if name.endswith(".LEADERBOARD_COLUMNS"):
        assert set(LEADERBOARD_INTERVAL) <= set(columns) and not set(INTERVAL) & set(columns)
    else:
        assert not set(LEADERBOARD_INTERVAL) & set(columns), f"{name}: an interval is ci_low/ci_high"
    for column in columns:
        assert not column.endswith(("_lower", "_upper")), f"{name}: {column} (an interval is *_ci_low/*_ci_high)"
        if column.endswith("ci_low"):
            assert column.replace("ci_low", "ci_high") in columns, f"{name}: {column} without its upper end"


def test_preference_tables_name_their_columns_as_the_paper_tables_do():
    from debias.tables.estimates import ESTIMATE_COLUMNS
    from debias.tables.preferences import AGREEMENT_COLUMNS, PREFERENCE_COLUMNS

    assert {*INTERVAL, N_JUDGED, NOTE, "effective_n"} <= set(PREFERENCE_COLUMNS)
    assert {*INTERVAL, N_JUDGED, NOTE, "effective_n"} <= set(ESTIMATE_COLUMNS)
    assert {"bias_ci_low", "bias_ci_high"} <= set(AGREEMENT_COLUMNS)


def _battles():
    rng = np.random.default_rng(3)
    systems = np.array(["x", "y", "z"])
    rows = []
    for k in range(120):
        a, b = rng.choice(3, 2, replace=False)
        verdict = rng.choice(["a", "b", "tie"]) if k < 60 else ""
        rows.append({"q": str(k), "A": systems[a], "B": systems[b], "v": verdict, "j": rng.choice(["a", "b", "tie"])})
    return pd.DataFrame(rows)


def test_preference_analysis_is_a_typed_result_and_the_tables_carry_no_attrs():
    from debias.io.pairs import read_pair_table
    from debias.stats.common.joint import JointEstimate
    from debias.tables.leaderboard import LEADERBOARD_COLUMNS, preferences_leaderboard
    from debias.tables.preferences import (
        AGREEMENT_COLUMNS,
        PREFERENCE_COLUMNS,
        PreferenceAnalysis,
        agreement_table,
        preference_analysis,
        preference_summary,
        preference_table,
    )

    frame = _battles()
    pairs = read_pair_table(frame, item="q", system_a="A", system_b="B", verdict="v", judges=["j"])
    analysis = preference_analysis(pairs, level=0.9)
    assert isinstance(analysis, PreferenceAnalysis)
    assert list(analysis.table.columns) == PREFERENCE_COLUMNS and not analysis.table.attrs
    assert isinstance(analysis.results, tuple) and all(isinstance(r, JointEstimate) for r in analysis.results)
    assert len(analysis.table) == sum(len(r.systems) for r in analysis.results)
    efficiency = analysis.data_efficiency
    assert ("win_rate", "ppi++:j") in efficiency and ("win_rate", "judge:j") not in efficiency
    assert np.isnan(analysis.rater_variance) and analysis.n_multiply_rated == 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        analysis.table = None
    with pytest.raises(TypeError):
        analysis.data_efficiency["win_rate", "human"] = 2.0
    pd.testing.assert_frame_equal(preference_table(pairs, level=0.9), analysis.table)
    summary = preference_summary(pairs, analysis)
    assert summary["data_efficiency"]["win_rate"]["ppi++:j"] == pytest.approx(
        analysis.data_efficiency["win_rate", "ppi++:j"]
    )
    board = preferences_leaderboard(analysis.results, level=0.9)
    assert list(board.columns) == ["estimand", *(c for c in LEADERBOARD_COLUMNS if c not in ("task", "prompt"))]
    agreement = agreement_table(pairs, level=0.9)
    assert list(agreement.columns) == AGREEMENT_COLUMNS and not agreement.attrs
    low, high = agreement["bias_ci_low"], agreement["bias_ci_high"]
    assert (low <= agreement["bias"]).all() and (agreement["bias"] <= high).all()

    table = debias.preferences(frame, item="q", system_a="A", system_b="B", verdict="v", judges=["j"], level=0.9)
    pd.testing.assert_frame_equal(table, analysis.table)
    assert not table.attrs
