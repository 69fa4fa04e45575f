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
