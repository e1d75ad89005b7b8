"""Unit tests of the collector's pure parts: statistics, protocols, plans, storage, corruption."""

from __future__ import annotations

import statistics
import uuid
from pathlib import Path

import pytest

from perfgraphs.collect.errors import CollectError, CorruptShardError, PlanError, UnknownPlatformError
from perfgraphs.collect.plan import estimate_seconds, order_configs, parse_plan
from perfgraphs.collect.platforms import get_platform
from perfgraphs.collect.protocols import PROTOCOLS, get_protocol
from perfgraphs.collect.stats import run_stats
from perfgraphs.atomic import atomic_write_table
from perfgraphs.collect.store import MeasurementStore
from perfgraphs.collect.schema import to_table


def test_run_stats_values():
    s = run_stats([10.0, 12.0, 11.0, 30.0, 11.5])
    assert s.n == 5
    assert s.median_ms == 11.5
    assert s.min_ms == 10.0 and s.max_ms == 30.0
    assert s.mean_ms == pytest.approx(14.9)
    assert s.std_ms == pytest.approx(statistics.pstdev([10.0, 12.0, 11.0, 30.0, 11.5]))
    assert s.mad_ms == 0.5  # |deviations| = 1.5, .5, .5, 18.5, 0 -> median .5
    assert s.spread == pytest.approx(0.5 / 11.5)
    cols = s.as_columns()
    assert cols["latency_median_ms"] == 11.5 and cols["n_timed_runs"] == 5


def _count_runs(keep, iteration_s):
    n, elapsed = 0, 0.0
    while keep(n, elapsed):
        n += 1
        elapsed += iteration_s
    return n


def test_protocol_rules():
    dippm = get_protocol("dippm")
    assert _count_runs(dippm.keep_warming, 1.0) == 5 and _count_runs(dippm.keep_timing, 1.0) == 30
    trappm = get_protocol("trappm")
    assert trappm.warmup_runs + trappm.timed_runs == 55
    llm = get_protocol("llm")
    assert (llm.warmup_runs, llm.timed_runs) == (100, 300)
    cpu = get_protocol("dippm-cpu")
    assert _count_runs(cpu.keep_timing, 0.001) == 30  # fast: full 30 runs
    assert _count_runs(cpu.keep_timing, 0.5) == 6  # 3 s budget reached after 6 runs
    assert _count_runs(cpu.keep_timing, 10.0) == 5  # slow: never fewer than 5
    assert _count_runs(cpu.keep_warming, 10.0) == 2
    with pytest.raises(PlanError, match="unknown protocol"):
        get_protocol("nope")


PLAN = {
    "suite": "unit", "protocol": "tiny", "platforms": ["cpu-torch-fp32"],
    "groups": [
        {"family": "a", "models": ["timm:resnet10t", {"name": "timm:resnet18", "batch_sizes": [4]}],
         "input_sizes": [64, 96], "batch_sizes": [1, 2]},
        {"family": "b", "models": [{"name": "hf:bert-base-uncased", "gmacs": 11.0}], "seq_lens": [64, 128]},
    ],
}


def test_plan_expansion_keys_and_order():
    plan = parse_plan(PLAN, "unit")
    assert len(plan.configs) == 2 * 2 + 2 * 1 + 2  # resnet10t 2x2, resnet18 2 sizes x b4, bert 2
    assert len({c.key for c in plan.configs}) == len(plan.configs)
    bert = [c for c in plan.configs if c.model.startswith("hf:")]
    assert {c.seq_len for c in bert} == {64, 128} and all(c.image_size is None for c in bert)
    assert [c.gmacs_per_sample for c in sorted(bert, key=lambda c: c.seq_len)] == [5.5, 11.0]
    # key depends on the measurement's identity only, not on plan order or suite
    again = parse_plan({**PLAN, "suite": "other", "groups": PLAN["groups"][::-1]}, "x")
    assert {c.key for c in again.configs} == {c.key for c in plan.configs}
    # both families appear among the first configurations (interleaved)
    assert {c.family for c in plan.configs[:3]} == {"a", "b"}
    assert order_configs(list(reversed(plan.configs))) == plan.configs  # deterministic


