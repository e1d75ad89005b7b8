"""Thirty-third adversarial pass (2026-12-03), submit side: `leaderboard reproduce --submission`
scored a handed-over work tree that passed every check while holding files other than the record's
commit, and a folder or results name the system refuses was an internal error. Each test is one
attack that worked before its fix, with a control."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from perfgraphs.leaderboard import reproduce
from perfgraphs.leaderboard.records.results import RESULTS_DIR
from test_leaderboard_review_30b import _git


def _clone(tmp_path: Path, sub: str = "") -> tuple[Path, Path]:
    """(the clone's top, the submission folder in it): the ridge example committed."""
    top = tmp_path / "clone"
    folder = top / sub if sub else top
    shutil.copytree(Path(RESULTS_DIR).parent / "examples" / "ridge", folder)
    _git(top, "init", "-q")
    _git(top, "add", "-A")
    _git(top, "commit", "-qm", "honest")
    return top, folder


def _commit(top: Path, path: Path, data: bytes) -> str:
    path.write_bytes(data)
    _git(top, "add", "-A")
    _git(top, "commit", "-qm", "more")
    return _git(top, "rev-parse", "HEAD").strip()


def _attack(kind: str, top: Path, folder: Path) -> tuple[str, str]:
    """Make ``folder``'s tree differ from the commit it names while git sees none: (the commit,
    the file of the folder that differs)."""
    if kind == "replace":  # HEAD reads as the honest commit; every comparison reads the tuned one
        honest = _git(top, "rev-parse", "HEAD").strip()
        tuned = _commit(top, folder / "predictor.py", (folder / "predictor.py").read_bytes() + b"\nTUNED = 1\n")
        _git(top, "replace", honest, tuned)
        _git(top, "reset", "-q", "--soft", honest)
        return honest, "predictor.py"
    if kind == "ignorecase":  # an untracked helper.py beside the commit's Helper.py
        commit = _commit(top, folder / "Helper.py", b"SCALE = 1.0\n")
        _git(top, "config", "core.ignorecase", "true")
        (folder / "helper.py").write_text("SCALE = 0.9\n")
        return commit, "helper.py"
    if kind == "attributes":  # a data file's bytes differ in its line breaks
        commit = _commit(top, folder / "w.bin", b"ab\ncd\n")
        (top / ".git" / "info" / "attributes").write_text("w.bin text\n")
        (folder / "w.bin").write_bytes(b"ab\r\ncd\r\n")
        _git(top, "add", "-A")  # the index's size the new file's (a copied folder's stat differs: git re-hashes)
        os.utime(folder / "w.bin", (1e9, 1e9))
        return commit, "w.bin"
    # a file named .git in a subfolder: git never lists it; a predictor globbing weights/* reads it
    commit = _commit(top, folder / "weights.txt", b"1\n")
    (folder / "weights").mkdir()
    (folder / "weights" / ".git").write_bytes(b"tuned weights")
    return commit, "weights/.git"


@pytest.mark.parametrize("kind, sub", [("replace", ""), ("ignorecase", ""), ("attributes", "entry"), ("dotgit", "")])
def test_reproduce_scores_a_fresh_clone_of_the_commit(tmp_path, monkeypatch, kind, sub):
    """Attack: the folder handed to `leaderboard reproduce DATASET LINE --submission FOLDER` was a
    clone at the record's commit whose tree held other files, and every check passed (HEAD the
    commit, `git status --ignored --untracked-files=all` empty, no index flag, a clone's config
    keys only): a ``refs/replace/`` ref made git compare with a tuned commit (predictor.py edited,
    HEAD still the record's hash); ``core.ignorecase=true`` hid an untracked ``helper.py`` beside
    the commit's ``Helper.py``; ``.git/info/attributes`` (``w.bin text``) hid a data file's
    changed line breaks; a file named ``.git`` in a subfolder is never listed. The folder was
    scored as it was, and "reproduced". Now reproduce scores a fresh one-commit clone of the
    folder's repository at HEAD: the commit's own files. Control: the check still passes such a
    folder (the attack's effect), and an honest clone is scored with the same files it holds."""
    top, folder = _clone(tmp_path, sub)
    commit, changed = _attack(kind, top, folder)
    record = {"method": "tweak-ridge", "authors": "Zed Q. Tester", "tier": "reproduced", "test_set": "public",
              "code_commit": commit, "dataset": "dippm", "config": "cpu-torch-fp32", "target": "latency_ms",
              "per_seed": [{"seed": s, "mape_pct": 10.0} for s in range(5)]}
    reproduce._check_contributor(record, folder)  # every check passes: the tree is not the commit's
    scored: dict[str, bytes | None] = {}

    def score_once(cmd, cwd, tmp, commit_):
        where = Path(cmd[cmd.index("submit") + 1])
        scored.update({p: (where / p).read_bytes() if (where / p).is_file() else None
                       for p in (changed, "predictor.py", "submission.yaml")})
        return dict(record)

    monkeypatch.setattr(reproduce, "read_record", lambda *a, **k: record)
    monkeypatch.setattr(reproduce, "_score_once", score_once)
    assert reproduce.reproduce("dippm", 1, submission=folder).ok
    prefix = f"{sub}/" if sub else ""
    shown = subprocess.run(["git", "--no-replace-objects", "show", f"{commit}:{prefix}{changed}"], cwd=top,
                           capture_output=True)
    assert scored[changed] == (shown.stdout if shown.returncode == 0 else None)  # the commit's bytes (or none)
    assert scored[changed] != (folder / changed).read_bytes()  # not the handed-over tree's
    # control: an honest clone is scored with the files it holds
    honest_top, honest = _clone(tmp_path / "honest", sub)
    record["code_commit"] = _git(honest_top, "rev-parse", "HEAD").strip()
    reproduce.reproduce("dippm", 1, submission=honest)
    assert scored["predictor.py"] == (honest / "predictor.py").read_bytes()
    assert scored["submission.yaml"] == (honest / "submission.yaml").read_bytes()


def test_reproduce_says_one_line_for_a_name_the_system_refuses(tmp_path):
    """Attack: `leaderboard reproduce dippm 1 --submission /tmp/<300 characters>` (or ``--results``
    so named) stopped with "internal error: OSError: [Errno 36] File name too long" (``is_file``
    and ``is_symlink`` raise it). Now each is one ReproduceError line. Control: the same name
    raises OSError from ``Path.is_file``, and a short missing folder is the same one line."""
    long = tmp_path / ("a" * 300)
    with pytest.raises(OSError):
        (long / "submission.yaml").is_file()
    with pytest.raises(reproduce.ReproduceError, match="cannot read"):
        reproduce.read_record("dippm", 1, long)
    record = {"method": "zed-net", "authors": "Zed Q. Tester", "tier": "verified", "test_set": "public",
              "code_commit": "0" * 40, "per_seed": [{"seed": s} for s in range(5)]}
    for folder in (long, tmp_path / "missing"):
        with pytest.raises(reproduce.ReproduceError, match="has no submission.yaml"):
            reproduce._check_contributor(record, folder)


def test_a_record_write_that_fails_part_way_leaves_the_results_file_as_it_was(tmp_path, monkeypatch):
    """Attack: `submit --results FOLDER` on a nearly full disk (a 64 kB tmpfs): the record's write
    stopped part way, `submit` ended with "internal error: OSError: [Errno 28] No space left on
    device", and the file kept 4 kB of the record without a line break, a line every board then
    skipped with a warning. Now the part written is taken back and `submit` says so in one line
    (InvalidRecordError, which it reports as a problem). Control: with room, the same record is
    appended whole."""
    import errno
    import json

    from perfgraphs.leaderboard.records import results

    line = Path(RESULTS_DIR, "dippm.jsonl").read_text().splitlines(keepends=True)[0]
    record = {**json.loads(line), "method": "zed-net", "authors": "Zed Q. Tester"}
    path = tmp_path / "dippm.jsonl"
    path.write_text(line)
    real_write = os.write

    def full_disk(fd, data):
        if os.path.samefile(f"/proc/self/fd/{fd}", path):
            if len(data) > 4096:
                return real_write(fd, bytes(data[:4096]))
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(results.InvalidRecordError, match="could not be written.*as it was"):
        results.append_entry(results.Entry(**record), root=tmp_path)
    assert path.read_text() == line  # nothing of the record left behind
    monkeypatch.setattr(os, "write", real_write)
    results.append_entry(results.Entry(**record), root=tmp_path)  # control: with room, appended whole
    lines = path.read_text().splitlines()
    assert len(lines) == 2 and json.loads(lines[1])["method"] == "zed-net"


def test_reproduce_refuses_a_repository_that_borrows_objects(tmp_path):
    """Hardening of the fix above: the fresh clone reproduce scores takes the objects the commit
    names wherever the handed-over repository finds them, and ``.git/objects/info/alternates`` can
    point at any repository of the reviewer's machine (a commit naming a blob only the reviewer's
    checkout holds cloned with it). A fresh clone has no such file: a repository with one is
    refused. Control: the same clone without it passes."""
    top, folder = _clone(tmp_path)
    record = {"method": "tweak-ridge", "authors": "Zed Q. Tester", "tier": "reproduced", "test_set": "public",
              "code_commit": _git(top, "rev-parse", "HEAD").strip(), "per_seed": [{"seed": s} for s in range(5)]}
    reproduce._check_contributor(record, folder)  # control
    alternates = top / ".git" / "objects" / "info" / "alternates"
    alternates.write_text(str(Path(RESULTS_DIR).parent.parent / ".git" / "objects") + "\n")
    with pytest.raises(reproduce.ReproduceError, match="objects/info/alternates"):
        reproduce._check_contributor(record, folder)


def test_a_commit_prefix_names_no_one_commit(tmp_path):
    """Attack (reported by the thirty-third pass, fixed after it): a record's ``code_commit`` could
    be 7-40 hex digits, and `reproduce --submission` checked only that the clone's HEAD *starts
    with* it: a commit made to share a 7-digit prefix (about 2^28 tries) with the published one was
    scored as the record's code. Now a contributor's record is reproduced at its full 40-hex hash
    only, and `submission.yaml` takes a full hash (or ``auto``). Control: the same record with the
    full hash passes the folder checks, and ``auto`` resolves to the full hash."""
    from perfgraphs.leaderboard.submission import SubmissionError, load_submission
    from test_leaderboard_review_30b import contributor_clone

    folder, record = contributor_clone(tmp_path)
    reproduce._check_contributor(record, folder)  # control: the full hash
    with pytest.raises(reproduce.ReproduceError, match="not a full 40-hex commit hash"):
        reproduce._check_contributor({**record, "code_commit": record["code_commit"][:7]}, folder)
    meta = folder / "submission.yaml"
    auto = meta.read_text()
    assert "commit: auto" in auto
    assert load_submission(folder).meta.code_commit == record["code_commit"]  # control: auto is the full hash
    meta.write_text(auto.replace("commit: auto", f"commit: {record['code_commit'][:7]}"))
    with pytest.raises(SubmissionError, match="full git commit hash"):
        load_submission(folder)
