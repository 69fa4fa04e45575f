r"""Bradley-Terry strengths on a design matrix: per-battle covariates and a tie parameter.

The plain Bradley-Terry fit (:mod:`debias.stats.preferences.bradley_terry`) models a battle by
the contrast :math:`x_i = e_A - e_B` of its two systems. Here the design of battle i is
:math:`[x_i \mid z_i]`, the contrast and the differences of K covariates between the two
responses (length, markdown counts: *style control*), so that

.. math::

    \eta_i = \theta_{A_i} - \theta_{B_i} + z_i^\top\beta,

and the strengths :math:`\theta` are the systems' merits at equal covariates, :math:`\beta` the
covariates' own effects. Two outcome models share the same machinery, both exponential
families in the battle's natural parameters:

``half``
    Bradley-Terry with a tie as half a win: statistic :math:`v` (the score of A), mean
    :math:`\sigma(\eta)`, variance :math:`\sigma(1 - \sigma)`.
``davidson``
    Davidson's (1970) model with a tie parameter :math:`\nu = e^\tau`:
    :math:`P(A) = e^{\eta/2}/D`, :math:`P(B) = e^{-\eta/2}/D`, :math:`P(\text{tie}) = \nu/D`,
    :math:`D = e^{\eta/2} + e^{-\eta/2} + \nu` (with :math:`\pi = e^\theta`, :math:`P(A) =
    \pi_A/(\pi_A + \pi_B + \nu\sqrt{\pi_A\pi_B})`). Statistics :math:`(v - 1/2, t)` with
    :math:`t` the share of the battle's verdicts that are ties; their mean and covariance
    under the model are the gradient and Hessian of :math:`\log D`.

Every estimator is the root of an average of per-battle gradients
:math:`J_i^\top(\mu_i(\phi) - s_i)` in the parameters :math:`\phi = (\theta, \beta[, \tau])`,
:math:`J_i` mapping them to the natural parameters: people's verdicts on the labelled battles;
a judge's as if they were people's; PPI++ (Angelopoulos et al. 2023, the M-estimation form of
Boyeau et al. 2024) with the rectified equation of :mod:`debias.stats.preferences.estimands`,
one weight per judge minimising the trace of the strengths' covariance
(:func:`debias.stats.common.ppi.power_tuned_weights`). The covariance is the sandwich
:math:`H^+ V H^+` with the generalised inverse along the common shift of the strengths (the
strengths are centred to mean 0), from the same per-battle gradients, summed within clusters
when the battles are clustered (:mod:`debias.stats.common.clusters`). With no covariate and ties
as half, this is exactly the plain fit (a test checks it), battle by battle instead of grouped.

References
----------
R. R. Davidson. On extending the Bradley-Terry model to accommodate ties in paired comparison
experiments. *Journal of the American Statistical Association* 65(329):317-328, 1970.

W.-L. Chiang et al. Chatbot Arena: An open platform for evaluating LLMs by human preference.
ICML 2024 (style control: per-battle differences of response length and markdown counts as
covariates of the Bradley-Terry model, as in the LMSYS blog post "Does style matter?", 2024).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from debias.stats.common.clusters import cluster_robust_covariance
from debias.stats.common.ppi import power_tuned_weights
from debias.stats.preferences.battles import per_system

__all__ = ["DesignFit", "design_fit", "outcome_statistics"]

#: Newton steps at most, the step size at which they stop, and the largest step taken at once.
STEPS, TOLERANCE, LARGEST_STEP = 200, 1e-11, 4.0
#: A parameter this far from 0 means the fit is running away (no finite maximum).
DIVERGED = 50.0


def outcome_statistics(score, tie_share, ties: str) -> np.ndarray:
    """A provider's per-battle statistics (B, m): the score of A (``half``) or the score less
    one half and the share of ties (``davidson``)."""
    score = np.asarray(score, dtype=float)
    if ties == "half":
        return score[:, None]
    return np.column_stack([score - 0.5, np.asarray(tie_share, dtype=float)])


def _moments(eta, tau, ties: str):
    """Per battle, the statistics' mean (B, m) and covariance entries ``(c11, c12, c22)``."""
    if ties == "half":
        p = expit(eta)
        return p[:, None], (p * (1.0 - p), None, None)
    half = 0.5 * np.abs(eta)
    # P(A), P(B), P(tie) with the larger of e^{+-eta/2} divided out, so that nothing overflows
    big, small, tie = np.ones_like(eta), np.exp(-2.0 * half), np.exp(tau - half)
    total = big + small + tie
    winner, loser, tie = big / total, small / total, tie / total
    p_a = np.where(eta >= 0, winner, loser)
    p_b = np.where(eta >= 0, loser, winner)
    first = 0.5 * (p_a - p_b)
    c11 = 0.25 * (p_a + p_b) - first**2
    return np.column_stack([first, tie]), (c11, -first * tie, tie * (1.0 - tie))


