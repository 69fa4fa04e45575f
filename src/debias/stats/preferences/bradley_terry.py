r"""Bradley-Terry strengths of the systems, by people, a judge, or PPI++.

:math:`P(A \succ B) = \sigma(\theta_A - \theta_B)` with the logistic :math:`\sigma`, fitted by
maximum likelihood with ties as half wins (the fractional logistic likelihood
:math:`v\log\sigma + (1 - v)\log(1 - \sigma)`), by Newton's method on the battles grouped per
(A, B) pair (:mod:`debias.stats.preferences.battles`). **Scale**: natural-log odds (a difference of 1 is odds
of e to 1); on request Elo points (:func:`elo_points`: :math:`400/\ln 10 \approx 173.7` points per
unit, so that 400 points are odds of 10 to 1, anchored at 1000 as FastChat's Arena ratings). **Reference**: the
strengths of the systems that have one are centred to mean 0, and the covariance is the
sandwich :math:`H^+ V H^+` with the Moore-Penrose inverse of the Hessian (a weighted graph
Laplacian, singular along the common shift of all strengths). PPI++ solves the rectified
estimating equation of :mod:`debias.stats.preferences.estimands` with the pooled Hessian, as
``ppi_py.ppi_logistic_ci``; its weights minimise the trace of the covariance
(:func:`debias.stats.common.ppi.power_tuned_weights`). The estimate exists only on the systems
connected both ways by the battles fitted (the MLE is infinite for a system that won, or lost,
all of them); the others get a note.

Reference: R. A. Bradley and M. E. Terry. Rank analysis of incomplete block designs: I. The
method of paired comparisons. *Biometrika* 39(3/4):324-345, 1952.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.special import expit

from debias.data import JudgedPairs
from debias.stats.common.clusters import cluster_robust_covariance
from debias.stats.common.intervals import check_level, small_sample_scale
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
    ClusterSummary,
    Groups,
    cluster_totals,
    covered,
    group_cross,
    group_total,
    pair_matrix,
    per_system,
    plus,
    resolve,
    scaled,
    studentised_clusters,
    system_estimate,
)

__all__ = [
    "DIVERGED",
    "ELO_ANCHOR_RATING",
    "ELO_POINTS_PER_UNIT",
    "NEWTON_STEPS",
    "NEWTON_TOLERANCE",
    "bradley_terry",
    "elo_points",
    "satterthwaite_df",
    "small_sample_scale",
    "strength_estimate",
]

#: Elo points per natural-log-odds unit: 400 points are odds of 10 to 1.
ELO_POINTS_PER_UNIT = 400.0 / np.log(10.0)
#: The Elo rating of the anchor (the mean strength, or a named system), as FastChat's.
ELO_ANCHOR_RATING = 1000.0


def elo_points(strength, anchor: float = 0.0):
    """Strengths (natural-log odds) as Elo ratings: ``1000 + 400/ln(10) * (strength - anchor)``.
    With the strengths centred to mean 0 and ``anchor`` 0 the mean system is at 1000; with
    ``anchor`` a system's strength that system is. A difference of ``d`` points is odds of
    ``10 ** (d / 400)`` to 1."""
    return ELO_ANCHOR_RATING + ELO_POINTS_PER_UNIT * (np.asarray(strength, dtype=float) - anchor)


#: Newton steps at most for a Bradley-Terry fit, and the step size at which it stops.
NEWTON_STEPS, NEWTON_TOLERANCE = 100, 1e-12
#: A strength this far from the mean (odds of e^50 to 1) means the fit is running away.
DIVERGED = 50.0


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
    return pair_matrix(weights, weights, -weights, a, b, n_systems)


def _bt_gradient_sums(residual, a, b, n_systems):
    r""":math:`\sum_i r_i x_i` with :math:`x_i = e_A - e_B`."""
    return per_system(residual, -residual, a, b, n_systems)


def _identifiable(groups: Groups, score_form, mask):
    """Systems in the largest strongly connected part of the win graph of the masked groups (an
    edge from the winner, both ways for a tie or split verdicts): where the Bradley-Terry MLE is
    finite. None when two parts are the largest alike (say, two groups of systems never compared
    with each other, of one size): choosing one would be arbitrary."""
    n_systems = groups.n_systems
    credit = mask * group_total(groups, score_form)
    number = mask * groups.count
    wins_a, wins_b = credit > 0, (number - credit) > 1e-9 * np.maximum(number, 1)
    rows = np.concatenate([groups.a[wins_a], groups.b[wins_b]])
    cols = np.concatenate([groups.b[wins_a], groups.a[wins_b]])
    graph = coo_matrix((np.ones(rows.size), (rows, cols)), shape=(n_systems, n_systems)).tocsr()
    present = np.zeros(n_systems, bool)
    present[groups.a[number > 0]] = present[groups.b[number > 0]] = True
    if not present.any():
        return np.zeros(n_systems, bool)
    _, labels = connected_components(graph, directed=True, connection="strong")
    sizes = np.bincount(labels[present], minlength=labels.max() + 1)
    keep = labels == int(np.argmax(sizes))
    alone = sizes.max() >= 2 and np.count_nonzero(sizes == sizes.max()) == 1
    return keep & present if alone else np.zeros(n_systems, bool)


def _unlinked_groups(groups: Groups, mask) -> list[np.ndarray]:
    """The systems of the masked groups' battles split into the parts no battle links (each
    part's systems, in order): one part when every system met is compared with the others."""
    number = mask * groups.count
    a, b = groups.a[number > 0], groups.b[number > 0]
    graph = coo_matrix((np.ones(a.size), (a, b)), shape=(groups.n_systems, groups.n_systems))
    labels = connected_components(graph, directed=False)[1]
    present = np.zeros(groups.n_systems, bool)
    present[a] = present[b] = True
    return [np.flatnonzero(present & (labels == label)) for label in np.unique(labels[present])]


