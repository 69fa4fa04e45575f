r"""Anytime-valid confidence sequences: intervals that stay valid however often one looks.

A fixed-n interval :math:`\hat\theta_t \pm z\,\hat s_t` covers the truth with probability
level only at a sample size t fixed in advance; looked at after every batch of votes and
stopped when it looks settled, it misses far more often (on the Arena battles, a look every
50 votes: about half the streams miss the true gap at some point before 20,000 votes at
level 0.95). A *confidence sequence* :math:`(C_t)_{t \ge 1}` covers at every t at once,

.. math::

    P\bigl(\theta \in C_t \text{ for every } t \ge 1\bigr) \ge 1 - \alpha ,

so the interval at any look, and at a look chosen by looking (a stopping time), is valid.

Construction: the asymptotic confidence sequence of Waudby-Smith, Arnold, Wu, Howard and Ramdas
(2021), normal-mixture form. With :math:`\hat\theta_t` an estimate from t votes (or judged
items), :math:`\hat s_t` its fixed-n standard error (so :math:`\hat\sigma_t = \hat s_t\sqrt t`
estimates the standard deviation of one vote's influence),

.. math::

    C_t = \hat\theta_t \pm \hat s_t\,m_t, \qquad
    m_t = \sqrt{\frac{2(t\rho^2 + 1)}{t\rho^2}\,
          \log\Bigl(\frac{\sqrt{t\rho^2 + 1}}{\alpha}\Bigr)},

the two-sided normal mixture boundary :math:`\hat\sigma_t\sqrt{2(t\rho^2+1)/(t^2\rho^2)\,
\log(\sqrt{t\rho^2+1}/\alpha)}` written with the standard error. The mixture's scale
:math:`\rho` is fixed in advance and makes the boundary tightest near :math:`t^\star` votes
(:func:`tuned_rho`: :math:`\rho^2 = (-2\log\alpha + \log(-2\log\alpha + 1))/t^\star`). The
multiplier :math:`m_t` is larger than the fixed-n :math:`z_{1-\alpha/2}` at every t (1.4-1.9
times it at :math:`t^\star` for :math:`\alpha` from 0.2 to 0.01) and grows like :math:`\sqrt{\log t}` for
:math:`t \gg t^\star`, so the half-width shrinks like :math:`\sqrt{\log t / t}`.

Assumptions (what the guarantee rests on):

* The estimate is asymptotically linear in the votes of its own stream: :math:`\hat\theta_t -
  \theta = \frac1t\sum_{i \le t}\phi(V_i) + o(\sqrt{\log\log t / t})` almost surely, with the
  votes :math:`V_i` independent draws from one distribution (a pair's or a system's battles
  drawn at random from its pool; judged items drawn at random), :math:`\phi` of finite
  variance (a little more than two moments), and :math:`\hat\sigma_t` consistent. Means and
  control-variate means (a fitted coefficient converging), win rates and their differences,
  PPI++ with weights refitted at every look (weights converging), and the Bradley-Terry
  M-estimator are such estimates. The guarantee is asymptotic: it holds as the first look's
  sample grows (Waudby-Smith et al., Theorem 2.2); at a few votes a Wald-type interval is not
  trusted, and so nothing is declared before each estimate involved rests on ``MIN_VOTES``
  votes (a contrast: each of its two systems).
* Judgments sharing a question (a cluster) are not independent: the unit that arrives is then
  the cluster, all its votes at once. The estimate is linear in the clusters' summed
  influences (:mod:`debias.stats.common.clusters`), the standard error is the cluster-robust
  one, and t counts clusters (:attr:`debias.stats.common.joint.JointEstimate.arrivals`), so the
  same construction applies with clusters drawn at random as the votes.
* A judge-only pool used by PPI++ is a fixed draw: its sampling error is one term that does not
  shrink with t. It is covered because :math:`m_t > z_{1-\alpha/2}` for every t; the pool's
  share of the variance is usually small (the pool is large). When the pool is the whole
  population (the simulator's setting) there is no such term.
* Several quantities at once (S systems, or the :math:`P = S(S-1)/2` pairwise contrasts behind
  rank-sets and top-k): each sequence is built at :math:`\alpha/P` (a union bound, Bonferroni),
  so that all hold at every t together with probability at least :math:`1 - \alpha`, whatever
  their dependence. It is valid, and conservative (the multiplier grows only like
  :math:`\sqrt{\log P}`).
* Adaptive choice of the next votes (:mod:`debias.stats.preferences.allocation`). A contrast's sequence
  is a sequence in the votes of its own *stream*: the battles that move it (for win rates the
  battles of i or of j, for a head-to-head quantity the battles of the pair), indexed by the
  stream's own count. What it relies on is that each vote landing in the stream is a uniform
  draw from the stream's pool given everything before it. A rule that, from past votes only,
  decides which *streams* are eligible next and then draws uniformly among the eligible battles
  keeps this: given that a vote lands in the stream, it is uniform over the stream's battles
  (all of them eligible while the stream is), so the stream's votes are still i.i.d. and the
  looks at which it is read are stopping times. ``debias next`` makes every battle of a system
  with an open contrast eligible (win rates), or every battle of an open pair (strengths). What
  such a rule does change is the votes of streams no longer eligible: a system out of every open
  contrast then only meets open systems, and its win rate leans towards them. So a decision is
  to be kept once taken: it stays valid (the running intersection of a confidence sequence is
  one), while a later look at a closed system reads a tilted estimate. Sending votes only to
  the open *pairs* would tilt every system's mix of opponents and change the win rates being
  estimated.

References
----------
I. Waudby-Smith, D. Arnold, J. M. Wu, S. R. Howard and A. Ramdas. Time-uniform central limit
theory and asymptotic confidence sequences. arXiv:2103.06476, 2021 (Annals of Statistics,
2024).

S. R. Howard, A. Ramdas, J. McAuliffe and J. Sekhon. Time-uniform, nonparametric,
nonasymptotic confidence sequences. *Annals of Statistics* 49(2):1055-1080, 2021.

H. Robbins. Statistical methods related to the law of the iterated logarithm. *Annals of
Mathematical Statistics* 41(5):1397-1409, 1970.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri

from debias.stats.common.intervals import check_level
from debias.stats.common.joint import JointEstimate

__all__ = [
    "MIN_VOTES",
    "OPTIMAL_AT",
    "ConfidenceSequence",
    "ContrastSequences",
    "check_optimal_at",
    "confidence_sequence",
    "contrast_sequences",
    "fixed_n_multiplier",
    "mixture_multiplier",
    "system_sequences",
    "tuned_rho",
    "votes_to_resolve",
]

#: Default :math:`t^\star`: the votes at which the boundary is tightest.
OPTIMAL_AT = 1000
#: Fewer votes than this behind a quantity (behind either system of a contrast) and nothing
#: about it is declared resolved: the asymptotic guarantee needs a sample of some size.
MIN_VOTES = 30
#: The largest t the votes-needed search looks at (beyond: reported as not reachable).
HORIZON = 1e12


def check_optimal_at(optimal_at) -> float:
    """Refuse a :math:`t^\\star` that is not a finite number >= 1."""
    if isinstance(optimal_at, bool) or not isinstance(optimal_at, int | float | np.integer | np.floating):
        raise ValueError(f"optimal_at must be a number of votes >= 1, got {optimal_at!r}")
    if not (np.isfinite(optimal_at) and optimal_at >= 1):
        raise ValueError(f"optimal_at must be a number of votes >= 1, got {optimal_at!r}")
    return float(optimal_at)


def tuned_rho(alpha, optimal_at: float = OPTIMAL_AT):
    r"""The normal mixture's scale :math:`\rho` that makes the boundary tightest near
    :math:`t^\star` = ``optimal_at`` votes at error ``alpha`` (Waudby-Smith et al. 2021,
    following Howard et al. 2021):
    :math:`\rho = \sqrt{(-2\log\alpha + \log(-2\log\alpha + 1))/t^\star}`. Element-wise."""
    alpha = np.asarray(alpha, dtype=float)
    two_log = -2.0 * np.log(alpha)
    return np.sqrt((two_log + np.log(two_log + 1.0)) / optimal_at)


def mixture_multiplier(t, alpha, optimal_at: float = OPTIMAL_AT):
    r"""The multiplier :math:`m_t` of the standard error (module notes), element-wise over
    broadcast ``t`` (votes, > 0) and ``alpha`` (error, in (0, 1)); NaN where t <= 0."""
    t = np.asarray(t, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    rho2 = tuned_rho(alpha, optimal_at) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        x = t * rho2
        out = np.sqrt(2.0 * (x + 1.0) / x * np.log(np.sqrt(x + 1.0) / alpha))
    return np.where(t > 0, out, np.nan)


def fixed_n_multiplier(alpha):
    """The fixed-n normal interval's :math:`z_{1-\\alpha/2}`, for comparison."""
    return ndtri(1.0 - np.asarray(alpha, dtype=float) / 2.0)


