"""An adversarial look at predict's verdict: inputs that make it answer where its rules refuse,
price what it refused, or state intervals that do not hold their own value (an adversarial review
of 2026-11-28; each of its five findings failed here before its fix: work in a Loop body priced, a
refused batch priced through a batch-1 target, a refused target recommended, an interval beside its
own value, a damaged calibration scaling times to 0, NaN or below 0)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import perfgraphs
from perfgraphs.predict.errors import CalibrationError

FORWARD = "time of a forward pass of the batch"


@pytest.fixture(scope="module")
def huge_batch():
    # resnet18 at the largest allowed batch: every forward-time target is refused (distance, batch range)
    return perfgraphs.predict("timm:resnet18", batch=65536, platform="cpu-torch-fp32")


def _resnet18_with_hidden_loop() -> bytes:
    import onnx
    from onnx import TensorProto as T
    from onnx import helper as h
    from onnx import numpy_helper as nh

    from perfgraphs.predict.sources import template_of

    model = onnx.ModelProto()
    model.CopyFrom(template_of("timm:resnet18").model)
    out = model.graph.output[0].name
    body = h.make_graph(
        [h.make_node("MatMul", ["x_in", "W_body"], ["x_out"]), h.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body",
        [h.make_tensor_value_info("i", T.INT64, []), h.make_tensor_value_info("cond_in", T.BOOL, []),
         h.make_tensor_value_info("x_in", T.FLOAT, ["B", 1000])],
        [h.make_tensor_value_info("cond_out", T.BOOL, []), h.make_tensor_value_info("x_out", T.FLOAT, ["B", 1000])],
        [nh.from_array(np.zeros((1000, 1000), np.float32), "W_body")])
    model.graph.initializer.extend([nh.from_array(np.array(100000, np.int64), "trip"),
                                    nh.from_array(np.array(True), "cond0")])
    model.graph.node.append(h.make_node("Loop", ["trip", "cond0", out], ["looped"], body=body))
    model.graph.output.append(h.make_tensor_value_info("looped", T.FLOAT, ["B", 1000]))
    return model.SerializeToString()


# a Loop running 100,000 (B x 1000) @ (1000 x 1000) MatMuls (~400 GFLOPs at batch 2, 100x resnet18) is
# counted as 0 FLOPs and ~0 bytes, so the unseen operator only flags: resnet18's numbers come back, priced
def test_work_hidden_in_a_loop_is_not_answered():
    r = perfgraphs.predict(_resnet18_with_hidden_loop(), batch=2, platform="cpu-torch-fp32")
    times = [t for t in r.targets if t.unit == "ms"]
    assert times and all("Loop" in t.distribution.unseen_operators for t in times)
    assert all(t.refused for t in times), [(t.target, t.value, t.distribution.verdict) for t in times]
    assert r.cost is None


# every forward-time target at batch 65536 is refused, yet the cost of 1M inferences is priced from the
# batch-1 per-sample latency (latency_per_sample_ms, a fixed-batch artifact that never sees the batch)
def test_a_refused_forward_time_is_not_priced_through_a_batch_one_target(huge_batch):
    forward = [t for t in huge_batch.targets if t.question == FORWARD]
    assert forward and all(t.refused for t in forward)
    assert huge_batch.cost is None or "refused" in huge_batch.cost_note, huge_batch.cost_note


# a refused target alone in its question (peak_memory_mb here) keeps recommended=True with value None
def test_a_refused_target_is_never_recommended(huge_batch):
    assert huge_batch["peak_memory_mb"].refused
    assert not [t.target for t in huge_batch.targets if t.refused and t.recommended]


# the documented fallback that does hold: Prediction.answer() never returns a refused target
def test_answer_never_returns_a_refused_target(huge_batch):
    for t in huge_batch.targets:
        got = huge_batch.answer(t.question)
        assert got is None or not got.refused


# the encoder peak-memory artifact's top size band has offsets (+0.054, +0.434): the 80 % and 90 %
# intervals of bert-large (seq 128, batch 1, a fitted row) start above the value and exclude its own label
def test_an_answered_interval_contains_its_value():
    from perfgraphs.predict.artifacts import load_artifact
    from perfgraphs.predict.intervals import interval_of
    from perfgraphs.predict.platforms import find_platform
    from perfgraphs.predict.verdict import judge

    plat = find_platform("cpu-torch-fp32")
    pt = next(t for t in plat.targets if t.kind == "tabular" and t.target == "peak_memory_mb")
    art = load_artifact(pt)
    i = art.names.index("hf:bert-large-uncased@seq128#b1")
    x = art.features[i]
    value = float(art.predict(x.reshape(1, -1))[0])
    assert judge(art, x, None, value).in_distribution
    for level in (0.8, 0.9):
        iv = interval_of(art.meta["intervals"], value, level)
        assert iv is not None and iv.low <= value <= iv.high, (level, iv.low, value, iv.high, float(art.labels[i]))


# a NaN prediction can never be answered: the label-range check refuses it (kept: the only guard against NaN)
def test_a_nan_prediction_is_refused():
    from perfgraphs.predict.artifacts import load_artifact
    from perfgraphs.predict.platforms import find_platform, served_targets
    from perfgraphs.predict.verdict import REFUSED, judge

    pt = next(t for t in served_targets(find_platform("cpu-torch-fp32"), False) if t.target == "latency_ms")
    art = load_artifact(pt)
    x = art.features[int(np.flatnonzero(art.in_training)[0])]
    assert judge(art, x, None, float("nan")).verdict == REFUSED


def _write_calibration(home, **over):
    from perfgraphs.collect.environment import machine_tag
    from perfgraphs.predict.calibration import calibration_path, fit_calibration

    path = calibration_path("cpu-torch-fp32", "infer", home)
    path.parent.mkdir(parents=True, exist_ok=True)
    cal = {"platform": "cpu-torch-fp32", "mode": "infer", "machine": machine_tag(), "cpu_model": "test cpu",
           "measured_at_utc": "2026-11-28T10:00:00+00:00", **fit_calibration(
               [("a", 12.0, 10.0), ("b", 26.0, 20.0), ("c", 36.0, 30.0), ("d", 50.0, 40.0)])}
    cal.update({k: v for k, v in over.items() if v is not None})
    for k in [k for k, v in over.items() if v is None]:
        del cal[k]
    path.write_text(json.dumps(cal))


# a damaged calibration file: a negative error narrows the interval past the value (low > high), a
# non-positive or non-finite factor gives negative / zero / NaN / inf times, a missing or mistyped field
# crashes in _calibration_note with KeyError / ValueError instead of CalibrationError
@pytest.mark.parametrize("over", [
    {"error_log": -0.5}, {"factor": -2.0}, {"factor": 0.0}, {"factor": math.nan}, {"factor": math.inf},
    {"factor": "1.2"}, {"spread": None}, {"cpu_model": None},
], ids=["negative-error", "negative-factor", "zero-factor", "nan-factor", "inf-factor", "string-factor",
        "no-spread", "no-cpu-model"])
def test_a_damaged_calibration_is_refused(tmp_path, over):
    _write_calibration(tmp_path, **over)
    with pytest.raises(CalibrationError):
        r = perfgraphs.predict("timm:resnet18", batch=2, home=tmp_path, calibrated=True)
        for t in r.targets:  # if it answers, every answered time must be positive, finite and inside its interval
            if t.value is not None:
                assert math.isfinite(t.value) and t.value > 0
                assert all(i.low <= t.value <= i.high for i in t.intervals)
