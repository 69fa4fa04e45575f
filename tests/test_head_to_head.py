"""The head-to-head matrix, breakdowns by a column and agreement on non-tie verdicts."""

from __future__ import annotations

import io
from importlib.util import find_spec

import numpy as np
import pandas as pd
import pytest
from scipy.special import ndtri

import debias
from debias.data import JudgedPairs
from debias.io.canonical import InputError
from debias.io.pairs import read_pair_table
from debias.stats.common.multiplicity import sidak_level
from debias.stats.preferences.agreement import judge_agreement
from debias.stats.preferences.battles import ALL_TIES
from debias.stats.preferences.matrix import NO_BATTLES, head_to_head
from debias.stats.preferences.win_rate import win_rates
from debias.tables.preferences import (
    BY,
    HEAD_TO_HEAD_COLUMNS,
    INTERVAL_LEVEL,
    head_to_head_table,
    preference_breakdown,
)

needs_figures = pytest.mark.skipif(find_spec("matplotlib") is None, reason="figures need the extra 'workflow'")


def _world(seed=0, n_systems=5, n_battles=400, labelled=0.6, clusters=None, categories=("chat", "code", "math")):
    """Battles of systems of known strengths, with a judge right 80% of the time."""
    rng = np.random.default_rng(seed)
    names = [f"s{k}" for k in range(n_systems)]
    a = rng.integers(0, n_systems, n_battles)
    b = (a + rng.integers(1, n_systems, n_battles)) % n_systems
    p = 1 / (1 + np.exp(-0.4 * (b - a)))
    u = rng.random(n_battles)
    verdict = np.where(u < p * 0.85, 1.0, np.where(u < p * 0.85 + 0.15, 0.5, 0.0))
    judge = np.where(rng.random(n_battles) < 0.8, verdict, rng.choice([0.0, 0.5, 1.0], n_battles))
    human = np.where(rng.random(n_battles) < labelled, verdict, np.nan)
    item = [f"q{k}" for k in range(n_battles)]
    cluster = None if clusters is None else [f"c{k % clusters}" for k in range(n_battles)]
    pairs = JudgedPairs.from_arrays(
        [names[k] for k in a], [names[k] for k in b], human, {"j": judge}, items=item, systems=names, clusters=cluster
    )
    labels = rng.choice(list(categories), n_battles)
    return JudgedPairs(
        *(getattr(pairs, f) for f in ("systems", "system_a", "system_b", "human", "human_counts")),
        pairs.judges,
        pairs.judge_verdicts,
        pairs.items,
        pairs.judge_unknown,
        pairs.task,
        pairs.clusters,
        facets={"category": labels},
    )


# The matrix against a literal loop ----------------------------------------------------------------


@pytest.mark.parametrize("clusters", [None, 40])
@pytest.mark.parametrize("estimator", ["human", "judge:j"])
@pytest.mark.parametrize("ties", ["half", "drop"])
def test_matrix_is_the_win_rate_of_each_pair_on_its_own_battles(estimator, clusters, ties):
    pairs = _world(clusters=clusters)
    matrix = head_to_head(pairs, estimator, level=0.9, ties=ties)
    assert matrix.pair_level == pytest.approx(0.9 ** (1 / matrix.n_pairs))
    for r, first in enumerate(matrix.systems):
        for c, second in enumerate(matrix.systems):
            if r == c:
                continue
            i, j = pairs.systems.index(first), pairs.systems.index(second)
            mine = ((pairs.system_a == i) & (pairs.system_b == j)) | ((pairs.system_a == j) & (pairs.system_b == i))
            alone = win_rates(pairs.take(mine), estimator, level=matrix.pair_level, ties=ties)
            for field in ("estimate", "ci_low", "ci_high", "se"):
                np.testing.assert_allclose(
                    getattr(matrix, field)[r, c], getattr(alone, field)[i], rtol=1e-9, atol=1e-12
                )
            assert matrix.n_battles[r, c] == mine.sum()
            if estimator == "human" and ties == "half":  # the mean verdict, literally
                score = np.where(pairs.system_a[mine] == i, pairs.human_mean[mine], 1 - pairs.human_mean[mine])
                assert matrix.estimate[r, c] == pytest.approx(np.nanmean(score))


