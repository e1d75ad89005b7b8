"""Fifty-eighth adversarial pass (2026-12-05), read side: the withdrawn records' history
(``keeper_key._withdrawn``) counted every line of a results file that JSON read as a hidden record of a
digest, one the boards skip included. A pull request that added such a copy of a team's keeper-signed
record (unsigned and *self-reported*, a key written twice, an unknown field, a carriage return
inside) kept the record's count above zero when the keeper took the record's line out on review: the
record was never "taken out", and a later pull request that put the line back had the board show the
withdrawn entry *verified* at rank 1 again."""

from __future__ import annotations

import json

import pytest

from test_leaderboard_review_55a import _board, _round, _write


def _shadow(record: dict, kind: str) -> str:
    """A line every board skips that JSON reads as ``record`` (its digest)."""
    line = json.dumps(record)
    if kind == "unsigned-self-reported":
        return json.dumps({**record, "tier": "self-reported", "keeper_signature": ""})
    if kind == "key-written-twice":
        return line[:-1] + ', "tier": "verified"}'
    if kind == "unknown-field":
        return json.dumps({**record, "note": "a copy"})
    if kind == "carriage-return":
        return line.replace(', "', ',\r "', 1)
    raise AssertionError(kind)


KINDS = ["unsigned-self-reported", "key-written-twice", "unknown-field", "carriage-return"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_skipped_copy_does_not_keep_a_withdrawn_record_in(git_commitments, tmp_path, kind):
    """Attack: ``gnn-mal`` (the keeper's rank 1) sends a pull request adding a line every board skips
    that JSON reads as its signed record (same digest). On review the record is found measuring its
    inputs (rule 3) and the keeper takes its line out; the skipped copy, which no board ever showed,
    stays. The withdrawn records' history counted the copy as the record still held, so nothing was
    taken out, and a later pull request that put the signed line back was read *verified*, ranked
    first by the keeper's ranks."""
    from perfgraphs.leaderboard.records.digest import record_sha256

    results, commit, mal, team = _round(git_commitments, tmp_path)
    shadow = _shadow(mal, kind)
    from perfgraphs.leaderboard.records.line_text import as_shown
    assert record_sha256(json.loads(as_shown(shadow))) == record_sha256(mal)
    _write(results, json.dumps(team), json.dumps(mal), shadow)
    commit("gnn-mal: a note on our entry")
    skipped: list[str] = []
    assert _board(results, skipped) == {"gnn-mal": ("verified", 1), "team-net": ("verified", 2)}
    assert len(skipped) == 1, skipped  # the copy is no record to any board

    _write(results, json.dumps(team), shadow)
    commit("withdraw gnn-mal: it timed its test models (rule 3)")
    assert _board(results, []) == {"team-net": ("verified", 2)}

    _write(results, json.dumps(team), json.dumps(mal), shadow)
    commit("our entry, as the keeper scored it")
    skipped = []
    assert _board(results, skipped) == {"team-net": ("verified", 2)}, skipped
    assert any("took out" in s for s in skipped), skipped


@pytest.mark.parametrize("kind", KINDS)
def test_a_signed_line_turned_into_a_skipped_copy_and_back_is_not_withdrawn(git_commitments, tmp_path, kind):
    """Control of the fix: a commit that turns a signed line into a copy the boards skip (a visible
    damage of the line, not a withdrawal) and a later one that mends it leave the record read."""
    results, commit, mal, team = _round(git_commitments, tmp_path)
    _write(results, json.dumps(team), _shadow(mal, kind))
    commit("results file edited")
    assert _board(results, []) == {"team-net": ("verified", 2)}
    _write(results, json.dumps(team), json.dumps(mal))
    commit("results file mended")
    skipped: list[str] = []
    assert _board(results, skipped) == {"gnn-mal": ("verified", 1), "team-net": ("verified", 2)}, skipped
    assert not skipped


def test_a_withdrawn_record_without_a_copy_stays_withdrawn(git_commitments, tmp_path):
    """Control: the round as the keeper committed it, withdrawn and put back, without a copy."""
    results, commit, mal, team = _round(git_commitments, tmp_path)
    assert _board(results, []) == {"gnn-mal": ("verified", 1), "team-net": ("verified", 2)}
    _write(results, json.dumps(team))
    commit("withdraw gnn-mal (rule 3)")
    _write(results, json.dumps(team), json.dumps(mal))
    commit("put back")
    skipped: list[str] = []
    assert _board(results, skipped) == {"team-net": ("verified", 2)}
    assert len(skipped) == 1 and "took out" in skipped[0], skipped
