"""Thirty-second adversarial pass (2026-12-03), submit side: the label scan's memory on a file of
number characters only and on a pickled Arrow values buffer read three times, and `leaderboard
reproduce --submission` over a clone whose index hides an edited predictor. Each test is one
attack that worked before its fix, with a control."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from perfgraphs.leaderboard import label_scan
from test_leaderboard_review_30b import _git, contributor_clone


def test_a_file_of_number_characters_only_is_scanned_a_piece_at_a_time(monkeypatch):
    """Attack: a submission file of ``12345678.`` repeated, every byte a character numbers are
    written with, has no byte the scan's pieces are cut before, so it was read as one piece: a
    100 MB file held 624 MB over the file at the scan's peak (an honest 100 MB of printed numbers,
    35 MB), 3.2 GB for a file at the 512 MB limit; after a UTF-16 byte-order mark, with no NUL, the
    same. Now a piece with no cut within ``_WIDE_PIECE_MAX`` bytes is cut there (shown here at small
    sizes). Controls: with the bound lifted the file is one piece, as it was; honest printed labels
    cut the same small way are all found."""
    monkeypatch.setattr(label_scan, "_TEXT_CHUNK", 1000)
    monkeypatch.setattr(label_scan, "_WIDE_PIECE_MAX", 4000)
    data = b"12345678." * 100_000
    for wide, text in ((False, data), (True, b"\xff\xfe" + data)):
        pieces = list(label_scan._text_chunks(text, wide))
        assert max(map(len, pieces)) <= 4000 and b"".join(pieces) == text
    labels = np.random.default_rng(5).random(300) * 100
    honest = "".join(f"{v!r}\n" for v in labels).encode()
    index = label_scan.label_index([label_scan.LabelArray("labels", labels)])
    assert {j for a, j in label_scan._printed_labels(honest, index) if a == 0} == set(range(300))
    monkeypatch.setattr(label_scan, "_WIDE_PIECE_MAX", 10**9)  # control: without the bound, one piece
    assert len(list(label_scan._text_chunks(data))) == 1


def test_a_pickled_arrow_values_buffer_is_read_once():
    """Attack: a pickle naming ``_restore_array`` with three 16-byte offsets buffers ``[0, N]``
    before one values buffer of N bytes: each offsets buffer was paired with the values buffer (the
    first of the next three long enough), so its N bytes were copied out three times and scanned
    three times: 829 MB and 96 s for a 100 MB pickle. Now a values buffer is paired once. Controls:
    the same pickle with one offsets buffer reads the same strings; an honest pickled pyarrow array
    of strings reads its strings one a line, as before."""
    values = b"12345678." * 10_000
    offsets = [np.array([0, len(values)], dtype="<i8").tobytes() for _ in range(3)]  # three objects: no memo
    three = pickle.dumps(("_restore_array", *offsets, values), protocol=4)
    one = pickle.dumps(("_restore_array", offsets[0], values), protocol=4)
    assert label_scan._pickled_arrow_strings(three) == label_scan._pickled_arrow_strings(one) == values
    pa = pytest.importorskip("pyarrow")
    strings = [repr(v) for v in np.random.default_rng(7).random(500)]
    for obj, expected in ((pa.array(strings), strings), (pa.table({"a": strings, "b": strings[::-1]}),
                                                         strings + strings[::-1])):
        read = label_scan._pickled_arrow_strings(pickle.dumps(obj)).split(b"\n")
        assert read == [s.encode() for s in expected]


def test_reproduce_refuses_a_clone_whose_index_hides_an_edited_file(tmp_path):
    """Attack: in the folder handed to `leaderboard reproduce DATASET LINE --submission FOLDER`,
    ``git update-index --assume-unchanged predictor.py`` (or ``--skip-worktree``), then
    predictor.py edited: `git status --porcelain --ignored --untracked-files=all` printed nothing,
    and the folder passed every check, so an edited predictor was scored as the record's commit and
    "reproduced". Now a file the index marks so is refused before anything runs. Control: the
    same clone with the flag cleared and the file restored passes the folder checks."""
    from perfgraphs.leaderboard import reproduce

    folder, record = contributor_clone(tmp_path)
    reproduce._check_contributor(record, folder)  # control: a clean clone
    original = (folder / "predictor.py").read_text()
    for flag in ("--assume-unchanged", "--skip-worktree"):
        _git(folder, "update-index", flag, "predictor.py")
        (folder / "predictor.py").write_text(original + "\n# scores otherwise\n")
        assert _git(folder, "status", "--porcelain", "--ignored", "--untracked-files=all", "--", ".") == ""
        with pytest.raises(reproduce.ReproduceError, match="predictor.py.*assume-unchanged or skip-worktree"):
            reproduce._check_contributor(record, folder)
        _git(folder, "update-index", flag.replace("--", "--no-", 1), "predictor.py")
        (folder / "predictor.py").write_text(original)
    reproduce._check_contributor(record, folder)  # control: the flag cleared, the file the commit's
