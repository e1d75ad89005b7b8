"""Eighty-eighth adversarial pass (2026-12-06), read side (hidden rounds): a keyed set's key was dated, and
read, on the main line's first-parent history alone (``hidden._history``, ``keeper_key._first_committed_key``).
A pull request forked before the draw that commits a key of its own under the set's key name
(``dippm-cpu-torch-fp32-<16 hex>.pub``), merges main (the keeper's commitment and key in it, the add/add
conflict resolved to its own key) and lands by fast-forward (RULES forbids it; the code cannot see how a
history was made) made that key the main line's first, "committed before the set's commitment": its writer's
hand-signed record (5 % MAPE) and ranks read as the keeper's *verified* rank 1 in `leaderboard show`, and
the keeper's own two records (10 %, 20 %) were skipped as "not signed by the hidden set's keeper". A key now
counts only when, as the main line first committed it, it is the key held by the commit that published the
set's hash, read in any-parent history (``keeper_key.published_with_commitment``, on
``history.publishing_commit``, the 87b lookup moved below the records): refused, the set is keyless, and
none of its records is read (the keeper's too, until the history is mended: no forged row is shown)."""

from __future__ import annotations

import json

from test_leaderboard_review_20261202 import _git
from test_leaderboard_review_48a import CONFIG, DATASET, SET, _ranks
from test_leaderboard_review_55a import _board, _round, _signed, _write
from test_leaderboard_review_68a import _rows


def test_a_fast_forwarded_branch_key_signs_nothing(git_commitments, tmp_path, capsys, monkeypatch):
    """Attack: the keeper's keyed round on main (``gnn-mal`` 1, ``team-net`` 2); a branch forked before it
    commits its own key for the set, merges main keeping its key, adds its writer's signed record and ranks,
    and lands by fast-forward: no row of the writer's is shown. Control: with the new check off, `leaderboard
    show` ranks the forged record first, verified, and skips both keeper's records."""
    from perfgraphs.cli import main
    from perfgraphs.leaderboard.records import hidden, keeper_key
    from perfgraphs.leaderboard.records.keeper_key import write_public_key
    from perfgraphs.leaderboard.records.results import Entry
    from perfgraphs.leaderboard.records.sealed_ranks import write_sealed

    folder, commit = git_commitments
    repo = folder.parent.parent
    trunk = _git(repo, "rev-parse", "--abbrev-ref", "HEAD").strip()
    _git(repo, "branch", "pr")  # forked before the draw
    results, _, mal, team = _round(git_commitments, tmp_path)
    assert _board(results) == {"gnn-mal": ("verified", 1), "team-net": ("verified", 2)}

    forger = tmp_path / "forger"
    forger.mkdir()
    _git(repo, "checkout", "-q", "pr")
    folder.mkdir(parents=True, exist_ok=True)
    write_public_key(forger, DATASET, CONFIG, SET, folder)
    commit("our team's key")
    _git(repo, "merge", "-q", "-X", "ours", "--no-edit", trunk)  # main merged in, the branch's key kept
    forged = _signed(forger, "gnn-forged", "Eve Forger", (5.0, 5.2, 4.8, 5.1, 4.9))
    _write(results, json.dumps(team), json.dumps(mal), json.dumps(forged))
    write_sealed(_ranks(forger, [(Entry(**forged), 1)], "2026-12-06T20:00:00+00:00"), folder)
    commit("gnn-forged")
    _git(repo, "checkout", "-q", trunk)
    _git(repo, "merge", "-q", "--ff-only", "pr")  # landed by fast-forward

    monkeypatch.setenv("COLUMNS", "300")  # each row on one line

    def show() -> tuple[list[tuple[str, str]], str]:
        capsys.readouterr()
        assert main(["leaderboard", "show", "--results", str(results)]) == 0
        out, err = capsys.readouterr()
        return _rows(out), err

    skipped: list[str] = []
    assert _board(results, skipped) == {}
    assert len(skipped) == 3 and all("the commit that published the set's hash" in s for s in skipped), skipped
    rows, _ = show()
    assert not any(method == "gnn-forged" for _, method in rows), rows

    # control: the key as the first-parent line first committed it, as before (and the eighty-ninth pass's
    # check off: the keeper's round, off the first-parent line, holds every record of the set unread too)
    monkeypatch.setattr(keeper_key, "published_with_commitment", lambda key, set_sha256: True)
    monkeypatch.setattr(hidden, "main_line_rewritten", lambda *args, **kwargs: None)
    skipped = []
    assert _board(results, skipped) == {"gnn-forged": ("verified", 1)}
    assert len(skipped) == 2 and all("not signed by the hidden set's keeper" in s for s in skipped), skipped
    rows, _ = show()
    assert ("1", "gnn-forged") in rows and not any(m in ("gnn-mal", "team-net") for _, m in rows), rows
