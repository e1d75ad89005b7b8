"""Thirty-first adversarial pass (2026-12-03), submit side: `leaderboard reproduce` reading a results
file, and the label scan's walk of pickled Arrow string arrays (twenty-ninth pass). Each test is
one attack that worked before its fix, with a control."""

from __future__ import annotations

import os
import shutil
import struct
import threading
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from perfgraphs.leaderboard import label_scan
from perfgraphs.leaderboard.records.results import RESULTS_DIR
from perfgraphs.leaderboard.reproduce import ReproduceError, read_record


def test_reproduce_refuses_a_results_file_that_is_a_link_or_a_fifo(tmp_path):
    """Attack: a pull request commits ``leaderboard/results/dippm.jsonl`` as a link to /dev/zero
    (the boards skip a link). The reviewer's ``perfgraphs leaderboard reproduce dippm 1`` read it
    until the system killed it (exit 137 after 20 s); a FIFO of that name hung it (exit 124). Now
    each is refused in one line before a byte is read (here: a link to a real records file, which
    it read through, and a FIFO whose writer comes late, so a regression cannot hang the test).
    Control: the same records in a plain file are read."""
    outside = tmp_path / "elsewhere.jsonl"
    shutil.copy(Path(RESULTS_DIR) / "dippm.jsonl", outside)
    root = tmp_path / "results"
    root.mkdir()
    (root / "dippm.jsonl").symlink_to(outside)
    with pytest.raises(ReproduceError, match="a link, which the boards skip"):
        read_record("dippm", 1, root)
    os.mkfifo(root / "nnlqp.jsonl")

    def late_writer():  # an old reader blocked in open() gets EOF instead of hanging the suite
        time.sleep(2)
        try:
            os.close(os.open(root / "nnlqp.jsonl", os.O_WRONLY | os.O_NONBLOCK))
        except OSError:  # ENXIO: nobody has it open for reading (the guard refused it)
            pass

    threading.Thread(target=late_writer, daemon=True).start()
    with pytest.raises(ReproduceError, match="not a regular file"):
        read_record("nnlqp", 1, root)
    (root / "dippm.jsonl").unlink()
    shutil.copy(outside, root / "dippm.jsonl")
    assert read_record("dippm", 1, root)["dataset"].endswith("dippm")


def _offsets_pickle(megabytes: int) -> bytes:
    """A pickle naming ``_restore_array`` with one int32 offsets buffer of ``megabytes`` MB (every
    offset 0 but the last), then a one-byte values buffer: a crafted file of the size of its buffer."""
    offsets = np.zeros(megabytes * 2**20 // 4, np.int32)
    offsets[-1] = 1
    blob = offsets.tobytes()
    return b"\x80\x04\x8c\x0e_restore_array\x8e" + struct.pack("<Q", len(blob)) + blob + b"C\x01a."


def _peak_mb(data: bytes) -> float:
    tracemalloc.start()
    try:
        label_scan._pickled_arrow_strings(data)
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def test_pickled_arrow_offsets_are_cut_in_bounded_memory(monkeypatch):
    """Attack: a submission file that is a pickle naming ``_restore_array`` with one int32 offsets
    buffer of 134 MB. The scan cut its values buffer at every offset with one ``np.insert``, which
    held some six times the buffer (positions as int64, their sort order, copies): 770 MB more and
    10 s for that file, some 3 GB for a 512 MB one, before `check` said anything. Now the offsets
    are taken a chunk at a time: the same file in 1.7 s and no more than its output. Here 32 MB
    (416 MB traced before, under 100 MB now):
    the peak is measured with the chunk as large as the buffer (the old cut: the control) and as it is."""
    data = _offsets_pickle(32)
    chunked = _peak_mb(data)
    monkeypatch.setattr(label_scan, "_OFFSETS_CHUNK", 1 << 40)
    whole = _peak_mb(data)
    assert whole > 300 and chunked < 128 and 3 * chunked < whole, (whole, chunked)


def test_pickled_arrow_many_small_offsets_buffers_scan_quickly(monkeypatch):
    """Attack: a pickle naming ``_restore_array`` followed by a million 16-byte buffers, each a
    valid offsets buffer of one string ([0, 1]) paired with the next: each pair cost a dozen numpy
    calls, 22 s for the 18 MB file (a random file of that size: 2.4 s), and a submission of such
    files up to the scan's 2 GB some 40 minutes of `check`. Offsets buffers of at most 256 entries
    are now read as Python tuples (4.7 s for that file, measured by hand: the suite times nothing,
    so the test counts the per-buffer numpy cuts instead). Control: with ``_SMALL_OFFSETS`` 0 every
    pair goes through the numpy cut, and both read the same strings."""
    data = b"\x80\x04\x8c\x0e_restore_array" + (b"C\x10" + struct.pack("<qq", 0, 1)) * 100_000 + b"."
    cuts = []
    cut = label_scan._cut_strings
    monkeypatch.setattr(label_scan, "_cut_strings", lambda values, offsets: cuts.append(1) or cut(values, offsets))
    fast = label_scan._pickled_arrow_strings(data)
    assert cuts == []
    monkeypatch.setattr(label_scan, "_SMALL_OFFSETS", 0)
    slow = label_scan._pickled_arrow_strings(data)
    # each buffer paired as values is not read as offsets too (thirty-second pass): 50,000 pairs
    assert fast == slow and fast.count(b"\n") == 100_000 // 2 - 1
    assert len(cuts) > 10_000  # the numpy path, a cut per pair


def test_pickled_arrow_strings_of_honest_arrays_still_read(monkeypatch):
    """Control for both cuts: pickled pyarrow arrays and tables of strings, below and above the
    small-offsets bound and across several chunks, give their strings one a line, as before."""
    pa = pytest.importorskip("pyarrow")
    import pickle

    rng = np.random.default_rng(3)
    monkeypatch.setattr(label_scan, "_OFFSETS_CHUNK", 1000)  # 3000 strings: three chunks and a last offset
    for n in (1, 255, 256, 257, 3000):
        values = [repr(v) for v in rng.random(n)]
        for obj in (pa.array(values), pa.table({"label": values})):
            assert label_scan._pickled_arrow_strings(pickle.dumps(obj)).split(b"\n") == [v.encode() for v in values]
