"""What a status estimates while `next` chooses the votes: the table's own design (each pair's
judged battles weighted back to its share of the table), a union bound fixed by the question,
`within:W` votes sent to the widest systems, the votes guide in all the votes of the next
batches, and the rows best first."""

from __future__ import annotations

import numpy as np
import pytest

from debias.data import JudgedPairs
from debias.stats.common.joint import JointEstimate
from debias.stats.common.sequential import contrast_sequences
from debias.stats.common.status import plan_votes
from debias.stats.preferences.allocation import open_battles, stream_shares
from debias.stats.preferences.battles import Battles
from debias.stats.preferences.bradley_terry import strength_estimate
from debias.stats.preferences.status import pairs_status
from debias.stats.preferences.win_rate import win_rate_estimate

S = 5


def world(seed=1, n=3000, oversample=0.6, judge_noise=0.0):
    """Battles of S systems with pair-specific win probabilities (not Bradley-Terry), human
    verdicts on a sample that over-represents system 0's pairs, and one judge."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, S, n)
    b = (a + rng.integers(1, S, n)) % S
    strength = np.array([0.5, 0.2, 0.0, -0.1, -0.6])
    p = 1 / (1 + np.exp(-(strength[a] - strength[b]))) + 0.1 * ((a + b) % 2 - 0.5)
    verdict = (rng.random(n) < p).astype(float)
    judge = np.where(rng.random(n) < judge_noise, 1.0 - verdict, verdict)
    labelled = rng.random(n) < np.where((a == 0) | (b == 0), oversample, 0.1)
    names = tuple(f"s{i}" for i in range(S))
    sample = JudgedPairs(names, a, b, verdict[labelled], labelled.astype(np.int64), ("j",), judge[:, None])
    full = JudgedPairs(names, a, b, verdict, np.ones(n, dtype=np.int64), ("j",), judge[:, None])
    return sample, full, (a, b, verdict, labelled)


def test_a_pool_weighted_win_rate_is_the_post_stratified_mean_of_a_literal_loop():
    sample, _, (a, b, verdict, labelled) = world()
    weighted = win_rate_estimate(Battles.of(sample, pool_weighted=True), "human", level=0.9).estimate
    for s in range(S):
        total = weight = 0.0
        for t in range(S):
            pair = ((a == s) & (b == t)) | ((a == t) & (b == s))
            if s == t or not (pair & labelled).any():
                continue
            judged = pair & labelled
            score = np.where(a[judged] == s, verdict[judged], 1.0 - verdict[judged])
            total += pair.sum() * score.mean()
            weight += pair.sum()
        assert weighted[s] == pytest.approx(total / weight, abs=1e-12)
    plain = win_rate_estimate(Battles.of(sample), "human", level=0.9).estimate
    assert np.max(np.abs(plain - weighted)) > 0.03  # the oversampling moved the unweighted mean


def test_weighting_changes_nothing_for_people_when_every_battle_is_judged():
    _, full, _ = world()
    for estimate in (win_rate_estimate, strength_estimate):
        plain = estimate(Battles.of(full), "human", level=0.9)
        weighted = estimate(Battles.of(full, pool_weighted=True), "human", level=0.9)
        np.testing.assert_allclose(weighted.estimate, plain.estimate, atol=1e-10)
        np.testing.assert_allclose(weighted.covariance, plain.covariance, atol=1e-12)


@pytest.mark.parametrize("estimate", [win_rate_estimate, strength_estimate])
def test_with_a_judge_that_is_always_right_ppi_recovers_the_whole_tables_value_under_any_sampling(estimate):
    sample, full, _ = world()
    truth = estimate(Battles.of(full), "human", level=0.9).estimate
    weighted = estimate(Battles.of(sample, pool_weighted=True), "ppi++:j", level=0.9).estimate
    plain = estimate(Battles.of(sample), "ppi++:j", level=0.9).estimate
    np.testing.assert_allclose(weighted, truth, atol=1e-6)
    assert np.max(np.abs(plain - truth)) > 0.01  # unweighted, the pool is the unjudged battles' mix


def test_a_status_is_on_the_tables_design_so_an_oversampled_system_does_not_move_the_others():
    sample, full, _ = world(n=20000)
    truth = win_rate_estimate(Battles.of(full), "human", level=0.9).estimate
    state = pairs_status(sample, "top:1", level=0.9, estimator="human")
    rows = {r.first: r for r in state.rows if not r.second}
    for i, name in enumerate(sample.systems):
        assert rows[name].ci_low <= truth[i] <= rows[name].ci_high
    plain = win_rate_estimate(Battles.of(sample), "human", level=0.9)
    assert np.any(np.abs(plain.estimate - truth) > 3 * plain.se)  # what an unweighted status printed


def test_the_union_bound_counts_every_contrast_of_the_question_even_without_an_estimate():
    estimate = np.array([0.6, 0.5, np.nan, 0.4])
    covariance = np.diag([1e-3, 1e-3, np.nan, 1e-3])
    se = np.sqrt(np.diag(covariance))
    joint = JointEstimate(
        "win_rate", "human", ("a", "b", "c", "d"), estimate, covariance, se, estimate - se, estimate + se, 0.9,
        np.full(4, 500), np.zeros(4, int), np.zeros(4, int), ("",) * 4, np.zeros(0),
    )  # fmt: skip
    everything = contrast_sequences(joint, level=0.9)
    assert everything.sequence.tests == 6  # S(S-1)/2, not the 3 contrasts with an estimate
    live = np.zeros((4, 4), dtype=bool)
    live[0, 1] = live[1, 0] = True
    assert contrast_sequences(joint, level=0.9, live=live).sequence.tests == 1


def test_within_sends_the_next_votes_to_the_widest_systems_only():
    rng = np.random.default_rng(3)
    n = 20000
    a = rng.integers(0, S, n)
    b = (a + rng.integers(1, S, n)) % S
    keep = ((a != 4) & (b != 4)) | (rng.random(n) < 0.3)  # system 4 is in few battles
    a, b, n = a[keep], b[keep], int(keep.sum())
    verdict = (rng.random(n) < 0.5).astype(float)
    # and its battles are rarely judged: its interval is the widest by far
    labelled = rng.random(n) < np.where((a == 4) | (b == 4), 0.03, 0.5)
    names = tuple(f"s{i}" for i in range(S))
    pairs = JudgedPairs(names, a, b, verdict[labelled], labelled.astype(np.int64), (), np.zeros((n, 0)))
    state = pairs_status(pairs, "within:0.05", level=0.9, estimator="human")
    assert not state.resolved
    still_open = {r.first for r in state.rows if not r.resolved}
    assert "s4" in still_open and len(still_open) >= 2  # another system is open too, but far less wide
    touched = state.open_pairs.any(axis=1)
    assert touched[4] and state.open_pairs[4].sum() == S - 1
    assert not state.open_pairs[np.ix_([0, 1, 2, 3], [0, 1, 2, 3])].any()
    assert state.open_systems.tolist() == [False, False, False, False, True]
    eligible = open_battles(pairs, state.open_systems)
    assert np.all((a[eligible] == 4) | (b[eligible] == 4))


def test_a_next_vote_lands_in_each_systems_battles_at_its_share_of_the_eligible_battles():
    sample, _, (a, b, _, labelled) = world(n=4000)
    targets = np.array([False, True, False, False, True])
    share = stream_shares(sample, targets)
    eligible = ~labelled & (targets[a] | targets[b])
    for s in range(S):
        assert share[s] == pytest.approx(np.mean((a[eligible] == s) | (b[eligible] == s)), abs=1e-12)
    assert share.sum() == pytest.approx(2.0)  # every battle has two systems
    ones = np.ones(a.size, np.int64)
    everything = JudgedPairs(sample.systems, a, b, ones.astype(float), ones, (), np.zeros((a.size, 0)))
    assert np.all(stream_shares(everything, targets) == 0.0)  # nothing left to draw


def test_the_plan_adds_up_the_systems_needs_over_what_a_vote_gives_them_and_never_counts_a_system_twice():
    need, share = [300.0, 100.0, 0.0, np.nan], [0.6, 0.5, 0.9, 0.2]
    # 1.1 system-votes a vote now, the tenth above one falling to none as the needs are met (the
    # share of a system in no need is wasted)
    assert plan_votes(need, share) == np.ceil(400 / 1.05)
    assert plan_votes(need) == 300  # where the votes go unknown, each in its own votes: the largest need
    assert plan_votes([300.0, 0.0], [0.1, 0.9]) == 3000  # the batches rarely reach it
    assert plan_votes([300.0, 0.0], [0.0, 1.0]) == np.inf  # nor ever
    assert plan_votes([300.0, np.inf], [0.5, 0.5]) == np.inf
    assert plan_votes([0.0, 0.0], [0.5, 0.5]) == 0 and np.isnan(plan_votes([np.nan], [1.0]))


def joint_of(estimate, n=400, var=4e-4, estimand="win_rate"):
    estimate = np.asarray(estimate, dtype=float)
    k = estimate.size
    covariance = np.diag(np.full(k, var))
    se = np.sqrt(np.diag(covariance))
    return JointEstimate(
        estimand, "human", tuple(f"s{i}" for i in range(k)), estimate, covariance, se, estimate - se, estimate + se,
        0.9, np.full(k, n), np.zeros(k, int), np.zeros(k, int), ("",) * k, np.zeros(0),
    )  # fmt: skip


def test_the_top_k_guide_is_the_plan_over_the_straddling_contrasts_with_the_votes_sent_to_the_most_ambiguous():
    from debias.stats.common.sequential import votes_to_resolve
    from debias.stats.common.status import question_status

    joint = joint_of([0.62, 0.6, 0.57, 0.3])
    asked = []

    def shares(open_systems):
        asked.append(open_systems.copy())
        return np.array([0.6, 0.5, 0.3, 0.6])

    state = question_status(joint, "top:1", level=0.9, shares=shares)
    assert not state.resolved
    # s0 against s1 (gap 0.02) and s2 (0.05) straddle the top 1 and are open; s1 against s2 is open
    # but settles nothing; s3 is surely out
    contrasts = {(r.first, r.second): r for r in state.rows if r.second}
    assert set(contrasts) == {("s0", "s1"), ("s0", "s2")}
    assert state.open_systems.tolist() == [True, True, False, False]  # the lowest lower end: s0 - s1
    assert all(np.array_equal(x, state.open_systems) for x in asked)
    se = np.sqrt(8e-4)  # of a difference; 400 votes behind each contrast, each system's votes too
    # at the root mean square of each gap given its estimate: sqrt(gap^2 + se^2)
    one, two = (votes_to_resolve(np.hypot(0.62 - x, se), se * 20.0, 400.0, alpha=0.1 / 6) - 400.0 for x in (0.6, 0.57))
    need = np.array([one, one, two, 0.0])  # each system: its hardest contrast
    assert state.more_votes == np.ceil(need.sum() / ((1 + 0.6 + 0.5 + 0.3) / 2))
    assert contrasts[("s0", "s1")].more_votes == np.ceil(2 * one / ((1 + 0.6 + 0.5) / 2))
    assert contrasts[("s0", "s2")].more_votes == np.ceil(2 * two / (0.6 + 0.3))  # below one vote's worth


def test_a_strengths_contrast_needs_its_two_systems_votes_to_grow_not_every_vote():
    from debias.stats.common.sequential import votes_to_resolve
    from debias.stats.common.status import question_status

    joint = joint_of([0.3, 0.2, -0.5], n=100, var=2e-3, estimand="strength")
    times = np.full((3, 3), 600.0)  # a strength's sequence counts every vote: 600 in all, 100 of each
    state = question_status(joint, "better:s0,s1", level=0.9, times=times, shares=lambda targets: np.full(3, 0.5))
    (row,) = state.rows
    se = np.sqrt(4e-3)
    grow = (votes_to_resolve(np.hypot(0.1, se), se * np.sqrt(600.0), 600.0, alpha=0.1) - 600.0) / 600.0
    assert row.more_votes == state.more_votes == np.ceil(100 * grow * 2 / 1.0)
    mirrored = question_status(joint, "better:s1,s0", level=0.9, times=times, shares=lambda targets: np.full(3, 0.5))
    assert mirrored.more_votes == state.more_votes and mirrored.rows[0].estimate == pytest.approx(-row.estimate)


def test_rows_come_best_first_and_every_contrast_is_written_better_system_first():
    sample, _, _ = world(n=3000)
    state = pairs_status(sample, "ranks", level=0.9, estimator="human")
    singles = [r for r in state.rows if not r.second]
    estimates = [r.estimate for r in singles]
    assert estimates == sorted(estimates, reverse=True)
    contrasts = [r for r in state.rows if r.second]
    assert contrasts and all(r.estimate >= 0 for r in contrasts)
    assert all(r.ci_low <= r.estimate <= r.ci_high for r in contrasts)
    rank = {r.first: k for k, r in enumerate(singles)}
    assert [(rank[r.first], rank[r.second]) for r in contrasts] == sorted(
        (rank[r.first], rank[r.second]) for r in contrasts
    )
    asked = pairs_status(sample, "better:s4,s0", level=0.9, estimator="human")
    assert (asked.rows[0].first, asked.rows[0].second) == ("s4", "s0")  # as asked, even if s0 leads


def test_next_falls_back_to_every_open_pairs_systems_and_says_when_nothing_can_move_a_win_rate():
    from dataclasses import replace

    from debias.stats.preferences.allocation import next_battles

    rng = np.random.default_rng(4)
    n = 3000
    a = rng.integers(0, S, n)
    b = (a + rng.integers(1, S, n)) % S
    verdict = (rng.random(n) < 0.5).astype(float)
    labelled = ((a == 0) | (b == 0)) | (rng.random(n) < 0.2)  # every battle of s0 judged
    names = tuple(f"s{i}" for i in range(S))
    pairs = JudgedPairs(names, a, b, verdict[labelled], labelled.astype(np.int64), (), np.zeros((n, 0)))
    state = pairs_status(pairs, "ranks", level=0.9, estimator="human")
    assert not state.resolved and state.open_pairs.any()
    only_s0 = replace(state, open_systems=np.array([True, False, False, False, False]))
    chosen = next_battles(pairs, only_s0, 20, np.random.default_rng(0))
    assert chosen.battles.size == 20 and "drawn among every open pair's systems" in chosen.note
    assert not pairs.labelled[chosen.battles].any()
    # nothing left but battles of systems no open pair touches: a win rate cannot move
    everything = JudgedPairs(names, a, b, verdict, np.ones(n, dtype=np.int64), (), np.zeros((n, 0)))
    spent = replace(pairs_status(everything, "ranks", level=0.9, estimator="human"), resolved=False)
    none = next_battles(everything, spent, 20, np.random.default_rng(0))
    assert none.battles.size == 0 and "nothing left in the pool can settle it" in none.note


def test_a_win_rate_is_never_printed_outside_its_own_interval():
    from debias.stats.common.status import question_status

    estimate = np.array([1.036, 0.5, 0.2])
    covariance = np.diag([4e-4, 4e-4, 4e-4])
    se = np.sqrt(np.diag(covariance))
    joint = JointEstimate(
        "win_rate", "ppi++:j", ("a", "b", "c"), estimate, covariance, se, estimate - se, estimate + se, 0.9,
        np.full(3, 400), np.zeros(3, int), np.zeros(3, int), ("",) * 3, np.zeros(1),
    )  # fmt: skip
    state = question_status(joint, "top:1", level=0.9)
    for row in state.rows:
        assert row.ci_low <= row.estimate <= row.ci_high and 0.0 <= row.ci_low and row.ci_high <= 1.0 + 1e-12
    assert {r.first: r.estimate for r in state.rows if not r.second}["a"] == 1.0


def test_a_win_rate_contrasts_votes_go_where_they_shrink_its_variance_most_drawn_uniformly_within_each_pair():
    from debias.stats.preferences.allocation import contrast_draw, next_battles

    # s0 meets the others 1,000 times, s1 100 times, and s0 meets s1 50 times; nothing judged yet
    rng = np.random.default_rng(5)
    a = np.concatenate([np.zeros(1000, int), np.ones(100, int), np.zeros(50, int)])
    b = np.concatenate([rng.integers(2, S, 1000), rng.integers(2, S, 100), np.ones(50, int)])
    n = a.size
    names = tuple(f"s{i}" for i in range(S))
    labelled = np.zeros(n, dtype=bool)
    labelled[[0, 1000, 1100]] = True  # one vote of each kind, so that a status has an estimate
    pairs = JudgedPairs(names, a, b, np.ones(3), labelled.astype(np.int64), (), np.zeros((n, 0)))
    eligible = np.flatnonzero(~labelled)
    chosen = contrast_draw(pairs, eligible, (0, 1), 60, np.random.default_rng(0))
    assert chosen.size == 60 and np.unique(chosen).size == 60 and not labelled[chosen].any()

    def variance(votes):  # of the difference of the two win rates, every verdict's variance 1/4
        n_i, n_j = 1050.0, 150.0
        low, high = np.minimum(a, b), np.maximum(a, b)
        total = 0.0
        for x, y in {(int(p), int(q)) for p, q in zip(low, high)}:
            pair = (low == x) & (high == y)
            c = pair.sum() * ((x == 0) / n_i + (y == 1 or x == 1) / n_j)
            total += c**2 * 0.25 / (votes[pair].sum() + labelled[pair].sum())
        return total

    drawn = np.zeros(n)
    drawn[chosen] = 1.0
    uniform = np.where(labelled, 0.0, 60.0 / eligible.size)  # a uniform draw's votes on average
    assert variance(drawn) < 0.7 * variance(uniform)
    assert drawn[1100:].sum() > 3 * uniform[1100:].sum()  # the two against each other
    # each win rate's variance shrinks alike: the rarer system gets far more than its share of battles
    assert drawn[1000:1100].sum() > 3 * uniform[1000:1100].sum() and drawn[:1000].sum() < uniform[:1000].sum()
    # within a pair, every eligible battle equally likely: the draws of the direct battles spread over all of them
    direct = [contrast_draw(pairs, eligible, (0, 1), 60, np.random.default_rng(k)) for k in range(200)]
    hits = np.bincount(np.concatenate(direct), minlength=n)[1101:]
    assert hits.min() > 0.5 * hits.mean() and hits.max() < 1.5 * hits.mean()
    # next sends a better:A,B question's win-rate votes this way, and a strength's uniformly
    state = pairs_status(pairs, "better:s0,s1", level=0.9, estimator="human")
    assert state.open_systems.tolist() == [True, True, False, False, False]
    picked = next_battles(pairs, state, 60, np.random.default_rng(0))
    np.testing.assert_array_equal(picked.battles, chosen)
    strengths = pairs_status(pairs, "better:s0,s1", level=0.9, estimand="strength", estimator="human")
    assert (next_battles(pairs, strengths, 60, np.random.default_rng(0)).battles >= 1100).sum() < 10


def test_an_estimated_gap_of_0_still_gets_a_finite_guide_at_the_gaps_root_mean_square():
    from debias.stats.common.sequential import votes_to_resolve
    from debias.stats.common.status import question_status

    joint = joint_of([0.5, 0.5, 0.1])  # s0 and s1 estimated equal
    state = question_status(joint, "better:s0,s1", level=0.9)
    (row,) = state.rows
    se = np.sqrt(8e-4)
    own = votes_to_resolve(se, se * 20.0, 400.0, alpha=0.1) - 400.0  # the gap plugged in: sqrt(0 + se^2)
    assert np.isfinite(row.more_votes) and row.more_votes == state.more_votes == np.ceil(own)
