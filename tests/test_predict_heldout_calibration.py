"""predict's intervals calibrated on architectures measured after training (issue 33,
perfgraphs.predict.heldout): which rows calibrate which artifact, what the offsets are for a
predictor of known error, and that the set kept to check the calibration never calibrates."""

from __future__ import annotations

import math

import numpy as np
import pytest

from perfgraphs.predict import heldout
from perfgraphs.predict.artifacts import read_meta
from perfgraphs.predict.intervals import interval_of
from perfgraphs.predict.platforms import find_platform, served_targets
from perfgraphs.registry import CPU_TORCH_FP32, GRAPH_ROWS, PREDICT_CHECK_SUITE, PREDICT_INTERVAL_SUITES, TABULAR_ROWS


def _target(kind: str, target: str):
    return next(t for t in find_platform(CPU_TORCH_FP32).targets if t.kind == kind and t.target == target)


def test_the_calibration_stores_are_the_first_two_sets_and_never_the_check_set():
    stores = heldout.calibration_stores()
    assert [p.name.rsplit("-amd-", 1)[0] for p in stores] == list(PREDICT_INTERVAL_SUITES)
    assert PREDICT_CHECK_SUITE not in PREDICT_INTERVAL_SUITES
    assert not [p for p in stores if p.name.startswith(PREDICT_CHECK_SUITE)]


def test_a_graph_target_is_calibrated_by_every_labelled_configuration_and_an_encoder_target_by_none():
    stores = heldout.calibration_stores()
    everything = [c for s in stores for c in heldout.heldout_configs(s)]
    latency = _target(GRAPH_ROWS, "latency_ms")
    assert latency in served_targets(find_platform(CPU_TORCH_FP32), tabular=False)
    rows = heldout.calibration_rows(latency, stores)
    assert len(rows) == len(everything) >= 150 and {c.mode for c in rows} == {"infer"}
    assert len({c.model for c in rows}) == 40
    # control: the encoder rows' latency predictor answers hf: models, never these timm graphs
    assert heldout.calibration_rows(_target(TABULAR_ROWS, "latency_ms"), stores) == []


def test_the_offsets_are_the_log_error_of_a_predictor_of_known_bias(monkeypatch):
    """A predictor 25 % high on every held-out row gets bounds log(1/1.25) below its value at
    every level; an exact one gets none (the control)."""
    stores = heldout.calibration_stores()
    pt = _target(GRAPH_ROWS, "peak_memory_mb")
    rows = heldout.calibration_rows(pt, stores)
    y = np.array([c.labels[pt.target] for c in rows])
    # features are the row's index: the export is not what this test is about
    monkeypatch.setattr(heldout, "heldout_features", lambda configs: np.arange(len(configs), dtype=float)[:, None])
    high = heldout.heldout_intervals(pt, lambda X: y[X[:, 0].astype(int)] * 1.25, stores)
    exact = heldout.heldout_intervals(pt, lambda X: y[X[:, 0].astype(int)], stores)
    assert high["n_rows"] == len(rows) and high["calibration"] == "held-out architectures"
    for band in high["bands"]:
        for lo, hi in band["offsets"].values():
            assert lo == pytest.approx(-math.log(1.25), abs=1e-6) and hi == pytest.approx(-math.log(1.25), abs=1e-6)
    for band in exact["bands"]:
        for lo, hi in band["offsets"].values():
            assert abs(lo) < 1e-6 and abs(hi) < 1e-6
    i = interval_of(high, 100.0, 0.8)
    assert i.low == pytest.approx(80.0) and i.high == pytest.approx(100.0)


@pytest.mark.parametrize("target", sorted(heldout.STORE_COLUMNS))
def test_the_shipped_cpu_artifacts_state_held_out_intervals(target):
    served = {t.target: t for t in served_targets(find_platform(CPU_TORCH_FP32), tabular=False)}
    pt = served[target]
    meta = read_meta(pt.key)
    rows = heldout.calibration_rows(pt, heldout.calibration_stores())
    assert meta["intervals"]["calibration"] == "held-out architectures"
    assert meta["intervals"]["n_rows"] == len(rows) and meta["intervals"]["stores"] == \
        [p.name for p in heldout.calibration_stores()]
    assert meta["intervals_out_of_fold"]["n_rows"] == meta["n_labeled"]
