"""A commitment file (``leaderboard/hidden/*.sha256``) is read for its sha256 only when its first
word is one: an empty one, added in a pull request beside the real one, stopped `leaderboard show`
and `build` with an IndexError (twenty-seventh pass of 2026-12-03)."""

from __future__ import annotations

import pytest

from perfgraphs.leaderboard.records import boards, hidden
from perfgraphs.leaderboard.records.hidden import commitment_hash

DIGEST = "ab" * 32


@pytest.mark.parametrize("text, expected", [
    (f"{DIGEST}  dippm-cpu-torch-fp32.parquet\n", DIGEST),
    (f"{DIGEST.upper()}\n", DIGEST),
    ("", None), ("\n  \n", None), ("VERIFIED  x.parquet\n", None), (DIGEST[:-1] + "\n", None),
    (DIGEST + "0\n", None),
])
def test_a_commitment_is_a_sha256_or_nothing(tmp_path, text, expected):
    path = tmp_path / "x.sha256"
    path.write_text(text)
    assert commitment_hash(path) == expected


def test_unreadable_commitments_are_nothing(tmp_path):
    (tmp_path / "dir.sha256").mkdir()
    (tmp_path / "bytes.sha256").write_bytes(b"\xff\xfe" + DIGEST.encode())
    assert commitment_hash(tmp_path / "dir.sha256") is None
    assert commitment_hash(tmp_path / "bytes.sha256") is None
    assert commitment_hash(tmp_path / "missing.sha256") is None


def test_an_empty_commitment_beside_a_live_one_orders_the_boards(tmp_path, monkeypatch):
    (tmp_path / "dippm-cpu-torch-fp32.sha256").write_text(f"{DIGEST}  dippm-cpu-torch-fp32.parquet\n")
    (tmp_path / "empty.sha256").write_text("")
    monkeypatch.setattr(hidden, "COMMITMENTS_DIR", tmp_path)
    groups = {("perfgraphs/dippm", "cpu-torch-fp32", "latency_ms", "", "hidden", DIGEST): [],
              ("perfgraphs/dippm", "cpu-torch-fp32", "latency_ms", "", "hidden", "cd" * 32): [],
              ("perfgraphs/dippm", "cpu-torch-fp32", "latency_ms", "", "public", ""): []}
    order = boards.group_order(groups)
    assert [k[4:] for k in order[:2]] == [("public", ""), ("hidden", DIGEST)]  # the live set before the other
    # control: reading each file's first word, as before, stops on the empty one
    with pytest.raises(IndexError):
        {p.read_text().split()[0] for p in tmp_path.glob("*.sha256")}
