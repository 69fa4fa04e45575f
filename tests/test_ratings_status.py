"""Questions on ratings: the ratings' joint estimates through the same anytime-valid status as
pairwise verdicts (debias.status, debias status), and the outputs to have judged next
(debias.next_battles, debias next); the read steps and the API's shape."""

from __future__ import annotations

import inspect
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import debias
from debias.io.canonical import InputError

COLUMNS = {"item": "item", "system": "system", "judgment": "score"}
OPTIONS = ["--item", "item", "--system", "system", "--judgment", "score"]


def ratings_frame(means=None, n=120, judged=80, seed=0, prompts=("overall",), metric=True) -> pd.DataFrame:
    """Systems rated 1-5 around their means on ``n`` items, the first ``judged`` judged once
    (the others: rows with an empty score), with a metric that follows each output's quality."""
    means = means or {"a": 2.5, "b": 3.0, "c": 4.0}
    rng = np.random.default_rng(seed)
    rows = []
    for system, mean in means.items():
        for i in range(n):
            quality = mean + rng.normal(0, 0.7)
            m = 0.2 * quality + rng.normal(0, 0.05)
            for k, prompt in enumerate(prompts):
                shift = 0.5 * k * (system == "a")  # the prompts differ
                score = float(np.clip(np.round(quality + shift + rng.normal(0, 0.5)), 1, 5)) if i < judged else np.nan
                row = {"item": f"i{i}", "system": system, "prompt": prompt, "score": score}
                if metric:
                    row["m"] = m
                rows.append(row)
    return pd.DataFrame(rows)


def read(frame, **extra):
    scores = ["m"] if "m" in frame else []
    prompt = "prompt" if frame["prompt"].nunique() > 1 else None
    return debias.read_ratings(frame, **COLUMNS, prompt=prompt, scores=scores, **extra)


def test_a_clear_difference_is_settled_and_the_rows_are_the_systems_and_the_contrast():
    ratings = read(ratings_frame({"a": 2.0, "b": 4.0}, n=150, judged=150))
    state = debias.status(ratings, "better:b,a", level=0.9)
    assert state.resolved and state.answer == "b better"
    assert state.estimand == "mean" and state.estimator == "cv:m"  # the metric's control variate by default
    (row,) = state.rows
    assert (row.first, row.second) == ("b", "a") and row.ci_low > 0 and row.ci_low < row.estimate < row.ci_high
    assert state.n_votes == 300  # judged items of both systems


def test_the_status_intervals_are_wider_than_the_fixed_n_ones_and_hold_every_system():
    ratings = read(ratings_frame())
    board = debias.leaderboard(ratings, level=0.9).query("estimator == 'cv:m'").set_index("system")
    state = debias.status(ratings, "ranks", level=0.9)
    systems = {r.first: r for r in state.rows if not r.second}
    assert set(systems) == {"a", "b", "c"}
    for name, row in systems.items():
        assert row.estimate == pytest.approx(board.loc[name, "estimate"])  # the same estimate
        assert row.ci_low < board.loc[name, "lower"] and row.ci_high > board.loc[name, "upper"]  # anytime: wider


def test_a_lower_is_better_rating_ranks_the_lowest_first_and_keeps_its_numbers():
    frame = ratings_frame({"a": 1.5, "b": 4.5}, n=100, judged=100)
    higher = debias.status(read(frame), "top:1", level=0.9)
    lower = debias.status(read(frame, higher_is_better=False), "top:1", level=0.9)
    assert higher.resolved and higher.answer == "top 1: b"
    assert lower.resolved and lower.answer == "top 1: a"
    # best first: the highest score when higher is better, the lowest otherwise
    assert [r.first for r in higher.rows] == ["b", "a"] and [r.first for r in lower.rows] == ["a", "b"]
    other = {r.first: r for r in lower.rows}
    for one in higher.rows:  # the same scores and intervals, read the other way
        two = other[one.first]
        assert (one.estimate, one.ci_low, one.ci_high) == pytest.approx((two.estimate, two.ci_low, two.ci_high))
    assert [r.status for r in lower.rows] == ["in the top 1", "not in the top 1"]


