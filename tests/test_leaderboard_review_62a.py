"""Sixty-second adversarial pass (2026-12-05), read side: an edit of a keeper-signed hidden-set line that
kept its ``keeper_signature`` (a team adding its paper's link or its affiliation to its verified record,
or the maintainers stripping a field, as they stripped the first set's records on 2026-11-27) changed the
record's digest, so its signature no longer verified: a visible damage, every board warning that the
line is not signed by the keeper. The revert that mended it then counted, in the withdrawn records'
history (``keeper_key._withdrawn``), as the keeper taking the record out (its one copy replaced by a line
of another digest, then written again): every board dropped the keeper's rank-1 entry for good, as
withdrawn, though its signed line stood in the file byte for byte as the keeper wrote it. A line bearing
the keeper's signature of a record is now a copy of that record in that history, from the arrival of its
signed line on (``keeper_key._signed_by``), so such an edit respells it and takes nothing out; taking the
line out still does."""

from __future__ import annotations

import json

import pytest

from test_leaderboard_review_55a import _board, _round, _write
from test_leaderboard_review_60a import withdrawn_beside_a_copy

# edits a team or a maintainer makes to a verified record, each keeping its keeper_signature
EDITS = {"paper-link": {"paper": "https://arxiv.org/abs/2612.01234"},
         "affiliation": {"authors": "Mal Lory (ETH Zurich)"}}


def _edited(record: dict, edit: str) -> dict:
    return {**record, **EDITS[edit]}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_a_signed_line_edited_and_reverted_is_not_withdrawn(git_commitments, tmp_path, monkeypatch, edit):
    """Attack: the keeper's round is on the board (``gnn-mal`` verified, ranked first by the keeper's
    signed ranks). A pull request edits one field of ``gnn-mal``'s line (its paper's link, an
    affiliation), leaving its ``keeper_signature``: the digest the keeper signed is no longer the
    record's, and every board skips it as not signed by the keeper (a visible damage). The maintainers
    revert it: the line is back byte for byte. The withdrawn records' history read the edit as the
    record's one copy taken out (a line of another digest in its place) and the revert as a withdrawn
    record put back: every board dropped ``gnn-mal`` for good. Control: with signatures linking no
    copy (as before), the reverted line is skipped as withdrawn."""
    from perfgraphs.leaderboard.records import keeper_key

    results, commit, mal, team = _round(git_commitments, tmp_path)
    assert _board(results, []) == {"gnn-mal": ("verified", 1), "team-net": ("verified", 2)}
    _write(results, json.dumps(team), json.dumps(_edited(mal, edit)))
    commit("gnn-mal: our paper's link and affiliation")
    skipped: list[str] = []
    assert _board(results, skipped) == {"team-net": ("verified", 2)}
    assert len(skipped) == 1 and "not signed by the hidden set's keeper" in skipped[0], skipped

    _write(results, json.dumps(team), json.dumps(mal))
    commit("Revert \"gnn-mal: our paper's link and affiliation\"")
    skipped = []
    assert _board(results, skipped) == {"gnn-mal": ("verified", 1), "team-net": ("verified", 2)}, skipped
    assert not skipped

    # control: no line bearing the keeper's signature counts as a copy of its record (as before)
    monkeypatch.setattr(keeper_key, "_signed_by", lambda lines: {})
    keeper_key._withdrawn.cache_clear()
    skipped = []
    assert _board(results, skipped) == {"team-net": ("verified", 2)}
    assert len(skipped) == 1 and "took out" in skipped[0], skipped
    keeper_key._withdrawn.cache_clear()


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_an_edited_line_taken_out_withdraws_its_record(git_commitments, tmp_path, edit):
    """Control of the fix: an edited line is a copy of the record, so the keeper taking it out withdraws
    the record, and the signed line put back later stays out."""
    results, commit, mal, team = _round(git_commitments, tmp_path)
    _write(results, json.dumps(team), json.dumps(_edited(mal, edit)))
    commit("gnn-mal: our paper's link and affiliation")
    _write(results, json.dumps(team))
    commit("withdraw gnn-mal: it timed its test models (rule 3)")
    _write(results, json.dumps(team), json.dumps(mal))
    commit("our entry, as the keeper scored it")
    skipped: list[str] = []
    assert _board(results, skipped) == {"team-net": ("verified", 2)}
    assert len(skipped) == 1 and "took out" in skipped[0], skipped


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_an_edited_copy_beside_the_signed_line_keeps_no_withdrawn_record_in(git_commitments, tmp_path, edit):
    """Control of the fix (the fifty-eighth pass's rule holds for such copies): ``gnn-mal`` adds an edited
    copy bearing its signature beside its signed line; the keeper takes the signed line out, and the
    signed line put back later stays out."""
    results, commit, mal, team = _round(git_commitments, tmp_path)
    copy = json.dumps(_edited(mal, edit))
    withdrawn_beside_a_copy(results, commit, mal, team, copy)


def test_a_line_bearing_a_signature_before_its_signed_line_landed_takes_nothing_out(git_commitments, tmp_path):
    """Control of the fix: a line bearing the keeper's signature, added and taken out before the keeper's
    signed line reached the main line (a pull request that saw it before it landed), copies nothing:
    the signed line, when it lands, is read."""
    from perfgraphs.leaderboard.records import keeper_key
    from test_leaderboard_review_55a import _signed

    results, commit, mal, team = _round(git_commitments, tmp_path)
    keeper = tmp_path / "keeper"
    eve = _signed(keeper, "eve-net", "Eve Example", (15.0, 15.5, 14.5, 15.2, 14.8))
    _write(results, json.dumps(team), json.dumps(mal), json.dumps(_edited(eve, "paper-link")))
    commit("a note")
    _write(results, json.dumps(team), json.dumps(mal))
    commit("the note taken out")
    _write(results, json.dumps(team), json.dumps(mal), json.dumps(eve))
    commit("eve-net, as the keeper scored it")
    skipped: list[str] = []
    board = _board(results, skipped)
    assert board["eve-net"] == ("verified", None) and not skipped, skipped  # scored after the keeper's ranks
    assert keeper_key._signed_by([(3, 1, "d", "s", True), (1, 1, "x", "s", False)]) == {"s": (3, "d")}
