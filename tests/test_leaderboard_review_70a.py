"""Seventieth adversarial pass (2026-12-06), read side: the build an unpinned board ranks was voted by
teams merged along chains of shared names (`builds._most_teams_build`), the rule the sixty-ninth pass
took out of the ranks. A third record made two teams one vote: `joint-net` by `Alice Author, Bob
Builder` (each written as their records write them, which `check` takes), on their own build and worse
than both, left Alice's and Bob's build one vote against Mal Lory's, the tie went to Mal's newer record
on another build, and `leaderboard show` (and the site) ranked Mal alone on dippm's unpinned
`amd-epyc-23059b2f-torch-fp32` board, Alice's, Bob's and the joint entry under "entries on earlier
builds". Now one author list votes a team, fewest people first, unless a list that votes shares a
person with it (`builds._voters`): a list naming two teams' people takes neither team's vote."""

from __future__ import annotations

from test_leaderboard_review_37a import UNPINNED, _board, _public_record, _show
from test_leaderboard_review_38a import _write

TITLE = f"perfgraphs/dippm · {UNPINNED} · latency_ms"


def _records() -> dict[str, dict]:
    """Alice's (roofline-fit's predictions, 20 %) and Bob's (layerwise-linear's, 17 %) entries on the
    references' build, their joint entry (static-xgboost's, 23 %: worse than both) on it too, and Mal's
    on another build, dated after the others."""
    mal_build = dict(dataset_content_hash="e" * 64, date_utc="2026-12-04T17:00:00+00:00")
    return {"alice": _public_record("roofline-fit", config=UNPINNED, method="gnn-a", authors="Alice Author",
                                    run_identity="alice-1"),
            "bob": _public_record("layerwise-linear", config=UNPINNED, method="gnn-b", authors="Bob Builder",
                                  run_identity="bob-1"),
            "joint": _public_record("static-xgboost", config=UNPINNED, method="joint-net",
                                    authors="Alice Author, Bob Builder", run_identity="joint-1"),
            "mal": _public_record("static-xgboost", config=UNPINNED, method="mal-net", authors="Mal Lory",
                                  run_identity="mal-1", **mal_build),
            # Mal again, two spellings of him (one team: one vote however many records)
            "mal2": _public_record("static-mlp", config=UNPINNED, method="mal-net-2", authors="M. Lory",
                                   run_identity="mal-2", **mal_build),
            "mal3": _public_record("layerwise-boost", config=UNPINNED, method="mal-net-3", authors="Mal Lory (ETH Zurich)",
                                   run_identity="mal-3", **mal_build)}


def test_a_joint_entry_does_not_hand_an_unpinned_board_to_another_teams_build(tmp_path, capsys, monkeypatch):
    """Attack: Alice, Bob and Mal each have an entry; `joint-net` by both Alice and Bob joins. Before
    this pass the board's build became Mal's and Mal was ranked alone; now Alice and Bob keep their
    ranks and the joint entry is listed unranked beside them (a worse entry of their own people).
    Control: with teams merged along chains (the rule before), the same records hand Mal the board."""
    from perfgraphs.leaderboard.records import builds, names

    r = _records()
    build = r["alice"]["dataset_content_hash"][:12]
    assert r["alice"]["tier"] == r["mal"]["tier"] == r["joint"]["tier"] == "reproduced"
    assert r["mal"]["date_utc"] > max(r[k]["date_utc"] for k in ("alice", "bob", "joint"))

    _write(tmp_path / "results", [r[k] for k in ("alice", "bob", "joint", "mal")])
    board = _board(_show(tmp_path / "results", capsys), TITLE)
    assert f"build {build}" in board and "1 entries on earlier builds not ranked" in board, board
    assert "│ 1 │ gnn-b" in board and "│ 2 │ gnn-a" in board and "│ – │ joint-net" in board, board
    assert "mal-net" not in board, board

    # control: teams merged along chains of shared names vote, as before this pass
    def chained(ran: list) -> list[str]:
        teams: list[list[str]] = []
        for e in ran:
            joined = [t for t in teams if any(names.share_a_person(e.authors, a) for a in t)]
            for t in joined:
                teams.remove(t)
            teams.append([e.authors] + [a for t in joined for a in t])
        return [t[0] for t in teams]  # one list a team: its newest record names one of its people

    monkeypatch.setattr(builds, "_voters", chained)
    board = _board(_show(tmp_path / "results", capsys), TITLE)
    assert "build eeeeeeeeeeee" in board and "│ 1 │ mal-net" in board, board
    assert "gnn-a" not in board and "3 entries on earlier builds not ranked" in board, board


def test_one_teams_spellings_are_still_one_vote():
    """Control: Mal's three records under three spellings of him (`Mal Lory`, `M. Lory`, `Mal Lory
    (ETH Zurich)`) are one vote, so Alice's and Bob's build is the board's; Alice and Bob's joint list
    votes with neither, and alone (their own lists gone) it is their team's one vote."""
    from perfgraphs.leaderboard.records import builds
    from perfgraphs.leaderboard.records.results import Entry

    r = {k: Entry(**v) for k, v in _records().items()}
    voters = builds._voters([r[k] for k in ("alice", "bob", "joint", "mal", "mal2", "mal3")])
    assert len(voters) == 3 and sorted(voters)[:2] == ["Alice Author", "Bob Builder"], voters  # and one Lory
    ours = r["alice"].dataset_content_hash
    assert builds.unpinned_build([r[k] for k in ("alice", "bob", "joint", "mal", "mal2", "mal3")]) == ours
    assert builds.unpinned_build([r[k] for k in ("joint", "mal", "mal2")]) == "e" * 64  # one vote each, Mal's newer
