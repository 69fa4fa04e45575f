"""The rows of the preference tables: estimates per system, estimand and estimator, and judge agreement.

:func:`preference_analysis` returns a :class:`PreferenceAnalysis`: the table of estimates with
what it does not hold row by row (the joint estimates, the data efficiencies, the raters'
disagreement), which the workflow writes as ``preferences.csv``, ``leaderboard.csv`` and
``summary.json``. Column names follow :mod:`debias.tables.columns`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
import pandas as pd

from debias.data.pairs import JudgedPairs
from debias.stats.intervals import effective_n
from debias.stats.joint import JointEstimate
from debias.stats.preferences import (
    ESTIMANDS,
    data_efficiency,
    judge_agreement,
    preference_estimates,
)
from debias.stats.vocabulary import is_people_only
from debias.tables.columns import CI_HIGH, CI_LOW, EFFECTIVE_N, LEVEL, N_JUDGED, NOTE, interval_of

__all__ = [
    "AGREEMENT_COLUMNS",
    "PREFERENCE_COLUMNS",
    "PreferenceAnalysis",
    "agreement_table",
    "preference_analysis",
    "preference_summary",
    "preference_table",
]

PREFERENCE_COLUMNS = [
    "system",
    "estimand",
    "estimator",
    "estimate",
    CI_LOW,
    CI_HIGH,
    "se",
    LEVEL,
    N_JUDGED,
    "n_judge",
    "n_missing",
    EFFECTIVE_N,
    NOTE,
]
BIAS_CI_LOW, BIAS_CI_HIGH = interval_of("bias")
AGREEMENT_COLUMNS = [
    "judge",
    "system",
    "n_verdicts",
    "n_missing",
    "n_unknown",
    "accuracy",
    "kappa",
    "human_tie_rate",
    "judge_tie_rate",
    "n_battles",
    "bias",
    BIAS_CI_LOW,
    BIAS_CI_HIGH,
    LEVEL,
]


@dataclass(frozen=True, eq=False)
class PreferenceAnalysis:
    """One analysis of pairwise preferences (:func:`preference_analysis`).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per system x estimand x estimator, columns :data:`PREFERENCE_COLUMNS`.
    results : tuple of JointEstimate
        The estimates behind the rows, one per estimand and estimator
        (:func:`debias.stats.preferences.preference_estimates`), with the joint covariance of the
        systems' estimates (what the leaderboard ranks).
    data_efficiency : mapping
        ``(estimand, estimator) -> `` the mean over systems of the ratio of squared widths
        against ``human`` (:func:`debias.stats.preferences.data_efficiency`); unbiased
        estimators only.
    rater_variance : float
        The pooled variance of one rater's verdict around its battle's mean, NaN without a
        battle rated twice (:attr:`debias.data.JudgedPairs.rater_variance`).
    n_multiply_rated : int
        Battles with several human verdicts.
    """

    table: pd.DataFrame
    results: tuple[JointEstimate, ...]
    data_efficiency: Mapping[tuple[str, str], float]
    rater_variance: float
    n_multiply_rated: int


def preference_analysis(
    pairs: JudgedPairs, *, level: float, ties: str = "half", estimands=ESTIMANDS
) -> PreferenceAnalysis:
    """Every estimator's estimates of every estimand, as a table and as joint estimates.

    The table has one row per system x estimand x estimator
    (:func:`debias.stats.preferences.preference_estimates`). ``n_judged``, ``n_judge`` and
    ``n_missing`` count the system's battles with a human verdict, with a verdict of the
    estimator's judge(s), and where one of them gave none. ``effective_n`` is ``n_judged`` times
    the variance of ``human`` over the estimator's (:func:`debias.stats.intervals.effective_n`):
    the human battles the classical estimate would need for the same interval (empty for
    ``judge:*``, which is biased). ``note`` says why a row has no estimate or no interval.
    """
    results = tuple(preference_estimates(pairs, level=level, ties=ties, estimands=estimands))
    human = {r.estimand: r for r in results if is_people_only(r.estimator)}
    frames, efficiency = [], {}
    for result in results:
        base = human[result.estimand]
        effective = effective_n(base.n_judged, base.se**2, result.se**2)
        if result.biased:
            effective = np.full(len(result.systems), np.nan)
        else:
            efficiency[(result.estimand, result.estimator)] = data_efficiency(result, base)
        frames.append(
            pd.DataFrame(
                {
                    "system": list(result.systems),
                    "estimand": result.estimand,
                    "estimator": result.estimator,
                    "estimate": result.estimate,
                    CI_LOW: result.ci_low,
                    CI_HIGH: result.ci_high,
                    "se": result.se,
                    LEVEL: result.level,
                    N_JUDGED: result.n_judged,
                    "n_judge": result.n_judge,
                    "n_missing": result.n_missing,
                    EFFECTIVE_N: effective,
                    NOTE: list(result.notes),
                }
            )
        )
    table = pd.concat(frames, ignore_index=True)[PREFERENCE_COLUMNS]
    rank = {**{name: k for k, name in enumerate(pairs.systems)}, **{name: k for k, name in enumerate(ESTIMANDS)}}
    table = table.sort_values(["system", "estimand"], key=lambda column: column.map(rank), kind="stable")
    return PreferenceAnalysis(
        table=table.reset_index(drop=True),
        results=results,
        data_efficiency=MappingProxyType(efficiency),
        rater_variance=pairs.rater_variance,
        n_multiply_rated=pairs.n_multiply_rated,
    )


def preference_table(pairs: JudgedPairs, *, level: float, ties: str = "half", estimands=ESTIMANDS) -> pd.DataFrame:
    """The table of :func:`preference_analysis` alone (columns :data:`PREFERENCE_COLUMNS`)."""
    return preference_analysis(pairs, level=level, ties=ties, estimands=estimands).table


def agreement_table(pairs: JudgedPairs, *, level: float) -> pd.DataFrame:
    """One row per judge x system (:func:`debias.stats.preferences.judge_agreement`): the judge's
    accuracy, Cohen's kappa and tie rates (the same on every row of a judge) and the system's
    judge bias (judge win rate minus human win rate on the battles both judged) with its interval
    (``bias_ci_low``, ``bias_ci_high``)."""
    rows = []
    for agreement in judge_agreement(pairs, level=level):
        for s, system in enumerate(agreement.systems):
            rows.append(
                {
                    "judge": agreement.judge,
                    "system": system,
                    "n_verdicts": agreement.n_verdicts,
                    "n_missing": agreement.n_missing,
                    "n_unknown": agreement.n_unknown,
                    "accuracy": agreement.accuracy,
                    "kappa": agreement.kappa,
                    "human_tie_rate": agreement.human_tie_rate,
                    "judge_tie_rate": agreement.judge_tie_rate,
                    "n_battles": int(agreement.n_battles[s]),
                    "bias": agreement.bias[s],
                    BIAS_CI_LOW: agreement.bias_ci_low[s],
                    BIAS_CI_HIGH: agreement.bias_ci_high[s],
                    LEVEL: agreement.level,
                }
            )
    return pd.DataFrame(rows, columns=AGREEMENT_COLUMNS)


def _number(value) -> float | None:
    """A float for JSON, ``None`` for NaN."""
    value = float(value)
    return None if np.isnan(value) else value


def preference_summary(pairs: JudgedPairs, analysis: PreferenceAnalysis) -> dict:
    """What the preference tables do not hold row by row, as plain values (JSON-ready).

    ``battles``, ``human_battles`` (with a human verdict), ``pool_battles``, ``human_verdicts``,
    ``multiply_rated`` (battles with several raters) and ``rater_variance`` (the pooled variance
    of one rater's verdict around its battle's mean, ``None`` without a battle rated twice);
    ``systems`` and ``systems_without_human`` (no battle with a human verdict: no unbiased
    estimate); ``judge_unknown`` (answers per judge that were not verdicts, counted as missing);
    ``data_efficiency`` (estimand -> estimator -> the mean over systems of the ratio of squared
    widths against ``human``, from ``analysis``, the :func:`preference_analysis` of ``pairs``).
    """
    labelled = pairs.labelled
    with_human = np.zeros(pairs.n_systems, bool)
    with_human[pairs.system_a[labelled]] = True
    with_human[pairs.system_b[labelled]] = True
    efficiency: dict[str, dict[str, float | None]] = {}
    for (estimand, estimator), value in analysis.data_efficiency.items():
        efficiency.setdefault(estimand, {})[estimator] = _number(value)
    return {
        "battles": pairs.n_battles,
        "human_battles": int(labelled.sum()),
        "pool_battles": int((~labelled).sum()),
        "human_verdicts": int(pairs.human.size),
        "multiply_rated": analysis.n_multiply_rated,
        "rater_variance": _number(analysis.rater_variance),
        "systems": list(pairs.systems),
        "systems_without_human": [s for s, seen in zip(pairs.systems, with_human) if not seen],
        "judge_unknown": {j: int(n) for j, n in zip(pairs.judges, pairs.judge_unknown)},
        "data_efficiency": efficiency,
    }