def unlinked_note(groups: Groups, mask, names, what: str = "human battles") -> str:
    """Why no strength is given when the masked battles fall into parts never compared with each
    other (a Bradley-Terry strength is defined up to a shift within each part, so none across
    them): the parts named, or ``""`` when the battles link every system they meet."""
    parts = _unlinked_groups(groups, mask)
    if len(parts) < 2:
        return ""
    shown = [
        "{" + ", ".join(str(names[k]) for k in part[:5]) + (f", ... {part.size} systems" if part.size > 5 else "") + "}"
        for part in parts[:4]
    ]
    more = f" and {len(parts) - 4} more" if len(parts) > 4 else ""
    return (
        f"strength not defined across groups: by their {what} the systems fall into {len(parts)} groups never"
        f" compared with each other ({' and '.join(shown)}{more})"
    )


def _connected(a, b, mask, n_systems) -> bool:
    """Whether the masked (A, B) edges link every system."""
    graph = coo_matrix((np.ones(int(mask.sum())), (a[mask], b[mask])), shape=(n_systems, n_systems))
    return connected_components(graph, directed=False)[0] == 1


def _bt_core(groups: Groups, human, predictions, *, weights=None):
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
        # group_total(groups, residual_form(p, target)) = count (p - alpha) + the sources' part,
        # which no step changes: summed once per fit
        fixed = [np.sum(groups.sums * residual_form(0.0, target)[1], axis=-1) for _, target in terms]
        for _ in range(NEWTON_STEPS):
            p = expit(theta[a] - theta[b])
            residual = sum(c * (count * (p - target[0]) + part) for (c, target), part in zip(terms, fixed))
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
        m1 = _bt_gradient_sums(mask * group_total(groups, r1), a, b, n_systems) / number
        m2 = _bt_gradient_sums(mask * group_total(groups, r2), a, b, n_systems) / number
        second = _laplacian(mask * group_cross(groups, r1, r2), a, b, n_systems) / number
        return (second - np.outer(m1, m2)) * number / max(number - 1.0, 1.0)

    def pooled_hessian(theta, mask):
        p = expit(theta[a] - theta[b])
        return _laplacian(mask * count * p * (1 - p), a, b, n_systems) / np.sum(mask * count)

    clustered = groups.cluster is not None
    n_clusters = int(groups.cluster.max()) + 1 if clustered and groups.cluster.size else 0

    def cluster_gradients(r, mask, number):
        """Per cluster (C, S): the masked battles' gradients r x, centred at their mean battle's,
        summed within the cluster and divided by ``number``: each cluster's part of the mean
        gradient, whose covariance the clustered sandwich uses."""
        total = mask * group_total(groups, r)
        sums = cluster_totals(groups, total, -total)
        mean = _bt_gradient_sums(total, a, b, n_systems) / number
        battles = np.bincount(groups.cluster, mask * count, n_clusters)
        return (sums - battles[:, None] * mean) / number

    use_pool = n_judges > 0 and n_pool > 0
    if use_pool and weights is None and clustered:
        # the weights minimising the trace of the clustered sandwich, quadratic in the weights
        start, converged = fit(np.full(n_judges, 1.0 / n_judges))
        if not converged:
            start, _ = fit(np.zeros(n_judges))
        p = expit(start[a] - start[b])
        inverse = _laplacian_pinv(pooled_hessian(start, np.ones_like(lab)))
        h = cluster_gradients(residual_form(p, human), lab, n) @ inverse
        d = [
            (cluster_gradients(residual_form(p, f), lab, n) - cluster_gradients(residual_form(p, f), unl, n_pool))
            @ inverse
            for f in predictions
        ]
        rhs = np.array([np.sum(h * dj) for dj in d])
        lhs = np.array([[np.sum(dj * dk) for dk in d] for dj in d])
        weights = power_tuned_weights(rhs, lhs)
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
            weights = power_tuned_weights(rhs, lhs)
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
        residual = plus(residual, scaled(rj, -weights[j]))
        pool = scaled(rj, weights[j]) if pool is None else plus(pool, scaled(rj, weights[j]))
    labelled_part = inverse @ (covariance_of(residual, residual, lab, n) / n) @ inverse
    pool_part = np.zeros_like(labelled_part)
    if pool is not None:
        pool_part = inverse @ (covariance_of(pool, pool, unl, n_pool) / n_pool) @ inverse
    human_battles = per_system(count * lab, count * lab, a, b, n_systems)
    df = satterthwaite_df(np.diag(labelled_part), np.diag(pool_part), human_battles)
    clusters = None
    if clustered:
        total = cluster_gradients(residual, lab, n)
        if pool is not None:
            total = total + cluster_gradients(pool, unl, n_pool)
        present = cluster_totals(groups, lab * count, lab * count) > 0
        meat = cluster_robust_covariance(total, present.sum(axis=-2))  # each system's G_s, as its t's
        clusters = Clustered(inverse @ meat @ inverse, present)
    return theta, labelled_part + pool_part, weights, df, clusters


