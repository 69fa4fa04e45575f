r"""Prediction-powered inference with power tuning (PPI++) for a mean, vectorised.

The peer of Algorithm 1: with n judged items (values :math:`y_i`, metric :math:`g_i`) and
:math:`N_u` unjudged outputs (metric only), PPI++ estimates

.. math::

    \hat\theta_\lambda = \lambda\,\bar g_U + \frac1n\sum_i (y_i - \lambda g_i),
    \qquad
    \hat\lambda = \operatorname{clip}_{[0,1]}\frac{\widehat{\operatorname{Cov}}(y, g)}
        {(1 + n/N_u)\,\widehat{\operatorname{Var}}(g_{J \cup U})},

with the covariance over the judged items (ddof 0) and the variance over all outputs (ddof 1),
and the normal interval :math:`\hat\theta \pm z\,\sqrt{\lambda^2 s^2_{g_U}/N_u + s^2_{y - \lambda g}/n}`
(both spreads ddof 0). This is what ``ppi_py.ppi_mean_ci`` computes with its defaults
(``lam=None``: power tuning, clipped), one sample per call; here the leading axes are samples
(Monte-Carlo repeats), and the unjudged outputs are given by the population's sums, so that the
complement of every sample is never materialised. One difference: a metric constant over the
outputs gets :math:`\hat\lambda = 0` (the sample mean) where ``ppi_py`` divides by zero.

:func:`ppi_fpc_terms` gives the same estimate as the mean of per-item terms, for the
finite-population t-interval of the project's other estimators (``ppi++fpc``). With U the
complement of the judged sample J among N outputs, :math:`\bar g_U = (T - n\bar g_J)/N_u` for the
population total T, so

.. math::

    \hat\theta_\lambda = \frac1n\sum_{i \in J}\Bigl(y_i - \lambda\frac{N}{N_u}\,g_i\Bigr)
        + \lambda\frac{T}{N_u},

a mean of n terms drawn without replacement plus a constant: its variance is the terms'
variance times :math:`(1 - n/N)/n`, plus the annotator noise, as for ``cv``.

References
----------
A. N. Angelopoulos, J. C. Duchi and T. Zrnic. PPI++: Efficient prediction-powered inference.
arXiv:2311.01453, 2023.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri

__all__ = ["PopulationSums", "power_tuned_weights", "ppi_fpc_terms", "ppi_tuned_mean_ci"]


def power_tuned_weights(cross, variance) -> np.ndarray:
    r"""PPI++'s power-tuned weights of J proxies, from the two terms of the variance they minimise.

    Every PPI++ estimator here (a mean, win rates, Bradley-Terry strengths) has the variance
    :math:`V(\lambda) = V_0 - 2\lambda^\top c + \lambda^\top A\lambda` in the proxies'
    weights :math:`\lambda`, with ``cross`` :math:`c` the people's covariance with the proxies'
    predictions and ``variance`` :math:`A` the predictions' own (scaled by
    :math:`1/n + 1/N_u`, the labelled set's and the pool's). Its minimiser is

    .. math::

        \hat\lambda = \operatorname{clip}_{[0, 1]}(c / A) \quad (J = 1;\ 0 \text{ where } A \le 0),
        \qquad \hat\lambda = A^{+} c \quad (J \ge 2,\ \text{not clipped}),

    the one-proxy rule of ``ppi_py`` (Angelopoulos, Duchi and Zrnic 2023, section 4) and, with
    several proxies, the vector minimiser with the Moore-Penrose inverse :math:`A^+`.

    Parameters
    ----------
    cross : array_like, shape (..., J)
    variance : array_like, shape (..., J, J)
        Leading axes are separate problems (samples, draws).

    Returns
    -------
    numpy.ndarray, shape (..., J)

    References
    ----------
    A. N. Angelopoulos, J. C. Duchi and T. Zrnic. PPI++: Efficient prediction-powered inference.
    arXiv:2311.01453, 2023.
    """
    cross = np.asarray(cross, dtype=float)
    variance = np.asarray(variance, dtype=float)
    if cross.shape[-1] == 1:
        a = variance[..., 0]
        with np.errstate(invalid="ignore", divide="ignore"):
            weight = np.where(a > 0, cross / a, 0.0)
        return np.clip(weight, 0.0, 1.0)
    return np.einsum("...jk,...k->...j", np.linalg.pinv(variance), cross)


@dataclass(frozen=True)
class PopulationSums:
    """A metric over all N outputs, centred at its mean for precision: its mean, the sums of the
    centred scores and of their squares, and its variance with ddof 1."""

    n_outputs: int
    mean: float
    total: float
    total_squares: float
    variance: float

    @classmethod
    def of(cls, scores) -> PopulationSums:
        scores = np.asarray(scores, dtype=float)
        mean = float(scores.mean())
        centred = scores - mean
        return cls(
            int(scores.size),
            mean,
            float(centred.sum()),
            float(centred @ centred),
            float(scores.var(ddof=1)) if scores.size > 1 else 0.0,
        )


def _moments(y, g, sums: PopulationSums):
    """Per sample: n, N_u, the centred judged scores, their unjudged complement's mean and
    ddof-0 variance, and λ̂ (:func:`power_tuned_weights` of one proxy: clipped to [0, 1]). With
    every output judged (N_u = 0) λ̂ = 0, so the estimate is the judged items' mean, and N_u is
    returned as 1 (it then multiplies zeros only)."""
    y = np.asarray(y, dtype=float)
    g = np.asarray(g, dtype=float) - sums.mean
    n = y.shape[-1]
    n_unjudged = sums.n_outputs - n
    if n_unjudged < 0:
        raise ValueError(f"{n} judged items but only {sums.n_outputs} outputs")
    judged_sum = g.sum(axis=-1)
    y_mean, g_mean = y.mean(axis=-1), judged_sum / n
    yc, gc = y - y_mean[..., None], g - g_mean[..., None]
    cov = np.mean(yc * gc, axis=-1)
    if n_unjudged == 0:  # every output judged: nothing for the metric to add, lambda = 0 (the mean)
        zero = np.zeros_like(cov)
        return n, 1, y_mean, g_mean, yc, gc, zero, zero, zero
    unjudged_mean = (sums.total - judged_sum) / n_unjudged
    unjudged_var = np.maximum((sums.total_squares - np.sum(g * g, axis=-1)) / n_unjudged - unjudged_mean**2, 0.0)
    variance = np.full((1, 1), (1.0 + n / n_unjudged) * sums.variance)  # Var(g) over all outputs, scaled
    lam = power_tuned_weights(cov[..., None], variance)[..., 0][()]  # cross term: Cov(y, g) on the judged
    return n, n_unjudged, y_mean, g_mean, yc, gc, unjudged_mean, unjudged_var, lam


def ppi_tuned_mean_ci(y, g, sums: PopulationSums, *, level: float):
    """PPI++'s estimate and normal interval of the mean of ``y`` for every sample (last axis).

    Parameters
    ----------
    y, g : array_like, shape (..., n)
        The judged items' values and metric scores.
    sums : PopulationSums
        The metric over all N outputs, the judged ones included (:meth:`PopulationSums.of`).
    level : float
        Nominal coverage.

    Returns
    -------
    tuple of numpy.ndarray
        ``(estimate, ci_low, ci_high, se, lam)`` over the leading axes.
    """
    n, n_unjudged, y_mean, g_mean, yc, gc, unjudged_mean, unjudged_var, lam = _moments(y, g, sums)
    estimate = lam * unjudged_mean + y_mean - lam * g_mean
    residual = yc - lam[..., None] * gc
    se = np.sqrt(lam**2 * unjudged_var / n_unjudged + np.mean(residual * residual, axis=-1) / n)
    half = ndtri(0.5 + level / 2.0) * se
    return estimate, estimate - half, estimate + half, se, lam


def ppi_fpc_terms(y, g, sums: PopulationSums):
    """The PPI++ estimate as per-item terms and a constant (module notes): ``(terms, shift)``
    with ``terms.mean(-1) + shift`` equal to :func:`ppi_tuned_mean_ci`'s estimate."""
    n, n_unjudged, *_, lam = _moments(y, g, sums)
    scale = lam * sums.n_outputs / n_unjudged
    terms = np.asarray(y, dtype=float) - scale[..., None] * (np.asarray(g, dtype=float) - sums.mean)
    return terms, lam * sums.total / n_unjudged
