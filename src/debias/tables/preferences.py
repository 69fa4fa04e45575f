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
from debias.stats.common.intervals import effective_n
from debias.stats.common.joint import JointEstimate
from debias.stats.common.status import best_first
from debias.stats.common.vocabulary import is_people_only
from debias.stats.preferences import (
    ESTIMANDS,
    data_efficiency,
    judge_agreement,
    preference_estimates,
    rater_agreement,
)
from debias.tables.columns import (
    CI_HIGH,
    CI_LOW,
    CLUSTERS,
    DESIGN_EFFECT,
    EFFECTIVE_N,
    LEADERBOARD_INTERVAL,
    LEVEL,
    N_JUDGED,
    NOTE,
    clustered,
    interval_of,
    with_cluster_columns,
)

__all__ = [
    "AGREEMENT_COLUMNS",
    "BY",
    "NON_TIE_COLUMNS",
    "HEAD_TO_HEAD_COLUMNS",
    "INTERVAL_LEVEL",
    "PREFERENCE_COLUMNS",
    "PreferenceAnalysis",
    "agreement_table",
    "head_to_head_table",
    "human_agreement",
    "judge_only_battles",
    "preference_analysis",
    "preference_breakdown",
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
        (:func:`debias.stats.preferences.estimands.preference_estimates`), with the joint covariance of the
        systems' estimates (what the leaderboard ranks).
    data_efficiency : mapping
        ``(estimand, estimator) -> `` the mean over systems of the ratio of squared widths
        against ``human`` (:func:`debias.stats.preferences.estimands.data_efficiency`); unbiased
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
    pairs: JudgedPairs,
    *,
    level: float,
    ties: str = "half",
    estimands=ESTIMANDS,
    covariates=(),
    baseline: str | None = None,
) -> PreferenceAnalysis:
    """Every estimator's estimates of every estimand, as a table and as joint estimates.

    The table has one row per system x estimand x estimator
    (:func:`debias.stats.preferences.estimands.preference_estimates`), in one block per estimand
    and estimator (win rates first, then strengths, then the other estimands), each block's
    systems best first (equal estimates by name, no estimate last:
    :func:`debias.stats.common.status.best_first`). ``n_judged``, ``n_judge`` and
    ``n_missing`` count battles, for every estimator: the system's battles with a human verdict,
    with a verdict of the estimator's judge (of any of them for ``ppi++:combined``), and without
    one (of none of them for ``ppi++:combined``). ``effective_n`` is ``n_judged`` times
    the variance of ``human`` over the estimator's (:func:`debias.stats.common.intervals.effective_n`):
    the human battles the classical estimate would need for the same interval (empty for
    ``judge:*``, which is biased). ``note`` says why a row has no estimate or no interval. With
    clustered battles (estimates whose ``n_clusters`` is set), ``clusters`` and
    ``design_effect`` say the clusters behind each estimate and its design effect (before
    ``note``; :data:`debias.tables.columns.CLUSTER_COLUMNS`); otherwise the table has neither.
    ``covariates``, ``ties="davidson"`` and ``baseline`` add the rows of
    :func:`debias.stats.preferences.estimands.preference_estimates` (``coefficient:<name>`` and
    ``tie_parameter`` with an empty ``system``; ``baseline_win_rate``, ``lc_baseline_win_rate``).
    """
    results = tuple(
        preference_estimates(
            pairs, level=level, ties=ties, estimands=estimands, covariates=tuple(covariates), baseline=baseline
        )
    )
    human = {r.estimand: r for r in results if is_people_only(r.estimator)}
    estimand_order = {name: k for k, name in enumerate(ESTIMANDS)}
    with_clusters = clustered(results)
    frames, efficiency = [], {}
    # one block of rows per estimand and estimator, the estimands in their order, the systems best first
    blocks = sorted(range(len(results)), key=lambda i: (estimand_order.get(results[i].estimand, len(ESTIMANDS)), i))
    for result in (results[i] for i in blocks):
        base = human[result.estimand]
        effective = effective_n(base.n_judged, base.se**2, result.se**2)
        if result.biased:
            effective = np.full(len(result.systems), np.nan)
        else:
            efficiency[(result.estimand, result.estimator)] = data_efficiency(result, base)
        size = len(result.systems)
        in_clusters = {}
        if with_clusters:
            n, effect = result.n_clusters, result.design_effect
            in_clusters = {
                CLUSTERS: pd.array([None] * size if n is None else np.asarray(n, dtype=np.int64), dtype="Int64"),
                DESIGN_EFFECT: np.full(size, np.nan) if effect is None else np.asarray(effect, dtype=float),
            }
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
                    **in_clusters,
                    NOTE: list(result.notes),
                }
            ).iloc[best_first(result.estimate, result.systems)]
        )
    table = with_cluster_columns(pd.concat(frames, ignore_index=True), PREFERENCE_COLUMNS, clustered=with_clusters)
    return PreferenceAnalysis(
        table=table.reset_index(drop=True),
        results=results,
        data_efficiency=MappingProxyType(efficiency),
        rater_variance=pairs.rater_variance,
        n_multiply_rated=pairs.n_multiply_rated,
    )


