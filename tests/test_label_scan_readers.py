"""The label scan and the predictions reader against files made to defeat them (twenty-fourth pass of
2026-12-02): a Parquet footer that makes pyarrow abort the process, a zip member named "", archives
of many members, and labels in formats standard readers open but the scan did not (Parquet without
its leading magic, a tar member of an unknown type, a V7 tar, .npy of >f4/longdouble/complex,
compressed Arrow and ORC files, zstd/lz4/zlib streams). Each test has a control (the honest variant
passes, or the attack passes once the new rule is taken out), so it can fail."""

from __future__ import annotations

import io
import struct
import subprocess
import sys
import tarfile
import time
import zipfile
import zlib

import numpy as np
import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.parquet as pq
import pytest

from perfgraphs.leaderboard import isolated, label_scan
from perfgraphs.leaderboard.label_scan import LabelArray, scan_submission

LABELS = np.round(np.random.default_rng(1).uniform(0.5, 80, 300), 6)
OTHER = np.round(np.random.default_rng(2).uniform(0.5, 80, 300), 6)  # honest numbers, no label among them
CSV = ("y\n" + "\n".join(repr(float(v)) for v in LABELS)).encode()
HONEST_CSV = ("y\n" + "\n".join(repr(float(v)) for v in OTHER)).encode()


def _crash() -> bytes:
    """A predictions file with one footer byte changed (as /tmp/adv24b/make_crash.py did): its value
    column's repetition type made invalid, so the column's size-statistics histogram is one entry
    too long, which pyarrow 26 checks with a C++ exception nothing catches (abort, exit 134)."""
    out = io.BytesIO()
    pq.write_table(pa.table({"sample_id": ["a", "b"], "target": ["t", "t"], "value": [1.0, 2.0]}), out,
                   compression="zstd")
    data = bytearray(out.getvalue())
    at = data.index(b"%\x02\x18\x05value")  # repetition_type OPTIONAL (zigzag 2), then the name
    data[at + 1] = ord("[")
    return bytes(data)


def _scan(tmp_path, name: str, data: bytes) -> list[str]:
    folder = tmp_path / name.replace(".", "-").replace("/", "-")
    folder.mkdir()
    (folder / name).write_bytes(data)
    return scan_submission(folder, [LabelArray("the test labels", LABELS)])


def _found(problems: list[str]) -> bool:
    return len(problems) == 1 and "holds 300 of the 300 distinct values of the test labels" in problems[0]


def _refused(problems: list[str], words: str) -> bool:
    return len(problems) == 1 and words in problems[0] and "\n" not in problems[0]


# -- 1. a file that kills the reader -----------------------------------------------------------------------------

def test_a_parquet_footer_that_aborts_pyarrow_is_refused_in_one_line(tmp_path):
    from perfgraphs.leaderboard.submit import _prediction_table

    refused = _scan(tmp_path, "model.parquet", _crash())
    assert _refused(refused, "not a readable Parquet file: its reader died (SIGABRT)"), refused
    folder = tmp_path / "predictions"
    folder.mkdir()
    (folder / "seed-0.parquet").write_bytes(_crash())
    table, problem = _prediction_table(folder / "seed-0.parquet", 2)
    assert table is None and problem == ("seed-0.parquet: not a readable Parquet file (its reader died (SIGABRT)): "
                                         "write it with pyarrow or pandas.DataFrame.to_parquet")
    # control: the same calls unguarded end the process that makes them, which is what the child spares
    unguarded = ("import pyarrow.parquet as pq, sys; m = pq.ParquetFile(sys.argv[1]).metadata; "
                 "m.row_group(0).column(2); print('survived')")
    run = subprocess.run([sys.executable, "-c", unguarded, str(folder / "seed-0.parquet")], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode not in (0, 1) and "survived" not in run.stdout, (run.returncode, run.stderr[-300:])
    # control: an honest predictions file still reads through the child
    pq.write_table(pa.table({"sample_id": ["a", "b"], "target": ["t", "t"], "value": [1.0, 2.0]}),
                   folder / "seed-1.parquet")
    table, problem = _prediction_table(folder / "seed-1.parquet", 2)
    assert problem is None and table.column("value").to_pylist() == [1.0, 2.0]


def test_the_child_costs_milliseconds_and_passes_exceptions_back():
    start = time.perf_counter()
    for _ in range(20):
        assert isolated.in_child(sum, [1, 2]) == 3
    assert (time.perf_counter() - start) / 20 < 0.5  # about 10 ms a call on a shared 2-core machine
    with pytest.raises(label_scan.Unscannable, match="holds more than the scan reads"):
        isolated.in_child(label_scan._take, [1], 2, "x")
    with pytest.raises(isolated.ChildFailed, match="ran past"):
        isolated.in_child(time.sleep, 30, timeout=0.5)


# -- 2. a zip member named "" --------------------------------------------------------------------------------------

def _zip_of(entries: list[tuple[bytes, bytes]]) -> bytes:
    """A stored zip written by hand (zipfile refuses to write a member named "")."""
    local, central = b"", b""
    for name, payload in entries:
        crc = zlib.crc32(payload)
        central += struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 0, 0, 0, crc, len(payload), len(payload),
                               len(name), 0, 0, 0, 0, 0, len(local)) + name
        local += struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 0, 0, 0, crc, len(payload), len(payload),
                             len(name), 0) + name + payload
    n = min(len(entries), 0xFFFF)
    return local + central + struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, n, n, len(central), len(local), 0)