def test_matrix_cells_mirror_and_ppi_cells_use_the_judge():
    pairs = _world(seed=3)
    for estimator in ("human", "ppi++:j"):
        m = head_to_head(pairs, estimator, level=0.9)
        off = ~np.eye(len(m.systems), dtype=bool)
        np.testing.assert_allclose((m.estimate + m.estimate.T)[off], 1.0)
        np.testing.assert_allclose((m.ci_low + m.ci_high.T)[off], 1.0)
    human, ppi = head_to_head(pairs, "human", level=0.9), head_to_head(pairs, "ppi++:j", level=0.9)
    assert np.nanmean(ppi.ci_high - ppi.ci_low) < np.nanmean(human.ci_high - human.ci_low)


@pytest.mark.parametrize("estimator", ["human", "judge:j", "ppi++:j"])
def test_the_cells_sparse_covariance_is_the_dense_one_without_the_pairs_that_never_met(estimator):
    from scipy.sparse import issparse

    from debias.stats.preferences.battles import Battles, check_pairs
    from debias.stats.preferences.matrix import _cell_pairs
    from debias.stats.preferences.win_rate import win_rate_estimate

    pairs = _world(seed=5, n_systems=12, n_battles=300)
    cells, _, _ = _cell_pairs(pairs, list(range(pairs.n_systems)))
    check_pairs(cells, "half")
    dense = win_rate_estimate(Battles(cells), estimator, level=0.9)
    sparse = win_rate_estimate(Battles(cells), estimator, level=0.9, sparse=True)
    assert issparse(sparse.covariance) and not issparse(dense.covariance)
    for field in ("estimate", "se", "ci_low", "ci_high"):
        np.testing.assert_allclose(getattr(sparse, field), getattr(dense, field), rtol=1e-12, atol=1e-15)
    assert sparse.notes == dense.notes
    live = np.isfinite(dense.se)
    stored = sparse.covariance.toarray()
    np.testing.assert_allclose(stored[np.ix_(live, live)], dense.covariance[np.ix_(live, live)], atol=1e-15)
    # a cell covaries with its mirror alone (the same battles): nothing else is stored
    assert sparse.covariance.nnz <= 2 * cells.n_systems
    assert np.isnan(sparse.covariance.diagonal()[~live]).all()


def test_strongest_first_and_cut_off_with_the_others_named():
    pairs = _world(seed=1, n_systems=8, n_battles=2000, labelled=1.0)
    matrix = head_to_head(pairs, level=0.9, max_systems=4)
    assert matrix.systems == ("s0", "s1", "s2", "s3") and set(matrix.omitted) == {"s4", "s5", "s6", "s7"}
    assert matrix.n_pairs == 6


def test_simultaneous_intervals_cover_together_where_single_ones_do_not():
    """Known truth: 6 systems, every pair 30 battles a draw. The Šidák intervals cover all 15
    pairs together at (about) the level; intervals at the level each do not."""
    rng = np.random.default_rng(7)
    n_systems, per_pair, draws = 6, 30, 300
    first, second = np.triu_indices(n_systems, 1)
    a, b = np.repeat(first, per_pair), np.repeat(second, per_pair)
    truth = 1 / (1 + np.exp(-0.3 * (b - a)))
    names = [f"s{k}" for k in range(n_systems)]
    together = single = 0
    for _ in range(draws):
        verdict = (rng.random(a.size) < truth).astype(float)
        pairs = JudgedPairs.from_arrays([names[k] for k in a], [names[k] for k in b], verdict, systems=names)
        matrix = head_to_head(pairs, level=0.9, systems=names)
        cells = (first, second)
        inside = (matrix.ci_low[cells] <= truth[::per_pair]) & (truth[::per_pair] <= matrix.ci_high[cells])
        together += inside.all()
        z = ndtri(0.95)
        narrow = np.abs(matrix.estimate[cells] - truth[::per_pair]) <= z * matrix.se[cells] * (
            ndtri(0.95) / ndtri(0.5 + matrix.pair_level / 2)
        )
        single += narrow.all()
    assert together / draws >= 0.9 - 3 * np.sqrt(0.09 / draws)
    assert single / draws < together / draws - 0.1


