r"""Win rates: each system's expected score in its battles, by people, a judge, or PPI++.

System s's win rate is :math:`\theta_s = E[w_s]/E[d]`: with ties as half a win (default)
:math:`w_s` is s's score and :math:`d = 1`; with ``ties="drop"`` :math:`w_s` is 1 for a win and
:math:`d` is 1 for a decisive verdict (the share of its decisive battles that s wins). Each
estimator's estimate is the root of the estimating equation :math:`\bar w - \theta\bar d = 0`
over s's battles; PPI++ (:mod:`debias.stats.preferences.estimands` for the equation) rectifies it with
the judges' predictions, and the systems share one tuned weight per judge
(:func:`debias.stats.common.ppi.power_tuned_weights`). With ties as half a win this is
``ppi_py.ppi_mean_ci`` on each system's battles. The joint covariance of the systems' estimates
(battles shared by two systems make them covary) is returned whole. :func:`win_rate_draws`
evaluates many random labelled sets at once (a simulation's draws).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from debias.data import JudgedPairs
from debias.stats.common.clusters import cluster_robust_covariance
from debias.stats.common.intervals import check_level, proportion_covariance
from debias.stats.common.joint import JointEstimate
from debias.stats.common.ppi import power_tuned_weights
from debias.stats.preferences.battles import (
    ALL_TIES,
    FEW_CLUSTERED,
    FEW_HUMAN,
    JUDGE_ALL_TIES,
    NO_HUMAN,
    NO_JUDGE,
    Battles,
    Clustered,
    Groups,
    check_pairs,
    cluster_totals,
    covered,
    decisive_counts,
    group_cross,
    group_total,
    judge_groups,
    labelled_groups,
    pair_matrix,
    per_system,
    plus,
    resolve,
    scaled,
    studentised_clusters,
    system_estimate,
)

__all__ = ["win_rate_core", "win_rate_draws", "win_rate_estimate", "win_rates"]


def win_rate_core(groups: Groups, human, predictions, *, weights=None, sparse: bool = False):
    """The PPI++ win rates of every system for each labelling (leading axes of ``groups``).

    ``human`` and every entry of ``predictions`` are the forms ``(w_A, w_B, d)``. Returns
    ``(estimate, covariance, n_labelled, weights, clustered)``: the covariance of independent
    battles and, when the groups are split by cluster, the cluster-robust one with the clusters
    behind each system (:class:`~debias.stats.preferences.battles.Clustered`; ``None``
    otherwise), the weights then tuned on the clustered covariance. With ``sparse`` (one
    labelling, battles not split by cluster) the covariance is a SciPy sparse array holding the
    pairs of systems that met alone, the others' covariance being 0.
    """
    a, b, n_systems = groups.a, groups.b, groups.n_systems
    lab = groups.labelled
    unl = (1.0 - lab) * covered(groups)  # the pool: battles of pairs the labelled ones cover
    count = groups.count

    def per(qa, qb):
        return per_system(qa, qb, a, b, n_systems)

    n_s = per(count * lab, count * lab)
    u_s = per(count * unl, count * unl)
    n_judges = len(predictions)
    lead = count.shape[:-1]
    pool = u_s > 0

    def means(provider, mask, number):
        wa, wb, d = provider
        with np.errstate(invalid="ignore", divide="ignore"):
            credit = per(mask * group_total(groups, wa), mask * group_total(groups, wb)) / number
            weight = per(mask * group_total(groups, d), mask * group_total(groups, d)) / number
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
        return plus(wa, scaled(d, -ta)), plus(wb, scaled(d, -tb))

    def centred(pair, mask, number):
        """Gradients minus their per-system mean over the masked groups."""
        side_a, side_b = pair
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.nan_to_num(per(mask * group_total(groups, side_a), mask * group_total(groups, side_b)) / number)
        return (side_a[0] - mean[..., a], side_a[1]), (side_b[0] - mean[..., b], side_b[1])

    clustered = groups.cluster is not None

    def totals(pair, mask, number, hessian, where=None):
        """Per cluster and system, the influence of the masked battles' centred gradients
        ``pair`` on each estimate, 1 / (number H) times their sum (0 where ``where`` is False)."""
        side_a, side_b = centred(pair, mask, number)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            factor = 1.0 / (number * hessian)
        factor = np.where(np.isfinite(factor), factor, 0.0)
        if where is not None:
            factor = np.where(where, factor, 0.0)
        ia, ib = scaled(side_a, factor[..., a]), scaled(side_b, factor[..., b])
        return cluster_totals(groups, mask * group_total(groups, ia), mask * group_total(groups, ib))

    if weights is None and n_judges and clustered:
        # the weights minimising the trace of the clustered covariance: with the influence of
        # each cluster h - sum_j lambda_j d_j, the trace is quadratic in lambda
        start, hessian = solve(np.full(n_judges, 1.0 / n_judges))
        h = totals(gradients(start, human), lab, n_s, hessian)
        d = [
            totals(gradients(start, p), lab, n_s, hessian, pool) - totals(gradients(start, p), unl, u_s, hessian, pool)
            for p in predictions
        ]
        rhs = np.stack([np.sum(h * dj, axis=(-2, -1)) for dj in d], axis=-1)
        lhs = np.stack([np.stack([np.sum(dj * dk, axis=(-2, -1)) for dk in d], axis=-1) for dj in d], axis=-2)
        weights = power_tuned_weights(rhs, lhs)
    elif weights is None and n_judges:
        start, hessian = solve(np.full(n_judges, 1.0 / n_judges))
        g_l = centred(gradients(start, human), lab, n_s)
        hat_l = [centred(gradients(start, p), lab, n_s) for p in predictions]
        hat_all = [centred(gradients(start, p), lab + unl, n_s + u_s) for p in predictions]
        with np.errstate(invalid="ignore", divide="ignore"):
            scale = np.nan_to_num(np.where((n_s > 0) & pool, 1.0 / (n_s * hessian**2), 0.0))
            pooled_scale = np.where((n_s > 0) & pool, (1.0 / n_s + 1.0 / np.maximum(u_s, 1)) / hessian**2, 0.0)
            pooled_scale = np.nan_to_num(pooled_scale)
        lhs = np.zeros((*lead, n_judges, n_judges))
        rhs = np.zeros((*lead, n_judges))
        for j in range(n_judges):
            cov = per(lab * group_cross(groups, g_l[0], hat_l[j][0]), lab * group_cross(groups, g_l[1], hat_l[j][1]))
            with np.errstate(invalid="ignore", divide="ignore"):
                rhs[..., j] = np.sum(scale * np.nan_to_num(cov / n_s), axis=-1)
            for k in range(j, n_judges):
                var = per(
                    (lab + unl) * group_cross(groups, hat_all[j][0], hat_all[k][0]),
                    (lab + unl) * group_cross(groups, hat_all[j][1], hat_all[k][1]),
                )
                with np.errstate(invalid="ignore", divide="ignore"):
                    var = np.nan_to_num(var / (n_s + u_s - 1))
                lhs[..., j, k] = lhs[..., k, j] = np.sum(pooled_scale * var, axis=-1)
        weights = power_tuned_weights(rhs, lhs)
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
        residual = (plus(residual[0], scaled(hat[0], -la)), plus(residual[1], scaled(hat[1], -lb)))
        term = (scaled(hat[0], la), scaled(hat[1], lb))
        pooled = term if pooled is None else (plus(pooled[0], term[0]), plus(pooled[1], term[1]))
    sparse = sparse and not clustered and not lead
    if sparse:
        from scipy.sparse import csr_array

        covariance = csr_array((n_systems, n_systems))
    else:
        covariance = np.zeros((*lead, n_systems, n_systems))
    parts = [(pair, mask, number) for pair, mask, number in ((residual, lab, n_s), (pooled, unl, u_s)) if pair]
    clusters = None
    if clustered:
        cluster_total = sum(totals(pair, mask, number, hessian) for pair, mask, number in parts)
        present = cluster_totals(groups, lab * count, lab * count) > 0
        behind = present.sum(axis=-2)  # G_s: the clusters holding a system's human battles
        clusters = Clustered(cluster_robust_covariance(cluster_total, behind), present)
    for pair, mask, number in parts:
        side_a, side_b = centred(pair, mask, number)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            factor = 1.0 / (number * hessian)
        # a system without battles here, or whose battles are all ties with ties left out, has no
        # interval (its note): its influence is left at 0, not at the largest float
        factor = np.where(np.isfinite(factor), factor, 0.0)
        ia, ib = scaled(side_a, factor[..., a]), scaled(side_b, factor[..., b])
        covariance += pair_matrix(
            mask * group_cross(groups, ia, ia),
            mask * group_cross(groups, ib, ib),
            mask * group_cross(groups, ia, ib),
            a,
            b,
            n_systems,
            sparse=sparse,
        )
    return theta, covariance, n_s, weights, clusters


def _notes(info, n_human, human_d, n_judge, ties):
    """Per system, why its win rate has no estimate or no interval (\"\" when it has both)."""
    reasons = []
    for s in range(n_human.size):
        if info.proxy_only:
            reasons.append(NO_JUDGE if n_judge[s] == 0 else (JUDGE_ALL_TIES if human_d[s] == 0 else ""))
        elif n_human[s] == 0:
            reasons.append(NO_HUMAN)
        elif ties == "drop" and human_d[s] == 0:
            reasons.append(ALL_TIES)
        elif n_human[s] == 1:
            reasons.append(FEW_HUMAN)
        else:
            reasons.append("")
    return tuple(reasons)


def _weight_sums(groups: Groups, d_form, n_systems: int, sparse: bool = False):
    """Per system (..., S), the sum of the battle weight d over the labelled battles: the
    observations behind a win rate (battles; decisive ones when ties are left out); and per
    pair of systems (..., S, S) the sum over their battles (0 on the diagonal; ``sparse``: a
    sparse array, :func:`~debias.stats.preferences.battles.pair_matrix`)."""
    total = groups.labelled * group_total(groups, d_form)
    zero = np.zeros_like(total)
    shared = pair_matrix(zero, zero, total, groups.a, groups.b, n_systems, sparse=sparse)
    return per_system(total, total, groups.a, groups.b, n_systems), shared


def _left_out(groups: Groups, n_systems: int) -> np.ndarray:
    """Per system, its pool battles in pairs no labelled battle covers (left out of PPI++)."""
    out = groups.count * (1.0 - groups.labelled) * (1.0 - covered(groups))
    return per_system(out, out, groups.a, groups.b, n_systems)


def win_rate_estimate(
    battles: Battles, estimator: str, *, level: float, ties: str = "half", sparse: bool = False
) -> JointEstimate:
    """:func:`win_rates` on battles already checked and grouped (:class:`~debias.stats.preferences.battles.Battles`).
    With ``sparse`` (many systems, most pairs never met: the cells of a head-to-head matrix) and
    battles not in clusters, the covariance is a SciPy sparse array (:func:`win_rate_core`)."""
    sparse = sparse and battles.clusters is None
    pairs = battles.pairs
    info, columns = resolve(estimator, pairs.judges)
    n_judge, _ = battles.judge_counts(columns)
    # with ties left out, a win rate rests on the decisive battles: those are its human battles
    n_human = decisive_counts(pairs) if ties == "drop" else battles.human_counts
    left_out = np.zeros(pairs.n_systems)
    if info.proxy_only:
        groups, (forms,) = battles.judged_by(columns[0], ties)
        theta, covariance, _, weights, clustered = win_rate_core(groups, forms, [], sparse=sparse)
        observations, shared = _weight_sums(groups, forms[2], pairs.n_systems, sparse)
        human_d = observations  # the judge's verdicts behind it (decisive ones when ties are left out)
    else:
        groups, forms = battles.labelled(ties)
        predictions = [forms[1 + j] for j in columns]  # none for people alone
        theta, covariance, _, weights, clustered = win_rate_core(groups, forms[0], predictions, sparse=sparse)
        observations, shared = _weight_sums(groups, forms[0][2], pairs.n_systems, sparse)
        human_d = observations
        if info.uses_proxies:
            left_out = _left_out(groups, pairs.n_systems)
    summary = None
    if clustered is None:
        covariance = proportion_covariance(theta, covariance, observations, level, shared)
    else:
        widened = proportion_covariance(theta, clustered.covariance, observations, level, shared)
        covariance, _, summary = studentised_clusters(widened, covariance, clustered, level)
    notes = _notes(info, battles.human_counts, human_d, n_judge, ties)
    if summary is not None:
        notes = tuple(note or (FEW_CLUSTERED if g == 1 else "") for note, g in zip(notes, summary.n_clusters))
    return system_estimate(
        "win_rate",
        estimator,
        battles,
        info,
        columns,
        theta,
        covariance,
        level,
        notes,
        weights,
        n_human=n_human,
        remarks=[
            f"{int(n)} judge-only battles (pairs no person judged) left out of its pool" if n else "" for n in left_out
        ],
        bounds=(0.0, 1.0),
        clusters=summary,
    )


def win_rates(pairs: JudgedPairs, estimator: str = "human", *, level: float, ties: str = "half") -> JointEstimate:
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
    JointEstimate
        Estimand ``win_rate``.

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
    >>> result = win_rates(pairs, level=0.9)
    >>> result.systems, result.estimate.round(3).tolist()
    (('x', 'y', 'z'), [0.833, 0.0, 0.75])
    """
    check_level(level)
    return win_rate_estimate(Battles.of(pairs, ties), estimator, level=level, ties=ties)


def win_rate_draws(pairs: JudgedPairs, labelled, estimators: Sequence[str], *, level: float, ties: str = "half"):
    """Win rates of every system for many random labelled sets at once (a simulation's draws).

    ``pairs`` must carry a human verdict on every battle; ``labelled`` (R, B) says which battles
    each draw keeps as labelled (the others are its pool). Returns ``{estimator: (estimate,
    covariance, n_human)}`` with shapes (R, S), (R, S, S) and (R, S); ``judge:*`` uses every
    battle and is the same in every draw (shapes (S,), (S, S) and (S,)).
    """
    check_pairs(pairs, ties)
    check_level(level)
    if not pairs.labelled.all():
        raise ValueError("win_rate_draws needs a human verdict on every battle")
    clusters = pairs.cluster_codes if pairs.clustered else None
    groups, forms = labelled_groups(pairs, ties, np.asarray(labelled, dtype=bool), clusters=clusters)
    out = {}
    for name in estimators:
        info, columns = resolve(name, pairs.judges)
        if info.proxy_only:
            judged, (judge_forms,) = judge_groups(pairs, columns[0], ties, clusters=clusters)
            theta, covariance, n_human, _, clustered = win_rate_core(judged, judge_forms, [])
            observations, shared = _weight_sums(judged, judge_forms[2], pairs.n_systems)
        else:
            predictions = [forms[1 + j] for j in columns]  # none for people alone
            theta, covariance, n_human, _, clustered = win_rate_core(groups, forms[0], predictions)
            observations, shared = _weight_sums(groups, forms[0][2], pairs.n_systems)
        if clustered is None:
            covariance = proportion_covariance(theta, covariance, observations, level, shared)
        else:
            widened = proportion_covariance(theta, clustered.covariance, observations, level, shared)
            covariance = studentised_clusters(widened, covariance, clustered, level)[0]
        out[name] = (theta, covariance, n_human)
    return out
