"""``perfgraphs collect verify`` and the store's reader: a store is exactly what its campaigns wrote.

Stores are made with the store's own API in tmp dirs (no measurement: verifying needs rows, not
timings); the committed stores under data/measurements are verified as they are.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import uuid
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from perfgraphs.cli import main
from perfgraphs.collect.errors import StoreError
from perfgraphs.collect.metafile import META
from perfgraphs.collect.schema import to_table
from perfgraphs.atomic import atomic_write_table
from perfgraphs.collect.store import MeasurementStore
from perfgraphs.collect.verify import verify_store

REPO = Path(__file__).resolve().parents[1]
PLATFORM = "cpu-torch-fp32"
COMMITTED = sorted(p.parent for p in (REPO / "data" / "measurements").glob(f"*/{META}"))


def row(i: int) -> dict:
    return {"key": f"k{i:03d}", "measurement_id": uuid.uuid4().hex, "platform": PLATFORM,
            "status": "ok" if i % 3 else "error", "measured_at_utc": f"2026-01-01T00:00:{i:02d}+00:00",
            "model": f"timm:m{i}", "input": "3,32,32", "batch_size": 1 + i, "run_times_ms": [1.0 + i, 2.5],
            "latency_median_ms": 1.75 + i, "peak_memory_mb": 10.0 * i}


def make_store(root: Path) -> MeasurementStore:
    """Two shards (2 rows each), one pending part, campaign.json and hardware.json: every kind of
    file a campaign writes, written the way a campaign writes them."""
    store = MeasurementStore(root)
    store.save_metadata({"suite": "t", "ref_baseline_ms": {"cpu": 20.0}, "runs": []})
    store.save_hardware(PLATFORM, {"peak_gflops_measured": 50.0, "machine_id": "abc"})
    rows = [row(i) for i in range(5)]
    for r in rows[:2]:
        store.append(r)
    store.compact()
    for r in rows[2:4]:
        store.append(r)
    store.compact()
    store.append(rows[4])
    return store


def canonical_rows(store: MeasurementStore) -> list[str]:
    """Every row, NaN-safe and order-free: what "exactly the original rows" compares."""
    return sorted(json.dumps(r, sort_keys=True) for r in store.read(latest=False).to_pylist())


def verify_cli(capsys, path) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["collect", "verify", str(path)])
    out = capsys.readouterr()
    return code, out.out, out.err


def shards(root: Path) -> list[Path]:
    return sorted((root / PLATFORM).glob("shard-*.parquet"))


def test_a_fresh_store_verifies_with_its_row_counts(tmp_path, capsys):
    store = make_store(tmp_path)
    inventory = store.inventory()
    assert sorted(inventory.shards) == [f"{PLATFORM}/{s.name}" for s in shards(tmp_path)]
    assert [r["rows"] for r in inventory.shards.values()] == [2, 2]
    code, out, err = verify_cli(capsys, tmp_path)
    assert code == 0, err
    assert "2 shards + 1 parts verified (sha256 and row counts against campaign.json), 5 rows" in out
    assert "note:" not in out


@pytest.mark.parametrize("root", COMMITTED, ids=[p.name for p in COMMITTED])
def test_the_committed_stores_verify_as_they_are(root):
    """Verifying writes nothing; a store written before campaign.json recorded shards is still
    verified file by file (legacy), a newer one against its inventory too."""
    before = {p: p.stat().st_mtime_ns for p in root.rglob("*")}
    report = verify_store(root)
    assert report.legacy == (MeasurementStore(root).inventory() is None) and report.rows > 0
    assert {p: p.stat().st_mtime_ns for p in root.rglob("*")} == before


def _rewrite_shard(shard: Path, keep: slice, change_first: bool = False) -> None:
    """Replace a shard by one with a matching sidecar (as a careless copy or a hand edit would)."""
    rows = pq.read_table(shard).to_pylist()[keep]
    if change_first:
        rows[0]["latency_median_ms"] = 0.7
    atomic_write_table(to_table(rows), shard)


def _edit_without_sidecar(shard: Path) -> None:
    """Change a shard's keys and drop its sidecar: nothing vouches for the bytes any more (the
    reader used to serve such a file as it was)."""
    Path(f"{shard}.sha256").unlink()
    table = pq.read_table(shard)
    pq.write_table(table.set_column(0, "key", pa.array([f"edited{i}" for i in range(table.num_rows)])), shard)


def _delete(*paths: Path) -> None:
    for p in paths:
        p.unlink()


def _flip_value(path: Path, old: bytes, new: bytes) -> None:
    data = path.read_bytes()
    assert old in data
    path.write_bytes(data.replace(old, new, 1))


DAMAGE = {
    # finding 3 of issue 13: each of these exited 0 with "N files verified"
    "deleted shard, sidecar remains": (lambda r: shards(r)[0].unlink(), "(2 rows) but missing"),
    "deleted shard and its sidecar": (lambda r: _delete(shards(r)[0], Path(f"{shards(r)[0]}.sha256")),
                                      "(2 rows) but missing"),
    "missing sidecar": (lambda r: _delete(Path(f"{shards(r)[1]}.sha256")), "no sha256 sidecar"),
    "missing part sidecar": (lambda r: _delete(*(r / PLATFORM / "parts").glob("*.sha256")), "no sha256 sidecar"),
    "changed value, no sidecar": (lambda r: _edit_without_sidecar(shards(r)[0]), "no sha256 sidecar"),
    "row count mismatch": (lambda r: _rewrite_shard(shards(r)[0], slice(0, 1)), "has 1 rows; "),
    "shard swapped, same rows": (lambda r: _rewrite_shard(shards(r)[0], slice(0, 2), change_first=True),
                                 "not the shard campaign.json records"),
    "stray shard": (lambda r: [shutil.copy(p, p.with_name(p.name.replace("shard-00000", "shard-00009")))
                               for p in (shards(r)[0], Path(f"{shards(r)[0]}.sha256"))],
                    "not recorded in"),
    "stray file": (lambda r: shutil.copy(shards(r)[0], r / PLATFORM / "train-00001-of-00002.parquet"),
                   "unexpected file"),
    "flipped digit in campaign.json": (lambda r: _flip_value(r / META, b'"cpu": 20.0', b'"cpu": 21.0'),
                                       "does not match the sha256 it carries"),
    "flipped digit in hardware.json": (lambda r: _flip_value(r / PLATFORM / "hardware.json", b"50.0", b"51.0"),
                                       "does not match the sha256 it carries"),
    "orphan part sidecar": (lambda r: next((r / PLATFORM / "parts").glob("*.parquet")).unlink(),
                            "sidecar without its file"),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_verify_refuses_a_damaged_store_in_one_line(tmp_path, capsys, damage):
    make_store(tmp_path)
    apply, message = DAMAGE[damage]
    apply(tmp_path)
    code, out, err = verify_cli(capsys, tmp_path)
    assert code == 2, (out, err)
    assert message in err and err.startswith("perfgraphs: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and out == ""


def test_the_reader_refuses_what_verify_refuses(tmp_path):
    """Datasets are built from load_measurements: it must not serve a store that lost a shard."""
    store = make_store(tmp_path)
    for p in (shards(tmp_path)[1], Path(f"{shards(tmp_path)[1]}.sha256")):
        p.unlink()
    with pytest.raises(StoreError, match="but missing"):
        store.read()


@pytest.mark.parametrize("path, message", [
    ("nope", "no measurement store at"),
    (PLATFORM, "it has no campaign.json; it looks like a platform folder of the store"),
    (f"{PLATFORM}/hardware.json", "is a file, not a measurement store"),
    ("../empty", "is not a measurement store: it has no campaign.json"),
])
def test_verify_needs_a_store_at_the_path(tmp_path, capsys, path, message):
    """A mistyped path used to verify "0 files" and exit 0."""
    make_store(tmp_path / "store")
    (tmp_path / "empty").mkdir()
    code, out, err = verify_cli(capsys, tmp_path / "store" / path)
    assert code == 2 and message in err and "Traceback" not in err, err


def test_crash_leftovers_are_notes_and_the_next_campaign_removes_them(tmp_path, capsys):
    """What a SIGKILL leaves between the steps of a write is not damage: a shard compacted but not
    yet recorded (its rows are still in parts), a temp file."""
    store = make_store(tmp_path)
    pending = [pq.read_table(p) for p in (tmp_path / PLATFORM / "parts").glob("*.parquet")]
    atomic_write_table(pending[0], tmp_path / PLATFORM / "shard-00002-20260101T000000.parquet")
    (tmp_path / PLATFORM / ".shard-00003-x.parquet.tmp-123").write_bytes(b"half")
    code, out, err = verify_cli(capsys, tmp_path)
    assert code == 0, err
    assert "leftover of an interrupted compaction" in out and "temp file of an interrupted write" in out
    assert store.remove_leftovers() == 3  # the shard, its sidecar, the temp file
    code, out, err = verify_cli(capsys, tmp_path)
    assert code == 0 and "note:" not in out and "5 rows" in out


def test_a_legacy_store_is_upgraded_without_touching_its_data(tmp_path):
    """The first campaign on a store written before the inventory records it (and checksums
    hardware.json); shards, parts and rows stay byte for byte what they were."""
    src = min(COMMITTED, key=lambda p: sum(f.stat().st_size for f in p.rglob("*")))
    root = tmp_path / src.name
    shutil.copytree(src, root)
    # the committed stores all record their shards now (`collect inventory`): take one back to
    # how it was written before the inventory, JSON files without their checksums
    for path in [root / META, *root.glob("*/hardware.json")]:
        body = {k: v for k, v in json.loads(path.read_text()).items() if k not in ("sha256", "store")}
        path.write_text(json.dumps(body, indent=2))
    data = {p: p.read_bytes() for p in root.rglob("*.parquet*")}
    store = MeasurementStore(root)
    rows = canonical_rows(store)
    assert store.inventory() is None and store.upgrade()
    assert store.inventory() is not None and not store.upgrade()
    assert {p: p.read_bytes() for p in root.rglob("*.parquet*")} == data
    assert canonical_rows(store) == rows
    report = verify_store(root)
    assert not report.legacy and report.rows == len(rows)
    assert json.loads((root / META).read_text())["runs"] == json.loads((src / META).read_text())["runs"]


# -- property: any flipped bit anywhere is detected, or changes nothing that is read ---------------
@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    root = tmp_path_factory.mktemp("pristine") / "store"
    store = make_store(root)
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    return root, files, canonical_rows(store)


# every file a store holds, by what it is (shard and part names carry timestamps and random ids)
TARGETS = {
    "campaign.json": lambda files: META,
    "hardware.json": lambda files: f"{PLATFORM}/hardware.json",
    "shard 0": lambda files: [f for f in files if "/shard-" in f][0],
    "shard 0 sidecar": lambda files: [f for f in files if "/shard-" in f][1],
    "shard 1": lambda files: [f for f in files if "/shard-" in f][2],
    "shard 1 sidecar": lambda files: [f for f in files if "/shard-" in f][3],
    "part": lambda files: [f for f in files if "/parts/" in f][0],
    "part sidecar": lambda files: [f for f in files if "/parts/" in f][1],
}


def test_the_property_below_covers_every_file(pristine):
    _, files, _ = pristine
    assert sorted(pick(files) for pick in TARGETS.values()) == files


@pytest.mark.parametrize("target", sorted(TARGETS))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_flipped_bits_or_a_lost_file_are_detected_or_harmless(pristine, target, data):
    """Random bits of one file flipped (or, one time in ten, the whole file lost): verify detects
    it, or the rows read back are exactly the original ones; and so does the reader, on which the
    datasets are built."""
    root, files, original = pristine
    name = TARGETS[target](files)
    size = (root / name).stat().st_size
    lose = data.draw(st.integers(0, 9)) == 0
    bits = [] if lose else data.draw(st.lists(st.integers(0, 8 * size - 1), min_size=1, max_size=3, unique=True))
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "store"
        shutil.copytree(root, copy)
        if lose:
            (copy / name).unlink()
        else:
            raw = bytearray((copy / name).read_bytes())
            for bit in bits:
                raw[bit // 8] ^= 1 << (bit % 8)
            (copy / name).write_bytes(bytes(raw))
        store = MeasurementStore(copy)
        try:
            verify_store(copy, attempts=1)
        except StoreError:
            pass  # detected
        else:
            assert canonical_rows(store) == original, f"verify passed a store whose rows changed ({name})"
        try:
            assert canonical_rows(store) == original, f"the reader served changed rows ({name})"
        except StoreError:
            pass  # detected
