"""Sixtieth adversarial pass (2026-12-05), read side: two lines that every reader takes for one record
were two records to the readers of the results' history, which compared the JSON written back: a
whole-valued float and the integer it equals (``30.0`` and ``30``: one number to Python, to ``Entry``
and to every board) and a field left out and its default (``"paper": ""``) differ there. A pull
request that re-serialized ``leaderboard/results/dippm.jsonl`` (``jq -c .`` 1.6, ``JSON.stringify``:
every whole-valued float written as an integer) broke the keeper's signatures, a visible damage the
boards warned of, and the revert that mended it then counted as the keeper "taking out" every signed
record of the file (the withdrawn records' history, ``keeper_key._withdrawn``): every board dropped
the round's verified records for good. The same rewrite of another team's line re-dated its record
after a reference folder merged since (``results.line_key``), and every board dropped it. Both now
compare lines by the record they read as (``results.record_as_read``)."""

from __future__ import annotations

import json

import pytest

from test_leaderboard_review_55a import _board, _round, _write
from test_leaderboard_review_59a import _repo, _shown


def _whole_numbers(line: str) -> str:
    """``line`` as ``jq -c .`` (1.6) writes it: compact, each whole-valued float an integer."""
    def whole(value):
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, dict):
            return {k: whole(v) for k, v in value.items()}
        return [whole(v) for v in value] if isinstance(value, list) else value

    return json.dumps(whole(json.loads(line)), separators=(",", ":"))


def _defaults_left_out(line: str) -> str:
    """``line`` without its fields that hold their default (as a writer that drops empty fields does)."""
    return json.dumps({k: v for k, v in json.loads(line).items()
                       if not (k in ("code_url", "paper", "isolation", "protocol", "frozen_fit") and v == "")})


REWRITES = {"whole-numbers": _whole_numbers, "defaults-left-out": _defaults_left_out}


@pytest.mark.parametrize("rewrite", sorted(REWRITES))
def test_a_results_file_rewritten_and_reverted_withdraws_no_signed_record(git_commitments, tmp_path, monkeypatch,
                                                                            rewrite):
    """Attack: the keeper's round is on the board (``gnn-mal`` and ``team-net``, signed and ranked). A
    pull request re-serializes the results file: each line reads as the same record to Python (``==``)
    and to ``Entry``, but the digest the keeper signed is of other text, so the boards skip both lines
    as unsigned (a visible damage, as in the fifty-eighth pass's control). The maintainers revert it.
    The withdrawn records' history counted each line by that digest: the rewrite took every copy of
    both records out, and the revert "put back" withdrawn records: the board stayed empty for good.
    Control: with the history keyed by the written digest (as before), the board stays empty."""
    from perfgraphs.leaderboard.records import keeper_key
    from perfgraphs.leaderboard.records import results as reader
    from perfgraphs.leaderboard.records.digest import record_sha256

    results, commit, mal, team = _round(git_commitments, tmp_path)
    lines = (json.dumps(team), json.dumps(mal))
    rewritten = [REWRITES[rewrite](line) for line in lines]
    if rewrite == "whole-numbers":  # the same record to Python
        assert [json.loads(a) for a in lines] == [json.loads(b) for b in rewritten]
    assert all(record_sha256(json.loads(a)) != record_sha256(json.loads(b)) for a, b in zip(lines, rewritten))
    _write(results, *rewritten)
    commit("results: one serialization for every line")
    skipped: list[str] = []
    assert _board(results, skipped) == {}
    assert len(skipped) == 2 and all("not signed by the hidden set's keeper" in s for s in skipped), skipped

    _write(results, *lines)
    commit("Revert \"results: one serialization for every line\"")
    skipped = []
    assert _board(results, skipped) == {"gnn-mal": ("verified", 1), "team-net": ("verified", 2)}, skipped
    assert not skipped

    # control: the history keyed by the digest of the JSON written, as before (and no line linked to a
    # record by the keeper's signature it bears, the sixty-second pass's rule, which the rewritten
    # lines keep: that rule alone would also read them as copies)
    monkeypatch.setattr(reader, "read_digest", record_sha256)
    monkeypatch.setattr(keeper_key, "_signed_by", lambda lines: {})
    keeper_key._withdrawn.cache_clear()
    skipped = []
    assert _board(results, skipped) == {}
    assert len(skipped) == 2 and all("took out" in s for s in skipped), skipped
    keeper_key._withdrawn.cache_clear()