def test_a_zip_member_named_empty_is_read(tmp_path):
    data = _zip_of([(b"", CSV)])
    with zipfile.ZipFile(io.BytesIO(data)) as z:  # what a predictor reads back
        info = z.infolist()[0]
        assert info.filename == "" and z.read(info) == CSV
        with pytest.raises(IndexError):  # control: the old test of a folder entry raised on it
            info.is_dir()
    assert _found(_scan(tmp_path, "w.zip", data))
    assert _scan(tmp_path, "honest.zip", _zip_of([(b"", HONEST_CSV)])) == []  # control: honest content


# -- 3. archives of many members ----------------------------------------------------------------------------------

def test_an_archive_of_too_many_members_is_refused_quickly(tmp_path, monkeypatch):
    many = _zip_of([(b"a", b"")] * (label_scan.MAX_MEMBERS + 1))
    start = time.perf_counter()
    refused = _scan(tmp_path, "many.zip", many)
    assert _refused(refused, f"a zip of more than {label_scan.MAX_MEMBERS} entries"), refused
    assert time.perf_counter() - start < 10
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as t:
        for i in range(label_scan.MAX_MEMBERS + 1):
            t.addfile(tarfile.TarInfo(f"{i:x}"), io.BytesIO(b""))
    assert _refused(_scan(tmp_path, "many.tar", out.getvalue()), f"a tar of more than {label_scan.MAX_MEMBERS}")
    # control: at the cap, read (and the labels found among them)
    assert _found(_scan(tmp_path, "cap.zip", _zip_of([(b"a", b"")] * (label_scan.MAX_MEMBERS - 1) + [(b"l", CSV)])))
    # per submission: three archives of 50 under a cap of 120 members
    monkeypatch.setattr(label_scan, "MAX_SUBMISSION_MEMBERS", 120)
    folder = tmp_path / "sub"
    folder.mkdir()
    for k in range(3):
        (folder / f"{k}.zip").write_bytes(_zip_of([(b"a", b"")] * 50))
    refused = scan_submission(folder, [LabelArray("the test labels", LABELS)])
    assert _refused(refused, "more than 120 files and archive members"), refused
    (folder / "2.zip").unlink()  # control: 2 × 50 members and 2 files pass
    assert scan_submission(folder, [LabelArray("the test labels", LABELS)]) == []


def test_a_submission_opens_at_most_max_tables_tables(tmp_path, monkeypatch):
    monkeypatch.setattr(label_scan, "MAX_TABLES", 2)
    out = io.BytesIO()
    pq.write_table(pa.table({"a": [1.0]}), out)
    member = out.getvalue()
    refused = _scan(tmp_path, "t.zip", _zip_of([(b"a", member)] * 3))
    assert _refused(refused, "more than 2 Parquet, Arrow or ORC tables"), refused
    assert _scan(tmp_path, "two.zip", _zip_of([(b"a", member)] * 2)) == []  # control: at the cap


# -- 4. formats standard readers open -----------------------------------------------------------------------------

def _parquet(values: np.ndarray) -> bytes:
    out = io.BytesIO()
    pq.write_table(pa.table({"y": values}), out, compression="zstd")
    return out.getvalue()


def test_parquet_is_known_by_its_trailing_magic(tmp_path, monkeypatch):
    bad = b"XXXX" + _parquet(LABELS)[4:]
    assert np.array_equal(pq.read_table(pa.BufferReader(bad))["y"].to_numpy(), LABELS)  # pyarrow reads it
    assert _found(_scan(tmp_path, "w.parquet", bad))
    assert _scan(tmp_path, "honest.parquet", b"XXXX" + _parquet(OTHER)[4:]) == []  # control: honest
    kind = label_scan._table_kind  # control: the old leading-magic test passes it
    monkeypatch.setattr(label_scan, "_table_kind", lambda data: kind(data) if data.startswith(b"PAR1") else None)
    assert _scan(tmp_path, "old.parquet", bad) == []


def _binary_not_read_as_text(monkeypatch) -> None:
    """The text rule before the twenty-sixth pass, for the controls that show a reader is needed:
    a file with a NUL in its first 64 KB was not read for printed numbers."""
    monkeypatch.setattr(label_scan, "_printed_numbers",
                        lambda data, form=None: [] if (form.binary if form else b"\x00" in data[:65536])
                        else label_scan._NUMBER.findall(data))


def _tar(payload: bytes, kind: bytes = tarfile.REGTYPE, v7: bool = False) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.USTAR_FORMAT) as t:
        info = tarfile.TarInfo("labels")
        info.size, info.type = len(payload), kind
        t.addfile(info, io.BytesIO(payload))
    data = bytearray(out.getvalue())
    if v7:  # no ustar magic, the checksum recomputed: what tarfile reads as a V7 header
        data[257:265] = bytes(8)
        data[148:156] = b"%06o\0 " % (sum(data[:148]) + 8 * 32 + sum(data[156:512]))
    return bytes(data)