@pytest.mark.parametrize("mutate, message", [
    (lambda p: p.update(groups=[]), "non-empty 'groups'"),
    (lambda p: p["groups"][0].update(batch_sizes=[0]), "positive integers"),
    (lambda p: p["groups"][0].update(mode="fly"), "mode must be one of"),
    (lambda p: p["groups"][0].update(platforms=["tpu-v9"]), "unknown platform"),
    (lambda p: p["groups"][1].pop("seq_lens"), "needs seq_lens"),
    (lambda p: p["groups"].append(dict(p["groups"][0])), "listed twice"),
])
def test_plan_errors(mutate, message):
    import copy

    data = copy.deepcopy(PLAN)
    mutate(data)
    with pytest.raises(PlanError, match=message):
        parse_plan(data, "bad")


def test_unknown_platform():
    with pytest.raises(UnknownPlatformError, match="cpu-torch-fp32"):
        get_platform("gpu-x")


def test_cost_model_scales_with_batch_and_protocol():
    plan = parse_plan(PLAN, "unit")
    bert = sorted((c for c in plan.configs if c.model.startswith("hf:")), key=lambda c: c.seq_len)
    assert estimate_seconds(bert[1], 50) > estimate_seconds(bert[0], 50) > 0
    assert set(PROTOCOLS) >= {"dippm", "trappm", "llm", "dippm-cpu", "tiny"}


def _row(key="k1", status="ok", when="2026-01-01T00:00:00+00:00", platform="cpu-torch-fp32"):
    return {"key": key, "measurement_id": uuid.uuid4().hex, "platform": platform, "status": status,
            "measured_at_utc": when, "model": "timm:x", "input": "3,8,8", "run_times_ms": [1.0, 2.0],
            "latency_median_ms": 1.5}


def test_store_append_compact_dedupe(tmp_path):
    store = MeasurementStore(tmp_path)
    store.save_metadata({})  # as a campaign does when it starts
    r1, r2 = _row("k1"), _row("k2", status="error")
    store.append(r1)
    store.append(r2)
    assert store.finished_keys() == {"k1", "k2"}
    assert store.finished_keys(retry_errors=True) == {"k1"}
    # crash window: shard written, parts not yet deleted -> no duplicate rows anywhere
    shard = tmp_path / "cpu-torch-fp32" / "shard-00000-x.parquet"
    atomic_write_table(to_table([r1]), shard)
    assert store.read(latest=False).num_rows == 2
    written = store.compact()
    assert store.pending_parts() == 0 and len(written) == 1
    rows = store.read(latest=False).to_pylist()
    assert sorted(r["key"] for r in rows) == ["k1", "k2"]
    # a retry of the error supersedes it in the latest view
    store.append(_row("k2", status="ok", when="2026-01-02T00:00:00+00:00"))
    latest = {r["key"]: r["status"] for r in store.read().to_pylist()}
    assert latest == {"k1": "ok", "k2": "ok"}
    assert store.read(latest=False).num_rows == 3


