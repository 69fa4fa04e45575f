"""The rows of the preference tables: estimates per system, estimand and estimator, and judge agreement."""

from __future__ import annotations

import numpy as np
import pandas as pd

from debias.data.pairs import JudgedPairs
from debias.stats.intervals import effective_n
from debias.stats.preferences import (
    ESTIMANDS,
    data_efficiency,
    judge_agreement,
    preference_estimates,
)
from debias.stats.vocabulary import is_people_only

__all__ = ["AGREEMENT_COLUMNS", "PREFERENCE_COLUMNS", "agreement_table", "preference_summary", "preference_table"]

PREFERENCE_COLUMNS = [
    "system",
    "estimand",
    "estimator",
    "estimate",
    "lower",
    "upper",
    "se",
    "level",
    "n_human",
    "n_judge",
    "n_missing",
    "effective_n",
    "reason",
]
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
    "bias_lower",
    "bias_upper",
    "level",
]


def preference_table(pairs: JudgedPairs, *, level: float, ties: str = "half", estimands=ESTIMANDS) -> pd.DataFrame:
    """One row per system x estimand x estimator (:func:`debias.stats.preferences.preference_estimates`).

    ``n_human``, ``n_judge`` and ``n_missing`` count the system's battles with a human verdict,
    with a verdict of the estimator's judge(s), and where one of them gave none. ``effective_n``
    is ``n_human`` times the variance of ``human`` over the estimator's
    (:func:`debias.stats.intervals.effective_n`): the human battles the classical estimate would
    need for the same interval (empty for ``judge:*``, which is biased).
    ``reason`` says why a row has no estimate or no interval. The table's ``attrs`` hold
    ``data_efficiency`` (per estimand and estimator, the mean over systems of the ratio of
    squared widths against ``human``: :func:`debias.stats.preferences.data_efficiency`),
    ``rater_variance`` (the pooled variance of one rater's verdict around its battle's mean, NaN
    without a battle rated twice), ``n_multiply_rated`` and
    ``results`` (the :class:`~debias.stats.joint.JointEstimate` objects, with the joint
    covariance of the systems' estimates).
    """
    results = preference_estimates(pairs, level=level, ties=ties, estimands=estimands)
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
                    "lower": result.ci_low,
                    "upper": result.ci_high,
                    "se": result.se,
                    "level": result.level,
                    "n_human": result.n_judged,
                    "n_judge": result.n_judge,
                    "n_missing": result.n_missing,
                    "effective_n": effective,
                    "reason": list(result.notes),
                }
            )
        )
    table = pd.concat(frames, ignore_index=True)[PREFERENCE_COLUMNS]
    rank = {**{name: k for k, name in enumerate(pairs.systems)}, **{name: k for k, name in enumerate(ESTIMANDS)}}
    table = table.sort_values(["system", "estimand"], key=lambda column: column.map(rank), kind="stable")
    table = table.reset_index(drop=True)
    table.attrs.update(
        data_efficiency=efficiency,
        rater_variance=pairs.rater_variance,
        n_multiply_rated=pairs.n_multiply_rated,
        results=results,
    )
    return table


def agreement_table(pairs: JudgedPairs, *, level: float) -> pd.DataFrame:
    """One row per judge x system (:func:`debias.stats.preferences.judge_agreement`): the judge's
    accuracy, Cohen's kappa and tie rates (the same on every row of a judge) and the system's
    judge bias (judge win rate minus human win rate on the battles both judged) with its interval."""
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
                    "bias_lower": agreement.bias_lower[s],
                    "bias_upper": agreement.bias_upper[s],
                    "level": agreement.level,
                }
            )
    table = pd.DataFrame(rows, columns=AGREEMENT_COLUMNS)
    table.attrs.update(rater_variance=pairs.rater_variance, n_multiply_rated=pairs.n_multiply_rated)
    return table


def _number(value) -> float | None:
    """A float for JSON, ``None`` for NaN."""
    value = float(value)
    return None if np.isnan(value) else value


def preference_summary(pairs: JudgedPairs, table: pd.DataFrame) -> dict:
    """What the preference tables do not hold row by row, as plain values (JSON-ready).

    ``battles``, ``human_battles`` (with a human verdict), ``pool_battles``, ``human_verdicts``,
    ``multiply_rated`` (battles with several raters) and ``rater_variance`` (the pooled variance
    of one rater's verdict around its battle's mean, ``None`` without a battle rated twice);
    ``systems`` and ``systems_without_human`` (no battle with a human verdict: no unbiased
    estimate); ``judge_unknown`` (answers per judge that were not verdicts, counted as missing);
    ``data_efficiency`` (estimand -> estimator -> the mean over systems of the ratio of squared
    widths against ``human``, from ``table.attrs``).
    """
    labelled = pairs.labelled
    with_human = np.zeros(pairs.n_systems, bool)
    with_human[pairs.system_a[labelled]] = True
    with_human[pairs.system_b[labelled]] = True
    efficiency: dict[str, dict[str, float | None]] = {}
    for (estimand, estimator), value in table.attrs.get("data_efficiency", {}).items():
        efficiency.setdefault(estimand, {})[estimator] = _number(value)
    return {
        "battles": pairs.n_battles,
        "human_battles": int(labelled.sum()),
        "pool_battles": int((~labelled).sum()),
        "human_verdicts": int(pairs.human.size),
        "multiply_rated": pairs.n_multiply_rated,
        "rater_variance": _number(pairs.rater_variance),
        "systems": list(pairs.systems),
        "systems_without_human": [s for s, seen in zip(pairs.systems, with_human) if not seen],
        "judge_unknown": {j: int(n) for j, n in zip(pairs.judges, pairs.judge_unknown)},
        "data_efficiency": efficiency,
    }