def test_next_sends_only_unjudged_outputs_of_open_systems_reproducibly():
    frame = ratings_frame({"a": 2.0, "b": 3.0, "c": 3.05}, n=200, judged=40)
    ratings = read(frame)
    state = debias.status(ratings, "top:1", level=0.9)
    chosen = debias.next_battles(ratings, "top:1", 25, seed=3, level=0.9)
    again = debias.next_battles(ratings, "top:1", 25, seed=3, level=0.9)
    assert chosen.battles.equals(again.battles) and len(chosen.battles) == 25 and chosen.note == ""
    assert list(chosen.battles.columns) == ["item", "system"]
    judged = set(map(tuple, frame.dropna(subset=["score"])[["item", "system"]].values))
    assert not judged & set(map(tuple, chosen.battles.values))  # nobody judged them yet
    open_systems = {s for s, o in zip(state.systems, state.open_pairs.any(axis=1)) if o}
    assert set(chosen.battles["system"]) <= open_systems and open_systems
    other = debias.next_battles(ratings, "top:1", 25, seed=4, level=0.9)
    assert not other.battles.equals(chosen.battles)


def test_next_on_a_settled_question_or_a_fully_judged_table_says_why_it_sends_nothing():
    settled = read(ratings_frame({"a": 1.5, "b": 4.5}, n=100, judged=80))
    done = debias.next_battles(settled, "better:b,a", 10, level=0.9)
    assert done.battles.empty and "settled" in done.note
    full = read(ratings_frame({"a": 3.0, "b": 3.05}, n=30, judged=30))
    empty = debias.next_battles(full, "better:b,a", 10, level=0.9)
    assert empty.battles.empty and "nobody judged" in empty.note


def test_a_system_with_two_judged_items_keeps_a_row_with_its_reason():
    frame = ratings_frame(n=60, judged=60)
    frame = frame[(frame["system"] != "c") | (frame["item"].isin(["i0", "i1"]))]
    state = debias.status(read(frame), "top:1", level=0.9)
    row = next(r for r in state.rows if r.first == "c" and not r.second)
    assert row.status == "no estimate" and "2 judged items (fewer than 3)" in row.note and np.isnan(row.estimate)


def test_several_prompts_need_one_named_and_bad_settings_name_their_option():
    ratings = read(ratings_frame(prompts=("fluency", "overall")))
    with pytest.raises(InputError, match="for_prompt: the ratings have 2 prompts"):
        debias.status(ratings, "top:1")
    fluency = debias.status(ratings, "top:1", for_prompt="fluency", level=0.9)
    overall = debias.status(ratings, "top:1", for_prompt="overall", level=0.9)
    assert [r.estimate for r in fluency.rows] != [r.estimate for r in overall.rows]
    for kwargs, where in (
        ({"for_prompt": "nope"}, "for_prompt nope"),
        ({"for_prompt": "overall", "estimator": "judge:m"}, "estimator judge:m"),
        ({"for_prompt": "overall", "estimator": "cv:other"}, "estimator cv:other"),
        ({"for_prompt": "overall", "estimand": "win_rate"}, "estimand win_rate"),
        ({"for_prompt": "overall", "ties": "drop"}, "ties"),
    ):
        with pytest.raises(InputError, match=where):
            debias.status(ratings, "top:1", **kwargs)
    pairs = debias.read_pairs(
        pd.DataFrame({"q": ["1", "2"], "A": ["x", "y"], "B": ["y", "x"], "w": ["a", "b"]}),
        item="q",
        system_a="A",
        system_b="B",
        verdict="w",
    )
    with pytest.raises(InputError, match="for_prompt"):
        debias.status(pairs, "top:1", for_prompt="overall")


def test_one_judgment_per_item_and_no_metric_still_answer():
    ratings = read(ratings_frame({"a": 2.0, "b": 4.0}, n=60, judged=60, metric=False))
    state = debias.status(ratings, "within:1", level=0.9)
    assert state.estimator == "mean" and state.resolved


