"""Sixty-fourth adversarial pass (2026-12-06), read side: the withdrawn records' history
(``keeper_key._withdrawn``) counted a line bearing the keeper's signature of a record as a copy of it from
the arrival of a signed line with that signature on (``_signed_by``, sixty-second pass), so a bearing line
added before that arrival was never counted while its removal after it was: one copy taken out of a
count that never held it. The signature check reads the signature's hex in any case (``bytes.fromhex``),
so another spelling of the keeper's signature of a team's verified record is a signature whose signed
line arrives when a pull request says: one pull request adds a line of the submitter's own bearing that
spelling (a public record with a stray ``keeper_signature`` field, shown as usual), a second writes the
team's signed line with that spelling (the same record to every board), and a third, or the first's
clean-up, takes the bearing line out. Each is harmless on its own board; merged, the count of the team's
record fell to none with its signed line standing, and every board dropped the keeper's rank-1 entry as
withdrawn, for good: reverting the pull requests put the keeper's line back byte for byte, still
withdrawn (checked with ``leaderboard show`` on a clone of this repository: the live set ``8b5c2778``'s
static-mlp, rank 1 on peak memory, left the board, roofline-boost ranked first). A bearing line's
removal now counts only a copy whose addition counted (``keeper_key._bearer_changes``). And the steps
themselves are refused where they are merged, each visibly on its own board: a signature has one spelling,
the keeper's (``keeper_key.SIGNATURE_SPELLING``), and a public record carries none
(``record_check.public_signature_problem``); the counting tests below switch those two rules off."""

from __future__ import annotations

import json
import re

import pytest

from test_leaderboard_review_55a import _board, _round, _write
from test_leaderboard_trust import good_record

# another spelling of a keeper's signature, which the signature check reads as the same signature
SPELLINGS = {"upper-case": str.upper, "spaced": lambda hex_: " ".join(hex_[i:i + 2] for i in range(0, len(hex_), 2))}


@pytest.fixture
def spelling_rules_off(monkeypatch):
    """Any hex spelling of a signature read, and a public record's stray signature let be, as before this
    pass: the history's counting alone is under test."""
    from perfgraphs.leaderboard.records import keeper_key, record_check

    monkeypatch.setattr(keeper_key, "SIGNATURE_SPELLING", re.compile(r"[0-9a-fA-F ]+"))
    monkeypatch.setattr(record_check, "public_signature_problem", lambda record: None)


def test_a_signature_has_one_spelling_and_a_public_record_none(git_commitments, tmp_path):
    """The attack's steps refused where each is merged: Eve's public entry bearing another spelling of
    ``gnn-mal``'s signature is skipped (its board shows it), and so is ``gnn-mal``'s line with its
    signature respelled (the verified record leaves the board in that pull request). Control: the keeper's
    line as written reads verified, ranked first."""
    results, commit, mal, team = _round(git_commitments, tmp_path)
    for spelling in sorted(SPELLINGS):
        respelled = SPELLINGS[spelling](mal["keeper_signature"])
        eve = json.dumps(good_record("eve-net", authors="Eve Evil", keeper_signature=respelled))
        skipped: list[str] = []
        _write(results, json.dumps(team), json.dumps(mal), eve)
        assert _board(results, skipped) == {"gnn-mal": ("verified", 1), "team-net": ("verified", 2)}
        assert len(skipped) == 1 and "keeper_signature is set on a public test set's record" in skipped[0], skipped
        skipped = []
        _write(results, json.dumps(team), json.dumps({**mal, "keeper_signature": respelled}))
        assert _board(results, skipped) == {"team-net": ("verified", 2)}
        assert len(skipped) == 1 and "128 lowercase hex digits" in skipped[0], skipped
    _write(results, json.dumps(team), json.dumps(mal))
    assert _board(results, []) == {"gnn-mal": ("verified", 1), "team-net": ("verified", 2)}


