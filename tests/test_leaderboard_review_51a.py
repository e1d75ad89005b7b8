"""Fifty-first adversarial pass (2026-12-05), read side: a pull request that edits one letter of
another team's line (``Alice Author`` -> ``AIice Author``, a capital I) takes over the team's
names: the history read by ``check``/``submit`` saw Alice's record retracted and the look-alike
recorded, the only row on the board, with no note."""

from __future__ import annotations




def _edited_into_a_lookalike(tmp_path):
    from test_leaderboard_review_20261202 import _ALICE, _git, _records_repo

    results, add = _records_repo(tmp_path)
    add(_ALICE)
    add({"method": "other", "authors": "Bob Builder", "run_identity": "bob-1"})
    path = results / "dippm.jsonl"
    path.write_text(path.read_text().replace('"Alice Author"', '"AIice Author"'))  # one letter
    _git(results, "commit", "-q", "-am", "tidy")
    return results


def test_a_line_edited_into_a_lookalike_does_not_take_the_teams_names(tmp_path, monkeypatch):
    """Attack: Alice's ``gnn-x`` is recorded; a pull request edits her line's authors to ``AIice
    Author``. The boards show one row, ``gnn-x`` by ``AIice Author``, and no look-alike note (there
    is no other row to compare with); ``check`` then refused Alice her own method and even a new
    method of hers ("author 'Alice Author' reads like 'AIice Author'"), and passed the look-alike
    for ``gnn-x``. Now a record edited in one commit into a competing one keeps its place: Alice
    passes, the look-alike is refused. Control: with that replacement not recognised (the rule
    before), the same history hands both names to the look-alike."""
    from perfgraphs.leaderboard.records import check, results as results_mod
    from perfgraphs.registry import task

    board = task("perfgraphs/dippm", "h200-torch-fp32", "latency_ms")
    results = _edited_into_a_lookalike(tmp_path)
    shown = [(e.method, e.authors) for e in results_mod.read_entries("perfgraphs/dippm", results, [])]
    assert ("gnn-x", "AIice Author") in shown and ("gnn-x", "Alice Author") not in shown

    assert check.check_name_owner(results, board, "gnn-x", "Alice Author") == []
    assert check.check_name_owner(results, board, "gnn-y", "Alice Author") == []
    mal = " ".join(check.check_name_owner(results, board, "gnn-x", "AIice Author"))
    assert "reads like 'Alice Author'" in mal, mal

    # control: without the replacement rule, the one-letter edit hands the names to the look-alike
    monkeypatch.setattr(check, "_replaced", lambda key, when, arrivals: False)
    assert check.check_name_owner(results, board, "gnn-x", "AIice Author") == []
    alice = " ".join(check.check_name_owner(results, board, "gnn-x", "Alice Author"))
    assert "reads like 'AIice Author'" in alice and "is recorded by 'AIice Author'" in alice, alice


def test_a_line_edited_to_other_authors_keeps_its_method_theirs(tmp_path):
    """The same edit with another team's authors in place of Alice's (``Mal Lory``): the method
    stays Alice's to submit under, and is refused to Mal. Control: before the edit it was too."""
    from test_leaderboard_review_20261202 import _ALICE, _git, _records_repo

    from perfgraphs.leaderboard.records import check
    from perfgraphs.registry import task

    board = task("perfgraphs/dippm", "h200-torch-fp32", "latency_ms")
    results, add = _records_repo(tmp_path)
    add(_ALICE)
    assert "is recorded by 'Alice Author'" in " ".join(check.check_name_owner(results, board, "gnn-x", "Mal Lory"))
    path = results / "dippm.jsonl"
    path.write_text(path.read_text().replace('"Alice Author"', '"Mal Lory"'))
    _git(results, "commit", "-q", "-am", "tidy")
    assert check.check_name_owner(results, board, "gnn-x", "Alice Author") == []
    assert "is recorded by 'Alice Author'" in " ".join(check.check_name_owner(results, board, "gnn-x", "Mal Lory"))


def test_a_retracted_line_still_claims_nothing(tmp_path):
    """Control (twentieth pass, unchanged): a record retracted in one commit and a look-alike added in
    a later one is a retraction, not a replacement: the record that stands owns its names."""
    from test_leaderboard_review_20261202 import _ALICE, _git, _records_repo

    from perfgraphs.leaderboard.records import check
    from perfgraphs.registry import task

    board = task("perfgraphs/dippm", "h200-torch-fp32", "latency_ms")
    results, add = _records_repo(tmp_path)
    add(_ALICE)
    path = results / "dippm.jsonl"
    path.write_text("")
    _git(results, "commit", "-q", "-am", "retract")
    add({**_ALICE, "authors": "AIice Author", "run_identity": "mal-1"})
    assert check.check_name_owner(results, board, "gnn-x", "AIice Author") == []