# Edge cases -----------------------------------------------------------------------------------------


def test_a_pair_without_battles_is_empty_with_a_reason():
    pairs = JudgedPairs.from_arrays(["x", "x", "y", "x", "y"], ["y", "y", "x", "z", "x"], [1, 0, 1, 1, 0.5])
    matrix = head_to_head(pairs, level=0.9)
    r, c = matrix.systems.index("y"), matrix.systems.index("z")
    assert np.isnan(matrix.estimate[r, c]) and matrix.notes[r, c] == NO_BATTLES and matrix.n_battles[r, c] == 0
    table = head_to_head_table(pairs, level=0.9)
    row = table.query("system == 'z' and opponent == 'y'").iloc[0]
    assert row["note"] == NO_BATTLES and np.isnan(row["estimate"])


def test_all_ties_give_a_half_without_interval_or_no_estimate_without_ties():
    pairs = JudgedPairs.from_arrays(["x", "x", "y", "x"], ["y", "z", "z", "y"], [0.5, 0.5, 0.5, 0.5])
    half = head_to_head(pairs, level=0.9)
    assert np.allclose(half.estimate[~np.eye(3, dtype=bool)], 0.5)
    off = ~np.eye(3, dtype=bool)
    finite = np.isfinite(half.ci_low) & off
    assert np.all(half.ci_low[finite] <= 0.5) and np.all(half.ci_high[finite] >= 0.5)
    assert all(half.notes[off & ~finite])  # no interval: a reason
    drop = head_to_head(pairs, level=0.9, ties="drop")
    assert np.isnan(drop.estimate).all() and ALL_TIES in set(drop.notes.ravel())


def test_forty_systems_are_cut_to_the_thirty_strongest():
    pairs = _world(seed=2, n_systems=40, n_battles=1500, labelled=1.0)
    table = head_to_head_table(pairs, level=0.9, estimators=["human"])
    assert table["system"].nunique() == 30 and len(table.attrs["omitted"]) == 10 and len(table) == 30 * 29


@pytest.mark.slow
@needs_figures
def test_two_hundred_systems_are_cut_to_the_strongest_and_drawn(tmp_path):
    from debias.plots import save_figure
    from debias.plots.head_to_head import draw_head_to_head

    pairs = _world(seed=2, n_systems=200, n_battles=3000, labelled=1.0)
    table = head_to_head_table(pairs, level=0.9, estimators=["human"])
    assert table["system"].nunique() == 30 and len(table.attrs["omitted"]) == 170
    assert len(table) == 30 * 29
    save_figure(draw_head_to_head(table, title="200 systems"), tmp_path / "matrix")
    assert (tmp_path / "matrix.png").stat().st_size > 0


@needs_figures
def test_a_matrix_of_many_systems_is_drawn_in_colours_alone_on_a_grid_of_bounded_size(tmp_path):
    from matplotlib.text import Text

    from debias.plots import save_figure
    from debias.plots.head_to_head import _LARGEST_GRID, _VALUES_UP_TO, draw_head_to_head

    pairs = _world(seed=2, n_systems=60, n_battles=1500, labelled=1.0)
    table = head_to_head_table(pairs, level=0.9, estimators=["human"], max_systems=60)
    fig = draw_head_to_head(table, title="60 systems")
    shares = [t.get_text() for t in fig.axes[0].texts]
    assert 60 > _VALUES_UP_TO and not shares  # no value written in a cell
    assert max(fig.get_size_inches()) < _LARGEST_GRID + 8
    assert any("colours alone" in t.get_text() for t in fig.findobj(Text))
    save_figure(fig, tmp_path / "matrix")
    assert (tmp_path / "matrix.png").stat().st_size > 0


