"""The public API: importable from ``debias``, documented with examples that run, and giving the
workflow's own rows on a long table."""

from __future__ import annotations

import doctest
import importlib

import numpy as np
import pandas as pd
import pytest

import debias
from debias.io.canonical import SystemItem
from debias.tables.estimates import system_estimates_table
from debias.tables.joined import join_system


def test_the_package_exposes_the_api():
    for name in debias.__all__:
        assert callable(getattr(debias, name)), name
    with pytest.raises(AttributeError):
        debias.no_such_name  # noqa: B018
    assert dir(debias) == sorted(debias.__all__)  # no helper imports offered to tab completion


@pytest.mark.parametrize(
    "module",
    ["debias.api", "debias.data.judgments", "debias.io.reader", "debias.io.pairs", "debias.stats.ratings.estimate"],
)
def test_examples_in_docstrings_run(module):
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


def _long_table(rng, systems=3, items=40, raters=2):
    rows = []
    for s in range(systems):
        for i in range(items):
            quality = rng.normal(s * 0.3, 1.0)
            bleu = quality + rng.normal(0, 0.5)
            for r in range(raters if i % 3 else 1):  # some items judged once
                rows.append(
                    {
                        "seg": f"seg{i}",
                        "sys": f"s{s}",
                        "rater": f"r{r}",
                        "score": round(quality + rng.normal(0, 0.7), 1),
                        "bleu": bleu,
                    }
                )
    return pd.DataFrame(rows)


def test_estimate_on_a_long_table_gives_the_workflows_rows():
    rng = np.random.default_rng(5)
    frame = _long_table(rng)
    population = pd.DataFrame(
        {
            "seg": [f"extra{i}" for i in range(30)] * 3,
            "sys": np.repeat(["s0", "s1", "s2"], 30),
            "bleu": rng.normal(size=90),
        }
    )
    ours = debias.estimate(
        frame, item="seg", system="sys", judgment="score", rater="rater", scores=["bleu"], population=population
    )
    # The workflow's path: system files -> join_system -> system_estimates_table.
    joined = []
    for system, part in frame.groupby("sys", sort=False):
        items = []
        for seg, rows in part.groupby("seg", sort=False):
            rows = rows.sort_values("rater")
            items.append(SystemItem(id=seg, output="", judgments={"score": rows["score"].tolist()}))
        extra = population[population["sys"] == system]
        items += [SystemItem(id=seg, output="") for seg in extra["seg"]]
        scores = pd.concat(
            [part.drop_duplicates("seg")[["seg", "bleu"]], extra[["seg", "bleu"]]], ignore_index=True
        ).rename(columns={"seg": "id"})
        joined.append(join_system("evaluation", system, items, ["score"], scores, ["bleu"]))
    theirs = system_estimates_table(joined, {"evaluation": ["score"]}, ["bleu"], level=0.95)  # the API's default
    pd.testing.assert_frame_equal(ours, theirs)
    assert set(ours["estimator"]) == {"mean", "cv:bleu", "ppi++:bleu"}
    assert (ours["n_outputs"] == 70).all() and (ours["n_judged"] == 40).all()


def test_compare_and_plan_on_a_long_table():
    frame = _long_table(np.random.default_rng(6), items=60)
    comparisons = debias.compare(frame, item="seg", system="sys", judgment="score", scores=["bleu"])
    assert len(comparisons) == 3 * 2  # three pairs, mean and cv:bleu each
    s0_s2 = comparisons[(comparisons["system_a"] == "s0") & (comparisons["system_b"] == "s2")]
    assert (s0_s2["difference"] > 0).all()  # s2 is better by construction (0.6 on the item scale)
    plans = debias.plan(frame, item="seg", system="sys", judgment="score", scores=["bleu"])
    assert set(plans["estimator"]) == {"mean", "cv:bleu"} and (plans["n"] > 0).all()


def test_long_table_errors_name_the_row_and_column():
    frame = pd.DataFrame({"seg": ["a", "b"], "score": [1, "x"]})
    with pytest.raises(ValueError, match="table: row 3: column 'score': expected a finite number, found 'x'"):
        debias.estimate(frame, item="seg", judgment="score")
    with pytest.raises(ValueError, match="no column 'sys'"):
        debias.estimate(frame, item="seg", judgment="score", system="sys")
    conflicting = pd.DataFrame({"seg": ["a", "a", "b", "c"], "score": [1, 2, 3, 4], "bleu": [0.1, 0.2, 0.3, 0.4]})
    with pytest.raises(ValueError, match="rows 2 and 3: column 'bleu' differs for system 'system', item 'a'"):
        debias.estimate(conflicting, item="seg", judgment="score", scores=["bleu"])


