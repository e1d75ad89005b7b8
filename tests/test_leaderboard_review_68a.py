"""Sixty-eighth adversarial pass (2026-12-06), read side: a hidden set's board kept only the records on
the build of its newest one. The keeper scores a contributor on the live set after a re-pin (a release
step; `submit` scores on the pinned build only), and that one keeper-signed record, dated last, moved
every other entry of the set (the keeper's rank-1 entry, the references) under *previous builds*,
unranked, in `leaderboard show`, on the site and in `rank-hidden`; the keeper's next ranks then put
that record first, alone, at 30 % MAPE above entries at 10 % and 20 %. A hidden board is scored on the
set's own rows and labels, which no build holds: it now keeps every record (``builds.hidden_board``)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from test_leaderboard_review_48a import CONFIG, SET, TARGET, _keyed_set
from test_leaderboard_review_55a import _write
from test_leaderboard_trust import good_record

OLD_BUILD, NEW_BUILD = "a1" * 32, "b2" * 32  # the pin the round was scored on, and the pin after a re-pin


def _soon(minutes: float) -> str:
    """Within the record check's slack for the future, after a commit just made."""
    return (datetime.now(timezone.utc) + timedelta(minutes=minutes)).isoformat(timespec="seconds")


def _scored(keeper, method: str, authors: str, mapes, build: str, date: str) -> dict:
    """A hidden-set record as `submit --hidden-labels` leaves it: signed by the set's keeper, its
    per-configuration ratios (150 configurations, each seed's MAPE its record's) in the keeper folder."""
    from perfgraphs.leaderboard.records.digest import record_sha256
    from perfgraphs.leaderboard.records.keeper_key import record_message, sign
    from perfgraphs.leaderboard.records.results import Entry
    from perfgraphs.leaderboard.records.sealed_ranks import keep_scores

    record = good_record(method, mapes=mapes, authors=authors, tier="verified", test_set="hidden",
                         hidden_labels_sha256=SET, date_utc=date, dataset_content_hash=build, run_identity=method)
    record = {**record, "keeper_signature": sign(keeper, record_message(record_sha256(record), "verified"))}
    weights = [0.5 + k / 149 for k in range(150)]  # mean 1: each seed's MAPE is its record's
    keep_scores(keeper, Entry(**record), [[1 + m / 100 * w for w in weights] for m in mapes])
    return record


def _round_then_a_late_entry(git_commitments, tmp_path, capsys, monkeypatch):
    """The keeper's round (``gnn-mal`` 10 %, ``team-net`` 20 %, on the round's build) ranked by
    `rank-hidden` and committed; then, after a re-pin, the keeper scores ``eve-net`` (30 %, on the new
    build, dated last) and its pull request lands. Returns (show, rank): `leaderboard show`'s table rows
    and notes, and the keeper's `rank-hidden` run (then committed)."""
    from perfgraphs.cli import main

    folder, commit = git_commitments
    keeper = tmp_path / "keeper"
    keeper.mkdir()
    _keyed_set(folder, commit, keeper, SET)
    results = folder.parent / "results"
    mal = _scored(keeper, "gnn-mal", "Mal Lory", (10.0, 10.5, 9.5, 10.2, 9.8), OLD_BUILD, _soon(0.5))
    team = _scored(keeper, "team-net", "Tea Team", (20.0, 21.0, 19.0, 20.5, 19.5), OLD_BUILD, _soon(0.6))
    _write(results, json.dumps(team), json.dumps(mal))
    commit("the keeper's records of the round")
    monkeypatch.setenv("COLUMNS", "300")  # each row on one line

    def rank() -> str:
        assert main(["leaderboard", "rank-hidden", str(keeper), "--dataset", "dippm", "--config", CONFIG,
                     "--target", TARGET, "--results", str(results), "--commitments", str(folder)]) == 0
        commit("the keeper's ranks")
        return capsys.readouterr().out

    def show() -> str:
        capsys.readouterr()
        assert main(["leaderboard", "show", "--results", str(results)]) == 0
        return capsys.readouterr().out

    assert "rank 1: gnn-mal" in rank()
    assert _rows(show()) == [("1", "gnn-mal"), ("2", "team-net")]  # control: the round as ranked
    eve = _scored(keeper, "eve-net", "Eve Sdropper", (30.0, 31.0, 29.0, 30.5, 29.5), NEW_BUILD, _soon(0.9))
    _write(results, json.dumps(team), json.dumps(mal), json.dumps(eve))
    commit("eve-net, scored on the hidden set by its keeper")
    return results, show, rank


