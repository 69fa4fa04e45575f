"""Correlation of a metric with human judgments: Pearson's r of item means, and the paper's
attenuation-corrected ρ of Section 3 (Eq. 5), which Figure 5 draws."""

from __future__ import annotations

import numpy as np

from debias.data import as_judgments
from debias.stats.ratings.variance import annotator_variance

__all__ = ["attenuation_corrected_correlation", "best_metric", "best_metric_index", "correlation"]


def correlation(f, g) -> float:
    r"""Pearson's correlation of two equally long samples.

    Parameters
    ----------
    f, g : array_like, shape (n,)
        Two samples, e.g. item mean judgments and metric scores.

    Returns
    -------
    float
        :math:`r = \sum (f_i - \bar f)(g_i - \bar g) / \sqrt{\sum (f_i - \bar f)^2 \sum (g_i - \bar g)^2}`,
        clipped to [-1, 1]; NaN when either side is constant (ρ is undefined). It estimates
        the paper's ρ attenuated by annotator noise; see
        :func:`attenuation_corrected_correlation`.
    """
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
    judgments : Judgments
        Judgments of N outputs (or anything :func:`debias.data.as_judgments` takes).
    g : array_like, shape (N,)
        The metric's score of each output.
    sigma2_f : float, optional
        Var(f). Default: the variance of all judgments of the outputs judged at least
        twice (ddof 1) minus the annotator variance σ_a² of the same outputs
        (:func:`debias.stats.ratings.variance.annotator_variance`).

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
    judgments = as_judgments(judgments)
    g = np.asarray(g, dtype=float)
    if g.shape != (judgments.n_items,):
        raise ValueError(f"g must have one score per output ({judgments.n_items}), got shape {g.shape}")
    if sigma2_f is None:
        multi = judgments.take(judgments.multiply_judged)
        if multi.values.size < 2:
            return float("nan")
        sigma2_f = float(np.var(multi.values, ddof=1)) - annotator_variance(judgments)
    sd_g = float(np.std(g, ddof=1)) if g.size > 1 else 0.0
    if not sigma2_f > 0 or sd_g == 0:
        return float("nan")
    means = judgments.item_means
    covariance = float(np.mean(means * g) - means.mean() * g.mean())
    return covariance / (np.sqrt(sigma2_f) * sd_g)


def best_metric(rhos) -> int | None:
    """Index of the metric with the highest |ρ| (the one home of this choice).

    A tie goes to the metric listed first; NaN (a constant metric or item mean) never wins.
    ``None`` when no ρ is finite.
    """
    index = int(best_metric_index(rhos))
    return None if index < 0 else index


def best_metric_index(rhos):
    """:func:`best_metric` along the last axis of ``rhos`` (leading axes: separate choices), with
    -1 where no ρ is finite."""
    rhos = np.abs(np.asarray(rhos, dtype=float))
    if rhos.shape[-1] == 0:  # no metric at all
        return np.full(rhos.shape[:-1], -1)
    finite = np.isfinite(rhos)
    index = np.argmax(np.where(finite, rhos, -np.inf), axis=-1)
    return np.where(np.any(finite, axis=-1), index, -1)