def preference_table(
    pairs: JudgedPairs, *, level: float, ties: str = "half", estimands=ESTIMANDS, covariates=(), baseline=None
) -> pd.DataFrame:
    """The table of :func:`preference_analysis` alone (columns :data:`PREFERENCE_COLUMNS`)."""
    analysis = preference_analysis(
        pairs, level=level, ties=ties, estimands=estimands, covariates=covariates, baseline=baseline
    )
    return analysis.table


#: Columns in the strengths' unit, scaled with them (:func:`strengths_as_elo`).
IN_STRENGTH_UNITS = ("estimate", CI_LOW, CI_HIGH, *LEADERBOARD_INTERVAL)


def strengths_as_elo(table: pd.DataFrame, anchor: str | None = None) -> pd.DataFrame:
    """``table`` (a preference table or leaderboard) with its ``strength`` rows in Elo points
    (:func:`debias.stats.preferences.bradley_terry.elo_points`): per estimator, the mean system at 1000
    (``anchor`` ``None``; the strengths are centred to mean 0) or the system ``anchor`` at 1000.
    Estimates and interval ends are mapped, ``se`` multiplied by 400/ln(10); win rates, ranks
    and rank-sets are unchanged. With a named anchor the intervals are those of each strength
    relative to the mean, shifted by the anchor's estimate (the anchor's own uncertainty is not
    added); an estimator without a strength of the anchor gets no ratings and a note."""
    from debias.stats.preferences import ELO_POINTS_PER_UNIT, elo_points

    if anchor is not None:
        from debias.data import find_name, shown_name, shown_names

        named = sorted(set(table["system"]) - {""})
        spelled = find_name(anchor, named)
        if spelled is None:
            raise ValueError(f"--anchor: no system {shown_name(anchor)} (systems: {shown_names(named)})")
        anchor = spelled
    table = table.copy()
    strength = table["estimand"] == "strength" if "estimand" in table else pd.Series(True, index=table.index)
    columns = [c for c in IN_STRENGTH_UNITS if c in table]
    for estimator in table.loc[strength, "estimator"].unique():
        rows = strength & (table["estimator"] == estimator)
        shift = 0.0
        if anchor is not None:
            mine = table.loc[rows & (table["system"] == anchor), "estimate"]
            shift = float(mine.iloc[0]) if len(mine) else float("nan")
        for column in columns:
            table.loc[rows, column] = elo_points(table.loc[rows, column].astype(float), shift)
        if "se" in table:
            table.loc[rows, "se"] = table.loc[rows, "se"].astype(float) * ELO_POINTS_PER_UNIT
        if np.isnan(shift) and NOTE in table:
            reason = f"no Elo rating: the anchor {anchor} has no strength by this estimator"
            table.loc[rows, NOTE] = [
                f"{n}; {reason}" if isinstance(n, str) and n else reason for n in table.loc[rows, NOTE]
            ]
    return table


#: Agreement on non-tie verdicts, after ``kappa`` in :func:`agreement_table` with ``non_tie``.
NON_TIE_COLUMNS = ["n_non_tie", "non_tie_accuracy"]