@dataclass
class _Design:
    a: np.ndarray
    b: np.ndarray
    n_systems: int
    features: np.ndarray  # (B, K)
    ties: str

    @property
    def n_params(self) -> int:
        return self.n_systems + self.features.shape[1] + (self.ties == "davidson")

    def eta(self, phi):
        s, k = self.n_systems, self.features.shape[1]
        eta = phi[self.a] - phi[self.b]
        if k:
            eta = eta + self.features @ phi[s : s + k]
        return eta

    def tau(self, phi):
        return phi[-1] if self.ties == "davidson" else 0.0

    def scatter(self, q):
        """Per system, the sum of ``q`` over the battles where it is A less where it is B."""
        return np.bincount(self.a, q, self.n_systems) - np.bincount(self.b, q, self.n_systems)

    def gradient(self, e):
        """:math:`\\sum_i J_i^\\top e_i` for per-battle statistic residuals e (B, m)."""
        parts = [self.scatter(e[:, 0]), self.features.T @ e[:, 0]]
        if self.ties == "davidson":
            parts.append(np.array([e[:, 1].sum()]))
        return np.concatenate(parts)

    def quadratic(self, c11, c12=None, c22=None):
        """:math:`\\sum_i J_i^\\top C_i J_i` for per-battle symmetric C (entries c11, c12, c22)."""
        s, k = self.n_systems, self.features.shape[1]
        size = self.n_params
        out = np.zeros((size, size))
        off = np.bincount(self.a * s + self.b, c11, s * s).reshape(s, s)
        diagonal = np.bincount(self.a, c11, s) + np.bincount(self.b, c11, s)
        out[:s, :s] = np.diag(diagonal) - off - off.T
        if k:
            weighted = c11[:, None] * self.features
            cross = np.column_stack([self.scatter(weighted[:, j]) for j in range(k)])
            out[:s, s : s + k] = cross
            out[s : s + k, :s] = cross.T
            out[s : s + k, s : s + k] = self.features.T @ weighted
        if self.ties == "davidson":
            column = np.concatenate([self.scatter(c12), self.features.T @ c12])
            out[:-1, -1] = out[-1, :-1] = column
            out[-1, -1] = c22.sum()
        return out

    def cluster_sums(self, e, cluster, n_clusters):
        """Per cluster (C, P): :math:`\\sum_{i \\in c} J_i^\\top e_i`."""
        s, k = self.n_systems, self.features.shape[1]
        offset = cluster * s
        systems = per_system(e[:, 0], -e[:, 0], offset + self.a, offset + self.b, n_clusters * s)
        parts = [systems.reshape(n_clusters, s)]
        for j in range(k):
            parts.append(np.bincount(cluster, e[:, 0] * self.features[:, j], n_clusters)[:, None])
        if self.ties == "davidson":
            parts.append(np.bincount(cluster, e[:, 1], n_clusters)[:, None])
        return np.concatenate(parts, axis=1)

    def centred_cluster_sums(self, e, mask, number, cluster, n_clusters):
        """Per cluster (C, P), the masked battles' gradients :math:`J_i^\\top e_i` summed less
        their mean over the ``number`` battles times the cluster's masked battles, over ``number``."""
        e = e * mask[:, None]
        total = self.cluster_sums(e, cluster, n_clusters)
        battles = np.bincount(cluster, mask.astype(float), n_clusters)
        return (total - battles[:, None] * (self.gradient(e) / number)) / number

    def pinv(self, hessian):
        """The Moore-Penrose inverse of a Hessian singular along the common shift of the
        strengths only: :math:`(H + \\alpha P)^{-1} - P/\\alpha`, P the projection on that shift."""
        s = self.n_systems
        projection = np.zeros_like(hessian)
        projection[:s, :s] = 1.0 / s
        alpha = max(np.trace(hessian[:s, :s]) / s, np.finfo(float).tiny)
        return np.linalg.inv(hessian + alpha * projection) - projection / alpha


