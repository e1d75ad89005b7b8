"""Sixty-fifth adversarial pass (2026-12-06), read side: a record by other authors under a reference
baseline's name is shown when its line reached the main line before that reference (the thirty-sixth
pass's rule), and a reference was dated from its folder's first commit whenever it had a folder, the
name of the catalog's code too. A name of the catalog without a folder (a transfer reference:
``ratio-transfer``) is reserved from the start, so Mallory's ``ratio-transfer-v2`` was refused on
every board; a later commit that added ``leaderboard/reference/ratio-transfer/README.md`` (a
"coming soon" note: the same pull request, rebase-merged as two commits, does it) dated the name from
that commit, after her line, and every board showed her record under the reference's name. A folder
only ever adds to a name the catalog holds: such a name is reserved from the start
(``trust._reserved_since``)."""

from __future__ import annotations

import json

import pytest

from test_leaderboard_review_36a import _git
from test_leaderboard_review_37a import _public_record
from test_leaderboard_review_61a import _line, _shown


@pytest.fixture(autouse=True)
def _forget_tmp_references():
    """What was cached under a test's tmp reference folder is forgotten after it (61a's fixture)."""
    from perfgraphs.leaderboard.records import history, results, trust

    yield
    for cached in (trust.reference_spellings, trust._reference_code_problem, trust._reference_files,
                   history._folder_arrivals):
        cached.cache_clear()
    results.forget_checked()


def _repo(tmp_path, monkeypatch, method: str):
    """A repository whose first commit holds the reference folder ``static-mlp`` and whose second adds
    Mallory's ``method`` line."""
    from perfgraphs.leaderboard.records import trust

    monkeypatch.setenv("COLUMNS", "200")  # the table's method column unwrapped
    repo = tmp_path / "repo"
    (repo / "results").mkdir(parents=True)
    (repo / "reference" / "static-mlp").mkdir(parents=True)
    (repo / "reference" / "static-mlp" / "README.md").write_text("the static MLP reference\n")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "references")
    path = repo / "results" / "dippm.jsonl"
    path.write_text(_line(method, "Mallory Mal") + "\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", f"{method} by Mallory")
    monkeypatch.setattr(trust, "REFERENCE_DIR", repo / "reference")
    return repo


def _add_folder(repo, folder: str) -> None:
    (repo / "reference" / folder).mkdir()
    (repo / "reference" / folder / "README.md").write_text("a reference baseline, coming soon\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", f"reference {folder}, coming soon")


def test_a_folder_added_for_a_catalog_name_does_not_free_it(tmp_path, monkeypatch, capsys):
    """Attack: ``ratio-transfer`` is a transfer reference of the catalog, with no folder. Mallory's
    ``ratio-transfer-v2`` is merged and refused on every board (the name is reserved from the
    start); a later commit adds ``leaderboard/reference/ratio-transfer/README.md``, and the name was
    dated from that folder, after her line: `leaderboard show` listed her record under the reference's
    name. Control: dated as before (a catalog name with a folder from the folder), it is listed."""
    from perfgraphs.baselines.catalog import reference_names
    from perfgraphs.leaderboard.records import trust

    assert "ratio-transfer" in reference_names()
    repo = _repo(tmp_path, monkeypatch, "ratio-transfer-v2")
    methods, skipped = _shown(repo, capsys)
    assert methods == [] and len(skipped) == 1, skipped  # refused before the folder
    _add_folder(repo, "ratio-transfer")
    methods, skipped = _shown(repo, capsys)
    assert methods == [], skipped
    assert len(skipped) == 1 and "takes the reference baseline name 'ratio-transfer'" in skipped[0], skipped

    monkeypatch.setattr(trust, "_catalog_names", frozenset)  # control: the catalog's names dated as folders
    methods, skipped = _shown(repo, capsys)
    assert methods == ["ratio-transfer-v2"] and not skipped, skipped


