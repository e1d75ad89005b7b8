"""Hundred-and-twenty-sixth pass (2026-12-08), side c: a reference run listed off the first-parent line.

Found (125c's lead): ``reference_runs.once_listed`` keeps every digest a version of
``leaderboard/reference_records.sha256`` listed, but read the file's history on HEAD's first-parent line only
(``history.line_changes``). A pull request forked before a reference run landed (its results line and its
manifest line, one commit of the harness) that merged main, dropping both lines in its merge, and landed by
fast-forward (RULES forbids it; the history does not say how it was made) put the run's commit on a second
parent: the first-parent line never held either line, so neither a removal nor a listing was read, and the
official ML.ENERGY energy-per-token board re-ranked in silence: ``serving-prior-boost`` (rank 1, 21.78 %) gone,
``static-mlp`` rank 1 "best" (was 2), ``llm-xgboost`` 2 (was 3), stderr empty, the manifest on HEAD a line short.
Now a digest any version of the manifest reachable from HEAD held, through any parent, stays listed
(``reference_runs._listed_in_history``), and the run is named in the one warning line 123b added. The control
reads the manifest's first-parent history alone and the re-ranked board reads in silence again.
"""

from __future__ import annotations

import json
import subprocess

from perfgraphs.leaderboard.records import reference_runs
from perfgraphs.leaderboard.records.results import run_digest
from test_leaderboard_review_104c import _board_records
from test_leaderboard_review_123b import _commit, _leaderboard, _show


def _git(folder, *args: str) -> None:
    subprocess.run(["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True)


def _without(path, keep) -> None:
    path.write_text("".join(x for x in path.read_text().splitlines(keepends=True) if keep(x)))


def _fast_forwarded(folder, references: list[dict], gone: dict):
    """A leaderboard whose main line landed the run ``gone`` (its results and manifest lines, one commit), then
    fast-forwarded to a pull request forked before it that merged main dropping both lines."""
    rest = [r for r in references if r is not gone]
    _leaderboard(folder, rest, rest)
    subprocess.run(["git", "init", "-q", "-b", "main", str(folder)], check=True)
    _commit(folder, "records")
    _git(folder, "branch", "tidy")
    with open(folder / "results" / "llm.jsonl", "a") as f:
        f.write(json.dumps(gone) + "\n")
    with open(folder / reference_runs.MANIFEST_NAME, "a") as f:
        f.write(f"{run_digest(json.dumps(gone))}  {gone['method']}\n")
    _commit(folder, "serving-prior-boost: a reference run")
    _git(folder, "checkout", "-q", "tidy")
    (folder / "notes.md").write_text("a pull request's work\n")
    _commit(folder, "a pull request's work")
    _git(folder, "merge", "-q", "--no-ff", "--no-commit", "main")
    _without(folder / "results" / "llm.jsonl", lambda x: json.loads(x) != gone)
    _without(folder / reference_runs.MANIFEST_NAME, lambda x: x.split()[1:] != [gone["method"]])
    _commit(folder, "Merge branch 'main' into tidy")
    _git(folder, "checkout", "-q", "main")
    _git(folder, "merge", "-q", "--ff-only", "tidy")
    assert len((folder / reference_runs.MANIFEST_NAME).read_text().splitlines()) == len(references) - 1
    return folder


def test_a_reference_run_on_a_second_parent_taken_out_is_named(tmp_path, capsys, monkeypatch):
    """Attack: the rank-1 reference's run landed, then a fast-forwarded merge dropped its two lines. Guard: one
    warning line naming it. Control: the manifest's first-parent history alone, the re-ranked board in silence."""
    references = _board_records()
    gone = next(r for r in references if r["method"] == "serving-prior-boost")
    folder = _fast_forwarded(tmp_path / "leaderboard", references, gone)
    ranks, err = _show(folder, capsys, monkeypatch)
    assert "serving-prior-boost" not in ranks, ranks
    assert (ranks["static-mlp"], ranks["llm-xgboost"]) == ("1", "2"), ranks  # each a rank up
    assert err.count("\n") == 1 and "lists 1 reference run whose line no results file" in err, err
    assert "serving-prior-boost" in err, err

    def first_parent_only(manifest):  # control: the reading as it was
        from perfgraphs.leaderboard.records.history import line_changes

        words = (text.split() for _, delta, text in line_changes(manifest) or [] if delta < 0)
        return {w[0]: " ".join(w[1:]) for w in words if w and reference_runs._DIGEST.fullmatch(w[0])}

    monkeypatch.setattr(reference_runs, "_listed_in_history", first_parent_only)
    ranks, err = _show(folder, capsys, monkeypatch)
    assert (ranks["static-mlp"], ranks["llm-xgboost"]) == ("1", "2") and err == "", (ranks, err)


def test_the_main_line_reads_as_before(tmp_path, capsys, monkeypatch):
    """No run taken out, no line printed; a run deleted on the first-parent line is named as 125c named it."""
    references = _board_records()
    folder = _leaderboard(tmp_path / "leaderboard", references)
    subprocess.run(["git", "init", "-q", "-b", "main", str(folder)], check=True)
    _commit(folder, "records")
    ranks, err = _show(folder, capsys, monkeypatch)
    assert (ranks["serving-prior-boost"], ranks["static-mlp"]) == ("1", "2") and err == "", (ranks, err)
    gone = next(r for r in references if r["method"] == "serving-prior-boost")
    _without(folder / "results" / "llm.jsonl", lambda x: json.loads(x) != gone)
    _without(folder / reference_runs.MANIFEST_NAME, lambda x: x.split()[1:] != [gone["method"]])
    _commit(folder, "remove stale lines")
    ranks, err = _show(folder, capsys, monkeypatch)
    assert ranks["static-mlp"] == "1" and err.count("\n") == 1 and "serving-prior-boost of" in err, (ranks, err)
