"""Sixty-third adversarial pass (2026-12-06), read side: a partial clone (``git clone --filter=blob:none``)
read as a clone with its whole history. Its older files' objects are not there and never fetched (no
lazy fetch), so git failed on the results file's history, and the withdrawn records' history read that
as no history at all: a keeper-signed record the main line had taken out (withdrawn on review, rule 3)
and a later pull request put back was read *verified* at rank 1 again by `leaderboard show`/`build`
in such a clone, where a full clone skips it. The set's key, the commitment and the record's own
signature all read from files the checkout holds, so nothing else refused. A shallow clone deep enough
to hold a keyless round's commitment did the same for a record frozen as merged (``unsigned-records.txt``):
an unreadable history took nothing out. A partial clone now reads as a shallow one
(``history.partial_clone``: no key counts there), and in a repository that cannot show a results file's
history no hidden record is read (``keeper_key.unread_history_problem``), each skip saying why. On this
repository (checked by hand, 2026-12-06): a blobless clone whose ``leaderboard/hidden/`` history had been
fetched once showed a withdrawn, put-back ``dippm-sage (quick)`` on the 8b5c2778 peak-memory board, and a
``--depth 330`` clone a withdrawn, put-back frozen ``layerwise-linear`` of 2ee8d095, both *verified*."""

from __future__ import annotations

import json
import subprocess

import pytest

from test_leaderboard_review_55a import _board, _round, _write


def _withdrawn_and_put_back(git_commitments, tmp_path):
    """The keeper's round, ``gnn-mal`` (rank 1) taken out on review, then its signed line put back by a
    later pull request, merged. Returns (the organisers' repository, the results folder)."""
    results, commit, mal, team = _round(git_commitments, tmp_path)
    _write(results, json.dumps(team))
    commit("withdraw gnn-mal: it timed its test models (rule 3)")
    _write(results, json.dumps(team), json.dumps(mal))
    commit("our entry, as the keeper scored it")
    return git_commitments[0].parents[1], results


def _clone(repo, to, *options: str):
    """A clone of ``repo`` (over file://, so that a filter is honoured) as a reader would make it, its
    commitments folder the one the readers read."""
    subprocess.run(["git", "-C", str(repo), "config", "uploadpack.allowFilter", "true"], check=True)
    subprocess.run(["git", "clone", "-q", *options, f"file://{repo}", str(to)], check=True, capture_output=True)
    return to / "leaderboard"


def test_a_withdrawn_record_put_back_is_not_read_in_a_blobless_clone(git_commitments, tmp_path, monkeypatch):
    """Attack: the withdrawn, put-back line of ``gnn-mal`` is skipped in the organisers' repository, but a
    board built from a blobless clone of it read no withdrawal and showed ``gnn-mal`` verified at rank 1.
    Now the clone reads as one without the history: no keeper-signed record is read, and each skip says
    why."""
    from perfgraphs.leaderboard.records import hidden

    repo, results = _withdrawn_and_put_back(git_commitments, tmp_path)
    skipped: list[str] = []
    assert _board(results, skipped) == {"team-net": ("verified", 2)}
    assert len(skipped) == 1 and "took out" in skipped[0], skipped

    leaderboard = _clone(repo, tmp_path / "partial", "--filter=blob:none")
    monkeypatch.setattr(hidden, "COMMITMENTS_DIR", leaderboard / "hidden")
    skipped = []
    board = _board(leaderboard / "results", skipped)
    assert "gnn-mal" not in board, (board, skipped)
    assert board == {} and len(skipped) == 2, (board, skipped)
    assert all("a shallow clone, or a partial one" in s for s in skipped), skipped


def test_a_treeless_clone_reads_no_keeper_signed_record(git_commitments, tmp_path, monkeypatch):
    """Neighbour: a treeless clone (``--filter=tree:0``) lacks even the commitments' history, so it was
    already refused there (and still is): nothing keeper-signed read, each skip saying why."""
    from perfgraphs.leaderboard.records import hidden

    repo, _ = _withdrawn_and_put_back(git_commitments, tmp_path)
    leaderboard = _clone(repo, tmp_path / "partial", "--filter=tree:0")
    monkeypatch.setattr(hidden, "COMMITMENTS_DIR", leaderboard / "hidden")
    skipped: list[str] = []
    assert _board(leaderboard / "results", skipped) == {} and len(skipped) == 2, skipped


def test_the_partial_clone_guard_off_shows_the_withdrawn_record(git_commitments, tmp_path, monkeypatch):
    """Control: with the partial clone read as a full one and its unreadable history as one that took
    nothing out (both guards off), the blobless clone shows the withdrawn ``gnn-mal`` verified at rank 1,
    as before the fix; with either guard on, it does not."""
    from perfgraphs.leaderboard.records import hidden, history, keeper_key

    repo, _ = _withdrawn_and_put_back(git_commitments, tmp_path)
    leaderboard = _clone(repo, tmp_path / "partial", "--filter=blob:none")
    monkeypatch.setattr(history, "partial_clone", lambda folder: False)
    monkeypatch.setattr(hidden, "COMMITMENTS_DIR", leaderboard / "hidden")
    skipped: list[str] = []
    assert _board(leaderboard / "results", skipped) == {}
    assert len(skipped) == 2 and all("cannot be read here" in s for s in skipped), skipped
    monkeypatch.setattr(keeper_key, "unread_history_problem", lambda path: None)
    monkeypatch.setattr(hidden, "COMMITMENTS_DIR", leaderboard / "hidden")
    assert _board(leaderboard / "results", []) == {"gnn-mal": ("verified", 1), "team-net": ("verified", 2)}


