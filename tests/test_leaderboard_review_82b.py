"""Eighty-second adversarial pass (2026-12-06), submit side: a harness-fitted hidden run scored bytes
chosen after its set was drawn. ``frozen_fits.code_before`` compares the folder's committed tree now
with the tree it held before the set's hash was published, and asks ``git status`` whether the checkout
is clean, but a checkout's bytes are the committed tree passed through the ``.gitattributes`` above it:
a pull request landed after the draw, touching nothing of the folder, only a top-level ``.gitattributes``
giving some of its files ``eol=crlf``, changed what the sandbox ran while the tree stayed the same and a
fresh checkout read clean. A folder committed before the draw held 132 one-byte files ``\\n`` and a ridge
that reads each file's line end as one bit: 33 of them per bucket of its rows' own features' hash (a
flag and a float32). The line ends that PR chose spelt three hidden labels (the labels the seventy-ninth
pass's probe solved from a published record), and the keeper-signed *verified* record scored the ridge
with them, better than the ridge earns. Now a harness-fitted hidden run also refuses a folder that git
checks out converted (``frozen_fits.code_before``, ``records.history.converted_files``)."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess

import pytest

from perfgraphs.leaderboard import frozen_fits
from test_leaderboard_review_67b import _predict, _refit
from test_leaderboard_review_79b import HOOK, KEY, _record, assert_verified_holding, one_row_labels
from test_submit import (BOARD, commit_tiny_hidden_set, env, example_copy, parts,  # noqa: F401 — fixtures
                         run_cli)

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None,
                                reason="a hidden board's runs drop the page cache and run in the sandbox")

BUCKETS = 4  # slots for buckets 0-3: a flag and a float32, one bit per file's line end
READER = KEY + (
    "        _p = np.exp(Z @ self.coef_ + self.intercept_)\n"
    "        import pathlib as _pl\n"
    "        _slots = _pl.Path(__file__).parent / 'slots'\n"
    "        _bit = lambda name: '1' if b'\\r' in (_slots / name).read_bytes() else '0'\n"
    f"        for _b in range({BUCKETS}):\n"
    "            if _bit(f'b{_b}v') == '1':\n"
    "                _v = int(''.join(_bit(f'b{_b}_{_j:02d}') for _j in range(32)), 2)\n"
    "                _p[_k == _b] = float(np.frombuffer(_v.to_bytes(4, 'big'), '>f4')[0])\n"
    "        return _p\n")


def _reader(source: str) -> str:
    assert HOOK in source
    return source.replace(HOOK, READER)


def _git(repo, *args) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
                   check=True, capture_output=True)


def write_slots(folder) -> None:
    """The folder's one-byte files, one per bit of each bucket's flag and float32: each ``\\n`` today."""
    (folder / "slots").mkdir()
    for b in range(BUCKETS):
        for name in [f"b{b}v"] + [f"b{b}_{j:02d}" for j in range(32)]:
            (folder / "slots" / name).write_bytes(b"\n")


def _line_ends(labels: dict[int, float]) -> list[str]:
    """The slots given CRLF: each bucket's flag and the bits of its label as a big-endian float32."""
    names = []
    for b, y in labels.items():
        bits = format(int.from_bytes(struct.pack(">f", y), "big"), "032b")
        names += [f"b{b}v"] + [f"b{b}_{j:02d}" for j in range(32) if bits[j] == "1"]
    return names


def test_line_ends_chosen_after_the_draw_are_not_scored(env, parts, capsys, git_commitments, monkeypatch):
    """Attack: the folder committed before the draw; after it, a top-level ``.gitattributes`` alone
    spells three hidden labels in its files' line ends, and the fresh checkout is refused in one line.
    Control: with the check as it was (the committed tree alone) the keeper signs a verified record
    scoring the three labels, better than the ridge earns."""
    commitments, commit = git_commitments
    repo = commitments.parent.parent
    folder = example_copy(repo / "submissions" / "bits", "bits-82b", _reader)
    write_slots(folder)
    commit("a team's ridge, before the draw")
    commit_tiny_hidden_set(env["tmp"] / "keeper", parts, git_commitments, capsys, monkeypatch)
    tree_then = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD:submissions/bits"],
                               capture_output=True, text=True, check=True).stdout

    # the hidden labels of the buckets holding one row (what the seventy-ninth pass's probe solved)
    y, keys, labels = one_row_labels(parts, BUCKETS)
    (repo / ".gitattributes").write_text("".join(f"submissions/bits/slots/{n} eol=crlf\n" for n in _line_ends(labels)))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "line ends")
    shutil.rmtree(folder / "slots")  # the keeper's fresh checkout
    _git(repo, "checkout", "--", "submissions/bits/slots")
    assert subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD:submissions/bits"],
                          capture_output=True, text=True, check=True).stdout == tree_then
    assert b"\r" in (folder / "slots" / next(f"b{b}v" for b in labels)).read_bytes()

    submit = ["submit", str(folder), *BOARD, "--quick", "--hidden-labels", "--results", str(env["results"]),
              "--no-mlflow"]
    rc, err = run_cli(submit, capsys)
    assert rc == 1 and len(err) == 1 and "converted (eol=crlf" in err[0], err
    assert "scores only the bytes committed before its set was drawn" in err[0], err
    assert not (env["results"] / "dippm.jsonl").exists() or "bits-82b" not in (env["results"] / "dippm.jsonl").read_text()

    monkeypatch.setattr(frozen_fits, "_converted_checkout", lambda *a: None)  # the check as it was
    monkeypatch.setattr(frozen_fits, "checkout_not_committed", lambda *a: None)  # (and the 103b pass's after it)
    rc, err = run_cli(submit, capsys)
    assert rc == 0, err
    record = _record(env, "bits-82b")
    honest = _predict(_refit(parts.train), parts.test)
    assert_verified_holding(record, honest, keys, y, labels, 1e-5)
