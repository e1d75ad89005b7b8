"""A labeled config end to end: a real (tiny) measurement campaign joined to its graphs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from perfgraphs.collect.store import load_measurements
from perfgraphs.data.build import build_labeled_config
from perfgraphs.pool.graph_pool import GraphPool
from perfgraphs.errors import PerfgraphsError
from perfgraphs.registry import get_dataset

REPO = Path(__file__).resolve().parents[1]


# Six small architectures (six structure groups, so every part of a 70/15/15 split is non-empty).
PLAN = """
suite: labeled-test
mode: inference
protocol: tiny
platforms: [cpu-torch-fp32]
timeout_s: 120
groups:
  - {family: resnet, models: [timm:resnet10t], input_sizes: [64], batch_sizes: [1, 2]}
  - {family: squeezenet, models: [torchvision:squeezenet1_1], input_sizes: [64], batch_sizes: [1]}
  - {family: mobilenet, models: [timm:mobilenetv3_small_050], input_sizes: [64], batch_sizes: [1]}
  - {family: mnasnet, models: [timm:mnasnet_small], input_sizes: [64], batch_sizes: [1]}
  - {family: lcnet, models: [timm:lcnet_050], input_sizes: [64], batch_sizes: [1]}
  - {family: shufflenet, models: [torchvision:shufflenet_v2_x0_5], input_sizes: [64], batch_sizes: [1]}
"""


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    out = tmp_path_factory.mktemp("measurements")
    plan = out.parent / "labeled-plan.yaml"
    plan.write_text(PLAN)
    result = subprocess.run([sys.executable, "-m", "perfgraphs", "collect", str(plan), "--out", str(out),
                             "--core", "0"], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    return out


def test_labels_are_the_measured_statistics(campaign, tmp_path):
    import datasets

    ds = get_dataset("dippm")
    cfg = ds.config("cpu-torch-fp32")
    pool = GraphPool(tmp_path / "pool")
    with pytest.raises(PerfgraphsError, match="build-pool --measured"):
        build_labeled_config(ds, cfg, pool=pool, home=tmp_path, measurements=campaign)
    measured = [r for r in load_measurements(campaign).to_pylist() if r["status"] == "ok"]
    items = sorted({(r["family"], r["model"], r["image_size"]) for r in measured})
    pool.ensure(items[:-1])  # one structure missing: its measurement is left out and counted
    partial = build_labeled_config(ds, cfg, pool=pool, home=tmp_path / "partial", measurements=campaign)
    from perfgraphs.data.manifest import read_manifest

    manifest = read_manifest(partial)
    assert manifest["measurements_without_graph"] == 1
    assert sum(manifest["row_counts"].values()) == len(measured) - sum(
        1 for r in measured if (r["family"], r["model"], r["image_size"]) == items[-1])
    pool.ensure(items)
    folder = build_labeled_config(ds, cfg, pool=pool, home=tmp_path, measurements=campaign)
    rows = [r for split in datasets.load_dataset(str(folder)).values() for r in split]
    assert len(rows) == len(measured) == 7
    by_key = {(r["model"], r["image_size"], r["batch_size"]): r for r in measured}
    for row in rows:
        m = by_key[(row["source"], row["img_size"], row["batch_size"])]
        assert row["latency_ms"] == m["latency_median_ms"]
        assert row["y"] == [[m["latency_median_ms"], m["latency_calibrated_ms"], m["peak_memory_mb"]]]
        assert row["run_times_ms"] == m["run_times_ms"] and row["n_timed_runs"] == 3
        assert row["platform"] == "cpu-torch-fp32" and row["energy_j"] is None  # no RAPL: null, not estimated
        # the graph is the one measured: same batch, same input size
        assert row["input_dims"][0] == [row["batch_size"], 3, 64, 64]


def test_benchmark_runner_scores_and_logs_to_mlflow(campaign, tmp_path):
    import mlflow
    import numpy as np

    from perfgraphs.leaderboard.runner import RunSpec, run_benchmark
    from perfgraphs.data.load import load_dataset

    ds = get_dataset("dippm")
    cfg = ds.config("cpu-torch-fp32")
    pool = GraphPool(tmp_path / "pool")
    measured = [r for r in load_measurements(campaign).to_pylist() if r["status"] == "ok"]
    pool.ensure(sorted({(r["family"], r["model"], r["image_size"]) for r in measured}))
    build_labeled_config(ds, cfg, pool=pool, home=tmp_path, measurements=campaign)
    data = load_dataset("dippm", "cpu-torch-fp32", home=tmp_path)
    sizes = {k: len(v) for k, v in data.items()}
    assert set(sizes) == {"train", "validation", "test"} and sum(sizes.values()) == 7 and min(sizes.values()) >= 1
    spec = RunSpec("dippm", "cpu-torch-fp32", "latency_ms", "static-xgboost", seeds=(0, 1), quick=True)
    result = run_benchmark(spec, home=tmp_path)
    y_true = np.asarray(data["test"]["latency_ms"])
    for scores in result.per_seed:
        y_pred = np.asarray(scores["y_pred"])
        assert scores["mape_pct"] == pytest.approx(np.mean(np.abs(y_true - y_pred) / y_true) * 100)
    # same seed, same metrics (tree model: within 1e-6)
    again = run_benchmark(spec, home=tmp_path, log=False)
    assert again.per_seed[0]["mape_pct"] == pytest.approx(result.per_seed[0]["mape_pct"], rel=1e-6)
    mlflow.set_tracking_uri(f"sqlite:///{tmp_path / 'mlflow.db'}")
    runs = mlflow.search_runs(experiment_names=["perfgraphs/dippm/cpu-torch-fp32/latency_ms"], output_format="list")
    assert len(runs) == 1
    run = runs[0]
    assert run.data.params["baseline"] == "static-xgboost" and run.data.tags["run_identity"] == spec.identity
    assert run.data.tags["dataset_content_hash"] and run.data.tags["git_commit"]
    assert run.data.metrics["mape_pct_mean"] == pytest.approx(np.mean([s["mape_pct"] for s in result.per_seed]))
    artifacts = {a.path for a in mlflow.MlflowClient().list_artifacts(run.info.run_id)}
    assert {"actual_vs_predicted.png", "per_family.md", "per_seed.json"} <= artifacts


TRAIN_PLAN = """
suite: labeled-train-test
mode: train
protocol: tiny
platforms: [cpu-torch-fp32]
timeout_s: 300
groups:
  - {family: mobilenet, models: [timm:mobilenetv3_small_050], input_sizes: [64], batch_sizes: [2]}
  - {family: mnasnet, models: [timm:mnasnet_small], input_sizes: [64], batch_sizes: [2]}
