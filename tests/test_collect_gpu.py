"""The GPU campaign path: what can be checked without a GPU, and the committed GPU rows themselves.

The CUDA timing itself ran on a lent H200 (``plans/run-on-gpu.sh``); here: the energy-window
arithmetic against a counter of known power, graph facts reused from another suite, the GPU plan
against the CPU plan it mirrors, and the committed rows against their own raw runs.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import pytest

from perfgraphs.collect.backends import Prepared, energy_window
from perfgraphs.collect.campaign import known_graphs
from perfgraphs.collect.energy import EnergyMeterError, NvmlMeter, ZeusMeter, gpu_energy_meter
from perfgraphs.collect.plan import estimate_seconds, load_plan
from perfgraphs.collect.store import MeasurementStore, load_measurements

REPO = Path(__file__).resolve().parents[1]
H200 = REPO / "data" / "measurements" / "dippm-h200"


class ConstantPowerCounter:
    """A cumulative energy counter (mJ) of a board drawing ``watts``: what NVML's total-energy
    counter reports, at a known power, so the window's arithmetic has an exact answer."""

    def __init__(self, watts: float) -> None:
        self.watts, self.t0 = watts, time.perf_counter()

    def __call__(self) -> float:
        return (time.perf_counter() - self.t0) * self.watts * 1e3


class FakeZeusMonitor:
    """``ZeusMonitor``'s window API (zeus 0.16: ``begin_window(key, sync_execution=)``,
    ``end_window(key, sync_execution=)`` -> a measurement whose ``gpu_energy`` maps GPU index to
    joules) over a board of known power: the CPU-side check of the Zeus path."""

    def __init__(self, watts: float, gpu_index: int = 0) -> None:
        self.counter, self.gpu, self.open = ConstantPowerCounter(watts), gpu_index, {}
        self.synced = []

    def begin_window(self, key, sync_execution=True):
        assert key not in self.open
        self.synced.append(sync_execution)
        self.open[key] = self.counter()

    def end_window(self, key, sync_execution=True):
        from types import SimpleNamespace

        self.synced.append(sync_execution)
        return SimpleNamespace(gpu_energy={self.gpu: (self.counter() - self.open.pop(key)) / 1e3})


METERS = {"nvml": lambda watts: NvmlMeter(ConstantPowerCounter(watts)),
          "zeus": lambda watts: ZeusMeter(FakeZeusMonitor(watts))}


@pytest.mark.parametrize("meter", list(METERS))
def test_energy_window_recovers_a_known_power(meter):
    iterations = []
    prepared = Prepared(step=lambda: (time.sleep(0.004), iterations.append(1)))
    out = energy_window(prepared, METERS[meter](250.0), min_window_s=0.2, synchronize=lambda: None)
    assert out["energy_meter"] == meter
    assert out["energy_window_s"] >= 0.2 and out["energy_window_runs"] == len(iterations) >= 10
    assert out["power_w"] == pytest.approx(250.0, rel=0.05)
    # energy of one iteration = power x the window's mean iteration time
    assert out["energy_j"] == pytest.approx(250.0 * out["energy_window_s"] / out["energy_window_runs"], rel=0.05)


@pytest.mark.parametrize("meter", [NvmlMeter(lambda: None), NvmlMeter(lambda: 1000.0), ZeusMeter(FakeZeusMonitor(0.0)),
                                   ZeusMeter(FakeZeusMonitor(250.0, gpu_index=1))])
def test_energy_window_without_a_working_meter_is_empty(meter):
    """No counter, a counter that does not advance, a window of no energy, another GPU's reading."""
    prepared = Prepared(step=lambda: None)
    assert energy_window(prepared, meter, min_window_s=0.01, synchronize=lambda: None) == {}


def test_zeus_is_not_asked_to_synchronise():
    """The window synchronises the device itself, for both meters alike."""
    monitor = FakeZeusMonitor(100.0)
    energy_window(Prepared(step=lambda: None), ZeusMeter(monitor), min_window_s=0.01, synchronize=lambda: None)
    assert monitor.synced == [False, False]


def _no_zeus(gpu_index):
    raise ModuleNotFoundError("No module named 'zeus'")