def agreement_table(pairs: JudgedPairs, *, level: float, non_tie: bool = False) -> pd.DataFrame:
    """One row per judge x system (:func:`debias.stats.preferences.estimands.judge_agreement`), each column
    in one unit.

    Per judge (the same on every row of a judge): ``n_verdicts``, the human verdicts compared
    with the judge's (a battle of three raters counts three); ``n_missing``, the battles the judge
    did not answer, and ``n_unknown``, those of them whose answer was not a verdict; ``accuracy``
    and ``kappa`` (Cohen's) over the compared verdicts; ``human_tie_rate``, the share of ties
    among the compared human verdicts, ``judge_tie_rate`` among the judge's verdicts. Per system:
    ``n_battles``, its battles with both a human and a judge verdict; ``bias``, the judge win
    rate minus the human win rate on them, with its interval (``bias_ci_low``,
    ``bias_ci_high``) at ``level``. People's agreement with each other: :func:`human_agreement`.
    With ``non_tie``, after ``kappa`` (per judge): ``n_non_tie``, the compared verdicts where
    neither the judge nor the rater says tie, and ``non_tie_accuracy``, the share of them that
    agree (agreement on non-tie verdicts, the MT-Bench paper's "without tie")."""
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
                    "n_non_tie": agreement.n_non_tie,
                    "non_tie_accuracy": agreement.non_tie_accuracy,
                    "n_battles": int(agreement.n_battles[s]),
                    "bias": agreement.bias[s],
                    BIAS_CI_LOW: agreement.bias_ci_low[s],
                    BIAS_CI_HIGH: agreement.bias_ci_high[s],
                    LEVEL: agreement.level,
                }
            )
    columns = list(AGREEMENT_COLUMNS)
    if non_tie:
        at = columns.index("kappa") + 1
        columns[at:at] = NON_TIE_COLUMNS
    return pd.DataFrame(rows, columns=columns)


#: The three human verdicts (score of A): B better, tie, A better.
def human_agreement(pairs: JudgedPairs) -> dict:
    """How people agree with each other where several raters judged a battle
    (:func:`debias.stats.preferences.agreement.rater_agreement`), JSON-ready: ``{"battles", "rater_pairs",
    "accuracy", "kappa"}``, the shares ``None`` without a battle of several raters."""
    found = rater_agreement(pairs)
    return {
        "battles": found.battles,
        "rater_pairs": found.rater_pairs,
        "accuracy": _number(found.accuracy),
        "kappa": _number(found.kappa),
    }


