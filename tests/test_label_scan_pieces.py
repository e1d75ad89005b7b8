"""The label scan reads a file a piece at a time (printed text in pieces cut between numbers, raw
floats a million at a time) so that its memory is about twice a file's size, not 10-17 times
(``benchmarks/label_scan_memory.py``). Reading in pieces must find exactly what reading whole
found: these tests cut at every position a label could straddle and compare with an independent
reading of the whole (``np.isin``, ``float()`` of each printed token), each with a control that
shows the cut matters."""

from __future__ import annotations

import pickle
import re

import numpy as np

from perfgraphs.leaderboard import label_scan
from perfgraphs.leaderboard.label_scan import LabelArray, label_index

LABELS = np.round(np.random.default_rng(3).uniform(0.5, 80, 200), 6)
OTHER = np.round(np.random.default_rng(4).uniform(0.5, 80, 5000), 6)


def _labels_printed_in(data: bytes) -> set[int]:
    """Independent of the scan: which labels the whole text holds, token by token."""
    written = {float(t) for t in re.findall(rb"\d+\.\d+", data)}
    return {j for j, v in enumerate(np.unique(LABELS)) if float(v) in written}


def _index():
    return label_index([LabelArray("labels", LABELS)])


def _found(pairs) -> set[int]:
    return {j for k, j in pairs if k == 0}  # array 0: the labels (array 1 is their decoys)


def test_printed_labels_cut_into_tiny_pieces_are_all_found(monkeypatch):
    values = np.concatenate([OTHER, LABELS[::2]])
    np.random.default_rng(5).shuffle(values)
    data = ", ".join(repr(float(v)) for v in values).encode()
    expected = _labels_printed_in(data)
    assert len(expected) == 100
    assert _found(label_scan._printed_labels(data, _index())) == expected  # the default piece: one piece
    for size in (1, 7, 64, 1000):
        monkeypatch.setattr(label_scan, "_TEXT_CHUNK", size)
        assert _found(label_scan._printed_labels(data, _index())) == expected, size
    # control: cutting every 7 bytes wherever they fall splits numbers, and labels go unseen
    monkeypatch.setattr(label_scan, "_text_chunks", lambda d, wide=False: (d[i:i + 7] for i in range(0, len(d), 7)))
    assert len(_found(label_scan._printed_labels(data, _index()))) < len(expected) // 2


def test_pieces_of_a_binary_file_are_read_as_the_whole_was(monkeypatch):
    """A NUL in the first 64 KB makes a file binary (number runs of 4 characters or more are read);
    a later piece without a NUL is read the same way, and a label printed after the first 64 KB of a
    binary file (as `torch.save` of strings puts it) is found, piece or whole."""
    text = b"\x00" * 70_000 + b"\x01".join(repr(float(v)).encode() for v in LABELS)
    expected = _labels_printed_in(text)
    assert len(expected) == len(np.unique(LABELS))
    for size in (5, 4096, 1 << 22):
        monkeypatch.setattr(label_scan, "_TEXT_CHUNK", size)
        assert _found(label_scan._printed_labels(text, _index())) == expected, size
    # control: a file with no number in it finds nothing, cut or whole
    assert label_scan._printed_labels(b"\x00" * 70_000 + b"weights" * 1000, _index()) == set()


def test_raw_floats_across_a_million_value_boundary_are_all_found():
    """Labels as float64 at the ends of each million-value piece (positions 2**20 - 1, 2**20, ...)
    are found, as ``np.isin`` over the whole array finds them; so are float32 copies."""
    rng = np.random.default_rng(6)
    values = rng.uniform(100, 200, 3 * (1 << 20) + 17)  # no label lies in [100, 200)
    at = [0, (1 << 20) - 1, 1 << 20, (2 << 20) - 1, 2 << 20, len(values) - 1]
    values[at] = LABELS[:len(at)]
    values[5:8] = [np.nan, np.inf, -np.inf]
    index = _index()
    whole = index.owners_at(np.flatnonzero(np.isin(index.keys, values)))
    found = _found(index.exact(values))
    assert {float(np.unique(LABELS)[j]) for j in found} == {float(v) for v in LABELS[:len(at)]}
    assert index.exact(values) == whole
    as32 = values.astype(np.float32)
    assert len(_found(index.exact(as32))) == len(at)  # float32 roundings of the labels are keys
    # control: the honest values alone hold no label
    assert index.exact(np.delete(values, at)) == set()


def test_a_pickled_string_array_cut_into_pieces_is_read_as_the_whole(monkeypatch):
    """A numpy U array (UTF-32: NULs inside every number) and an S array, pickled: the file's form
    (wide, string widths) is decided once for the whole file, and a wide file is cut only where
    there is neither a number character nor a NUL, so tiny pieces find what the whole finds."""
    for kind in ("U", "S"):
        data = pickle.dumps(np.array([repr(float(v)) for v in LABELS], dtype=kind))
        whole = _found(label_scan._printed_labels(data, _index()))
        assert len(whole) == len(np.unique(LABELS)), kind
        for size in (3, 64, 4096):
            monkeypatch.setattr(label_scan, "_TEXT_CHUNK", size)
            assert _found(label_scan._printed_labels(data, _index())) == whole, (kind, size)
        monkeypatch.undo()
    # control: cutting a U array's bytes at NULs splits its numbers, and most labels go unseen
    data = pickle.dumps(np.array([repr(float(v)) for v in LABELS], dtype="U"))
    monkeypatch.setattr(label_scan, "_TEXT_CHUNK", 3)
    monkeypatch.setattr(label_scan, "_WIDE_BOUNDARY", label_scan._NOT_NUMBER)
    assert len(_found(label_scan._printed_labels(data, _index()))) < len(whole) // 2