def _pair_covered(a, b, labelled, n_systems):
    """Per battle, whether its unordered pair has a labelled battle."""
    key = np.minimum(a, b) * n_systems + np.maximum(a, b)
    _, pair = np.unique(key, return_inverse=True)
    pair = pair.reshape(-1)
    return np.bincount(pair, labelled.astype(float))[pair] > 0


def collinear_covariates(a, b, n_systems, features, names) -> list[str]:
    """The covariates whose differences are (nearly) a combination of the systems' contrasts
    and the other covariates on these battles: their coefficients are not identifiable."""
    design = _Design(a, b, n_systems, features, "half")
    hessian = design.quadratic(np.ones(a.size))
    s = n_systems
    systems = hessian[:s, :s]
    cross = hessian[:s, s:]
    schur = hessian[s:, s:] - cross.T @ np.linalg.pinv(systems, hermitian=True) @ cross
    own = np.diag(hessian[s:, s:])
    bad = []
    for k, name in enumerate(names):
        if own[k] <= 0:
            bad.append(name)
            continue
        others = [j for j in range(len(names)) if j != k and j not in [names.index(n) for n in bad]]
        rest = schur[np.ix_(others, others)]
        left = schur[k, k] - (
            schur[k, others] @ np.linalg.pinv(rest, hermitian=True) @ schur[others, k] if others else 0
        )
        if left <= 1e-9 * own[k]:
            bad.append(name)
    return bad


@dataclass(frozen=True)
class DesignFit:
    """A fit on the design: the parameters ``(theta, beta[, tau])`` (strengths centred to
    mean 0), their covariance (independent battles), the judges' weights, each parameter's
    Welch-Satterthwaite degrees of freedom, the clustered covariance and the clusters holding
    human battles behind each parameter (``None`` without clusters), and whether Newton's
    method converged."""

    phi: np.ndarray
    covariance: np.ndarray
    weights: np.ndarray
    df: np.ndarray
    clustered: np.ndarray | None
    cluster_count: np.ndarray | None
    converged: bool