@pytest.mark.parametrize("rewrite", sorted(REWRITES))
def test_a_withdrawn_record_stays_withdrawn_beside_a_rewritten_copy(git_commitments, tmp_path, rewrite):
    """Control of the fix: a copy of the record in another spelling now counts as the record, so a
    rewritten copy left in the file (one the boards skip as unsigned) when the keeper takes the signed
    line out does not keep it in (the fifty-eighth pass's rule), nor does putting it back."""
    results, commit, mal, team = _round(git_commitments, tmp_path)
    copy = REWRITES[rewrite](json.dumps(mal))
    withdrawn_beside_a_copy(results, commit, mal, team, copy)


def withdrawn_beside_a_copy(results, commit, mal: dict, team: dict, copy: str, final_newline: bool = True) -> None:
    """The round with ``copy`` of ``gnn-mal``'s record beside its signed line (as the file's last line, with
    or without a final newline); the keeper takes the signed line out (the copy stays; the file ends with a
    newline), a later commit puts it back: the record stays withdrawn."""
    _write(results, json.dumps(team), json.dumps(mal), copy)
    if not final_newline:
        (results / "dippm.jsonl").write_text((results / "dippm.jsonl").read_text()[:-1])
    commit("gnn-mal: a note on our entry")
    assert _board(results, []) == {"gnn-mal": ("verified", 1), "team-net": ("verified", 2)}
    _write(results, json.dumps(team), copy)
    commit("withdraw gnn-mal: it timed its test models (rule 3)")
    _write(results, json.dumps(team), json.dumps(mal), copy)
    commit("our entry, as the keeper scored it")
    skipped: list[str] = []
    assert _board(results, skipped) == {"team-net": ("verified", 2)}, skipped
    assert any("took out" in s for s in skipped), skipped


def test_a_team_line_rewritten_keeps_its_place_before_a_later_reference(tmp_path, monkeypatch):
    """Attack: Alice's ``gnn-x`` reached the main line before the reference folder ``gnn`` (so every
    board shows it). Mal's pull request adds his record and rewrites the file as ``jq -c .`` does and
    without its empty fields: Alice's line is the same record to every reader, but the fifty-ninth
    pass's key (JSON written back, keys sorted) told ``736.0`` from ``736``, so her record "arrived"
    with Mal's commit, after the folder, and every board skipped it as taking the reference's name.
    Control: with that key, her record is skipped."""
    from perfgraphs.leaderboard.records import history, results
    from perfgraphs.leaderboard.records.results import _object_without_duplicates

    repo, commit, alice, carol = _repo(tmp_path, monkeypatch)
    assert _shown(repo) == (["gnn-x", "carol-net"], [])
    rewritten = _defaults_left_out(_whole_numbers(alice))
    assert rewritten.count(".0,") < alice.count(".0,") and '"protocol"' not in rewritten
    mal = json.dumps({**json.loads(carol), "method": "mal-net", "authors": "Mal Lory", "run_identity": "mal-1"})
    commit(rewritten, _whole_numbers(carol), _whole_numbers(mal))
    methods, skipped = _shown(repo)
    assert methods == ["gnn-x", "carol-net", "mal-net"] and not skipped, skipped

    # control: the fifty-ninth pass's key, the JSON written back
    monkeypatch.setattr(results, "line_key", lambda line: json.dumps(
        json.loads(results.as_shown(line), object_pairs_hook=_object_without_duplicates), sort_keys=True))
    history._line_arrivals.cache_clear()
    methods, skipped = _shown(repo)
    assert methods == ["carol-net", "mal-net"]
    assert len(skipped) == 1 and "takes the reference baseline name 'gnn'" in skipped[0], skipped
    history._line_arrivals.cache_clear()
