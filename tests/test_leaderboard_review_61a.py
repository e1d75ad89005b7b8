"""Sixty-first adversarial pass (2026-12-05), read side: when a reference folder reached the main line
(the thirty-sixth pass's rule: a record by other authors under a reference's name is shown when its line
came first) was read from a ``git log --name-only`` whose commits were marked by lines starting ``@@``,
and a path is printed as it is. A pull request that added the folder ``leaderboard/reference/gnn/`` (a
"coming soon" README, the thirty-sixth pass's pull request) and beside it a file named ``@@`` followed
by the hash of the repository's first commit had that file read as the first commit's line: the folder
"arrived" there, before Alice's ``gnn-x``, and every board stopped showing her record. A file named
``@@notes`` instead made the folder's first commit no commit at all, so the folder never arrived: every
record under the reference's name, merged after it by any authors, was shown. And the log was split by
``str.splitlines``: a note in a folder ``README<U+2028>gnn/`` read as a file of ``gnn/``, and a reference
folder ``gnn`` merged later "arrived" with that note, before a team's ``gnn-x`` merged in between. Commits
are now marked by a NUL, which no path holds, and the log split at line breaks only
(``history.COMMIT_MARK``, ``history.paths_by_commit``)."""

from __future__ import annotations

import json

import pytest

from test_leaderboard_review_36a import _git
from test_leaderboard_review_37a import _public_record, _show


@pytest.fixture(autouse=True)
def _forget_tmp_references():
    """What was cached under a test's tmp reference folder is forgotten after it
    (test_leaderboard_review_40a's fixture)."""
    from perfgraphs.leaderboard.records import history, results, trust

    yield
    for cached in (trust.reference_spellings, trust._reference_code_problem, trust._reference_files,
                   history._folder_arrivals):
        cached.cache_clear()
    results.forget_checked()


def _line(method: str, authors: str) -> str:
    return json.dumps(_public_record("static-mlp", method=method, authors=authors, run_identity=method,
                                     tier="reproduced"), sort_keys=True)


