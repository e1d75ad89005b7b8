"""The low-rank transfer reference (issue 34) against synthetic latency matrices whose rank is known
by construction: log latency = platform offset + Σ_k trait_k(architecture) · sensitivity_k(platform)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from perfgraphs.baselines.lowrank_transfer import LowRankTransfer, complete_low_rank, robust_ridge_loo
from perfgraphs.baselines.transfer import RatioTransfer
from perfgraphs.evaluation.platform_transfer import transfer_task
from test_platform_transfer import _platform, synthetic_table

PLATFORMS = [_platform("gpu-a", "rtx3090"), _platform("gpu-a-nhwc", "rtx3090", layout="nhwc"),
             _platform("gpu-b", "rtx4090"), _platform("gpu-b-compiled", "rtx4090", compiled=True),
             _platform("gpu-c", "a100"), _platform("cpu-d", "i9", kind="cpu")]
NEW = "gpu-b-compiled"


def _matrix(rank: int, noise: float, n: int = 400, seed: int = 3):
    """Labels whose log matrix is (column means +) exactly ``rank`` traits × sensitivities, plus
    log-normal noise of ``noise``. Trait 1 is size; the new platform's sensitivity to trait 2
    matches no single source, so no source's ratio (or affine map) carries it; its sensitivity to
    size matches none either, so no anchor needs rank 0 alone."""
    rng = np.random.default_rng(seed)
    traits = np.column_stack([rng.uniform(-2, 4, n), rng.normal(0, 0.6, n)])[:, :rank]
    sensitivity = {"gpu-a": (1.0, 0.0), "gpu-a-nhwc": (1.0, 0.5), "gpu-b": (0.9, -0.4),
                   "gpu-b-compiled": (0.7, -1.0), "gpu-c": (0.8, 0.3), "cpu-d": (1.3, 1.0)}
    offsets = {"gpu-a": 0.0, "gpu-a-nhwc": 0.1, "gpu-b": -0.5, "gpu-b-compiled": -0.7, "gpu-c": -0.3, "cpu-d": 3.0}
    labels = {name: np.exp(offsets[name] + traits @ np.array(sensitivity[name][:rank]) + rng.normal(0, noise, n))
              if noise else np.exp(offsets[name] + traits @ np.array(sensitivity[name][:rank]))
              for name in sensitivity}
    return synthetic_table(labels, PLATFORMS, n, seed=seed)


def _mape(predictor, task) -> float:
    pred = predictor.fit(task.table, task.platform).predict(task.table, task.test_rows)
    return float(np.mean(np.abs(pred / task.y_test - 1)) * 100)


def test_rank_two_platform_is_recovered_where_the_ratio_rule_cannot():
    task = transfer_task(_matrix(rank=2, noise=0.005), NEW, 32, 0, "known-models")
    lowrank = LowRankTransfer()
    low, ratio = _mape(lowrank, task), _mape(RatioTransfer(), task)
    # the noise alone costs ≈ 0.6 % (|N(0, 0.005·√2)|); the best source misses trait 2 by ≥ 0.6 · 0.6 in log
    assert low < 1.5 and ratio > 10.0, (low, ratio)
    assert lowrank.rank_ >= 2


def test_rank_one_matrix_control_both_rules_are_exact():
    """On a rank-1 matrix the ratio rule's affine map is the whole truth: low rank gains nothing.
    (Its leave-one-out may keep components beyond rank 1 here: they carry the anchor's own noise;
    on clean data it keeps rank 1, tested below.)"""
    task = transfer_task(_matrix(rank=1, noise=0.005), NEW, 32, 0, "known-models")
    low, ratio = _mape(LowRankTransfer(), task), _mape(RatioTransfer(), task)
    assert low < 1.0 and ratio < 1.0 and abs(low - ratio) < 0.25, (low, ratio)


@pytest.mark.parametrize("rank", [1, 2])
def test_leave_one_out_chooses_the_true_rank_on_clean_data(rank):
    task = transfer_task(_matrix(rank=rank, noise=0.0), NEW, 32, 0, "known-models")
    assert LowRankTransfer().fit(task.table, NEW).rank_ == rank


def test_with_a_few_shots_it_falls_back_to_the_ratio():
    """Three shots leave no degree of freedom for a factor: rank 0, the anchor source times the
    shots' (robust) mean ratio."""
    table = _matrix(rank=2, noise=0.005)
    p = table.column(NEW)
    labels = table.labels.copy()
    keep = np.zeros(len(labels), dtype=bool)
    keep[[0, 1, 2]] = True
    labels[~keep, p] = np.nan
    masked = replace(table, labels=labels)
    model = LowRankTransfer().fit(masked, NEW)
    assert model.rank_ == 0
    anchor = table.column(model.anchor_)
    ratio = np.log(labels[:3, p]) - np.log(labels[:3, anchor])
    rows = np.arange(3, 20)
    expected = np.log(labels[rows, anchor]) + model.intercept_
    assert np.allclose(np.log(model.predict(masked, rows)), expected)
    assert ratio.min() - 1e-9 <= model.intercept_ <= ratio.max() + 1e-9


def test_leave_one_out_from_the_hat_matrix_equals_refitting_without_each_shot():
    """With Huber weights switched off (a huge threshold), the closed-form leave-one-out must be
    the prediction of the ridge refitted without that shot."""
    rng = np.random.default_rng(5)
    z, t = rng.normal(size=(15, 3)), rng.normal(size=15)
    _, _, loo = robust_ridge_loo(z, t, alpha=0.7, huber=1e9)
    for i in range(15):
        keep = np.arange(15) != i
        w, b, _ = robust_ridge_loo(z[keep], t[keep], alpha=0.7, huber=1e9)
        assert np.isclose(loo[i], z[i] @ w + b)


def test_completion_fills_a_low_rank_matrix_back():
    rng = np.random.default_rng(2)
    full = rng.normal(size=(200, 2)) @ rng.normal(size=(2, 7)) + rng.normal(size=7)
    holes = full.copy()
    holes[rng.random(holes.shape) < 0.2] = np.nan
    filled = complete_low_rank(holes, rank=2)
    # a row is determined by more observed entries than the rank (with the column means): EM gets
    # there slowly where it has just enough, so those are left out of the check
    determined = np.isfinite(holes).sum(axis=1) > 2
    assert determined.sum() > 180
    assert np.abs(filled - full)[determined].max() < 2e-3


def test_it_is_registered_beside_the_ratio_rule_and_clones():
    from sklearn.base import clone

    from perfgraphs.baselines.catalog import TRANSFER_BASELINES

    assert TRANSFER_BASELINES["lowrank-transfer"].variants == TRANSFER_BASELINES["ratio-transfer"].variants
    assert isinstance(TRANSFER_BASELINES["lowrank-transfer"].make(0), LowRankTransfer)
    assert clone(LowRankTransfer(max_rank=3)).get_params()["max_rank"] == 3
