"""A CPU-time config end to end: a real (tiny) campaign in two rounds joined to its graphs; labels
are the mean of the rounds, a configuration with one round is not in the build yet, the floor
note reads the rounds, and ``collect verify`` refuses a store that mixes machines."""

from __future__ import annotations

import statistics
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from perfgraphs.atomic import atomic_write_table
from perfgraphs.collect.store import MeasurementStore
from perfgraphs.collect.schema import to_table
from perfgraphs.data.build import build_labeled_config
from perfgraphs.pool.graph_pool import GraphPool
from perfgraphs.registry import get_dataset

REPO = Path(__file__).resolve().parents[1]
# the gate's verdicts depend on how busy the test machine is: recorded, but no re-queues or flags
# here (tests/test_cputime_protocol.py tests the gate; a flagged row is made by hand below)
PROTOCOL = {"name": "tiny-cputime", "warmup_runs": 1, "timed_runs": 3, "quiet_gate": False, "probe_each_run": False}
GROUPS = [{"family": f, "models": [m], "input_sizes": [64], "batch_sizes": [1]} for f, m in (
    ("resnet", "timm:resnet10t"), ("squeezenet", "torchvision:squeezenet1_1"),
    ("mobilenet", "timm:mobilenetv3_small_050"), ("mnasnet", "timm:mnasnet_small"),
    ("lcnet", "timm:lcnet_050"), ("shufflenet", "torchvision:shufflenet_v2_x0_5"))]


def collect(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "perfgraphs", "collect", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    out = tmp_path_factory.mktemp("measurements")
    plan = out.parent / "rounds-plan.yaml"
    plan.write_text(yaml.safe_dump({"suite": "rounds-test", "mode": "inference", "protocol": PROTOCOL,
                                    "platforms": ["cpu-torch-fp32"], "timeout_s": 120, "rounds": 2,
                                    "groups": GROUPS}))
    # 11 of 12 measurements: the last configuration of the block has its first round only
    result = collect(str(plan), "--out", str(out), "--core", "0", "--quiet-wait", "0", "--limit", "11")
    assert result.returncode == 0, result.stderr
    return out


def test_build_takes_configurations_with_both_rounds(campaign, tmp_path):
    import shutil

    import datasets

    from perfgraphs.data.manifest import read_manifest

    store = MeasurementStore(campaign)
    rounds = store.round_rows()
    assert len(rounds) == 11 and {r["round"] for r in rounds} == {1, 2}
    labels = {r["key"]: r for r in store.read().to_pylist()}
    twice = {k: r for k, r in labels.items() if r["n_rounds"] == 2}
    assert len(labels) == 6 and len(twice) == 5
    for key, label in twice.items():
        mine = sorted(r["cpu_time_ms"] for r in rounds if r["key"] == key)
        assert label["cpu_time_ms"] == pytest.approx(statistics.median(mine))
        assert label["cpu_time_round_spread"] == pytest.approx((mine[1] - mine[0]) / statistics.median(mine))
    ds = get_dataset("dippm")
    cfg = next(c for c in ds.configs if c.min_rounds > 1)
    pool = GraphPool(tmp_path / "pool")
    pool.ensure(sorted({(r["family"], r["model"], r["image_size"]) for r in labels.values()}))
    # one configuration's second round measured again later and flagged by the gate: its label is
    # flagged, and the build leaves it out
    copy = tmp_path / "measurements"
    shutil.copytree(campaign, copy)
    flagged_key = sorted(twice)[0]
    again = next(r for r in rounds if r["key"] == flagged_key and r["round"] == 2)
    again.update(measurement_id="e" * 32, gate_flagged=True, gate_reason="probe drift +40 %",
                 measured_at_utc="2099-01-01T00:00:00+00:00")
    atomic_write_table(to_table([again]), copy / again["platform"] / "parts" / f"{flagged_key}-eeeeeeee.parquet")
    folder = build_labeled_config(ds, cfg, pool=pool, home=tmp_path, measurements=copy)
    manifest = read_manifest(folder)
    assert manifest["measurements_with_too_few_rounds"] == 1 and manifest["measurements_flagged_by_gate"] == 1
    clean = {k: r for k, r in twice.items() if k != flagged_key}
    rows = [r for split in datasets.load_dataset(str(folder)).values() for r in split]
    assert len(rows) == len(clean) == 4
    for row in rows:
        label = next(r for r in clean.values() if r["model"] == row["source"])
        assert row["cpu_time_ms"] == label["cpu_time_ms"] and row["n_rounds"] == 2
        assert row["y"] == [[label["cpu_time_ms"], label["latency_median_ms"], label["peak_memory_mb"]]]
        assert len(row["round_cpu_time_ms"]) == 2 and row["machine_id"] == label["machine_id"]


def test_floor_note_reads_the_rounds(campaign, monkeypatch):
    from perfgraphs.evaluation import label_noise
    from perfgraphs.registry import task
    from perfgraphs.collect.floor import store_floor
    from perfgraphs.data import build

    monkeypatch.setattr(build, "measurement_root", lambda ds, cfg: campaign)
    floors = store_floor(campaign)
    note = label_noise.noise_floor_note(task("dippm", "amd-epyc-23059b2f-torch-fp32", "cpu_time_ms"))
    assert f"{floors['cpu_time_ms'].mape_pct:.1f} % MAPE" in note
    assert f"all {floors['cpu_time_ms'].n_configs} configurations measured twice" in note
    assert f"wall clock on the same rounds: {floors['latency_ms'].mape_pct:.1f} %" in note
    verify = collect("verify", str(campaign))
    assert verify.returncode == 0
    assert f"configurations with two or more ok rounds: {floors['cpu_time_ms'].n_configs} " in verify.stdout


def test_verify_refuses_a_store_mixing_machines(campaign, tmp_path):
    import shutil

    copy = tmp_path / "mixed"
    shutil.copytree(campaign, copy)
    row = MeasurementStore(copy).read(latest=False).to_pylist()[0]
    # written past the store's own check, as a bad copy or a hand edit would
    row.update(measurement_id="f" * 32, machine_id="0" * 16, cpu_model="Intel Xeon")
    atomic_write_table(to_table([row]), copy / row["platform"] / "parts" / f"{row['key']}-ffffffff.parquet")
    result = collect("verify", str(copy))
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "mixes rows of 2 machines" in result.stderr and len(result.stderr.strip().splitlines()) == 1
