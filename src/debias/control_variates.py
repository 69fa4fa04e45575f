"""Estimators of a system's mean human score and the theory of their variance.

Notation follows Section 3 of the paper: ``y`` are human judgments of sampled
system outputs, ``g`` is a free automatic metric on the same outputs, ``f`` is
the (unknown) mean human judgment of an output, ``sigma2_f = Var(f)``,
``sigma2_a = E[Var(Y | z)]`` (annotator variance), ``rho = corr(f, g)`` and
``gamma = sigma2_a / sigma2_f``.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "sample_mean",
    "control_variates_estimate",
    "correlation",
    "attenuation_corrected_correlation",
    "theory_variance",
    "theory_data_efficiency",
]


def sample_mean(y) -> float:
    """Plain average of human judgments: the unbiased baseline (Section 3.1)."""
    y = np.asarray(y, dtype=float)
    if y.size == 0:
        raise ValueError("sample_mean needs at least one judgment")
    return float(y.mean())


def control_variates_estimate(y, g, g_mean: float, g_var: float) -> tuple[float, float]:
    """Algorithm 1 on one sample: subtract the part of ``y`` that ``g`` predicts.

    ``g_mean`` and ``g_var`` are the mean and (population) variance of the
    metric over *all* of the system's outputs; they are free to compute, and
    knowing them is what lets ``g`` reduce variance at all (Section 3.3).
    Dividing by ``g_var`` is the same as standardising ``g`` as the paper does,
    so the estimate is invariant to affine rescaling of the metric.

    The coefficient is the plug-in ``alpha = (1/n) sum (y_i - ybar)(g_i - gbar)
    / g_var``; estimating it costs only an O(1/n) bias (Proposition 3.1).
    A constant metric (``g_var == 0``) carries no information, so ``alpha = 0``
    and the estimate falls back to the sample mean.

    Returns ``(estimate, alpha)``.
    """
    y = np.asarray(y, dtype=float)
    g = np.asarray(g, dtype=float)
    if y.shape != g.shape or y.ndim != 1:
        raise ValueError(f"y and g must be 1-D of equal length, got {y.shape} and {g.shape}")
    if y.size == 0:
        raise ValueError("control_variates_estimate needs at least one judgment")
    y_bar = y.mean()
    g_bar = g.mean()
    if g_var == 0:
        alpha = 0.0
    else:
        cov = np.mean((y - y_bar) * (g - g_bar))
        alpha = float(cov / g_var)
    estimate = float(y_bar - alpha * (g_bar - g_mean))
    return estimate, alpha


def correlation(f, g) -> float:
    """Pearson correlation; NaN when either side is constant (rho is undefined)."""
    f = np.asarray(f, dtype=float)
    g = np.asarray(g, dtype=float)
    if f.shape != g.shape or f.ndim != 1:
        raise ValueError(f"f and g must be 1-D of equal length, got {f.shape} and {g.shape}")
    fc = f - f.mean()
    gc = g - g.mean()
    sff = np.dot(fc, fc)
    sgg = np.dot(gc, gc)
    if sff == 0 or sgg == 0:
        return float("nan")
    r = np.dot(fc, gc) / np.sqrt(sff * sgg)
    return float(np.clip(r, -1.0, 1.0))


def attenuation_corrected_correlation(judgments, g, sigma2_f: float | None = None) -> float:
    """The correlation of the true mean judgment f with a metric g, as the paper's code estimates it.

    Parameters
    ----------
    judgments : array_like, shape (N, K)
        Judgments of N outputs, each row's k_i >= 1 judgments first and NaN after them.
    g : array_like, shape (N,)
        The metric's score of each output.
    sigma2_f : float, optional
        Var(f). Default: the variance of all judgments of the outputs judged at least
        twice (ddof 1) minus the annotator variance σ_a² of the same outputs
        (:func:`debias.variance.annotator_variance`).

    Returns
    -------
    float
        ``Cov(ȳ, g) / (σ_f · sd(g))``; NaN when σ_f² is not positive or g is constant.

    Notes
    -----
    With ȳ_i the mean judgment of output i and ḡ, ȳ̄ the averages over all N outputs::

        ρ̂ = [(1/N) Σ_i (ȳ_i − ȳ̄)(g_i − ḡ)] / (σ̂_f · s_g),

    with s_g the standard deviation of g (ddof 1). Annotator noise is independent of g, so
    the numerator estimates Cov(f, g); dividing by σ_f instead of the spread of the noisy
    means ȳ_i corrects for attenuation: this estimates ρ = corr(f, g) of Section 3, the
    quantity the paper's Figure 5 plots (its code's ``get_correlations``). It can leave
    [-1, 1] on small samples; :func:`correlation` (Pearson's r of ȳ and g) is the plain
    alternative and is attenuated by annotator noise.

    References
    ----------
    C. Spearman. 1904. The proof and measurement of association between two things. *The
    American Journal of Psychology* 15(1):72-101.
    A. T. Chaganty, S. Mussmann and P. Liang. 2018. The price of debiasing automatic metrics
    in natural language evaluation. In *Proceedings of ACL*, pages 643-653.
    """
    from .variance import annotator_variance

    judgments = np.asarray(judgments, dtype=float)
    g = np.asarray(g, dtype=float)
    if judgments.ndim != 2 or g.shape != (judgments.shape[0],):
        raise ValueError(f"judgments must be (N, K) and g (N,), got {judgments.shape} and {g.shape}")
    counts = np.sum(~np.isnan(judgments), axis=1)
    if np.any(counts == 0):
        raise ValueError("every output needs at least one judgment")
    if sigma2_f is None:
        multi = judgments[counts >= 2]
        sigma2_f = float(np.var(multi[~np.isnan(multi)], ddof=1)) - annotator_variance(judgments)
    sd_g = float(np.std(g, ddof=1)) if g.size > 1 else 0.0
    if not sigma2_f > 0 or sd_g == 0:
        return float("nan")
    means = np.nanmean(judgments, axis=1)
    covariance = float(np.mean(means * g) - means.mean() * g.mean())
    return covariance / (np.sqrt(sigma2_f) * sd_g)


def theory_variance(sigma2_f, sigma2_a, rho, n):
    """Variance of the control-variates estimator, Eq. (6): (sigma2_f (1-rho^2) + sigma2_a) / n.

    With ``rho = 0`` this is the sample-mean variance of Eq. (2). Broadcasts.
    """
    sigma2_f = np.asarray(sigma2_f, dtype=float)
    sigma2_a = np.asarray(sigma2_a, dtype=float)
    rho = np.asarray(rho, dtype=float)
    n = np.asarray(n, dtype=float)
    return (sigma2_f * (1.0 - rho**2) + sigma2_a) / n


def theory_data_efficiency(rho, gamma):
    """Data efficiency, Eq. (7): (1 + gamma) / (1 - rho^2 + gamma).

    It is the factor by which the control-variates estimator cuts the number
    of human judgments for the same variance; it depends only on ``rho`` and
    ``gamma``, which is why the paper points at better metrics *and* better
    prompts. Broadcasts; ``rho = 1, gamma = 0`` gives ``inf``.
    """
    rho = np.asarray(rho, dtype=float)
    gamma = np.asarray(gamma, dtype=float)
    with np.errstate(divide="ignore"):
        return (1.0 + gamma) / (1.0 - rho**2 + gamma)