def judge_only_battles(pairs: JudgedPairs) -> dict[str, int]:
    """Per judge, the battles without a human verdict that it judged: what its verdicts add to
    the human ones (PPI++ narrows no interval without them)."""
    if not pairs.judges:
        return {}
    answered = ~np.isnan(pairs.judge_verdicts[~pairs.labelled])
    return {judge: int(n) for judge, n in zip(pairs.judges, answered.sum(axis=0))}


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
    estimate); ``judge_unknown`` (answers per judge mapped to no verdict, counted as missing);
    ``judge_only_battles`` (per judge, the battles without a human verdict it judged:
    :func:`judge_only_battles`); ``human_agreement`` (how raters of the same battle agree:
    :func:`human_agreement`); ``data_efficiency`` (estimand -> estimator -> the mean over systems
    of the ratio of squared widths against ``human``, from ``analysis``, the
    :func:`preference_analysis` of ``pairs``); and, for battles given their clusters
    (:attr:`debias.data.JudgedPairs.clusters`), ``clusters``: how many there are.
    """
    labelled = pairs.labelled
    with_human = np.zeros(pairs.n_systems, bool)
    with_human[pairs.system_a[labelled]] = True
    with_human[pairs.system_b[labelled]] = True
    efficiency: dict[str, dict[str, float | None]] = {}
    for (estimand, estimator), value in analysis.data_efficiency.items():
        efficiency.setdefault(estimand, {})[estimator] = _number(value)
    clusters = {} if pairs.clusters is None else {"clusters": pairs.n_clusters}
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
        "judge_only_battles": judge_only_battles(pairs),
        "human_agreement": human_agreement(pairs),
        "data_efficiency": efficiency,
        **clusters,
    }


# The head-to-head matrix and breakdowns ---------------------------------------------------------

#: The level each interval of a simultaneous family is built at (Šidák's,
#: :func:`debias.stats.common.multiplicity.sidak_level`).
INTERVAL_LEVEL = "interval_level"
HEAD_TO_HEAD_COLUMNS = [
    "estimator",
    "system",
    "opponent",
    "estimate",
    CI_LOW,
    CI_HIGH,
    "se",
    LEVEL,
    INTERVAL_LEVEL,
    "n_pairs",
    N_JUDGED,
    "n_battles",
    NOTE,
]
#: The column of a breakdown's level (empty on the rows of every battle).
BY = "by"


def head_to_head_table(
    pairs: JudgedPairs,
    *,
    level: float,
    ties: str = "half",
    estimators=None,
    systems=None,
    max_systems: int | None = None,
) -> pd.DataFrame:
    """One row per estimator and ordered pair of systems shown (``system`` against
    ``opponent``, the diagonal left out): the system's win rate against the opponent with its
    interval, simultaneous over the ``n_pairs`` pairs shown at ``level`` (each built at
    ``interval_level``: :mod:`debias.stats.preferences.matrix`); ``n_judged`` the pair's
    human battles (decisive ones with ties left out), ``n_battles`` all its battles; ``note`` why
    a cell is empty (a pair without battles, without a human verdict) or what it rests on.

    Systems strongest first (people's Bradley-Terry strengths), the same order for every
    estimator; with more than ``max_systems`` (default
    :data:`debias.stats.preferences.matrix.MAX_SYSTEMS`) only the strongest are shown and
    ``table.attrs["omitted"]`` lists the others. Estimators: every one of the battles
    (``human``, ``judge:<j>``, ``ppi++:<j>``, ``ppi++:combined``) unless named.
    """
    from debias.stats.preferences import (
        MAX_SYSTEMS,
        Battles,
        head_to_head,
        preference_estimator_names,
        strength_order,
    )

    battles = Battles.of(pairs, ties)
    limit = MAX_SYSTEMS if max_systems is None else max_systems
    omitted: list[str] = []
    if systems is None:
        systems = strength_order(battles, ties=ties, level=level)
        if len(systems) > limit:
            systems, omitted = systems[:limit], systems[limit:]
    names = preference_estimator_names(pairs.judges) if estimators is None else list(estimators)
    frames = []
    for name in names:
        matrix = head_to_head(battles, name, level=level, ties=ties, systems=systems)
        n = len(matrix.systems)
        row, column = np.nonzero(~np.eye(n, dtype=bool))
        frames.append(
            pd.DataFrame(
                {
                    "estimator": name,
                    "system": [matrix.systems[k] for k in row],
                    "opponent": [matrix.systems[k] for k in column],
                    "estimate": matrix.estimate[row, column],
                    CI_LOW: matrix.ci_low[row, column],
                    CI_HIGH: matrix.ci_high[row, column],
                    "se": matrix.se[row, column],
                    LEVEL: matrix.level,
                    INTERVAL_LEVEL: matrix.pair_level,
                    "n_pairs": matrix.n_pairs,
                    N_JUDGED: matrix.n_judged[row, column],
                    "n_battles": matrix.n_battles[row, column],
                    NOTE: matrix.notes[row, column],
                },
                columns=HEAD_TO_HEAD_COLUMNS,
            )
        )
    table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=HEAD_TO_HEAD_COLUMNS)
    table.attrs["omitted"] = list(omitted)
    return table


def _levels(pairs: JudgedPairs, by: str) -> np.ndarray:
    """Each battle's level in column ``by``: a ``ValueError`` naming the column when the battles
    were read without it."""
    facets = pairs.facets or {}
    if by not in facets:
        known = f" (read with: {', '.join(facets)})" if facets else ""
        raise ValueError(
            f"by={by!r}: the battles carry no column {by!r}{known}; read them with by={by!r} "
            "(debias.read_pairs(..., by=...), --by on the command line, by: in a preference task)"
        )
    return np.asarray(facets[by], dtype=str)


def preference_breakdown(
    pairs: JudgedPairs, by: str, *, level: float, ties: str = "half", estimands=ESTIMANDS
) -> pd.DataFrame:
    """The preference table (:func:`preference_analysis`) of every battle and of each level of
    column ``by`` (:attr:`debias.data.JudgedPairs.facets`), one group of rows per level.

    Column ``by`` holds the level (empty on the rows of every battle). The L levels' intervals
    of one system, estimand and estimator are simultaneous at ``level``: each is built at
    ``interval_level`` :math:`= \\text{level}^{1/L}` (Šidák over the levels, exact for levels
    whose battles share no cluster); ``level`` stays the nominal one. Each level is analysed
    on its own battles as a whole analysis (PPI++ weights tuned in the level); a level with few
    battles keeps its rows, whose notes say what is missing (no human verdict, one battle, few
    battles). Levels in text order.
    """
    from debias.stats.common.multiplicity import sidak_level

    labels = _levels(pairs, by)
    levels = sorted(set(labels.tolist()))
    overall = preference_analysis(pairs, level=level, ties=ties, estimands=estimands).table
    overall.insert(0, BY, None)
    overall[INTERVAL_LEVEL] = level
    frames = [overall]
    each = sidak_level(level, len(levels))
    for value in levels:
        part = preference_analysis(pairs.take(labels == value), level=each, ties=ties, estimands=estimands).table
        part.insert(0, BY, value)
        part[LEVEL] = level
        part[INTERVAL_LEVEL] = each
        frames.append(part)
    columns = list(dict.fromkeys(c for frame in frames for c in frame.columns))
    columns = [c for c in columns if c not in (NOTE, INTERVAL_LEVEL)] + [INTERVAL_LEVEL, NOTE]
    table = pd.concat(frames, ignore_index=True)[columns]
    table.attrs["by"] = by
    return table