def _rows(out: str) -> list[tuple[str, str]]:
    """(rank, method) of each row of the tables `leaderboard show` printed."""
    return [(cells[1], cells[2]) for line in out.splitlines() if line.startswith("│")
            and len(cells := [c.strip() for c in line.split("│")]) > 3 and cells[2] and not cells[2].startswith("by ")]


def test_a_record_scored_after_a_re_pin_moves_no_other_entry_off_the_hidden_board(git_commitments, tmp_path, capsys,
                                                                                  monkeypatch):
    """Attack: the keeper scored ``eve-net`` on the live set after the release step re-pinned the build
    (every ordinary step: a keeper-signed record, its date and build the harness's). `leaderboard show`
    and the site listed it alone on the board, ``gnn-mal`` and ``team-net`` as "2 entries on earlier
    builds not ranked", and the keeper's next `rank-hidden` ranked ``eve-net`` 1, "best". Now every
    record of the set stays on its board: ``eve-net`` is listed unranked (scored after the ranks), then
    ranked third."""
    from perfgraphs.leaderboard.site.pages import build_site

    results, show, rank = _round_then_a_late_entry(git_commitments, tmp_path, capsys, monkeypatch)
    out = show()
    assert _rows(out) == [("1", "gnn-mal"), ("2", "team-net"), ("–", "eve-net")], out
    assert "earlier builds" not in out
    page = build_site(tmp_path / "site", results).read_text()
    assert "Previous builds" not in page and all(m in page for m in ("gnn-mal", "team-net", "eve-net"))
    ranks = rank()
    assert "rank 1: gnn-mal" in ranks and "rank 3: eve-net" in ranks, ranks
    assert _rows(show()) == [("1", "gnn-mal"), ("2", "team-net"), ("3", "eve-net")]


def test_the_guard_off_the_late_record_takes_the_board_alone(git_commitments, tmp_path, capsys, monkeypatch):
    """Control: with a hidden board split by its newest record's build (as before), the same steps leave
    ``eve-net`` alone on it, then ranked 1 by the keeper's ranks."""
    from perfgraphs.leaderboard.records import builds

    monkeypatch.setattr(builds, "hidden_board", lambda entries: False)
    results, show, rank = _round_then_a_late_entry(git_commitments, tmp_path, capsys, monkeypatch)
    out = show()
    assert _rows(out) == [("–", "eve-net")] and "2 entries on earlier builds not ranked" in out, out
    assert "rank 1: eve-net" in rank()
    assert _rows(show()) == [("1", "eve-net")]


def test_a_public_board_without_a_pin_still_splits_by_build():
    """Control: a public board's entries on another build than its own are still set aside (thirty-seventh
    and thirty-eighth passes), and a hidden board keeps its records on any build."""
    from perfgraphs.leaderboard.records.builds import split_by_build
    from perfgraphs.leaderboard.records.results import Entry

    reference = Entry(**good_record("static-mlp", authors="perfgraphs reference baselines", code_commit="0" * 40,
                                    dataset_content_hash=OLD_BUILD, date_utc="2026-12-01T00:00:00+00:00"))
    later = Entry(**good_record("gnn-x", dataset_content_hash=NEW_BUILD, date_utc="2026-12-02T00:00:00+00:00"))
    build, current, previous = split_by_build([reference, later], None)
    assert build == OLD_BUILD and current == [reference] and previous == [later]
    hidden = [Entry(**{**good_record(m, dataset_content_hash=b, date_utc=d), "tier": "verified",
                       "test_set": "hidden", "hidden_labels_sha256": SET})
              for m, b, d in (("gnn-mal", OLD_BUILD, "2026-12-01T00:00:00+00:00"),
                              ("eve-net", NEW_BUILD, "2026-12-02T00:00:00+00:00"))]
    build, current, previous = split_by_build(hidden, None)
    assert build == NEW_BUILD and current == hidden and previous == []
