r"""How each LLM judge agrees with people, on the battles both judged, and how people agree.

Accuracy and Cohen's kappa compare the judge's verdict with every human verdict of a battle
(several raters: each counts once), over the three outcomes A, tie and B; agreement on non-tie
verdicts is the accuracy over the compared pairs where neither says tie; each system's judge
bias is its judge win rate minus its human win rate on the battles with both verdicts (ties
half a win), with a normal interval (:func:`debias.stats.common.intervals.normal_interval`);
with battles sharing questions, the cluster-robust one with t on the clusters
(:mod:`debias.stats.common.clusters`). A judge's
missing verdict is never counted as a tie. The yardstick is people's agreement with each other
(:func:`rater_agreement`: every pair of raters of one battle).

Reference: J. Cohen. A coefficient of agreement for nominal scales. *Educational and
Psychological Measurement* 20(1):37-46, 1960.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from debias.data import JudgedPairs
from debias.stats.common.clusters import cluster_df, cluster_robust_covariance
from debias.stats.common.intervals import check_level, normal_interval, small_sample_scale
from debias.stats.preferences.battles import check_pairs, per_system

__all__ = ["OUTCOMES", "JudgeAgreement", "RaterAgreement", "judge_agreement", "rater_agreement"]

#: The three verdicts, as the score of A: B better, a tie, A better.
OUTCOMES = (0.0, 0.5, 1.0)


@dataclass(frozen=True, eq=False)
class JudgeAgreement:
    """How one judge agrees with people, on the battles both judged.

    Attributes
    ----------
    judge : str
    n_verdicts : int
        (battle, rater) pairs compared: human verdicts on battles the judge answered.
    n_missing, n_unknown : int
        Battles the judge did not answer, and answers mapped to no verdict (among them).
    accuracy : float
        Share of compared pairs where judge and rater agree (A, tie or B).
    kappa : float
        Cohen's kappa over the three verdicts.
    human_tie_rate, judge_tie_rate : float
        Shares of ties among the compared human verdicts and among all the judge's verdicts.
    systems : tuple of str
    bias, bias_ci_low, bias_ci_high : numpy.ndarray, shape (S,)
        Each system's judge win rate minus human win rate on the same battles (ties half a
        win), with its normal interval at ``level``; NaN without such battles.
    n_battles : numpy.ndarray of int, shape (S,)
        Each system's battles with both a human and a judge verdict.
    level : float
    n_non_tie : int
        Compared pairs where neither the judge nor the rater says tie.
    non_tie_accuracy : float
        Share of those where they agree: agreement on non-tie verdicts (the figure the MT-Bench
        paper reports as agreement "without tie"); NaN without such pairs.
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
    bias_ci_low: np.ndarray
    bias_ci_high: np.ndarray
    n_battles: np.ndarray
    level: float
    n_non_tie: int = 0
    non_tie_accuracy: float = float("nan")


def judge_agreement(pairs: JudgedPairs, *, level: float) -> list[JudgeAgreement]:
    r"""How each judge agrees with people on the battles both judged.

    Accuracy and Cohen's kappa compare the judge's verdict with every human verdict of the
    battle (several raters: each counts once), over the three outcomes A, tie, B:
    :math:`\kappa = (p_o - p_e)/(1 - p_e)` with :math:`p_e = \sum_c p_{\text{judge},c}\,p_{\text{human},c}`
    (J. Cohen, A coefficient of agreement for nominal scales, *Educational and Psychological
    Measurement* 20(1):37-46, 1960); a judge's probability that A is better counts there as its
    more likely side (a tie at exactly 0.5), its bias as the probability itself. A system's bias
    is the mean over its battles with both verdicts of (judge score - human score), ties half a
    win, with a normal interval.
    """
    check_pairs(pairs)
    check_level(level)
    a, b, n_systems = pairs.system_a, pairs.system_b, pairs.n_systems
    battle = np.repeat(np.arange(pairs.n_battles), pairs.human_counts)
    outcomes = np.array(OUTCOMES)
    rows = []
    for j, judge in enumerate(pairs.judges):
        verdicts = pairs.judge_verdicts[:, j]
        answered = ~np.isnan(verdicts)
        # a probability that A is better agrees as its more likely side (a tie at exactly 0.5)
        per_verdict = np.where(np.isnan(verdicts), np.nan, np.sign(verdicts - 0.5) / 2 + 0.5)[battle]
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
            decisive = (human != 0.5) & (machine != 0.5)
            n_decisive = int(decisive.sum())
            decisive_accuracy = float(np.mean(human[decisive] == machine[decisive])) if n_decisive else float("nan")
        else:
            observed = kappa = human_ties = decisive_accuracy = float("nan")
            n_decisive = 0
        judge_ties = float(np.mean(verdicts[answered] == 0.5)) if answered.any() else float("nan")
        paired = pairs.labelled & answered
        diff = np.where(paired, verdicts - pairs.human_mean, 0.0)
        mask = paired.astype(float)
        n_s = per_system(mask, mask, a, b, n_systems)
        with np.errstate(invalid="ignore", divide="ignore"):
            bias = per_system(diff, -diff, a, b, n_systems) / n_s
            centred_a, centred_b = mask * (diff - bias[a]), mask * (-diff - bias[b])
            variance = per_system(centred_a**2, centred_b**2, a, b, n_systems) / n_s**2
            bias = np.where(n_s > 0, bias, np.nan)
        if pairs.clustered:  # battles sharing a question: the cluster-robust variance, t on its clusters
            variance, scale = _clustered_variance(pairs, centred_a, centred_b, mask, n_s, level)
            variance = variance * np.where(np.isfinite(scale), scale, np.nan) ** 2
        _, bias_low, bias_high = normal_interval(bias, np.diag(np.where(n_s > 1, variance, np.nan)), level)
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
                bias_low,
                bias_high,
                n_s.astype(np.int64),
                float(level),
                n_decisive,
                decisive_accuracy,
            )
        )
    return rows


