"""Evaluator: metrics against an independent computation, breakdowns, and every refusal."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfgraphs.errors import PerfgraphsError
from perfgraphs.evaluation.evaluator import (
    EvaluationError, Evaluator, IdMismatchError, InputFormatError, InvalidValueError, compute_metrics,
)
from perfgraphs.registry import UnknownDatasetError, get_dataset


def reference_metrics(y_true: list[float], y_pred: list[float]) -> dict[str, float]:
    """Plain-Python definitions of SPEC §5, including Kendall's τ-b by pair counting."""
    n = len(y_true)
    rel = [abs(t - p) / t for t, p in zip(y_true, y_pred)]
    out = {
        "n": n,
        "mape_pct": 100.0 * sum(rel) / n,
        "rmse": math.sqrt(sum((t - p) ** 2 for t, p in zip(y_true, y_pred)) / n),
        **{f"acc_{d}_pct": 100.0 * sum(r <= d / 100 for r in rel) / n for d in (5, 10, 15)},
    }
    concordant = discordant = tied_true = tied_pred = 0
    for i in range(n):
        for j in range(i + 1, n):
            dt, dp = y_true[i] - y_true[j], y_pred[i] - y_pred[j]
            tied_true += dt == 0
            tied_pred += dp == 0
            if dt != 0 and dp != 0:
                concordant += (dt > 0) == (dp > 0)
                discordant += (dt > 0) != (dp > 0)
    n0 = n * (n - 1) / 2
    denom = math.sqrt((n0 - tied_true) * (n0 - tied_pred))
    out["kendall_tau"] = (concordant - discordant) / denom if denom > 0 else float("nan")
    return out


def assert_metrics_equal(got: dict, want: dict) -> None:
    for key, value in want.items():
        if isinstance(value, float) and math.isnan(value):
            assert math.isnan(got[key]), key
        else:
            assert got[key] == pytest.approx(value, rel=1e-9, abs=1e-9), key


positive = st.floats(min_value=1e-3, max_value=1e6, allow_nan=False, allow_infinity=False)
# relative errors around the Acc thresholds, and exact ties, are the interesting cases
relative_error = st.one_of(st.sampled_from([0.0, 0.04, 0.05, 0.1, 0.149, 0.3]),
                           st.floats(min_value=-0.9, max_value=3.0))


@st.composite
def predictions(draw):
    n = draw(st.integers(min_value=2, max_value=25))
    y_true = draw(st.lists(st.one_of(positive, st.sampled_from([1.0, 2.0])), min_size=n, max_size=n))
    errors = draw(st.lists(relative_error, min_size=n, max_size=n))
    y_pred = [max(t * (1 + e), 1e-6) for t, e in zip(y_true, errors)]
    return y_true, y_pred


@settings(max_examples=60, deadline=None)
@given(predictions())
def test_metrics_equal_an_independent_computation(case):
    y_true, y_pred = case
    result = Evaluator("dippm", "latency_ms").eval({"y_true": np.array(y_true), "y_pred": np.array(y_pred)})
    assert_metrics_equal(result, reference_metrics(y_true, y_pred))


def test_kendall_tau_matches_scipy_and_extremes():
    from scipy.stats import kendalltau

    rng = np.random.default_rng(0)
    y = rng.uniform(1, 100, 40)
    pred = y * rng.uniform(0.8, 1.2, 40)
    assert compute_metrics(y, pred).kendall_tau == pytest.approx(kendalltau(y, pred).statistic)
    assert compute_metrics(y, y * 2).kendall_tau == pytest.approx(1.0)
    assert compute_metrics(y, 1000 / y).kendall_tau == pytest.approx(-1.0)
    assert math.isnan(compute_metrics(y[:1], y[:1]).kendall_tau)


