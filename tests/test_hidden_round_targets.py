"""A hidden round scores only the targets its probe of the machine put within the band.

A slow (or fast) day of a CPU VM moves latency and leaves peak memory where it was: the probe of
2026-12-05 11:14 UTC, 40 public configurations measured again, ran at 0.68x their labels' latency
and 0.99x their peak memory. Such a round is measured and scores memory only; `load_hidden`
refuses its latency board in one line naming the drift (`target_not_scored`), so no record of that
day's latency can be verified."""

from __future__ import annotations

import json
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from perfgraphs import paths
from perfgraphs.collect.floor import TARGET_COLUMNS
from perfgraphs.collect.host_speed import in_band
from perfgraphs.collect.store import MeasurementStore, load_measurements
from perfgraphs.leaderboard.records.hidden import (HiddenLabelsError, commit_hidden, definition_path, load_hidden,
                                                   target_not_scored)
from perfgraphs.registry import task

DATASET, CONFIG = "perfgraphs/dippm", "cpu-torch-fp32"


def _speed(latency: float, memory: float) -> dict:
    return {"about": "test probe", "measured": "2026-12-05T11:14:33+00:00 to 2026-12-05T11:21:13+00:00",
            "latency_ms": {"configurations": 40, "median_ratio": latency, "q1_ratio": latency - 0.1,
                           "q3_ratio": latency + 0.05},
            "peak_memory_mb": {"configurations": 40, "median_ratio": memory, "q1_ratio": memory - 0.02,
                               "q3_ratio": memory + 0.02},
            "within": [0.9, 1.1]}


def keeper_set(keeper, folder) -> str:
    """Three labelled rows in the dataset's row format written into a new ``keeper`` folder and
    committed in ``folder``: the set's sha256."""
    keeper.mkdir()
    rows = pa.table({"sample_id": ["a", "b", "c"], "family": ["resnet"] * 3, "structure_hash": ["h1", "h2", "h3"],
                     "name": ["timm:resnet26+layers=1x1x1x1"] * 3, "latency_ms": [10.0, 20.0, 30.0],
                     "peak_memory_mb": [100.0, 120.0, 140.0]})
    pq.write_table(rows, keeper / "dippm-cpu-torch-fp32.parquet")
    return commit_hidden(keeper, DATASET, CONFIG, root=folder).read_text().split()[0]


def _round(keeper, git_commitments, speed: dict) -> tuple[str, object]:
    """A committed hidden set (three rows in the dataset's row format) whose definition records ``speed``."""
    folder, commit = git_commitments
    sha = keeper_set(keeper, folder)
    definition_path(DATASET, CONFIG, folder).write_text(json.dumps(
        {"about": "test round", "sha256": sha, "architectures": ["timm:resnet26+layers=1x1x1x1"], "left_out": [],
         "measured": {"visits": 3, "configurations": 3, "host_speed": speed}}))
    commit()
    return sha, folder


def test_a_round_probed_at_068x_latency_scores_memory_only(tmp_path, git_commitments):
    sha, folder = _round(tmp_path / "keeper", git_commitments, _speed(0.68, 0.99))
    with pytest.raises(HiddenLabelsError) as refused:
        load_hidden(tmp_path / "keeper", task("dippm", CONFIG, "latency_ms"), root=folder)
    message = str(refused.value)
    assert "does not score latency_ms" in message and "0.68x" in message and "\n" not in message
    memory = load_hidden(tmp_path / "keeper", task("dippm", CONFIG, "peak_memory_mb"), root=folder)
    assert memory.sha256 == sha and memory.rows.num_rows == 3
    assert target_not_scored(DATASET, CONFIG, "peak_memory_mb", sha, folder) is None


def test_control_a_round_within_the_band_scores_both_targets(tmp_path, git_commitments):
    sha, folder = _round(tmp_path / "keeper", git_commitments, _speed(0.97, 1.0))
    for target in ("latency_ms", "peak_memory_mb"):
        assert load_hidden(tmp_path / "keeper", task("dippm", CONFIG, target), root=folder).sha256 == sha
        assert target_not_scored(DATASET, CONFIG, target, sha, folder) is None


def test_the_band_is_the_one_the_round_recorded_and_a_missing_probe_holds_nothing_back():
    speed = _speed(0.68, 0.99)
    assert in_band(speed, "latency_ms") is False and in_band(speed, "peak_memory_mb") is True
    assert in_band({**speed, "within": [0.6, 1.1]}, "latency_ms") is True  # a wider band, stated by the round
    # a band not stated as two finite numbers: the default (0.9-1.1), never "anything goes"
    assert in_band({**speed, "within": ["0", "9"]}, "latency_ms") is False
    assert in_band({**speed, "within": [float("nan"), 2]}, "latency_ms") is False
    # a GPU round has no probe: nothing to hold back; a ratio not a finite number is no probe either
    assert in_band({}, "latency_ms") is None and in_band(None, "latency_ms") is None
    assert in_band({"latency_ms": {"median_ratio": "0.68"}}, "latency_ms") is None


def _store(path, rows):
    store = MeasurementStore(path)
    for r in rows:
        store.append(r)
    return store.root


def test_the_probe_judges_each_target_and_refuses_only_a_day_with_none_in_band(tmp_path):
    """Probes at 0.62x latency / 1.0x memory: exit 0, a note that latency is not scored; at 0.62x /
    0.8x: exit 3, one line; both targets written into the round's host_speed block with the band."""
    table = load_measurements(paths.measurement_store("dippm-cpu"))
    rows = [r for r in table.slice(0, 200).to_pylist() if r["status"] == "ok"][:6]
    public = _store(tmp_path / "public", rows)
    lat, mem = TARGET_COLUMNS["latency_ms"], TARGET_COLUMNS["peak_memory_mb"]
    for name, (fl, fm), code in (("memory-day", (0.62, 1.0), 0), ("bad-day", (0.62, 0.8), 3)):
        probe = _store(tmp_path / name, [{**r, "round": v, lat: r[lat] * fl, mem: r[mem] * fm,
                                          "measurement_id": f"v{v}-{r['measurement_id']}",
                                          "measured_at_utc": f"2026-12-05T0{v}:00:00+00:00"}
                                         for r in rows for v in (1, 2)])
        out = tmp_path / f"{name}.json"
        run = subprocess.run([sys.executable, "-m", "perfgraphs.collect.host_speed", "ratio", str(probe),
                              "--public", str(public), "--target", "latency_ms", "peak_memory_mb",
                              "--out", str(out)], capture_output=True, text=True, timeout=120)
        assert run.returncode == code, run.stderr
        err = run.stderr.strip().splitlines()
        assert len(err) == 1 and ("scores only peak_memory_mb" in err[0] if code == 0 else "outside" in err[0]), err
        block = json.loads(out.read_text())["host_speed"]
        assert block["within"] == [0.9, 1.1]
        assert block["latency_ms"]["median_ratio"] == pytest.approx(fl)
        assert block["peak_memory_mb"]["median_ratio"] == pytest.approx(fm)
        assert in_band(block, "peak_memory_mb") is (code == 0)
