"""Fifty-sixth adversarial pass (2026-12-05), read side: the fifty-fifth pass's withdrawn records
(``keeper_key.withdrawn_problem``, read from the results file's main-line history) could be made to
drop keeper-signed records the keeper never withdrew. A pull request that respelled another team's
line with a JSON escape (``"h\\u0069dden"``: the same record to every reader) took it out of the
history's count, which skipped lines without the literal word ``hidden``; and one that replaced
``leaderboard/results/`` with a committed link to a copy had the organisers' file "take out" every
record at once, while a record written into the copy later was read."""

from __future__ import annotations

import json
import os

import pytest

from test_leaderboard_review_55a import _board, _round, _signed, _write


def _escaped(record: dict) -> str:
    """The record's line with every ``hidden`` written ``h\\u0069dden``: the same JSON object."""
    line = json.dumps(record).replace('"hidden', '"h\\u0069dden')
    assert "hidden" not in line and json.loads(line) == record
    return line


def test_a_keeper_signed_line_respelled_with_a_json_escape_is_not_withdrawn(git_commitments, tmp_path):
    """Attack: ``team-net`` (ranked second by the keeper) sends a pull request that "tidies" the results
    file: ``gnn-mal``'s line is written anew with ``"h\\u0069dden"`` for ``"hidden"`` (its key and its
    ``test_set``), the same record to JSON, to its digest and to its keeper's signature. The withdrawn
    records' history skipped every line without the literal word ``hidden``: it saw ``gnn-mal``'s line
    removed and nothing added, counted the record taken out, and every board stopped showing the
    keeper's rank-1 entry (the keeper never withdrew it). Now a line is read as the readers read it."""
    results, commit, mal, team = _round(git_commitments, tmp_path)
    # control: the round as the keeper committed it
    assert _board(results) == {"gnn-mal": ("verified", 1), "team-net": ("verified", 2)}
    _write(results, json.dumps(team), _escaped(mal))
    commit("results file tidied")
    skipped: list[str] = []
    assert _board(results, skipped) == {"gnn-mal": ("verified", 1), "team-net": ("verified", 2)}, skipped
    assert not skipped


def test_a_withdrawn_record_put_back_escaped_stays_withdrawn(git_commitments, tmp_path):
    """Control of the fix: the escape frees nothing the keeper took out (the record is its digest)."""
    results, commit, mal, team = _round(git_commitments, tmp_path)
    _write(results, json.dumps(team))
    commit("withdraw gnn-mal (rule 3)")
    _write(results, json.dumps(team), _escaped(mal))
    commit("put back, escaped")
    skipped: list[str] = []
    assert _board(results, skipped) == {"team-net": ("verified", 2)}
    assert len(skipped) == 1 and "took out" in skipped[0], skipped


@pytest.mark.parametrize("linked", ["results", "leaderboard"])
def test_a_results_folder_replaced_by_a_link_is_not_read(git_commitments, tmp_path, linked):
    """Attack: a pull request replaces ``leaderboard/results/`` (or the whole ``leaderboard/``) with a
    committed link to a copy of it. The history at the organisers' path ends with every line removed,
    so every keeper-signed hidden record read through the link was "withdrawn" (the board lost
    ``gnn-mal`` and ``team-net``), while a record the keeper scored later, written through the link
    into the copy, had no history there and was read: its writer's entry was the board's only one.
    A results file under a linked folder is now refused as a linked results file is (sixteenth pass)."""
    results, commit, mal, team = _round(git_commitments, tmp_path)
    keeper = tmp_path / "keeper"
    real = results if linked == "results" else results.parent
    os.rename(real, real.with_name(real.name + "-copy"))
    os.symlink(real.name + "-copy", real)
    commit("results moved into a folder of their own")
    late = _signed(keeper, "team-late", "Late Comer", (30.0, 31.0, 29.0, 30.5, 29.5))
    _write(results, json.dumps(team), json.dumps(mal), json.dumps(late))
    commit("the keeper's record of team-late")
    skipped: list[str] = []
    board = _board(results, skipped)
    assert board == {} and skipped and all("link" in s for s in skipped), (board, skipped)


def test_a_results_folder_that_is_no_link_reads_as_before(git_commitments, tmp_path):
    """Control: the same late record in the organisers' folder itself is read, the round's too."""
    results, commit, mal, team = _round(git_commitments, tmp_path)
    late = _signed(tmp_path / "keeper", "team-late", "Late Comer", (30.0, 31.0, 29.0, 30.5, 29.5))
    _write(results, json.dumps(team), json.dumps(mal), json.dumps(late))
    commit("the keeper's record of team-late")
    skipped: list[str] = []
    board = _board(results, skipped)
    assert board["gnn-mal"] == ("verified", 1) and board["team-net"] == ("verified", 2) and "team-late" in board
    assert not skipped
