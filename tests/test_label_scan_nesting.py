"""The label scan reads what a predictor's own readers would (twenty-third pass of 2026-12-02): an
archive past the scan's depth, a second format in the same file, a zip folder entry with content,
Parquet list and struct columns and a Parquet file that is small until read all passed unread.
Each is now found or refused in one line; each test has a control (the honest variant passes, or
the attack passes once the new rule is taken out), so it can fail."""

from __future__ import annotations

import gzip
import io
import tarfile
import zipfile
from types import SimpleNamespace

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from perfgraphs.leaderboard import label_scan
from perfgraphs.leaderboard.label_scan import LabelArray, scan_submission

LABELS = np.round(np.random.default_rng(1).uniform(0.5, 80, 300), 6)
OTHER = np.round(np.random.default_rng(2).uniform(0.5, 80, 300), 6)  # honest numbers, no label among them
RAW = LABELS.astype("<f8").tobytes()


def _scan(tmp_path, name: str, data: bytes) -> list[str]:
    folder = tmp_path / name.replace(".", "-").replace("/", "-")
    folder.mkdir()
    (folder / name).write_bytes(data)
    return scan_submission(folder, [LabelArray("the test labels", LABELS)])


def _gz(data: bytes, times: int) -> bytes:
    for _ in range(times):
        data = gzip.compress(data)
    return data


def _parquet(table: pa.Table) -> bytes:
    out = io.BytesIO()
    pq.write_table(table, out, compression="zstd")
    return out.getvalue()


def _found(problems: list[str]) -> bool:
    return len(problems) == 1 and "holds 300 of the 300 distinct values of the test labels" in problems[0]


@pytest.mark.parametrize("times", [4, 5])
def test_an_archive_past_the_depth_limit_is_refused(tmp_path, times, monkeypatch):
    refused = _scan(tmp_path, "w.bin", _gz(RAW, times))
    assert len(refused) == 1 and "archives nested deeper than 3 levels" in refused[0], refused
    assert _found(_scan(tmp_path, "three.bin", _gz(RAW, 3)))  # within the depth: read and found
    assert _scan(tmp_path, "honest.bin", _gz(OTHER.tobytes(), 3)) == []  # control: honest, 3 deep
    monkeypatch.setattr(label_scan, "MAX_DEPTH", 6)  # control: opened, the labels are there
    assert _found(_scan(tmp_path, "deeper.bin", _gz(RAW, times)))


