"""``perfgraphs predict calibrate``: the factor and its error against a hand computation, the
reference and check sets apart, a calibrated prediction scaled and widened as stated, and a
calibration that is missing, corrupt or of another machine refused in one line."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import perfgraphs
from perfgraphs.collect.environment import machine_tag
from perfgraphs.predict.calibration import (N_CHECK, N_REFERENCES, calibration_path, check_configs, fit_calibration,
                                            label_source, plan_of, reference_configs)
from perfgraphs.predict.errors import CalibrationError


def test_the_factor_is_the_geometric_median_and_the_error_the_largest_leave_one_out_miss():
    ratios = [1.10, 1.20, 1.25, 1.30, 2.00]
    pairs = [(f"c{i}", 10.0 * r, 10.0) for i, r in enumerate(ratios)]
    cal = fit_calibration(pairs)
    assert cal["factor"] == pytest.approx(1.25)  # the median ratio: the outlier 2.0 does not move it
    # leave-one-out by hand: each ratio against the median of the others (in log)
    logs = np.log(ratios)
    misses = [abs(logs[i] - np.median(np.delete(logs, i))) for i in range(5)]
    assert cal["error_log"] == pytest.approx(max(misses))
    assert cal["error_pct"] == pytest.approx(100 * (math.exp(max(misses)) - 1))
    assert cal["coverage"] == pytest.approx(5 / 6) and cal["n_references"] == 5
    assert cal["spread"]["min_ratio"] == pytest.approx(1.1) and cal["spread"]["max_ratio"] == pytest.approx(2.0)
    with pytest.raises(CalibrationError, match="at least 3"):
        fit_calibration(pairs[:2])


def test_references_and_check_configurations_are_apart_and_span_the_label_range():
    source = label_source("cpu-torch-fp32")
    refs, checks = reference_configs(source), check_configs(source)
    assert len(refs) == N_REFERENCES and len(checks) == N_CHECK
    key = lambda r: (r["model"], r["input"], r["batch_size"])  # noqa: E731
    assert not {key(r) for r in refs} & {key(r) for r in checks}
    assert not {r["model"] for r in refs} & {r["model"] for r in checks}  # other architectures
    labels = sorted(r[source.label] for r in refs)
    assert labels[-1] / labels[0] > 10  # small and large models both
    plan = plan_of(refs, source, core=1)
    from perfgraphs.collect.plan import parse_plan

    parsed = parse_plan(plan, name="calibration")
    assert {(c.model, c.input_label, c.batch_size) for c in parsed.configs} >= {key(r) for r in refs}
    assert parsed.rounds == 1 and all(c.protocol.name == source.protocol for c in parsed.configs)


def _write(home, **over):
    path = calibration_path("cpu-torch-fp32", "infer", home)
    path.parent.mkdir(parents=True, exist_ok=True)
    cal = {"platform": "cpu-torch-fp32", "mode": "infer", "machine": machine_tag(), "cpu_model": "test cpu",
           "measured_at_utc": "2026-11-28T10:00:00+00:00", **fit_calibration(
               [("a", 12.0, 10.0), ("b", 26.0, 20.0), ("c", 36.0, 30.0), ("d", 50.0, 40.0)])}
    cal.update(over)
    path.write_text(json.dumps(cal))
    return cal


def test_a_calibrated_prediction_is_scaled_and_widened_as_stated(tmp_path):
    cal = _write(tmp_path)
    plain = perfgraphs.predict("timm:resnet18", batch=2, home=tmp_path)
    here = perfgraphs.predict("timm:resnet18", batch=2, home=tmp_path, calibrated=True)
    f, e = cal["factor"], cal["error_log"]
    assert "calibrated to this machine" in here.calibration and plain.calibration == ""
    for a, b in zip(plain.targets, here.targets):
        if a.unit != "ms":  # memory is not a time: untouched
            assert b.value == a.value and b.intervals == a.intervals
            continue
        assert b.value == pytest.approx(a.value * f)
        for i, j in zip(a.intervals, b.intervals):
            assert j.low == pytest.approx(i.low * f * math.exp(-e)) and j.high == pytest.approx(i.high * f * math.exp(e))
    assert here.cost is None and "calibrated" in here.cost_note


@pytest.mark.parametrize("damage,text", [
    (None, "no calibration"),
    ("corrupt", "not a readable calibration"),
    ("other machine", "calibrates machine"),
])
def test_a_missing_corrupt_or_foreign_calibration_is_refused_before_any_export(tmp_path, damage, text, capsys):
    if damage == "corrupt":
        path = calibration_path("cpu-torch-fp32", "infer", tmp_path)
        path.parent.mkdir(parents=True)
        path.write_text("{not json")
    elif damage == "other machine":
        _write(tmp_path, machine="amd-epyc-00000000")
    with pytest.raises(CalibrationError, match=text):
        perfgraphs.predict("timm:no_such_model_anywhere", batch=1, home=tmp_path, calibrated=True)


@pytest.mark.parametrize("args,text", [
    (["calibrate", "--platform", "cpu-torch-bf16"], "no labels"),
    (["calibrate", "--core", "999"], "--core must be a core of this machine"),
    (["timm:resnet18", "--calibrated"], "no calibration"),
])
def test_calibration_bad_input_is_one_line_from_the_cli(args, text, tmp_path, monkeypatch, capsys):
    from perfgraphs.cli import main

    monkeypatch.setenv("PERFGRAPHS_HOME", str(tmp_path))
    rc = main(["predict", *args])
    out = capsys.readouterr()
    assert rc == 2 and out.err.startswith("perfgraphs: error:") and len(out.err.strip().splitlines()) == 1, out.err
    assert text in out.err and "Traceback" not in out.err + out.out