def design_fit(
    a,
    b,
    n_systems: int,
    features,
    labelled,
    human,
    predictions,
    *,
    ties: str = "half",
    fitted=None,
    clusters=None,
    weights=None,
) -> DesignFit:
    """Fit the strengths, the covariates' coefficients and the tie parameter by one estimator.

    ``labelled`` (B,) marks the battles with the verdicts ``human`` (B, m) (statistics of
    :func:`outcome_statistics`; rows of unlabelled battles are ignored); ``predictions`` is one
    (B, m) array per judge (every battle's, filled where the judge did not answer): with judges,
    the unlabelled battles of ``fitted`` (default every battle) whose pair has a labelled battle
    are PPI++'s pool. ``clusters`` (B,) integer codes, or ``None`` for independent battles.
    ``weights`` fixes the judges' weights instead of tuning them.
    """
    a, b = np.asarray(a, np.int64), np.asarray(b, np.int64)
    features = np.asarray(features, dtype=float).reshape(a.size, -1)
    design = _Design(a, b, n_systems, features, ties)
    lab = np.asarray(labelled, bool)
    fitted = np.ones(a.size, bool) if fitted is None else np.asarray(fitted, bool)
    lab = lab & fitted
    n_judges = len(predictions)
    pool = fitted & ~lab & _pair_covered(a, b, lab, n_systems) if n_judges else np.zeros(a.size, bool)
    n, n_pool = float(lab.sum()), float(pool.sum())
    use_pool = n_judges > 0 and n_pool > 0
    human = np.where(lab[:, None], np.nan_to_num(np.asarray(human, dtype=float)), 0.0)
    size = design.n_params
    s = n_systems

    def coefficients(lam):
        """Per battle, the weight of its model mean and its target in the estimating equation."""
        weight = lab / n
        target = human * (lab / n)[:, None]
        if use_pool:
            for j in range(n_judges):
                coefficient = lam[j] * (pool / n_pool - lab / n)
                weight = weight + coefficient
                target = target + predictions[j] * coefficient[:, None]
        return weight, target

    def start():
        phi = np.zeros(size)
        if ties == "davidson":
            share = float(np.sum(human[lab, 1]) / max(n, 1.0))
            share = min(max(share, 1e-3), 1.0 - 1e-3)
            phi[-1] = np.log(2.0 * share / (1.0 - share))
        return phi

    def fit(lam):
        weight, target = coefficients(lam)
        step_weight = weight
        if np.any(weight < -1e-12 * np.max(np.abs(weight))):
            step_weight = (lab | pool) / (n + n_pool)
        phi = start()
        for _ in range(STEPS):
            mean, (c11, c12, c22) = _moments(design.eta(phi), design.tau(phi), ties)
            gradient = design.gradient(mean * weight[:, None] - target)
            hessian = design.quadratic(
                c11 * step_weight,
                None if c12 is None else c12 * step_weight,
                None if c22 is None else c22 * step_weight,
            )
            try:
                step = design.pinv(hessian) @ gradient
            except np.linalg.LinAlgError:
                return phi, False
            largest = np.max(np.abs(step))
            if largest > LARGEST_STEP:
                step = step * (LARGEST_STEP / largest)
            phi = phi - step
            phi[:s] -= phi[:s].mean()
            if not np.all(np.abs(phi) < DIVERGED):
                return phi, False
            if largest < TOLERANCE:
                return phi, True
        return phi, False

    def moments(phi, mask):
        mean, (c11, c12, c22) = _moments(design.eta(phi), design.tau(phi), ties)
        m = mask / mask.sum()
        hessian = design.quadratic(c11 * m, None if c12 is None else c12 * m, None if c22 is None else c22 * m)
        return mean, hessian

    def covariance_of(e1, e2, mask, number):
        """Covariance (ddof 1) of the masked battles' gradients J'e1 and J'e2, P x P."""
        e1, e2 = e1 * mask[:, None], e2 * mask[:, None]
        m1, m2 = design.gradient(e1) / number, design.gradient(e2) / number
        c11 = e1[:, 0] * e2[:, 0]
        c12 = c22 = None
        if ties == "davidson":
            c12 = 0.5 * (e1[:, 0] * e2[:, 1] + e1[:, 1] * e2[:, 0])
            c22 = e1[:, 1] * e2[:, 1]
        second = design.quadratic(c11, c12, c22) / number
        cross = np.outer(m1, m2)
        return (second - 0.5 * (cross + cross.T)) * number / max(number - 1.0, 1.0)

    both = (lab | pool).astype(float)
    if use_pool and weights is None:
        begin, converged = fit(np.full(n_judges, 1.0 / n_judges))
        if not converged:
            begin, _ = fit(np.zeros(n_judges))
        mean, hessian = moments(begin, both)
        try:
            inverse = design.pinv(hessian)
        except np.linalg.LinAlgError:
            inverse = np.linalg.pinv(hessian, hermitian=True)
        focus = inverse[:, :s] @ inverse[:s, :]  # the trace over the strengths
        r_h = mean - human
        r_p = [mean - f for f in predictions]
        rhs, lhs = np.zeros(n_judges), np.zeros((n_judges, n_judges))
        if clusters is not None:
            codes = np.asarray(clusters, np.int64)
            count = int(codes.max()) + 1

            def centred_sums(e, mask, number):
                return design.centred_cluster_sums(e, mask, number, codes, count)

            h = centred_sums(r_h, lab, n) @ inverse[:, :s]
            d = [(centred_sums(r, lab, n) - centred_sums(r, pool, n_pool)) @ inverse[:, :s] for r in r_p]
            rhs = np.array([np.sum(h * dj) for dj in d])
            lhs = np.array([[np.sum(dj * dk) for dk in d] for dj in d])
        else:
            for j in range(n_judges):
                cross = covariance_of(r_h, r_p[j], lab, n) * (n - 1.0) / n
                rhs[j] = np.sum(cross * focus) / n
                for k in range(j, n_judges):
                    var = covariance_of(r_p[j], r_p[k], both, n + n_pool)
                    lhs[j, k] = lhs[k, j] = np.sum(var * focus) * (1.0 / n + 1.0 / n_pool)
        weights = power_tuned_weights(rhs, lhs)
    if use_pool:
        weights = np.asarray(weights, dtype=float)
    else:
        weights = np.zeros(n_judges)
    phi, converged = fit(weights)
    if not converged and np.any(weights != 0):
        weights = np.zeros(n_judges)
        phi, converged = fit(weights)
    use_pool = use_pool and bool(np.any(weights != 0))
    mean, hessian = moments(phi, both if use_pool else lab.astype(float))
    try:
        inverse = design.pinv(hessian)
    except np.linalg.LinAlgError:  # curvature lost (a parameter at infinity): no interval
        inverse, converged = np.linalg.pinv(hessian, hermitian=True), False
    residual = mean - human
    pooled = np.zeros_like(residual)
    for j in range(n_judges if use_pool else 0):
        residual = residual - weights[j] * (mean - predictions[j])
        pooled = pooled + weights[j] * (mean - predictions[j])
    labelled_part = inverse @ (covariance_of(residual, residual, lab, n) / n) @ inverse
    pool_part = np.zeros_like(labelled_part)
    if use_pool:
        pool_part = inverse @ (covariance_of(pooled, pooled, pool, n_pool) / n_pool) @ inverse
    human_battles = np.concatenate([per_system(lab.astype(float), lab.astype(float), a, b, s), np.full(size - s, n)])
    v_l, total = np.maximum(np.diag(labelled_part), 0.0), np.maximum(np.diag(labelled_part + pool_part), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        df = np.where(v_l > 0, np.maximum(human_battles - 1.0, 0.0) * total**2 / v_l**2, np.inf)
    clustered = cluster_count = None
    if clusters is not None:
        codes = np.asarray(clusters, np.int64)
        count = int(codes.max()) + 1
        totals = design.centred_cluster_sums(residual, lab, n, codes, count)
        if use_pool:
            totals = totals + design.centred_cluster_sums(pooled, pool, n_pool, codes, count)
        holding = np.zeros((count, s), bool)
        human_a = np.bincount(codes[lab] * s + a[lab], minlength=count * s).reshape(count, s)
        human_b = np.bincount(codes[lab] * s + b[lab], minlength=count * s).reshape(count, s)
        holding = (human_a + human_b) > 0
        any_human = np.bincount(codes[lab], minlength=count) > 0
        cluster_count = np.concatenate([holding.sum(axis=0), np.full(size - s, int(any_human.sum()))])
        meat = cluster_robust_covariance(totals, cluster_count)
        clustered = inverse @ meat @ inverse
    return DesignFit(phi, labelled_part + pool_part, weights, df, clustered, cluster_count, converged)
