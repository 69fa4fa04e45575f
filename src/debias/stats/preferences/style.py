r"""Style-controlled strengths, Davidson's ties and win rates against a baseline.

The estimands beside :data:`debias.stats.preferences.estimands.ESTIMANDS` that an analysis adds on
request, each by every estimator (people, each judge, PPI++ per judge and combined), each a
:class:`~debias.stats.common.joint.JointEstimate`:

``strength`` with covariates (style control) or with ``ties="davidson"``
    Bradley-Terry strengths on the design matrix [system contrasts | covariate differences]
    (:func:`debias.stats.preferences.design.design_fit`): the systems' merits at equal
    covariates. A covariate is a number per response, given for A's and for B's; the model
    uses the difference A - B divided by its root mean square over the table's battles (a
    scale that does not depend on which system is written first), so that a coefficient is the
    change in log-odds per typical difference. Alongside, one result per covariate,
    ``coefficient:<name>`` (its one row has an empty ``system``), and with Davidson's ties the
    tie parameter ``tie_parameter`` (:math:`\nu`, interval from the log scale).
``baseline_win_rate``
    Each system's win rate in its battles against the baseline (ties half a win; with
    ``ties="drop"`` left out), the win-rate estimators on those battles only; the baseline's
    own row has a note.
``lc_baseline_win_rate``
    The length-controlled win rate against the baseline (Dubois et al. 2024, AlpacaEval 2.0),
    with a ``length`` covariate: per system m, a logistic model of m's score against the
    baseline, :math:`\operatorname{logit} P(m \succ b) = \alpha_m + \gamma_m \tanh(\Delta_i /
    \operatorname{sd}_m(\Delta))` with :math:`\Delta_i` the length of m's response less the
    baseline's and :math:`\operatorname{sd}_m` its standard deviation (ddof 1) over m's battles
    with the baseline, reported at equal length, :math:`\sigma(\hat\alpha_m)`. It is the
    two-system case of the design fit (strengths of m and the baseline, one covariate), so every
    estimator and the clustered sandwich serve it; the interval is the delta method's. Each
    system's fit tunes its own PPI++ weights; the result's ``weights`` are the last system's.

References
----------
Y. Dubois, B. Galambosi, P. Liang and T. B. Hashimoto. Length-controlled AlpacaEval: A simple way
to debias automatic evaluators. arXiv:2404.04475, 2024.

R. R. Davidson. On extending the Bradley-Terry model to accommodate ties in paired comparison
experiments. *Journal of the American Statistical Association* 65(329):317-328, 1970.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
from scipy.special import expit, ndtri

from debias.stats.common.intervals import small_sample_scale
from debias.stats.common.joint import JointEstimate
from debias.stats.preferences.battles import (
    FEW_CLUSTERED,
    FEW_HUMAN,
    NO_HUMAN,
    NO_JUDGE,
    Battles,
    ClusterSummary,
    filled,
    joint_estimate,
    resolve,
    system_estimate,
)
from debias.stats.preferences.bradley_terry import _identifiable, unlinked_note
from debias.stats.preferences.design import collinear_covariates, design_fit, outcome_statistics
from debias.stats.preferences.win_rate import win_rate_estimate

__all__ = [
    "ALL_TIES_DAVIDSON",
    "NO_TIES",
    "adjusted_estimates",
    "baseline_estimates",
    "covariate_differences",
]

NO_TIES = "no tie among the verdicts fitted: the tie parameter is 0, at its boundary (no interval)"
#: The covariates counted from a response's text, in order (``style``: :mod:`debias.io.style`).
STYLE_COVARIATES = ("length", "headers", "lists", "bold")
ALL_TIES_DAVIDSON = "every verdict fitted is a tie: the tie parameter is infinite and the strengths are not estimable"
NOT_FINITE = "strength not finite from these verdicts"
#: Covariates of the length-controlled win rate: the one named so.
LENGTH = "length"


def _style_counts_left_out(pairs, names: Sequence[str]) -> dict[str, str]:
    """The counts of a response's text (:data:`STYLE_COVARIATES`, read together from two response
    columns) that these battles cannot fit, each with why: one that never differs between the
    two sides (plain texts have no headers), then one collinear with the systems' contrasts or
    the counts kept. The fit goes on with the others; each left out keeps a row with its note. A
    covariate named on its own is never left out: a problem with it is an error."""
    read = dict(pairs.covariates or {})
    if not all(name in read and name in names for name in STYLE_COVARIATES):
        return {}
    out: dict[str, str] = {}
    for name in STYLE_COVARIATES:
        difference = read[name][:, 0] - read[name][:, 1]
        if not np.any(difference != 0):
            out[name] = f"left out of the fit: the {name} count is the same on both sides of every battle"
    while True:
        kept = [name for name in names if name not in out]
        if not kept:
            return out
        bad = collinear_covariates(
            pairs.system_a, pairs.system_b, pairs.n_systems, covariate_differences(pairs, kept), kept
        )
        bad = [name for name in bad if name in STYLE_COVARIATES]
        if not bad:
            return out
        out[bad[-1]] = (
            f"left out of the fit: the {bad[-1]} count is collinear with the systems' contrasts or the other"
            " counts on these battles"
        )


def covariate_differences(pairs, names: Sequence[str]) -> np.ndarray:
    """The covariates ``names`` of the battles as the model uses them (B, K): A's value less
    B's, divided by the root mean square of that difference over the battles. A ``ValueError``
    for a covariate the battles were not read with, or one that is the same on both sides of
    every battle."""
    read = dict(pairs.covariates or {})
    columns = []
    for name in names:
        if name not in read:
            have = ", ".join(sorted(read)) or "none"
            raise ValueError(
                f"covariate {name!r}: the battles were read without it (covariates read: {have}); "
                f"read it with read_pairs(..., covariates={{{name!r}: (column_a, column_b)}})"
            )
        difference = read[name][:, 0] - read[name][:, 1]
        largest = float(np.max(np.abs(difference), initial=0.0))  # divided first: no overflow in the squares
        scale = largest * float(np.sqrt(np.mean((difference / largest) ** 2))) if largest > 0 else 0.0
        if not scale > 0:
            raise ValueError(
                f"covariate {name!r} is constant: the same on both sides of every battle, so its coefficient"
                " is not identifiable"
            )
        columns.append(difference / scale)
    return np.column_stack(columns) if columns else np.zeros((pairs.n_battles, 0))


def _statistics(pairs, ties: str, judge: int | None = None) -> np.ndarray:
    """Per battle (B, m): people's statistics (``judge`` None) or judge j's, filled where it did
    not answer."""
    if judge is None:
        return outcome_statistics(pairs.human_mean, pairs.human_share(0.5), ties)
    verdicts = pairs.judge_verdicts[:, judge]
    answered = ~np.isnan(verdicts)
    tie = np.where(answered, (verdicts == 0.5).astype(float), np.nan)
    columns = filled(np.column_stack([verdicts, tie]), answered, "half")
    return outcome_statistics(columns[:, 0], columns[:, 1], ties)


def _fit_estimator(battles: Battles, estimator: str, features, ties: str, subset=None, skip: bool = False):
    """The design fit of one estimator on the battles ``subset`` (all by default), on the
    systems it can identify: ``(fit or None, kept systems, notes, info, columns)``."""
    pairs = battles.pairs
    info, columns = resolve(estimator, pairs.judges)
    n_systems = pairs.n_systems
    subset = np.ones(pairs.n_battles, bool) if subset is None else subset
    n_human = battles.human_counts
    n_judge, _ = battles.judge_counts(columns)
    if info.proxy_only:
        groups, forms = battles.judged_by(columns[0], "half")
        labelled = ~np.isnan(pairs.judge_verdicts[:, columns[0]])
        human = _statistics(pairs, ties, columns[0])
        predictions = []
    else:
        groups, forms = battles.labelled("half")
        labelled = pairs.labelled
        human = _statistics(pairs, ties)
        predictions = [_statistics(pairs, ties, j) for j in columns]
    keep = _identifiable(groups, forms[0][0], groups.labelled)
    if not np.all(subset):
        sub_labelled = labelled & subset
        present = np.zeros(n_systems, bool)
        present[pairs.system_a[sub_labelled]] = present[pairs.system_b[sub_labelled]] = True
        keep = keep & present
    notes = []
    what = "battles the judge answered" if info.proxy_only else "human battles"
    unlinked = unlinked_note(groups, groups.labelled, pairs.systems, what)
    for s in range(n_systems):
        if keep[s]:
            notes.append("")
        elif info.proxy_only:
            notes.append(NO_JUDGE if n_judge[s] == 0 else unlinked or "strength not finite from the judge's verdicts")
        elif n_human[s] == 0:
            notes.append(NO_HUMAN)
        else:
            notes.append(
                unlinked or "strength not identifiable: its human battles do not link it both ways to the other systems"
            )
    kept = np.flatnonzero(keep)
    a, b = pairs.system_a, pairs.system_b
    chosen = keep[a] & keep[b] & subset
    if skip or kept.size < 2 or not np.any(chosen & labelled):
        return None, kept, notes, info, columns
    renumber = np.full(n_systems, -1)
    renumber[kept] = np.arange(kept.size)
    index = np.flatnonzero(chosen)
    clusters = None
    if pairs.clustered:
        _, clusters = np.unique(pairs.cluster_codes[index], return_inverse=True)
    fit = design_fit(
        renumber[a[index]],
        renumber[b[index]],
        kept.size,
        features[index],
        labelled[index],
        human[index],
        [p[index] for p in predictions],
        ties=ties,
        clusters=None if clusters is None else clusters.reshape(-1),
    )
    return fit, kept, notes, info, columns


def _widened(fit, level: float, small_sample: bool, proxy_only: bool):
    """The fit's covariance as the intervals use it (clustered and t with the clusters less one,
    or t with the Welch-Satterthwaite degrees of freedom) and each parameter's scale."""
    if fit.clustered is not None:
        df = np.maximum(np.asarray(fit.cluster_count, float) - 1.0, 0.0)
        covariance = fit.clustered
    else:
        df = fit.df if small_sample and not proxy_only else np.full(fit.phi.size, np.inf)
        covariance = fit.covariance
    scale = small_sample_scale(df, level)
    finite = np.where(np.isfinite(scale), scale, 1.0)
    return covariance * np.outer(finite, finite), scale


