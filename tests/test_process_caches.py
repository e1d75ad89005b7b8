"""The two process caches that keep the boards fast (issue 31's suite time) give the same answers as
no cache: a store's repetitions are read again once the store holds other files, and a label scan's
index is built again for other label arrays. Each with its control: the same state is not read twice."""

from __future__ import annotations

import uuid

import numpy as np

from perfgraphs.collect.store import MeasurementStore
from perfgraphs.data import repeats
from perfgraphs.leaderboard.label_scan import LabelArray, label_index, scan_submission


def _row(key: str) -> dict:
    return {"key": key, "measurement_id": uuid.uuid4().hex, "platform": "cpu-torch-fp32", "status": "ok",
            "measured_at_utc": "2026-01-01T00:00:00+00:00", "model": "timm:x", "input": "3,8,8",
            "run_times_ms": [1.0, 2.0], "latency_median_ms": 1.5}


def test_a_store_is_read_again_once_it_holds_other_files(tmp_path):
    store = MeasurementStore(tmp_path / "store")
    store.save_metadata({})
    store.append(_row("k1"))
    reads = []

    def keys() -> list[str]:
        reads.append(1)
        return sorted(r["key"] for r in store.read(latest=False).to_pylist())

    what = ("keys", str(uuid.uuid4()))  # this test's own entry, whatever else the process cached
    assert repeats._by_store_state(store, what, keys) == ["k1"]
    # control: the same state is answered from the cache
    assert repeats._by_store_state(MeasurementStore(tmp_path / "store"), what, keys) == ["k1"] and len(reads) == 1
    store.append(_row("k2"))  # a campaign wrote a part
    assert repeats._by_store_state(store, what, keys) == ["k1", "k2"] and len(reads) == 2
    store.compact()  # the parts become one shard: the same rows under new file names
    assert repeats._by_store_state(store, what, keys) == ["k1", "k2"] and len(reads) == 3
    # another store in the same state (same listing, its own root) is its own entry
    other = MeasurementStore(tmp_path / "other")
    other.save_metadata({})
    assert repeats._by_store_state(other, what, lambda: ["other's"]) == ["other's"]


def test_other_label_arrays_get_their_own_index(tmp_path):
    labels = np.round(np.random.default_rng(3).uniform(10, 90, 40), 3)
    moved = labels.copy()
    moved[:20] += 0.5  # half the labels differ
    first = label_index([LabelArray("labels", labels)])
    # control: equal arrays (new objects) are the same index
    assert label_index([LabelArray("labels", labels.copy())]) is first
    assert label_index([LabelArray("labels", moved)]) is not first
    assert label_index([LabelArray("renamed", labels)]) is not first  # a refusal names its array
    # what the scan finds follows the arrays it is given, not the first index the process built
    (tmp_path / "table.txt").write_text("\n".join(f"{v:.3f}" for v in moved[:20]))
    assert scan_submission(tmp_path, [LabelArray("labels", labels)]) == []
    found = scan_submission(tmp_path, [LabelArray("labels", moved)])
    assert len(found) == 1 and "table.txt" in found[0]