# Breakdowns ----------------------------------------------------------------------------------------


def test_breakdown_is_each_levels_own_analysis_at_the_sidak_level():
    pairs = _world(seed=4)
    table = preference_breakdown(pairs, "category", level=0.9)
    assert table.columns[0] == BY and table[BY].isna().sum() == len(debias.preferences(pairs, level=0.9))
    each = sidak_level(0.9, 3)
    labels = np.asarray(pairs.facets["category"])
    for level in ("chat", "code", "math"):
        rows = table[(table[BY] == level) & (table["estimand"] == "win_rate") & (table["estimator"] == "human")]
        rows = rows.set_index("system").loc[list(pairs.systems)]  # the table lists them best first
        alone = win_rates(pairs.take(labels == level), level=each)
        np.testing.assert_allclose(rows["estimate"], alone.estimate)
        np.testing.assert_allclose(rows["ci_low"], alone.ci_low)
        assert set(rows["level"]) == {0.9} and np.allclose(rows[INTERVAL_LEVEL], each)


def test_one_level_and_a_level_of_three_battles_keep_rows_with_notes():
    pairs = _world(seed=5, categories=("only",))
    one = preference_breakdown(pairs, "category", level=0.9)
    overall, level = one[one[BY].isna()], one[one[BY] == "only"]
    np.testing.assert_allclose(overall["estimate"], level["estimate"])
    labels = np.array(["big"] * (pairs.n_battles - 3) + ["small"] * 3, dtype=object)
    small = JudgedPairs(
        *(getattr(pairs, f) for f in JudgedPairs.__dataclass_fields__ if f != "facets"), facets={"category": labels}
    )
    table = preference_breakdown(small, "category", level=0.9)
    rows = table[table[BY] == "small"]
    assert len(rows) == len(one[one[BY] == "only"])
    assert all(isinstance(n, str) and n for n in rows.loc[rows["estimate"].isna() | rows["ci_low"].isna(), "note"])


def test_a_missing_breakdown_column_or_value_is_one_clear_error():
    pairs = _world(seed=6)
    with pytest.raises(ValueError, match="no column 'language'"):
        preference_breakdown(pairs, "language", level=0.9)
    frame = pd.DataFrame(
        {
            "q": ["1", "2", "3"],
            "A": ["x", "y", "x"],
            "B": ["y", "z", "z"],
            "w": ["a", "b", "tie"],
            "category": ["chat", None, "code"],
        }
    )
    with pytest.raises(InputError, match="row 3.*'category'|'category'.*row 3"):
        read_pair_table(frame, item="q", system_a="A", system_b="B", verdict="w", by="category")
    with pytest.raises(InputError, match="'topic'"):
        read_pair_table(frame, item="q", system_a="A", system_b="B", verdict="w", by="topic")


# Agreement on non-tie verdicts ---------------------------------------------------------------------


def test_non_tie_agreement_counts_pairs_where_neither_says_tie():
    human = [1, 0.5, 0, 1, 0, 0.5]
    judge = [1, 1, 1, 0.5, 0, 0.5]
    pairs = JudgedPairs.from_arrays(list("xxxxxx"), list("yyyyyy"), human, {"j": judge})
    (found,) = judge_agreement(pairs, level=0.9)
    assert found.n_non_tie == 3 and found.non_tie_accuracy == pytest.approx(2 / 3)
    table = debias.judge_agreement(pairs, level=0.9)
    assert list(table.columns[table.columns.get_loc("kappa") + 1 :][:2]) == ["n_non_tie", "non_tie_accuracy"]


# API and command ------------------------------------------------------------------------------------


