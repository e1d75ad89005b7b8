"""Seventy-second adversarial pass (2026-12-06), read side: ``leaderboard/builds.json`` (the build each
public board ranks) was read as it stands, and no test rebuilds most pinned configs. One pull request
touching no results file, only adding a pin for dippm's unpinned ``amd-epyc-23059b2f-torch-fp32`` (or
re-pinning a pinned config) that named the build of its author's own *reproduced* record, made `leaderboard
show` and the site rank that record alone at rank 1 and move the reference and Alice's entry under
"entries on earlier builds not ranked". A re-pin is a release step after which the references are
re-scored on the new build, so a pinned board now ranks the build of its newest reference record the harness
ran where that is not the pin (``builds.pinned_build``)."""

from __future__ import annotations

import json

from test_leaderboard_review_37a import UNPINNED, _board, _public_record, _show

TITLE = f"perfgraphs/dippm · {UNPINNED} · latency_ms"


def _results(tmp_path):
    """A reference and Alice's entry on the board's build, and Mal's reproduced entry on another build
    (``reproduce`` compares a record's build with the reviewer's checkout, not with the board's)."""
    results = tmp_path / "leaderboard" / "results"
    results.mkdir(parents=True)
    honest = [_public_record(config=UNPINNED),
              _public_record("static-xgboost", config=UNPINNED, method="gnn-a", authors="Alice Author",
                             run_identity="alice-1")]
    mal = _public_record("roofline-fit", config=UNPINNED, method="mal-net", authors="Mal Lory", run_identity="mal-1",
                         dataset_content_hash="e" * 64)
    (results / "dippm.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in (*honest, mal)))
    return results, honest


def _pin(results, content_hash: str) -> None:
    """Mal's pull request: a pin of the board's config (the fields `pin-builds` writes)."""
    (results.parent / "builds.json").write_text(json.dumps({f"perfgraphs/dippm {UNPINNED}": {
        "content_hash": content_hash, "generators": {}, "test_n": {"latency_ms": 311}}}))


def test_a_pin_does_not_move_a_boards_references_off_it(tmp_path, capsys, monkeypatch):
    """Attack: Mal's pull request pins the board to the build of Mal's own record (``eeee…``): `show`
    ranked ``mal-net`` alone and listed the reference and Alice's entry as on earlier builds. Now the
    board ranks its reference's build, and ``mal-net`` is the entry on another build, as before the pin.
    Control: with the pin read as it stands (the rule before), the attack empties the board of all but
    Mal's entry."""
    from perfgraphs.leaderboard.records import builds

    results, honest = _results(tmp_path)
    board = _board(_show(results, capsys), TITLE)
    assert "gnn-a" in board and "static-mlp" in board and "1 entries on earlier builds not ranked" in board, board

    _pin(results, "e" * 64)
    board = _board(_show(results, capsys), TITLE)
    assert f"build {honest[0]['dataset_content_hash'][:12]}" in board, board
    assert "gnn-a" in board and "static-mlp" in board and "1 entries on earlier builds not ranked" in board, board
    assert "mal-net" not in board, board

    monkeypatch.setattr(builds, "pinned_build", lambda entries, pin: pin)  # control: the pin as it stands
    board = _board(_show(results, capsys), TITLE)
    assert "build eeeeeeeeeeee" in board and "mal-net" in board, board
    assert "gnn-a" not in board and "2 entries on earlier builds not ranked" in board, board


def test_a_pin_of_the_references_build_is_ranked():
    """Honest neighbours: the pin of the build the newest reference record is on is the board's build; a
    board without a reference record ranks its pin; a re-pin holding no record yet (the references not
    re-scored) ranks nothing, as before. A pin put back to an earlier build the references were on (a
    rollback) does not move the board off its newest reference's build."""
    from types import SimpleNamespace

    from perfgraphs.leaderboard.records.builds import split_by_build

    ref = SimpleNamespace(**_public_record(config=UNPINNED))
    team = SimpleNamespace(**_public_record("static-xgboost", config=UNPINNED, method="gnn-a", authors="Alice Author",
                                            dataset_content_hash="d" * 64))
    build, current, earlier = split_by_build([ref, team], {"content_hash": ref.dataset_content_hash})
    assert build == ref.dataset_content_hash and current == [ref] and earlier == [team]
    build, current, earlier = split_by_build([team], {"content_hash": ref.dataset_content_hash})
    assert build == ref.dataset_content_hash and current == [] and earlier == [team]
    build, current, earlier = split_by_build([ref, team], {"content_hash": "c" * 64})
    assert build == "c" * 64 and current == [] and earlier == [ref, team]
    old = SimpleNamespace(**{**vars(ref), "dataset_content_hash": "d" * 64, "date_utc": "2026-01-01T00:00:00+00:00"})
    build, current, earlier = split_by_build([old, team, ref], {"content_hash": "d" * 64})
    assert build == ref.dataset_content_hash and current == [ref] and earlier == [old, team]
