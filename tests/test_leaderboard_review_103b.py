"""Hundred-and-third adversarial pass, side b (hidden rounds: what was committed before the draw).

``frozen_fits.code_before`` took a harness-fitted hidden run's folder for its committed bytes when its
tree was the tree of before the draw, ``git status`` was clean and no ``.gitattributes`` converted it
*now* (the eighty-second pass's check). But git trusts a file whose stat is what its index recorded, and
the bytes a checkout wrote stay whatever attributes ruled when it wrote them. A pull request after the
draw that gave some of a folder's 132 one-byte files ``eol=crlf`` (the 82b ridge, which reads each file's
line end as a bit), checked out so (a fresh clone), and a second pull request that took the line out
again, left the tree, the status and the attributes as they were before the draw; the line ends spelt
three of the tiny set's 31 hidden labels and the keeper signed a *verified* record scoring them, better
than the ridge earns. Now the folder's files are hashed as git hashes blobs and compared with its
committed tree (``frozen_fits.checkout_not_committed``): the bytes the sandbox runs are the ones dated.
"""

from __future__ import annotations

import os
import shutil
import time

import pytest

from perfgraphs.leaderboard import frozen_fits
from test_leaderboard_review_67b import _predict, _refit
from test_leaderboard_review_79b import _record, assert_verified_holding, one_row_labels
from test_leaderboard_review_82b import BUCKETS, _git, _line_ends, _reader, write_slots
from test_submit import (BOARD, commit_tiny_hidden_set, env, example_copy, parts,  # noqa: F401 — fixtures
                         run_cli)

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None,
                                reason="a hidden board's runs drop the page cache and run in the sandbox")


def test_line_ends_left_by_an_attribute_taken_out_again_are_not_scored(env, parts, capsys, git_commitments,
                                                                       monkeypatch):
    """Attack: the 82b folder committed before the draw; after it one commit gives some of its files
    ``eol=crlf`` (checked out so a while ago: the keeper's clone) and a second takes the attribute out;
    tree, status and attributes are as before the draw, and the run is refused in one line. Control:
    with the byte check off the keeper signs a verified record scoring three labels, better than the ridge."""
    commitments, commit = git_commitments
    repo = commitments.parent.parent
    folder = example_copy(repo / "submissions" / "bits", "bits-103b", _reader)
    write_slots(folder)
    commit("a team's ridge, before the draw")
    commit_tiny_hidden_set(env["tmp"] / "keeper", parts, git_commitments, capsys, monkeypatch)

    y, keys, labels = one_row_labels(parts, BUCKETS)
    (repo / ".gitattributes").write_text("".join(f"submissions/bits/slots/{n} eol=crlf\n" for n in _line_ends(labels)))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "line ends (a pull request after the draw)")
    shutil.rmtree(folder / "slots")  # the keeper's clone, made while the attribute stood
    _git(repo, "checkout", "--", "submissions/bits/slots")
    past = time.time() - 60  # ... a while before the next pull: its index entries are not racy
    for path in (folder / "slots").iterdir():
        os.utime(path, (past, past))
    _git(repo, "update-index", "-q", "--refresh")
    (repo / ".gitattributes").unlink()
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "the attribute taken out (a second pull request)")
    assert b"\r" in (folder / "slots" / next(f"b{b}v" for b in labels)).read_bytes()
    from perfgraphs.leaderboard.records.history import git
    assert git(repo, "status", "--porcelain", "--ignored", "--untracked-files=all") == ""

    submit = ["submit", str(folder), *BOARD, "--quick", "--hidden-labels", "--results", str(env["results"]),
              "--no-mlflow"]
    rc, err = run_cli(submit, capsys)
    assert rc == 1 and len(err) == 1 and "is not its committed bytes (slots/b" in err[0], err
    assert not (env["results"] / "dippm.jsonl").exists() or "bits-103b" not in (env["results"] / "dippm.jsonl").read_text()

    monkeypatch.setattr(frozen_fits, "checkout_not_committed", lambda *a: None)  # the check off: the attack scores
    rc, err = run_cli(submit, capsys)
    assert rc == 0, err
    assert_verified_holding(_record(env, "bits-103b"), _predict(_refit(parts.train), parts.test), keys, y, labels, 1e-5)