def test_estimate_mean_on_arrays_matches_the_long_table_path():
    j = [[4, 5], [3], [5, 4], [2, 3], [4], [3, 3]]
    result = debias.estimate_mean(j, n_outputs=6)
    frame = pd.DataFrame({"seg": [i for i, v in enumerate(j) for _ in v], "score": [x for v in j for x in v]})
    row = debias.estimate(frame, item="seg", judgment="score").iloc[0]
    assert row["estimate"] == pytest.approx(float(result.estimate))
    assert row["ci_low"] == pytest.approx(float(result.ci_low)) and row["ci_high"] == pytest.approx(
        float(result.ci_high)
    )


def _pair_frame():
    return pd.DataFrame(
        {
            "q": [f"q{i}" for i in range(12)],
            "A": ["x", "y", "z"] * 4,
            "B": ["y", "z", "x"] * 4,
            "winner": ["model_a", "model_b", "tie", "model_a"] * 3,
        }
    )


PAIRWISE = {"item": "q", "system_a": "A", "system_b": "B", "verdict": "winner"}


@pytest.mark.parametrize(
    "extra",
    [
        {"judgment": "winner"},
        {"system": "A"},
        {"prompt": "q"},
        {"scores": ["q"]},
        {"population": pd.DataFrame({"q": ["q1"]})},
        {"scale": (0, 1)},
        {"higher_is_better": False},
    ],
)
def test_the_pairwise_leaderboard_refuses_the_arguments_of_ratings(extra):
    (name,) = extra
    with pytest.raises(ValueError, match=name) as caught:
        debias.leaderboard(_pair_frame(), **PAIRWISE, **extra)
    assert "pairwise verdicts do not take" in str(caught.value)


@pytest.mark.parametrize(
    "extra", [{"judges": ["gpt"]}, {"pool": _pair_frame()}, {"ties": "drop"}, {"mapping": {1: "a"}}]
)
def test_the_ratings_leaderboard_refuses_the_arguments_of_pairwise_verdicts(extra):
    frame = _long_table(np.random.default_rng(3))
    (name,) = extra
    with pytest.raises(ValueError, match=f"ratings do not take {name}="):
        debias.leaderboard(frame, item="seg", system="sys", judgment="score", **extra)


def test_the_ratings_leaderboard_takes_a_declared_scale():
    frame = _long_table(np.random.default_rng(4))
    frame["score"] = frame["score"].clip(-3, 3)
    table = debias.leaderboard(frame, item="seg", system="sys", judgment="score", scale=(-3, 3), level=0.9)
    assert set(table["system"]) == {"s0", "s1", "s2"}
    with pytest.raises(ValueError, match="score"):  # a judgment outside the declared scale
        debias.leaderboard(frame, item="seg", system="sys", judgment="score", scale=(0, 1))


@pytest.mark.parametrize("level", [1.5, 0, -0.1, float("nan"), "0.9"])
def test_a_bad_level_is_the_same_input_error_everywhere(level):
    from debias.io.canonical import InputError

    ratings = _long_table(np.random.default_rng(2))
    calls = [
        lambda: debias.estimate(ratings, item="seg", system="sys", judgment="score", level=level),
        lambda: debias.compare(ratings, item="seg", system="sys", judgment="score", level=level),
        lambda: debias.plan(ratings, item="seg", system="sys", judgment="score", level=level),
        lambda: debias.leaderboard(ratings, item="seg", system="sys", judgment="score", level=level),
        lambda: debias.leaderboard(_pair_frame(), **PAIRWISE, level=level),
        lambda: debias.preferences(_pair_frame(), **PAIRWISE, level=level),
        lambda: debias.judge_agreement(_pair_frame(), **PAIRWISE, judges=[], level=level),
        lambda: debias.estimate_mean([[1, 2], [3, 4], [2, 2]], n_outputs=10, level=level),
    ]
    for call in calls:
        with pytest.raises(InputError, match="level"):
            call()


def test_pairwise_settings_are_checked_before_reading():
    from debias.io.canonical import InputError

    for call in (debias.preferences, debias.leaderboard):
        with pytest.raises(InputError, match="ties"):
            call(_pair_frame(), **PAIRWISE, ties="third")
    with pytest.raises(InputError, match="seed"):
        debias.leaderboard(_pair_frame(), **PAIRWISE, seed=-1)
    with pytest.raises(InputError, match="system_a, system_b and verdict; not given: verdict"):
        debias.leaderboard(_pair_frame(), item="q", system_a="A", system_b="B")


def test_the_level_default_comes_from_the_schema_alone():
    import inspect

    from debias.config.settings import section_defaults
    from debias.stats.preferences import agreement, bradley_terry, win_rate
    from debias.stats.preferences import estimands as preferences

    default = section_defaults("estimates")["level"]
    table = debias.preferences(_pair_frame(), **PAIRWISE)
    assert set(table["level"]) == {default}
    for function in (
        preferences.preference_estimates,
        win_rate.win_rates,
        win_rate.win_rate_draws,
        bradley_terry.bradley_terry,
        agreement.judge_agreement,
    ):
        parameter = inspect.signature(function).parameters["level"]
        assert parameter.default is inspect.Parameter.empty, function.__name__
