"""The public API: the workflow's analyses on your own long table, from Python.

Human-evaluation data usually comes as a long table, one row per judgment: which item (input),
which system, which prompt (question asked of the raters), which rater, the score, and often
per-output metric scores. The functions here take such a table (a pandas DataFrame), build the
same joined tables the workflow builds (:mod:`debias.tables.joined`), and return the rows of the
workflow's own tables: :func:`estimate` those of ``system_estimates.csv``, :func:`compare` those
of ``system_comparisons.csv``, :func:`plan` those of ``plan.csv``; :func:`leaderboard` ranks the
systems with simultaneous rank-sets.

The population (outputs nobody judged) is given one way everywhere: ``population`` is a table
with one row per output (item, and system when there are several) and the metric score
columns; judged outputs may be in it too. Without it the judged outputs are the population.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from debias.config.settings import default, section_defaults
from debias.data import EvalSample, as_judgments
from debias.io.canonical import InputError
from debias.io.reader import TableColumns, read_evaluation_table, with_population
from debias.stats.common.intervals import MeanEstimate, check_level
from debias.stats.common.threads import bounded_blas
from debias.stats.common.vocabulary import check_ties
from debias.stats.ratings import estimate_mean as _estimate_sample
from debias.stats.ratings import theory_data_efficiency
from debias.stats.ratings import variance_components as _variance_components

#: Task name the API's rows carry (the workflow's tables have one per configured task).
TASK = "evaluation"

__all__ = [
    "compare",
    "data_efficiency",
    "estimate",
    "estimate_mean",
    "judge_agreement",
    "leaderboard",
    "plan",
    "preferences",
    "variance_components",
]


def _level(level: float | None) -> float:
    """``level``, or the configuration's default ``estimates.level`` (read from the schema on
    first use, not at import)."""
    return section_defaults("estimates")["level"] if level is None else level


@bounded_blas
def estimate(
    frame: pd.DataFrame,
    *,
    item: str,
    judgment: str,
    system: str | None = None,
    prompt: str | None = None,
    rater: str | None = None,
    scores: Sequence[str] = (),
    population: pd.DataFrame | None = None,
    scale: tuple[float, float] | None = None,
    level: float | None = None,
) -> pd.DataFrame:
    """Every estimator of every system's mean human score, with intervals, from a long table.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per judgment.
    item, judgment : str
        Columns naming the item (the input a system responded to) and holding the judgment.
    system, prompt, rater : str, optional
        Columns naming the system, the prompt (the question the raters answered) and the rater.
    scores : sequence of str
        Columns with per-output metric scores (the same on every row of an output): the control
        variates.
    population : pandas.DataFrame, optional
        One row per output, judged or not, with ``item``, ``system`` and the ``scores`` columns:
        the metrics on the outputs nobody judged. Rows of ``frame`` whose judgment is empty
        (NaN) are such outputs too. Default: the outputs of ``frame``.
    scale : (float, float), optional
        The rating scale: a judgment outside it is an error. Default: inferred from the
        judgments, refused when one system's judgments look like another scale's.
    level : float, optional
        Nominal coverage of the intervals (default: the configuration's ``estimates.level``).

    The table is read by the rules of ``debias import`` (:mod:`debias.io.reader`): names
    trimmed, a rater who judged an output twice refused, errors
    (:class:`debias.io.canonical.InputError`, a ``ValueError``) naming the row (the header being row 1)
    and the column.

    Returns
    -------
    pandas.DataFrame
        The columns and rows of the workflow's ``system_estimates.csv``
        (:func:`debias.tables.estimates.system_estimates_table`); ``task`` is ``"evaluation"``.

    Examples
    --------
    >>> import pandas as pd, debias
    >>> frame = pd.DataFrame({"seg": [f"s{i}" for i in range(8)] * 2, "sys": ["a"] * 8 + ["b"] * 8,
    ...                       "score": [3, 4, 2, 5, 4, 3, 4, 2, 4, 5, 3, 5, 4, 4, 5, 3],
    ...                       "bleu": [.3, .5, .2, .7, .4, .3, .5, .2, .5, .6, .3, .8, .4, .5, .6, .3]})
    >>> table = debias.estimate(frame, item="seg", system="sys", judgment="score", scores=["bleu"])
    >>> table[["system", "estimator", "n_judged"]].values.tolist()
    [['a', 'mean', 8], ['a', 'cv:bleu', 8], ['b', 'mean', 8], ['b', 'cv:bleu', 8]]
    """
    from debias.tables.estimates import system_estimates_table

    _check_settings(estimates={"level": level})

    tables, prompts = _joined(frame, item, judgment, system, prompt, rater, scores, population, scale)
    return system_estimates_table(tables, {TASK: prompts}, _score_columns(scores), level=_level(level))


@bounded_blas
def compare(
    frame: pd.DataFrame,
    *,
    item: str,
    judgment: str,
    system: str,
    prompt: str | None = None,
    rater: str | None = None,
    scores: Sequence[str] = (),
    population: pd.DataFrame | None = None,
    scale: tuple[float, float] | None = None,
    level: float | None = None,
    min_items: int | None = None,
    de_n: int | None = None,
) -> pd.DataFrame:
    """Paired differences of every two systems judged on the same items, from a long table.

    Parameters are those of :func:`estimate`; ``system`` is required. A pair sharing fewer than
    ``min_items`` judged items is left out (with a log line). ``de_n`` is the sample size at
    which the saving over independent samples, ``de_vs_independent``, is computed.

    Returns
    -------
    pandas.DataFrame
        The columns and rows of the workflow's ``system_comparisons.csv``
        (:func:`debias.tables.comparisons.system_comparisons_table`).
    """
    from debias.tables.comparisons import system_comparisons_table

    _check_settings(estimates={"level": level}, min_judged_items=min_items, compare={"de_n": de_n})

    tables, prompts = _joined(frame, item, judgment, system, prompt, rater, scores, population, scale)
    spec = {**section_defaults("compare"), "level": _level(level)}
    if de_n is not None:
        spec["de_n"] = de_n
    min_items = default("min_judged_items") if min_items is None else min_items
    return system_comparisons_table(tables, {TASK: prompts}, _score_columns(scores), spec, min_items=min_items)


@bounded_blas
def leaderboard(
    frame: pd.DataFrame,
    *,
    item: str,
    judgment: str | None = None,
    system: str | None = None,
    prompt: str | None = None,
    rater: str | None = None,
    scores: Sequence[str] = (),
    population: pd.DataFrame | None = None,
    scale: tuple[float, float] | None = None,
    level: float | None = None,
    higher_is_better: bool = True,
    seed: int = 0,
    system_a: str | None = None,
    system_b: str | None = None,
    verdict: str | None = None,
    judges: Sequence[str] = (),
    pool: pd.DataFrame | None = None,
    ties: str = "half",
    mapping: Mapping | None = None,
    top_k: int | None = None,
) -> pd.DataFrame:
    """Every system's estimate, interval and simultaneous rank-set, per estimator, from a long table.

    Ratings take the parameters of :func:`estimate` (``judgment`` and ``system`` required,
    ``scale`` as there); pairwise verdicts those of :func:`preferences` (``system_a``,
    ``system_b`` and ``verdict`` required). An argument of the other form is refused
    (:class:`~debias.io.canonical.InputError` naming it), never ignored: pairwise verdicts take
    no ``judgment``, ``system``, ``prompt``, ``scores``, ``population``, ``scale`` or
    ``higher_is_better=False`` (a higher win rate or strength is always better), ratings no
    ``judges``, ``pool``, ``ties`` or ``mapping``. For pairwise verdicts every estimand (win
    rate, strength) and estimator (``human``, ``judge:<j>``, ``ppi++:<j>``, ``ppi++:combined``)
    is ranked from the joint covariance of its estimates
    (:func:`debias.tables.leaderboard.preferences_leaderboard`), with an ``estimand`` column
    first and no ``task``/``prompt``. ``level`` (default: the config schema's
    ``estimates.level``; a bad level is an :class:`~debias.io.canonical.InputError`, as in
    every function here) is the level of each estimate's interval and the
    simultaneous level of the rank-sets: with that probability every system's true rank (1 =
    highest mean human score) lies in its ``[rank_low, rank_high]`` at once
    (:func:`debias.stats.common.ranking.rank_sets`, from the estimates' joint covariance over the
    items the systems share, :func:`debias.stats.common.joint.shared_item_covariance`); with
    ``higher_is_better=False`` the lowest mean ranks first (error counts, edit distances). ``seed``
    seeds the rank-sets' critical value (deterministic by default). ``top_k`` asks how many more
    human judgments would settle the top ``top_k``: the column ``factor_for_top_k``.

    Returns
    -------
    pandas.DataFrame
        One row per prompt x estimator x system (best first): ``task, prompt, system,
        estimator, estimate, lower, upper, rank, rank_low, rank_high, level, tied_with,
        factor_to_separate_next, factor_for_top_k, note``
        (:func:`debias.tables.leaderboard.ratings_leaderboard_table`).
        Tied point estimates share a rank and are named in ``tied_with``;
        ``factor_to_separate_next`` is how many times the judged items would separate the
        system from the next one down (:func:`debias.stats.common.ranking.separation_factor`) and
        ``factor_for_top_k`` how many times they would make the top ``top_k`` systems surely
        better than the others (:func:`debias.stats.common.ranking.top_k_factor`; both with probability
        0.8 if the estimated differences are the true ones, so the judgments to add are (factor -
        1) times those the estimator used); a system that cannot be estimated has a row with the
        reason in ``note``.

    Examples
    --------
    >>> import pandas as pd, debias
    >>> frame = pd.DataFrame({"seg": [f"s{i}" for i in range(8)] * 2, "sys": ["a"] * 8 + ["b"] * 8,
    ...                       "score": [3, 4, 2, 5, 4, 3, 4, 2, 5, 5, 4, 5, 5, 4, 5, 4]})
    >>> table = debias.leaderboard(frame, item="seg", system="sys", judgment="score", level=0.9)
    >>> table[["system", "rank_low", "rank_high"]].values.tolist()
    [['b', 1, 1], ['a', 2, 2]]
    """
    from debias.stats.preferences import preference_estimates
    from debias.tables.leaderboard import preferences_leaderboard, ratings_leaderboard_table

    _check_settings(estimates={"level": level})
    _check_ranking(seed, top_k)
    pairwise = {"system_a": system_a, "system_b": system_b, "verdict": verdict}
    ratings = {"judgment": judgment, "system": system}
    if any(value is not None for value in pairwise.values()):
        _refuse_other_form(
            "pairwise verdicts",
            {
                **ratings,
                "prompt": prompt,
                "scores": scores or None,
                "population": population,
                "scale": scale,
                "higher_is_better": None if higher_is_better is True else higher_is_better,
            },
        )
        _require("pairwise verdicts", pairwise)
        _check_ties(ties)
        pairs = _pairs(frame, item, system_a, system_b, verdict, rater, judges, pool, mapping)
        estimates = preference_estimates(pairs, level=_level(level), ties=ties)
        return preferences_leaderboard(estimates, level=_level(level), seed=seed, top_k=top_k)
    _refuse_other_form(
        "ratings",
        {"judges": list(judges) or None, "pool": pool, "ties": None if ties == "half" else ties, "mapping": mapping},
    )
    _require("ratings", ratings, " (pairwise verdicts take system_a, system_b and verdict)")
    tables, prompts = _joined(frame, item, judgment, system, prompt, rater, scores, population, scale)
    lower = [] if higher_is_better else [(TASK, name) for name in prompts]
    metrics = _score_columns(scores)
    return ratings_leaderboard_table(
        tables, {TASK: prompts}, metrics, level=_level(level), seed=seed, lower_is_better=lower, top_k=top_k
    )


def _refuse_other_form(form: str, given: Mapping) -> None:
    """Refuse the arguments of the other form of data that were given (not ``None``)."""
    wrong = [name for name, value in given.items() if value is not None]
    if wrong:
        listed = ", ".join(f"{name}={given[name]!r}" for name in wrong)
        raise InputError(wrong[0], f"{form} do not take {listed}")


def _require(form: str, columns: Mapping, other: str = "") -> None:
    """Refuse a form of data whose column arguments are not all given."""
    missing = [name for name, value in columns.items() if value is None]
    if missing:
        names = list(columns)
        wanted = f"{', '.join(names[:-1])} and {names[-1]}"
        raise InputError(missing[0], f"{form} take {wanted}; not given: {', '.join(missing)}{other}")


def _check_ranking(seed, top_k) -> None:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise InputError("seed", f"expected a whole number >= 0, found {seed!r}")
    if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int | np.integer) or top_k < 1):
        raise InputError("top_k", f"expected a whole number >= 1 (or None), found {top_k!r}")


def _check_ties(ties) -> None:
    """:func:`debias.stats.common.vocabulary.check_ties`, its error as :class:`InputError` naming the option."""
    try:
        check_ties(ties)
    except ValueError as error:
        raise InputError("ties", str(error)) from None


def _pairs(frame, item, system_a, system_b, verdict, rater, judges, pool, mapping):
    """The battles of a pair table (:func:`debias.io.pairs.read_pair_table`)."""
    from debias.io.pairs import read_pair_table

    columns = {"item": item, "system_a": system_a, "system_b": system_b, "verdict": verdict, "rater": rater}
    return read_pair_table(frame, **columns, judges=judges, pool=pool, mapping=mapping)


def plan(
    frame: pd.DataFrame,
    *,
    item: str,
    judgment: str,
    system: str | None = None,
    prompt: str | None = None,
    rater: str | None = None,
    scores: Sequence[str] = (),
    population: pd.DataFrame | None = None,
    scale: tuple[float, float] | None = None,
    level: float | None = None,
    settings: Mapping | None = None,
    seed: int = 0,
) -> pd.DataFrame:
    """The least-cost number of items and judgments per item for a target interval width.

    The judged items of each system and prompt are the pilot, and the plan is for a new study
    with new raters (the fresh-rater world of :func:`debias.stats.ratings.planning.pilot_components`:
    unbiased rater and item variances). ``settings`` overrides the ``plan`` section's defaults
    (the schema's, :func:`debias.config.settings.section_defaults`: ``target_widths``, ``auto_n``,
    ``cost_per_judgment``, ``cost_per_item``, ``max_judgments_per_item``, ``assurance``);
    ``target_widths`` are FULL widths (upper minus lower end of the interval, twice its
    half-width), on the judgments' scale. ``seed`` seeds the bound's bootstrap.

    Returns
    -------
    pandas.DataFrame
        The columns and rows of the workflow's ``plan.csv`` (:func:`debias.tables.plans.plan_table`).
    """
    from debias.tables.plans import plan_table

    if settings is not None and not isinstance(settings, Mapping):
        raise InputError("settings", f"expected a mapping of plan settings, found {type(settings).__name__}")
    _check_settings(estimates={"level": level}, plan=dict(settings or {}))

    tables, prompts = _joined(frame, item, judgment, system, prompt, rater, scores, population, scale)
    spec = {**section_defaults("plan"), **dict(settings or {}), "level": _level(level), "seed": seed}
    return plan_table(tables, {TASK: prompts}, _score_columns(scores), spec)


def _score_columns(scores) -> list[str]:
    """The score columns: one name, or a sequence of names (each once)."""
    if isinstance(scores, str):
        return [scores]
    if not isinstance(scores, Sequence) or not all(isinstance(name, str) for name in scores):
        raise InputError("scores", f"expected a column name or a list of column names, found {scores!r}")
    return list(dict.fromkeys(scores))


def _joined(frame, item, judgment, system, prompt, rater, scores, population, scale):
    """The joined tables (one per system) of a long table, and its prompts."""
    from debias.tables.joined import join_evaluation_table

    columns = TableColumns(
        item=item,
        judgment=judgment,
        system=system,
        prompt=prompt,
        rater=rater,
        scores=tuple(_score_columns(scores)),
    )
    table = read_evaluation_table(frame, columns, scale=scale)
    if population is not None:
        everyone = TableColumns(item=item, judgment=None, system=system, scores=columns.scores)
        table = with_population(table, read_evaluation_table(population, everyone, source="population"))
    return join_evaluation_table(table, TASK), list(table.prompts)


def _check_settings(**sections) -> None:
    """The settings given by keyword, checked by the configuration schema's rules (the keys of
    the ``plan`` section, ``min_judged_items``, ``estimates.level``, ``compare.de_n``); ``None``
    is a setting left to its default."""
    from debias.config.settings import key_rules, schema_problem

    given = {
        key: {k: v for k, v in value.items() if v is not None} if isinstance(value, dict) else value
        for key, value in sections.items()
        if value is not None
    }
    problem = schema_problem(given, key_rules())
    if problem:
        raise InputError("settings", problem.replace("config key ", "", 1))
    level = (given.get("estimates") or {}).get("level")
    if level is not None:  # what JSON has no word for: NaN, infinity
        try:
            check_level(level)
        except ValueError as error:
            raise InputError("settings", f"estimates.level: {error}") from None


def estimate_mean(
    judgments,
    scores=None,
    *,
    all_scores=None,
    unjudged_scores=None,
    n_outputs: int | None = None,
    estimator: str = "mean",
    level: float | None = None,
    annotator_variance: float | None = None,
) -> MeanEstimate:
    """One estimate of a mean human score with its interval, from arrays.

    Parameters
    ----------
    judgments : Judgments, list of lists, or array
        The judged items' judgments: a :class:`~debias.data.Judgments`, one list per item, or a
        NaN-padded (n, K) array.
    scores : array_like, shape (n,) or (n, M), optional
        The metrics on the judged items.
    all_scores, unjudged_scores, n_outputs
        The population, given once: every output's scores (judged included), the unjudged
        outputs' scores, or without metrics the number of outputs N.
    estimator : str
        ``mean``, ``cv:m0`` (metric columns are named m0, m1, ...), ``cv:combined`` or ``ppi++:m0``.
    level : float, optional
        Nominal coverage (default: the configuration's ``estimates.level``).
    annotator_variance : float, optional
        Variance of one judgment (default: pooled over the items judged more than once).

    Returns
    -------
    MeanEstimate
        ``estimate``, ``ci_low``, ``ci_high``, ``se``, ``df``, ``n_judged``, ``n_outputs``.

    Examples
    --------
    >>> import debias
    >>> result = debias.estimate_mean([[4, 5], [3], [5, 4], [2, 3], [4]], n_outputs=100)
    >>> round(float(result.estimate), 2), result.n_judged
    (3.7, 5)
    """
    _check_settings(estimates={"level": level})
    sample = EvalSample.from_arrays(
        judgments, scores, all_scores=all_scores, unjudged_scores=unjudged_scores, n_outputs=n_outputs
    )
    return _estimate_sample(sample, estimator, level=_level(level), annotator_variance=annotator_variance)


def variance_components(judgments) -> dict[str, float | str]:
    """The paper's Table 2 for one pool of judged items: σ_a², σ_f², γ and their unbiased forms.

    ``judgments`` is a :class:`~debias.data.Judgments`, one list per item or a NaN-padded array;
    only items judged at least twice enter (:func:`debias.stats.ratings.variance.variance_components`).
    With no such item the components are NaN, the counts are those of every item, and ``note``
    says why (one judgment per item: σ_a² is not identifiable); ``note`` is empty otherwise.

    Examples
    --------
    >>> import debias
    >>> c = debias.variance_components([[4, 5], [2, 2], [5, 4, 5]])
    >>> round(c["sigma2_a"], 3), c["n_items"]
    (0.292, 3)
    """
    return _variance_components(as_judgments(judgments))


def data_efficiency(rho, gamma):
    """Eq. (7) of the paper: how many times fewer judgments the control variate needs,
    (1 + γ) / (1 - ρ² + γ) (:func:`debias.stats.ratings.theory.theory_data_efficiency`).

    Examples
    --------
    >>> import debias
    >>> round(float(debias.data_efficiency(0.5, 0.25)), 3)
    1.25
    """
    rho_, gamma_ = np.asarray(rho, dtype=float), np.asarray(gamma, dtype=float)
    if not (np.all(np.abs(rho_) <= 1) and np.all(gamma_ >= 0)):
        raise ValueError(f"expected a correlation rho in [-1, 1] and gamma >= 0, found rho={rho!r}, gamma={gamma!r}")
    return theory_data_efficiency(rho, gamma)


@bounded_blas
def preferences(
    frame: pd.DataFrame,
    *,
    item: str,
    system_a: str,
    system_b: str,
    verdict: str,
    rater: str | None = None,
    judges: Sequence[str] = (),
    pool: pd.DataFrame | None = None,
    level: float | None = None,
    ties: str = "half",
    mapping: Mapping | None = None,
) -> pd.DataFrame:
    """Win rates and Bradley-Terry strengths of every system from pairwise verdicts, by every estimator.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per human verdict of a battle (item, system A, system B); a row with an empty
        verdict is a battle only the judges saw (:func:`debias.io.pairs.read_pair_table`).
    item, system_a, system_b, verdict : str
        Columns naming the item and the two systems, and holding the human verdict (a/b/tie,
        model_a/model_b/tie/tie (bothbad); numeric codes through ``mapping``).
    rater : str, optional
        Column naming the rater: several raters of a battle are averaged; their disagreement
        is ``rater_variance`` of :func:`debias.tables.preferences.preference_analysis`.
    judges : sequence of str
        Columns with an LLM judge's verdict each (an answer that is not a verdict is refused unless
        ``mapping`` maps it, e.g. to ``None``: no verdict).
    pool : pandas.DataFrame, optional
        Battles without human verdicts, with ``item``, ``system_a``, ``system_b`` and the judges' columns.
    level : float, optional
        Nominal coverage; default the configuration's ``estimates.level``.
    ties : {"half", "drop"}
        Win rates with a tie as half a win, or without ties.
    mapping : mapping, optional
        Extra verdict spellings or numeric codes, e.g. ``{1: "a", 2: "b", 0: "tie"}``.

    Returns
    -------
    pandas.DataFrame
        One row per system x estimand (``win_rate``, ``strength``) x estimator (``human``,
        ``judge:<j>``, ``ppi++:<j>``, ``ppi++:combined``): columns
        :data:`debias.tables.preferences.PREFERENCE_COLUMNS` (``ci_low``, ``ci_high``,
        ``n_judged``, ``note``: :mod:`debias.tables.columns`). Strengths are natural-log odds
        centred to mean 0 (:mod:`debias.stats.preferences.estimands`). The joint estimates, data
        efficiencies and raters' disagreement come with the table in a
        :class:`~debias.tables.preferences.PreferenceAnalysis` from
        :func:`debias.tables.preferences.preference_analysis` on the battles
        (:func:`debias.io.pairs.read_pair_table`).

    Examples
    --------
    >>> import pandas as pd, debias
    >>> frame = pd.DataFrame({"q": list("abcdef"), "A": ["x", "y", "x", "z", "y", "x"],
    ...                       "B": ["y", "z", "z", "x", "x", "y"],
    ...                       "winner": ["model_a", "model_b", "tie", "model_b", "tie", "model_a"]})
    >>> table = debias.preferences(frame, item="q", system_a="A", system_b="B", verdict="winner", level=0.9)
    >>> rows = table.query("estimand == 'win_rate' and estimator == 'human'")
    >>> rows[["system", "estimate", "n_judged"]].round(3).values.tolist()
    [['x', 0.8, 5], ['y', 0.125, 4], ['z', 0.5, 3]]
    """
    from debias.tables.preferences import preference_table

    _check_settings(estimates={"level": level})
    _check_ties(ties)
    pairs = _pairs(frame, item, system_a, system_b, verdict, rater, judges, pool, mapping)
    return preference_table(pairs, level=_level(level), ties=ties)


@bounded_blas
def judge_agreement(
    frame: pd.DataFrame,
    *,
    item: str,
    system_a: str,
    system_b: str,
    verdict: str,
    judges: Sequence[str],
    rater: str | None = None,
    pool: pd.DataFrame | None = None,
    level: float | None = None,
    mapping: Mapping | None = None,
) -> pd.DataFrame:
    """How each judge agrees with people: accuracy, Cohen's kappa, tie rates and each system's
    judge bias with its interval; parameters as in :func:`preferences`.

    Returns
    -------
    pandas.DataFrame
        One row per judge x system: :data:`debias.tables.preferences.AGREEMENT_COLUMNS` (the
        bias's interval in ``bias_ci_low``, ``bias_ci_high``).
    """
    from debias.tables.preferences import agreement_table

    _check_settings(estimates={"level": level})
    pairs = _pairs(frame, item, system_a, system_b, verdict, rater, judges, pool, mapping)
    return agreement_table(pairs, level=_level(level))


__all__ += ["NextBattles", "next_battles", "status"]


def status(
    frame: pd.DataFrame,
    *,
    item: str,
    system_a: str,
    system_b: str,
    verdict: str,
    question: str,
    rater: str | None = None,
    judges: Sequence[str] = (),
    pool: pd.DataFrame | None = None,
    level: float | None = None,
    ties: str = "half",
    mapping: Mapping | None = None,
    estimand: str = "win_rate",
    estimator: str | None = None,
    optimal_at: float = 1000,
):
    """What the votes so far settle about a question, with anytime-valid intervals.

    Parameters as in :func:`preferences`, and:

    question : str
        ``better:A,B`` (is A better than B), ``top:K`` (which are the top K), ``ranks`` (every
        rank) or ``within:W`` (every system's score within ±W) (:mod:`debias.stats.common.status`).
    level : float, optional
        Probability that every interval the question uses covers its truth at every look at
        once (default: the configuration's ``estimates.level``).
    estimand : {"win_rate", "strength"}
    estimator : str, optional
        ``human`` or ``ppi++:<judge>`` / ``ppi++:combined``; default PPI++ with the judges given
        (people alone without judges).
    optimal_at : float
        Votes at which the intervals are tightest, fixed in advance (default 1,000).

    Returns
    -------
    debias.stats.common.status.QuestionStatus
        ``resolved``, ``answer`` ("unresolved so far: ..." when it is not), one row per system
        and per open contrast with its confidence-sequence interval
        (:mod:`debias.stats.common.sequential`) and the further votes it needs (a plug-in guide), and
        ``open_pairs`` (where :func:`next_battles` sends votes).

    Examples
    --------
    >>> import pandas as pd, debias.api
    >>> frame = pd.DataFrame({"q": range(200), "A": ["x"] * 200, "B": ["y"] * 200,
    ...                       "winner": ["model_a"] * 180 + ["model_b"] * 20})
    >>> s = debias.api.status(frame, item="q", system_a="A", system_b="B", verdict="winner",
    ...                       question="better:x,y", level=0.95)
    >>> s.resolved, s.answer
    (True, 'x better')
    """
    pairs = _status_pairs(frame, item, system_a, system_b, verdict, rater, judges, pool, mapping, level, ties)
    return _question_status(pairs, question, level, estimand, estimator, ties, optimal_at)


def next_battles(
    frame: pd.DataFrame,
    *,
    item: str,
    system_a: str,
    system_b: str,
    verdict: str,
    question: str,
    budget: int,
    seed: int = 0,
    rater: str | None = None,
    judges: Sequence[str] = (),
    pool: pd.DataFrame | None = None,
    level: float | None = None,
    ties: str = "half",
    mapping: Mapping | None = None,
    estimand: str = "win_rate",
    estimator: str | None = None,
    optimal_at: float = 1000,
) -> NextBattles:
    """The ``budget`` battles without a human verdict to put in front of people next, drawn
    from the pairs :func:`status` leaves open (:func:`debias.stats.preferences.allocation.next_battles`),
    reproducibly from ``seed``; parameters as in :func:`status`.

    Returns
    -------
    NextBattles
        ``battles``: the chosen battles' ``item``, ``system_a`` and ``system_b`` columns (named
        as given), in the order of the table (then the pool); empty when the question is settled
        or no open pair has a battle left (``note`` says which).
    """
    from debias.stats.preferences import next_battles as draw

    if isinstance(budget, bool) or not isinstance(budget, int | np.integer) or budget < 1:
        raise InputError("budget", f"expected a whole number of battles >= 1, found {budget!r}")
    _check_ranking(seed, None)
    pairs = _status_pairs(frame, item, system_a, system_b, verdict, rater, judges, pool, mapping, level, ties)
    state = _question_status(pairs, question, level, estimand, estimator, ties, optimal_at)
    chosen = draw(pairs, state, int(budget), np.random.default_rng(seed))
    index = chosen.battles
    names = np.asarray(pairs.systems, dtype=object)
    items = pairs.items[index] if pairs.items is not None else index
    table = pd.DataFrame({item: items, system_a: names[pairs.system_a[index]], system_b: names[pairs.system_b[index]]})
    return NextBattles(battles=table, note=chosen.note, answer=state.answer)


@dataclass(frozen=True)
class NextBattles:
    """What :func:`next_battles` chose: ``battles`` (the table), ``note`` (why fewer than the
    budget, ``""`` when it was met) and ``answer`` (the question's status when they were chosen)."""

    battles: pd.DataFrame
    note: str
    answer: str


def _question_status(pairs, question, level, estimand, estimator, ties, optimal_at):
    """:func:`debias.stats.preferences.status.pairs_status`, its errors as :class:`InputError` naming the option."""
    from debias.stats.common.status import QuestionError
    from debias.stats.preferences import pairs_status

    try:
        settings = {"estimand": estimand, "estimator": estimator, "ties": ties, "optimal_at": optimal_at}
        return pairs_status(pairs, question, level=_level(level), **settings)
    except QuestionError as error:
        raise InputError(f"{error.option} {error.text}", error.message) from None
    except ValueError as error:
        raise InputError("settings", str(error)) from None


def _status_pairs(frame, item, system_a, system_b, verdict, rater, judges, pool, mapping, level, ties):
    """The battles of a status question, after the settings' checks."""
    _check_settings(estimates={"level": level})
    _check_ties(ties)
    return _pairs(frame, item, system_a, system_b, verdict, rater, judges, pool, mapping)