def _repo(tmp_path, monkeypatch, marker: str):
    """A repository whose results hold Alice's ``gnn-x`` (its first commit), into which a pull request
    adding the reference folder ``gnn`` and, beside it, a file named ``marker`` (``{root}``: the first
    commit's hash) was merged as a merge commit; then Bob's ``gnn-y``, merged after the folder."""
    from perfgraphs.leaderboard.records import trust

    repo = tmp_path / "repo"
    (repo / "results").mkdir(parents=True)
    (repo / "reference").mkdir()
    _git(repo, "init", "-q", "-b", "main")
    path = repo / "results" / "dippm.jsonl"
    path.write_text(_line("gnn-x", "Alice Author") + "\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "gnn-x by Alice")
    root = _git(repo, "rev-parse", "HEAD").strip()
    _git(repo, "checkout", "-q", "-b", "reference-gnn")
    (repo / "reference" / "gnn").mkdir()
    (repo / "reference" / "gnn" / "README.md").write_text("a reference baseline, coming soon\n")
    if marker:
        (repo / "reference" / marker.format(root=root)).write_text("notes on the reference baselines\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "reference gnn, coming soon")
    _git(repo, "checkout", "-q", "main")
    _git(repo, "merge", "-q", "--no-ff", "reference-gnn", "-m", "Merge pull request: reference gnn")
    with path.open("a") as f:
        f.write(_line("gnn-y", "Bob Builder") + "\n")
    _git(repo, "commit", "-q", "-am", "gnn-y by Bob")
    monkeypatch.setattr(trust, "REFERENCE_DIR", repo / "reference")
    return repo


def _shown(repo, capsys) -> tuple[list[str], list[str]]:
    """(the methods `leaderboard show` lists, the readers' warnings)."""
    from perfgraphs.leaderboard.records import history, results, trust

    trust.reference_spellings.cache_clear()
    history._folder_arrivals.cache_clear()
    results.forget_checked()
    skipped: list[str] = []
    methods = [e.method for e in results.read_entries("dippm", repo / "results", skipped)]
    out = _show(repo / "results", capsys)
    assert all(f"│ {m} " in out for m in methods) and not any(
        f"│ {m} " in out for m in {"gnn-x", "gnn-y"} - set(methods)), out
    return methods, skipped


def test_a_file_named_as_the_first_commit_does_not_date_a_reference_folder(tmp_path, monkeypatch, capsys):
    """Attack: Alice Author's ``gnn-x`` is the repository's first record; a later pull request adds the
    folder ``leaderboard/reference/gnn/`` ("coming soon": the thirty-sixth pass's attack, which no longer
    hides her record) and a file ``leaderboard/reference/@@<hash of the first commit>``. In the log of
    folder additions that file's line read as that commit's: ``gnn`` "arrived" with Alice's record, not
    after it, and every board stopped showing ``gnn-x``. Control: with commits marked ``@@`` (as before),
    `leaderboard show` drops her record; without the file, it showed it."""
    from perfgraphs.leaderboard.records import history

    repo = _repo(tmp_path, monkeypatch, "@@{root}")
    methods, skipped = _shown(repo, capsys)
    assert methods == ["gnn-x"], skipped
    assert len(skipped) == 1 and "'gnn-y' takes the reference baseline name 'gnn'" in skipped[0], skipped

    monkeypatch.setattr(history, "COMMIT_MARK", ("@@", "@@"))  # control: commits marked as before
    methods, skipped = _shown(repo, capsys)
    assert methods == [], skipped
    assert len(skipped) == 2 and "'gnn-x' takes the reference baseline name 'gnn'" in skipped[0], skipped
    assert history.folder_arrivals(repo / "reference")[1] == {"gnn": 0}  # the first commit's


def test_a_file_named_as_no_commit_does_not_free_a_reference_name(tmp_path, monkeypatch, capsys):
    """Attack: the pull request that adds the reference folder ``gnn`` also adds a file
    ``leaderboard/reference/@@notes``. Its line read as a commit's that the main line does not have, so
    the folder's first commit added nothing: the folder never arrived, and Bob's ``gnn-y``, merged after
    it, was shown under the reference's name (as would any record of it since, whoever wrote it).
    Control: with commits marked ``@@``, `leaderboard show` lists ``gnn-y``."""
    from perfgraphs.leaderboard.records import history

    repo = _repo(tmp_path, monkeypatch, "@@notes")
    methods, skipped = _shown(repo, capsys)
    assert methods == ["gnn-x"], skipped
    assert len(skipped) == 1 and "'gnn-y' takes the reference baseline name 'gnn'" in skipped[0], skipped

    monkeypatch.setattr(history, "COMMIT_MARK", ("@@", "@@"))  # control: commits marked as before
    methods, skipped = _shown(repo, capsys)
    assert methods == ["gnn-x", "gnn-y"] and not skipped, skipped
    assert history.folder_arrivals(repo / "reference")[1] == {}


def test_a_reference_folder_added_without_such_a_file_arrives_with_its_merge(tmp_path, monkeypatch, capsys):
    """Control of the fix: the same pull request without the odd file reads as before (the thirty-sixth
    pass's rule): Alice's ``gnn-x``, first, is shown; Bob's ``gnn-y``, after the folder, is not."""
    from perfgraphs.leaderboard.records import history

    repo = _repo(tmp_path, monkeypatch, "")
    methods, skipped = _shown(repo, capsys)
    assert methods == ["gnn-x"] and len(skipped) == 1, skipped
    assert history.folder_arrivals(repo / "reference")[1] == {"gnn": 1}  # the merge, second on the main line


def test_a_path_holding_a_line_separator_does_not_date_a_later_reference_folder(tmp_path, monkeypatch, capsys):
    """Attack: a pull request adds a note in a folder ``leaderboard/reference/README<U+2028>gnn/`` (git
    prints the path as it is, and ``str.splitlines`` breaks it at U+2028: ``README`` and ``gnn/notes.md``).
    Alice's ``gnn-x`` is merged after it, and the reference folder ``gnn`` only after that: the folder
    "arrived" with the pull request's note, before Alice's record, and every board stopped showing it.
    The log is now split at line breaks only. Control: split as before, `leaderboard show` drops it."""
    from perfgraphs.leaderboard.records import history, trust

    repo = tmp_path / "repo"
    (repo / "results").mkdir(parents=True)
    (repo / "reference" / "README\u2028gnn").mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    (repo / "reference" / "README\u2028gnn" / "notes.md").write_text("notes on the reference baselines\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "notes on the references")
    path = repo / "results" / "dippm.jsonl"
    path.write_text(_line("gnn-x", "Alice Author") + "\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "gnn-x by Alice")
    (repo / "reference" / "gnn").mkdir()
    (repo / "reference" / "gnn" / "README.md").write_text("a reference baseline, coming soon\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "reference gnn, coming soon")
    monkeypatch.setattr(trust, "REFERENCE_DIR", repo / "reference")
    methods, skipped = _shown(repo, capsys)
    assert methods == ["gnn-x"] and not skipped, skipped
    assert history.folder_arrivals(repo / "reference")[1]["gnn"] == 2

    # control: the log split by str.splitlines, as before
    monkeypatch.setattr(history, "paths_by_commit", _split_as_before)
    methods, skipped = _shown(repo, capsys)
    assert methods == [] and len(skipped) == 1 and "takes the reference baseline name 'gnn'" in skipped[0], skipped


def _split_as_before(log: str):
    """``history.paths_by_commit`` as the log was read before the fix: split by ``str.splitlines``."""
    from perfgraphs.leaderboard.records.history import COMMIT_MARK

    commit = ""
    for line in log.splitlines():
        if line.startswith(COMMIT_MARK[1]):
            commit = line[len(COMMIT_MARK[1]):].strip()
        elif line.strip() and commit:
            yield commit, line


@pytest.mark.parametrize("kind", ["unsigned-self-reported", "unknown-field"])
def test_a_skipped_copy_left_without_a_final_newline_keeps_no_withdrawn_record_in(git_commitments, tmp_path, kind,
                                                                                   monkeypatch):
    """Attack (left open by the pass, mended here): ``gnn-mal`` adds a copy of its signed line that
    every board skips, as the file's last line without a final newline. The keeper takes the signed
    line out with an editor that ends the file with a newline (vim's default): git shows the copy
    removed and added again, and the fifty-eighth pass's rule read a commit that added a copy as a
    respelling, so nothing was taken out and the signed line put back later read *verified*, rank 1.
    A commit respells a record only when its copies did not fall in number; this one's fell by one.
    Control: with the exemption for any commit that adds a copy (as before), the record comes back."""
    from perfgraphs.leaderboard.records import keeper_key
    from test_leaderboard_review_55a import _board, _round
    from test_leaderboard_review_58a import _shadow
    from test_leaderboard_review_60a import withdrawn_beside_a_copy

    results, commit, mal, team = _round(git_commitments, tmp_path)
    withdrawn_beside_a_copy(results, commit, mal, team, _shadow(mal, kind), final_newline=False)

    # control: the exemption as before, for any commit that added a copy
    monkeypatch.setattr(keeper_key, "_respelled", lambda deltas, added: set(added))
    keeper_key._withdrawn.cache_clear()
    assert _board(results, []) == {"gnn-mal": ("verified", 1), "team-net": ("verified", 2)}
    keeper_key._withdrawn.cache_clear()
