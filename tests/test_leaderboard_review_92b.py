"""Ninety-second adversarial pass (2026-12-06), read side (hidden rounds): the results folder as another
repository. The ninetieth pass made a commitments folder committed inside another repository read as in no
repository (``history.committed_inside_another``, through ``history.repository_place``); the results files'
own history (``history.line_changes``, from which ``keeper_key.withdrawn_problem`` reads what the keeper took
out) was still asked from the file's folder, and git asked from a submodule answers for the submodule. After
the keeper withdrew ``gnn-mal`` (its signed line taken out on review: the board showed ``team-net`` alone, at
rank 2), a pull request that replaces ``leaderboard/results/`` with a submodule (``git submodule add <its
writer's repository> leaderboard/results``), whose one commit holds the results file with both keeper-signed
lines, had every reader of a recursive clone read the writer's history of the file, where nothing was ever
taken out: `leaderboard show` ranked the withdrawn ``gnn-mal`` first, *verified*, again (by the keeper's
ranks that still named it). The brief's leads 1-4 (attributes, committer dates, squash and rebase landings,
case-folded names) gave nothing in this pass's time (see its report). Now a results file whose repository is
committed inside another one has no history to read (``history.committed_inside_another``, in
``history.line_changes``): its hidden records are not read, as in a shallow clone (``team-net`` too,
until the folder is one again)."""

from __future__ import annotations

import json

from test_leaderboard_review_20261202 import _git
from test_leaderboard_review_55a import _board, _round, _write
from test_leaderboard_review_90b import as_submodule, shown_rows


def test_a_submodule_results_folder_puts_back_no_withdrawn_record(git_commitments, tmp_path, capsys, monkeypatch):
    """Attack: the keeper's keyed round (``gnn-mal`` 1, ``team-net`` 2), then its withdrawal of ``gnn-mal``;
    a pull request replaces ``leaderboard/results/`` with a submodule, a repository of its writer's whose one
    commit holds both signed lines. No withdrawn row is shown. Control: with the new check off, `leaderboard
    show` ranks ``gnn-mal`` first, verified, again."""
    from perfgraphs.leaderboard.records import history, keeper_key

    folder, commit = git_commitments
    repo = folder.parent.parent
    results, _, mal, team = _round(git_commitments, tmp_path)
    _write(results, json.dumps(team))
    commit("withdraw gnn-mal: it timed its test models (rule 3)")
    assert _board(results) == {"team-net": ("verified", 2)}

    theirs = tmp_path / "forgers-results"
    _write(theirs, json.dumps(team), json.dumps(mal))
    _git(theirs, "init", "-q")
    _git(theirs, "add", "-A")
    _git(theirs, "commit", "-q", "-m", "the results")
    as_submodule(repo, "leaderboard/results", results, theirs)
    commit("leaderboard/results as a submodule")
    assert json.dumps(mal) in (results / "dippm.jsonl").read_text()  # a recursive clone's checkout

    monkeypatch.setenv("COLUMNS", "300")  # each row on one line

    skipped: list[str] = []
    assert _board(results, skipped) == {}
    assert len(skipped) == 2 and all("committed as another repository" in s for s in skipped), skipped
    assert not any(method == "gnn-mal" for _, method in shown_rows(results, capsys))

    # control: the file's history asked from its folder, as before
    monkeypatch.setattr(history, "committed_inside_another", lambda top: False)
    for cached in (history._line_changes, keeper_key._withdrawn):
        cached.cache_clear()
    assert _board(results) == {"gnn-mal": ("verified", 1), "team-net": ("verified", 2)}
    assert ("1", "gnn-mal") in shown_rows(results, capsys)