def test_a_name_only_a_folder_holds_is_still_dated_from_its_folder(tmp_path, monkeypatch, capsys):
    """Control of the fix (the thirty-sixth pass's rule, unchanged): ``gnn`` is no name of the catalog;
    a team's ``gnn-x``, merged before the folder ``leaderboard/reference/gnn/``, is still shown, and a
    record under the reference folder ``static-mlp`` (committed before it) is still refused."""
    repo = _repo(tmp_path, monkeypatch, "gnn-x")
    _add_folder(repo, "gnn")
    methods, skipped = _shown(repo, capsys)
    assert methods == ["gnn-x"] and not skipped, skipped

    repo2 = tmp_path / "two"
    repo2.mkdir()
    repo = _repo(repo2, monkeypatch, "static-mlp-v2")
    methods, skipped = _shown(repo, capsys)
    assert methods == [] and len(skipped) == 1 and "'static-mlp'" in skipped[0], skipped


def _reference_line(method: str, commit: str) -> str:
    from perfgraphs.leaderboard.records.references import REFERENCE_AUTHORS

    return json.dumps(_public_record("static-mlp", method=method, authors=REFERENCE_AUTHORS, run_identity=method,
                                     code_commit=commit, tier="reproduced"), sort_keys=True)


def _shown_afresh(repo, capsys) -> tuple[list[str], list[str]]:
    """61a's ``_shown``, with each reference record's code checked again (a commit's answer is cached)."""
    from perfgraphs.leaderboard.records import trust

    trust._reference_code_problem.cache_clear()
    trust._reference_files.cache_clear()
    return _shown(repo, capsys)


def test_a_folder_added_later_does_not_drop_a_catalog_references_records(tmp_path, monkeypatch, capsys):
    """The sixty-fifth pass's lead: a reference of the catalog's code with no folder (``ratio-transfer``)
    has records at commits of this repository; a later pull request adding only
    ``leaderboard/reference/ratio-transfer/README.md`` made each of them "recorded at a commit where the
    folder does not exist", and every board dropped the reference's records. Where the folder did not
    exist at the record's commit, the record is of the catalog's code (``trust._catalog_code_at``).
    Controls: with that rule off the record is dropped; a record at a commit where the folder existed
    without ``submission.yaml`` is still refused, and so is one under a name only a folder holds
    (``gnn``) at a commit before the folder."""
    from perfgraphs.leaderboard.records import trust

    repo = _repo(tmp_path, monkeypatch, "gnn-x")
    first = _git(repo, "rev-list", "--max-parents=0", "HEAD").strip()
    path = repo / "results" / "dippm.jsonl"
    path.write_text(_reference_line("ratio-transfer", first) + "\n")
    _git(repo, "commit", "-q", "-am", "the ratio-transfer reference's record")
    methods, skipped = _shown_afresh(repo, capsys)
    assert methods == ["ratio-transfer"] and not skipped, skipped
    _add_folder(repo, "ratio-transfer")
    methods, skipped = _shown_afresh(repo, capsys)
    assert methods == ["ratio-transfer"] and not skipped, skipped

    catalog_code_at = trust._catalog_code_at
    monkeypatch.setattr(trust, "_catalog_code_at", lambda *_: False)  # control: the folder checked as before
    methods, skipped = _shown_afresh(repo, capsys)
    assert methods == [] and "where leaderboard/reference/ratio-transfer/ does not exist" in skipped[0], skipped
    monkeypatch.setattr(trust, "_catalog_code_at", catalog_code_at)

    # the folder existed at the record's commit but held no submission.yaml: not the reference's code
    folder_commit = _git(repo, "rev-parse", "HEAD").strip()
    path.write_text(_reference_line("ratio-transfer", folder_commit) + "\n")
    _git(repo, "commit", "-q", "-am", "a record at the folder's commit")
    methods, skipped = _shown_afresh(repo, capsys)
    assert methods == [] and "does not exist" in skipped[0], skipped

    # a name only a folder holds: its records need the folder at their commit, as before
    _add_folder(repo, "gnn")
    path.write_text(_reference_line("gnn", first) + "\n")
    _git(repo, "commit", "-q", "-am", "a gnn record at the first commit")
    methods, skipped = _shown_afresh(repo, capsys)
    assert methods == [] and "where leaderboard/reference/gnn/ does not exist" in skipped[0], skipped
