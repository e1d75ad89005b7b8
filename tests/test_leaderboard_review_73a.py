"""Seventy-third adversarial pass (2026-12-06), read side: two teams' hidden records shared one run
identity. ``submit`` named a run by its method, code commit, board, seeds and set, not its authors,
and both the keeper's kept scores (``scores/<set>/<target>/<run_identity>.json``) and a sealed ranks
entry are found by that name. ``check`` refuses a method another author list has recorded, and a
duplicate method at a commit already recorded, but two pull requests pending at once are checked
against neither: a rival copied the method name and the (stated) code commit of a team's pending
hidden-set submission into one of its own, had it scored after the team's, and its kept scores
replaced the team's. Both keeper-signed records landed; the keeper's next `rank-hidden` left the
team's ``team-net`` out ("the kept scores belong to another record") and ranked the rival's, worse,
in its place: `leaderboard show` listed the team's record unranked, the rival's ``team-net`` second.
Now a run identity names its authors too (``submit.run_identity``)."""

from __future__ import annotations

import json

import yaml

from test_leaderboard_review_48a import CONFIG, SET, TARGET, _keyed_set
from test_leaderboard_review_55a import _write
from test_leaderboard_review_68a import _soon
from test_leaderboard_trust import good_record
from test_submit import example_copy

BUILD = "a1" * 32


def _identity_of(folder, method: str, authors: str, commit: str) -> str:
    """The run identity `submit --hidden-labels` gives a five-seed run of the submission in
    ``folder`` (the ridge example named ``method``, by ``authors``, stating ``commit``)."""
    from types import SimpleNamespace

    from perfgraphs.leaderboard import submit
    from perfgraphs.leaderboard.submission import load_submission

    example_copy(folder, method)
    meta = yaml.safe_load((folder / "submission.yaml").read_text())
    meta.update(authors=[authors], code={"url": "https://example.org/code", "commit": commit})
    (folder / "submission.yaml").write_text(yaml.safe_dump(meta))
    sub = load_submission(folder)
    problems: list[str] = []
    board = submit._board(sub, submit.SubmitOptions(dataset="dippm", config=CONFIG, target=TARGET), problems)
    assert board is not None, problems
    scoring = submit._Scoring(board, None, "", sub.meta.method)
    return submit.run_identity(sub.meta, scoring, SimpleNamespace(content_hash=BUILD),
                               SimpleNamespace(name="hidden", sha256=SET), [0, 1, 2, 3, 4], False)


def _scored(keeper, method: str, authors: str, mapes, identity: str, commit: str, date: str) -> dict:
    """A hidden-set record as `submit --hidden-labels` leaves it: signed by the set's keeper, its
    per-configuration ratios kept in the keeper folder under its run identity (`keep_scores`)."""
    from perfgraphs.leaderboard.records.digest import record_sha256
    from perfgraphs.leaderboard.records.keeper_key import record_message, sign
    from perfgraphs.leaderboard.records.results import Entry
    from perfgraphs.leaderboard.records.sealed_ranks import keep_scores

    record = good_record(method, mapes=mapes, authors=authors, tier="verified", test_set="hidden",
                         hidden_labels_sha256=SET, date_utc=date, dataset_content_hash=BUILD,
                         run_identity=identity, code_commit=commit)
    record = {**record, "keeper_signature": sign(keeper, record_message(record_sha256(record), "verified"))}
    weights = [0.5 + k / 149 for k in range(150)]  # mean 1: each seed's MAPE is its record's
    keep_scores(keeper, Entry(**record), [[1 + m / 100 * w for w in weights] for m in mapes])
    return record


def _rows(out: str) -> list[tuple[str, str, str]]:
    """(rank, method, authors) of each row of the tables `leaderboard show` printed (authors on the
    row's own line or the next, as ``by ...``)."""
    rows: list[list[str]] = []
    for line in out.splitlines():
        if not line.startswith("│") or len(cells := [c.strip() for c in line.split("│")]) <= 3 or not cells[2]:
            continue
        if cells[2].startswith("by ") and rows:
            rows[-1][2] = cells[2][3:]
        else:
            rows.append([cells[1], cells[2], ""])
    return [tuple(r) for r in rows]


