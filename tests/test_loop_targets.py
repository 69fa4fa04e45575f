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


def test_the_votes_guide_counts_all_the_votes_of_the_next_batches():
    sample, _, _ = world(n=4000)
    state = pairs_status(sample, "ranks", level=0.9, estimator="human")
    contrast, system = stream_shares(sample, state.open_systems, "win_rate")
    assert np.all((contrast >= 0) & (contrast <= 1 + 1e-12)) and np.all(system <= 1 + 1e-12)
    own = pairs_status(sample, "ranks", level=0.9, estimator="human")
    names = list(sample.systems)
    for row in own.rows:
        if row.second and not row.resolved and np.isfinite(row.more_votes):
            share = contrast[names.index(row.first), names.index(row.second)]
            assert 0 < share < 1 and row.more_votes >= 1
    opened = [r.more_votes for r in state.rows if r.second and not r.resolved and np.isfinite(r.more_votes)]
    assert state.more_votes == max(opened)
    strengths = stream_shares(sample, state.open_systems, "strength")[0]
    assert np.all(strengths == 1.0)  # every vote counts in a strength's stream


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