def _small_zip(**members: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return out.getvalue()


def test_every_archive_format_a_file_carries_is_read(tmp_path, monkeypatch):
    # the labels gzipped, a small zip after them: the zip was read, the gzip never (Python's gzip
    # reader refuses the bytes after the stream, so the file is refused as unreadable)
    polyglot = gzip.compress(RAW) + _small_zip(**{"readme.txt": b"hello"})
    refused = _scan(tmp_path, "w.bin", polyglot)
    assert len(refused) == 1 and "an archive the scan cannot read (BadGzipFile" in refused[0], refused
    # a tar of the labels (gzipped) ending in a stored zip: the zip was read as the whole file, the
    # tar's other member never; both are read now, and the labels found
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as t:
        for name, data in (("labels.bin.gz", gzip.compress(RAW)), ("model.zip", _small_zip(**{"readme.txt": b"hello"}))):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    assert label_scan._archive_kinds(out.getvalue()) == ["zip", "tar"]
    assert _found(_scan(tmp_path, "w.tar", out.getvalue()))
    # controls: the first format alone (the old rule) passes both; an honest tar passes
    first_only = label_scan._archive_kinds
    monkeypatch.setattr(label_scan, "_archive_kinds", lambda data: first_only(data)[:1])
    assert _scan(tmp_path, "old.bin", polyglot) == [] and _scan(tmp_path, "old.tar", out.getvalue()) == []
    monkeypatch.undo()
    assert _scan(tmp_path, "honest.gz", gzip.compress(OTHER.tobytes())) == []


def test_a_zip_folder_entry_with_content_is_read(tmp_path):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(zipfile.ZipInfo("labels/"), RAW, compress_type=zipfile.ZIP_DEFLATED)
    with zipfile.ZipFile(io.BytesIO(out.getvalue())) as z:  # what a predictor reads back
        assert z.infolist()[0].is_dir() and np.array_equal(np.frombuffer(z.read("labels/"), "<f8"), LABELS)
    assert _found(_scan(tmp_path, "w.zip", out.getvalue()))
    # control: a real (empty) folder entry beside an honest file passes
    honest = io.BytesIO()
    with zipfile.ZipFile(honest, "w", zipfile.ZIP_DEFLATED) as z:
        z.mkdir("weights")
        z.writestr("weights/w.bin", OTHER.tobytes())
    assert _scan(tmp_path, "honest.zip", honest.getvalue()) == []


@pytest.mark.parametrize("column", ["list", "large_list", "struct", "map", "list<struct>"])
def test_nested_parquet_columns_are_flattened(tmp_path, column, monkeypatch):
    def table(values: np.ndarray) -> pa.Table:
        v = values.tolist()
        return pa.table({"c": {
            "list": pa.array([v]), "large_list": pa.array([v], pa.large_list(pa.float64())),
            "struct": pa.array([{"a": x} for x in v]),
            "map": pa.array([[(str(i), x) for i, x in enumerate(v)]], pa.map_(pa.string(), pa.float64())),
            "list<struct>": pa.array([[{"a": x, "b": "id"} for x in v]])}[column]})

    assert _found(_scan(tmp_path, "t.parquet", _parquet(table(LABELS))))
    assert _scan(tmp_path, "honest.parquet", _parquet(table(OTHER))) == []  # control: honest numbers
    monkeypatch.setattr(label_scan, "_leaves", lambda array: iter(()))  # control: nothing flattened, passes
    assert _scan(tmp_path, "unread.parquet", _parquet(table(LABELS))) == []


def test_parquet_strings_are_scanned_as_text(tmp_path):
    words = [f"{x:.6g}" for x in LABELS] + ["n/a"]  # not all numbers: the old float cast skipped the column
    assert _found(_scan(tmp_path, "t.parquet", _parquet(pa.table({"s": words}))))
    assert _scan(tmp_path, "honest.parquet", _parquet(pa.table({"s": [f"{x:.6g}" for x in OTHER]}))) == []
    # one 100 KB string repeated 2,000 times (200 MB decoded) is read as its dictionary: 100 KB
    long = "x" * 100_000
    data = _parquet(pa.table({"s": [long] * 2000}))
    numbers, texts = label_scan._structured(data, [label_scan.MAX_SCAN_BYTES])
    assert numbers == [] and sum(map(len, texts)) == len(long)


def test_a_parquet_file_small_until_read_is_refused_before_it_is_read(tmp_path, monkeypatch):
    monkeypatch.setattr(label_scan, "MAX_SCAN_BYTES", 1 << 20)
    n = 200_000  # 1.6 MB once read, in a file of a few hundred bytes
    bomb = _parquet(pa.table({"v": pa.ListArray.from_arrays(pa.array([0, n], pa.int32()), pa.array(np.zeros(n)))}))
    meta = pq.ParquetFile(io.BytesIO(bomb)).metadata
    assert len(bomb) < 4096 and meta.num_rows * meta.num_columns * 8 == 8  # what the old estimate counted
    read = []
    monkeypatch.setattr(pq, "read_table", lambda *a, **k: read.append(1))
    refused = _scan(tmp_path, "w.parquet", bomb)
    assert len(refused) == 1 and "a Parquet table of 1 rows × 1 columns (1600000 bytes once read" in refused[0]
    assert read == []  # refused from its metadata
    monkeypatch.undo()
    monkeypatch.setattr(label_scan, "MAX_SCAN_BYTES", 1 << 20)
    small = _parquet(pa.table({"v": pa.ListArray.from_arrays(pa.array([0, 1000], pa.int32()), pa.array(np.zeros(1000)))}))
    assert _scan(tmp_path, "small.parquet", small) == []  # control: a small list is read


# -- the predictions reader of `perfgraphs submit` / `check` -------------------------------------------------------

def _read(tmp_path, table: pa.Table, ids: list[str]) -> tuple[dict, list[str]]:
    from perfgraphs.leaderboard.submit import _TestSet, _read_predictions

    folder = tmp_path / "predictions"
    folder.mkdir(exist_ok=True)
    path = folder / "seed-0.parquet"
    pq.write_table(table, path, compression="zstd")
    sub = SimpleNamespace(prediction_files=lambda: {0: path}, root=tmp_path,
                          meta=SimpleNamespace(predictions="predictions"))
    test = _TestSet(ids, np.ones(len(ids)), ["f"] * len(ids), None)
    problems: list[str] = []
    return _read_predictions(sub, test, "latency_ms", True, problems), problems


def test_a_predictions_file_is_sized_before_it_is_read(tmp_path):
    ids = [f"s{i}" for i in range(10)]
    honest = pa.table({"sample_id": ids, "target": ["latency_ms"] * 10, "value": np.arange(1.0, 11.0)})
    preds, problems = _read(tmp_path, honest, ids)  # control: read and aligned
    assert problems == [] and np.array_equal(preds[0], np.arange(1.0, 11.0))
    n = 1_000_000  # a list of a million values in one cell: a few KB on disk
    nested = honest.set_column(2, "value", pa.array([[0.5] * n] + [[1.0]] * 9))
    preds, problems = _read(tmp_path, nested, ids)
    assert preds == {} and len(problems) == 1 and "nested column(s) value (list<element: double>)" in problems[0]
    many = pa.table({"sample_id": ["s0"] * 5000, "target": ["latency_ms"] * 5000, "value": np.ones(5000)})
    preds, problems = _read(tmp_path, many, ids)
    assert preds == {} and len(problems) == 1 and "5000 rows (or values in a column) for 10 test samples" in problems[0]
    long = honest.set_column(0, "sample_id", pa.array(["s" * 5000] + ids[1:]))
    preds, problems = _read(tmp_path, long, ids)
    assert preds == {} and len(problems) == 1 and "column sample_id holds a value over 1024 characters" in problems[0]
