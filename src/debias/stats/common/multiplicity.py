r"""Adjusted p-values for a family of tests: Holm's family-wise and Benjamini-Hochberg's FDR.

With m raw p-values :math:`p_1, \dots, p_m` sorted as :math:`p_{(1)} \le \dots \le p_{(m)}`:

Holm (1979), strong control of the family-wise error rate under any dependence,

.. math::

    \tilde p_{(k)} = \min\Bigl(1, \max_{j \le k} (m - j + 1)\, p_{(j)}\Bigr);

Benjamini and Hochberg (1995), control of the false discovery rate for independent or positively
regression-dependent p-values,

.. math::

    \tilde p_{(k)} = \min\Bigl(1, \min_{j \ge k} \frac{m}{j}\, p_{(j)}\Bigr).

A hypothesis is rejected at level :math:`\alpha` when its adjusted p-value is at most
:math:`\alpha`. Both functions work along the last axis, so leading axes are separate families,
and treat NaN p-values as absent (they stay NaN and do not count in m).

References
----------
S. Holm. A simple sequentially rejective multiple test procedure. *Scandinavian Journal of
Statistics* 6(2):65-70, 1979.

Y. Benjamini and Y. Hochberg. Controlling the false discovery rate: a practical and powerful
approach to multiple testing. *Journal of the Royal Statistical Society, Series B*
57(1):289-300, 1995.
"""

from __future__ import annotations

import numpy as np

__all__ = ["benjamini_hochberg", "check_p_values", "holm", "sidak_level"]


def check_p_values(p_values) -> np.ndarray:
    """The p-values as a float array (at least 1-D); refuse values outside [0, 1] (NaN is allowed:
    a test not done)."""
    p = np.atleast_1d(np.asarray(p_values, dtype=float))
    bad = np.flatnonzero(((p < 0) | (p > 1) | np.isinf(p)).ravel())
    if bad.size:
        raise ValueError(
            f"p-values must be in [0, 1]; got {p.ravel()[bad[:5]].tolist()} at flat positions {bad[:5].tolist()}"
        )
    return p


def _sorted(p: np.ndarray):
    """Sort along the last axis with NaN last; the number of finite values per family."""
    order = np.argsort(np.where(np.isnan(p), np.inf, p), axis=-1, kind="stable")
    ranked = np.take_along_axis(p, order, axis=-1)
    m = np.sum(~np.isnan(p), axis=-1, keepdims=True)
    return order, ranked, m


def _unsort(adjusted_sorted: np.ndarray, order: np.ndarray) -> np.ndarray:
    out = np.empty_like(adjusted_sorted)
    np.put_along_axis(out, order, adjusted_sorted, axis=-1)
    return out


def holm(p_values) -> np.ndarray:
    r"""Holm's step-down adjusted p-values (family-wise error rate), along the last axis.

    Parameters
    ----------
    p_values : array_like, shape (..., m)
        Raw p-values of one family per leading index; NaN: no test.

    Returns
    -------
    numpy.ndarray, shape (..., m)
        :math:`\tilde p_{(k)} = \min(1, \max_{j \le k}(m - j + 1)p_{(j)})` (module notes), in the
        order of the input.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03]).round(3).tolist()
    [0.03, 0.06, 0.06]
    """
    p = check_p_values(p_values)
    order, ranked, m = _sorted(p)
    k = np.arange(1, p.shape[-1] + 1)
    scaled = np.minimum((m - k + 1) * ranked, 1.0)
    adjusted = np.fmax.accumulate(scaled, axis=-1)  # NaN sit at the end and stay NaN
    adjusted = np.where(np.isnan(ranked), np.nan, adjusted)
    return _unsort(adjusted, order)


def benjamini_hochberg(p_values) -> np.ndarray:
    r"""Benjamini-Hochberg step-up adjusted p-values (false discovery rate), along the last axis.

    Parameters
    ----------
    p_values : array_like, shape (..., m)
        Raw p-values of one family per leading index; NaN: no test.

    Returns
    -------
    numpy.ndarray, shape (..., m)
        :math:`\tilde p_{(k)} = \min(1, \min_{j \ge k}\, m\,p_{(j)}/j)` (module notes), in the order
        of the input; ``scipy.stats.false_discovery_control(p, method="bh")`` for one family
        without NaN.

    Examples
    --------
    >>> benjamini_hochberg([0.01, 0.04, 0.03]).round(3).tolist()
    [0.03, 0.04, 0.04]
    """
    p = check_p_values(p_values)
    order, ranked, m = _sorted(p)
    k = np.arange(1, p.shape[-1] + 1)
    scaled = np.where(np.isnan(ranked), np.inf, m * ranked / k)
    adjusted = np.minimum.accumulate(scaled[..., ::-1], axis=-1)[..., ::-1]
    adjusted = np.where(np.isnan(ranked), np.nan, np.minimum(adjusted, 1.0))
    return _unsort(adjusted, order)


def sidak_level(level: float, m: int) -> float:
    r"""The level of each of ``m`` two-sided intervals that cover together with probability at
    least ``level``: :math:`\text{level}^{1/m}` (Šidák's correction).

    For estimates that are jointly normal, whatever their correlation, the probability that
    every two-sided interval at this level covers is at least ``level`` (Z. Šidák, Rectangular
    confidence regions for the means of multivariate normal distributions, *Journal of the
    American Statistical Association* 62(318):626-633, 1967); it is exactly ``level`` for
    independent estimates.

    Examples
    --------
    >>> round(sidak_level(0.9, 10), 5)
    0.98952
    """
    if not 0.0 < float(level) < 1.0:
        raise ValueError(f"level must be a number in (0, 1), got {level!r}")
    if int(m) != m or m < 1:
        raise ValueError(f"m must be a whole number of intervals >= 1, got {m!r}")
    return float(level) ** (1.0 / int(m))