@settings(max_examples=25, deadline=None)
@given(predictions(), st.data())
def test_family_breakdown_partitions_the_overall_metrics(case, data):
    y_true, y_pred = map(np.array, case)
    families = np.array(data.draw(st.lists(st.sampled_from(["vgg", "vit", "resnet"]),
                                           min_size=len(y_true), max_size=len(y_true))))
    result = Evaluator("dippm", "latency_ms").eval({"y_true": y_true, "y_pred": y_pred, "family": families})
    per = result["per_family"]
    assert set(per) == set(families.tolist())
    assert sum(m["n"] for m in per.values()) == len(y_true)
    n = len(y_true)
    # per-family means, weighted by family size, recombine into the overall ones
    for key in ("mape_pct", "acc_5_pct", "acc_10_pct", "acc_15_pct"):
        assert sum(m[key] * m["n"] for m in per.values()) / n == pytest.approx(result[key], rel=1e-9, abs=1e-9)
    assert sum(m["rmse"] ** 2 * m["n"] for m in per.values()) / n == pytest.approx(result["rmse"] ** 2, rel=1e-9)
    for family, metrics in per.items():
        mask = families == family
        assert_metrics_equal(metrics, reference_metrics(y_true[mask].tolist(), y_pred[mask].tolist()))
    assert result["family_mean"]["groups"] == len(per)
    assert result["family_mean"]["mape_pct"] == pytest.approx(np.mean([m["mape_pct"] for m in per.values()]))


def test_platform_breakdown_and_result_fields():
    ev = Evaluator("nnlqp", "latency_per_sample_ms")
    result = ev.eval({"y_true": [1.0, 2.0, 4.0, 8.0], "y_pred": [1.04, 2.0, 3.0, 8.0],
                      "platform": ["rtx3090", "rtx3090", "epyc", "epyc"]})
    assert (result["dataset"], result["config"], result["target"], result["unit"]) == (
        "perfgraphs/nnlqp", "timm-platforms", "latency_per_sample_ms", "ms")
    assert result["per_platform"]["rtx3090"]["mape_pct"] == pytest.approx(2.0)
    assert result["per_platform"]["epyc"]["mape_pct"] == pytest.approx(12.5)
    assert result["acc_10_pct"] == pytest.approx(75.0)
    assert "per_family" not in result


def test_torch_tensors_are_accepted():
    import torch

    result = Evaluator("dippm", "latency_ms").eval({"y_true": torch.tensor([1.0, 2.0]), "y_pred": torch.tensor([1.0, 2.2])})
    assert result["mape_pct"] == pytest.approx(5.0)


def test_registry_drives_config_target_and_format():
    ev = Evaluator("perfgraphs/dippm", "peak_memory_mb")
    assert ev.config.name == "cpu-torch-fp32" and ev.target.unit == "MB"
    assert "MB" in ev.expected_input_format and "y_pred" in ev.expected_input_format
    assert "rmse" in ev.expected_output_format
    with pytest.raises(UnknownDatasetError, match="no target 'accuracy'.*latency_ms"):
        Evaluator("dippm", "accuracy")
    with pytest.raises(UnknownDatasetError, match="no config"):
        Evaluator("dippm", "latency_ms", config="gpu")
    with pytest.raises(UnknownDatasetError, match="no target"):
        Evaluator("dippm", "latency_ms", config="graphs")  # the unlabeled config


GOOD = {"y_true": np.array([1.0, 2.0, 3.0]), "y_pred": np.array([1.0, 2.5, 2.0])}


