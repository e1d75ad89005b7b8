"""The record reader's Kendall's τ-b (no SciPy) against ``scipy.stats.kendalltau``, the Evaluator's."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import kendalltau

from perfgraphs.evaluation.rank_correlation import kendall_tau_b


def _scipy(x, y) -> float:
    return float(kendalltau(x, y).statistic)


@pytest.mark.parametrize("n", [2, 3, 7, 64, 619, 1528])
def test_it_is_scipys_tau_b_on_ties_and_continuous_values(n):
    rng = np.random.default_rng(n)
    for trial in range(40):
        x = rng.integers(0, 1 + trial % 9, n).astype(float) if trial % 2 else rng.lognormal(size=n)
        y = (x * rng.normal() + rng.normal(size=n)).round(trial % 4) if trial % 3 else rng.integers(0, 3, n)
        mine, theirs = kendall_tau_b(x, y), _scipy(x, y)
        assert (math.isnan(mine) and math.isnan(theirs)) or mine == pytest.approx(theirs, abs=1e-12), (trial, mine, theirs)


def test_orders_and_constants():
    x = np.arange(10.0)
    assert kendall_tau_b(x, x) == 1.0 and kendall_tau_b(x, -x) == -1.0
    assert math.isnan(kendall_tau_b(x, np.ones(10))) and math.isnan(kendall_tau_b([1.0], [2.0]))
    assert math.isnan(kendall_tau_b([], []))
