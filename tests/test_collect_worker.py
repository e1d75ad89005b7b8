"""The worker measured in-process (no fork) for every platform kind this machine has."""

from __future__ import annotations

import pytest

from perfgraphs.collect import worker
from perfgraphs.collect.plan import ConfigSpec
from perfgraphs.collect.protocols import Protocol

TINY = Protocol("tiny", warmup_runs=1, timed_runs=3)
NO_GRAPH = {"structure_hash": "skipped-in-test"}  # graph extraction has its own tests


def config(model="timm:resnet10t", platform="cpu-torch-fp32", mode="inference", batch=1,
           image_size=32, seq_len=None, protocol=TINY):
    return ConfigSpec(suite="t", family="f", model=model, image_size=None if seq_len else image_size,
                      seq_len=seq_len, batch_size=batch, platform=platform, mode=mode,
                      protocol=protocol, timeout_s=60, core=None)


def assert_plausible(row, n=3):
    assert row["status"] == "ok", row.get("error")
    times = row["run_times_ms"]
    assert len(times) == n == row["n_timed_runs"]
    assert all(t > 0 for t in times)
    assert row["latency_min_ms"] <= row["latency_median_ms"] <= row["latency_max_ms"]
    assert row["latency_min_ms"] == min(times) and row["latency_max_ms"] == max(times)
    assert row["latency_mad_ms"] >= 0 and row["latency_std_ms"] >= 0
    assert row["throughput_samples_per_s"] == pytest.approx(
        row["batch_size"] * 1e3 / row["latency_median_ms"])
    assert row["ref_before_ms"] > 0 and row["ref_after_ms"] > 0
    assert row.get("energy_j") is None  # no energy counter on CPU: null, never an estimate
    assert row["torch_version"] and row["measured_at_utc"].endswith("+00:00")


@pytest.mark.parametrize("platform", ["cpu-torch-fp32", "cpu-torch-bf16", "cpu-ort-fp32", "cpu-ort-int8"])
def test_cpu_platforms_inference(platform):
    row = worker.measure(config(platform=platform, batch=2), NO_GRAPH)
    assert_plausible(row)
    assert row["precision"] == platform.rsplit("-", 1)[1]
    # in this (pytest's) process the baseline RSS may hold pages an earlier test freed and the allocator
    # returns during the build, so the peak over it can be 0 here; test_collect_cli checks it is positive
    # where the collector measures, in a fresh worker process
    assert row["peak_memory_mb"] >= 0


def test_train_mode_steps():
    row = worker.measure(config(mode="train", batch=2), NO_GRAPH)
    assert_plausible(row)
    infer = worker.measure(config(batch=2), NO_GRAPH)
    # forward+backward+step costs more than a forward
    assert row["latency_median_ms"] > infer["latency_median_ms"]


def test_llm_mode_on_encoder():
    row = worker.measure(config(model="hf:distilbert-base-uncased", mode="llm", seq_len=16), NO_GRAPH)
    assert_plausible(row)
    assert row["input"] == "seq=16" and row.get("energy_per_sample_j") is None


def test_llm_mode_rejects_vision_model():
    row = worker.measure(config(mode="llm"), NO_GRAPH)
    assert row["status"] == "error" and "needs an hf: model" in row["error"]


def test_unknown_model_is_an_error_row():
    row = worker.measure(config(model="timm:no_such_net"), NO_GRAPH)
    assert row["status"] == "error"
    assert "UnknownModelError" in row["error"] and "no_such_net" in row["error"]
    assert row.get("latency_median_ms") is None


def test_cuda_without_gpu_is_a_clean_error():
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    row = worker.measure(config(platform="cuda-torch-fp32"), NO_GRAPH)
    assert row["status"] == "error"
    assert "no CUDA device" in row["error"] and "Traceback" not in row["error"]


def test_graph_facts_join_key():
    facts = worker.graph_facts(config(image_size=64))
    assert len(facts["structure_hash"]) == 64 and facts["graph_gmacs_per_sample"] > 0


def test_oom_classification():
    assert worker.classify(MemoryError()) == "oom"
    assert worker.classify(RuntimeError("DefaultCPUAllocator: can't allocate memory: you tried")) == "oom"
    assert worker.classify(RuntimeError("CUDA out of memory. Tried to allocate")) == "oom"
    assert worker.classify(ValueError("bad shape")) == "error"


def test_ort_platforms_of_one_input_share_one_export(tmp_path, monkeypatch):
    """The second ORT platform of an input reuses the first one's fp32 export (the campaign order
    puts them next to each other) and computes exactly what a fresh export computes; the cache
    keeps one input only, and a broken entry falls back to exporting."""
    import numpy as np

    from perfgraphs.collect import backends
    from perfgraphs.collect.platforms import get_platform

    monkeypatch.setenv("PERFGRAPHS_HOME", str(tmp_path))

    def output(platform: str, model: str = "timm:resnet10t") -> np.ndarray:
        prepared = backends.prepare(get_platform(platform), "inference", model, 32, None, 1)
        try:
            return prepared.step()[0]
        finally:
            prepared.cleanup()

    fresh = output("cpu-ort-fp32")
    slot = sorted(p.name for p in backends.export_cache_dir().iterdir())
    assert len(slot) == 2 and slot[0].endswith(".npz") and slot[1].endswith(".onnx")
    stamp = {p: p.stat().st_mtime_ns for p in backends.export_cache_dir().iterdir()}
    assert np.array_equal(output("cpu-ort-fp32"), fresh)  # served from the slot
    assert {p: p.stat().st_mtime_ns for p in backends.export_cache_dir().iterdir()} == stamp  # not re-exported
    assert output("cpu-ort-int8").shape == fresh.shape
    output("cpu-ort-fp32", "timm:mobilenetv3_small_050")
    assert len(list(backends.export_cache_dir().iterdir())) == 2  # one input in the slot, never more
    assert not any(p.name.startswith(slot[0][:24]) for p in backends.export_cache_dir().iterdir())
    for p in backends.export_cache_dir().glob("*.npz"):
        p.write_bytes(b"broken")
    assert output("cpu-ort-fp32", "timm:mobilenetv3_small_050").shape == fresh.shape


def test_ort_exports_the_explicit_attention_path(tmp_path, monkeypatch):
    """timm's fused attention does not trace for rope ViTs (EVA-02); ONNX Runtime runs the explicit
    path the graph pool exports, and computes what the fused eager model computes."""
    import numpy as np
    import torch

    from perfgraphs.collect import backends
    from perfgraphs.collect.platforms import get_platform

    monkeypatch.setenv("PERFGRAPHS_HOME", str(tmp_path))
    model = "timm:eva02_tiny_patch14_224"
    fused, inputs = backends.build_torch(model, 224, None, 1)
    with pytest.raises(TypeError, match="is_causal"):  # why the export needs the explicit path
        backends.export_with_weights(fused, inputs, str(tmp_path / "fused.onnx"))
    prepared = backends.prepare(get_platform("cpu-ort-fp32"), "inference", model, 224, None, 1)
    try:
        got = prepared.step()[0]
    finally:
        prepared.cleanup()
    with torch.no_grad():
        want = fused(*inputs.values()).numpy()
    assert got.shape == want.shape == (1, 192)  # eva02_tiny_patch14_224 is headless: its 192 features
    assert np.allclose(got, want, rtol=1e-4, atol=1e-5 * np.abs(want).max())
