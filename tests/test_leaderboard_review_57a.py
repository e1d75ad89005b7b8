"""Fifty-seventh adversarial pass (2026-12-05), read side: the withdrawn records' history
(``keeper_key._withdrawn``) skipped every line without the literal word ``hidden`` (or a backslash)
before reading it as the boards read it (``line_text.as_shown``, which drops zero-width characters).
A pull request that put a zero-width space into the two ``hidden`` of another team's keeper-signed
line (a diff that shows the line unchanged) had the history count the record taken out, while every
board read the line as the same record, now "withdrawn": the keeper's rank-1 entry left every board."""

from __future__ import annotations

import json

import pytest

from test_leaderboard_review_55a import _board, _round, _write

ZWSP = "\u200b"


def _invisible(record: dict, mark: str = ZWSP) -> str:
    """The record's line with a zero-width character inside every ``hidden``: the same record to the
    readers (``as_shown``), and to a reviewer's diff, yet no literal ``hidden`` and no backslash."""
    line = json.dumps(record, ensure_ascii=False).replace('"hidden', f'"hid{mark}den')
    assert "hidden" not in line and "\\" not in line
    from perfgraphs.leaderboard.records.line_text import as_shown
    assert json.loads(as_shown(line)) == record
    return line


@pytest.mark.parametrize("mark", [ZWSP, "\u00ad", "\ufeff"])
def test_a_keeper_signed_line_respelled_with_an_invisible_character_is_not_withdrawn(git_commitments, tmp_path,
                                                                                    mark):
    """Attack: ``team-net`` (ranked second by the keeper) sends a pull request that rewrites
    ``gnn-mal``'s line with a zero-width space (or a soft hyphen, a byte-order mark) inside ``hidden``
    (its key and its ``test_set``): the diff shows the line unchanged, and every reader reads the same
    record, digest and keeper signature. The withdrawn records' history skipped the new line (no
    literal ``hidden``), saw the record's line removed and nothing added, and counted it taken out:
    every board stopped showing the keeper's rank-1 entry, which the keeper never withdrew."""
    results, commit, mal, team = _round(git_commitments, tmp_path)
    _write(results, json.dumps(team), _invisible(mal, mark))
    commit("results file tidied")
    skipped: list[str] = []
    assert _board(results, skipped) == {"gnn-mal": ("verified", 1), "team-net": ("verified", 2)}, skipped
    assert not skipped


def test_the_round_reads_as_committed_before_the_edit(git_commitments, tmp_path):
    """Control: the round as the keeper committed it shows both entries, ranked by the keeper."""
    results, _, _, _ = _round(git_commitments, tmp_path)
    skipped: list[str] = []
    assert _board(results, skipped) == {"gnn-mal": ("verified", 1), "team-net": ("verified", 2)}
    assert not skipped


def test_a_withdrawn_record_put_back_with_an_invisible_character_stays_withdrawn(git_commitments, tmp_path):
    """Control of the fix: the invisible character frees nothing the keeper took out."""
    results, commit, mal, team = _round(git_commitments, tmp_path)
    _write(results, json.dumps(team))
    commit("withdraw gnn-mal (rule 3)")
    _write(results, json.dumps(team), _invisible(mal))
    commit("put back, with a zero-width space")
    skipped: list[str] = []
    assert _board(results, skipped) == {"team-net": ("verified", 2)}
    assert len(skipped) == 1 and "took out" in skipped[0], skipped
