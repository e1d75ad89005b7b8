"""Fifty-fifth adversarial pass (2026-12-05), read side: a keeper-signed hidden-set record that the main
line took out of its results file (withdrawn on review) was read as *verified* again, and ranked by the
keeper's ranks, once a pull request put its line back: the signature is still the keeper's."""

from __future__ import annotations

import json

import pytest

from test_leaderboard_review_48a import CONFIG, DATASET, SET, TARGET, _keyed_set, _ranks
from test_leaderboard_trust import good_record
from test_leaderboard_verified import _soon


def _signed(keeper, method: str, authors: str, mapes) -> dict:
    from perfgraphs.leaderboard.records.digest import record_sha256
    from perfgraphs.leaderboard.records.keeper_key import record_message, sign

    record = good_record(method, mapes=mapes, authors=authors, tier="verified", test_set="hidden",
                         hidden_labels_sha256=SET, date_utc=_soon())
    return {**record, "keeper_signature": sign(keeper, record_message(record_sha256(record), "verified"))}


def _write(results, *lines: str) -> None:
    results.mkdir(parents=True, exist_ok=True)
    (results / "dippm.jsonl").write_text("".join(line + "\n" for line in lines))


def _board(results, skipped=None):
    """(method -> (tier, rank)) of the hidden board as `leaderboard show` reads and ranks it."""
    from perfgraphs.leaderboard.records.ranks import rank_board
    from perfgraphs.leaderboard.records.results import read_entries
    from perfgraphs.leaderboard.records.sealed_ranks import read_sealed

    entries = [e for e in read_entries("dippm", results, skipped) if e.test_set == "hidden"]
    board = rank_board(entries, official=True, sealed=read_sealed(DATASET, CONFIG, TARGET, SET))
    return {r.entry.method: (r.entry.tier, r.ranked.rank if r.ranked else None) for r in board.rows}


def _round(git_commitments, tmp_path):
    """A keyed round: the keeper's two records (``gnn-mal`` ranked first) committed with its ranks."""
    from perfgraphs.leaderboard.records.results import read_entries
    from perfgraphs.leaderboard.records.sealed_ranks import write_sealed

    folder, commit = git_commitments
    keeper = tmp_path / "keeper"
    keeper.mkdir()
    _keyed_set(folder, commit, keeper, SET)
    results = folder.parent / "results"
    mal = _signed(keeper, "gnn-mal", "Mal Lory", (10.0, 10.5, 9.5, 10.2, 9.8))
    team = _signed(keeper, "team-net", "Tea Team", (20.0, 21.0, 19.0, 20.5, 19.5))
    _write(results, json.dumps(team), json.dumps(mal))
    by_method = {e.method: e for e in read_entries("dippm", results, [])}
    write_sealed(_ranks(keeper, [(by_method["gnn-mal"], 1), (by_method["team-net"], 2)], "2026-12-05T02:00:00+00:00"),
                 folder)
    commit("the keeper's records and ranks of the round")
    return results, commit, mal, team


@pytest.mark.parametrize("spelling", ["the-same-line", "written-anew"])
def test_a_withdrawn_keeper_signed_record_put_back_is_not_read(git_commitments, tmp_path, spelling):
    """Attack: the keeper scored ``gnn-mal`` on the live hidden set (signed, verified, ranked first by
    the keeper's signed ranks); on review it was found measuring its inputs (rule 3) and its line was
    taken out of ``leaderboard/results/dippm.jsonl``. A later pull request puts the line back (byte for
    byte, or the same record written anew: another key order and spacing, so the diff shows no line
    the main line ever had). Every check of the record passes (the set's key, the keeper's signature
    over its digest and tier, its date after the commitment), and the keeper's latest ranks still name
    it: the board showed ``gnn-mal`` verified at rank 1 again, ``team-net`` second. A record the main
    line took out now stays out (its digest, whatever its spelling)."""
    results, commit, mal, team = _round(git_commitments, tmp_path)
    # control: the round as the keeper committed it
    assert _board(results) == {"gnn-mal": ("verified", 1), "team-net": ("verified", 2)}
    _write(results, json.dumps(team))
    commit("withdraw gnn-mal: it timed its test models (rule 3)")
    assert _board(results) == {"team-net": ("verified", 2)}

    line = json.dumps(mal) if spelling == "the-same-line" else json.dumps(dict(reversed(mal.items())),
                                                                          separators=(",", ":"))
    _write(results, json.dumps(team), line)
    for state in ("in the pull request", "merged"):
        if state == "merged":
            commit("our entry, as the keeper scored it")
        skipped: list[str] = []
        assert _board(results, skipped) == {"team-net": ("verified", 2)}, state
        assert len(skipped) == 1 and "took out" in skipped[0], (state, skipped)


def test_a_keeper_signed_record_moved_or_respelled_in_one_commit_is_still_read(git_commitments, tmp_path):
    """Control of the fix: a commit that rewrites the file (each line respelled, the order changed)
    takes no record out, and a record never taken out reads as before."""
    results, commit, mal, team = _round(git_commitments, tmp_path)
    _write(results, json.dumps(mal, indent=None, separators=(", ", ": "), sort_keys=True),
           json.dumps(dict(reversed(team.items()))))
    commit("the results file rewritten, sorted keys")
    skipped: list[str] = []
    assert _board(results, skipped) == {"gnn-mal": ("verified", 1), "team-net": ("verified", 2)} and not skipped
