"""What a build, a load and a verify report is exactly what is on disk (issue 13, findings 1 and 2).

Every test builds a tiny perfgraphs/dippm cpu-torch-fp32 config from real, committed data: the
measurements of one small structure per family (from ``tiny_labeled_sources``) at two batch
sizes (a build reads one store file per row: fewer rows, faster tests), and their graphs.
"""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from perfgraphs import paths
from perfgraphs.collect.store import MeasurementStore
from perfgraphs.data import build
from perfgraphs.data.build import build_labeled_config
from perfgraphs.data.recipes import dataset_input
from perfgraphs.pool.graph_pool import GraphPool
from perfgraphs.data.load import load_dataset
from perfgraphs.data.manifest import manifest_bytes, rows_digest, sealed, verify
from perfgraphs.errors import DatasetIntegrityError, PerfgraphsError, StaleDatasetError
from perfgraphs.registry import get_dataset

DS = get_dataset("dippm")
CFG = DS.config("cpu-torch-fp32")


def _store(folder: Path, rows: list[dict]) -> Path:
    store = MeasurementStore(folder)
    for r in rows:
        store.append(r)
    return folder


def _build(home: Path, store: Path, pool: Path, **kwargs) -> Path:
    return build_labeled_config(DS, CFG, pool=GraphPool(pool), home=home, measurements=store, **kwargs)


def _served(loaded) -> dict[str, pa.Table]:
    """What a caller of load_dataset gets, split by split, as Arrow tables copied into memory (a
    mapped table would change with the file under it, and the tests change files)."""
    return {split: _in_memory(rows.with_format("arrow")[:]) for split, rows in loaded.items()}


def _in_memory(table: pa.Table) -> pa.Table:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return pa.ipc.open_stream(sink.getvalue()).read_all()


def _on_disk(folder: Path) -> dict[str, pa.Table]:
    """What any Parquet reader of the folder gets (``datasets.load_dataset(folder)`` included)."""
    shards: dict[str, list[pa.Table]] = {}
    for path in sorted((folder / "data").glob("*.parquet")):
        shards.setdefault(path.name.split("-", 1)[0], []).append(pq.read_table(path))
    return {split: pa.concat_tables(tables) for split, tables in shards.items()}


def _same_rows(a: dict[str, pa.Table], b: dict[str, pa.Table]) -> bool:
    return set(a) == set(b) and all(a[s].equals(b[s]) for s in a)


@pytest.fixture(scope="module")
def sources(tiny_labeled_sources):
    """(rows, pool): per family one measured structure (its smallest input size) at its two
    smallest batch sizes; seven families, so every part of the 70/15/15 split has a structure."""
    rows, pool = tiny_labeled_sources
    structure = {}
    for r in sorted(rows, key=lambda r: (r["image_size"], r["model"])):
        structure.setdefault(r["family"], (r["model"], r["image_size"]))
    chosen = [r for r in rows if (r["model"], r["image_size"]) == structure[r["family"]]]
    batches: dict[str, list[int]] = {}
    for r in chosen:
        batches.setdefault(r["family"], []).append(r["batch_size"])
    return [r for r in chosen if r["batch_size"] in sorted(batches[r["family"]])[:2]], pool


@pytest.fixture
def built(sources, tmp_path):
    """A fresh build (home, folder, store, pool) and the rows load_dataset served from it."""
    rows, pool = sources
    store = _store(tmp_path / "measurements", rows)
    folder = _build(tmp_path / "home", store, pool)
    return tmp_path / "home", folder, store, pool, _served(load_dataset("dippm", CFG.name, home=tmp_path / "home"))


def _shard(folder: Path, split: str = "train") -> Path:
    return sorted((folder / "data").glob(f"{split}-*.parquet"))[0]