def test_the_command_prints_the_apis_rows_and_writes_the_outputs_to_judge(tmp_path):
    frame = ratings_frame({"a": 2.0, "b": 3.0, "c": 3.1}, n=150, judged=50)
    path = tmp_path / "ratings.csv"
    frame.to_csv(path, index=False)
    command = [sys.executable, "-m", "debias", "status", str(path), *OPTIONS, "--score", "m", "--question", "top:1"]
    done = subprocess.run([*command, "--level", "0.9", "--format", "json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    state = debias.status(read(frame), "top:1", level=0.9)
    printed = __import__("json").loads(done.stdout)
    assert printed["command"] == "status" and printed["level"] == 0.9
    printed = pd.DataFrame(printed["rows"])
    assert np.allclose(printed["estimate"], [r.estimate for r in state.rows])
    assert np.allclose(printed["ci_low"], [r.ci_low for r in state.rows])
    assert state.answer in done.stderr and "judged items" in done.stderr
    out = tmp_path / "next.csv"
    nxt = [sys.executable, "-m", "debias", "next", str(path), *OPTIONS, "--score", "m", "--question", "top:1"]
    done = subprocess.run([*nxt, "--level", "0.9", "--budget", "7", "--seed", "2", "--output", str(out)])
    assert done.returncode == 0
    api = debias.next_battles(read(frame), "top:1", 7, seed=2, level=0.9).battles
    pd.testing.assert_frame_equal(pd.read_csv(out), api)
    both = subprocess.run([*command, "--verdict", "score"], capture_output=True, text=True)
    assert both.returncode == 2 and "not both" in both.stderr
    half = [sys.executable, "-m", "debias", "status", str(path), "--item", "item", "--system", "system"]
    half = subprocess.run([*half, "--question", "top:1"], capture_output=True, text=True)
    assert half.returncode == 2 and "--judgment" in half.stderr


def test_the_read_steps_and_the_one_call_forms_give_the_same_rows():
    frame = ratings_frame()
    ratings = read(frame)
    with pytest.warns(DeprecationWarning, match="read it once"):
        one_call = debias.estimate(frame, **COLUMNS, scores=["m"])
    pd.testing.assert_frame_equal(debias.estimate(ratings), one_call)
    with pytest.raises(InputError, match="takes no item="):
        debias.estimate(ratings, item="item")
    with pytest.raises(InputError, match="not pairwise verdicts"):
        debias.estimate(debias.read_pairs(pd.DataFrame({"q": ["1"], "A": ["x"], "B": ["y"], "w": ["a"]}),
                                          item="q", system_a="A", system_b="B", verdict="w"))  # fmt: skip


def test_the_leaderboard_takes_at_most_six_parameters_and_seeds_like_the_workflow():
    assert len(inspect.signature(debias.leaderboard).parameters) <= 6
    ratings = read(ratings_frame())
    from debias.config.settings import DEFAULT_SEED

    default = debias.leaderboard(ratings, level=0.9)
    pd.testing.assert_frame_equal(default, debias.leaderboard(ratings, level=0.9, seed=DEFAULT_SEED))
    named = debias.leaderboard(read(ratings_frame(), task="mine"), level=0.9)
    assert set(named["task"]) == {"mine"}


def test_a_fresh_interpreter_reaches_the_api_from_import_debias():
    code = (
        "import debias; print(debias.api.__name__, debias.status.__name__, debias.next_battles.__name__, "
        "debias.read_ratings.__name__, debias.read_pairs.__name__)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["debias.api", "status", "next_battles", "read_ratings", "read_pairs"]


def test_a_ratings_votes_guide_counts_all_the_judgments_of_the_next_batches():
    from debias.stats.common.status import question_status
    from debias.tables.status import _ratings_joint

    ratings = read(ratings_frame({"a": 3.0, "b": 3.1, "c": 4.5}, n=300, judged=60))
    state = debias.status(ratings, "within:0.05", level=0.9)
    own = question_status(_ratings_joint(ratings, None, None, 0.9), "within:0.05", level=0.9)
    mine = {r.first: r.more_votes for r in own.rows}
    for row in state.rows:  # each system gets a share of every batch: all the judgments it takes are more
        assert not row.resolved and row.more_votes >= 2 * mine[row.first] - 1
    # every system is among the widest and a judgment feeds one system: in all, the sum of their needs
    assert state.open_systems.all() and state.more_votes == sum(mine.values())
