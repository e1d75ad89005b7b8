"""Twenty-eighth adversarial pass (2026-12-03), submit side: the label scan's reading of numpy
string arrays inside pickles (the twenty-seventh pass's width cuts, and the piecewise text form).
Each test is one attack that passed ``perfgraphs check``/``submit`` before its fix, with a control."""

from __future__ import annotations

import pickle
import shutil
from pathlib import Path

import numpy as np
import pytest

from perfgraphs.leaderboard import label_scan
from perfgraphs.leaderboard.label_scan import LabelArray, scan_submission

LABELS = np.round(np.random.default_rng(1).uniform(0.5, 80, 300), 6)
OTHER = np.round(np.random.default_rng(2).uniform(0.5, 80, 300), 6)  # honest numbers, no label among them
REFUSED = "holds 300 of the 300 distinct values of the test labels"


def _scan(tmp_path: Path, name: str, data: bytes) -> list[str]:
    folder = tmp_path / name.replace(".", "-")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / name).write_bytes(data)
    return scan_submission(folder, [LabelArray("the test labels", LABELS)])


SHIFTED = {
    # 300 items of 12 characters, UTF-32: 14,400 bytes of data, pickled as B@8\x00\x00: the '8' leads the run
    "U12-exponent.pkl": lambda v: pickle.dumps(np.array([f"{x:.6e}" for x in v])),
    # arrays of 5 items of 10 bytes: 50 bytes of data, pickled as C2: the '2' leads each run
    "S10-in-fives.pkl": lambda v: pickle.dumps([np.array([f"{x:010.6f}" for x in v[i:i + 5]], dtype="S10")
                                                for i in range(0, len(v), 5)]),
}


@pytest.mark.parametrize("name", sorted(SHIFTED))
def test_a_string_array_whose_pickled_length_reads_as_digits_is_found(tmp_path, monkeypatch, name):
    """Attack: ``pickle.dumps(np.array([f"{v:.6e}" for v in labels]))``, the plainest pickle of the
    labels as strings. Before: passed (0 of 300 found): the array's data follows its pickled length
    (``B`` + 4 bytes, ``C`` + 1), whose byte 0x38 (``8``) or 0x32 (``2``) is a number character, so
    the run of back-to-back full-width items started one character early and every item cut at the
    dtype's width was off by one. Now the runs are also cut 1, 2 and 3 characters in (a length's
    bytes, NULs removed, under 512 MB). Controls: the same pickles of other numbers pass; cut from
    the run's start only (the old reading), the labels pass."""
    assert _scan(tmp_path / "honest", name, SHIFTED[name](OTHER)) == []
    problems = _scan(tmp_path, name, SHIFTED[name](LABELS))
    assert len(problems) == 1 and REFUSED in problems[0], problems
    monkeypatch.setattr(label_scan, "_LENGTH_SHIFTS", (0,))
    assert _scan(tmp_path / "unshifted", name, SHIFTED[name](LABELS)) == []


_HEAD = "x" * 0x01010101  # a 16 MB string whose pickled length has no zero byte: no NUL in the first 64 KB
TEXT_FORM = {
    "U-protocol0.pkl": lambda v: pickle.dumps(np.array([repr(float(x)) for x in v]), protocol=0),
    "S-protocol0.pkl": lambda v: pickle.dumps(np.array([repr(float(x)) for x in v], dtype="S"), protocol=0),
    "U-after-16MB.pkl": lambda v: pickle.dumps((_HEAD, np.array([repr(float(x)) for x in v])), protocol=2),
    "S-after-16MB.pkl": lambda v: pickle.dumps((_HEAD, np.array([f"{x:.6e}" for x in v], dtype="S")), protocol=2),
}


@pytest.mark.parametrize("name", sorted(TEXT_FORM))
def test_a_pickle_that_starts_like_text_is_read_by_its_string_dtypes(tmp_path, name):
    """Attack: the labels as a numpy string array in a pickle the scan took for plain text: of
    protocol 0 (``pickle.dumps(arr, protocol=0)``: its dtype ``(VU12``, its NULs written
    ``\\u0000``), or of protocol 2 after a 16 MB string (no NUL in the file's first 64 KB, which
    alone decided that a file was binary). Before: passed, a U array's UTF-32 read as one digit a
    token and an S array's back-to-back items as one garbled number. Now a pickled string dtype
    anywhere in the file makes its runs read as a binary file's (cut at the width, a U array's NULs
    removed), a protocol-0 one with its ``\\u0000`` read as NULs. Controls: the same pickles of other
    numbers pass, and plain text is still read as text."""
    assert _scan(tmp_path / "honest", name, TEXT_FORM[name](OTHER)) == []
    problems = _scan(tmp_path, name, TEXT_FORM[name](LABELS))
    assert len(problems) == 1 and REFUSED in problems[0], problems
    assert label_scan._text_form(b"y\n" + b"\n".join(repr(float(x)).encode() for x in LABELS)).binary is False


