"""Eighty-ninth adversarial pass (2026-12-06), read side (hidden rounds): the two first-parent reads the 88th
pass reproduced and left open. A pull request branch forked before the keeper's work, that merges main and
lands by fast-forward (RULES forbids it; a history does not say how it was made), puts its own commits on the
main line and the keeper's on a second parent, unseen by every ``--first-parent`` read:

1. its definition naming the live set with a 60 % floor between visits, merged with the keeper's file taken
   (``-X theirs``, so the file as it is now is the keeper's), was the main line's "first stated" floor
   (``hidden._first_stated``): `leaderboard show` printed "differ by 60.0 % MAPE" above the keeper's ranks
   for the keeper's 5.5 %, and no drift sentence (the keeper's 0.62x probe);
2. the keeper's withdrawal of ``gnn-mal`` (its signed line taken out on review), merged into the branch
   with the line kept, never showed on the main line (``keeper_key._withdrawn`` reads ``history.line_changes``,
   first-parent): `leaderboard show` ranked ``gnn-mal`` first, *verified*, again.

Now a commit reachable from HEAD but not on its first-parent line that changed the organisers' folders
(``leaderboard/hidden/``, ``leaderboard/frozen/``) or took a keeper-signed line out of a results file means
the main line was rewritten over the keeper's work: no hidden record of the sets concerned is read, one line
naming the commit (``hidden.main_line_rewritten``, on ``history.keeper_work_off_main_line``)."""

from __future__ import annotations

import json

from test_leaderboard_review_20261202 import _git
from test_leaderboard_review_48a import CONFIG, DATASET, TARGET
from test_leaderboard_review_55a import _board, _round, _write
from test_leaderboard_review_68a import _rows
from test_leaderboard_review_69a import DRIFT, FLOOR, _definition


def _show(results, capsys) -> tuple[list[tuple[str, str]], str, str]:
    """(rank, method) rows, the whole output as one line of words, and stderr of `leaderboard show`."""
    from perfgraphs.cli import main

    capsys.readouterr()
    assert main(["leaderboard", "show", "--results", str(results)]) == 0
    out, err = capsys.readouterr()
    return _rows(out), " ".join(out.split()), err


def _landed_by_fast_forward(repo, trunk: str, branch_work, merge) -> None:
    """The branch ``pr`` does ``branch_work()``, merges main by ``merge()`` and lands by fast-forward."""
    _git(repo, "checkout", "-q", "pr")
    branch_work()
    merge()
    _git(repo, "checkout", "-q", trunk)
    _git(repo, "merge", "-q", "--ff-only", "pr")


def test_a_fast_forwarded_branch_states_no_floor(git_commitments, tmp_path, capsys, monkeypatch):
    """Attack 1: a branch forked before the round states a 60 % floor for the set, merges main taking the
    keeper's definition, lands by fast-forward: the board shows no record of the set, the keeper's commit
    named, and no floor. Control: with the new check off, `leaderboard show` prints the 60 % floor and
    the branch's 0.98x drift (the keeper's probe: 0.62x) above the keeper's ranks."""
    from perfgraphs.leaderboard.records import hidden

    folder, commit = git_commitments
    repo = folder.parent.parent
    trunk = _git(repo, "rev-parse", "--abbrev-ref", "HEAD").strip()
    monkeypatch.setenv("COLUMNS", "300")  # each row on one line
    _git(repo, "branch", "pr")  # forked before the round
    results, _, mal, team = _round(git_commitments, tmp_path)
    _definition(folder, FLOOR, DRIFT)
    commit("the round's definition: its noise floor and the probe of the machine")
    rows, out, _ = _show(results, capsys)
    assert ("1", "gnn-mal") in rows and "differ by 5.5 % MAPE" in out and "0.62x" in out, (rows, out)

    def tampered_floor():
        folder.mkdir(parents=True, exist_ok=True)
        _definition(folder, {**FLOOR, "between_visits_mape_pct": 60.0}, {**DRIFT, "median_ratio": 0.98})
        commit("our definition of the set")

    _landed_by_fast_forward(repo, trunk, tampered_floor,
                            lambda: _git(repo, "merge", "-q", "-X", "theirs", "--no-edit", trunk))
    assert json.loads((folder / "dippm-cpu-torch-fp32.json").read_text())["measured"]["noise_floor"][TARGET] == FLOOR
    skipped: list[str] = []
    assert _board(results, skipped) == {}
    keeper_commit = _git(repo, "rev-parse", "HEAD^2").strip()
    assert len(skipped) == 2 and all("not on its first-parent line" in s for s in skipped), skipped
    assert any(keeper_commit[:12] in s for s in skipped), (keeper_commit, skipped)
    rows, out, _ = _show(results, capsys)
    assert not rows and "60.0 %" not in out and "0.98x" not in out, (rows, out)
    assert hidden.hidden_noise_text(DATASET, CONFIG, TARGET, mal["hidden_labels_sha256"]) is None

    with monkeypatch.context() as off:  # control: the first-parent reads alone, as before
        off.setattr(hidden, "main_line_rewritten", lambda *args, **kwargs: None)
        rows, out, _ = _show(results, capsys)
        assert ("1", "gnn-mal") in rows and "differ by 60.0 % MAPE" in out and "at 0.98x" in out, (rows, out)


def test_a_fast_forwarded_branch_puts_back_no_withdrawn_record(git_commitments, tmp_path, capsys, monkeypatch):
    """Attack 2: the keeper's round, then a branch forked before the keeper withdrew ``gnn-mal`` (its signed
    line taken out on review) merges main keeping the line and lands by fast-forward: no record of the
    set is shown, the keeper's withdrawal named. Control: with the new check off, `leaderboard show` ranks
    ``gnn-mal`` first, verified, again."""
    from perfgraphs.leaderboard.records import hidden

    folder, commit = git_commitments
    repo = folder.parent.parent
    trunk = _git(repo, "rev-parse", "--abbrev-ref", "HEAD").strip()
    monkeypatch.setenv("COLUMNS", "300")
    results, _, mal, team = _round(git_commitments, tmp_path)
    _git(repo, "branch", "pr")  # forked before the withdrawal
    _write(results, json.dumps(team))
    commit("withdraw gnn-mal: it timed its test models (rule 3)")
    withdrawal = _git(repo, "rev-parse", "HEAD").strip()
    assert _board(results) == {"team-net": ("verified", 2)}

    def our_work():
        (repo / "NOTES.md").write_text("our notes\n")
        commit("our notes")

    def merge_keeping_the_line():
        _git(repo, "merge", "-q", "--no-ff", "--no-commit", trunk)
        _write(results, json.dumps(team), json.dumps(mal))
        commit("Merge main")

    _landed_by_fast_forward(repo, trunk, our_work, merge_keeping_the_line)
    skipped: list[str] = []
    assert _board(results, skipped) == {}
    assert len(skipped) == 2 and all(withdrawal[:12] in s for s in skipped), skipped
    rows, _, _ = _show(results, capsys)
    assert not rows, rows

    monkeypatch.setattr(hidden, "main_line_rewritten", lambda *args, **kwargs: None)  # control: the check off
    assert _board(results) == {"gnn-mal": ("verified", 1), "team-net": ("verified", 2)}
    rows, _, _ = _show(results, capsys)
    assert ("1", "gnn-mal") in rows, rows
