"""Anytime-valid confidence sequences, a question's status and where to send the next votes:
properties that must hold, a small seeded simulation of peeking, and the commands on odd data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import debias.api
from debias.cli import main
from debias.data import JudgedPairs
from debias.io.canonical import InputError
from debias.stats.common.joint import JointEstimate
from debias.stats.common.sequential import (
    confidence_sequence,
    contrast_sequences,
    fixed_n_multiplier,
    mixture_multiplier,
    votes_to_resolve,
)
from debias.stats.common.status import parse_question, question_status
from debias.stats.preferences.allocation import next_battles
from debias.stats.preferences.status import pairs_status

COLUMNS = {"item": "q", "system_a": "A", "system_b": "B", "verdict": "winner"}


def test_the_boundary_is_wider_than_the_fixed_n_interval_at_every_t_and_shrinks_like_root_log_t_over_t():
    t = np.logspace(0, 8, 200)
    for alpha in (0.01, 0.05, 0.1, 0.3):
        m = mixture_multiplier(t, alpha, 1000)
        assert np.all(m > fixed_n_multiplier(alpha))
        half = m / np.sqrt(t)  # half-width for one vote's standard deviation 1
        assert np.all(np.diff(half) < 0)
        # far beyond t*, m_t^2 = log(t rho^2) + 2 log(1/alpha) + o(1): the half-width is sqrt(log t / t)
        far = t > 1e6
        excess = m[far] ** 2 - np.log(t[far] * tuned(alpha)) - 2 * np.log(1 / alpha)
        assert np.all(np.abs(excess) < 0.02)
    # tightest near t*: the multiplier at t* is within a few per cent of its minimum over t
    m = mixture_multiplier(t, 0.05, 1000)
    assert mixture_multiplier(1000, 0.05, 1000) < 1.03 * m.min()
    assert np.isnan(mixture_multiplier(0, 0.05))


def tuned(alpha):
    from debias.stats.common.sequential import tuned_rho

    return float(tuned_rho(alpha, 1000)) ** 2


def test_union_bound_and_level_widen_the_sequence():
    one = confidence_sequence(0.0, 1.0, 500, level=0.9)
    several = confidence_sequence(0.0, 1.0, 500, level=0.9, tests=10)
    stricter = confidence_sequence(0.0, 1.0, 500, level=0.99)
    assert several.half_width > one.half_width and stricter.half_width > one.half_width
    for bad in (0, 1, 1.5, float("nan")):
        with pytest.raises(ValueError, match="level"):
            confidence_sequence(0.0, 1.0, 10, level=bad)
    with pytest.raises(ValueError, match="tests"):
        confidence_sequence(0.0, 1.0, 10, level=0.9, tests=0)


def test_peeking_at_a_fixed_n_interval_errs_far_more_often_than_the_sequence():
    rng = np.random.default_rng(20261126)
    streams, looks, every = 2000, 200, 20
    votes = rng.choice([0.0, 0.5, 1.0], size=(streams, looks * every), p=[0.45, 0.1, 0.45])  # true mean 0.5
    t = np.arange(every, looks * every + 1, every)
    sums = np.cumsum(votes, axis=1)[:, t - 1]
    squares = np.cumsum(votes**2, axis=1)[:, t - 1]
    mean = sums / t
    se = np.sqrt(np.maximum(squares / t - mean**2, 0.0) / t)
    cs = confidence_sequence(mean, se, t, level=0.95, optimal_at=500)
    sequence_error = np.mean(np.any((cs.ci_low > 0.5) | (cs.ci_high < 0.5), axis=1))
    z = fixed_n_multiplier(0.05)
    peeking_error = np.mean(np.any(np.abs(mean - 0.5) > z * se, axis=1))
    assert sequence_error <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / streams)
    assert peeking_error > 0.2
    assert peeking_error > 5 * sequence_error


def test_votes_to_resolve_is_where_the_boundary_crosses_the_gap():
    t_resolve = votes_to_resolve(0.05, 1.0, 100, alpha=0.05)
    assert np.isfinite(t_resolve) and t_resolve > 100
    m = mixture_multiplier(t_resolve, 0.05)
    assert m / np.sqrt(t_resolve) < 0.05 < mixture_multiplier(t_resolve - 2, 0.05) / np.sqrt(t_resolve - 2)
    assert votes_to_resolve(0.0, 1.0, 100, alpha=0.05) == np.inf
    assert votes_to_resolve(1.0, 1.0, 100, alpha=0.05) == 100  # already resolved
    assert votes_to_resolve(0.1, 1.0, 100, alpha=0.01) > votes_to_resolve(0.1, 1.0, 100, alpha=0.1)


def joint(estimate, variances, n, estimand="mean"):
    s = len(estimate)
    cov = np.diag(np.asarray(variances, dtype=float))
    return JointEstimate(
        estimand, "mean", tuple("abcdefgh"[:s]), np.asarray(estimate, float), cov, np.sqrt(np.diag(cov)),
        np.zeros(s), np.zeros(s), 0.9, np.asarray(n), np.zeros(s, int), np.zeros(s, int), ("",) * s, np.zeros(0),
    )  # fmt: skip


def test_contrast_sequences_form_rank_sets_and_statuses_from_a_joint_estimate():
    est = joint([0.9, 0.5, 0.49, 0.1], [1e-4] * 4, [1000] * 4)
    contrasts = contrast_sequences(est, level=0.9)
    low, high = contrasts.rank_bounds()
    assert low.tolist() == [1, 2, 2, 4] and high.tolist() == [1, 3, 3, 4]
    assert contrasts.sequence.tests == 6
    top1 = question_status(est, "top:1", level=0.9)
    assert top1.resolved and top1.answer == "top 1: a"
    top2 = question_status(est, "top:2", level=0.9)
    assert not top2.resolved and top2.answer.startswith("unresolved so far")
    assert top2.open_pairs[1, 2] and not top2.open_pairs[0, 3]
    ranks = question_status(est, "ranks", level=0.9)
    assert [r.status for r in ranks.rows[:4]] == ["rank 1", "ranks 2-3: unresolved so far"] * 1 + [
        "ranks 2-3: unresolved so far",
        "rank 4",
    ]
    within = question_status(est, "within:0.05", level=0.9)
    assert within.resolved
    assert not question_status(est, "within:0.01", level=0.9).resolved
    # few votes: nothing declared, however large the gap
    assert not question_status(joint([0.9, 0.1], [1e-6, 1e-6], [5, 5]), "better:a,b", level=0.9).resolved


def table(n_ab, share_a, *, pool=0, ties=0, seed=0, extra=None):
    rng = np.random.default_rng(seed)
    won = rng.random(n_ab) < share_a
    winner = np.where(won, "model_a", "model_b").astype(object)
    winner[:ties] = "tie"
    rows = pd.DataFrame({"q": [f"q{i}" for i in range(n_ab)], "A": "x", "B": "y", "winner": winner})
    if pool:
        rows = pd.concat(
            [rows, pd.DataFrame({"q": [f"p{i}" for i in range(pool)], "A": "x", "B": "y", "winner": None})]
        )
    if extra is not None:
        rows = pd.concat([rows, extra])
    return rows.reset_index(drop=True)


def test_status_resolves_a_huge_gap_and_leaves_two_equal_systems_unresolved_so_far():
    huge = debias.api.status(table(400, 0.9), **COLUMNS, question="better:x,y", level=0.95)
    assert huge.resolved and huge.answer == "x better"
    row = huge.rows[0]
    assert row.ci_low > 0 and row.more_votes == 0
    equal = debias.api.status(table(400, 0.5, seed=3), **COLUMNS, question="better:x,y", level=0.95)
    assert not equal.resolved and equal.answer.startswith("unresolved so far")
    assert equal.rows[0].ci_low < 0 < equal.rows[0].ci_high
    assert equal.rows[0].more_votes > 0
    # the anytime-valid interval is wider than the fixed-n one of the same estimate
    fixed = debias.api.preferences(table(400, 0.5, seed=3), **COLUMNS, level=0.95)
    x = fixed.query("estimand == 'win_rate' and estimator == 'human' and system == 'x'").iloc[0]
    s = debias.api.status(table(400, 0.5, seed=3), **COLUMNS, question="within:1", level=0.95)
    assert s.rows[0].ci_high - s.rows[0].ci_low > x.ci_high - x.ci_low


def arena_like(seed=0, n=3000, labelled=600):
    """Four systems of strengths 1.2, 1.0, 0.2, 0: the top two far from the bottom two."""
    rng = np.random.default_rng(seed)
    strength = np.array([1.2, 1.0, 0.2, 0.0])
    a = rng.integers(0, 4, n)
    b = (a + rng.integers(1, 4, n)) % 4
    p = 1 / (1 + np.exp(-(strength[a] - strength[b])))
    winner = np.where(rng.random(n) < p, "model_a", "model_b").astype(object)
    winner[labelled:] = None
    names = np.array(["s0", "s1", "s2", "s3"])
    return pd.DataFrame({"q": [f"q{i}" for i in range(n)], "A": names[a], "B": names[b], "winner": winner})


def test_next_is_reproducible_from_its_seed_and_picks_only_battles_that_can_settle_what_is_open():
    frame = arena_like()
    pairs = debias.read_pairs(frame, item="q", system_a="A", system_b="B", verdict="winner")
    for estimand in ("win_rate", "strength"):
        state = pairs_status(pairs, "top:1", level=0.9, estimand=estimand)
        assert not state.resolved
        one = next_battles(pairs, state, 50, np.random.default_rng(7))
        two = next_battles(pairs, state, 50, np.random.default_rng(7))
        other = next_battles(pairs, state, 50, np.random.default_rng(8))
        assert one.battles.tolist() == two.battles.tolist() != other.battles.tolist()
        assert one.battles.size == 50 and not pairs.labelled[one.battles].any()
        a, b = pairs.system_a[one.battles], pairs.system_b[one.battles]
        # the bottom two are settled out of the top 1: their contrast is not open, and the
        # next votes go to two undecided systems: the most ambiguous inside and outside
        assert not state.open_pairs[2, 3]
        undecided = {r.first for r in state.rows if not r.second and not r.resolved}
        targeted = {pairs.systems[i] for i in np.flatnonzero(state.open_systems)}
        assert len(targeted) == 2 and targeted <= undecided
        open_systems = state.open_systems  # every battle of a targeted system, and no other
        assert (open_systems[a] | open_systems[b]).all()
        eligible = ~pairs.labelled & (open_systems[pairs.system_a] | open_systems[pairs.system_b])
        assert one.eligible == eligible.sum()
    settled = pairs_status(pairs, "top:2", level=0.9)
    assert settled.resolved
    assert next_battles(pairs, settled, 10, np.random.default_rng(0)).battles.size == 0


def test_api_next_battles_and_bad_input():
    frame = arena_like()
    chosen = debias.api.next_battles(frame, **COLUMNS, question="top:1", budget=20, seed=5, level=0.9)
    again = debias.api.next_battles(frame, **COLUMNS, question="top:1", budget=20, seed=5, level=0.9)
    assert list(chosen.battles.columns) == ["q", "A", "B"] and len(chosen.battles) == 20
    assert chosen.battles.equals(again.battles) and chosen.note == "" and chosen.answer
    for kwargs, where in (
        ({"question": "better:s0,nobody"}, "unknown system 'nobody'"),
        ({"question": "top:9"}, "K must be between 1 and 3"),
        ({"question": "best:3"}, "unknown question"),
        ({"question": "within:-1"}, "W a number > 0"),
        ({"question": "top:1", "level": 1.5}, "level"),
    ):
        with pytest.raises(InputError, match=where):
            debias.api.status(frame, **COLUMNS, **kwargs)
    with pytest.raises(InputError, match="budget"):
        debias.api.next_battles(frame, **COLUMNS, question="top:1", budget=0)
    with pytest.raises(ValueError, match="better:A,B"):
        parse_question("better:x")


def write(frame, path):
    frame.to_csv(path, index=False)
    return str(path)


ARGS = ["--item", "q", "--system-a", "A", "--system-b", "B", "--verdict", "winner"]


def test_commands_on_odd_data_give_answers_or_clear_errors(tmp_path, capsys):
    # three battles: nothing can be declared yet
    three = write(table(3, 1.0), tmp_path / "three.csv")
    assert main(["status", three, *ARGS, "--question", "better:x,y", "--level", "0.9"]) == 0
    out = capsys.readouterr()
    assert "unresolved so far" in out.err and "fewer than 30 votes of a system" in out.out
    # all ties: equal systems, unresolved
    ties = write(table(200, 0.5, ties=200), tmp_path / "ties.csv")
    assert main(["status", ties, *ARGS, "--question", "top:1", "--level", "0.9"]) == 0
    assert "unresolved so far" in capsys.readouterr().err
    # a system with no human battle: no estimate, said so, never a traceback
    lonely = pd.DataFrame({"q": ["z1", "z2"], "A": ["x", "z"], "B": ["z", "y"], "winner": [None, None]})
    odd = write(table(300, 0.8, pool=50, extra=lonely), tmp_path / "odd.csv")
    assert main(["status", odd, *ARGS, "--question", "ranks", "--level", "0.9"]) == 0
    out = capsys.readouterr()
    assert "no estimate" in out.out and "Traceback" not in out.err
    assert main(["next", odd, *ARGS, "--question", "ranks", "--budget", "5", "--output", str(tmp_path / "n.csv")]) == 0
    assert "wrote 5 battles" in capsys.readouterr().err
    written = pd.read_csv(tmp_path / "n.csv")
    assert len(written) == 5 and set(written.columns) == {"q", "A", "B"}
    # bad input: a clear one-line error, exit status 2
    for argv, message in (
        (["status", odd, *ARGS, "--question", "better:x,nobody"], "unknown system 'nobody'"),
        (["status", odd, *ARGS, "--question", "top:many"], "top:K"),
        (["next", odd, *ARGS, "--question", "ranks", "--budget", "0", "--output", "o.csv"], "--budget"),
        (["status", odd, *ARGS, "--question", "ranks", "--estimator", "judge:gpt"], "--estimator judge:gpt: rests on"),
        (["status", odd, *ARGS, "--question", "ranks", "--estimator", "ppi++:gpt"], "unknown estimator"),
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err and err.count("\n") == 1
    with pytest.raises(SystemExit):
        main(["status", odd, *ARGS, "--question", "ranks", "--level", "2"])
    assert "level" in capsys.readouterr().err


def test_a_pool_only_table_is_refused_clearly():
    frame = table(0, 0.5, pool=20)
    with pytest.raises(InputError, match="no battle has a human verdict"):
        debias.api.status(frame, **COLUMNS, question="ranks", level=0.9)


def test_judged_pairs_status_uses_ppi_with_judges():
    rng = np.random.default_rng(1)
    n = 2000
    human = (rng.random(n) < 0.6).astype(float)
    judge = np.where(rng.random(n) < 0.8, human, 1 - human)
    counts = np.r_[np.ones(400, int), np.zeros(n - 400, int)]
    pairs = JudgedPairs(("x", "y"), np.zeros(n, int), np.ones(n, int), human[:400], counts, ("j",), judge[:, None])
    with_judge = pairs_status(pairs, "better:x,y", level=0.9)
    alone = pairs_status(pairs, "better:x,y", level=0.9, estimator="human")
    assert with_judge.estimator == "ppi++:j" and alone.estimator == "human"
    assert with_judge.rows[0].ci_high - with_judge.rows[0].ci_low < alone.rows[0].ci_high - alone.rows[0].ci_low


def test_status_path_follows_the_votes_in_order_and_keeps_a_decision_once_taken():
    from debias.plots.sequences import draw_status_path
    from debias.stats.preferences.status import first_votes, status_path

    frame = arena_like(n=2000, labelled=1500)
    pairs = debias.read_pairs(frame, item="q", system_a="A", system_b="B", verdict="winner")
    path = status_path(pairs, "better:s0,s3", level=0.9, looks=8)
    assert path.votes[0] == 30 and path.votes[-1] == 1500 and np.all(np.diff(path.votes) > 0)
    assert path.resolved[-1] and np.all(np.diff(path.resolved.astype(int)) >= 0)
    assert not path.resolved[0]
    full = pairs_status(pairs, "better:s0,s3", level=0.9)
    assert np.allclose(path.contrast[-1], [full.rows[0].estimate, full.rows[0].ci_low, full.rows[0].ci_high])
    early = first_votes(pairs, 100)
    assert early.labelled.sum() == 100 and early.n_battles == pairs.n_battles
    assert np.array_equal(early.human, pairs.human[:100])  # one verdict a battle here: the first 100
    widths = path.contrast[:, 2] - path.contrast[:, 1]
    assert widths[-1] < widths[np.isfinite(widths)][0]
    figure = draw_status_path(path, title="T")
    drawn = figure.axes[0].get_lines()[0].get_ydata()  # the estimate, inside its interval where it has one
    low, high = path.contrast[:, 1], path.contrast[:, 2]
    has = np.isfinite(low) & np.isfinite(high)
    assert np.all((drawn[has] >= low[has]) & (drawn[has] <= high[has]))
    np.testing.assert_array_equal(drawn[~has], path.contrast[~has, 0])
    top = status_path(pairs, "top:2", level=0.9, looks=4)
    assert np.isfinite(top.estimate[-1]).all() and np.all(top.ci_low[-1] <= top.ci_high[-1])
    assert draw_status_path(top).axes[0].get_lines()


def test_a_task_declares_its_question_and_the_report_states_the_answer():
    from debias.config.settings import schema_problem
    from debias.report.preferences import _status_lines
    from debias.tables.status import status_summary, status_table

    config = {"results_dir": "r", "preferences": {"t": {"label": "T", "battles": "b.csv", "question": "top:2"}}}
    assert schema_problem(config) is None
    config["preferences"]["t"]["question"] = "top:0"
    assert "question" in schema_problem(config)
    frame = arena_like()
    pairs = debias.read_pairs(frame, item="q", system_a="A", system_b="B", verdict="winner")
    state = pairs_status(pairs, "top:1", level=0.9)
    table = status_table(state)
    assert list(table.columns)[:3] == ["system", "versus", "estimate"] and len(table) == len(state.rows)
    summary = status_summary(state)
    assert summary["resolved"] is False and summary["answer"].startswith("unresolved so far")
    (line,) = _status_lines(summary, "tables")
    assert "Question `top:1`: unresolved so far" in line and "more votes" in line and "level 0.9" in line
    settled = status_summary(pairs_status(pairs, "top:2", level=0.9))
    (line,) = _status_lines(settled, "tables")
    assert "Question `top:2`: top 2: s0, s1" in line and "more votes" not in line


def test_a_paired_difference_on_shared_items_uses_their_covariance():
    """Two systems rated on the same items: the item effect cancels in the difference, so its
    sequence settles what independent samples of the same size could not."""
    from debias.stats.common.joint import shared_item_covariance

    rng = np.random.default_rng(4)
    n = 400
    item = rng.normal(scale=2.0, size=n)
    terms = [3.0 + item + rng.normal(scale=0.3, size=n), 3.1 + item + rng.normal(scale=0.3, size=n)]
    ids = [np.arange(n), np.arange(n)]
    variances = [t.var(ddof=1) / n for t in terms]
    shared = shared_item_covariance(terms, ids, variances)
    independent = np.diag(variances)

    def ratings(cov):
        s = np.sqrt(np.diag(cov))
        z = np.zeros(2)
        return JointEstimate(
            "mean", "mean", ("a", "b"), np.array([t.mean() for t in terms]), cov, s, z, z, 0.9,
            np.array([n, n]), np.zeros(2, int), np.zeros(2, int), ("", ""), np.zeros(0),
        )  # fmt: skip

    paired = question_status(ratings(shared), "better:b,a", level=0.9)
    apart = question_status(ratings(independent), "better:b,a", level=0.9)
    assert paired.resolved and paired.answer == "b better" and paired.rows[0].votes == n
    assert not apart.resolved
    assert paired.rows[0].ci_high - paired.rows[0].ci_low < 0.2 * (apart.rows[0].ci_high - apart.rows[0].ci_low)


def test_the_status_figure_draws_an_estimate_outside_the_range_at_its_clipped_interval():
    from debias.plots.sequences import _inside

    estimate = np.array([-0.05, 0.4, 1.2, 0.3])
    low = np.array([0.0, 0.2, 0.9, np.nan])
    high = np.array([0.3, 0.6, 1.0, np.nan])
    np.testing.assert_array_equal(_inside(estimate, low, high), [0.0, 0.4, 1.0, 0.3])


def test_a_settled_top_k_is_listed_best_first():

    systems = ("a1", "a2", "a3", "b", "c")
    estimate = np.array([0.60, 0.80, 0.70, 0.20, 0.10])
    n = np.full(5, 5000)
    joint = JointEstimate(
        "win_rate", "human", systems, estimate, np.eye(5) * 1e-6, np.full(5, 1e-3), estimate - 0.01,
        estimate + 0.01, 0.9, n, np.zeros(5, int), np.zeros(5, int), ("",) * 5, np.zeros(0),
    )  # fmt: skip
    state = question_status(joint, "top:3", level=0.9)
    assert state.resolved and state.answer == "top 3: a2, a3, a1"


def test_status_says_what_a_vote_is_and_counts_verdicts_beside_it(tmp_path, capsys):
    rows = [
        {"q": f"q{i}", "A": "xyz"[i % 3], "B": "yzx"[i % 3], "winner": ["a", "b", "tie"][(i + r) % 3], "r": f"r{r}"}
        for i in range(60)
        for r in range(2)
    ]
    path = write(pd.DataFrame(rows), tmp_path / "raters.csv")
    assert main(["status", path, *ARGS, "--rater", "r", "--question", "top:1"]) == 0
    assert "60 votes (battles with a human verdict, 120 human verdicts)" in capsys.readouterr().err
    single = write(pd.DataFrame(rows[::2]).drop(columns="r"), tmp_path / "single.csv")
    assert main(["status", single, *ARGS, "--question", "top:1"]) == 0
    assert "60 votes (battles with a human verdict)" in capsys.readouterr().err


def test_a_status_path_says_when_the_table_looks_sorted_by_pair():
    from debias.stats.preferences.status import arrival_order_note, status_path

    rng = np.random.default_rng(3)
    a = np.repeat(["x", "x", "y"], 100)
    b = np.repeat(["y", "z", "z"], 100)
    human = rng.choice([1.0, 0.0, 0.5], 300)
    sorted_pairs = JudgedPairs.from_arrays(a, b, human)
    note = arrival_order_note(sorted_pairs)
    assert "sorted by pair of systems" in note and "shuffle" in note
    assert status_path(sorted_pairs, "top:1", level=0.9, looks=3).note == note
    order = rng.permutation(300)
    assert arrival_order_note(JudgedPairs.from_arrays(a[order], b[order], human[order])) == ""