def _bearing_line_then_respelled_signature(results, commit, mal, team, spelling: str) -> tuple[str, str]:
    """The first two pull requests, each merged: Eve's own public entry, carrying ``gnn-mal``'s signature
    in another spelling as a stray field; then ``gnn-mal``'s signed line with its signature so spelled.
    Returns (Eve's line, gnn-mal's respelled line)."""
    respelled = SPELLINGS[spelling](mal["keeper_signature"])
    eve = json.dumps(good_record("eve-net", authors="Eve Evil", keeper_signature=respelled))
    _write(results, json.dumps(team), json.dumps(mal), eve)
    commit("eve-net: our entry")
    skipped: list[str] = []
    assert _board(results, skipped) == {"gnn-mal": ("verified", 1), "team-net": ("verified", 2)} and not skipped
    mal_respelled = json.dumps({**mal, "keeper_signature": respelled})
    _write(results, json.dumps(team), mal_respelled, eve)
    commit("results: the signatures' hex written alike")
    assert _board(results, skipped) == {"gnn-mal": ("verified", 1), "team-net": ("verified", 2)} and not skipped
    return eve, mal_respelled


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_a_line_bearing_a_signature_before_its_spelling_landed_takes_nothing_out(git_commitments, tmp_path, capsys,
                                                                                monkeypatch, spelling,
                                                                                spelling_rules_off):
    """Attack: the keeper's round is on the board (``gnn-mal`` verified, ranked first by the keeper's
    signed ranks). Eve's entry carries ``gnn-mal``'s signature in upper case (or spaced) as a stray
    field; a later pull request writes ``gnn-mal``'s line with its signature so spelled; Eve then drops
    the stray field from her entry. The history counted her line's removal as a copy of ``gnn-mal``
    taken out (its addition had come before the spelling's signed line, and counted nothing): every
    board dropped ``gnn-mal`` as withdrawn, and the maintainers' reverts, which put the keeper's line back
    byte for byte, left it withdrawn."""
    from perfgraphs.cli import main

    results, commit, mal, team = _round(git_commitments, tmp_path)
    eve, _ = _bearing_line_then_respelled_signature(results, commit, mal, team, spelling)
    eve_cleaned = json.dumps({k: v for k, v in json.loads(eve).items() if k != "keeper_signature"})
    _write(results, json.dumps(team), json.dumps({**mal, "keeper_signature": SPELLINGS[spelling](
        mal["keeper_signature"])}), eve_cleaned)
    commit("eve-net: drop a stray field")
    skipped: list[str] = []
    assert _board(results, skipped) == {"gnn-mal": ("verified", 1), "team-net": ("verified", 2)}, skipped
    assert not skipped
    # the maintainers revert the signature's respelling: the keeper's line as the keeper wrote it
    _write(results, json.dumps(team), json.dumps(mal), eve_cleaned)
    commit("Revert \"results: the signatures' hex written alike\"")
    assert _board(results, skipped) == {"gnn-mal": ("verified", 1), "team-net": ("verified", 2)} and not skipped
    monkeypatch.setenv("COLUMNS", "300")  # each row on one line
    assert main(["leaderboard", "show", "--results", str(results)]) == 0
    out, err = capsys.readouterr()
    assert "took out" not in err and any(line.startswith("│ 1 │ gnn-mal") for line in out.splitlines()), out


def _from_the_arrival_on(lines, signed_by):
    """The bearing lines' changes before this pass: every one from its signature's signed line's arrival
    on, its addition before that arrival uncounted."""
    return [(when, delta, signed_by[signature][1]) for when, delta, digest, signature, _, _ in lines
            if signature in signed_by and when >= signed_by[signature][0] and signed_by[signature][1] != digest]


def test_the_guard_off_withdraws_the_record(git_commitments, tmp_path, monkeypatch, spelling_rules_off):
    """Control: with a bearing line's every change counted from its signature's arrival on (as before),
    the same pull requests withdraw ``gnn-mal`` from every board."""
    from perfgraphs.leaderboard.records import keeper_key

    monkeypatch.setattr(keeper_key, "_bearer_changes", _from_the_arrival_on)
    keeper_key._withdrawn.cache_clear()
    results, commit, mal, team = _round(git_commitments, tmp_path)
    eve, mal_respelled = _bearing_line_then_respelled_signature(results, commit, mal, team, "upper-case")
    _write(results, json.dumps(team), mal_respelled,
           json.dumps({k: v for k, v in json.loads(eve).items() if k != "keeper_signature"}))
    commit("eve-net: drop a stray field")
    skipped: list[str] = []
    assert _board(results, skipped) == {"team-net": ("verified", 2)}
    assert len(skipped) == 1 and "took out" in skipped[0], skipped
    keeper_key._withdrawn.cache_clear()


def test_the_keepers_withdrawal_beside_a_bearing_line_still_holds(git_commitments, tmp_path, spelling_rules_off):
    """Control of the fix: with such a line in the file, the keeper taking ``gnn-mal``'s line out (in its
    respelled form) withdraws the record, and the keeper's line put back later stays out."""
    results, commit, mal, team = _round(git_commitments, tmp_path)
    eve, _ = _bearing_line_then_respelled_signature(results, commit, mal, team, "upper-case")
    _write(results, json.dumps(team), eve)
    commit("withdraw gnn-mal: it timed its test models (rule 3)")
    _write(results, json.dumps(team), eve, json.dumps(mal))
    commit("our entry, as the keeper scored it")
    skipped: list[str] = []
    assert _board(results, skipped) == {"team-net": ("verified", 2)}
    assert len(skipped) == 1 and "took out" in skipped[0], skipped


def test_bearing_lines_count_from_their_signed_lines_arrival():
    """The rule itself: a bearing line added before its signature's signed line arrived, and taken out
    after, changes nothing; one added after it counts, taken out or moved in one commit."""
    from perfgraphs.leaderboard.records.keeper_key import _bearer_changes

    signed_by = {"S": (2, "d")}
    early = [(1, 1, None, "S", False, "b"), (3, -1, None, "S", False, "b")]
    assert _bearer_changes(early, signed_by) == []
    late = [(3, 1, None, "S", False, "c"), (4, -1, None, "S", False, "c"), (4, 1, None, "S", False, "c"),
            (5, -1, None, "S", False, "c")]
    assert _bearer_changes(late, signed_by) == [(3, 1, "d"), (5, -1, "d")]
    # the same text held before and added again after: the added copy counts, the first removal is the old one's
    both = [(1, 1, None, "S", False, "b"), (3, 1, None, "S", False, "b"), (4, -1, None, "S", False, "b"),
            (5, -1, None, "S", False, "b")]
    assert _bearer_changes(both, signed_by) == [(3, 1, "d"), (5, -1, "d")]
