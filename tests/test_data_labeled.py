"""A labeled config end to end: a real (tiny) measurement campaign joined to its graphs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from perfgraphs.collect.store import load_measurements
from perfgraphs.data.build import build_labeled_config
from perfgraphs.data.graph_pool import GraphPool
from perfgraphs.errors import PerfgraphsError
from perfgraphs.registry import get_dataset

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    out = tmp_path_factory.mktemp("measurements")
    result = subprocess.run([sys.executable, "-m", "perfgraphs", "collect", "plans/tiny.yaml", "--out", str(out),
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
    pool.ensure(sorted({(r["family"], r["model"], r["image_size"]) for r in measured}))
    folder = build_labeled_config(ds, cfg, pool=pool, home=tmp_path, measurements=campaign)
    rows = [r for split in datasets.load_dataset(str(folder)).values() for r in split]
    assert len(rows) == len(measured) == 5
    by_key = {(r["model"], r["image_size"], r["batch_size"]): r for r in measured}
    for row in rows:
        m = by_key[(row["source"], row["img_size"], row["batch_size"])]
        assert row["latency_ms"] == m["latency_median_ms"]
        assert row["y"] == [[m["latency_median_ms"], m["latency_calibrated_ms"], m["peak_memory_mb"]]]
        assert row["run_times_ms"] == m["run_times_ms"] and row["n_timed_runs"] == 3
        assert row["platform"] == "cpu-torch-fp32" and row["energy_j"] is None  # no RAPL: null, not estimated
        # the graph is the one measured: same batch, same input size
        assert row["input_dims"][0] == [row["batch_size"], 3, 64, 64]