@pytest.mark.parametrize("damage", ["flip", "truncate"])
def test_corrupt_shard_detected_with_path(tmp_path, damage):
    store = MeasurementStore(tmp_path)
    store.append(_row("k1"))
    store.compact()
    shard = next((tmp_path / "cpu-torch-fp32").glob("shard-*.parquet"))
    data = bytearray(shard.read_bytes())
    if damage == "flip":
        data[len(data) // 2] ^= 0xFF
    else:
        data = data[: len(data) // 2]
    shard.write_bytes(bytes(data))
    with pytest.raises(CorruptShardError) as info:
        store.read()
    assert str(shard) in str(info.value)
    # with a sidecar that vouches for the damaged bytes, pyarrow itself must refuse them
    if damage == "truncate":
        from perfgraphs.atomic import sha256_file

        shard.with_name(shard.name + ".sha256").write_text(sha256_file(shard) + "\n")
        with pytest.raises(CorruptShardError, match="pyarrow cannot read"):
            store.read()
        # and without any sidecar nothing vouches for the bytes at all (it used to be read as is)
        shard.with_name(shard.name + ".sha256").unlink()
        with pytest.raises(CorruptShardError, match="no sha256 sidecar"):
            store.read()


def test_store_lock(tmp_path):
    from perfgraphs.collect.errors import CampaignLockedError

    store = MeasurementStore(tmp_path)
    with store.lock():
        with pytest.raises(CampaignLockedError):
            with MeasurementStore(tmp_path).lock():
                pass


def test_noise_floor_arithmetic(monkeypatch, tmp_path):
    """Two rounds with known latencies give the expected MAPEs (no real measurement)."""
    from perfgraphs.collect import noise

    plan = tmp_path / "p.yaml"
    import yaml

    plan.write_text(yaml.safe_dump({**PLAN, "groups": PLAN["groups"][:1]}))
    calls = []

    def fake(config, graph):
        calls.append(config.key)
        second = calls.count(config.key) == 2
        # round 2 is 10 % slower and its reference is 10 % slower too: pure drift
        scale = 1.1 if second else 1.0
        return {"status": "ok", "model": config.model, "input": config.input_label,
                "batch_size": config.batch_size, "latency_median_ms": 10.0 * scale,
                "latency_min_ms": 9.0, "ref_ms": 20.0 * scale}

    monkeypatch.setattr(noise, "measure_config", fake)
    report = noise.noise_floor(str(plan), probe=3, out=tmp_path)
    assert len(report.probe) == 3
    assert report.mape_raw_pct == pytest.approx(10.0)
    assert report.mape_calibrated_pct == pytest.approx(0.0)  # drift fully explained by the ref
    assert report.mape_min_pct == pytest.approx(0.0)
    assert (tmp_path / "noise-floor-p.json").exists()


def test_noise_probe_respects_its_cost_limit(tmp_path):
    """Only configurations estimated under the limit are probed; a plan with none says which option
    raises it (LLM plans have no forward under the 4 s default)."""
    import yaml

    from perfgraphs.collect.noise import select_probe
    from perfgraphs.collect.plan import estimate_seconds, load_plan

    plan = tmp_path / "p.yaml"
    plan.write_text(yaml.safe_dump(PLAN))
    configs = load_plan(str(plan)).configs
    costs = sorted(estimate_seconds(c) for c in configs)
    limit = costs[len(costs) // 2]
    chosen = select_probe(configs, 100, max_config_s=limit)
    assert chosen and all(estimate_seconds(c) <= limit for c in chosen)
    assert len(chosen) == sum(cost <= limit for cost in costs)
    with pytest.raises(CollectError, match="--probe-max-s"):
        select_probe(configs, 3, max_config_s=costs[0] / 2)


def test_one_inputs_platforms_are_measured_back_to_back():
    """With several platforms, the configurations of one (model, input, batch) stay adjacent and in
    the plan's platform order (the ORT export cache relies on it); families still interleave."""
    plan = parse_plan({**PLAN, "platforms": ["cpu-ort-fp32", "cpu-ort-int8", "cpu-torch-fp32"]}, "multi")
    configs = plan.configs
    assert len(configs) == 3 * len(parse_plan(PLAN, "single").configs)
    for i in range(0, len(configs), 3):
        unit = configs[i:i + 3]
        assert len({(c.model, c.input_label, c.batch_size) for c in unit}) == 1
        assert [c.platform for c in unit] == ["cpu-ort-fp32", "cpu-ort-int8", "cpu-torch-fp32"]
    assert {c.family for c in configs[:9]} == {"a", "b"}  # the same interleave as one platform, by unit


def test_cost_model_matches_the_committed_ort_campaign_per_platform():
    """The ORT terms of the cost model, checked against the worker times the ort-cpu campaign
    recorded: each platform's actual/estimated ratio near the others' (the old model, with int8 at
    0.7x fp32 and one setup for every ORT platform, was 4x off between fp32 and int8)."""
    from collections import defaultdict

    from perfgraphs.collect.plan import load_plan
    from perfgraphs.collect.store import MeasurementStore

    root = Path(__file__).resolve().parents[1]
    plan = {c.key: c for c in load_plan(root / "plans" / "ort-cpu.yaml").configs}
    table = MeasurementStore(root / "data" / "measurements" / "ort-cpu").read()
    actual, estimated = defaultdict(float), defaultdict(float)
    for row in table.select(["key", "platform", "status", "worker_wall_s"]).to_pylist():
        if row["status"] == "ok" and row["key"] in plan and row["worker_wall_s"]:
            actual[row["platform"]] += row["worker_wall_s"]
            estimated[row["platform"]] += estimate_seconds(plan[row["key"]], 67.71)  # the campaign's probe
    ratios = {p: actual[p] / estimated[p] for p in actual}
    assert set(ratios) == {"cpu-ort-fp32", "cpu-ort-int8", "cpu-torch-fp32"}
    assert all(0.5 < r < 1.5 for r in ratios.values()), ratios
    assert max(ratios.values()) / min(ratios.values()) < 1.4, ratios