def _frame():
    return pd.DataFrame(
        {
            "q": [str(k) for k in range(12)],
            "A": ["x", "y", "z", "x", "y", "z", "x", "y", "z", "x", "y", "z"],
            "B": ["y", "z", "x", "y", "z", "x", "y", "z", "x", "y", "z", "x"],
            "winner": ["a", "b", "tie", "a", "a", "b", "b", "a", "tie", "a", "b", "a"],
            "j": ["a", "b", "a", "a", "a", "b", "b", "a", "b", "a", "tie", "a"],
            "category": ["chat", "code"] * 6,
        }
    )


def test_api_head_to_head_and_preferences_by():
    pairs = debias.read_pairs(
        _frame(), item="q", system_a="A", system_b="B", verdict="winner", judges=["j"], by="category"
    )
    matrix = debias.head_to_head(pairs, level=0.9)
    assert list(matrix.columns) == HEAD_TO_HEAD_COLUMNS
    assert set(matrix["estimator"]) == {"human", "judge:j", "ppi++:j"} and len(matrix) == 3 * 6
    table = debias.preferences(pairs, level=0.9, by="category")
    assert set(table[BY].dropna()) == {"chat", "code"}
    with pytest.raises(InputError, match="'turn'"):
        debias.preferences(pairs, level=0.9, by="turn")


def test_command_matrix_and_by(tmp_path, capsys):
    from debias.cli.analyse import main

    path = tmp_path / "battles.csv"
    _frame().to_csv(path, index=False)
    args = ["preferences", str(path), "--item", "q", "--system-a", "A", "--system-b", "B", "--verdict", "winner"]
    assert main([*args, "--judge", "j", "--matrix", "--level", "0.9"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert list(table.columns) == HEAD_TO_HEAD_COLUMNS
    assert main([*args, "--by", "category", "--level", "0.9"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert set(table[BY].dropna()) == {"chat", "code"}
    assert main([*args, "--by", "nothing"]) == 2
    assert "nothing" in capsys.readouterr().err
    if find_spec("matplotlib") is not None:
        assert main([*args, "--matrix", "--figure", str(tmp_path / "m")]) == 0
        assert main([*args, "--by", "category", "--figure", str(tmp_path / "b")]) == 0
        assert (tmp_path / "m.png").stat().st_size > 0 and (tmp_path / "b.png").stat().st_size > 0


@pytest.mark.slow
def test_the_benchmark_runs_its_quick_draws(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_head_to_head.py"
    out = tmp_path / "rows.csv"
    subprocess.run([sys.executable, str(script), "--quick", "--only", "matrix", "--output", str(out)], check=True)
    rows = pd.read_csv(out)
    assert set(rows["estimator"]) == {"human", "ppi++:judge"} and (rows["draws"] == 30).all()
    assert (rows["single"] >= rows["cover"]).all() and (rows["naive"] <= rows["cover"]).all()


@pytest.mark.skipif(find_spec("matplotlib") is None, reason="the figures need matplotlib")
def test_a_breakdown_figure_draws_at_most_its_cap_of_levels_and_says_so():
    from debias.plots.head_to_head import MAX_LEVELS_SHOWN, draw_breakdown

    rng = np.random.default_rng(0)
    n = 1200
    a = rng.integers(0, 3, n)
    b = (a + rng.integers(1, 3, n)) % 3
    levels = np.array([f"l{k:02d}" for k in rng.integers(0, MAX_LEVELS_SHOWN + 6, n)], dtype=object)
    pairs = JudgedPairs.from_arrays(
        [f"s{k}" for k in a], [f"s{k}" for k in b], (rng.random(n) < 0.5).astype(float), systems=("s0", "s1", "s2")
    )
    pairs = JudgedPairs(
        *(getattr(pairs, f) for f in JudgedPairs.__dataclass_fields__ if f != "facets"), facets={"level": levels}
    )
    table = preference_breakdown(pairs, "level", level=0.9)
    figure = draw_breakdown(table)
    drawn = [ax for ax in figure.axes if ax.get_visible() and ax.get_title()]
    assert len(drawn) == MAX_LEVELS_SHOWN
    assert f"the first {MAX_LEVELS_SHOWN} shown" in figure._suptitle.get_text()