"""


def test_training_step_labels(tmp_path):
    """perfgraphs/trappm's targets are the step time and peak memory of a training-mode campaign."""
    import datasets

    out = tmp_path / "measurements"
    plan = tmp_path / "train-plan.yaml"
    plan.write_text(TRAIN_PLAN)
    result = subprocess.run([sys.executable, "-m", "perfgraphs", "collect", str(plan), "--out", str(out),
                             "--core", "0"], cwd=REPO, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr
    measured = [r for r in load_measurements(out).to_pylist() if r["status"] == "ok"]
    assert len(measured) == 2 and {r["mode"] for r in measured} == {"train"}
    pool = GraphPool(tmp_path / "pool")
    pool.ensure(sorted({(r["family"], r["model"], r["image_size"]) for r in measured}))
    ds = get_dataset("trappm")
    cfg = ds.config("cpu-torch-fp32")
    folder = build_labeled_config(ds, cfg, pool=pool, home=tmp_path, measurements=out)
    rows = [r for split in datasets.load_dataset(str(folder)).values() for r in split]
    by_model = {r["model"]: r for r in measured}
    assert len(rows) == 2
    for row in rows:
        m = by_model[row["source"]]
        assert row["step_time_ms"] == m["latency_median_ms"] > 0
        assert row["y"] == [[m["latency_median_ms"], m["peak_memory_mb"]]]
        assert row["input_dims"][0] == [2, 3, 64, 64]
    # an inference campaign cannot label a training config
    inference = tmp_path / "inference"
    (tmp_path / "inf.yaml").write_text(TRAIN_PLAN.replace("mode: train", "mode: inference").replace(
        "labeled-train-test", "labeled-inf-test"))
    result = subprocess.run([sys.executable, "-m", "perfgraphs", "collect", str(tmp_path / "inf.yaml"), "--out",
                             str(inference), "--core", "0"], cwd=REPO, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr
    with pytest.raises(PerfgraphsError, match="has no step_time_ms"):
        build_labeled_config(ds, cfg, pool=pool, home=tmp_path / "inf-home", measurements=inference)
