"""The contract every shape of data is written on: each shape declares its estimands and
estimators and gives its estimates as joint results, and what is written once on those results
(leaderboards, a question's status) serves both shapes."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

import debias
from debias.stats.common.contract import Shape, check_shape_estimates
from debias.stats.common.status import question_status
from debias.stats.preferences import PREFERENCES
from debias.stats.ratings import RATINGS, RatedSystem
from debias.tables.leaderboard import leaderboard_rows


def rated_systems(unjudged: bool = True, judged_of_c: int = 35) -> list[RatedSystem]:
    from debias.tables.joined import iter_cells, join_evaluation_table
    from debias.tables.leaderboard import rated_systems as of_cells

    rng = np.random.default_rng(0)
    rows = []
    for system, mean in {"a": 2.0, "b": 3.0, "c": 3.5}.items():
        for i in range(50):
            quality = mean + rng.normal(0, 0.6)
            judged = i < (judged_of_c if system == "c" else 35) or not unjudged
            score = round(quality + rng.normal(0, 0.4)) if judged else np.nan
            rows.append({"item": f"i{i}", "system": system, "score": score, "m": quality + rng.normal(0, 0.2)})
    table = debias.read_ratings(pd.DataFrame(rows), item="item", system="system", judgment="score", scores=["m"])
    cells = [(s, o, j) for _, s, _, o, j in iter_cells(join_evaluation_table(table, "t"), {"t": ["score"]})]
    return of_cells(cells, ["m"])


def battles() -> debias.JudgedPairs:
    rng = np.random.default_rng(1)
    strength = {"w": 0.8, "x": 0.2, "y": -0.1, "z": -0.9}
    rows = []
    for q in range(1500):
        a, b = rng.choice(list(strength), 2, replace=False)
        won = "a" if rng.random() < 1 / (1 + np.exp(strength[b] - strength[a])) else "b"
        judge = won if rng.random() < 0.8 else "tie"
        rows.append((f"q{q}", a, b, won if q < 400 else None, judge, won if rng.random() < 0.7 else "b"))
    frame = pd.DataFrame(rows, columns=["q", "A", "B", "winner", "j1", "j2"])
    return debias.read_pairs(frame, item="q", system_a="A", system_b="B", verdict="winner", judges=["j1", "j2"])


@pytest.mark.parametrize("shape, data", [(RATINGS, rated_systems), (PREFERENCES, battles)])
def test_each_shape_keeps_the_contract_and_the_shared_code_serves_it(shape, data):
    data = data()
    assert isinstance(shape, Shape)
    results = shape.estimates(data, level=0.9)
    check_shape_estimates(shape, results)
    assert {r.estimator for r in results} == set(shape.estimator_names(data))
    assert {r.estimand for r in results} == set(shape.estimands)
    for result in results:
        if result.biased:
            continue
        board = leaderboard_rows({result.estimator: result}, level=0.9, names=("contract",))
        assert (board["rank_low"] <= board["rank"]).all() and (board["rank"] <= board["rank_high"]).all()
        state = question_status(result, "top:1", level=0.9)
        assert {r.first for r in state.rows if not r.second} == set(result.systems)


def test_the_ratings_shape_gives_the_leaderboards_estimates_and_every_system_with_its_reason():
    from debias.stats.ratings import ratings_estimates

    data = rated_systems()
    joint, _ = ratings_estimates(data, level=0.9)
    results = {r.estimator: r for r in RATINGS.estimates(data, level=0.9)}
    assert set(results) == {"mean", "cv:m", "ppi++:m"}
    for name, result in results.items():
        assert np.array_equal(result.estimate, joint[name].estimate) and result.systems == joint[name].systems
    few = rated_systems(judged_of_c=2)
    (mean,) = [r for r in RATINGS.estimates(few, level=0.9) if r.estimator == "mean"]
    assert np.isnan(mean.estimate[2]) and "fewer than 3" in mean.notes[2]
    assert RATINGS.estimator_names(rated_systems(unjudged=False)) == ["mean", "cv:m"]  # PPI++ needs unjudged outputs


def test_a_result_that_breaks_the_contract_is_refused():
    data = battles()
    (result, *_) = PREFERENCES.estimates(data, level=0.9)
    with pytest.raises(ValueError, match="estimand 'mean'"):
        check_shape_estimates(PREFERENCES, [replace(result, estimand="mean")])
    with pytest.raises(ValueError, match="another shape"):
        check_shape_estimates(RATINGS, [replace(result, estimand="mean")])
    with pytest.raises(ValueError, match="one value per system"):
        check_shape_estimates(PREFERENCES, [replace(result, se=result.se[:-1])])
    with pytest.raises(ValueError, match="not a JointEstimate"):
        check_shape_estimates(PREFERENCES, [object()])
