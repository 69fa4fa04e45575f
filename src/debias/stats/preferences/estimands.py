r"""Pairwise preferences: win rates and Bradley-Terry strengths from human and judge verdicts.

This module is the contract of the pairwise statistics: the estimands (:data:`ESTIMANDS`, name
-> function), the estimators' names (:func:`~debias.stats.preferences.battles.preference_estimator_names`),
every estimate of an analysis at once (:func:`preference_estimates`) and their data efficiency
against people alone (:func:`data_efficiency`). The concepts live beside it: the battles coded and grouped
(:mod:`debias.stats.preferences.battles`), win rates (:mod:`debias.stats.preferences.win_rate`), Bradley-Terry strengths
(:mod:`debias.stats.preferences.bradley_terry`), the judges' agreement with people
(:mod:`debias.stats.preferences.agreement`), the PPI++ weights (:func:`debias.stats.common.ppi.power_tuned_weights`)
and the result type (:class:`debias.stats.common.joint.JointEstimate`).

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
differences and ranks. Intervals are normal, :math:`\hat\theta_s \pm z\,\hat\Sigma_{ss}^{1/2}`;
a win rate's variance is widened at small n so that its interval contains the Agresti-Coull
interval, and win-rate intervals are clipped to [0, 1]
(:func:`debias.stats.common.intervals.proportion_covariance`). PPI++ pools only the battles of pairs
that the human battles cover (:func:`debias.stats.preferences.battles.covered`).

A system without a human verdict has no unbiased estimate: its result says so (``notes``). For
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

from collections.abc import Callable, Sequence

import numpy as np

from debias.data import JudgedPairs
from debias.stats.common.intervals import check_level
from debias.stats.common.joint import JointEstimate
from debias.stats.common.threads import bounded_blas
from debias.stats.preferences.agreement import JudgeAgreement, judge_agreement
from debias.stats.preferences.battles import (
    ALL_TIES,
    FEW_HUMAN,
    NO_HUMAN,
    NO_JUDGE,
    Battles,
    preference_estimator_names,
)
from debias.stats.preferences.bradley_terry import bradley_terry, strength_estimate
from debias.stats.preferences.win_rate import win_rate_draws, win_rate_estimate, win_rates

__all__ = [
    "ALL_TIES",
    "ESTIMANDS",
    "FEW_HUMAN",
    "NO_HUMAN",
    "NO_JUDGE",
    "JointEstimate",
    "JudgeAgreement",
    "bradley_terry",
    "data_efficiency",
    "judge_agreement",
    "preference_estimates",
    "preference_estimator_names",
    "win_rate_draws",
    "win_rates",
]

#: Every estimand by name, in the order of the tables: a function of the grouped battles
#: (:class:`~debias.stats.preferences.battles.Battles`), an estimator's name, ``level`` and ``ties``.
ESTIMANDS: dict[str, Callable[..., JointEstimate]] = {
    "win_rate": win_rate_estimate,
    "strength": strength_estimate,
}


@bounded_blas
def preference_estimates(
    pairs: JudgedPairs,
    *,
    level: float,
    ties: str = "half",
    estimands: Sequence[str] = tuple(ESTIMANDS),
    estimators: Sequence[str] | None = None,
    covariates: Sequence[str] = (),
    baseline: str | None = None,
) -> list[JointEstimate]:
    """Every estimator (:func:`~debias.stats.preferences.battles.preference_estimator_names`, or those named)
    of every estimand, estimand by estimand; the battles are grouped once for all of them.

    With ``covariates`` (names of covariates read with the battles) or ``ties="davidson"`` the
    strengths are those of :func:`debias.stats.preferences.style.adjusted_estimates` (win rates
    then count a tie as half a win), followed, after every estimand, by the covariates'
    coefficients (``coefficient:<name>``) and the tie parameter (``tie_parameter``); with
    ``baseline`` (a system) the win rates against it (``baseline_win_rate``, and
    ``lc_baseline_win_rate`` with a covariate named ``length``) come last."""
    battles = Battles.of(pairs, ties)
    check_level(level)
    unknown = [e for e in estimands if e not in ESTIMANDS]
    if unknown:
        raise ValueError(f"unknown estimand {unknown[0]!r}; available: {list(ESTIMANDS)}")
    names = preference_estimator_names(pairs.judges) if estimators is None else list(estimators)
    covariates = list(covariates)
    if len(set(covariates)) != len(covariates):
        raise ValueError(f"covariates named twice: {covariates}")
    adjusted = bool(covariates) or ties == "davidson"
    rule = "half" if ties == "davidson" else ties
    if not adjusted and baseline is None:
        return [ESTIMANDS[estimand](battles, name, level=level, ties=rule) for estimand in estimands for name in names]
    from debias.stats.preferences.style import adjusted_estimates, baseline_estimates

    results, extra = [], []
    for estimand in estimands:
        for name in names:
            if estimand == "strength" and adjusted:
                first, *rest = adjusted_estimates(battles, name, level=level, ties=ties, covariates=covariates)
                results.append(first)
                extra.extend(rest)
            else:
                results.append(ESTIMANDS[estimand](battles, name, level=level, ties=rule))
    if adjusted:  # coefficient by coefficient, each by every estimator
        order = list(dict.fromkeys(r.estimand for r in extra))
        extra.sort(key=lambda r: order.index(r.estimand))
    results.extend(extra)
    if baseline is not None:
        lc = "length" in covariates
        by_estimator = [
            baseline_estimates(battles, name, level=level, baseline=baseline, ties=rule, length_controlled=lc)
            for name in names
        ]
        results.extend(r[0] for r in by_estimator)
        if lc:
            results.extend(r[1] for r in by_estimator)
    return results


def data_efficiency(result: JointEstimate, reference: JointEstimate) -> float:
    r"""The data efficiency of ``result``'s estimator against ``reference`` (people alone): how
    many times more human battles ``reference`` would need for ``result``'s intervals, the mean
    over systems of :math:`(\text{width}_\text{reference} / \text{width})^2` (systems where
    either has no interval are left out; NaN if none is left)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = (reference.width / result.width) ** 2
    ratio = ratio[np.isfinite(ratio)]
    return float(ratio.mean()) if ratio.size else float("nan")
