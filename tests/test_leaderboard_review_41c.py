"""Forty-first adversarial pass (2026-12-04), submit side, the lead it left open, closed: `leaderboard
reproduce` of a reference checked its commit out through the commit's own `.gitattributes`."""

from __future__ import annotations

import subprocess
from pathlib import Path

UNITS = 'UNIT = "\u00a5"  # "; raise RuntimeError("the hidden line ran")\n'


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=someone", "-c", "user.email=s@example.org", *args],
                          check=True, capture_output=True, text=True).stdout


def test_a_reference_is_reproduced_from_its_commit_byte_for_byte(tmp_path):
    """Attack: a commit holds `units.py` with `UNIT = "<yen sign>"  # "; raise ...` (a string and a
    comment, as `git show` and a pull request show it) and a `.gitattributes` line `units.py
    working-tree-encoding=SHIFT_JIS`. `leaderboard reproduce` of a reference checked the commit out
    with `git worktree add`, which applies it: the yen sign became Shift_JIS's backslash byte, the
    string swallowed the comment sign, and the raise was code (the forty-first pass's fix covered
    `reproduce --submission` only). Now the reference's tree is a clone sharing the repository's
    objects, checked out under its own `info/attributes` (`reproduce._reference_tree`): the file is
    the commit's bytes. Control: the worktree of before checks out the converted file."""
    from perfgraphs.leaderboard import reproduce
    from perfgraphs.leaderboard.records.history import git

    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    (root / ".gitattributes").write_text("units.py working-tree-encoding=SHIFT_JIS\n")
    _git(root, "add", ".gitattributes")
    _git(root, "commit", "-q", "-m", "attributes")
    # the blob is UTF-8 (git converts the Shift_JIS work tree file on add): write it as the attribute says
    (root / "units.py").write_bytes(UNITS.encode("shift_jis"))
    _git(root, "add", "units.py")
    _git(root, "commit", "-q", "-m", "units")
    commit = _git(root, "rev-parse", "HEAD").strip()
    blob = subprocess.run(["git", "-C", str(root), "cat-file", "blob", f"{commit}:units.py"], check=True,
                          capture_output=True).stdout
    assert blob == UNITS.encode("utf-8")  # what a reviewer reads

    tree = reproduce._reference_tree(root, commit, tmp_path / "tree")
    assert (tree / "units.py").read_bytes() == blob
    compile((tree / "units.py").read_bytes().decode("utf-8"), "units.py", "exec")  # one assignment, a comment

    worktree = tmp_path / "worktree"  # control: the worktree of before
    assert git(root, "worktree", "add", "--detach", "--quiet", str(worktree), commit) is not None
    converted = (worktree / "units.py").read_bytes()
    assert converted != blob and b'"\\"' in converted, converted