def test_meter_choice_prefers_zeus_and_falls_back_to_nvml(monkeypatch):
    monkeypatch.delenv("PERFGRAPHS_ENERGY_METER", raising=False)
    assert gpu_energy_meter(make_zeus=lambda i: FakeZeusMonitor(1.0, i)).name == "zeus"
    assert gpu_energy_meter(make_zeus=_no_zeus).name == "nvml"  # not installed, or no GPU for it
    assert gpu_energy_meter(choice="nvml", make_zeus=lambda i: FakeZeusMonitor(1.0, i)).name == "nvml"
    monkeypatch.setenv("PERFGRAPHS_ENERGY_METER", "nvml")
    assert gpu_energy_meter(make_zeus=lambda i: FakeZeusMonitor(1.0, i)).name == "nvml"
    # asked for by name, a meter that cannot run is an error, never a silent other meter
    with pytest.raises(EnergyMeterError, match="zeus energy meter cannot run here: ModuleNotFoundError"):
        gpu_energy_meter(choice="zeus", make_zeus=_no_zeus)
    with pytest.raises(EnergyMeterError, match="choose zeus, nvml or auto"):
        gpu_energy_meter(choice="rapl")


def test_meter_comparison_script_says_when_zeus_cannot_run(capsys):
    """The GPU-loan comparison (plans/compare-energy-meters.py): its configurations are the GPU
    plan's, and on a machine where Zeus cannot run it stops with one line, exit 3."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("compare_energy_meters", REPO / "plans" / "compare-energy-meters.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    planned = {(c.model, c.image_size, c.batch_size) for c in load_plan(REPO / "plans" / "dippm-cuda.yaml").configs}
    assert set(script.CONFIGS) <= planned
    try:
        import zeus.monitor  # noqa: F401
        pytest.skip("zeus is installed here: the script would measure")
    except Exception:
        pass
    assert script.main([]) == 3
    assert "zeus energy meter cannot run here" in capsys.readouterr().err


def test_old_shards_read_the_energy_meter_as_null():
    from perfgraphs.collect.schema import ADDED_COLUMNS, COLUMN_NAMES

    assert "energy_meter" in COLUMN_NAMES and "energy_meter" in ADDED_COLUMNS
    if H200.exists():  # the first loan's rows were measured before the column: NVML, read as null
        rows = load_measurements(H200).to_pylist()
        assert {r["energy_meter"] for r in rows if r["measured_at_utc"] < "2026-11-27"} == {None}
        assert {r["energy_meter"] for r in rows} <= {None, "nvml", "zeus"}


def test_graph_facts_are_reused_from_another_suite(tmp_path):
    cpu = load_measurements(REPO / "data" / "measurements" / "dippm-cpu").to_pylist()
    with_graph = next(r for r in cpu if r["structure_hash"])
    graphs = known_graphs(MeasurementStore(tmp_path / "empty"), (REPO / "data" / "measurements" / "dippm-cpu",))
    assert graphs[(with_graph["model"], with_graph["input"])]["structure_hash"] == with_graph["structure_hash"]
    # the campaign's own store wins over a source
    own = MeasurementStore(tmp_path / "own")
    own.append({"key": "k", "measurement_id": "m", "platform": "cuda-torch-fp32", "status": "ok",
                "measured_at_utc": "2026-01-01T00:00:00+00:00", "model": with_graph["model"],
                "input": with_graph["input"], "structure_hash": "f" * 64, "graph_gmacs_per_sample": 1.0})
    graphs = known_graphs(own, (REPO / "data" / "measurements" / "dippm-cpu",))
    assert graphs[(with_graph["model"], with_graph["input"])]["structure_hash"] == "f" * 64


def test_graphs_from_a_missing_store_is_a_one_line_error(tmp_path, capsys):
    from perfgraphs.cli import main

    out = tmp_path / "out"
    code = main(["collect", str(REPO / "plans" / "tiny.yaml"), "--out", str(out), "--graphs-from",
                 str(tmp_path / "nowhere"), "--core", "0"])
    err = capsys.readouterr().err.strip()
    assert code != 0 and len(err.splitlines()) == 1 and "no measurement store" in err
    assert not MeasurementStore(out).files()


def test_gpu_plan_mirrors_the_cpu_plan():
    cpu, gpu = load_plan(REPO / "plans" / "dippm-cpu.yaml"), load_plan(REPO / "plans" / "dippm-cuda.yaml")
    same = lambda plan: sorted((c.family, c.model, c.image_size, c.batch_size) for c in plan.configs)
    assert same(gpu) == same(cpu) and len(gpu.configs) == 2297
    assert {c.platform for c in gpu.configs} == {"cuda-torch-fp32"}
    assert {(c.protocol.warmup_runs, c.protocol.timed_runs, c.protocol.timed_budget_s) for c in gpu.configs} == {(5, 30, None)}
    # the generator reproduces the committed plan's configurations
    import yaml

    from perfgraphs.collect.plan import parse_plan
    from perfgraphs.collect.plangen_cuda import build

    assert sorted(c.key for c in parse_plan(build(), "g").configs) == sorted(c.key for c in gpu.configs)
    # the cost model assumes a GPU for a GPU configuration: far less per iteration than a CPU core
    big = max(gpu.configs, key=lambda c: (c.gmacs_per_sample or 0) * c.batch_size)
    twin = next(c for c in cpu.configs if (c.model, c.image_size, c.batch_size) == (big.model, big.image_size, big.batch_size))
    assert estimate_seconds(big) < estimate_seconds(twin) / 5


@pytest.mark.skipif(not H200.exists(), reason="no committed H200 measurements in this checkout")
def test_committed_gpu_rows_agree_with_their_raw_runs():
    rows = load_measurements(H200).to_pylist()
    assert len(rows) >= 190 and {r["gpu_name"] for r in rows} == {"NVIDIA H200"}
    for r in rows:
        if r["status"] != "ok":
            continue
        runs = r["run_times_ms"]
        assert r["n_timed_runs"] == 30 == len(runs) and r["n_warmup_runs"] == 5  # DIPPM's protocol, exactly
        assert r["latency_median_ms"] == pytest.approx(statistics.median(runs))
        assert r["latency_mean_ms"] == pytest.approx(statistics.fmean(runs))
        # the energy window: >= 1 s of the same iterations, energy = power x mean iteration time
        assert r["energy_window_s"] >= 1.0 and r["energy_window_runs"] >= 1
        assert r["energy_j"] == pytest.approx(r["power_w"] * r["energy_window_s"] / r["energy_window_runs"])
        assert r["energy_per_sample_j"] == pytest.approx(r["energy_j"] / r["batch_size"])
        # an H200 draws between its idle floor and its 700 W limit
        assert 50 < r["power_w"] < 700
        assert r["peak_memory_mb"] > 0 and r["device"] == "cuda" and r["core"] is None


@pytest.mark.skipif(not H200.exists(), reason="no committed H200 measurements in this checkout")
def test_h200_config_labels_are_the_measured_values(tmp_path):
    import perfgraphs
    from perfgraphs.data.build import build_labeled_config
    from perfgraphs.pool.structures import structure_id
    from perfgraphs.registry import get_dataset

    ds = get_dataset("dippm")
    build_labeled_config(ds, ds.config("h200-torch-fp32"), home=tmp_path)
    built = perfgraphs.load_dataset("perfgraphs/dippm", config="h200-torch-fp32", home=tmp_path)
    measured = {(structure_id(r["model"], r["image_size"], None), r["batch_size"]): r
                for r in load_measurements(H200).to_pylist() if r["status"] == "ok"}
    seen = 0
    for part in built.values():
        for row in part:
            m = measured[(row["structure_id"], row["batch_size"])]
            assert row["latency_ms"] == pytest.approx(m["latency_median_ms"])
            assert row["energy_j"] == pytest.approx(m["energy_j"]) and row["peak_memory_mb"] == pytest.approx(m["peak_memory_mb"])
            assert row["y"] == [[pytest.approx(m["latency_median_ms"]), pytest.approx(m["peak_memory_mb"]),
                                 pytest.approx(m["energy_j"])]]
            assert row["gpu_name"] == "NVIDIA H200" and row["platform"] == "cuda-torch-fp32"
            seen += 1
    # every measured configuration whose structure is in the committed graph pool is labeled
    from perfgraphs import paths
    from perfgraphs.pool.graph_pool import GraphPool

    pooled = GraphPool(paths.graph_pool_dir()).rows()
    assert seen == sum(1 for sid, _ in measured if sid in pooled) >= 180
    # no structure in two parts
    parts = {name: {r["structure_hash"] for r in part} for name, part in built.items()}
    assert not (parts["train"] & parts["test"]) and not (parts["train"] & parts["validation"])
