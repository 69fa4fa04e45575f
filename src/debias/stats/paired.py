r"""Is system B better than system A? Paired differences of two systems judged on the same inputs.

When both systems were run on the same N inputs and the same judged items are judged for both,
the per-item difference of their mean judgments,

.. math::

    d_i = \bar y_{B,i} - \bar y_{A,i},

is one "judgment" of the item-level difference, and the mean of :math:`d_i` over the judged
items estimates :math:`\mu_B - \mu_A` over the shared outputs. The item effect common to both
systems (an easy or a hard input) cancels in :math:`d_i`, which is why pairing needs fewer
judgments than two separate samples. A metric's difference :math:`h_i = g_{B,i} - g_{A,i}`,
scored on all N shared outputs, is a control variate for :math:`d_i` like any metric for a
system's judgments. So the estimators of :mod:`debias.stats.estimators` apply unchanged: ``mean`` is
:func:`~debias.stats.estimators.sample_mean_ci` of :math:`d`, ``cv:<metric>`` is
:func:`~debias.stats.estimators.cv_mean_ci` with :math:`h`, ``cv:combined`` is
:func:`~debias.stats.estimators.cv_combined_mean_ci` with every metric's difference. The annotator
noise of :math:`d_i` is :math:`\sigma_{a,A}^2/k_{A,i} + \sigma_{a,B}^2/k_{B,i}` (independent
annotators), and 0 when both lines name the same ``judged_output`` (one judgment of an output
both systems produced: :math:`d_i = 0` exactly).

References
----------
A. Chaganty, S. Mussmann and P. Liang. The price of debiasing automatic metrics in natural
language evaluation. In *Proceedings of the 56th Annual Meeting of the Association for
Computational Linguistics (ACL)*, pages 643-653, Melbourne, 2018.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import stdtr

from debias.stats.estimators import cv_combined_mean_ci, cv_mean_ci, sample_mean_ci
from debias.stats.variance import annotator_variance
from debias.tables.joined import judgment_matrix

__all__ = ["PairedSample", "paired_difference_ci", "paired_difference_estimates", "paired_sample", "p_value"]


@dataclass(frozen=True)
class PairedSample:
    """Two systems' judged items that both share, aligned by item id.

    Attributes
    ----------
    judgments_a, judgments_b : numpy.ndarray, shape (n, K)
        NaN-padded judgments of the n items judged for both systems, same row order.
    same_judgment : numpy.ndarray of bool, shape (n,)
        True where both lines name the same ``judged_output`` (one judgment stands for both).
    scores_a, scores_b : numpy.ndarray, shape (n, M)
        The metrics on those items.
    all_a, all_b : numpy.ndarray, shape (N, M)
        The metrics on all N outputs both systems have (judged or not).
    metrics : tuple of str
        Metric names, the columns of the score arrays.
    """

    judgments_a: np.ndarray
    judgments_b: np.ndarray
    same_judgment: np.ndarray
    scores_a: np.ndarray
    scores_b: np.ndarray
    all_a: np.ndarray
    all_b: np.ndarray
    metrics: tuple[str, ...]

    @property
    def n_shared(self) -> int:
        return self.judgments_a.shape[0]

    @property
    def n_outputs(self) -> int:
        return self.all_a.shape[0]

    @property
    def differences(self) -> np.ndarray:
        """Per-item difference of the mean judgments, B - A."""
        return np.nanmean(self.judgments_b, axis=1) - np.nanmean(self.judgments_a, axis=1)


def paired_sample(frame_a: pd.DataFrame, frame_b: pd.DataFrame, prompt: str, metrics: Sequence[str]) -> PairedSample:
    """Align two systems' joined tables (:mod:`debias.tables.joined`) on the ids both have.

    Outputs only one system has are ignored; the judged items are those judged for both on
    ``prompt``, in the order of ``frame_a``.
    """
    metrics = list(metrics)
    a = frame_a[frame_a["prompt"] == prompt].set_index("id")
    b = frame_b[frame_b["prompt"] == prompt].set_index("id")
    ids = [i for i in a.index if i in b.index]
    a, b = a.loc[ids], b.loc[ids]
    judged = (a["n_judgments"].to_numpy() > 0) & (b["n_judgments"].to_numpy() > 0)
    ja, jb = a[judged], b[judged]
    same = (ja["judged_output"].to_numpy() != "") & (ja["judged_output"].to_numpy() == jb["judged_output"].to_numpy())
    return PairedSample(
        judgments_a=judgment_matrix(ja) if len(ja) else np.empty((0, 1)),
        judgments_b=judgment_matrix(jb) if len(jb) else np.empty((0, 1)),
        same_judgment=np.asarray(same, dtype=bool),
        scores_a=ja[metrics].to_numpy(dtype=float).reshape(len(ja), len(metrics)),
        scores_b=jb[metrics].to_numpy(dtype=float).reshape(len(jb), len(metrics)),
        all_a=a[metrics].to_numpy(dtype=float).reshape(len(a), len(metrics)),
        all_b=b[metrics].to_numpy(dtype=float).reshape(len(b), len(metrics)),
        metrics=tuple(metrics),
    )


def difference_noise(pair: PairedSample) -> float | None:
    """Average annotator variance of :math:`d_i`: :math:`\\sigma_{a,A}^2/k_{A,i} + \\sigma_{a,B}^2/k_{B,i}`,
    0 for items whose two lines share one judgment; each system's :math:`\\sigma_a^2` pooled over
    its items judged more than once (``None`` when a system has none: unknown)."""
    parts = []
    for judgments in (pair.judgments_a, pair.judgments_b):
        own = judgments[~pair.same_judgment]
        if own.shape[0] == 0:
            parts.append(np.zeros(0))
            continue
        sigma2 = annotator_variance(own)
        if not np.isfinite(sigma2):
            return None
        parts.append(sigma2 / np.sum(~np.isnan(own), axis=1))
    noise = np.zeros(pair.n_shared)
    noise[~pair.same_judgment] = parts[0] + parts[1]
    return float(noise.mean()) if noise.size else None


def p_value(estimate, se, df) -> float:
    """Two-sided p-value of the t statistic ``estimate / se`` with ``df`` degrees of freedom."""
    if not se > 0:
        return 1.0 if estimate == 0 else 0.0
    return float(2.0 * stdtr(df, -abs(estimate) / se))


def paired_difference_ci(pair: PairedSample, estimator: str, *, level: float = 0.8):
    """One estimator of :math:`\\mu_B - \\mu_A` with its interval (a :class:`~debias.stats.estimators.MeanEstimate`).

    ``estimator`` is ``mean``, ``cv:<metric>`` (a metric of ``pair.metrics``) or ``cv:combined``;
    see the module notes for what each computes.
    """
    d = pair.differences[:, None]
    noise = difference_noise(pair)
    if estimator == "mean":
        return sample_mean_ci(d, n_outputs=pair.n_outputs, level=level, annotator_variance=noise)
    h, h_all = pair.scores_b - pair.scores_a, pair.all_b - pair.all_a
    if estimator == "cv:combined":
        return cv_combined_mean_ci(d, h, h_all, level=level, annotator_variance=noise)
    metric = estimator.removeprefix("cv:")
    if not estimator.startswith("cv:") or metric not in pair.metrics:
        raise ValueError(f"unknown estimator '{estimator}' (mean, cv:<metric> of {list(pair.metrics)}, cv:combined)")
    j = pair.metrics.index(metric)
    return cv_mean_ci(d, h[:, j], h_all[:, j], level=level, annotator_variance=noise)


def estimator_names(metrics: Sequence[str]) -> list[str]:
    """``mean``, ``cv:<metric>`` for each metric, and ``cv:combined`` when there are two or more."""
    return ["mean", *[f"cv:{m}" for m in metrics], *(["cv:combined"] if len(metrics) > 1 else [])]


def paired_difference_estimates(pair: PairedSample, *, level: float = 0.8) -> pd.DataFrame:
    """Every estimator of the difference on one pair: columns ``estimator, n_shared, difference,
    ci_low, ci_high, p_value``."""
    rows = []
    for name in estimator_names(pair.metrics):
        result = paired_difference_ci(pair, name, level=level)
        rows.append(
            {
                "estimator": name,
                "n_shared": pair.n_shared,
                "difference": float(result.estimate),
                "ci_low": float(result.ci_low),
                "ci_high": float(result.ci_high),
                "p_value": p_value(float(result.estimate), float(result.se), result.df),
            }
        )
    return pd.DataFrame(rows)
