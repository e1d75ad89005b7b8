"""Thirtieth adversarial pass (2026-12-03), submit side: the record store's append (what `submit`
writes) and `leaderboard reproduce --submission`. Each test is one attack that worked before its
fix, with a control."""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from perfgraphs.leaderboard.records.results import (RESULTS_DIR, Entry, InvalidRecordError, append_entry, file_lines,
                                                    read_line, results_snapshot)


def _entry(commit: str = "a" * 40) -> Entry:
    """A valid record of the repository's dippm file, a contributor's at a commit of its own (no duplicate):
    its last public-set record (a hidden-set one is keeper-signed, and another method's name breaks that)."""
    record = next(r for r in map(json.loads, reversed(file_lines(Path(RESULTS_DIR) / "dippm.jsonl")))
                  if r.get("test_set", "public") == "public")
    return replace(Entry(**{k: v for k, v in record.items() if k in Entry.__dataclass_fields__}), code_commit=commit,
                   method="tweak-ridge", authors="Zed Q. Tester")


def _valid(path: Path) -> int:
    return sum(1 for line in file_lines(path) if line.strip() and read_line(line, path)[1] is None)


def _results(tmp_path: Path) -> Path:
    root = tmp_path / "results"
    root.mkdir(parents=True)
    shutil.copy(Path(RESULTS_DIR) / "dippm.jsonl", root / "dippm.jsonl")
    return root


def test_append_after_a_last_record_without_line_break(tmp_path):
    """Attack: a pull request leaves dippm.jsonl without a line break after its last record (every
    record still reads, and the boards show them all). The next `submit` appended its record on
    that line: one invalid line, the last record ranked before and the new one both gone from the
    board (86 valid records before, 85 after, and submit said "recorded"). Now a line break is
    written first. Control: a file that ends with one is appended to as it was, byte for byte."""
    root = _results(tmp_path)
    path = root / "dippm.jsonl"
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    before = _valid(path)
    append_entry(_entry(), root=root, before=results_snapshot(root))
    assert _valid(path) == before + 1
    control = _results(tmp_path / "control")
    old = (control / "dippm.jsonl").read_bytes()
    append_entry(_entry(), root=control, before=results_snapshot(control))
    new = (control / "dippm.jsonl").read_bytes()
    assert new.startswith(old) and new[len(old):].count(b"\n") == 1 and _valid(control / "dippm.jsonl") == before + 1


def test_append_refuses_a_results_file_that_is_a_link(tmp_path):
    """Attack: dippm.jsonl in the results folder is a symbolic link (a pull request can commit one;
    the boards skip it as no results file). `submit` opened it for appending through the link and
    wrote its record into the file it named, outside --results. Now refused in one line, the
    target untouched. Control: the same folder with a plain file is appended to."""
    root = tmp_path / "results"
    root.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    (root / "dippm.jsonl").symlink_to(outside)
    with pytest.raises(InvalidRecordError, match="is not a file"):
        append_entry(_entry(), root=root, before=results_snapshot(root))
    assert outside.read_text() == "precious\n"
    (root / "dippm.jsonl").unlink()
    append_entry(_entry(), root=root, before=results_snapshot(root))
    assert _valid(root / "dippm.jsonl") == 1 and outside.read_text() == "precious\n"


def _git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=x", "-c", "user.email=x@x", *args], cwd=folder, check=True,
                          capture_output=True, text=True).stdout


def contributor_clone(tmp_path: Path) -> tuple[Path, dict]:
    """A contributor's clone of the ridge example, one commit, and a record naming that commit."""
    folder = tmp_path / "clone"
    shutil.copytree(Path(RESULTS_DIR).parent / "examples" / "ridge", folder)
    _git(folder, "init", "-q")
    _git(folder, "add", "-A")
    _git(folder, "commit", "-qm", "init")
    head = _git(folder, "rev-parse", "HEAD").strip()
    return folder, {"method": "tweak-ridge", "authors": "Zed Q. Tester", "tier": "reproduced", "test_set": "public",
                    "code_commit": head, "per_seed": [{"seed": s} for s in range(5)]}


def test_reproduce_refuses_a_folder_with_files_git_ignores(tmp_path):
    """Attack: a contributor's predictor multiplies its predictions by the number in tweak.txt when
    that file is there; tweak.txt is in the clone's .git/info/exclude (or a committed .gitignore),
    so `git status --porcelain` is empty. Submitted with the file, the record's scores are not
    the commit's; `leaderboard reproduce dippm 1 --submission FOLDER` on the same folder said
    "reproduced" (MAPE 18.84 % each seed, the commit's code alone scores 20.52 %). Now files
    outside the commit, ignored ones included, are refused before anything runs. Control: the
    same clone without the file passes the folder checks."""
    from perfgraphs.leaderboard import reproduce

    folder, record = contributor_clone(tmp_path)
    reproduce._check_contributor(record, folder)  # control: a clean clone
    with open(folder / ".git" / "info" / "exclude", "a") as f:
        f.write("tweak.txt\n")
    (folder / "tweak.txt").write_text("0.9\n")
    assert _git(folder, "status", "--porcelain", "--", ".") == ""  # what was checked before
    with pytest.raises(reproduce.ReproduceError, match="outside the commit.*tweak.txt"):
        reproduce._check_contributor(record, folder)


def test_submit_refuses_a_results_folder_under_a_file_before_scoring(tmp_path, monkeypatch):
    """Attack: `perfgraphs submit DIR --results FILE/sub`, FILE a regular file (bad input). Every
    seed ran, then `submit` stopped with "perfgraphs: internal error: NotADirectoryError" (`check`
    had said OK). Now refused in one line before anything is scored, and append_entry says the
    same in one line. Control: a folder that does not exist yet (under a folder) passes."""
    from perfgraphs.leaderboard import submit as submit_mod

    afile = tmp_path / "afile"
    afile.write_text("")
    scored = []
    monkeypatch.setattr(submit_mod, "evaluate_submission", lambda *a, **k: scored.append(a) or submit_mod.Verdict())
    verdict, written = submit_mod.submit(tmp_path, submit_mod.SubmitOptions(results_root=afile / "sub"))
    assert written is None and not scored and len(verdict.problems) == 1 and "is not a folder" in verdict.problems[0]
    with pytest.raises(InvalidRecordError, match="not a usable folder"):
        append_entry(_entry(), root=afile / "sub")
    assert submit_mod._results_folder_problem(tmp_path / "new" / "results") is None  # control
    verdict, _ = submit_mod.submit(tmp_path, submit_mod.SubmitOptions(results_root=tmp_path / "new" / "results"))
    assert len(scored) == 1