def _two_pending_then_ranked(git_commitments, tmp_path, capsys, monkeypatch) -> str:
    """``gnn-mal`` (10 %) is recorded; Tea Team's ``team-net`` (20 %) and Eve's copy of its method
    name and stated commit (30 %, her own code) wait in two pull requests at once, each checked
    against the records landed (neither of the other), and the keeper scores both, the copy last.
    Both land, the keeper ranks the round. Returns what `leaderboard show` prints."""
    from perfgraphs.cli import main

    folder, commit = git_commitments
    keeper = tmp_path / "keeper"
    keeper.mkdir()
    _keyed_set(folder, commit, keeper, SET)
    results = folder.parent / "results"
    stated = "7e" * 20  # Tea Team's code commit, as its pending pull request states it
    mal = _scored(keeper, "gnn-mal", "Mal Lory", (10.0, 10.5, 9.5, 10.2, 9.8),
                  _identity_of(tmp_path / "mal", "gnn-mal", "Mal Lory", "3a" * 20), "3a" * 20, _soon(0.4))
    team = _scored(keeper, "team-net", "Tea Team", (20.0, 21.0, 19.0, 20.5, 19.5),
                   _identity_of(tmp_path / "team", "team-net", "Tea Team", stated), stated, _soon(0.5))
    eve = _scored(keeper, "team-net", "Eve Sdropper", (30.0, 31.0, 29.0, 30.5, 29.5),
                  _identity_of(tmp_path / "eve", "team-net", "Eve Sdropper", stated), stated, _soon(0.6))
    _write(results, json.dumps(mal), json.dumps(team), json.dumps(eve))
    commit("the round's records: gnn-mal, then the two pull requests that waited together")
    assert main(["leaderboard", "rank-hidden", str(keeper), "--dataset", "dippm", "--config", CONFIG,
                 "--target", TARGET, "--results", str(results), "--commitments", str(folder)]) == 0
    commit("the keeper's ranks")
    monkeypatch.setenv("COLUMNS", "300")  # each row on one line
    capsys.readouterr()
    assert main(["leaderboard", "show", "--results", str(results)]) == 0
    return capsys.readouterr().out


def test_a_copy_of_a_pending_teams_method_and_commit_leaves_its_ranked_record_alone(git_commitments, tmp_path,
                                                                                   capsys, monkeypatch):
    """Attack: Eve's ``team-net`` at Tea Team's stated commit, scored after it while both pull requests
    waited, took the run identity of Tea Team's record; its kept scores replaced the team's, and the
    keeper's ranks left Tea Team's record out and ranked Eve's copy second. Now the two runs are two
    identities: the round ranks as scored, Tea Team's record second, Eve's third."""
    out = _two_pending_then_ranked(git_commitments, tmp_path, capsys, monkeypatch)
    assert [(r, m) for r, m, _ in _rows(out)] == [("1", "gnn-mal"), ("2", "team-net"), ("3", "team-net")], out
    assert "Tea Team" in _rows(out)[1][2] and "Eve Sdropper" in _rows(out)[2][2], out


def test_the_guard_off_the_copy_takes_the_teams_place(git_commitments, tmp_path, capsys, monkeypatch):
    """Control: with the run identity blind to the authors (as before), the same steps leave Tea Team's
    record unranked and rank Eve's copy in its place."""
    from perfgraphs.leaderboard import submit

    blind = submit._identity
    monkeypatch.setattr(submit, "_identity", lambda **fields: blind(**{k: v for k, v in fields.items()
                                                                        if k != "authors"}))
    out = _two_pending_then_ranked(git_commitments, tmp_path, capsys, monkeypatch)
    rows = _rows(out)
    assert [(r, m) for r, m, _ in rows[:2]] == [("1", "gnn-mal"), ("2", "team-net")], out
    assert "Eve Sdropper" in rows[1][2] and rows[2][0] == "–" and "Tea Team" in rows[2][2], out
