"""Hundred-and-twenty-first pass, side b (2026-12-07): what a pull request deletes.

Found: ``leaderboard/builds.json`` is read as it stands, and the forty-second pass's guard on a
config's repeat store (``builds.repetitions_pin_problem``: the visits every board of the config
ranks against must be the ones the pin's ``repetitions`` names) answered "no problem" for a config
without a pin. So a pull request that deleted one block of ``builds.json``, the pin of dippm's
``cpu-torch-fp32`` (a removed block in a file of release data, nothing the boards print changes for
it: with the references on the pinned build, ``builds.unpinned_build`` ranks that same build), and
added the forty-second pass's forged shard (20 visits of the 311 test configurations at one entry's
predictions) had the official dippm cpu latency board rank layerwise-boost first again (rank 2 at
10.7 % on the committed store, rank 1 at 3.4 % above roofline-boost on the forged one), with no line
of the readers' saying the store was not the pinned one. Now a config with a repeat store and no
pin has no visits to rank against (``builds.unpinned_repetitions_problem``): the readers stop with
one line, as for a store that is not the pinned one; ``pin-builds`` (a release step) pins it.
"""

from __future__ import annotations

import json

import pytest

from test_leaderboard_review_42a import forged_store


def test_a_deleted_pin_does_not_unpin_the_repeat_store(tmp_path, monkeypatch):
    """Attack: delete the config's pin from builds.json, add forged visits. Guard: the readers stop
    with one line. Control: with the new check off, the forged visits rank the favoured entry first."""
    from perfgraphs.leaderboard.records import builds
    from perfgraphs.leaderboard.records.builds import RepetitionsPinError
    from perfgraphs.leaderboard.records.ranks import label_repetitions, rank_board
    from perfgraphs.leaderboard.records.results import read_entries
    from perfgraphs.leaderboard.site.pages import current_and_superseded
    from perfgraphs.registry import task

    board = task("perfgraphs/dippm", "cpu-torch-fp32", "latency_ms")
    entries = [e for e in read_entries("dippm") if (e.config, e.target, e.test_set) == (board.config.name, "latency_ms",
                                                                                      "public")]
    pinned_current = current_and_superseded(builds.split_by_build(entries, builds.pinned(board))[1])[0]

    # the pull request: the config's pin deleted from builds.json (every other pin kept, byte for byte)
    pins = json.loads(builds.BUILDS_FILE.read_text())
    del pins["perfgraphs/dippm cpu-torch-fp32"]
    edited = tmp_path / "builds.json"
    edited.write_text(json.dumps(pins, indent=2, sort_keys=True) + "\n")
    monkeypatch.setattr(builds, "BUILDS_FILE", edited)
    assert builds.pinned(board) is None
    # the board ranks the same records without the pin (the references' build): nothing it prints moves
    current = current_and_superseded(builds.split_by_build(entries, None)[1])[0]
    assert sorted(e.run_identity for e in current) == sorted(e.run_identity for e in pinned_current)
    favoured = next(e for e in current if e.method == "layerwise-boost")

    # ... and the forty-second pass's forged shard of visits
    forged_store(board, favoured, tmp_path, monkeypatch)

    with pytest.raises(RepetitionsPinError, match="no pin"):
        label_repetitions(board)

    # control: with the unpinned-store check off, the forged visits put the favoured entry first
    monkeypatch.setattr(builds, "unpinned_repetitions_problem", lambda *a, **k: None)
    ranked = [row for row in rank_board(current, label_repetitions(board), official=True).rows if row.ranked is not None]
    assert min(ranked, key=lambda row: (row.ranked.rank, row.ranked.mape_pct)).entry.method == "layerwise-boost"