def test_a_tar_member_of_an_unknown_type_is_read(tmp_path, monkeypatch):
    data = _tar(CSV, b"Q")
    with tarfile.open(fileobj=io.BytesIO(data)) as t:  # what a predictor reads back
        member = t.getmember("labels")
        assert not member.isfile() and t.extractfile(member).read() == CSV
    assert _found(_scan(tmp_path, "w.tar", data))
    assert _scan(tmp_path, "honest.tar", _tar(HONEST_CSV, b"Q")) == []  # control: honest


def test_a_v7_tar_is_read(tmp_path, monkeypatch):
    data = _tar(CSV, v7=True)
    with tarfile.open(fileobj=io.BytesIO(data)) as t:
        assert t.extractfile("labels").read() == CSV
    assert _found(_scan(tmp_path, "w.tar", data))
    assert _scan(tmp_path, "honest.tar", _tar(HONEST_CSV, v7=True)) == []  # control: honest
    monkeypatch.setattr(label_scan, "_is_tar", lambda data: data[257:262] == b"ustar")  # control: the old test
    _binary_not_read_as_text(monkeypatch)  # (the tar's text is found in its bytes since the twenty-sixth pass)
    assert _scan(tmp_path, "old.tar", data) == []


@pytest.mark.parametrize("dtype", [">f4", np.longdouble, ">c8", "<c16"])
def test_npy_of_any_numeric_dtype_is_read(tmp_path, dtype, monkeypatch):
    def npy(values: np.ndarray) -> bytes:
        out = io.BytesIO()
        np.save(out, values.astype(dtype))
        return out.getvalue()

    assert _found(_scan(tmp_path, "w.npy", npy(LABELS)))
    assert _scan(tmp_path, "honest.npy", npy(OTHER)) == []  # control: honest
    if dtype in (">f4", np.longdouble, ">c8"):  # control: not parsed, they pass (<c16 is float64 raw)
        monkeypatch.setattr(label_scan, "_npy_values", lambda data, left: ([], []))
        assert _scan(tmp_path, "old.npy", npy(LABELS)) == []


def _arrow(values: np.ndarray, compression: str) -> bytes:
    out = io.BytesIO()
    feather.write_feather(pa.table({"y": values}), out, compression=compression)
    return out.getvalue()


def _orc(values: np.ndarray, compression: str) -> bytes:
    orc = pytest.importorskip("pyarrow.orc")
    out = io.BytesIO()
    orc.write_table(pa.table({"y": values}), out, compression=compression)
    return out.getvalue()


@pytest.mark.parametrize("make, compression", [(_arrow, "lz4"), (_arrow, "zstd"), (_orc, "zstd"), (_orc, "zlib")])
def test_compressed_arrow_and_orc_files_are_read(tmp_path, make, compression, monkeypatch):
    assert _found(_scan(tmp_path, "w.bin", make(LABELS, compression)))
    assert _scan(tmp_path, "honest.bin", make(OTHER, compression)) == []  # control: honest
    monkeypatch.setattr(label_scan, "_table_kind", lambda data: None)  # control: not opened, they pass
    # (Arrow's lz4 leaves a buffer it cannot shrink uncompressed: the raw scan finds that one alone)
    assert _found(_scan(tmp_path, "old.bin", make(LABELS, compression))) == (compression == "lz4")


def _compressed(data: bytes, codec: str) -> bytes:
    if codec == "zlib":
        return zlib.compress(data)
    out = pa.BufferOutputStream()
    with pa.CompressedOutputStream(out, codec) as stream:
        stream.write(data)
    return out.getvalue().to_pybytes()


@pytest.mark.parametrize("codec", ["zstd", "lz4", "zlib"])
def test_zstd_lz4_and_zlib_streams_are_read(tmp_path, codec, monkeypatch):
    assert _found(_scan(tmp_path, "w.bin", _compressed(CSV, codec)))
    assert _scan(tmp_path, "honest.bin", _compressed(HONEST_CSV, codec)) == []  # control: honest
    kinds = label_scan._archive_kinds  # control: not decompressed, they pass
    monkeypatch.setattr(label_scan, "_archive_kinds", lambda data: [k for k in kinds(data) if k != codec])
    _binary_not_read_as_text(monkeypatch)  # (lz4 stores a short text as literals, found as text since then)
    assert _scan(tmp_path, "old.bin", _compressed(CSV, codec)) == []


def test_text_that_starts_like_a_zlib_header_is_text(tmp_path):
    # "x^" is a valid zlib header: text starting so is not refused as an unreadable stream
    assert (0x78 << 8 | ord("^")) % 31 == 0 and label_scan._archive_kinds(b"x^2 + 1 is a polynomial\n") == []
    assert _found(_scan(tmp_path, "w.txt", b"x^2\n" + CSV))
