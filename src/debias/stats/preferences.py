r"""Pairwise preferences: win rates and Bradley-Terry strengths from human and judge verdicts.

The data are battles (:class:`~debias.data.JudgedPairs`): system A against system B on one item,
with human verdicts on a random sample of the battles (the labelled set L, n battles) and the
verdicts of one or more LLM judges on every battle (the rest is the unlabelled pool U, of
:math:`N_u` battles). A verdict is the score of A: 1, 0.5 (tie) or 0; several raters of a battle
are averaged.

Estimands
---------
``win_rate``
    System s's expected score in its battles, :math:`\theta_s = E[w_s]/E[d]`: with ties as half
    a win (default) :math:`w_s` is s's score and :math:`d = 1`; with ``ties="drop"``
    :math:`w_s` is 1 for a win and :math:`d` is 1 for a decisive verdict (the share of its
    decisive battles that s wins).
``strength``
    Bradley-Terry strengths: :math:`P(A \succ B) = \sigma(\theta_A - \theta_B)` with the
    logistic :math:`\sigma`, fitted by maximum likelihood with ties as half wins (the fractional
    logistic likelihood :math:`v\log\sigma + (1 - v)\log(1 - \sigma)`). **Scale**: natural-log
    odds (a difference of 1 is odds of e to 1; multiply by :math:`400/\ln 10 \approx 173.7` for
    Elo points). **Reference**: the strengths of the systems that have an estimate are centred
    to mean 0.

Estimators
----------
All are M-estimators (a root of an average of per-battle gradients :math:`g_i(\theta; v)`),
with the sandwich covariance :math:`\hat H^{-1}\hat V\hat H^{-1}`:

``human``
    The gradients of the human verdicts on L (the classical estimate).
``judge:<j>``
    Judge j's verdicts on every battle it answered, as if they were human: **biased** by
    whatever the judge gets wrong, shown for comparison.
``ppi++:<j>``
    Prediction-powered inference with the power-tuned weight (Angelopoulos et al. 2023), in its
    M-estimation form (Boyeau et al. 2024): :math:`\hat\theta_\lambda` is the root of

    .. math::

        \frac1n\sum_{i \in L} g_i(\theta; v_i)
        + \lambda\Bigl(\frac1{N_u}\sum_{i \in U} g_i(\theta; f_i) - \frac1n\sum_{i \in L} g_i(\theta; f_i)\Bigr) = 0,

    with :math:`f_i` the judge's verdict, and covariance

    .. math::

        \hat\Sigma = \hat H^{-1}\Bigl(\frac{\widehat{\operatorname{Cov}}_L(g - \lambda\hat g)}{n}
            + \lambda^2\frac{\widehat{\operatorname{Cov}}_U(\hat g)}{N_u}\Bigr)\hat H^{-1}.

    Unbiased whatever the judge's errors, because the labelled battles are a random sample of
    all. :math:`\hat\lambda` minimises the trace of :math:`\hat\Sigma` (the sum of the systems'
    variances), estimated at the estimate with :math:`\lambda = 1`, and is clipped to [0, 1]:
    ``ppi_py``'s rule. A battle the judge did not answer gets the judge's average verdict as
    its prediction (any fixed prediction keeps the estimator unbiased; a judge's missing
    verdict is never counted as a tie by ``judge:<j>`` or the agreement table).
``ppi++:combined``
    The same with every judge: :math:`\lambda\hat g` becomes :math:`\sum_j \lambda_j\hat g_j`,
    the weights tuned together (the vector minimising the trace, a J x J linear system, not
    clipped), as ``cv:combined`` does with several metrics.

For win rates the systems are separate problems (each system's battles, :math:`n_s` labelled
and :math:`N_{u,s}` in the pool, as ``ppi_py.ppi_mean_ci`` on that system's battles), sharing
one tuned weight per judge; for strengths the gradient is the logistic one,
:math:`x_i(\sigma(x_i^\top\theta) - v_i)` with :math:`x_i = e_A - e_B`, and the Hessian is
the pooled one, as in ``ppi_py.ppi_logistic_ci``. The joint covariance of the systems'
estimates (battles shared by two systems make them covary) is returned whole, for intervals on
differences and ranks. Intervals are normal, :math:`\hat\theta_s \pm z\,\hat\Sigma_{ss}^{1/2}`.

A system without a human verdict has no unbiased estimate: its row says so (``reason``). For
strengths the estimate exists only on systems connected both ways by human battles (the MLE
is infinite for a system that won, or lost, all of them); the others get a reason, and the
battles involving them are left out of every fit but ``judge:<j>``. When the rectified
equation for strengths has no root at the tuned weights (a pool too small to link the systems
while the weights take the human battles' curvature away), the weights are 0: the ``human``
estimate, still unbiased.

References
----------
A. N. Angelopoulos, J. C. Duchi and T. Zrnic. PPI++: Efficient prediction-powered inference.
arXiv:2311.01453, 2023.

P. Boyeau, A. N. Angelopoulos, N. Yosef, J. Malik and M. I. Jordan. AutoEval done right: Using
synthetic data for model evaluation. arXiv:2403.07008, 2024.

R. A. Bradley and M. E. Terry. Rank analysis of incomplete block designs: I. The method of
paired comparisons. *Biometrika* 39(3/4):324-345, 1952.

I. Chatzi, E. Straitouri, S. Thejaswi and M. Gomez-Rodriguez. Prediction-powered ranking of
large language models. In *Advances in Neural Information Processing Systems 37 (NeurIPS)*, 2024.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.special import expit, ndtri

from debias.data import JudgedPairs

__all__ = [
    "ESTIMANDS",
    "JudgeAgreement",
    "PreferenceEstimate",
    "bradley_terry",
    "effective_sample_size",
    "estimator_names",
    "judge_agreement",
    "preference_estimates",
    "win_rate_draws",
    "win_rates",
]

ESTIMANDS = ("win_rate", "strength")
#: Newton steps at most for a Bradley-Terry fit, and the step size at which it stops.
NEWTON_STEPS, NEWTON_TOLERANCE = 100, 1e-12
#: A strength this far from the mean (odds of e^50 to 1) means the fit is running away.
DIVERGED = 50.0

NO_HUMAN = "no human verdict in its battles: no unbiased estimate"
FEW_HUMAN = "one human battle: no interval"
NO_JUDGE = "the judge answered none of its battles"
ALL_TIES = "every human verdict in its battles is a tie: no win rate without ties"


@dataclass(frozen=True, eq=False)
class PreferenceEstimate:
    """One estimator's estimates of one estimand for every system, with their joint covariance.

    Attributes
    ----------
    estimand : str
        ``"win_rate"`` or ``"strength"`` (module notes for scale and reference).
    estimator : str
        ``human``, ``judge:<j>``, ``ppi++:<j>`` or ``ppi++:combined``.
    systems : tuple of str
        The systems, in the order of every array.
    estimate, se, lower, upper : numpy.ndarray, shape (S,)
        Estimates, standard errors and normal intervals at ``level`` (NaN where ``reason`` says why).
    covariance : numpy.ndarray, shape (S, S)
        Joint covariance of the estimates (NaN rows and columns for systems without one).
    level : float
        Nominal coverage of the intervals.
    n_human, n_judge, n_missing : numpy.ndarray of int, shape (S,)
        Each system's battles with a human verdict, battles with a verdict of the estimator's
        judge(s), and battles where one of them gave none (summed over judges).
    reasons : tuple of str
        Per system, why there is no estimate or no interval ("" when there is).
    weights : numpy.ndarray, shape (J,)
        The PPI++ weight of each of the estimator's judges (empty for ``human`` and ``judge:*``).
    biased : bool
        True for ``judge:*`` (its interval is about the judge, not about people).
    """

    estimand: str
    estimator: str
    systems: tuple[str, ...]
    estimate: np.ndarray
    covariance: np.ndarray
    se: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    level: float
    n_human: np.ndarray
    n_judge: np.ndarray
    n_missing: np.ndarray
    reasons: tuple[str, ...]
    weights: np.ndarray
    biased: bool

    @property
    def width(self) -> np.ndarray:
        return self.upper - self.lower


@dataclass(frozen=True, eq=False)
class JudgeAgreement:
    """How one judge agrees with people, on the battles both judged.

    Attributes
    ----------
    judge : str
    n_verdicts : int
        (battle, rater) pairs compared: human verdicts on battles the judge answered.
    n_missing, n_unknown : int
        Battles the judge did not answer, and answers that were not verdicts (among them).
    accuracy : float
        Share of compared pairs where judge and rater agree (A, tie or B).
    kappa : float
        Cohen's kappa over the three verdicts.
    human_tie_rate, judge_tie_rate : float
        Shares of ties among the compared human verdicts and among all the judge's verdicts.
    systems : tuple of str
    bias, bias_lower, bias_upper : numpy.ndarray, shape (S,)
        Each system's judge win rate minus human win rate on the same battles (ties half a
        win), with its normal interval at ``level``; NaN without such battles.
    n_battles : numpy.ndarray of int, shape (S,)
        Each system's battles with both a human and a judge verdict.
    level : float
    """

    judge: str
    n_verdicts: int
    n_missing: int
    n_unknown: int
    accuracy: float
    kappa: float
    human_tie_rate: float
    judge_tie_rate: float
    systems: tuple[str, ...]
    bias: np.ndarray
    bias_lower: np.ndarray
    bias_upper: np.ndarray
    n_battles: np.ndarray
    level: float


# Input checks ---------------------------------------------------------------------------------


def _check(pairs: JudgedPairs, level: float, ties: str = "half") -> None:
    if not isinstance(pairs, JudgedPairs):
        raise TypeError(f"pairs must be a JudgedPairs, got {type(pairs).__name__}")
    if not (isinstance(level, int | float | np.floating) and 0.0 < float(level) < 1.0):
        raise ValueError(f"level must be a number in (0, 1), got {level!r}")
    if ties not in ("half", "drop"):
        raise ValueError(f"ties must be 'half' (a tie is half a win) or 'drop' (ties left out), got {ties!r}")
    if pairs.n_battles == 0:
        raise ValueError("no battles")


def estimator_names(judges: Sequence[str]) -> list[str]:
    """``human``, then ``judge:<j>`` and ``ppi++:<j>`` per judge, then ``ppi++:combined`` (two or
    more judges)."""
    names = ["human"]
    for judge in judges:
        names += [f"judge:{judge}", f"ppi++:{judge}"]
    if len(judges) >= 2:
        names.append("ppi++:combined")
    return names


def _resolve(estimator: str, judges: Sequence[str]) -> tuple[str, list[int]]:
    """``(kind, judge columns)`` of an estimator name; kind is human, judge or ppi."""
    if estimator == "human":
        return "human", []
    kind, _, name = estimator.partition(":")
    if kind == "ppi++" and name == "combined":
        if len(judges) < 2:
            raise ValueError("ppi++:combined needs at least two judges")
        return "ppi", list(range(len(judges)))
    if kind in ("judge", "ppi++") and name in judges:
        return ("judge" if kind == "judge" else "ppi"), [list(judges).index(name)]
    raise ValueError(f"unknown estimator {estimator!r}; available: {estimator_names(judges)}")


# Verdict coding -------------------------------------------------------------------------------
#
# Every per-battle quantity the estimators need is an affine function of a few per-battle
# *sources* (a verdict, or the shares of A's and B's wins) whose coefficients are the same for
# every battle of a group: battles with the same (A, B) and the same labelled flag. So the
# battles are summed once per group (counts, sums of the sources and of their products) and
# every estimator works on the groups, whose number is at most twice the number of ordered
# pairs of systems, however many battles there are.


def _source_columns(verdicts, ties: str) -> np.ndarray:
    """A provider's source columns from its per-battle verdicts (NaN kept): the score of A with
    ties as half a win, else the shares of verdicts for A and for B."""
    if ties == "half":
        return verdicts[:, None]
    return np.column_stack([(verdicts == 1.0).astype(float), (verdicts == 0.0).astype(float)])


def _credit_forms(offset: int, n_sources: int, ties: str):
    """``(w_A, w_B, d)``, A's and B's win credit and the battle's weight, as affine forms
    ``(alpha, beta)`` in the sources, for the provider whose columns start at ``offset``."""
    unit = np.eye(n_sources)
    if ties == "half":
        score = unit[offset]
        return (0.0, score), (1.0, -score), (1.0, np.zeros(n_sources))
    share_a, share_b = unit[offset], unit[offset + 1]
    return (0.0, share_a), (0.0, share_b), (0.0, share_a + share_b)


def _filled(columns, answered, ties: str):
    """Source columns with each column's mean over the answered battles where the judge gave no
    verdict (its prediction when it abstains); a judge that never answered predicts a tie (ties
    half a win) or nothing (ties left out), the same for every battle."""
    columns = np.array(columns, dtype=float)
    for k in range(columns.shape[1]):
        fill = float(columns[answered, k].mean()) if answered.any() else (0.5 if ties == "half" else 0.0)
        columns[~answered, k] = fill
    return columns


class _Groups(NamedTuple):
    """Battles summed per group (A, B, labelled flag): groups run along the axis G, every
    leading axis of ``count``, ``sums`` and ``products`` is a separate labelling."""

    a: np.ndarray  # (G,)
    b: np.ndarray  # (G,)
    labelled: np.ndarray  # (G,) 0 or 1
    count: np.ndarray  # (..., G)
    sums: np.ndarray  # (..., G, K)
    products: np.ndarray  # (..., G, K, K)
    n_systems: int

    def select(self, keep, renumber, n_systems):
        """The groups in ``keep`` with their systems renumbered."""
        return _Groups(
            renumber[self.a[keep]],
            renumber[self.b[keep]],
            self.labelled[keep],
            self.count[..., keep],
            self.sums[..., keep, :],
            self.products[..., keep, :, :],
            n_systems,
        )


def _group(a, b, n_systems: int, labelled, sources) -> _Groups:
    """Sum the battles' sources (B, K) and their products per group; ``labelled`` is (..., B)."""
    labelled = np.asarray(labelled, dtype=bool)
    sources = np.nan_to_num(np.asarray(sources, dtype=float))
    cell_of = a * n_systems + b
    present = np.bincount(cell_of, minlength=n_systems * n_systems) > 0
    cells = np.flatnonzero(present)
    cell = (np.cumsum(present) - 1)[cell_of]
    n_groups = 2 * cells.size
    lead = labelled.shape[:-1]
    rows = int(np.prod(lead)) if lead else 1
    group = (cell * 2 + labelled.reshape(rows, -1)).astype(np.int64)
    if rows > 1:
        group += (np.arange(rows) * n_groups)[:, None]
    group = group.ravel()
    size = rows * n_groups
    n_sources = sources.shape[1]

    def summed(values):
        if rows > 1:
            values = np.broadcast_to(values, (rows, values.size)).ravel()
        return np.bincount(group, values, size)

    count = np.bincount(group, minlength=size).astype(float)
    sums = np.stack([summed(sources[:, k]) for k in range(n_sources)], axis=-1) if n_sources else np.zeros((size, 0))
    products = np.zeros((size, n_sources, n_sources))
    for k in range(n_sources):
        for m in range(k, n_sources):
            products[:, k, m] = products[:, m, k] = summed(sources[:, k] * sources[:, m])
    shape = (*lead, n_groups)
    return _Groups(
        np.repeat(cells // n_systems, 2),
        np.repeat(cells % n_systems, 2),
        np.tile([0.0, 1.0], cells.size),
        count.reshape(shape),
        sums.reshape(*shape, n_sources),
        products.reshape(*shape, n_sources, n_sources),
        n_systems,
    )


def _total(groups: _Groups, form):
    """Per group, the sum over its battles of an affine form ``(alpha, beta)``."""
    alpha, beta = form
    return groups.count * alpha + np.sum(groups.sums * beta, axis=-1)


def _cross(groups: _Groups, f, h):
    """Per group, the sum over its battles of the product of two affine forms."""
    (af, bf), (ah, bh) = f, h
    bf = np.broadcast_to(bf, groups.sums.shape)
    bh = np.broadcast_to(bh, groups.sums.shape)
    quadratic = np.einsum("...k,...kl,...l->...", bf, groups.products, bh)
    return groups.count * af * ah + af * np.sum(groups.sums * bh, -1) + ah * np.sum(groups.sums * bf, -1) + quadratic


def _scaled(form, scale):
    alpha, beta = form
    return alpha * scale, np.asarray(beta) * np.asarray(scale)[..., None]


def _plus(f, h):
    return f[0] + h[0], f[1] + h[1]


#: Groupings of the last few calls (the same battles serve every estimator of one analysis).
_GROUPINGS: list = []


def _cached(pairs, key, build):
    for entry in _GROUPINGS:
        if entry[0]() is pairs and entry[1] == key:
            return entry[2]
    value = build()
    _GROUPINGS.insert(0, (weakref.ref(pairs), key, value))
    del _GROUPINGS[6:]
    return value


def _labelled_groups(pairs: JudgedPairs, ties: str, labelled=None):
    """The battles grouped by their human labelling, with the human sources first and every
    judge's (filled) sources after; the provider forms ``(human, [judge, ...])``."""

    def build():
        human = pairs.human_mean if ties == "half" else None
        if ties == "half":
            columns = [human[:, None]]
        else:
            columns = [np.column_stack([pairs.human_share(1.0), pairs.human_share(0.0)])]
        for j in range(len(pairs.judges)):
            verdicts = pairs.judge_verdicts[:, j]
            columns.append(_filled(_source_columns(verdicts, ties), ~np.isnan(verdicts), ties))
        sources = np.concatenate(columns, axis=1)
        mask = pairs.labelled if labelled is None else labelled
        width = columns[0].shape[1]
        forms = [_credit_forms(k * width, sources.shape[1], ties) for k in range(len(columns))]
        return _group(pairs.system_a, pairs.system_b, pairs.n_systems, mask, sources), forms

    if labelled is not None:
        return build()
    return _cached(pairs, ("labelled", ties), build)


def _judge_groups(pairs: JudgedPairs, j: int, ties: str):
    """The battles grouped by whether judge j answered them, with its sources."""

    def build():
        verdicts = pairs.judge_verdicts[:, j]
        sources = _source_columns(verdicts, ties)
        groups = _group(pairs.system_a, pairs.system_b, pairs.n_systems, ~np.isnan(verdicts), sources)
        return groups, [_credit_forms(0, sources.shape[1], ties)]

    return _cached(pairs, ("judge", j, ties), build)


# Scatter sums ----------------------------------------------------------------------------------


def _per_system(qa, qb, a, b, n_systems: int) -> np.ndarray:
    """Per system, the sum of ``qa`` over the battles (or groups) where it is A plus ``qb`` where
    it is B; the last axis is the battles, every leading axis a separate set of sums."""
    qa, qb = np.broadcast_arrays(np.asarray(qa, float), np.asarray(qb, float))
    lead = qa.shape[:-1]
    rows = int(np.prod(lead)) if lead else 1
    offset = (np.arange(rows) * n_systems)[:, None]
    index = np.concatenate([(offset + a).ravel(), (offset + b).ravel()])
    values = np.concatenate([qa.reshape(rows, -1).ravel(), qb.reshape(rows, -1).ravel()])
    return np.bincount(index, values, rows * n_systems).reshape(*lead, n_systems)


def _pair_matrix(diag_a, diag_b, cross, a, b, n_systems: int) -> np.ndarray:
    """The (S, S) matrix :math:`\\sum_i` of a battle's contributions: ``diag_a`` at (A, A),
    ``diag_b`` at (B, B) and ``cross`` at (A, B) and (B, A); leading axes as in :func:`_per_system`."""
    diag_a, diag_b, cross = np.broadcast_arrays(*(np.asarray(q, float) for q in (diag_a, diag_b, cross)))
    lead = diag_a.shape[:-1]
    rows = int(np.prod(lead)) if lead else 1
    size = n_systems * n_systems
    offset = (np.arange(rows) * size)[:, None]
    off = np.bincount((offset + a * n_systems + b).ravel(), cross.reshape(rows, -1).ravel(), rows * size).reshape(
        rows, n_systems, n_systems
    )
    diagonal = _per_system(diag_a.reshape(rows, -1), diag_b.reshape(rows, -1), a, b, n_systems)
    matrix = off + np.swapaxes(off, 1, 2) + diagonal[:, :, None] * np.eye(n_systems)
    return matrix.reshape(*lead, n_systems, n_systems)


def _normal_interval(estimate, covariance, level):
    se = np.sqrt(np.maximum(np.einsum("...ss->...s", covariance), 0.0))
    half = ndtri(0.5 + level / 2.0) * se
    return se, estimate - half, estimate + half


# Win rates ---------------------------------------------------------------------------------------


def _win_rate_core(groups: _Groups, human, predictions, *, weights=None, single_clip=True):
    """The PPI++ win rates of every system for each labelling (leading axes of ``groups``).

    ``human`` and every entry of ``predictions`` are the forms ``(w_A, w_B, d)``. Returns
    ``(estimate, covariance, n_labelled, weights)``.
    """
    a, b, n_systems = groups.a, groups.b, groups.n_systems
    lab = groups.labelled
    unl = 1.0 - lab
    count = groups.count

    def per(qa, qb):
        return _per_system(qa, qb, a, b, n_systems)

    n_s = per(count * lab, count * lab)
    u_s = per(count * unl, count * unl)
    n_judges = len(predictions)
    lead = count.shape[:-1]
    pool = u_s > 0

    def means(provider, mask, number):
        wa, wb, d = provider
        with np.errstate(invalid="ignore", divide="ignore"):
            credit = per(mask * _total(groups, wa), mask * _total(groups, wb)) / number
            weight = per(mask * _total(groups, d), mask * _total(groups, d)) / number
        return credit, weight

    human_w, human_d = means(human, lab, n_s)
    judge_l = [means(p, lab, n_s) for p in predictions]
    judge_u = [means(p, unl, u_s) for p in predictions]

    def solve(lam):
        lam = np.broadcast_to(lam, (*lead, n_judges)) if n_judges else np.zeros((*lead, 0))
        numerator, denominator = human_w.copy(), human_d.copy()
        for j in range(n_judges):
            lj = np.where(pool, lam[..., j, None], 0.0)
            numerator += lj * (np.nan_to_num(judge_u[j][0]) - judge_l[j][0])
            denominator += lj * (np.nan_to_num(judge_u[j][1]) - judge_l[j][1])
        with np.errstate(invalid="ignore", divide="ignore"):
            return numerator / denominator, denominator

    def gradients(theta, provider):
        """Each side's gradient w - theta d, as forms."""
        wa, wb, d = provider
        ta, tb = np.nan_to_num(theta[..., a]), np.nan_to_num(theta[..., b])
        return _plus(wa, _scaled(d, -ta)), _plus(wb, _scaled(d, -tb))

    def centred(pair, mask, number):
        """Gradients minus their per-system mean over the masked groups."""
        side_a, side_b = pair
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.nan_to_num(per(mask * _total(groups, side_a), mask * _total(groups, side_b)) / number)
        return (side_a[0] - mean[..., a], side_a[1]), (side_b[0] - mean[..., b], side_b[1])

    if weights is None and n_judges:
        start, hessian = solve(np.full(n_judges, 1.0 / n_judges))
        g_l = centred(gradients(start, human), lab, n_s)
        hat_l = [centred(gradients(start, p), lab, n_s) for p in predictions]
        hat_all = [centred(gradients(start, p), 1.0, n_s + u_s) for p in predictions]
        with np.errstate(invalid="ignore", divide="ignore"):
            scale = np.nan_to_num(np.where((n_s > 0) & pool, 1.0 / (n_s * hessian**2), 0.0))
            pooled_scale = np.where((n_s > 0) & pool, (1.0 / n_s + 1.0 / np.maximum(u_s, 1)) / hessian**2, 0.0)
            pooled_scale = np.nan_to_num(pooled_scale)
        lhs = np.zeros((*lead, n_judges, n_judges))
        rhs = np.zeros((*lead, n_judges))
        for j in range(n_judges):
            cov = per(lab * _cross(groups, g_l[0], hat_l[j][0]), lab * _cross(groups, g_l[1], hat_l[j][1]))
            with np.errstate(invalid="ignore", divide="ignore"):
                rhs[..., j] = np.sum(scale * np.nan_to_num(cov / n_s), axis=-1)
            for k in range(j, n_judges):
                var = per(_cross(groups, hat_all[j][0], hat_all[k][0]), _cross(groups, hat_all[j][1], hat_all[k][1]))
                with np.errstate(invalid="ignore", divide="ignore"):
                    var = np.nan_to_num(var / (n_s + u_s - 1))
                lhs[..., j, k] = lhs[..., k, j] = np.sum(pooled_scale * var, axis=-1)
        if n_judges == 1:
            with np.errstate(invalid="ignore", divide="ignore"):
                weights = np.nan_to_num(rhs / lhs[..., 0])
            if single_clip:
                weights = np.clip(weights, 0.0, 1.0)
        else:
            weights = np.einsum("...jk,...k->...j", np.linalg.pinv(lhs), rhs)
    elif n_judges:
        weights = np.broadcast_to(np.asarray(weights, dtype=float), (*lead, n_judges))
    else:
        weights = np.zeros((*lead, 0))
    theta, hessian = solve(weights)
    # Influence of each labelled battle and each pool battle on every system's estimate; a
    # system without a pool battle has weight 0 (its estimate is the human one).
    residual = gradients(theta, human)
    pooled = None
    for j in range(n_judges):
        hat = gradients(theta, predictions[j])
        lj = np.where(pool, weights[..., j, None], 0.0)
        la, lb = lj[..., a], lj[..., b]
        residual = (_plus(residual[0], _scaled(hat[0], -la)), _plus(residual[1], _scaled(hat[1], -lb)))
        term = (_scaled(hat[0], la), _scaled(hat[1], lb))
        pooled = term if pooled is None else (_plus(pooled[0], term[0]), _plus(pooled[1], term[1]))
    covariance = np.zeros((*lead, n_systems, n_systems))
    for pair, mask, number in ((residual, lab, n_s), (pooled, unl, u_s)):
        if pair is None:
            continue
        side_a, side_b = centred(pair, mask, number)
        with np.errstate(invalid="ignore", divide="ignore"):
            factor = np.nan_to_num(1.0 / (number * hessian))
        ia, ib = _scaled(side_a, factor[..., a]), _scaled(side_b, factor[..., b])
        covariance += _pair_matrix(
            mask * _cross(groups, ia, ia), mask * _cross(groups, ib, ib), mask * _cross(groups, ia, ib), a, b, n_systems
        )
    return theta, covariance, n_s, weights


def _win_rate_reasons(n_human, human_d, kind, n_judge, ties):
    reasons = []
    for s in range(n_human.size):
        if kind == "judge":
            reasons.append(NO_JUDGE if n_judge[s] == 0 else "")
        elif n_human[s] == 0:
            reasons.append(NO_HUMAN)
        elif ties == "drop" and human_d[s] == 0:
            reasons.append(ALL_TIES)
        elif n_human[s] == 1:
            reasons.append(FEW_HUMAN)
        else:
            reasons.append("")
    return tuple(reasons)


def _judge_counts(pairs: JudgedPairs, columns):
    """Per system: battles with a verdict of any of the judges, and verdicts missing (summed)."""
    a, b, n_systems = pairs.system_a, pairs.system_b, pairs.n_systems
    answered = ~np.isnan(pairs.judge_verdicts[:, columns])
    any_answer = answered.any(axis=1).astype(float)
    unanswered = (~answered).sum(axis=1).astype(float)
    return (
        _per_system(any_answer, any_answer, a, b, n_systems).astype(np.int64),
        _per_system(unanswered, unanswered, a, b, n_systems).astype(np.int64),
    )


def _human_counts(pairs: JudgedPairs):
    labelled = pairs.labelled.astype(float)
    return _per_system(labelled, labelled, pairs.system_a, pairs.system_b, pairs.n_systems).astype(np.int64)


def win_rates(
    pairs: JudgedPairs, estimator: str = "human", *, level: float = 0.9, ties: str = "half"
) -> PreferenceEstimate:
    r"""Each system's win rate with its interval and the joint covariance, by one estimator.

    Parameters
    ----------
    pairs : JudgedPairs
        The battles; those with a human verdict must be a random sample of all.
    estimator : str
        ``human``, ``judge:<j>``, ``ppi++:<j>`` or ``ppi++:combined`` (module notes).
    level : float
        Nominal coverage of the intervals, in (0, 1).
    ties : {"half", "drop"}
        A tie is half a win (default), or ties are left out (the share of decisive battles won).

    Returns
    -------
    PreferenceEstimate

    Notes
    -----
    System s's estimate is the root of its estimating equation (module notes),

    .. math::

        \hat\theta_s = \frac{\bar w_{L,s} + \sum_j\lambda_j(\bar{\hat w}_{j,U,s} - \bar{\hat w}_{j,L,s})}
            {\bar d_{L,s} + \sum_j\lambda_j(\bar{\hat d}_{j,U,s} - \bar{\hat d}_{j,L,s})},

    means over s's labelled and pool battles; with ties as half a win the denominator is 1 and
    this is ``ppi_py.ppi_mean_ci``'s estimate on s's battles.

    Examples
    --------
    >>> from debias.data import JudgedPairs
    >>> pairs = JudgedPairs.from_arrays(["x", "x", "y", "x"], ["y", "z", "z", "y"], [1, 0.5, 0, 1])
    >>> result = win_rates(pairs)
    >>> result.systems, result.estimate.round(3).tolist()
    (('x', 'y', 'z'), [0.833, 0.0, 0.75])
    """
    _check(pairs, level, ties)
    kind, columns = _resolve(estimator, pairs.judges)
    n_judge, n_missing = _judge_counts(pairs, columns)
    n_human = _human_counts(pairs)
    if kind == "judge":
        groups, (forms,) = _judge_groups(pairs, columns[0], ties)
        theta, covariance, _, weights = _win_rate_core(groups, forms, [])
        human_d = np.ones(pairs.n_systems)
    else:
        groups, forms = _labelled_groups(pairs, ties)
        predictions = [forms[1 + j] for j in columns] if kind == "ppi" else []
        theta, covariance, _, weights = _win_rate_core(groups, forms[0], predictions)
        lab = groups.labelled
        human_d = _per_system(*(lab * _total(groups, forms[0][2]),) * 2, groups.a, groups.b, pairs.n_systems)
    reasons = _win_rate_reasons(n_human, human_d, kind, n_judge, ties)
    return _finish(
        "win_rate", estimator, pairs, theta, covariance, level, reasons, weights, (n_human, n_judge, n_missing)
    )


def _finish(estimand, estimator, pairs, theta, covariance, level, reasons, weights, counts) -> PreferenceEstimate:
    """Blank the systems with a reason (no interval for one battle) and build the result."""
    theta = np.array(theta, dtype=float)
    covariance = np.array(covariance, dtype=float)
    none = np.array([bool(r) and r != FEW_HUMAN for r in reasons])
    no_interval = np.array([bool(r) for r in reasons])
    theta[none] = np.nan
    covariance[no_interval, :] = np.nan
    covariance[:, no_interval] = np.nan
    se, lower, upper = _normal_interval(theta, covariance, level)
    n_human, n_judge, n_missing = counts
    return PreferenceEstimate(
        estimand,
        estimator,
        pairs.systems,
        theta,
        covariance,
        se,
        lower,
        upper,
        float(level),
        n_human,
        n_judge,
        n_missing,
        tuple(reasons),
        np.asarray(weights, dtype=float).ravel(),
        estimator.startswith("judge:"),
    )


def win_rate_draws(pairs: JudgedPairs, labelled, estimators: Sequence[str], *, level: float = 0.9, ties: str = "half"):
    """Win rates of every system for many random labelled sets at once (a simulation's draws).

    ``pairs`` must carry a human verdict on every battle; ``labelled`` (R, B) says which battles
    each draw keeps as labelled (the others are its pool). Returns ``{estimator: (estimate,
    covariance, n_human)}`` with shapes (R, S), (R, S, S) and (R, S); ``judge:*`` uses every
    battle and is the same in every draw (shapes (S,), (S, S) and (S,)).
    """
    _check(pairs, level, ties)
    if not pairs.labelled.all():
        raise ValueError("win_rate_draws needs a human verdict on every battle")
    groups, forms = _labelled_groups(pairs, ties, labelled=np.asarray(labelled, dtype=bool))
    out = {}
    for name in estimators:
        kind, columns = _resolve(name, pairs.judges)
        if kind == "judge":
            judge_groups, (judge_forms,) = _judge_groups(pairs, columns[0], ties)
            out[name] = _win_rate_core(judge_groups, judge_forms, [])[:3]
        else:
            predictions = [forms[1 + j] for j in columns] if kind == "ppi" else []
            out[name] = _win_rate_core(groups, forms[0], predictions)[:3]
    return out


# Bradley-Terry strengths ---------------------------------------------------------------------


def _laplacian_pinv(laplacian):
    r"""Moore-Penrose inverse of a connected graph's Laplacian:
    :math:`(L + \alpha\mathbf 1\mathbf 1^\top/S)^{-1} - \mathbf 1\mathbf 1^\top/(\alpha S)`, exact
    along the null direction :math:`\mathbf 1` where a thresholded inverse is not."""
    size = laplacian.shape[0]
    alpha = max(np.trace(laplacian) / size, np.finfo(float).tiny)
    ones = np.full((size, size), 1.0 / size)
    return np.linalg.inv(laplacian + alpha * ones) - ones / alpha


def _laplacian(weights, a, b, n_systems):
    r""":math:`\sum_i w_i x_i x_i^\top` with :math:`x_i = e_A - e_B`."""
    return _pair_matrix(weights, weights, -weights, a, b, n_systems)


def _bt_gradient_sums(residual, a, b, n_systems):
    r""":math:`\sum_i r_i x_i` with :math:`x_i = e_A - e_B`."""
    return _per_system(residual, -residual, a, b, n_systems)


def _identifiable(groups: _Groups, score_form, mask):
    """Systems in the largest strongly connected part of the win graph of the masked groups (an
    edge from the winner, both ways for a tie or split verdicts): where the Bradley-Terry MLE is
    finite."""
    n_systems = groups.n_systems
    credit = mask * _total(groups, score_form)
    number = mask * groups.count
    wins_a, wins_b = credit > 0, (number - credit) > 1e-9 * np.maximum(number, 1)
    rows = np.concatenate([groups.a[wins_a], groups.b[wins_b]])
    cols = np.concatenate([groups.b[wins_a], groups.a[wins_b]])
    graph = coo_matrix((np.ones(rows.size), (rows, cols)), shape=(n_systems, n_systems)).tocsr()
    present = np.zeros(n_systems, bool)
    present[groups.a[number > 0]] = present[groups.b[number > 0]] = True
    if not present.any():
        return present
    _, labels = connected_components(graph, directed=True, connection="strong")
    sizes = np.bincount(labels[present], minlength=labels.max() + 1)
    keep = labels == int(np.argmax(sizes))
    return keep & present if sizes.max() >= 2 else np.zeros(n_systems, bool)


def _connected(a, b, mask, n_systems) -> bool:
    """Whether the masked (A, B) edges link every system."""
    graph = coo_matrix((np.ones(int(mask.sum())), (a[mask], b[mask])), shape=(n_systems, n_systems))
    return connected_components(graph, directed=False)[0] == 1


def _bt_core(groups: _Groups, human, predictions, *, weights=None):
    """Strengths (centred), their covariance and the judge weights: ``human`` and
    ``predictions`` are the verdicts' score forms ``(alpha, beta)``."""
    a, b, n_systems = groups.a, groups.b, groups.n_systems
    lab = groups.labelled
    unl = 1.0 - lab
    count = groups.count
    n, n_pool = float(np.sum(count * lab)), float(np.sum(count * unl))
    n_judges = len(predictions)

    def residual_form(p, target, alpha=1.0):
        """The form alpha p - target of every battle of a group (p is the group's)."""
        return alpha * p - target[0], -np.asarray(target[1])

    def fit(lam):
        """Newton's method for the root of the rectified estimating equation, centred; returns
        ``(theta, converged)``. Where the equation's Jacobian is not a connected graph's
        Laplacian with positive weights (the pool alone carries it), the steps use the Hessian
        pooled over all battles, which is."""
        terms = [(lab / n, human)]
        weight = lab / n
        if n_pool > 0:
            for j in range(n_judges):
                terms += [(lam[j] * unl / n_pool, predictions[j]), (-lam[j] * lab / n, predictions[j])]
                weight = weight + lam[j] * (unl / n_pool - lab / n)
        weight = np.where(np.abs(weight) < 1e-12 * np.max(np.abs(weight)), 0.0, weight)  # rounding
        if np.any(weight < 0) or not _connected(a, b, (weight > 0) & (count > 0), n_systems):
            weight = np.full_like(weight, 1.0 / (n + n_pool))
        theta = np.zeros(n_systems)
        for _ in range(NEWTON_STEPS):
            p = expit(theta[a] - theta[b])
            residual = sum(c * _total(groups, residual_form(p, target)) for c, target in terms)
            gradient = _bt_gradient_sums(residual, a, b, n_systems)
            hessian = _laplacian(weight * count * p * (1 - p), a, b, n_systems)
            try:
                step = _laplacian_pinv(hessian) @ gradient
            except np.linalg.LinAlgError:
                return theta, False
            theta -= step
            theta -= theta.mean()
            if not np.all(np.abs(theta) < DIVERGED):
                return theta, False
            if np.max(np.abs(step)) < NEWTON_TOLERANCE:
                return theta, True
        return theta, False

    def covariance_of(r1, r2, mask, number):
        """Covariance (ddof 1) of the battles' gradients r1 x and r2 x over the masked groups."""
        m1 = _bt_gradient_sums(mask * _total(groups, r1), a, b, n_systems) / number
        m2 = _bt_gradient_sums(mask * _total(groups, r2), a, b, n_systems) / number
        second = _laplacian(mask * _cross(groups, r1, r2), a, b, n_systems) / number
        return (second - np.outer(m1, m2)) * number / max(number - 1.0, 1.0)

    def pooled_hessian(theta, mask):
        p = expit(theta[a] - theta[b])
        return _laplacian(mask * count * p * (1 - p), a, b, n_systems) / np.sum(mask * count)

    use_pool = n_judges > 0 and n_pool > 0
    if use_pool:
        if weights is None:
            start, converged = fit(np.full(n_judges, 1.0 / n_judges))
            if not converged:  # no root with the judges' full weight: tune at the human estimate
                start, _ = fit(np.zeros(n_judges))
            p = expit(start[a] - start[b])
            inverse = _laplacian_pinv(pooled_hessian(start, np.ones_like(lab)))
            r_h = residual_form(p, human)
            r_p = [residual_form(p, f) for f in predictions]
            lhs = np.zeros((n_judges, n_judges))
            rhs = np.zeros(n_judges)
            for j in range(n_judges):
                cross = covariance_of(r_h, r_p[j], lab, n) * (n - 1.0) / n
                rhs[j] = np.trace(inverse @ (cross + cross.T) @ inverse) / (2.0 * n)
                for k in range(j, n_judges):
                    var = covariance_of(r_p[j], r_p[k], np.ones_like(lab), n + n_pool)
                    lhs[j, k] = lhs[k, j] = np.trace(inverse @ var @ inverse) * (1.0 / n + 1.0 / n_pool)
            if n_judges == 1:
                weights = np.clip(rhs / lhs[0] if lhs[0, 0] > 0 else np.zeros(1), 0.0, 1.0)
            else:
                weights = np.linalg.pinv(lhs) @ rhs
        weights = np.asarray(weights, dtype=float)
    else:
        weights = np.zeros(n_judges)
    theta, converged = fit(weights)
    if not converged:  # the pool cannot carry these weights (too few battles to link the systems)
        weights = np.zeros(n_judges)
        theta, _ = fit(weights)
    use_pool = use_pool and bool(np.any(weights != 0))
    p = expit(theta[a] - theta[b])
    inverse = _laplacian_pinv(pooled_hessian(theta, np.ones_like(lab) if use_pool else lab))
    residual = residual_form(p, human)
    pool = None
    for j in range(n_judges if use_pool else 0):
        rj = residual_form(p, predictions[j])
        residual = _plus(residual, _scaled(rj, -weights[j]))
        pool = _scaled(rj, weights[j]) if pool is None else _plus(pool, _scaled(rj, weights[j]))
    middle = covariance_of(residual, residual, lab, n) / n
    if pool is not None:
        middle = middle + covariance_of(pool, pool, unl, n_pool) / n_pool
    return theta, inverse @ middle @ inverse, weights


def bradley_terry(pairs: JudgedPairs, estimator: str = "human", *, level: float = 0.9) -> PreferenceEstimate:
    r"""Bradley-Terry strengths of the systems with intervals and joint covariance, by one estimator.

    Parameters
    ----------
    pairs : JudgedPairs
        The battles; those with a human verdict must be a random sample of all.
    estimator : str
        ``human``, ``judge:<j>``, ``ppi++:<j>`` or ``ppi++:combined`` (module notes).
    level : float
        Nominal coverage of the intervals, in (0, 1).

    Returns
    -------
    PreferenceEstimate
        Strengths on the natural-log-odds scale, centred to mean 0 over the systems that have one.

    Notes
    -----
    ``human`` maximises :math:`\sum_{i \in L} v_i\log\sigma(\theta_{A_i} - \theta_{B_i}) +
    (1 - v_i)\log\sigma(\theta_{B_i} - \theta_{A_i})` (ties :math:`v_i = 1/2`), by Newton's
    method; PPI++ solves the rectified estimating equation of the module notes. The covariance
    is the sandwich :math:`H^+ V H^+` with the Moore-Penrose inverse of the Hessian (a weighted
    graph Laplacian, singular along the common shift of all strengths), which is the covariance
    of the centred strengths.

    Examples
    --------
    >>> from debias.data import JudgedPairs
    >>> pairs = JudgedPairs.from_arrays(["x", "y", "x", "y"], ["y", "x", "y", "x"], [1, 1, 0.5, 0])
    >>> bradley_terry(pairs).estimate.round(3).tolist()
    [0.255, -0.255]
    """
    _check(pairs, level)
    kind, columns = _resolve(estimator, pairs.judges)
    n_systems = pairs.n_systems
    n_human = _human_counts(pairs)
    n_judge, n_missing = _judge_counts(pairs, columns)
    theta = np.full(n_systems, np.nan)
    covariance = np.full((n_systems, n_systems), np.nan)
    weights = np.zeros(len(columns) if kind == "ppi" else 0)
    if kind == "judge":
        groups, forms = _judge_groups(pairs, columns[0], "half")
        keep = _identifiable(groups, forms[0][0], groups.labelled)
        reasons = [
            "" if keep[s] else (NO_JUDGE if n_judge[s] == 0 else "strength not finite from the judge's verdicts")
            for s in range(n_systems)
        ]
        fitted = groups.labelled > 0  # the battles the judge answered are its "labelled" ones
        predictions = []
    else:
        groups, forms = _labelled_groups(pairs, "half")
        keep = _identifiable(groups, forms[0][0], groups.labelled)
        reasons = [
            ""
            if keep[s]
            else (
                NO_HUMAN
                if n_human[s] == 0
                else "strength not identifiable: its human battles do not link it both ways to the other systems"
            )
            for s in range(n_systems)
        ]
        fitted = np.ones(groups.a.size, bool)
        predictions = [forms[1 + j][0] for j in columns] if kind == "ppi" else []
    kept = np.flatnonzero(keep)
    chosen = keep[groups.a] & keep[groups.b] & fitted & (groups.count > 0)
    if kept.size >= 2 and np.any(chosen & (groups.labelled > 0)):
        renumber = np.full(n_systems, -1)
        renumber[kept] = np.arange(kept.size)
        sub = groups.select(chosen, renumber, kept.size)
        sub_theta, sub_cov, weights = _bt_core(sub, forms[0][0], predictions)
        theta[kept] = sub_theta
        covariance[np.ix_(kept, kept)] = sub_cov
    elif kept.size < 2:
        reasons = [r or "fewer than two systems with a finite strength" for r in reasons]
    return _finish(
        "strength", estimator, pairs, theta, covariance, level, reasons, weights, (n_human, n_judge, n_missing)
    )


# Everything at once ----------------------------------------------------------------------------


def preference_estimates(
    pairs: JudgedPairs,
    *,
    level: float = 0.9,
    ties: str = "half",
    estimands: Sequence[str] = ESTIMANDS,
    estimators: Sequence[str] | None = None,
) -> list[PreferenceEstimate]:
    """Every estimator (:func:`estimator_names`, or those named) of every estimand."""
    _check(pairs, level, ties)
    unknown = [e for e in estimands if e not in ESTIMANDS]
    if unknown:
        raise ValueError(f"unknown estimand {unknown[0]!r}; available: {list(ESTIMANDS)}")
    names = estimator_names(pairs.judges) if estimators is None else list(estimators)
    results = []
    for estimand in estimands:
        for name in names:
            if estimand == "win_rate":
                results.append(win_rates(pairs, name, level=level, ties=ties))
            else:
                results.append(bradley_terry(pairs, name, level=level))
    return results


def effective_sample_size(result: PreferenceEstimate, reference: PreferenceEstimate) -> float:
    r"""How many times more human battles ``reference`` would need for ``result``'s intervals:
    the mean over systems of :math:`(\text{width}_\text{reference} / \text{width})^2` (systems
    where either has no interval are left out; NaN if none is left)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = (reference.width / result.width) ** 2
    ratio = ratio[np.isfinite(ratio)]
    return float(ratio.mean()) if ratio.size else float("nan")


# Agreement -------------------------------------------------------------------------------------


def judge_agreement(pairs: JudgedPairs, *, level: float = 0.9) -> list[JudgeAgreement]:
    r"""How each judge agrees with people on the battles both judged.

    Accuracy and Cohen's kappa compare the judge's verdict with every human verdict of the
    battle (several raters: each counts once), over the three outcomes A, tie, B:
    :math:`\kappa = (p_o - p_e)/(1 - p_e)` with :math:`p_e = \sum_c p_{\text{judge},c}\,p_{\text{human},c}`
    (J. Cohen, A coefficient of agreement for nominal scales, *Educational and Psychological
    Measurement* 20(1):37-46, 1960). A system's bias is the mean over its battles with both
    verdicts of (judge score - human score), ties half a win, with a normal interval.
    """
    _check(pairs, level)
    a, b, n_systems = pairs.system_a, pairs.system_b, pairs.n_systems
    battle = np.repeat(np.arange(pairs.n_battles), pairs.human_counts)
    outcomes = np.array([0.0, 0.5, 1.0])
    z = ndtri(0.5 + level / 2.0)
    rows = []
    for j, judge in enumerate(pairs.judges):
        verdicts = pairs.judge_verdicts[:, j]
        answered = ~np.isnan(verdicts)
        per_verdict = verdicts[battle]
        both = ~np.isnan(per_verdict)
        human, machine = pairs.human[both], per_verdict[both]
        count = int(both.sum())
        if count:
            observed = float(np.mean(human == machine))
            p_h = np.array([np.mean(human == c) for c in outcomes])
            p_j = np.array([np.mean(machine == c) for c in outcomes])
            expected = float(p_h @ p_j)
            kappa = (observed - expected) / (1.0 - expected) if expected < 1 else float("nan")
            human_ties = float(np.mean(human == 0.5))
        else:
            observed = kappa = human_ties = float("nan")
        judge_ties = float(np.mean(verdicts[answered] == 0.5)) if answered.any() else float("nan")
        paired = pairs.labelled & answered
        diff = np.where(paired, verdicts - pairs.human_mean, 0.0)
        mask = paired.astype(float)
        n_s = _per_system(mask, mask, a, b, n_systems)
        with np.errstate(invalid="ignore", divide="ignore"):
            bias = _per_system(diff, -diff, a, b, n_systems) / n_s
            centred_a, centred_b = mask * (diff - bias[a]), mask * (-diff - bias[b])
            variance = _per_system(centred_a**2, centred_b**2, a, b, n_systems) / n_s**2
            bias = np.where(n_s > 0, bias, np.nan)
            half = np.where(n_s > 1, z * np.sqrt(variance), np.nan)
        rows.append(
            JudgeAgreement(
                judge,
                count,
                int((~answered).sum()),
                int(pairs.judge_unknown[j]),
                observed,
                kappa,
                human_ties,
                judge_ties,
                pairs.systems,
                bias,
                bias - half,
                bias + half,
                n_s.astype(np.int64),
                float(level),
            )
        )
    return rows
