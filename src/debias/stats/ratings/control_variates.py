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
    "control_variates_alpha",
    "control_variates_estimate",
    "alpha_estimation_variance",
    "cv_terms",
]


def sample_mean(y) -> float:
    r"""Plain average of human judgments: the unbiased baseline (Section 3.1).

    Parameters
    ----------
    y : array_like
        Human judgments of sampled outputs, one per output.

    Returns
    -------
    float
        :math:`\hat\mu_{mean} = \frac{1}{n} \sum_i y_i`, whose variance is Eq. (2),
        :math:`(\sigma_f^2 + \sigma_a^2)/n`.

    References
    ----------
    A. Chaganty, S. Mussmann and P. Liang. The price of debiasing automatic metrics in natural
    language evaluation. In *Proceedings of the 56th Annual Meeting of the Association for
    Computational Linguistics (ACL)*, pages 643-653, Melbourne, 2018.
    """
    y = np.asarray(y, dtype=float)
    if y.size == 0:
        raise ValueError("sample_mean needs at least one judgment")
    return float(y.mean())


def control_variates_alpha(y, g, g_var):
    r"""Algorithm 1's coefficient (line 3).

    Parameters
    ----------
    y, g : array_like
        Judgments and metric scores of the sample, along the last axis (broadcast together).
    g_var : float or array_like
        The metric's population variance (ddof 0) over *all* outputs; broadcasts against the
        leading axes.

    Returns
    -------
    numpy.ndarray
        :math:`\hat\alpha = \frac{1}{n}\sum_i (y_i - \bar y)(g_i - \bar g) / \operatorname{Var}(g)`.
        Dividing by ``g_var`` is the paper's standardisation of ``g``. Not clipped: a metric
        that correlates negatively with the human score gets a negative coefficient and helps
        as much. A constant metric (``g_var == 0``) carries no information: 0.

    References
    ----------
    A. Chaganty, S. Mussmann and P. Liang. The price of debiasing automatic metrics in natural
    language evaluation. In *Proceedings of the 56th Annual Meeting of the Association for
    Computational Linguistics (ACL)*, pages 643-653, Melbourne, 2018.
    """
    y = np.asarray(y, dtype=float)
    g = np.asarray(g, dtype=float)
    g_var = np.asarray(g_var, dtype=float)
    cov = np.mean((y - y.mean(axis=-1, keepdims=True)) * (g - g.mean(axis=-1, keepdims=True)), axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(g_var > 0, cov / np.where(g_var > 0, g_var, 1.0), 0.0)


def control_variates_estimate(y, g, g_mean: float, g_var: float) -> tuple[float, float]:
    r"""Algorithm 1 on one sample: subtract the part of ``y`` that ``g`` predicts.

    ``g_mean`` and ``g_var`` are the mean and (population) variance of the
    metric over *all* of the system's outputs; they are free to compute, and
    knowing them is what lets ``g`` reduce variance at all (Section 3.3).
    Dividing by ``g_var`` is the same as standardising ``g`` as the paper does,
    so the estimate is invariant to affine rescaling of the metric.

    The coefficient is :func:`control_variates_alpha`; estimating it costs only an
    O(1/n) bias (Proposition 3.1). A constant metric (``g_var == 0``) carries no
    information, so ``alpha = 0`` and the estimate falls back to the sample mean.

    Parameters
    ----------
    y, g : array_like, shape (n,)
        Judgments and metric scores of the n sampled outputs.
    g_mean, g_var : float
        The metric's mean and population variance over all outputs.

    Returns
    -------
    tuple of float
        ``(estimate, alpha)`` with estimate :math:`\bar y - \hat\alpha(\bar g - \mu_g)`
        (Algorithm 1, line 4); its variance with α at its optimum is Eq. (6),
        :math:`(\sigma_f^2 (1 - \rho^2) + \sigma_a^2)/n`.

    References
    ----------
    A. Chaganty, S. Mussmann and P. Liang. The price of debiasing automatic metrics in natural
    language evaluation. In *Proceedings of the 56th Annual Meeting of the Association for
    Computational Linguistics (ACL)*, pages 643-653, Melbourne, 2018.
    """
    y = np.asarray(y, dtype=float)
    g = np.asarray(g, dtype=float)
    if y.shape != g.shape or y.ndim != 1:
        raise ValueError(f"y and g must be 1-D of equal length, got {y.shape} and {g.shape}")
    if y.size == 0:
        raise ValueError("control_variates_estimate needs at least one judgment")
    alpha = float(control_variates_alpha(y, g, g_var))
    estimate = float(y.mean() - alpha * (g.mean() - g_mean))
    return estimate, alpha


def alpha_estimation_variance(y_var, alpha, g_var, n, n_population=None):
    r"""Variance that estimating Algorithm 1's ``alpha`` adds beyond what its residuals show.

    Parameters
    ----------
    y_var : float or array_like
        Variance of one item value y (sample estimate, ddof 1).
    alpha : float or array_like
        The coefficient (:func:`control_variates_alpha`).
    g_var : float or array_like
        The metric's population variance over all outputs.
    n : int
        Number of judged items.
    n_population : int, optional
        Number N of outputs the items are drawn from without replacement (``None``: infinite).

    Returns
    -------
    numpy.ndarray
        The second-order term, never negative; broadcasts.

    Notes
    -----
    The estimate is :math:`\bar y - \alpha(\bar g - \mu_g) - (\hat\alpha - \alpha)(\bar g - \mu_g)`.
    With :math:`\hat\alpha` independent of the sample means (exactly so for Gaussian data), the
    last term adds :math:`\operatorname{Var}(\hat\alpha)\operatorname{Var}(\bar g) =
    (\sigma_y^2 + \alpha^2\sigma_g^2)(1 - n/N) / n^2` to Eq. (6). The residuals
    :math:`y_i - \hat\alpha g_i` already show :math:`2\alpha^2\sigma_g^2 / n` of it (their coefficient
    is not the least-squares one), so what remains to add is

    .. math:: \frac{(1 - n/N)(\sigma_y^2 - \alpha^2 \sigma_g^2)}{n^2} = \frac{(1 - n/N)\,\sigma_r^2}{n^2},

    the residual variance over n^2: the O(1/n^2) price of the plug-in coefficient behind
    Proposition 3.1, the analogue of the factor :math:`1 + 1/(n - 3)` of the regression
    estimator (Cochran, Sampling Techniques, Section 7.5).
    """
    n = np.asarray(n, dtype=float)
    fraction = 0.0 if n_population is None else n / float(n_population)
    residual = np.asarray(y_var, dtype=float) - np.asarray(alpha, dtype=float) ** 2 * g_var
    return (1.0 - fraction) * np.maximum(residual, 0.0) / n**2


def cv_terms(y, g, g_mean, g_var, n_outputs: int):
    """Algorithm 1's terms ``y_i - alpha (g_i - mu_g)`` and the variance its plug-in alpha adds.

    ``y`` and ``g`` hold the sample on the last axis; ``g_mean``/``g_var`` are the metric's
    population mean and variance over all ``n_outputs`` outputs. Returns ``(terms, extra)``
    with ``extra`` from :func:`debias.stats.ratings.control_variates.alpha_estimation_variance`.
    """
    y = np.asarray(y, dtype=float)
    g = np.asarray(g, dtype=float)
    alpha = control_variates_alpha(y, g, g_var)
    terms = y - alpha[..., None] * (g - g_mean)
    extra = alpha_estimation_variance(y.var(axis=-1, ddof=1), alpha, g_var, y.shape[-1], n_outputs)
    return terms, extra
