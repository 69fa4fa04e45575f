"""The vectorised PPI++ mean equals ppi-python's, and its finite-population variant holds its level."""

from __future__ import annotations

import numpy as np
import pytest
from ppi_py import ppi_mean_ci, ppi_mean_pointestimate

from debias.stats.common.ppi import PopulationSums, ppi_fpc_terms, ppi_tuned_mean_ci
from debias.stats.common.resampling import draw_samples


def _world(kind: str, rng, n_outputs: int):
    """Item values and a metric of several kinds and scales."""
    f = rng.normal(size=n_outputs)
    if kind == "binary":
        y = (f + rng.normal(size=n_outputs) > 0.5).astype(float)
    elif kind == "likert":
        y = np.clip(np.round(3 + f + rng.normal(0, 0.7, n_outputs)), 1, 5)
    else:  # heavy-tailed
        y = np.exp(1.5 * f) + rng.pareto(2.5, n_outputs)
    metrics = {
        "correlated": 0.3 * f + rng.normal(0, 0.3, n_outputs),
        "negative": -f + rng.normal(0, 0.5, n_outputs),  # lambda clipped at 0
        "perfect": 100.0 * y,  # lambda clipped at 1 on another scale
        "noise": rng.normal(5, 2, n_outputs),
    }
    return y, metrics


@pytest.mark.parametrize("kind", ["binary", "likert", "heavy"])
@pytest.mark.parametrize("n", [10, 37, 150, 299])
@pytest.mark.parametrize("level", [0.8, 0.95])
def test_equal_to_ppi_python(kind, n, level):
    rng = np.random.default_rng([["binary", "likert", "heavy"].index(kind), n])
    n_outputs = 300
    y_all, metrics = _world(kind, rng, n_outputs)
    order = rng.permutation(n_outputs)
    judged, unjudged = order[:n], order[n:]
    for name, g in metrics.items():
        sums = PopulationSums.of(g)
        estimate, low, high, se, lam = ppi_tuned_mean_ci(y_all[judged], g[judged], sums, level=level)
        ref_low, ref_high = ppi_mean_ci(y_all[judged], g[judged], g[unjudged], alpha=1 - level)
        ref = ppi_mean_pointestimate(y_all[judged], g[judged], g[unjudged])
        assert float(estimate) == pytest.approx(float(np.squeeze(ref)), abs=1e-10), name
        assert float(low) == pytest.approx(float(np.squeeze(ref_low)), abs=1e-10), name
        assert float(high) == pytest.approx(float(np.squeeze(ref_high)), abs=1e-10), name
        assert 0.0 <= float(lam) <= 1.0
        if name == "negative":
            assert float(lam) == 0.0
        if name == "perfect":
            assert float(lam) < 0.1  # on a scale 100 times the judgments', the tuned weight is small


def test_batch_of_repeats_equals_a_loop_over_ppi_python():
    rng = np.random.default_rng(3)
    y_all, metrics = _world("likert", rng, 120)
    judgments = y_all[:, None]
    items, values = draw_samples(judgments, 50, np.random.default_rng(4))
    g = metrics["correlated"]
    sums = PopulationSums.of(g)
    for n in (10, 60, 119):
        estimate, low, high, _, _ = ppi_tuned_mean_ci(values[:, :n], g[items[:, :n]], sums, level=0.8)
        for r in range(50):
            ref_low, ref_high = ppi_mean_ci(values[r, :n], g[items[r, :n]], g[items[r, n:]], alpha=0.2)
            assert low[r] == pytest.approx(float(ref_low[0]), abs=1e-10)
            assert high[r] == pytest.approx(float(ref_high[0]), abs=1e-10)


def test_fpc_terms_give_the_same_estimate():
    rng = np.random.default_rng(5)
    y_all, metrics = _world("heavy", rng, 200)
    g = metrics["correlated"]
    sums = PopulationSums.of(g)
    sample = rng.permutation(200)[:80]
    terms, shift = ppi_fpc_terms(y_all[sample], g[sample], sums)
    estimate = ppi_tuned_mean_ci(y_all[sample], g[sample], sums, level=0.8)[0]
    assert terms.mean() + shift == pytest.approx(float(estimate), abs=1e-12)


def test_constant_metric_gives_the_sample_mean():
    y = np.array([1.0, 2.0, 4.0, 3.0])
    sums = PopulationSums.of(np.ones(10))
    estimate, *_, lam = ppi_tuned_mean_ci(y, np.ones(4), sums, level=0.8)
    assert float(lam) == 0.0 and float(estimate) == pytest.approx(2.5)


def test_without_unjudged_outputs_the_weight_is_zero_and_the_estimate_the_mean():
    y = np.array([1.0, 3.0, 2.0, 5.0])
    estimate, low, high, _, lam = ppi_tuned_mean_ci(y, np.arange(4.0), PopulationSums.of(np.arange(4.0)), level=0.8)
    assert lam == 0.0 and estimate == pytest.approx(y.mean()) and low < estimate < high
