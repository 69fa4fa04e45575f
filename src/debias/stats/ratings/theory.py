r"""The paper's theory: the variance of the estimators and the data efficiency (Eq. 2, 6, 7).

One home for each formula: :func:`theory_variance` (Eq. 6 with the finite-population
correction; Eq. 2 at ρ = 0), :func:`theory_data_efficiency` (Eq. 7) and
:func:`theory_by_condition` (the conditions of Figure 6: noiseless humans, a perfect metric).
"""

from __future__ import annotations

import numpy as np

__all__ = ["theory_by_condition", "theory_data_efficiency", "theory_variance"]


def theory_variance(sigma2_f, sigma2_a, rho, n, *, k=1, n_population=None):
    r"""Variance of the control-variates estimator with the coefficient at its population value.

    Parameters
    ----------
    sigma2_f : float or array_like
        Variance of the human metric f over the outputs (population, ddof 0, when
        ``n_population`` is given).
    sigma2_a : float or array_like
        Annotator variance: the mean over outputs of the variance of one judgment around f.
    rho : float or array_like
        Correlation of f with the metric; 0 gives the sample mean.
    n : int or array_like
        Number of judged items.
    k : int or array_like, optional
        Judgments averaged per item (default 1).
    n_population : int, optional
        Number N of outputs the n items are drawn from without replacement; ``None`` (default)
        means independent draws, as in the paper.

    Returns
    -------
    numpy.ndarray
        The variance; broadcasts over all arguments.

    Notes
    -----
    By the law of total variance over the drawn items, the part of the estimator that the
    items' own scores carry, :math:`f - \alpha g` with variance :math:`\sigma_f^2(1-\rho^2)`,
    shrinks with the finite-population correction :math:`(N - n)/(N - 1)` of sampling without
    replacement, while the annotators' noise is fresh in every evaluation and does not:

    .. math::

        \operatorname{Var} = \frac{N - n}{N - 1}\,\frac{\sigma_f^2 (1 - \rho^2)}{n}
            + \frac{\sigma_a^2}{k n}.

    With N infinite and k = 1 this is Eq. (6) of the paper, and with :math:`\rho = 0` Eq. (2).

    References
    ----------
    A. Chaganty, S. Mussmann and P. Liang. The price of debiasing automatic metrics in natural
    language evaluation. In *Proceedings of the 56th Annual Meeting of the Association for
    Computational Linguistics (ACL)*, pages 643-653, Melbourne, 2018.

    W. G. Cochran. *Sampling Techniques*, 3rd edition. Wiley, New York, 1977. Theorem 2.2.
    """
    sigma2_f = np.asarray(sigma2_f, dtype=float)
    sigma2_a = np.asarray(sigma2_a, dtype=float)
    rho = np.asarray(rho, dtype=float)
    n = np.asarray(n, dtype=float)
    k = np.asarray(k, dtype=float)
    if n_population is None:
        correction = 1.0
    else:
        big_n = np.asarray(n_population, dtype=float)
        if np.any(n > big_n):
            raise ValueError("n must not exceed n_population")
        correction = np.where(big_n > 1, (big_n - n) / np.maximum(big_n - 1, 1), 0.0)
    return correction * sigma2_f * (1.0 - rho**2) / n + sigma2_a / (k * n)


def theory_data_efficiency(rho, gamma):
    r"""Data efficiency, Eq. (7): the ratio of Eq. (2) to Eq. (6).

    Parameters
    ----------
    rho : float or array_like
        Correlation of the metric with the mean human judgment f.
    gamma : float or array_like
        Normalised annotator variance :math:`\sigma_a^2 / \sigma_f^2`.

    Returns
    -------
    numpy.ndarray
        :math:`DE = (1 + \gamma) / (1 - \rho^2 + \gamma)`: the factor by which the
        control-variates estimator cuts the number of human judgments for the same variance.
        It depends only on ρ and γ, which is why the paper points at better metrics *and*
        better prompts. Broadcasts; ``rho = 1, gamma = 0`` gives ``inf``.

    References
    ----------
    A. Chaganty, S. Mussmann and P. Liang. The price of debiasing automatic metrics in natural
    language evaluation. In *Proceedings of the 56th Annual Meeting of the Association for
    Computational Linguistics (ACL)*, pages 643-653, Melbourne, 2018.
    """
    rho = np.asarray(rho, dtype=float)
    gamma = np.asarray(gamma, dtype=float)
    with np.errstate(divide="ignore"):
        return (1.0 + gamma) / (1.0 - rho**2 + gamma)


def theory_by_condition(rho: float, gamma: float, *, annotator_noise_known: bool = True) -> dict[str, float]:
    """Theory DE of each condition against humans alone, Var_mean ∝ σ_f² + σ_a².

    cv keeps both noise sources, noiseless humans drop σ_a², a perfect metric has ρ = 1.
    Without ``annotator_noise_known`` (every item judged once, so σ_a² cannot be told apart from
    σ_f²) the noiseless and perfect-metric conditions are not identifiable and are NaN; so they
    are when γ is NaN. A perfect metric without annotator noise (γ = 0) gives ``inf``.
    """
    identifiable = annotator_noise_known and bool(np.isfinite(gamma))
    nan = float("nan")
    return {
        "cv": float(theory_data_efficiency(rho, gamma)),
        "noiseless": (float((1 + gamma) / (1 - rho**2)) if rho**2 < 1 else float("inf")) if identifiable else nan,
        "perfect": (float((1 + gamma) / gamma) if gamma > 0 else float("inf")) if identifiable else nan,
    }
