"""Thirty-eighth adversarial pass (2026-12-04), read side: which build an unpinned board ranks when
a contributor's harness-run records name another one."""

from __future__ import annotations

import json
from pathlib import Path

from test_leaderboard_review_37a import REPO, UNPINNED, _board, _public_record, _show  # noqa: F401 — shared helpers


def _write(results: Path, records) -> None:
    results.mkdir(parents=True, exist_ok=True)
    (results / "dippm.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records))


def test_a_contributors_reproduced_record_does_not_choose_an_unpinned_boards_build(tmp_path, capsys, monkeypatch):
    """Attack: on a board ``leaderboard/builds.json`` does not pin (dippm's
    ``amd-epyc-23059b2f-torch-fp32``) the readers ranked the build of the newest record the harness
    ran. ``submit`` has no pin there to refuse another build by (an unpinned config builds otherwise
    under other generator versions), and ``reproduce --submission`` compares a contributor's build
    with the reviewer's checkout, not with the board's, so Mal's *reproduced* record, scored on
    another build (``eeee…``) and dated after the others, lands as reviewed. ``leaderboard show``
    then titled the board with Mal's build, ranked Mal's copy of a worse predictor 1, alone, and
    moved the reference and Alice's entry (lower MAPE than Mal's) under "entries on earlier builds
    not ranked". Now an unpinned board ranks its newest *reference* harness record's build, else the
    build most teams' newest harness records are on: the reference and Alice stay ranked, with or
    without the reference (then Alice and Bob outvote Mal), and Mal's row is the one on another
    build. Control: with the newest harness record choosing the build (the rule before), the attack
    leaves Mal alone on the board."""
    from perfgraphs.leaderboard.records import builds
    from perfgraphs.leaderboard.records.tiers import HARNESS_TIERS

    reference = _public_record(config=UNPINNED)
    alice = _public_record("static-xgboost", config=UNPINNED, method="gnn-a", authors="Alice Author",
                           run_identity="alice-1")
    bob = _public_record("layerwise-linear", config=UNPINNED, method="gnn-b", authors="Bob Builder",
                         run_identity="bob-1")
    # Mal's entry: the worse reference's predictions (static-xgboost's 20 % beside static-mlp's 13 %), reproduced
    mal = _public_record("static-xgboost", config=UNPINNED, method="mal-net", authors="Mal Lory", run_identity="mal-1",
                         dataset_content_hash="e" * 64, date_utc="2026-12-04T17:00:00+00:00")
    assert mal["tier"] == alice["tier"] == "reproduced"
    assert mal["date_utc"] > max(r["date_utc"] for r in (reference, alice, bob))
    build = reference["dataset_content_hash"][:12]
    title = f"perfgraphs/dippm · {UNPINNED} · latency_ms"

    _write(tmp_path / "results", (reference, alice, mal))
    board = _board(_show(tmp_path / "results", capsys), title)
    assert f"build {build}" in board and "1 entries on earlier builds not ranked" in board, board
    assert "static-mlp" in board and "gnn-a" in board and "mal-net" not in board, board
    # a board without a reference: one vote a team, Alice's and Bob's build against Mal's
    _write(tmp_path / "teams" / "results", (alice, bob, mal))
    board = _board(_show(tmp_path / "teams" / "results", capsys), title)
    assert f"build {build}" in board and "gnn-a" in board and "gnn-b" in board and "mal-net" not in board, board

    # control: the newest harness-run record chooses the build, as before
    monkeypatch.setattr(builds, "unpinned_build", lambda entries: max(
        [e for e in entries if e.tier in HARNESS_TIERS] or entries, key=lambda e: e.date_utc).dataset_content_hash)
    board = _board(_show(tmp_path / "results", capsys), title)
    assert "build eeeeeeeeeeee" in board and "mal-net" in board and "2 entries on earlier builds not ranked" in board, board
    assert "static-mlp" not in board and "gnn-a" not in board, board