def _with_small_arrays(array: np.ndarray) -> bytes:
    return pickle.dumps({**{f"name{w}": np.array(["n" * w], dtype=f"S{w}") for w in range(4, 12)}, "y": array})


WIDTHS = {
    "nine-widths.pkl": lambda v: _with_small_arrays(np.array([f"{x:.6e}" for x in v])),
    "width-70.pkl": lambda v: pickle.dumps(np.array([f"{x:070.6f}" for x in v])),
}


@pytest.mark.parametrize("name", sorted(WIDTHS))
def test_every_pickled_string_width_is_cut(tmp_path, name):
    """Attack: the labels' string array pickled beside 8 small string arrays of widths 4 to 11 (a
    dict of name columns), or zero-padded to 70 characters. Before: passed: only the 8 smallest
    widths of a file, and none over 64, cut its runs, so the labels' ``U12`` (``U70``) items stayed
    one garbled number. Now every width 4–99 a file declares is cut, within the same byte budget,
    a run visited in Python only when it may be cut. Controls: the same pickles of other numbers
    pass; the budget still stops a crafted file (the twenty-seventh pass's test, and here: one width
    far past a budget of 10 bytes cuts nothing)."""
    assert _scan(tmp_path / "honest", name, WIDTHS[name](OTHER)) == []
    problems = _scan(tmp_path, name, WIDTHS[name](LABELS))
    assert len(problems) == 1 and REFUSED in problems[0], problems
    assert label_scan._cut_at_widths([b"1" * 100] * 1000, list(range(4, 100)), 10, (0, 1, 2, 3)) == []


def test_a_wide_file_without_a_text_byte_is_still_read_a_piece_at_a_time(tmp_path, monkeypatch):
    """Attack (memory): a file that starts with a UTF-16 byte-order mark (or holds a pickled U
    dtype: read as wide text) and then only digits and NULs (``1234\\x00`` over and over). Before: a
    wide file was cut only before a byte that is neither a number character nor a NUL, so it was one
    piece: 64 MB of it peaked at 2.2 GB (13 M tokens at once; 512 MB, about 18 GB). Now, with no
    such byte in a piece's length past the piece, it is cut at a NUL (4 or more if there are): the
    same file peaked at 0.5 GB. Controls: UTF-16 text and a pickled U array of the labels, read in
    tiny pieces, are still found whole (each number lies in one piece)."""
    from perfgraphs.leaderboard.label_scan import label_index

    monkeypatch.setattr(label_scan, "_TEXT_CHUNK", 1000)
    monkeypatch.setattr(label_scan, "_WIDE_PIECE_MAX", 4000)
    pieces = list(label_scan._text_chunks(b"\xff\xfe" + b"1234\x00" * 100_000, wide=True))
    assert len(pieces) > 100 and max(map(len, pieces)) <= 4000 + 5
    monkeypatch.setattr(label_scan, "_WIDE_PIECE_MAX", 10**9)  # control: without the cut at a NUL, one piece
    assert len(list(label_scan._text_chunks(b"\xff\xfe" + b"1234\x00" * 100_000, wide=True))) == 1
    monkeypatch.undo()
    monkeypatch.setattr(label_scan, "_TEXT_CHUNK", 64)
    index = label_index([LabelArray("the test labels", LABELS)])
    for data in (("y\n" + "\n".join(repr(float(x)) for x in LABELS)).encode("utf-16"),
                 pickle.dumps(np.array([f"{x:.6e}" for x in LABELS])),
                 pickle.dumps(np.array([repr(float(x)) for x in LABELS]))):
        assert label_scan._text_form(data).wide
        found = {j for k, j in label_scan._printed_labels(data, index) if k == 0}
        assert len(found) == len(LABELS)
