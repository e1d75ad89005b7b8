"""Sixty-seventh adversarial pass (2026-12-06), read side: the withdrawn records' history
(``keeper_key._withdrawn``) counted a record "taken out" when its copies fell to none, whether or not a
line the boards read as the keeper's had ever held it. A pull request that saw a team's keeper-signed
hidden record before it landed (its own pull request, open for review) added a copy every board skips
(unsigned, *self-reported*: one warning line), and a second one took that malformed line out again; when
the keeper's signed line then landed, the record read as withdrawn and every board left it out for good."""

from __future__ import annotations

import json

import pytest

from test_leaderboard_review_48a import SET, _keyed_set, _ranks
from test_leaderboard_review_55a import _board, _signed, _write
from test_leaderboard_review_58a import KINDS, _shadow


def _front_run(git_commitments, tmp_path, kind: str):
    """The round's commitment and key; a copy of the keeper's pending ``team-net`` record the boards skip
    (``kind``) added and taken out by two pull requests; then the keeper's records and ranks land."""
    from perfgraphs.leaderboard.records.results import Entry
    from perfgraphs.leaderboard.records.sealed_ranks import write_sealed

    folder, commit = git_commitments
    keeper = tmp_path / "keeper"
    keeper.mkdir()
    _keyed_set(folder, commit, keeper, SET)
    results = folder.parent / "results"
    mal = _signed(keeper, "gnn-mal", "Mal Lory", (10.0, 10.5, 9.5, 10.2, 9.8))
    team = _signed(keeper, "team-net", "Tea Team", (20.0, 21.0, 19.0, 20.5, 19.5))
    if kind != "none":
        _write(results, _shadow(team, kind))
        commit("gnn-mal: a note on the round")
        _write(results)
        commit("drop a malformed line the boards skip")
    _write(results, json.dumps(team), json.dumps(mal))
    write_sealed(_ranks(keeper, [(Entry(**team), 1), (Entry(**mal), 2)],
                        "2026-12-05T02:00:00+00:00"), folder)
    commit("the keeper's records and ranks of the round")
    return results, commit, mal, team


@pytest.mark.parametrize("kind", KINDS)
def test_a_copy_added_and_taken_out_before_the_signed_line_landed_withdraws_nothing(git_commitments, tmp_path,
                                                                                      kind):
    """Attack: ``team-net`` is the keeper's rank 1 of the round; its signed line waits in a pull request.
    ``gnn-mal`` (rank 2) copies it into a line every board skips (``kind``), merged, and a second pull
    request removes that malformed line. The signed line then lands with the keeper's ranks: the history
    read the skipped copy's removal as the record taken out, and every board dropped ``team-net``
    ("withdrawn"), ``gnn-mal`` alone on the board. A record is taken out only after a line the boards read
    as its keeper's held it."""
    results, *_ = _front_run(git_commitments, tmp_path, kind)
    skipped: list[str] = []
    assert _board(results, skipped) == {"team-net": ("verified", 1), "gnn-mal": ("verified", 2)}, skipped
    assert not skipped


def test_the_round_without_the_front_run_and_a_real_withdrawal_after_it(git_commitments, tmp_path):
    """Control: the same round without the copies reads whole; the keeper's own withdrawal of the signed
    line after it landed still withdraws it, and its line put back stays out."""
    results, commit, mal, team = _front_run(git_commitments, tmp_path, "none")
    assert _board(results, []) == {"team-net": ("verified", 1), "gnn-mal": ("verified", 2)}
    _write(results, json.dumps(mal))
    commit("withdraw team-net: it timed its test models (rule 3)")
    _write(results, json.dumps(team), json.dumps(mal))
    commit("put back")
    skipped: list[str] = []
    assert _board(results, skipped) == {"gnn-mal": ("verified", 2)}
    assert len(skipped) == 1 and "took out" in skipped[0], skipped


@pytest.mark.parametrize("kind", KINDS)
def test_a_skipped_copy_taken_out_after_the_signed_line_landed_withdraws_nothing(git_commitments, tmp_path, kind):
    """Control: a skipped copy that stays until the signed line lands and is removed after it takes
    nothing out (the signed line still holds the record)."""
    results, commit, mal, team = _front_run(git_commitments, tmp_path, "none")
    _write(results, json.dumps(team), json.dumps(mal), _shadow(team, kind))
    commit("a copy")
    _write(results, json.dumps(team), json.dumps(mal))
    commit("the copy removed")
    skipped: list[str] = []
    assert _board(results, skipped) == {"team-net": ("verified", 1), "gnn-mal": ("verified", 2)}, skipped
    assert not skipped
