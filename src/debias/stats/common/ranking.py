r"""Simultaneous rank-sets: which ranks each system may take, all at once, at a stated level.

Given estimates :math:`\hat\theta \in \mathbb{R}^S` of S systems' scores and an estimate
:math:`\hat\Sigma` of their joint covariance (systems judged on the same items, or compared in
the same battles, are dependent: the off-diagonal terms matter), a *rank-set* of system i is an
interval of ranks :math:`[l_i, u_i]` (rank 1 = best). The rank-sets are *simultaneous* at level
:math:`1 - \alpha` when

.. math::

    P\bigl(l_i \le r_i \le u_i \text{ for every } i\bigr) \ge 1 - \alpha ,

with :math:`r_i = 1 + \#\{j : \theta_j \text{ better than } \theta_i\}` the true rank.

Construction (:func:`rank_sets`): simultaneous confidence intervals for all
:math:`P = S(S-1)/2` pairwise differences :math:`\delta_{ij} = \theta_i - \theta_j`,

.. math::

    \hat\delta_{ij} \pm c_{1-\alpha}\,\hat s_{ij}, \qquad
    \hat s_{ij}^2 = \hat\Sigma_{ii} + \hat\Sigma_{jj} - 2\hat\Sigma_{ij}, \qquad
    c_{1-\alpha} = q_{1-\alpha}\Bigl(\max_{i<j} \frac{|Z_i - Z_j|}{s_{ij}}\Bigr),\;
    Z \sim N(0, \hat\Sigma),

the max-|t| (Tukey-Dunnett type) critical value of the pairwise contrasts under the full
covariance, computed by simulating the Gaussian maximum (:func:`max_contrast_quantile`). On the
event that every interval holds, a system j whose interval lies wholly on the better side of i
is truly better, so

.. math::

    l_i = 1 + \#\{j : j \text{ surely better than } i\}, \qquad
    u_i = S - \#\{j : i \text{ surely better than } j\}

contain :math:`r_i` for every i at once (:func:`rank_bounds`). Because
:math:`c_{1-\alpha}` is the quantile of the maximum of the P contrasts that matter, and not of
the whole S-dimensional ellipsoid, it is smaller than the chi-square projection
:math:`\sqrt{\chi^2_{S,1-\alpha}}` of Chatzi et al. (2024), and the rank-sets are tighter at the
same simultaneous level. Ties in the point estimates are never split: tied systems are never
"surely" ordered, and :attr:`RankSets.tied_with` names them.

References
----------
J. W. Tukey. The problem of multiple comparisons. Unpublished manuscript, Princeton University,
1953; in *The Collected Works of John W. Tukey* VIII, Chapman & Hall, 1994.

T. Hothorn, F. Bretz and P. Westfall. Simultaneous inference in general parametric models.
*Biometrical Journal* 50(3):346-363, 2008.

I. Chatzi, E. Straitouri, S. Thejaswi and M. Gomez-Rodriguez. Prediction-powered ranking of
large language models. In *Advances in Neural Information Processing Systems 37 (NeurIPS)*, 2024.

D. Klein, Y. Yang and A. Mehrotra. Joint confidence sets for the ranks of populations
(Bonferroni-type product sets). *Journal of Computational and Graphical Statistics*
29(3):543-551, 2020.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from debias.stats.common.intervals import check_level
from debias.stats.common.joint import TOLERANCE, check_joint
from debias.stats.common.threads import bounded_blas

__all__ = [
    "RankSets",
    "max_contrast_quantile",
    "point_ranks",
    "rank_bounds",
    "rank_sets",
    "separation_factor",
    "top_k_factor",
]

#: Default number of Gaussian draws for the critical value (Monte-Carlo error of its level ~0.002).
N_DRAWS = 20_000
#: Draws per block of the simulation (bounds the memory of S(S-1)/2 contrasts per draw).
BLOCK_VALUES = 4_000_000
#: Rounds that widen the intervals of the bound that spares the simulated maximum most pairs
#: (:func:`_interval_radii`), and the relative margin that keeps the bound true after rounding.
RADIUS_ROUNDS = 30
RADIUS_SLACK = 1e-9
#: Up to this many pairs left in play the simulated maximum takes every one of them in every
#: draw; beyond it the interval bound of :func:`_pair_maxima` spares most of them.
DIRECT_PAIRS = 300
#: The bound's threshold is the lower bounds' order statistic this share of the draws below the
#: quantile's: the draws above it get their exact maximum, and the step-down's next steps, whose
#: quantiles are lower, then mostly find it still below theirs (:func:`_pair_maxima`).
THRESHOLD_MARGIN = 0.2
#: The same share when a later step of the step-down computes everything again (its quantile
#: fell below the first threshold): the steps after it lower the quantile far less.
REFRESH_MARGIN = 0.05
#: Values per block of draws in the bound's passes over every draw (1 MB: they stay in cache).
CACHE_VALUES = 2**17
#: Above this share of the live pairs left to compute in the draws the bound does not settle,
#: every live pair of those draws is computed (one system at a time, about 30 times cheaper a
#: pair than enumerating the disjoint ones).
ENUMERATED_SHARE = 1 / 30
#: Seed of the default generator: the critical value is deterministic unless ``rng`` is given.
DEFAULT_SEED = 20_240_725

#: Above this many degrees of freedom the studentised critical value draws one chi-square per
#: draw instead of a Wishart matrix (:func:`max_contrast_quantile`).
WISHART_MAX_DF = 100
#: Above this many multiply-adds (draws x degrees of freedom x systems x contrasts, about 5 s
#: of one core) the Wishart studentisation gives way to the union bound over the contrasts in
#: play, each a Student t (:func:`_union_t_quantile`): with 60 systems and 60 shared items the
#: draws would cost about 15 s for each step of a step-down, with 200 systems over an hour.
WISHART_MAX_COST = 2e10


@dataclass(frozen=True)
class RankSets:
    """Simultaneous rank-sets of S systems.

    Attributes
    ----------
    systems : tuple of str
        System names, in the order of the inputs.
    estimate : numpy.ndarray, shape (S,)
        The point estimates.
    rank : numpy.ndarray of int, shape (S,)
        Point rank, 1 = best; tied estimates share the best rank of the tie ("1224" ranking).
    rank_low, rank_high : numpy.ndarray of int, shape (S,)
        The rank-set of each system, :math:`[l_i, u_i]`, with :math:`l_i \\le` ``rank`` :math:`\\le u_i`.
    better : numpy.ndarray of bool, shape (S, S)
        ``better[i, j]``: system i is surely better than system j (its difference's
        simultaneous interval excludes 0 on i's side).
    tied_with : tuple of tuple of str
        For each system, the other systems with exactly the same point estimate (empty: none).
    level : float
        Simultaneous coverage of the rank-sets.
    critical_value : float
        The multiplier c of the pairwise differences' standard errors (the step-down's last).
    higher_is_better : bool
        Whether a higher estimate ranks better.
    first_critical_value : float
        The single-step procedure's c (the step-down's first; equal to ``critical_value``
        without it): what a new study must clear to separate a pair, whatever else it
        separates (:func:`separation_factor`, :func:`top_k_factor`).
    """

    systems: tuple[str, ...]
    estimate: np.ndarray
    rank: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    better: np.ndarray
    tied_with: tuple[tuple[str, ...], ...]
    level: float
    critical_value: float
    higher_is_better: bool
    first_critical_value: float

    @property
    def size(self) -> np.ndarray:
        """Number of ranks in each rank-set, :math:`u_i - l_i + 1`."""
        return self.rank_high - self.rank_low + 1


def _pair_indices(s: int) -> tuple[np.ndarray, np.ndarray]:
    return np.triu_indices(s, k=1)


def _contrast_sd(covariance: np.ndarray) -> np.ndarray:
    """Standard deviations of the pairwise differences i - j (i < j), (..., P)."""
    i, j = _pair_indices(covariance.shape[-1])
    var = covariance[..., i, i] + covariance[..., j, j] - 2.0 * covariance[..., i, j]
    return np.sqrt(np.maximum(var, 0.0))


def max_contrast_quantile(
    covariance,
    level: float,
    *,
    n_draws: int = N_DRAWS,
    rng: np.random.Generator | None = None,
    df: float | None = None,
) -> float:
    r"""The level-quantile of :math:`\max_{i<j} |Z_i - Z_j| / s_{ij}` for :math:`Z \sim N(0, \Sigma)`
    (or, with ``df``, of the contrasts studentised by a covariance estimated with ``df`` degrees of freedom).

    Parameters
    ----------
    covariance : array_like, shape (S, S)
        Joint covariance :math:`\Sigma` of the estimates (positive semi-definite).
    level : float
        The quantile, in (0, 1).
    n_draws : int
        Gaussian draws (simulated in blocks of bounded memory, each block one array operation).
    rng : numpy.random.Generator, optional
        Source of the draws; default a generator seeded with :data:`DEFAULT_SEED`, so that the
        result is deterministic.
    df : float, optional
        Degrees of freedom :math:`\nu` of the estimated covariance (estimates whose variances
        and covariances are estimated from :math:`\nu + p` shared items,
        :func:`debias.stats.common.intervals.t_interval`): the maximum is that of the studentised
        contrasts :math:`|Z_i - Z_j| / \hat s_{ij}` with :math:`\hat\Sigma \sim
        \text{Wishart}(\nu, \Sigma)/\nu` independent of Z, so that for a single pair the
        value is Student's t quantile with :math:`\nu` degrees of freedom, as in a paired
        comparison's p-value, and for several the studentised maximum of all pairs. ``None``
        or infinite (default): Gaussian. The normal draws are the same either way; the cost
        grows by a factor :math:`\min(\nu, S)`, so above :data:`WISHART_MAX_DF` degrees of
        freedom one chi-square shared by all contrasts of a draw stands in for the Wishart
        (the multivariate t; with 20 independent systems at level 0.9 and 100 degrees of
        freedom, 3.395 against the Wishart's 3.44 and the Gaussian 3.322).

    Returns
    -------
    float
        The critical value c; 0 when no contrast has positive variance (every difference is
        known exactly) or S < 2.

    Notes
    -----
    :math:`Z = L\,\varepsilon` with :math:`\Sigma = L L^\top` from the eigendecomposition
    (which allows a singular :math:`\Sigma`); contrasts with :math:`s_{ij} = 0` are constant
    and left out of the maximum. The Monte-Carlo error of the attained level is about
    :math:`\sqrt{\text{level}(1-\text{level})/n_\text{draws}}`.
    """
    check_level(level)
    if n_draws < 100:
        raise ValueError(f"n_draws must be at least 100, got {n_draws}")
    sigma = np.asarray(covariance, dtype=float)
    df = _check_df(df)
    if sigma.shape[0] < 2:
        return 0.0
    return _contrast_quantile(sigma, level, n_draws, rng, _live_contrasts(sigma), df)


def _check_df(df) -> float | None:
    """``None`` for Gaussian draws (``df`` None or infinite); a positive degrees of freedom otherwise."""
    if df is None:
        return None
    value = float(df)
    if not value > 0:
        raise ValueError(f"df (degrees of freedom) must be positive, got {df!r}")
    return None if np.isinf(value) else value


def _live_contrasts(sigma: np.ndarray) -> np.ndarray:
    """Which pairwise contrasts i < j have a positive standard deviation (up to rounding)."""
    sd = _contrast_sd(sigma)
    return sd > TOLERANCE * max(float(np.sqrt(np.max(np.diag(sigma)))), np.finfo(float).tiny)


def _ordered_pairs(live, s: int) -> np.ndarray:
    """The ordered pairs in play as an (S, S) mask: ``live`` itself when it is one, else a mask
    over the pairs i < j whose pairs are in play both ways (two-sided contrasts)."""
    live = np.asarray(live, dtype=bool)
    if live.ndim == 2:
        return live & ~np.eye(s, dtype=bool)
    ordered = np.zeros((s, s), dtype=bool)
    i, j = (index[live] for index in _pair_indices(s))
    ordered[i, j] = ordered[j, i] = True
    return ordered


def _contrast_quantile(sigma, level, n_draws, rng, live, df=None, cache=None) -> float:
    r"""The level-quantile of the maximum of the standardised contrasts ``live`` ; 0 when none is
    live. ``live`` is a mask over the pairs i < j (each contrast two-sided, :math:`|Z_i -
    Z_j|/s_{ij}`) or an (S, S) mask of ordered pairs: ``live[a, b]`` puts the one-sided
    :math:`(Z_a - Z_b)/s_{ab}` in the maximum (both ways: the two-sided one; the maximum is taken
    with 0, which changes the quantile only at levels where it would be negative). The draws are
    those of :func:`max_contrast_quantile` (``df``: each block's chi-square draws after its
    normal draws).

    Gaussian and multivariate-t draws (``df`` None or above :data:`WISHART_MAX_DF`) take the
    maximum of :math:`|Z_i - Z_j| / s_{ij}` (one-sided for a pair in play one way, through
    :func:`_pair_values`) from :math:`Z = L\varepsilon`: up to
    :data:`DIRECT_PAIRS` live pairs every one of them in every draw (:func:`_every_pair_maxima`),
    beyond it :func:`_pair_maxima`, which computes it exactly for every draw that can be the
    quantile and skips the pairs an interval bound proves below it; a Wishart studentisation
    (``df`` up to :data:`WISHART_MAX_DF`) scales each contrast apart, pair by pair. ``cache`` (a
    dict) keeps the draws between calls from a generator in the same state (the step-down's
    steps)."""
    s = sigma.shape[0]
    i, j = _pair_indices(s)
    ordered = _ordered_pairs(live, s)
    if ordered.any():  # never a contrast of no variance, whichever mask is given
        ordered &= _ordered_pairs(_live_contrasts(sigma), s)
    live = ordered[i, j] | ordered[j, i]  # the pairs in play one way or both
    if not np.any(live):
        return 0.0
    rng = np.random.default_rng(DEFAULT_SEED) if rng is None else rng
    if df is not None and df <= WISHART_MAX_DF:
        if float(n_draws) * min(s, df) * s * int(live.sum()) > WISHART_MAX_COST:
            return _union_t_quantile(level, int(ordered.sum()), df)
        return _studentised_quantile(sigma, level, n_draws, rng, ordered, df)
    cache = {} if cache is None else cache
    z, scale = _gaussian_draws(sigma, n_draws, rng, int(live.sum()), df, cache)
    sd = np.zeros((s, s))
    sd[i, j] = sd[j, i] = _contrast_sd(sigma)
    inverse = np.zeros((s, s))  # 1 / s_ab of the ordered pairs in play; 0 elsewhere
    inverse[ordered] = 1.0 / sd[ordered]
    if int(live.sum()) <= DIRECT_PAIRS:
        if cache.get("columns", (None,))[0] is not z:  # a system's draws contiguous, kept between steps
            cache["columns"] = (z, np.ascontiguousarray(z.T))
        maxima = _every_pair_maxima(cache["columns"][1], inverse, scale)
    else:
        rank = int(np.quantile(np.arange(n_draws), level, method="higher"))  # the quantile's draw, in order
        maxima = _pair_maxima(z, inverse, scale, rank, cache)
    return float(np.quantile(maxima, level, method="higher"))


def _gaussian_draws(sigma, n_draws, rng, n_live, df, cache):
    r"""``(Z, scale)``: the draws :math:`Z = L\varepsilon` (n_draws, S) and, with ``df``, each
    draw's :math:`\sqrt{\chi^2_\nu/\nu}` (else ``None``), from ``rng`` in
    the order the blocks of :data:`BLOCK_VALUES` contrast values draw them; ``cache`` keeps them
    per block size with the generator's state after them."""
    block = max(1, BLOCK_VALUES // n_live)
    key = None if df is None else block  # Gaussian draws do not depend on the blocks
    start_state = rng.bit_generator.state
    if key in cache and cache[key][0] == start_state:
        _, z, scale, end_state = cache[key]
        rng.bit_generator.state = end_state
        return z, scale
    s = sigma.shape[0]
    eps = np.empty((n_draws, s))
    scale = None if df is None else np.empty(n_draws)
    step = n_draws if df is None else block  # Gaussian draws at once, chi-squares between blocks
    for start in range(0, n_draws, step):
        stop = min(start + step, n_draws)
        rng.standard_normal(out=eps[start:stop])  # the values of standard_normal((stop - start, s))
        if df is not None:
            scale[start:stop] = np.sqrt(rng.chisquare(df, stop - start) / df)
    values, vectors = np.linalg.eigh(sigma)
    root = vectors * np.sqrt(np.clip(values, 0.0, None))  # Sigma = root @ root.T
    z = eps @ root.T
    cache[key] = (start_state, z, scale, rng.bit_generator.state)
    return z, scale


def _pair_values(z, inverse, scale, d, i, j) -> np.ndarray:
    """The standardised contrasts :math:`\\max\\{(z_{di} - z_{dj})\\,w_{ij},\\,(z_{dj} -
    z_{di})\\,w_{ji}\\} / \\text{scale}_d` of the triples (d, i, j), ``w`` = ``inverse`` (0 for an
    ordered pair out of play): the one arithmetic of a pair's value on every path. Both ways in
    play, it is :math:`|z_{di} - z_{dj}|\\,w_{ij}` to the last bit (negation is exact); one way,
    the one-sided contrast taken with 0. Dividing the maximum of several by a positive scale gives
    the maximum of the divided values: rounding is monotone."""
    difference = z[d, i] - z[d, j]
    value = np.maximum(difference * inverse[i, j], -difference * inverse[j, i])
    return value if scale is None else value / scale[d]


def _every_pair_maxima(draws, inverse, scale, pairs: bool = False):
    """Per draw (a column of ``draws``: one row a system, contiguous), the maximum of every live
    pair's standardised contrast (:func:`_pair_values`; ``inverse[a, b]`` > 0: the ordered pair
    (a, b) in play), taken with 0: one system against its live partners at a time, in one reused
    buffer (fresh large arrays cost more than the arithmetic). With ``pairs``, also a pair
    ``(i, j)`` attaining each maximum."""
    maxima = np.zeros(draws.shape[1])
    owner = np.zeros(draws.shape[1], dtype=np.int64)  # the first system of a pair attaining it
    either = (inverse > 0) | (inverse.T > 0)
    partners = [np.flatnonzero(either[i, i + 1 :]) + i + 1 for i in range(draws.shape[0])]
    width = max(p.size for p in partners)
    buffer = np.empty((width, draws.shape[1]))
    other = None  # the second way's values, for a system with a pair in play one way only
    for i, columns in enumerate(partners):
        if columns.size:
            values = buffer[: columns.size]
            if columns[-1] - columns[0] + 1 == columns.size:  # a run of systems: no gathering
                np.subtract(draws[columns[0] : columns[-1] + 1], draws[i], out=values)
            else:
                np.subtract(draws[columns], draws[i], out=values)
            ahead, behind = inverse[i, columns], inverse[columns, i]  # weights of z_i - z_j, z_j - z_i
            if np.array_equal(ahead, behind):  # both ways: |z_j - z_i| w, the same bits as the maximum
                np.abs(values, out=values)
                values *= ahead[:, None]
            else:
                other = np.empty_like(buffer) if other is None else other
                np.multiply(values, -ahead[:, None], out=other[: columns.size])
                values *= behind[:, None]
                np.maximum(values, other[: columns.size], out=values)
            largest = values.max(axis=0)
            if pairs:
                owner[largest > maxima] = i
            np.maximum(maxima, largest, out=maxima)
    if scale is not None:
        maxima = maxima / scale
    if not pairs:
        return maxima
    columns = np.arange(draws.shape[1])  # the partner: the owner's largest value, found again
    difference = draws - draws[owner, columns]
    values = np.maximum(difference * inverse[:, owner], -difference * inverse[owner].T)
    return maxima, owner, np.argmax(values, axis=0)


def _interval_radii(inverse) -> np.ndarray:
    r"""Radii :math:`h_i \ge 0` with :math:`h_i + h_j < s_{ij} = 1/w_{ij}` for every pair with
    :math:`w_{ij}` = ``inverse[i, j]`` > 0 (``NaN`` for a system in no such pair), as large as a
    few rounds find them.

    They start at half of each system's smallest :math:`s_{ij}` (feasible), and each round adds
    to every :math:`h_i` half of its smallest slack :math:`\min_j (s_{ij} - h_i - h_j)`: two
    systems together take at most the slack of their pair, so every round stays feasible, and
    equal systems grow alike. For independent estimates of equal variance the radii reach
    :math:`s_{ij}/2` exactly; unequal variances or correlations leave part of some pairs'
    :math:`s_{ij}` unused, which costs work in :func:`_pair_maxima`, never exactness. The radii
    are shrunk by :data:`RADIUS_SLACK` so that the bound holds for the rounded values too."""
    with np.errstate(divide="ignore"):
        sd = np.where(inverse > 0, 1.0 / np.where(inverse > 0, inverse, 1.0), np.inf)
    nearest = sd.min(axis=1)
    linked = np.isfinite(nearest)
    radius = np.where(linked, nearest / 2, 0.0)
    for _ in range(RADIUS_ROUNDS):
        slack = (sd - radius[:, None]) - radius[None, :]
        grow = np.where(linked, np.maximum(slack.min(axis=1), 0.0) / 2, 0.0)
        radius = radius + grow
        if not np.any(grow > 1e-3 * radius):
            break
    return np.where(linked, radius * (1.0 - RADIUS_SLACK), np.nan)


def _pair_maxima(z, inverse, scale, rank, cache=None) -> np.ndarray:
    r"""Per draw d (a row of ``z``), :math:`M_d = \max_{i,j} |z_{di} - z_{dj}|\,w_{ij} /
    \text{scale}_d` (``w`` = ``inverse``, 0 for a pair left out), exactly for every draw whose
    maximum is at least the ``rank``-th smallest of them (0-based), and a value below that order
    statistic for the others: the ``rank``-th order statistic is the exact one, as are all above
    it.

    With radii :math:`h` such that :math:`h_i + h_j < s_{ij}` for every pair
    (:func:`_interval_radii`), a pair's value exceeds :math:`t` only if the intervals
    :math:`[z_i - t h_i, z_i + t h_i]` and :math:`[z_j - t h_j, z_j + t h_j]` are disjoint:
    otherwise :math:`|z_i - z_j| \le t (h_i + h_j) < t\,s_{ij}`. Intervals on a line all meet
    when the largest lower end is at most the smallest upper end, which one pass over a draw
    checks; a draw that fails it has its disjoint pairs found among the few systems whose lower
    end is above the smallest upper end and the few whose upper end is below the largest lower
    end, and computed exactly. The threshold :math:`\tau` is an order statistic of each draw's
    exact value at a promising live pair (:func:`_promising_pairs`), the one
    :data:`THRESHOLD_MARGIN` of the draws below the ``rank``-th, so a lower bound of the order
    statistic sought (:data:`REFRESH_MARGIN` when a later step computes everything again): a
    draw whose maximum reaches it has every pair reaching it computed, and its maximum is exact;
    one below keeps a value below it.

    ``cache`` (a dict) keeps the radii, and the maxima with the pair attaining each, between
    calls on the same draws. A later call with pairs only left out (the step-down's next step)
    recomputes only the draws whose maximum's pair was left out, against the same
    :math:`\tau` and radii (still valid for fewer pairs); when fewer than ``n - rank`` draws
    still reach :math:`\tau` (the order statistic fell below it) everything is computed again."""
    n = z.shape[0]
    cache = {} if cache is None else cache
    live = inverse > 0
    previous = cache.get("maxima")
    if previous is not None and previous[0] is z and previous[1] == rank and not np.any(live & ~previous[2]):
        *_, radius, tau, maxima, first, second = previous
        maxima, first, second = maxima.copy(), first.copy(), second.copy()
        gone = previous[2] & ~live  # ordered pairs left out since
        changed = gone[first, second] | gone[second, first]
        lost = np.flatnonzero((maxima >= tau) & changed)  # their maximum's pair left out, one way or both
        value, first[lost], second[lost] = _disjoint_maxima(z, inverse, scale, radius, tau, lost)
        maxima[lost] = value
        if np.count_nonzero(maxima >= tau) >= n - rank:
            cache["maxima"] = (z, rank, live, radius, tau, maxima, first, second)
            return maxima
    radius = _interval_radii(np.maximum(inverse, inverse.T))
    maxima, first, second = _promising_pairs(z, inverse, scale, radius)
    refresh = previous is not None and previous[0] is z  # a later step on the same draws: its steps fall less
    margin = REFRESH_MARGIN if refresh else THRESHOLD_MARGIN
    below = max(0, rank - int(margin * n))  # lower still: the next steps' quantiles are lower
    tau = np.partition(maxima, below)[below]
    value, a, b = _disjoint_maxima(z, inverse, scale, radius, tau, None)
    better = value > maxima
    maxima[better], first[better], second[better] = value[better], a[better], b[better]
    cache["maxima"] = (z, rank, live, radius, tau, maxima, first, second)
    return maxima


def _row_blocks(n_rows: int, width: int) -> tuple[list[slice], np.ndarray]:
    """Slices of at most :data:`CACHE_VALUES` values of rows of ``width``, and a buffer for one
    of them: the passes over a block of draws stay in the processor's cache."""
    step = max(16, CACHE_VALUES // max(width, 1))
    blocks = [slice(start, min(start + step, n_rows)) for start in range(0, n_rows, step)]
    return blocks, np.empty((min(n_rows, step), width))


def _promising_pairs(z, inverse, scale, radius):
    """Per draw, the exact value of a pair likely to be near its maximum, and that pair: the
    system highest in :math:`z - 4h` (whose interval reaches furthest up at a threshold near the
    quantile's) against its live partner furthest from it in standard errors."""
    n, s = z.shape
    reach = np.where(np.isnan(radius), np.inf, 4.0 * radius)  # a system in no live pair is never chosen
    either = np.maximum(inverse, inverse.T)  # a live partner either way
    first, second = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    blocks, buffer = _row_blocks(n, s)
    for block in blocks:
        part, values = z[block], buffer[: block.stop - block.start]
        first[block] = np.argmax(np.subtract(part, reach, out=values), axis=1)
        np.subtract(part, part[np.arange(len(values)), first[block]][:, None], out=values)
        np.abs(values, out=values)
        values *= either[first[block]]
        second[block] = np.argmax(values, axis=1)
    return _pair_values(z, inverse, scale, np.arange(n), first, second), first, second


def _disjoint_maxima(z, inverse, scale, radius, tau, draws):
    r"""Of each of ``draws`` (rows of ``z``; all when ``None``), the largest value among its live
    pairs whose intervals at :math:`t = \tau\,\text{scale}_d` are disjoint
    (:func:`_pair_maxima`), ``-1`` when there is none, and that pair ``(i, j)``: the draw's
    maximum whenever it exceeds ``tau``. The intervals are checked a block of draws at a time
    (:func:`_row_blocks`); pairs are enumerated in blocks of at most :data:`BLOCK_VALUES`.

    When the disjoint pairs are more than :data:`ENUMERATED_SHARE` of the failing draws' live
    pairs (loose radii: strongly correlated estimates, or few pairs left), every live pair of the
    failing draws is computed instead (:func:`_every_pair_maxima`, far cheaper per pair than
    enumerating): their value is then their exact maximum."""
    zd = z if draws is None else z[draws]
    count = zd.shape[0]
    isolated = np.isnan(radius)
    reach = np.where(isolated, 0.0, radius)
    if scale is not None:
        reach = (tau * (scale if draws is None else scale[draws]))[:, None] * reach
    else:
        reach = tau * reach

    def ends(rows, lower, upper):  # the intervals' ends in a block; a system in no pair meets every interval
        spread = reach if reach.ndim == 1 else reach[rows]
        np.subtract(zd[rows], spread, out=lower)
        np.add(zd[rows], spread, out=upper)
        lower[:, isolated], upper[:, isolated] = -np.inf, np.inf
        return lower, upper

    def end(rows, systems, sign):  # one end of the given (draw, system) intervals, the same arithmetic
        spread = reach[systems] if reach.ndim == 1 else reach[rows, systems]
        return zd[rows, systems] - spread if sign < 0 else zd[rows, systems] + spread

    value = np.full(count, -1.0)
    first, second = np.zeros(count, dtype=np.int64), np.zeros(count, dtype=np.int64)
    if count == 0:
        return value, first, second
    blocks, lower_buffer = _row_blocks(count, zd.shape[1])
    upper_buffer = np.empty_like(lower_buffer)
    failing, high, low = [], [], []
    for block in blocks:  # per block: the draws whose intervals do not all meet
        rows = block.stop - block.start
        lower, upper = ends(block, lower_buffer[:rows], upper_buffer[:rows])
        top, bottom = lower.max(axis=1), upper.min(axis=1)
        fails = np.flatnonzero(top > bottom)
        failing.append(fails + block.start)
        high.append(lower[fails] > bottom[fails, None])  # i can be above some j
        low.append(upper[fails] < top[fails, None])  # j can be below some i
    failing = np.concatenate(failing)
    if failing.size == 0:
        return value, first, second
    high, low = np.concatenate(high), np.concatenate(low)
    n_low = np.count_nonzero(low, axis=1)
    work = np.cumsum(np.count_nonzero(high, axis=1) * n_low)
    if work[-1] > ENUMERATED_SHARE * failing.size * np.count_nonzero(np.triu((inverse > 0) | (inverse.T > 0))):
        rows = failing if draws is None else draws[failing]
        value[failing], first[failing], second[failing] = _every_pair_maxima(
            np.ascontiguousarray(z[rows].T), inverse, None if scale is None else scale[rows], pairs=True
        )
        return value, first, second
    start = 0
    while start < failing.size:  # blocks of failing draws, each at most BLOCK_VALUES candidate pairs
        done = work[start - 1] if start else 0
        stop = max(start + 1, int(np.searchsorted(work, done + BLOCK_VALUES, side="right")))
        k_high, i = np.nonzero(high[start:stop])
        k_low, j_low = np.nonzero(low[start:stop])
        per = n_low[start:stop]
        repeats = per[k_high]
        offset = np.arange(int(repeats.sum())) - np.repeat(np.cumsum(repeats) - repeats, repeats)
        j = j_low[np.repeat((np.cumsum(per) - per)[k_high], repeats) + offset]
        k, i = np.repeat(k_high, repeats) + start, np.repeat(i, repeats)
        live = inverse[i, j] > 0  # i above j: only the way i - j can exceed tau
        k, i, j = k[live], i[live], j[live]
        keep = end(failing[k], i, -1) > end(failing[k], j, +1)  # disjoint: i's interval above j's
        k, i, j = k[keep], i[keep], j[keep]
        if k.size:
            row = failing[k]  # position among ``draws``
            found = _pair_values(z, inverse, scale, row if draws is None else draws[row], i, j)
            order = np.lexsort((-found, row))  # per draw (in order), its largest first
            head = order[np.r_[True, row[order][1:] != row[order][:-1]]]
            value[row[head]], first[row[head]], second[row[head]] = found[head], i[head], j[head]
        start = stop
    return value, first, second


def _studentised_quantile(sigma, level, n_draws, rng, ordered, df) -> float:
    """:func:`_contrast_quantile` with a Wishart studentisation: every contrast of every draw
    scaled apart (:func:`_wishart_scale`). ``ordered``: the (S, S) mask of ordered pairs in play
    (:func:`_ordered_pairs`); a pair in play one way only counts its one-sided contrast, taken
    with 0."""
    s = sigma.shape[0]
    i, j = _pair_indices(s)
    ahead, behind = ordered[i, j], ordered[j, i]  # the ways i - j and j - i
    live = ahead | behind
    sd = _contrast_sd(sigma)[live]
    i, j, ahead, behind = i[live], j[live], ahead[live].astype(float), behind[live].astype(float)
    contrast = np.zeros((s, int(live.sum())))  # columns: e_i - e_j scaled by 1/s_ij
    columns = np.arange(contrast.shape[1])
    contrast[i, columns] = 1.0 / sd
    contrast[j, columns] = -1.0 / sd
    values, vectors = np.linalg.eigh(sigma)
    root = vectors * np.sqrt(np.clip(values, 0.0, None))  # Sigma = root @ root.T
    loading = root.T @ contrast  # (S, P): eps @ loading = standardised contrasts
    per_draw = loading.shape[1] * (1 + min(s, int(df)))
    block = max(1, BLOCK_VALUES // per_draw)
    maxima = np.empty(n_draws)
    for start in range(0, n_draws, block):  # blocks of draws, each one matrix product
        stop = min(start + block, n_draws)
        eps = rng.standard_normal((stop - start, s))
        values = (eps @ loading) / _wishart_scale(loading, df, stop - start, rng)
        maxima[start:stop] = np.max(np.maximum(values * ahead, -values * behind), axis=1)
    return float(np.quantile(maxima, level, method="higher"))


def _union_t_quantile(level: float, n_contrasts: int, df: float) -> float:
    r"""A critical value c with :math:`P(\max_p T_p > c) \le 1 - \text{level}` for any
    dependence between the ``n_contrasts`` one-sided studentised contrasts in play, each
    :math:`T_p \sim t_\nu` (as under :func:`_wishart_scale`'s model): the union (Bonferroni)
    bound, :math:`c = t_\nu^{-1}(1 - (1 - \text{level})/n)`. Conservative where the simulated
    maximum is affordable; used where it is not (:data:`WISHART_MAX_COST`)."""
    from scipy.special import stdtrit

    return float(stdtrit(df, 1.0 - (1.0 - level) / max(n_contrasts, 1)))


def _wishart_scale(loading, df, n, rng) -> np.ndarray | float:
    r"""Per draw and contrast, :math:`\sqrt{a_p^\top W a_p / \nu}` with :math:`W \sim
    \text{Wishart}_S(\nu, I)` and :math:`a_p` the contrast's column of ``loading``, shape (n, P):
    the estimated standard error of the contrast over its true one when the covariance is
    estimated with ``df`` = :math:`\nu` degrees of freedom (1 without ``df``).

    For :math:`\nu \ge S` Bartlett's decomposition :math:`W = B B^\top` (B lower triangular,
    :math:`B_{kk}^2 \sim \chi^2_{\nu-k}`, standard normal below the diagonal); for
    :math:`\nu < S`, :math:`W = A A^\top` with A of :math:`\lfloor\nu\rfloor` standard
    normal columns (fewer degrees of freedom: heavier tails, conservative). Above
    :data:`WISHART_MAX_DF`, one :math:`\sqrt{\chi^2_\nu/\nu}` shared by every contrast of a
    draw (the multivariate t), at the cost of the Gaussian draws."""
    if df is None:
        return 1.0
    if df > WISHART_MAX_DF:  # one shared chi-square per draw: the multivariate t
        return np.sqrt(rng.chisquare(df, n) / df)[:, None]
    s = loading.shape[0]
    if df >= s:
        factor = np.zeros((n, s, s))
        rows, cols = np.tril_indices(s, k=-1)
        factor[:, rows, cols] = rng.standard_normal((n, rows.size))
        diagonal = np.arange(s)
        factor[:, diagonal, diagonal] = np.sqrt(rng.chisquare(df - diagonal, (n, s)))
        projected = np.swapaxes(factor, 1, 2) @ loading  # B^T a_p, (n, S, P)
        nu = df
    else:
        nu = max(1, int(df))
        projected = rng.standard_normal((n, nu, s)) @ loading  # A^T a_p, (n, nu, P)
    return np.sqrt(np.sum(projected**2, axis=1) / nu)


def point_ranks(estimate, *, higher_is_better: bool = True) -> np.ndarray:
    """Rank 1 = best; ties share the best rank of the tie: :math:`1 + \\#\\{j : \\theta_j` better :math:`\\}`.
    Leading axes are separate sets of estimates."""
    theta = np.asarray(estimate, dtype=float)
    if not higher_is_better:
        theta = -theta
    return 1 + np.sum(theta[..., None, :] > theta[..., :, None], axis=-1)


def rank_bounds(estimate, covariance, critical_value, *, higher_is_better: bool = True):
    r"""Rank-sets from pairwise intervals :math:`\hat\delta_{ij} \pm c\,\hat s_{ij}`.

    Parameters
    ----------
    estimate : array_like, shape (..., S)
    covariance : array_like, shape (..., S, S)
    critical_value : float or array_like, shape (...)
        The multiplier c (e.g. :func:`max_contrast_quantile`, or the chi-square projection's
        :math:`\sqrt{\chi^2_{S,1-\alpha}}`).
    higher_is_better : bool

    Returns
    -------
    rank_low, rank_high : numpy.ndarray of int, shape (..., S)
    better : numpy.ndarray of bool, shape (..., S, S)
        ``better[..., i, j]``: i surely better than j, :math:`\pm(\hat\theta_i - \hat\theta_j) > c\,\hat s_{ij}`.

    Notes
    -----
    Leading axes are separate data sets (e.g. Monte-Carlo draws), evaluated at once.
    """
    theta = np.asarray(estimate, dtype=float)
    sigma = np.asarray(covariance, dtype=float)
    if not higher_is_better:
        theta = -theta
    s = theta.shape[-1]
    diag = np.diagonal(sigma, axis1=-2, axis2=-1)
    var = diag[..., :, None] + diag[..., None, :] - 2.0 * sigma
    sd = np.sqrt(np.maximum(var, 0.0))
    c = np.asarray(critical_value, dtype=float)[..., None, None]
    difference = theta[..., :, None] - theta[..., None, :]
    better = difference > c * sd
    better &= ~np.eye(s, dtype=bool)
    rank_low = 1 + better.sum(axis=-2)
    rank_high = s - better.sum(axis=-1)
    return rank_low, rank_high, better


@bounded_blas
def rank_sets(
    estimate,
    covariance,
    *,
    level: float,
    systems: Sequence[str] | None = None,
    higher_is_better: bool = True,
    n_draws: int = N_DRAWS,
    rng: np.random.Generator | None = None,
    canonical: bool = False,
    step_down: bool = False,
    df: float | None = None,
) -> RankSets:
    r"""Simultaneous rank-sets of S systems from their estimates and joint covariance.

    Parameters
    ----------
    estimate : array_like, shape (S,)
        Point estimates :math:`\hat\theta`.
    covariance : array_like, shape (S, S)
        Their estimated joint covariance :math:`\hat\Sigma` (shared items make it non-diagonal).
    level : float
        Simultaneous coverage :math:`1-\alpha` of all rank-sets together, in (0, 1).
    systems : sequence of str, optional
        Names, in the order of ``estimate``.
    higher_is_better : bool
        True (default): the highest estimate is rank 1.
    n_draws, rng
        Draws of the critical value's simulation and their generator
        (:func:`max_contrast_quantile`; default: deterministic).
    canonical : bool
        Simulate the critical value with the systems sorted by name, so that the rank-sets are
        a function of the data alone: the same for any order of the inputs (the simulated
        maximum depends on the order of the covariance's rows through its square root and the
        draws). Default False: the order given.
    step_down : bool
        The step-down version of the procedure (Mogstad, Romano, Shaikh and Wilhelm 2024;
        Romano and Wolf 2005), over one-sided hypotheses, one per ordered pair: after the
        first step, the way a declared pair was declared leaves the maximum and its other way
        stays, the critical value is simulated again, and so on until a step declares no new
        pair (Notes). The first step is the single-step procedure; the critical value can only
        shrink, so the rank-sets are never larger, at the same simultaneous level. Default
        False (single step).
    df : float, optional
        Degrees of freedom of the standard errors: a multivariate-t critical value
        (:func:`max_contrast_quantile`), so that a pair of systems is separated exactly when a
        t test with ``df`` degrees of freedom on their difference rejects at the same level
        (small samples; ratings from few judged items). Default: Gaussian.

    Returns
    -------
    RankSets

    Notes
    -----
    With :math:`c` the level-quantile of :math:`\max_{i<j}|Z_i - Z_j|/s_{ij}`,
    :math:`Z \sim N(0,\hat\Sigma)`, system j is surely better than i when
    :math:`\hat\theta_j - \hat\theta_i > c\,\hat s_{ij}`, and

    .. math::

        l_i = 1 + \#\{j : j \text{ surely better than } i\}, \qquad
        u_i = S - \#\{j : i \text{ surely better than } j\}.

    If the estimates are Gaussian with covariance :math:`\hat\Sigma`, all S(S-1)/2 intervals
    hold at once with probability level, and then every true rank is in its set (module notes).

    Step-down (``step_down=True``), the step-down of Mogstad et al.'s (2024) simultaneous
    confidence sets for all ranks (the ``stepdown`` option of their R package csranks). The
    hypotheses are one-sided, one per ordered pair: :math:`H_{ab}: \theta_a \le \theta_b` for every
    :math:`a \ne b`, with statistic :math:`T_{ab} = (\hat\theta_a - \hat\theta_b)/\hat
    s_{ab}`. With :math:`K_1` every ordered pair and

    .. math::

        c_k = q_{\text{level}}\Bigl(\max\bigl(0, \max_{(a,b) \in K_k} (Z_a - Z_b)/s_{ab}\bigr)\Bigr),
        \qquad Z \sim N(0, \hat\Sigma),

    step k rejects the :math:`H_{ab}` of :math:`K_k` with :math:`T_{ab} > c_k` (a declared
    :math:`a` better than :math:`b`) and :math:`K_{k+1}` is :math:`K_k` without them; it stops
    when a step rejects nothing, and the rank-sets are :func:`rank_bounds` with the last
    :math:`c_k`. A pair with both ways in :math:`K_k` contributes :math:`|Z_a - Z_b|/s_{ab}`, so
    :math:`c_1` is the single step's c. A pair rejected one way keeps its other way:
    :math:`H_{ba}` stays in :math:`K` (it is never rejected, :math:`T_{ba} = -T_{ab} < 0 \le
    c`) and its one-sided :math:`(Z_b - Z_a)/s_{ab}` stays in the maximum. The sets only
    shrink, so :math:`c_{k+1} \le c_k` and a pair declared stays declared. (The 0 in the
    maximum matters only at levels below 1/2, where the quantile of a one-sided maximum can be
    negative: c is never below 0, so no pair is declared both ways.)

    Why the other way must stay: the declarations are all right in sign at once with
    probability at least level. Let :math:`I = \{(a,b) : \theta_a \le \theta_b\}` be the
    true hypotheses (both ways of a tie, the worse-below-better way of every other pair) and
    :math:`E` the event :math:`\max_{(a,b) \in I} (\hat\theta_a - \hat\theta_b - (\theta_a
    - \theta_b))/s_{ab} \le c_I`, with :math:`c_I` the quantile above over :math:`I`; for
    Gaussian estimates of covariance :math:`\hat\Sigma`, :math:`P(E) \ge \text{level}`. On
    :math:`E` no true hypothesis is ever rejected: if none was before step k, then :math:`K_k
    \supseteq I`, so :math:`c_k \ge c_I`, and for :math:`(a,b) \in I`, :math:`T_{ab} \le
    (\hat\theta_a - \hat\theta_b - (\theta_a - \theta_b))/s_{ab} \le c_I \le c_k`. So with
    probability at least level no pair is declared against its true order or between tied
    systems, and then every true rank is in its set (module notes). Removing both ways of a
    declared pair, as this function did before, drops the true :math:`H_{ba}` of every
    correctly declared :math:`a > b` from :math:`K`: :math:`K_k \supseteq I` fails, later
    critical values can fall below :math:`c_I`, and the argument covers exact ties only, not
    wrong-sign declarations between close systems. The same Gaussian draws serve every step
    (``benchmarks/bench_ranksets.py`` measures the familywise error).

    References
    ----------
    T. Hothorn, F. Bretz and P. Westfall. Simultaneous inference in general parametric models.
    *Biometrical Journal* 50(3):346-363, 2008.

    I. Chatzi, E. Straitouri, S. Thejaswi and M. Gomez-Rodriguez. Prediction-powered ranking of
    large language models. *NeurIPS* 2024.

    M. Mogstad, J. P. Romano, A. M. Shaikh and D. Wilhelm. Inference for ranks with applications
    to mobility across neighbourhoods and academic achievement across countries. *Review of
    Economic Studies* 91(1):476-518, 2024. Their R package csranks (``csranks(...,
    simul = TRUE, stepdown = TRUE)``) implements the step-down.

    J. P. Romano and M. Wolf. Exact and approximate stepdown methods for multiple hypothesis
    testing. *Journal of the American Statistical Association* 100(469):94-108, 2005.

    Examples
    --------
    >>> r = rank_sets([0.9, 0.5, 0.48, 0.1], [[1e-3, 0, 0, 0], [0, 1e-3, 0, 0], [0, 0, 1e-3, 0],
    ...               [0, 0, 0, 1e-3]], level=0.9, systems=["a", "b", "c", "d"])
    >>> list(zip(r.systems, r.rank_low.tolist(), r.rank_high.tolist()))
    [('a', 1, 1), ('b', 2, 3), ('c', 2, 3), ('d', 4, 4)]
    """
    check_level(level)
    theta, sigma, names = check_joint(estimate, covariance, systems)
    order = np.argsort(np.array(names, dtype=object), kind="stable") if canonical else np.arange(theta.size)
    if step_down:
        first, c = _step_down_values(theta[order], sigma[np.ix_(order, order)], level, n_draws, rng, _check_df(df))
    else:
        first = c = max_contrast_quantile(sigma[np.ix_(order, order)], level, n_draws=n_draws, rng=rng, df=df)
    low, high, better = rank_bounds(theta, sigma, c, higher_is_better=higher_is_better)
    tied = tuple(tuple(names[j] for j in np.flatnonzero(theta == theta[i]) if j != i) for i in range(theta.size))
    return RankSets(
        systems=names,
        estimate=theta,
        rank=point_ranks(theta, higher_is_better=higher_is_better),
        rank_low=low,
        rank_high=high,
        better=better,
        tied_with=tied,
        level=float(level),
        critical_value=c,
        higher_is_better=bool(higher_is_better),
        first_critical_value=first,
    )


def _step_down_values(theta, sigma, level, n_draws, rng, df=None) -> tuple[float, float]:
    """The first and the last critical value of the step-down max-t procedure over the ordered
    pairs (:func:`rank_sets`, Notes); every step simulates from a generator in the same state, so
    its draws are the single step's."""
    check_level(level)
    if n_draws < 100:
        raise ValueError(f"n_draws must be at least 100, got {n_draws}")
    if theta.size < 2:
        return 0.0, 0.0
    rng = np.random.default_rng(DEFAULT_SEED) if rng is None else rng
    state = rng.bit_generator.state
    s = theta.size
    remaining = _ordered_pairs(_live_contrasts(sigma), s)  # H_ab: theta_a <= theta_b, both ways of every pair
    sd = np.zeros((s, s))
    i, j = _pair_indices(s)
    sd[i, j] = sd[j, i] = _contrast_sd(sigma)
    t = theta[:, None] - theta[None, :]  # H_ab is rejected when t_ab > c s_ab
    cache: dict = {}
    first = None
    while True:
        rng.bit_generator.state = state
        c = _contrast_quantile(sigma, level, n_draws, rng, remaining, df, cache)
        first = c if first is None else first
        rejected = remaining & (t > c * sd)
        if not rejected.any():
            return first, c
        remaining = remaining & ~rejected  # the other way of a rejected pair stays in play


def separation_factor(estimate, covariance, pairs, *, critical_value: float, power: float = 0.8) -> np.ndarray:
    r"""How many times the current judgments would separate each pair of systems in the rank-sets.

    Parameters
    ----------
    estimate : array_like, shape (S,)
    covariance : array_like, shape (S, S)
    pairs : array_like of int, shape (P, 2)
        The pairs (i, j) to separate.
    critical_value : float
        The rank-sets' multiplier c: the single step's (:attr:`RankSets.first_critical_value`),
        which a new study must clear whatever else it separates.
    power : float
        Probability, in [0.5, 1), that the pair comes out separated if its true difference is the
        estimated one.

    Returns
    -------
    numpy.ndarray, shape (P,)
        The factor k by which every system's judged items must grow (below 1: fewer would do):
        ``inf`` for tied estimates, 0 for a difference known exactly.

    Notes
    -----
    With k times the judged items (the same design), the covariance becomes
    :math:`\hat\Sigma / k` and the critical value stays (it depends on the correlations only),
    so the pair is separated when :math:`|\hat\delta_{ij}| > c\,\hat s_{ij}/\sqrt{k}`. Asking
    this with probability ``power`` when the true difference is :math:`\hat\delta_{ij}` gives

    .. math::

        k_{ij} = \Bigl(\frac{(c + z_{\text{power}})\,\hat s_{ij}}{|\hat\delta_{ij}|}\Bigr)^2 .

    The estimated difference is itself noisy, so k is a rough guide for pairs whose difference
    is small compared with its standard error.
    """
    from scipy.special import ndtri

    if not 0.5 <= power < 1:
        raise ValueError(f"power must be in [0.5, 1), got {power!r}")
    theta, sigma, _ = check_joint(estimate, covariance)
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    if pairs.size and (pairs.min() < 0 or pairs.max() >= theta.size):
        raise ValueError(f"pairs must index the {theta.size} systems")
    i, j = pairs[:, 0], pairs[:, 1]
    difference = np.abs(theta[i] - theta[j])
    sd = np.sqrt(np.maximum(sigma[i, i] + sigma[j, j] - 2.0 * sigma[i, j], 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = ((critical_value + ndtri(power)) * sd / difference) ** 2
    return np.where(difference == 0, np.inf, np.where(sd == 0, 0.0, factor))


def top_k_factor(ranks: RankSets, covariance, k: int, *, power: float = 0.8) -> float:
    """How many times the current judgments would make the top ``k`` systems (by point rank)
    surely better than all the others: the largest :func:`separation_factor` over the pairs of
    one system inside and one outside (``inf`` when the k-th and the next are tied)."""
    s = len(ranks.systems)
    if not 1 <= k < s:
        raise ValueError(f"k must be between 1 and {s - 1} for {s} systems, got {k}")
    order = np.argsort(ranks.rank, kind="stable")
    inside, outside = order[:k], order[k:]
    pairs = np.array([(a, b) for a in inside for b in outside])
    factors = separation_factor(
        ranks.estimate, covariance, pairs, critical_value=ranks.first_critical_value, power=power
    )
    return float(factors.max())