def _single(name, estimand, estimator, value, variance, level, note, weights, counts) -> JointEstimate:
    """A result with one row (a coefficient, the tie parameter), its ``system`` empty."""
    value = np.array([value], dtype=float)
    covariance = np.array([[variance]], dtype=float)
    if note:
        covariance[:] = np.nan
    se = np.sqrt(np.maximum(np.diag(covariance), 0.0))
    half = ndtri(0.5 + level / 2.0) * se
    n_judged, n_judge, n_missing = (np.array([int(c)], dtype=np.int64) for c in counts)
    return JointEstimate(
        estimand=estimand,
        estimator=estimator,
        systems=(name,),
        estimate=value,
        covariance=covariance,
        se=se,
        ci_low=value - half,
        ci_high=value + half,
        level=float(level),
        n_judged=n_judged,
        n_judge=n_judge,
        n_missing=n_missing,
        notes=(note,),
        weights=np.asarray(weights, dtype=float).ravel(),
    )


def adjusted_estimates(
    battles: Battles,
    estimator: str,
    *,
    level: float,
    ties: str = "half",
    covariates: Sequence[str] = (),
    small_sample: bool = True,
) -> list[JointEstimate]:
    """The strengths adjusted for ``covariates`` (names read with the battles) and/or with
    Davidson's ties, by one estimator: ``[strength, coefficient:<name>..., tie_parameter]`` (the
    last with ``ties="davidson"`` only). Ties as half a win unless ``ties="davidson"``."""
    pairs = battles.pairs
    model = "davidson" if ties == "davidson" else "half"
    asked = list(covariates)
    left_out = _style_counts_left_out(pairs, asked)
    names = [name for name in asked if name not in left_out]
    features = covariate_differences(pairs, names)
    if names:
        bad = collinear_covariates(pairs.system_a, pairs.system_b, pairs.n_systems, features, names)
        if bad:
            raise ValueError(
                f"covariate {bad[0]!r} is collinear with the systems' contrasts or the other covariates on these"
                " battles: its coefficient is not identifiable (drop it or give another)"
            )
    info, columns = resolve(estimator, pairs.judges)
    if model == "davidson":
        if info.proxy_only:
            answered = pairs.judge_verdicts[:, columns[0]]
            verdicts = (answered[~np.isnan(answered)] == 0.5).astype(float)
        else:
            verdicts = pairs.human_share(0.5)[pairs.labelled]
        all_ties = verdicts.size > 0 and bool(np.all(verdicts == 1.0))
        no_ties = verdicts.size > 0 and bool(np.all(verdicts == 0.0))
    else:
        all_ties = no_ties = False
    # without a tie the tie parameter's maximum is at 0, where Davidson's model is Bradley-Terry's
    fitted_model = "half" if no_ties else model
    fit, kept, notes, info, columns = _fit_estimator(battles, estimator, features, fitted_model, skip=all_ties)
    n_systems = pairs.n_systems
    n_judge, n_missing = battles.judge_counts(columns)
    theta = np.full(n_systems, np.nan)
    covariance = np.full((n_systems, n_systems), np.nan)
    extra = len(names) + (model == "davidson")
    phi, variances, extra_notes = np.full(extra, np.nan), np.full(extra, np.nan), [""] * extra
    weights = np.zeros(0 if info.proxy_only else len(columns))
    summary = None
    total_human = (
        int(pairs.labelled.sum())
        if not info.proxy_only
        else int((~np.isnan(pairs.judge_verdicts[:, columns[0]])).sum())
    )
    if all_ties:
        notes = [n or ALL_TIES_DAVIDSON for n in notes]
        extra_notes = [ALL_TIES_DAVIDSON] * extra
        fit = None
    elif fit is not None and not fit.converged:
        notes = [n or "the fit did not converge: no finite maximum of the likelihood" for n in notes]
        extra_notes = ["the fit did not converge: no finite maximum of the likelihood"] * extra
        fit = None
    if fit is not None:
        k = kept.size
        weights = fit.weights
        widened, scale = _widened(fit, level, small_sample, info.proxy_only)
        theta[kept] = fit.phi[:k]
        covariance[np.ix_(kept, kept)] = widened[:k, :k]
        for i in range(k):
            if not np.isfinite(scale[i]):
                notes[kept[i]] = notes[kept[i]] or (FEW_CLUSTERED if fit.clustered is not None else FEW_HUMAN)
        fitted = fit.phi.size - k
        phi[:fitted] = fit.phi[k:]
        variances[:fitted] = np.diag(widened)[k:]
        for i in range(fitted):
            if not np.isfinite(scale[k + i]):
                extra_notes[i] = "too few human battles or clusters for an interval"
        if fit.clustered is not None:
            present = np.zeros(n_systems, np.int64)
            present[kept] = fit.cluster_count[:k]
            effect = np.full(n_systems, np.nan)
            with np.errstate(divide="ignore", invalid="ignore"):
                effect[kept] = np.diag(fit.clustered)[:k] / np.diag(fit.covariance)[:k]
            summary = ClusterSummary(present, effect)
    elif kept.size < 2:
        notes = [r or "fewer than two systems with a finite strength" for r in notes]
        extra_notes = [n or "fewer than two systems with a finite strength" for n in extra_notes]
    results = [
        system_estimate(
            "strength",
            estimator,
            battles,
            info,
            columns,
            theta,
            covariance,
            level,
            notes,
            weights,
            few=False,
            clusters=summary,
        )
    ]
    counts = (total_human, int(n_judge.sum() // 2), int(n_missing.sum() // 2))
    fitted_at = {name: i for i, name in enumerate(names)}
    for name in asked:
        if name in left_out:
            results.append(
                _single("", f"coefficient:{name}", estimator, np.nan, np.nan, level, left_out[name], weights, counts)
            )
            continue
        i = fitted_at[name]
        results.append(
            _single("", f"coefficient:{name}", estimator, phi[i], variances[i], level, extra_notes[i], weights, counts)
        )
    if model == "davidson":
        tau, var_tau = phi[-1], variances[-1]
        note = extra_notes[-1]
        if no_ties and not note:
            note = NO_TIES
        if no_ties:
            tau = -np.inf
        result = _single(
            "", "tie_parameter", estimator, np.exp(tau), var_tau * np.exp(2 * tau), level, note, weights, counts
        )
        if not note:  # the interval of nu from the log scale, where it is nearer normal
            half = ndtri(0.5 + level / 2.0) * np.sqrt(max(var_tau, 0.0))
            result = replace(result, ci_low=np.exp(tau - half) * np.ones(1), ci_high=np.exp(tau + half) * np.ones(1))
        results.append(result)
    return results


def baseline_estimates(
    battles: Battles,
    estimator: str,
    *,
    level: float,
    baseline: str,
    ties: str = "half",
    length_controlled: bool = False,
) -> list[JointEstimate]:
    """Each system's win rate against ``baseline`` (``baseline_win_rate``) and, with
    ``length_controlled``, AlpacaEval's length-controlled one (``lc_baseline_win_rate``; needs a
    ``length`` covariate), by one estimator."""
    from debias.data import find_name, shown_name, shown_names

    pairs = battles.pairs
    spelled = find_name(baseline, pairs.systems)  # as the table spells it (another normalisation)
    if spelled is None:
        raise ValueError(
            f"baseline {shown_name(baseline)} is not a system of the table (systems: {shown_names(pairs.systems)})"
        )
    baseline = spelled
    base = pairs.systems.index(baseline)
    against = (pairs.system_a == base) | (pairs.system_b == base)
    if not against.any():
        raise ValueError(f"baseline {baseline!r} has no battles")
    sub = pairs.take(against)
    plain = win_rate_estimate(
        Battles.of(sub, "half" if ties == "davidson" else ties),
        estimator,
        level=level,
        ties="half" if ties == "davidson" else ties,
    )
    met = np.zeros(pairs.n_systems, bool)
    met[pairs.system_a[against]] = met[pairs.system_b[against]] = True
    notes = list(plain.notes)
    for s in range(pairs.n_systems):
        if s == base:
            notes[s] = "the baseline itself"
        elif not met[s]:
            notes[s] = "no battle against the baseline"
    blank = np.array([s == base or not met[s] for s in range(pairs.n_systems)])
    covariance = plain.covariance.copy()
    covariance[blank, :] = covariance[:, blank] = np.nan
    results = [
        replace(
            plain,
            estimand="baseline_win_rate",
            estimate=np.where(blank, np.nan, plain.estimate),
            covariance=covariance,
            se=np.where(blank, np.nan, plain.se),
            ci_low=np.where(blank, np.nan, plain.ci_low),
            ci_high=np.where(blank, np.nan, plain.ci_high),
            notes=tuple(notes),
        )
    ]
    if length_controlled:
        counts = (plain.n_judged, plain.n_judge, plain.n_missing)  # its battles against the baseline
        results.append(_length_controlled(battles, estimator, level, base, against, counts))
    return results


def _length_controlled(battles: Battles, estimator: str, level: float, base: int, against, counts) -> JointEstimate:
    """AlpacaEval 2.0's length-controlled win rate of every system against the baseline ``base``
    (module notes), by one estimator."""
    pairs = battles.pairs
    if LENGTH not in (pairs.covariates or {}):
        raise ValueError(
            f"the length-controlled win rate needs a covariate named {LENGTH!r} (read_pairs(..., covariates="
            "{'length': (column_a, column_b)}))"
        )
    sides = pairs.covariates[LENGTH]
    info, columns = resolve(estimator, pairs.judges)
    n_systems = pairs.n_systems
    estimate = np.full(n_systems, np.nan)
    variance = np.full(n_systems, np.nan)
    notes = [""] * n_systems
    weights = np.zeros(0 if info.proxy_only else len(columns))
    other = np.where(pairs.system_a == base, pairs.system_b, pairs.system_a)
    sign = np.where(pairs.system_a == base, -1.0, 1.0)  # +1 where the system is A
    delta = sign * (sides[:, 0] - sides[:, 1])  # the system's length less the baseline's
    for m in range(n_systems):
        if m == base:
            notes[m] = "the baseline itself"
            continue
        mine = against & (other == m)
        if not mine.any():
            notes[m] = "no battle against the baseline"
            continue
        spread = float(np.std(delta[mine], ddof=1)) if mine.sum() > 1 else 0.0
        if not spread > 0:
            notes[m] = "its lengths differ from the baseline's by the same amount in every battle: no length control"
            continue
        feature = np.zeros(pairs.n_battles)
        feature[mine] = sign[mine] * np.tanh(delta[mine] / spread)  # as A's side less B's
        fit, kept, fit_notes, info, _ = _fit_estimator(battles, estimator, feature[:, None], "half", subset=mine)
        if fit is None or not fit.converged or base not in kept or m not in kept:
            notes[m] = fit_notes[m] or fit_notes[base] or "no finite length-controlled win rate from these battles"
            continue
        i, j = int(np.flatnonzero(kept == m)[0]), int(np.flatnonzero(kept == base)[0])
        widened, scale = _widened(fit, level, True, info.proxy_only)
        gap = fit.phi[i] - fit.phi[j]
        var_gap = widened[i, i] + widened[j, j] - 2 * widened[i, j]
        p = float(expit(gap))
        estimate[m] = p
        variance[m] = (p * (1 - p)) ** 2 * var_gap
        if not (np.isfinite(scale[i]) and np.isfinite(scale[j])):
            notes[m] = FEW_HUMAN
        weights = fit.weights
    covariance = np.diag(variance)  # the systems rest on disjoint battles
    return joint_estimate(
        "lc_baseline_win_rate",
        estimator,
        pairs,
        estimate,
        covariance,
        level,
        notes,
        weights,
        counts,
        bounds=(0.0, 1.0),
    )