@dataclass(frozen=True)
class ConfidenceSequence:
    """Confidence sequences of one or more quantities at the looks given (arrays broadcast
    over streams and looks).

    Attributes
    ----------
    estimate, se, n : numpy.ndarray
        The estimates, their fixed-n standard errors and the votes behind them.
    ci_low, ci_high : numpy.ndarray
        The sequence's ends :math:`\\hat\\theta_t \\mp \\hat s_t m_t` (NaN where the estimate or
        its standard error is NaN or n = 0).
    multiplier : numpy.ndarray
        :math:`m_t`, at each quantity's error :math:`\\alpha` / ``tests``.
    level : float
        Simultaneous coverage over the ``tests`` quantities and every t.
    tests : int
        Quantities covered together (the union bound's divisor).
    optimal_at : float
        :math:`t^\\star`.
    """

    estimate: np.ndarray
    se: np.ndarray
    n: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    multiplier: np.ndarray
    level: float
    tests: int
    optimal_at: float

    @property
    def half_width(self) -> np.ndarray:
        return (self.ci_high - self.ci_low) / 2.0


def confidence_sequence(
    estimate, se, n, *, level: float, optimal_at: float = OPTIMAL_AT, tests: int = 1
) -> ConfidenceSequence:
    r"""Asymptotic confidence sequences :math:`\hat\theta_t \pm \hat s_t m_t` (module notes).

    Parameters
    ----------
    estimate, se, n : array_like
        Estimates, their fixed-n standard errors, and the votes (or judged items) t behind each;
        broadcast together: any axes (streams, looks, quantities).
    level : float
        :math:`1 - \alpha`, the probability that every sequence covers at every t together.
    optimal_at : float
        :math:`t^\star`, fixed in advance: where the boundary is tightest.
    tests : int
        How many quantities are covered together: each gets :math:`\alpha/\text{tests}`.

    Returns
    -------
    ConfidenceSequence

    Examples
    --------
    >>> cs = confidence_sequence(0.1, 0.02, 1000, level=0.95)
    >>> round(float(cs.multiplier), 3), round(float(cs.ci_low), 4)
    (3.035, 0.0393)
    """
    check_level(level)
    optimal_at = check_optimal_at(optimal_at)
    if isinstance(tests, bool) or not isinstance(tests, int | np.integer) or tests < 1:
        raise ValueError(f"tests must be a whole number >= 1, got {tests!r}")
    estimate = np.asarray(estimate, dtype=float)
    se = np.asarray(se, dtype=float)
    n = np.asarray(n, dtype=float)
    if np.any(se < 0):
        raise ValueError("standard errors must be >= 0")
    alpha = (1.0 - level) / tests
    m = mixture_multiplier(n, alpha, optimal_at)
    half = se * m
    return ConfidenceSequence(
        estimate=estimate,
        se=se,
        n=n,
        ci_low=estimate - half,
        ci_high=estimate + half,
        multiplier=m,
        level=float(level),
        tests=int(tests),
        optimal_at=optimal_at,
    )