def _flip_bit(path: Path, bit: int) -> None:
    data = bytearray(path.read_bytes())
    data[bit // 8] ^= 1 << (bit % 8)
    path.write_bytes(bytes(data))


# -- finding 1: builds -------------------------------------------------------------------------------------
def test_rebuild_replaces_a_corrupted_shard(built):
    """A flipped byte followed by a rebuild: the rebuild writes the shard again (it used to keep
    the damaged file and hash it into a new manifest, so verify passed on changed labels)."""
    home, folder, store, pool, original = built
    shard = _shard(folder)
    pristine = shard.read_bytes()
    _flip_bit(shard, len(pristine) * 4)  # a bit in the middle of the file
    _build(home, store, pool)
    assert shard.read_bytes() == pristine
    verify(folder)
    assert _same_rows(_served(load_dataset("dippm", CFG.name, home=home)), original)


def test_rebuild_after_the_store_grows_serves_every_row(sources, tmp_path):
    """The store grows, the config is rebuilt: the manifest, verify and the loader all describe the
    grown store (a rebuild used to keep the old shards under a manifest of the new row counts)."""
    rows, pool = sources
    later = [r for r in rows if r["family"] == rows[0]["family"]]
    store = _store(tmp_path / "measurements", [r for r in rows if r not in later])
    home = tmp_path / "home"
    _build(home, store, pool)
    _store(store, later)
    folder = _build(home, store, pool)
    manifest = verify(folder)
    served = load_dataset("dippm", CFG.name, home=home)
    assert {s: len(v) for s, v in served.items()} == manifest["row_counts"]
    assert sum(manifest["row_counts"].values()) == len(rows)
    assert _same_rows(_served(served), _on_disk(folder))


def test_load_refuses_a_build_whose_store_grew(sources, tmp_path):
    """A config built from a given store is not rebuilt from the registry's sources behind the
    caller's back: once that store changes, the load is refused (it used to serve the old rows)."""
    rows, pool = sources
    store = _store(tmp_path / "measurements", rows[:-1])
    _build(tmp_path / "home", store, pool)
    # what a derived config (graph2text) records of this one: it must go stale with it
    derived_input = dataset_input(DS.name, CFG.name, tmp_path / "home")
    _store(store, rows[-1:])
    for build_allowed in (True, False):
        with pytest.raises(StaleDatasetError, match="measurements"):
            load_dataset("dippm", CFG.name, home=tmp_path / "home", build=build_allowed)
    assert dataset_input(DS.name, CFG.name, tmp_path / "home").digest != derived_input.digest


def test_load_refuses_a_build_whose_graph_pool_changed(sources, tmp_path):
    rows, pool = sources
    own_pool = tmp_path / "pool"
    shutil.copytree(pool, own_pool)
    _build(tmp_path / "home", _store(tmp_path / "measurements", rows), own_pool)
    shutil.copy(own_pool / "part-00000.parquet", own_pool / "part-00001.parquet")  # the pool grew
    with pytest.raises(StaleDatasetError, match="graph pool"):
        load_dataset("dippm", CFG.name, home=tmp_path / "home")


def test_load_rebuilds_a_registry_config_when_its_store_grows(sources, tmp_path, monkeypatch):
    """For the registry's own sources (here pointed at a growing store), load_dataset rebuilds the
    dippm config once the store changes, and only then."""
    rows, pool = sources
    store = _store(tmp_path / "measurements", rows[:-1])
    monkeypatch.setattr(paths, "graph_pool_dir", lambda: pool)  # these folders are "the checkout's"
    monkeypatch.setattr(build, "measurement_root", lambda dataset, config: store)
    home = tmp_path / "home"
    first = load_dataset("dippm", CFG.name, home=home)
    folder = build.dataset_folder(DS, CFG, home)
    inode = folder.stat().st_ino
    assert sum(len(v) for v in first.values()) == len(rows) - 1
    load_dataset("dippm", CFG.name, home=home)
    assert folder.stat().st_ino == inode  # unchanged sources: no rebuild
    _store(store, rows[-1:])
    with pytest.raises(StaleDatasetError, match="changed"):
        load_dataset("dippm", CFG.name, home=home, build=False)
    grown = load_dataset("dippm", CFG.name, home=home)
    assert sum(len(v) for v in grown.values()) == len(rows)
    assert _same_rows(_served(grown), _on_disk(folder))


def test_a_stray_shard_fails_verify_and_is_never_adopted(built, monkeypatch, capsys):
    """An extra ``train-00001-of-00002.parquet`` doubles the rows any folder reader serves: verify
    and load_dataset refuse it, and a rebuild drops it (it used to be hashed into the manifest)."""
    home, folder, store, pool, original = built
    stray = folder / "data" / "train-00001-of-00002.parquet"
    shutil.copy(_shard(folder), stray)
    with pytest.raises(DatasetIntegrityError, match=stray.name):
        verify(folder)
    with pytest.raises(DatasetIntegrityError, match=stray.name):
        load_dataset("dippm", CFG.name, home=home)
    from perfgraphs.cli import main

    monkeypatch.setenv("PERFGRAPHS_HOME", str(home))
    assert main(["datasets", "verify", "dippm", "--config", CFG.name]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("perfgraphs: error:") and stray.name in err
    _build(home, store, pool)
    assert not stray.exists()
    verify(folder)
    assert _same_rows(_on_disk(folder), original)
    assert main(["datasets", "verify", "dippm", "--config", CFG.name]) == 0
    assert capsys.readouterr().out.startswith("ok: ")


def test_verify_checks_the_rows_not_only_the_bytes(built):
    """A manifest that hashes a shard correctly but records other rows (a wrong build, or an edit
    that re-sealed the manifest) is caught by decoding the rows."""
    _, folder, _, _, original = built
    manifest = json.loads((folder / "manifest.json").read_text())
    train = manifest["splits"]["train"]
    train["rows"] += 1
    manifest["row_counts"]["train"] += 1
    (folder / "manifest.json").write_bytes(manifest_bytes(sealed({k: v for k, v in manifest.items()
                                                                  if k != "manifest_sha256"})))
    with pytest.raises(DatasetIntegrityError, match="rows"):
        verify(folder)
    train["rows"] -= 1
    manifest["row_counts"]["train"] -= 1
    train["rows_sha256"] = rows_digest(original["train"].slice(1))  # another set of rows, same bytes
    (folder / "manifest.json").write_bytes(manifest_bytes(sealed({k: v for k, v in manifest.items()
                                                                  if k != "manifest_sha256"})))
    with pytest.raises(DatasetIntegrityError, match="rows of split 'train' differ"):
        verify(folder)


def test_a_failed_build_keeps_the_previous_build_and_leaves_nothing(built):
    home, folder, store, pool, original = built

    def interrupt(done, total):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _build(home, store, pool, on_progress=interrupt)
    verify(folder)
    assert _same_rows(_served(load_dataset("dippm", CFG.name, home=home)), original)
    assert not [p for p in folder.parent.iterdir() if ".building-" in p.name]


# -- finding 2: what load_dataset serves ---------------------------------------------------------------
def _arrow_files(home: Path) -> list[Path]:
    """Every Arrow file a load left under the dataset's version folder (the served copies)."""
    return sorted(build.dataset_folder(DS, CFG, home).parent.rglob("*.arrow"))


def test_a_flipped_bit_in_the_arrow_cache_is_never_served(built):
    """The issue's case: the lowest exponent bit of a training latency flipped in the Arrow file
    the loader maps (7.54 ms read as 3.77 ms while verify said ok)."""
    home, _, _, _, original = built
    latency = original["train"].column("latency_ms")[0].as_py()
    pattern = struct.pack("<d", latency)
    flipped = 0
    for path in _arrow_files(home):
        data = bytearray(path.read_bytes())
        at = data.find(pattern)
        while at >= 0:
            data[at + 6] ^= 0x10  # bit 52: halves or doubles the value
            flipped += 1
            at = data.find(pattern, at + 1)
        path.write_bytes(bytes(data))
    assert flipped, "the latency's bytes are in no Arrow file: the test would prove nothing"
    assert _same_rows(_served(load_dataset("dippm", CFG.name, home=home)), original)


# -- property: any flipped bit in any file is detected or harmless ----------------------------------------
FILE_KINDS = {
    "parquet shard": lambda folder, home: sorted((folder / "data").glob("*.parquet")),
    "manifest": lambda folder, home: [folder / "manifest.json"],
    "arrow cache": lambda folder, home: _arrow_files(home),
    "arrow cache checksum": lambda folder, home: sorted(p for p in folder.parent.rglob("*.json")
                                                        if p.parent != folder),
}


@pytest.fixture(scope="module")
def pristine(sources, tmp_path_factory):
    """A built, loaded home (so the Arrow cache exists), the rows it serves, and the bytes of every
    file in it: each example damages the home in place (a copy elsewhere would not be the cache
    the loader keys to these paths) and is undone from these bytes."""
    rows, pool = sources
    root = tmp_path_factory.mktemp("pristine")
    store = _store(root / "measurements", rows)
    _build(root / "home", store, pool)
    served = _served(load_dataset("dippm", CFG.name, home=root / "home"))
    return root / "home", served, {p: p.read_bytes() for p in (root / "home").rglob("*") if p.is_file()}


def _restore(home: Path, files: dict[Path, bytes]) -> None:
    for path in [p for p in home.rglob("*") if p.is_file() and p not in files]:
        path.unlink()
    for path, data in files.items():
        if not path.exists() or path.read_bytes() != data:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)


@pytest.mark.parametrize("kind", sorted(FILE_KINDS))
@settings(max_examples=15, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_bit_flips_are_detected_or_harmless(pristine, kind, data):
    home, original, files = pristine
    folder = build.dataset_folder(DS, CFG, home)
    candidates = FILE_KINDS[kind](folder, home)
    assert candidates, f"no {kind} file to damage"
    victim = data.draw(st.sampled_from(candidates), label="file")
    bit = data.draw(st.integers(0, victim.stat().st_size * 8 - 1), label="bit")
    _flip_bit(victim, bit)
    try:
        try:
            verify(folder)
            assert _same_rows(_on_disk(folder), original), f"verify passed on changed rows ({victim.name} bit {bit})"
        except PerfgraphsError:
            pass
        try:
            served = _served(load_dataset("dippm", CFG.name, home=home, build=False))
        except PerfgraphsError:
            assert kind in ("parquet shard", "manifest"), "a damaged cache must be rebuilt, not fatal"
            return
        assert _same_rows(served, original), f"load_dataset served changed rows ({victim.name} bit {bit})"
    finally:
        _restore(home, files)