def _clustered_variance(pairs: JudgedPairs, centred_a, centred_b, mask, n_s, level: float):
    """Each system's cluster-robust variance of its judge bias (:mod:`debias.stats.common.clusters`)
    from the battles' centred differences, and the t-over-z scale of its G_s - 1 degrees of
    freedom, G_s the clusters holding its battles with both verdicts."""
    a, b, n_systems = pairs.system_a, pairs.system_b, pairs.n_systems
    codes, n_clusters = pairs.cluster_codes, pairs.n_clusters
    offset = codes * n_systems
    with np.errstate(invalid="ignore", divide="ignore"):
        ia, ib = np.nan_to_num(centred_a / n_s[a]), np.nan_to_num(centred_b / n_s[b])
    totals = per_system(ia, ib, offset + a, offset + b, n_clusters * n_systems).reshape(n_clusters, n_systems)
    present = per_system(mask, mask, offset + a, offset + b, n_clusters * n_systems).reshape(n_clusters, n_systems)
    variance = np.diag(cluster_robust_covariance(totals, np.sum(present > 0, axis=0)))
    return variance, small_sample_scale(cluster_df(present > 0), level)


class RaterAgreement(NamedTuple):
    """People's agreement with each other (:func:`rater_agreement`): battles with several raters,
    the pairs of raters compared, the share that agree and Cohen's kappa (NaN without a pair)."""

    battles: int
    rater_pairs: int
    accuracy: float
    kappa: float


def rater_agreement(pairs: JudgedPairs) -> RaterAgreement:
    r"""How people agree with each other, where several raters judged a battle: the yardstick of a
    judge's agreement with people (:func:`agreement_table`).

    Every pair of raters of the same battle is compared (a battle of :math:`k` raters gives
    :math:`k(k-1)/2` pairs). ``accuracy`` is the share of those pairs that agree (A, tie or B);
    ``kappa`` is Cohen's kappa over them, :math:`(p_o - p_e)/(1 - p_e)` with
    :math:`p_e = \sum_c p_c^2` and :math:`p_c` the share of verdict :math:`c` among the paired
    verdicts (a pair of raters has no first and second rater: both orders are counted, so both
    margins are the same). ``battles`` and ``rater_pairs`` count what was compared; without a
    battle of several raters the shares are NaN.

    Returns
    -------
    RaterAgreement
    """
    counts = np.asarray(pairs.human_counts, dtype=np.int64)
    battle = np.repeat(np.arange(pairs.n_battles), counts)
    several = counts >= 2
    n_pairs = int(np.sum(counts * (counts - 1) // 2))
    if not several.any() or n_pairs == 0:
        return RaterAgreement(0, 0, float("nan"), float("nan"))
    # per battle and verdict: how many of its raters gave it
    per = np.stack([np.bincount(battle, pairs.human == c, pairs.n_battles) for c in OUTCOMES], axis=1)
    observed = float(np.sum(per * (per - 1) / 2)) / n_pairs
    # a verdict of a battle of k raters is in k - 1 of its ordered pairs
    weight = np.maximum(counts - 1, 0)[:, None]
    share = np.sum(per * weight, axis=0) / float(np.sum(counts * weight[:, 0]))
    expected = float(share @ share)
    kappa = (observed - expected) / (1.0 - expected) if expected < 1 else float("nan")
    return RaterAgreement(int(several.sum()), n_pairs, observed, kappa)