def test_a_full_clone_reads_the_round_as_the_repository_does(git_commitments, tmp_path, monkeypatch):
    """Control of the fix: a full clone (no filter) is no partial clone: ``team-net`` verified, the
    withdrawn ``gnn-mal`` skipped as taken out."""
    from perfgraphs.leaderboard.records import hidden, history

    repo, _ = _withdrawn_and_put_back(git_commitments, tmp_path)
    leaderboard = _clone(repo, tmp_path / "full")
    assert not history.partial_clone(leaderboard)
    monkeypatch.setattr(hidden, "COMMITMENTS_DIR", leaderboard / "hidden")
    skipped: list[str] = []
    assert _board(leaderboard / "results", skipped) == {"team-net": ("verified", 2)}
    assert len(skipped) == 1 and "took out" in skipped[0], skipped


FROZEN = "ef" * 32  # a set of the test's organisers committed before keys: its records frozen as merged


def _frozen_round_withdrawn_and_put_back(git_commitments):
    """A keyless round whose two records are frozen in ``unsigned-records.txt``; ``gnn-mal`` taken out on
    review, then put back by a later pull request, merged. Returns (the repository, the results folder)."""
    from test_leaderboard_trust import good_record
    from test_leaderboard_verified import _soon

    from perfgraphs.leaderboard.records.digest import record_sha256

    folder, commit = git_commitments
    (folder / "dippm-cpu-torch-fp32.sha256").write_text(f"{FROZEN}  dippm-cpu-torch-fp32.parquet\n")
    commit("a hidden round from before keys")
    records = [good_record(method, mapes=mapes, authors=authors, tier="verified", test_set="hidden",
                           hidden_labels_sha256=FROZEN, date_utc=_soon())
               for method, authors, mapes in (("team-net", "Tea Team", (20.0, 21.0, 19.0, 20.5, 19.5)),
                                              ("gnn-mal", "Mal Lory", (10.0, 10.5, 9.5, 10.2, 9.8)))]
    (folder / "unsigned-records.txt").write_text("".join(f"{FROZEN} {record_sha256(r)}\n" for r in records))
    results = folder.parent / "results"
    team, mal = (json.dumps(r) for r in records)
    _write(results, team, mal)
    commit("the round's records, as merged")
    _write(results, team)
    commit("withdraw gnn-mal: it timed its test models (rule 3)")
    _write(results, team, mal)
    commit("our entry, as merged")
    return folder.parents[1], results


def _hidden(results, skipped) -> dict:
    from perfgraphs.leaderboard.records.results import read_entries

    return {e.method: e.tier for e in read_entries("dippm", results, skipped) if e.test_set == "hidden"}


@pytest.mark.parametrize("clone", ["--depth=4", "--filter=blob:none"])
def test_a_withdrawn_frozen_record_put_back_is_not_read_without_its_history(git_commitments, tmp_path, monkeypatch,
                                                                           clone):
    """Attack: a record of a set from before keys, frozen as merged, taken out on review and put back by a
    pull request, is skipped in the repository; in a clone that cannot show the results file's history (a
    shallow one deep enough to hold the round's commitment, or a blobless one), the withdrawals' history
    was read as empty and ``gnn-mal`` read *verified* again. Now no hidden record is read there, each
    skip saying why."""
    from perfgraphs.leaderboard.records import hidden

    repo, results = _frozen_round_withdrawn_and_put_back(git_commitments)
    skipped: list[str] = []
    assert _hidden(results, skipped) == {"team-net": "verified"}
    assert len(skipped) == 1 and "took out" in skipped[0], skipped

    leaderboard = _clone(repo, tmp_path / "clone", clone)
    monkeypatch.setattr(hidden, "COMMITMENTS_DIR", leaderboard / "hidden")
    skipped = []
    shown = _hidden(leaderboard / "results", skipped)
    assert "gnn-mal" not in shown, (shown, skipped)
    assert shown == {} and len(skipped) == 2 and all("cannot be read here" in s for s in skipped), skipped


def test_the_unread_history_guard_off_shows_the_withdrawn_frozen_record(git_commitments, tmp_path, monkeypatch):
    """Control: with an unreadable history read as one that took nothing out (the guard off), the shallow
    clone shows the withdrawn ``gnn-mal`` verified, as before the fix."""
    from perfgraphs.leaderboard.records import hidden, keeper_key

    repo, _ = _frozen_round_withdrawn_and_put_back(git_commitments)
    leaderboard = _clone(repo, tmp_path / "clone", "--depth=4")
    monkeypatch.setattr(hidden, "COMMITMENTS_DIR", leaderboard / "hidden")
    monkeypatch.setattr(keeper_key, "unread_history_problem", lambda path: None)
    assert _hidden(leaderboard / "results", []) == {"team-net": "verified", "gnn-mal": "verified"}