@pytest.mark.parametrize("change, error, message", [
    ({"y_pred": np.array([1.0, 2.0])}, InputFormatError, "y_pred has 2 entries but y_true has 3"),
    ({"y_pred": np.array([[1.0], [2.0], [3.0]])}, InputFormatError, r"1-D of shape \(n,\), got shape \(3, 1\).*ravel"),
    ({"y_true": np.ones((3, 2))}, InputFormatError, r"y_true must be 1-D"),
    ({"y_pred": np.array([1.0, np.nan, 2.0])}, InvalidValueError, "y_pred has 1 non-finite.*index 1"),
    ({"y_true": np.array([1.0, 2.0, np.inf])}, InvalidValueError, "y_true has 1 non-finite.*index 2"),
    ({"y_pred": np.array([1.0, 0.0, -2.0])}, InvalidValueError, "y_pred has 2 non-positive.*latency_ms is positive"),
    ({"y_true": np.array([-1.0, 2.0, 3.0])}, InvalidValueError, "y_true has 1 non-positive"),
    ({"y_pred": np.array(["a", "b", "c"])}, InputFormatError, "y_pred must be numeric"),
    ({"y_true": np.array([])}, InputFormatError, "y_pred has 3 entries but y_true has 0"),
    ({"family": ["vgg", "vit"]}, InputFormatError, "family has 2 entries but y_true has 3"),
    ({"platform": ["a"]}, InputFormatError, "platform has 1 entries"),
    ({"sample_id": ["a", "b", "a"]}, IdMismatchError, r"1 duplicated \(e.g. 'a'\)"),
])
def test_invalid_inputs_are_refused_with_one_line_messages(change, error, message):
    ev = Evaluator("dippm", "latency_ms")
    with pytest.raises(error, match=message) as info:
        ev.eval({**GOOD, **change})
    assert isinstance(info.value, EvaluationError) and isinstance(info.value, PerfgraphsError)
    assert "\n" not in str(info.value)


def test_missing_keys_and_non_dict_are_refused():
    ev = Evaluator("dippm", "latency_ms")
    with pytest.raises(InputFormatError, match="missing key.*y_pred"):
        ev.eval({"y_true": [1.0]})
    with pytest.raises(InputFormatError, match="must be a dict"):
        ev.eval([1.0, 2.0])


def test_expected_ids_mismatches_say_how_many_and_show_a_few():
    ids = [f"s{i:02d}" for i in range(10)]
    y = np.arange(1.0, 11.0)
    ev = Evaluator("dippm", "latency_ms", expected_ids=ids)
    # order is free
    assert ev.eval({"sample_id": ids[::-1], "y_true": y, "y_pred": y})["mape_pct"] == 0.0
    with pytest.raises(InputFormatError, match="sample_id is required"):
        ev.eval({"y_true": y, "y_pred": y})
    submitted = ids[:6] + ["s00", "x1", "x2", "x3"]  # 1 duplicate, 4 missing, 3 unknown
    with pytest.raises(IdMismatchError) as info:
        ev.eval({"sample_id": submitted, "y_true": y, "y_pred": y})
    msg = str(info.value)
    assert "10 expected ids" in msg and "1 duplicated (e.g. 's00')" in msg
    assert "4 missing (e.g. 's06', 's07', 's08', ...)" in msg and "3 unknown (e.g. 'x1', 'x2', 'x3')" in msg
    # the per-call list overrides the constructor's
    other = Evaluator("dippm", "latency_ms")
    with pytest.raises(IdMismatchError, match="1 missing.*'s10'"):
        other.eval({"sample_id": ids, "y_true": y, "y_pred": y}, expected_ids=ids + ["s10"])


def test_per_platform_targets_resolve_through_the_registry():
    cfg = get_dataset("nnlqp").config("timm-platforms")
    target = cfg.target("latency_per_sample_ms__cpu-torch-fp32")
    assert (target.unit, target.positive) == ("ms", True)
    result = Evaluator("nnlqp", "latency_per_sample_ms__timm-rtx4090-amp-nchw-pt240-cu124").eval(
        {"y_true": [2.0, 4.0], "y_pred": [2.2, 4.0]})
    assert result["target"] == "latency_per_sample_ms__timm-rtx4090-amp-nchw-pt240-cu124"
    assert result["mape_pct"] == pytest.approx(5.0)
    with pytest.raises(UnknownDatasetError, match="no platform 'tpu-v9'"):
        cfg.target("latency_per_sample_ms__tpu-v9")
    with pytest.raises(UnknownDatasetError, match="per platform"):
        cfg.target("energy_j")
    assert len(cfg.platform_targets("latency_per_sample_ms")) == len(cfg.platforms) >= 12