def system_sequences(
    joint: JointEstimate, *, level: float, optimal_at: float = OPTIMAL_AT, n=None, simultaneous: bool = True
) -> ConfidenceSequence:
    """Each system's confidence sequence from a :class:`~debias.stats.common.joint.JointEstimate`
    (a mean rating, a win rate, a strength), all S together (``simultaneous``: each at
    :math:`\\alpha/S`). ``n`` is the votes behind each (default
    ``joint.arrivals``: its judged items or human battles, or its clusters when the data are
    clustered)."""
    n = joint.arrivals if n is None else n
    tests = len(joint.systems) if simultaneous else 1
    return confidence_sequence(joint.estimate, joint.se, n, level=level, optimal_at=optimal_at, tests=tests)


@dataclass(frozen=True, eq=False)
class ContrastSequences:
    """Simultaneous confidence sequences of the pairwise differences :math:`\\theta_i -
    \\theta_j`, i < j, and the orders they settle.

    Attributes
    ----------
    systems : tuple of str
    first, second : numpy.ndarray of int, shape (P,)
        i and j of each contrast.
    sequence : ConfidenceSequence
        Of the differences :math:`\\hat\\theta_i - \\hat\\theta_j`, shape (P,).
    better : numpy.ndarray of bool, shape (S, S)
        ``better[i, j]``: the sequence says i is better than j (its lower end above 0), once
        each of the two systems has at least :data:`MIN_VOTES` votes.
    """

    systems: tuple[str, ...]
    first: np.ndarray
    second: np.ndarray
    sequence: ConfidenceSequence
    better: np.ndarray

    def rank_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Rank-sets from the settled orders, as :func:`debias.stats.common.ranking.rank_bounds` forms
        them: :math:`l_i = 1 + \\#\\{j \\text{ surely better}\\}`,
        :math:`u_i = S - \\#\\{j \\text{ surely worse}\\}`."""
        s = len(self.systems)
        return 1 + self.better.sum(axis=0), s - self.better.sum(axis=1)


def contrast_sequences(
    joint: JointEstimate,
    *,
    level: float,
    optimal_at: float = OPTIMAL_AT,
    times=None,
    live=None,
) -> ContrastSequences:
    r"""Confidence sequences of every pairwise difference of a JointEstimate, all at once.

    Parameters
    ----------
    joint : JointEstimate
        Estimates and joint covariance (win rates with PPI++, strengths, mean ratings with
        control variates: the difference's variance
        :math:`\hat\Sigma_{ii} + \hat\Sigma_{jj} - 2\hat\Sigma_{ij}` carries what the two
        estimates share).
    level : float
        Simultaneous coverage of all P contrasts at every t (Bonferroni: each at
        :math:`\alpha/P`, P the contrasts tested, :math:`S(S-1)/2` or those of ``live``: fixed
        by the question, whether or not each has an estimate at this look).
    optimal_at : float
        :math:`t^\star`.
    times : array_like, shape (S, S), optional
        The votes t behind each contrast (its stream's length: for win rates, the human battles
        of i or of j, as :func:`debias.stats.preferences.status.pairs_status` passes them); default
        :math:`\max(n_i, n_j)` from ``joint.arrivals`` (judged items, or clusters when the data
        are clustered), the shared items of two systems judged on the same items.
    live : array_like of bool, shape (S, S), optional
        Contrasts to test (default all); fewer tests give each a larger share of
        :math:`\alpha`. Fix them in advance (by the question, never by the data).

    Returns
    -------
    ContrastSequences
        Contrasts with no estimate (a system without one) have NaN ends and settle nothing.
    """
    check_level(level)
    s = len(joint.systems)
    i, j = np.triu_indices(s, k=1)
    sigma = joint.covariance
    with np.errstate(invalid="ignore"):
        var = sigma[i, i] + sigma[j, j] - 2.0 * sigma[i, j]
    se = np.sqrt(np.maximum(var, 0.0))
    difference = joint.estimate[i] - joint.estimate[j]
    n = np.asarray(joint.arrivals, dtype=float)
    t = np.maximum(n[i], n[j]) if times is None else np.asarray(times, dtype=float)[i, j]
    known = np.isfinite(difference) & np.isfinite(se)
    tested = np.ones(i.size, dtype=bool) if live is None else np.asarray(live, dtype=bool)[i, j]
    known &= tested
    # the union bound's count is fixed by the question, not by which contrasts have an estimate
    # at this look: a count that moved with the data would make the bound itself random
    tests = max(int(tested.sum()), 1)
    cs = confidence_sequence(
        np.where(known, difference, np.nan),
        np.where(known, se, np.nan),
        np.where(known, t, np.nan),
        level=level,
        optimal_at=optimal_at,
        tests=tests,
    )
    enough = known & (t >= MIN_VOTES) & (n[i] >= MIN_VOTES) & (n[j] >= MIN_VOTES)
    better = np.zeros((s, s), dtype=bool)
    with np.errstate(invalid="ignore"):
        better[i, j] = enough & (cs.ci_low > 0)
        better[j, i] = enough & (cs.ci_high < 0)
    return ContrastSequences(joint.systems, i, j, cs, better)


def votes_to_resolve(gap, sd, t, *, alpha, optimal_at: float = OPTIMAL_AT):
    r"""The votes :math:`t' \ge t` at which a sequence would exclude 0 if the estimated gap
    were the true one: the least :math:`t'` with :math:`|\text{gap}| > \sigma\,m_{t'}/\sqrt{t'}`.

    Parameters
    ----------
    gap : array_like
        The estimated difference (or, for a width target, the half-width to reach).
    sd : array_like
        :math:`\hat\sigma = \hat s_t\sqrt t`, one vote's standard deviation.
    t : array_like
        The votes so far.
    alpha : float or array_like
        Each sequence's error (after any union bound).

    Returns
    -------
    numpy.ndarray
        :math:`t'` (``t`` where already resolved), ``inf`` where the gap is 0 or it would take
        more than 10^12 votes; NaN where gap or sd is NaN. A plug-in guide: the estimated gap
        is itself noisy, and at the votes given the sequence resolves with probability about
        one half if the gap is right.

    Notes
    -----
    :math:`m_{t'}/\sqrt{t'}` decreases in :math:`t'` (it behaves like
    :math:`\sqrt{\log t' / t'}`), so a bisection on :math:`\log t'` finds the least one.
    """
    gap, sd, t, alpha = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (np.abs(gap), sd, t, alpha)))
    t = np.maximum(t, 1.0)

    def enough(votes):
        with np.errstate(divide="ignore", invalid="ignore"):
            return sd * mixture_multiplier(votes, alpha, optimal_at) / np.sqrt(votes) < gap

    low = np.log(t)
    high = np.full_like(low, np.log(HORIZON))
    done = enough(t)
    reachable = enough(np.full_like(t, HORIZON))
    for _ in range(60):
        middle = (low + high) / 2.0
        ok = enough(np.exp(middle))
        high = np.where(ok, middle, high)
        low = np.where(ok, low, middle)
    out = np.where(done, t, np.ceil(np.exp(high)))
    out = np.where(reachable | done, out, np.inf)
    out = np.where(sd == 0, t, out)
    return np.where(np.isnan(gap) | np.isnan(sd), np.nan, out)