def satterthwaite_df(labelled_variance, pool_variance, human_battles) -> np.ndarray:
    r"""Per system, the degrees of freedom of its strength's variance (Welch-Satterthwaite).

    The variance is :math:`v_L + v_P`: the part of the battles with a human verdict, estimated
    from the system's :math:`m` human battles (:math:`m - 1` degrees of freedom), and PPI++'s
    judge-only pool (many battles: treated as known), so

    .. math::

        \nu = (m - 1)\,\frac{(v_L + v_P)^2}{v_L^2},

    :math:`m - 1` for ``human`` (no pool) and 0 for a single human battle. Infinite where
    :math:`v_L = 0`.

    Reference: F. E. Satterthwaite. An approximate distribution of estimates of variance
    components. *Biometrics Bulletin* 2(6):110-114, 1946.
    """
    v_l = np.maximum(np.asarray(labelled_variance, dtype=float), 0.0)
    total = v_l + np.maximum(np.asarray(pool_variance, dtype=float), 0.0)
    m = np.asarray(human_battles, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        df = np.maximum(m - 1.0, 0.0) * total**2 / v_l**2
    return np.where(v_l > 0, df, np.inf)


def bradley_terry(
    pairs: JudgedPairs, estimator: str = "human", *, level: float, small_sample: bool = True
) -> JointEstimate:
    r"""Bradley-Terry strengths of the systems with intervals and joint covariance, by one estimator.

    Parameters
    ----------
    pairs : JudgedPairs
        The battles; those with a human verdict must be a random sample of all.
    estimator : str
        ``human``, ``judge:<j>``, ``ppi++:<j>`` or ``ppi++:combined`` (module notes).
    level : float
        Nominal coverage of the intervals, in (0, 1).
    small_sample : bool
        Default True: each system's standard error is widened by
        :math:`t_{\nu,(1+\text{level})/2}/z_{(1+\text{level})/2}` with :math:`\nu` the
        Welch-Satterthwaite degrees of freedom of its variance (:func:`satterthwaite_df`: the
        part from its own m human battles has m - 1), and the covariance with it
        (:math:`D\hat\Sigma D`, still positive semi-definite); a system with one human battle
        behind a strength keeps it but gets no interval: the note
        :data:`~debias.stats.preferences.battles.FEW_HUMAN`. False: the
        sandwich covariance as it is (``ppi_py.ppi_logistic_ci``'s). ``judge:<j>`` is never
        widened (its verdicts are all known).

    Returns
    -------
    JointEstimate
        Estimand ``strength``: strengths on the natural-log-odds scale, centred to mean 0 over the
        systems that have one.

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
    >>> bradley_terry(pairs, level=0.9).estimate.round(3).tolist()
    [0.255, -0.255]
    """
    check_level(level)
    return strength_estimate(Battles.of(pairs), estimator, level=level, small_sample=small_sample)


def strength_estimate(
    battles: Battles, estimator: str, *, level: float, ties: str = "half", small_sample: bool = True
) -> JointEstimate:
    """:func:`bradley_terry` on battles already checked and grouped
    (:class:`~debias.stats.preferences.battles.Battles`). ``ties="half"`` counts a tie as half a
    win; ``ties="drop"`` fits the wins and losses alone (:meth:`~debias.data.JudgedPairs.decisive`:
    a battle whose verdicts are all ties is no vote, a judge's tie no verdict)."""
    info, columns = resolve(estimator, battles.pairs.judges)
    answered = battles.judge_counts(columns)[0] if info.proxy_only else battles.human_counts
    if ties == "drop":
        battles = Battles(battles.pairs.decisive(), battles.pool_weighted)
    pairs = battles.pairs
    n_systems = pairs.n_systems
    n_human = battles.human_counts
    n_judge, _ = battles.judge_counts(columns)
    theta = np.full(n_systems, np.nan)
    covariance = np.full((n_systems, n_systems), np.nan)
    weights = np.zeros(0 if info.proxy_only else len(columns))  # a weight per judge correcting people
    if info.proxy_only:
        groups, forms = battles.judged_by(columns[0], "half")
        keep = _identifiable(groups, forms[0][0], groups.labelled)
        unlinked = unlinked_note(groups, groups.labelled, pairs.systems, "battles the judge answered")
        notes = [
            ""
            if keep[s]
            else (
                (JUDGE_ALL_TIES if answered[s] else NO_JUDGE)
                if n_judge[s] == 0
                else unlinked or "strength not finite from the judge's verdicts"
            )
            for s in range(n_systems)
        ]
        fitted = groups.labelled > 0  # the battles the judge answered are its "labelled" ones
        predictions = []
    else:
        groups, forms = battles.labelled("half")
        keep = _identifiable(groups, forms[0][0], groups.labelled)
        unlinked = unlinked_note(groups, groups.labelled, pairs.systems)
        notes = [
            ""
            if keep[s]
            else (
                (ALL_TIES if answered[s] else NO_HUMAN)
                if n_human[s] == 0
                else unlinked
                or "strength not identifiable: its human battles do not link it both ways to the other systems"
            )
            for s in range(n_systems)
        ]
        # PPI++ fits the pool's battles of the pairs the labelled ones cover (battles.covered)
        fitted = np.ones(groups.a.size, bool) if info.people_only else (groups.labelled > 0) | (covered(groups) > 0)
        predictions = [forms[1 + j][0] for j in columns]  # none for people alone
    kept = np.flatnonzero(keep)
    summary = None
    chosen = keep[groups.a] & keep[groups.b] & fitted & (groups.count > 0)
    if kept.size >= 2 and np.any(chosen & (groups.labelled > 0)):
        renumber = np.full(n_systems, -1)
        renumber[kept] = np.arange(kept.size)
        sub = groups.select(chosen, renumber, kept.size)
        sub_theta, sub_cov, weights, sub_df, clustered = _bt_core(sub, forms[0][0], predictions)
        theta[kept] = sub_theta
        if clustered is not None:  # t with the clusters behind each strength, less one
            sub_cov, scale, sub_summary = studentised_clusters(clustered.covariance, sub_cov, clustered, level)
            for k in np.flatnonzero(~np.isfinite(scale)):
                notes[kept[k]] = notes[kept[k]] or FEW_CLUSTERED
            summary = ClusterSummary(np.zeros(n_systems, dtype=np.int64), np.full(n_systems, np.nan))
            summary.n_clusters[kept], summary.design_effect[kept] = sub_summary
        elif small_sample and not info.proxy_only:  # t-type: the human part's variance from few battles
            scale = small_sample_scale(sub_df, level)
            finite = np.isfinite(scale)
            sub_cov = sub_cov * np.outer(np.where(finite, scale, 1.0), np.where(finite, scale, 1.0))
            for k in np.flatnonzero(~finite):
                notes[kept[k]] = notes[kept[k]] or FEW_HUMAN
        covariance[np.ix_(kept, kept)] = sub_cov
    elif kept.size < 2:
        notes = [r or "fewer than two systems with a finite strength" for r in notes]
    return system_estimate(
        "strength", estimator, battles, info, columns, theta, covariance, level, notes, weights, clusters=summary
    )
