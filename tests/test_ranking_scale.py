"""The simulated critical value at scale equals the literal computation it replaces: the same
draws, every pair's standardised contrast from one matrix product, the maximum per draw."""

from __future__ import annotations

import numpy as np
import pytest

from debias.stats.common import ranking
from debias.stats.common.ranking import (
    BLOCK_VALUES,
    DEFAULT_SEED,
    _contrast_quantile,
    _live_contrasts,
    _pair_maxima,
    _step_down_values,
    rank_sets,
)


def _literal_quantile(sigma, level, n_draws, rng, live, df=None) -> float:
    """Every live pair's draws materialised (blocks of draws, one matrix product each). ``live``:
    a mask over the pairs i < j (|Z_i - Z_j| / s_ij), or an (S, S) mask of ordered pairs (a, b),
    each a column (Z_a - Z_b) / s_ab of its own, the maximum taken with 0."""
    s = sigma.shape[0]
    if live.ndim == 2:
        a, b = np.nonzero(live)
        n_pairs = int(np.count_nonzero(np.triu(live | live.T)))  # the blocks count pairs, not ways
        signed = True
    else:
        a, b = (index[live] for index in np.triu_indices(s, k=1))
        n_pairs, signed = a.size, False
    sd = np.sqrt(np.maximum(sigma[a, a] + sigma[b, b] - 2 * sigma[a, b], 0.0))
    contrast = np.zeros((s, a.size))
    contrast[a, np.arange(a.size)] = 1.0 / sd
    contrast[b, np.arange(a.size)] = -1.0 / sd
    values, vectors = np.linalg.eigh(sigma)
    loading = (vectors * np.sqrt(np.clip(values, 0.0, None))).T @ contrast
    block = max(1, BLOCK_VALUES // n_pairs)
    maxima = np.empty(n_draws)
    for start in range(0, n_draws, block):
        stop = min(start + block, n_draws)
        eps = rng.standard_normal((stop - start, s))
        scale = 1.0 if df is None else np.sqrt(rng.chisquare(df, stop - start) / df)[:, None]
        if signed:
            maxima[start:stop] = np.maximum(np.max((eps @ loading) / scale, axis=1), 0.0)
        else:
            maxima[start:stop] = np.max(np.abs(eps @ loading) / scale, axis=1)
    return float(np.quantile(maxima, level, method="higher"))


def _covariance(rng, s: int, kind: str) -> np.ndarray:
    spread = np.exp(rng.normal(0.0, 1.0, s))  # log-normal: a few systems with many battles
    if kind == "independent":
        return np.diag(spread**2) * 1e-3
    if kind == "centred":  # strengths centred to mean 0: singular, correlated
        base = np.diag(spread**2)
        centre = np.eye(s) - 1.0 / s
        return centre @ base @ centre * 1e-3
    factor = rng.normal(size=(s, 3))
    return (np.diag(spread**2) + factor @ factor.T) * 1e-3


def _draws_and_weights(rng, sigma, n):
    """n Gaussian draws of covariance sigma (n, S) and every pair's 1 / s_ij (S, S; 0 on the diagonal)."""
    values, vectors = np.linalg.eigh(sigma)
    z = rng.standard_normal((n, sigma.shape[0])) @ (vectors * np.sqrt(np.clip(values, 0.0, None))).T
    sd = np.sqrt(np.maximum(np.diag(sigma)[:, None] + np.diag(sigma)[None, :] - 2 * sigma, 0.0))
    return z, np.where(np.eye(sigma.shape[0], dtype=bool), 0.0, 1.0 / np.where(sd > 0, sd, 1.0))


@pytest.mark.parametrize("kind", ["independent", "centred", "factor"])
@pytest.mark.parametrize(("s", "df"), [(3, None), (20, None), (20, 250.0), (45, None), (45, 250.0)])
def test_fast_critical_value_equals_the_literal_one(kind, s, df):
    rng = np.random.default_rng(s)
    sigma = _covariance(rng, s, kind)
    live = _live_contrasts(sigma)
    if s > 3:
        live &= rng.random(live.size) < 0.8  # some pairs already declared (a step-down's later step)
    for level in (0.8, 0.9, 0.99):
        fast = _contrast_quantile(sigma, level, 3000, np.random.default_rng(7), live, df)
        literal = _literal_quantile(sigma, level, 3000, np.random.default_rng(7), live, df)
        assert fast == pytest.approx(literal, rel=1e-12, abs=0)


def test_pair_maxima_are_exact_at_and_above_the_quantile():
    """Against every pair's value computed the same way: equal (not merely close) from the
    quantile's draw up, below it elsewhere."""
    rng = np.random.default_rng(11)
    s, n = 60, 4000
    sigma = _covariance(rng, s, "factor")
    z, inverse = _draws_and_weights(rng, sigma, n)
    inverse[rng.random((s, s)) < 0.3] = 0.0
    inverse = np.minimum(inverse, inverse.T)  # pairs left out, both ways
    scale = np.sqrt(rng.chisquare(150.0, n) / 150.0)
    every = (np.abs(z[:, :, None] - z[:, None, :]) * inverse).reshape(n, -1).max(axis=1) / scale
    rank = int(np.quantile(np.arange(n), 0.9, method="higher"))
    fast = _pair_maxima(z, inverse, scale, rank)
    cut = np.sort(every)[rank]
    assert np.sort(fast)[rank] == cut
    np.testing.assert_array_equal(fast[every >= cut], every[every >= cut])
    assert np.all(fast[every < cut] < cut)
    assert np.all(fast <= every)


@pytest.mark.parametrize(("s", "df"), [(30, None), (12, None), (12, 250.0)])
def test_step_down_equals_the_literal_steps_and_leaves_the_generator_as_they_do(s, df):
    """The literal steps over the ordered pairs: one column per null theta_a <= theta_b, a
    rejected null leaves, the other way of its pair stays; the same draws at every step."""
    rng = np.random.default_rng(3)
    sigma = _covariance(rng, s, "centred")
    theta = rng.normal(0.0, 0.15, s)
    given = np.random.default_rng(DEFAULT_SEED)
    first, c = _step_down_values(theta, sigma, 0.9, 2000, given, df)
    literal_rng = np.random.default_rng(DEFAULT_SEED)
    state = literal_rng.bit_generator.state
    i, j = np.triu_indices(s, k=1)
    remaining = np.zeros((s, s), dtype=bool)
    live = _live_contrasts(sigma)
    remaining[i[live], j[live]] = remaining[j[live], i[live]] = True
    t = theta[:, None] - theta[None, :]
    sd = np.sqrt(np.maximum(np.diag(sigma)[:, None] + np.diag(sigma)[None, :] - 2 * sigma, 0.0))
    steps = 0
    literal_first = None
    while True:
        literal_rng.bit_generator.state = state
        literal = _literal_quantile(sigma, 0.9, 2000, literal_rng, remaining, df)
        literal_first = literal if literal_first is None else literal_first
        declared = remaining & (t > literal * sd)
        steps += 1
        if not declared.any():
            break
        remaining &= ~declared
        assert not np.any(declared & declared.T)  # never both ways
    assert steps >= 2  # the case has a second step
    assert c == pytest.approx(literal, rel=1e-12, abs=0)
    assert first == pytest.approx(literal_first, rel=1e-12, abs=0)
    assert given.bit_generator.state == literal_rng.bit_generator.state


@pytest.mark.parametrize(
    "setting",
    [
        {"RADIUS_ROUNDS": 0, "BLOCK_VALUES": 300},  # radii at their feasible start, small blocks
        {"ENUMERATED_SHARE": 0.0},  # every pair of the draws the bound does not settle
        {"ENUMERATED_SHARE": np.inf},  # the disjoint pairs always enumerated
        {"THRESHOLD_MARGIN": 0.0},  # the threshold at the quantile's draw
    ],
)
def test_rank_sets_at_two_hundred_systems_do_not_depend_on_the_bound(monkeypatch, setting):
    """The intervals' radii, the threshold, the blocks of candidate pairs and the choice between
    enumerating the disjoint pairs and computing every pair change the work, not the result."""
    rng = np.random.default_rng(5)
    s = 200
    sigma = _covariance(rng, s, "factor")
    theta = rng.normal(0.0, 0.2, s)
    first = rank_sets(theta, sigma, level=0.9, n_draws=500, step_down=True)
    for name, value in setting.items():
        monkeypatch.setattr(ranking, name, value)
    again = rank_sets(theta, sigma, level=0.9, n_draws=500, step_down=True)
    assert first.critical_value == again.critical_value
    assert first.first_critical_value == again.first_critical_value
    np.testing.assert_array_equal(first.rank_low, again.rank_low)
    np.testing.assert_array_equal(first.rank_high, again.rank_high)


@pytest.mark.parametrize("kind", ["independent", "centred", "factor", "twins"])
def test_interval_radii_fit_inside_every_live_pair(kind):
    """h_i + h_j < s_ij for every pair still in play, none for a system in no pair, and the
    radii of equal independent systems reach half of their pairs' s_ij."""
    rng = np.random.default_rng(17)
    s = 40
    sigma = _covariance(rng, s, "factor" if kind == "twins" else kind)
    if kind == "twins":  # two systems almost the same: a tiny s_ij
        sigma[1], sigma[:, 1] = sigma[0], sigma[:, 0]
        sigma[1, 1] += 1e-9
    sd = np.sqrt(np.maximum(np.diag(sigma)[:, None] + np.diag(sigma)[None, :] - 2 * sigma, 0.0))
    live = ~np.eye(s, dtype=bool) & (rng.random((s, s)) < 0.7) & (sd > 0)
    live &= live.T
    live[5, :] = live[:, 5] = False  # a system whose pairs are all declared
    inverse = np.where(live, 1.0 / np.where(sd > 0, sd, 1.0), 0.0)
    radius = ranking._interval_radii(inverse)
    assert np.isnan(radius[5]) and not np.isnan(np.delete(radius, 5)).any()
    total = radius[:, None] + radius[None, :]
    assert np.all(total[live] < sd[live])
    equal = ranking._interval_radii(np.where(np.eye(8, dtype=bool), 0.0, 1.0 / np.sqrt(2.0)))
    np.testing.assert_allclose(equal, np.sqrt(2.0) / 2, rtol=1e-8)


@pytest.mark.parametrize("kind", ["twins", "centred"])
def test_fast_critical_value_with_nearly_equal_systems_equals_the_literal_one(kind):
    """Two systems almost the same force small radii on their neighbours (a loose bound): the
    value stays the literal one."""
    rng = np.random.default_rng(23)
    s = 30
    sigma = _covariance(rng, s, "factor" if kind == "twins" else kind)
    sigma[1], sigma[:, 1] = sigma[0], sigma[:, 0]
    sigma[1, 1] += 1e-7
    live = _live_contrasts(sigma)
    for level in (0.5, 0.9):
        fast = _contrast_quantile(sigma, level, 2000, np.random.default_rng(3), live)
        literal = _literal_quantile(sigma, level, 2000, np.random.default_rng(3), live)
        assert fast == pytest.approx(literal, rel=1e-12, abs=0)


@pytest.mark.parametrize("left_out", [0.01, 0.6])
def test_pair_maxima_of_a_later_step_equal_a_fresh_computation(left_out):
    """A call on the same draws with pairs left out (few: the draws whose maximum's pair went
    are recomputed; many: the order statistic falls below the bound and all is computed again)."""
    rng = np.random.default_rng(13)
    s, n = 50, 3000
    sigma = _covariance(rng, s, "centred")
    z, inverse = _draws_and_weights(rng, sigma, n)
    rank = int(np.quantile(np.arange(n), 0.9, method="higher"))
    cache: dict = {}
    _pair_maxima(z, inverse, None, rank, cache)
    later = inverse.copy()
    gone = np.triu(rng.random((s, s)) < left_out, k=1)
    later[gone | gone.T] = 0.0
    again = _pair_maxima(z, later, None, rank, cache)
    fresh = _pair_maxima(z, later, None, rank, {})
    every = (np.abs(z[:, :, None] - z[:, None, :]) * later).reshape(n, -1).max(axis=1)
    cut = np.sort(every)[rank]
    assert np.sort(again)[rank] == np.sort(fresh)[rank] == cut
    np.testing.assert_array_equal(again[every >= cut], every[every >= cut])


@pytest.mark.parametrize("df", [None, 250.0])
def test_every_pair_of_the_unsettled_draws_gives_the_literal_value(monkeypatch, df):
    """The bound's fallback (every live pair of the draws it does not settle, their pair
    unknown) gives the literal critical value, and a step-down step after it too."""
    monkeypatch.setattr(ranking, "ENUMERATED_SHARE", 0.0)
    rng = np.random.default_rng(29)
    s = 45
    sigma = _covariance(rng, s, "factor")
    live = _live_contrasts(sigma)
    cache: dict = {}
    fast = _contrast_quantile(sigma, 0.9, 3000, np.random.default_rng(7), live, df, cache)
    literal = _literal_quantile(sigma, 0.9, 3000, np.random.default_rng(7), live, df)
    assert fast == pytest.approx(literal, rel=1e-12, abs=0)
    later = live & (rng.random(live.size) < 0.9)
    fast = _contrast_quantile(sigma, 0.9, 3000, np.random.default_rng(7), later, df, cache)
    literal = _literal_quantile(sigma, 0.9, 3000, np.random.default_rng(7), later, df)
    assert fast == pytest.approx(literal, rel=1e-12, abs=0)


@pytest.mark.parametrize("kind", ["independent", "factor"])
@pytest.mark.parametrize(("s", "df"), [(3, None), (20, None), (45, None), (45, 250.0)])
def test_fast_critical_value_over_ordered_pairs_equals_the_literal_one(kind, s, df):
    """A step-down's later step: some pairs in play one way only (their rejected way left out),
    some both ways, some neither: every path (every pair, the interval bound, the multivariate t)
    gives the literal maximum over the ordered pairs."""
    rng = np.random.default_rng(s + 1)
    sigma = _covariance(rng, s, kind)
    i, j = np.triu_indices(s, k=1)
    ordered = np.zeros((s, s), dtype=bool)
    ordered[i, j] = ordered[j, i] = True
    one_way = rng.random(i.size) < 0.5
    flip = rng.random(i.size) < 0.5
    a, b = np.where(flip, j, i)[one_way], np.where(flip, i, j)[one_way]
    ordered[a, b] = False  # one way of half the pairs
    neither = rng.random(i.size) < 0.1
    ordered[i[neither], j[neither]] = ordered[j[neither], i[neither]] = False
    assert np.any(ordered & ~ordered.T)
    for level in (0.8, 0.9):
        fast = _contrast_quantile(sigma, level, 3000, np.random.default_rng(7), ordered, df)
        literal = _literal_quantile(sigma, level, 3000, np.random.default_rng(7), ordered, df)
        assert fast == pytest.approx(literal, rel=1e-12, abs=0)


def test_pair_maxima_of_a_later_step_with_one_way_left_out_equal_a_fresh_computation():
    """The draws whose maximum's pair lost one way are recomputed: the cached later step is the
    fresh one, and both are the literal maxima over the ordered pairs from the quantile's draw up."""
    rng = np.random.default_rng(31)
    s, n = 50, 3000
    sigma = _covariance(rng, s, "factor")
    z, inverse = _draws_and_weights(rng, sigma, n)
    rank = int(np.quantile(np.arange(n), 0.9, method="higher"))
    cache: dict = {}
    _pair_maxima(z, inverse, None, rank, cache)
    later = inverse.copy()
    later[np.triu(rng.random((s, s)) < 0.3, k=1)] = 0.0  # the way i - j of 30% of the pairs i < j
    again = _pair_maxima(z, later, None, rank, cache)
    fresh = _pair_maxima(z, later, None, rank, {})
    difference = z[:, :, None] - z[:, None, :]  # z_a - z_b
    every = np.maximum((difference * later).reshape(n, -1).max(axis=1), 0.0)
    cut = np.sort(every)[rank]
    assert np.sort(again)[rank] == np.sort(fresh)[rank] == cut
    np.testing.assert_array_equal(again[every >= cut], every[every >= cut])


def test_studentised_one_sided_contrast_of_two_systems_is_students_one_sided_t():
    """One way of one pair in play: the level quantile of (Z_0 - Z_1) / s, Gaussian and with a
    Wishart-estimated covariance of 5 degrees of freedom (Student's t quantile, one-sided)."""
    from scipy.stats import norm, t

    ordered = np.array([[False, True], [False, False]])
    gaussian = _contrast_quantile(np.eye(2), 0.9, 100_000, np.random.default_rng(2), ordered)
    student = _contrast_quantile(np.eye(2), 0.9, 100_000, np.random.default_rng(2), ordered, 5.0)
    assert gaussian == pytest.approx(norm.ppf(0.9), abs=0.02)  # 1.282
    assert student == pytest.approx(t.ppf(0.9, 5), abs=0.03)  # 1.476
    both = _contrast_quantile(np.eye(2), 0.9, 100_000, np.random.default_rng(2), ordered | ordered.T, 5.0)
    assert both == pytest.approx(t.ppf(0.95, 5), abs=0.03)  # 2.015: two-sided
