"""Ninety-third adversarial pass (2026-12-06), side a (hidden rounds): the keeper's ranks folder as another
repository. The ninetieth pass made ``leaderboard/hidden/`` committed as a submodule read as in no repository
(``history.committed_inside_another``, through ``history.repository_place``), but its subfolder
``leaderboard/hidden/ranks/`` is read twice: the file as it is, and every version the main line committed
(the keeper's latest signed ranks win, forty-eighth pass). A pull request that replaced only ``ranks/`` with a
submodule (``git submodule add <its writer's repository> leaderboard/hidden/ranks``) holding the round's first
keeper-signed ranks had no main-line version read (no place, no history) and the checkout read as it is: after
the keeper had ranked ``zed-net`` (5 %) first, ``gnn-mal`` (10 %) second and ``team-net`` (20 %) third,
`leaderboard show` ranked ``gnn-mal`` 1 and ``team-net`` 2 again and left ``zed-net`` unranked. Now a ranks
file in a repository committed inside another is not read as it is either
(``history.in_writers_repository``, in ``sealed_ranks.read_sealed``): the board is unranked until the folder
is the organisers' again. Leads of the brief that gave nothing (public names with a results submodule: the
shallow-clone reading, documented; the catalog package folder as a submodule: its name stays reserved) are
in the pass's report."""

from __future__ import annotations

import json

from test_leaderboard_review_20261202 import _git
from test_leaderboard_review_48a import _ranks
from test_leaderboard_review_55a import _board, _round, _signed, _write
from test_leaderboard_review_90b import as_submodule, shown_rows


def test_a_submodule_ranks_folder_puts_back_no_stale_rank(git_commitments, tmp_path, capsys, monkeypatch):
    """Attack: the keeper's keyed round (``gnn-mal`` 1, ``team-net`` 2), then ``zed-net`` scored and the round
    ranked again (``zed-net`` 1); a pull request replaces ``leaderboard/hidden/ranks/`` with a submodule whose
    one commit holds the first ranks, byte for byte. No stale rank is shown. Control: with the new check off,
    `leaderboard show` ranks ``gnn-mal`` first again and ``zed-net`` not at all."""
    from perfgraphs.leaderboard.records import history
    from perfgraphs.leaderboard.records.results import read_entries
    from perfgraphs.leaderboard.records.sealed_ranks import write_sealed

    folder, commit = git_commitments
    repo = folder.parent.parent
    results, _, mal, team = _round(git_commitments, tmp_path)
    first = next((folder / "ranks").iterdir())
    first_text = first.read_text()
    zed = _signed(tmp_path / "keeper", "zed-net", "Zed Zee", (5.0, 5.2, 4.8, 5.1, 4.9))
    _write(results, json.dumps(team), json.dumps(mal), json.dumps(zed))
    by_method = {e.method: e for e in read_entries("dippm", results, [])}
    write_sealed(_ranks(tmp_path / "keeper", [(by_method["zed-net"], 1), (by_method["gnn-mal"], 2),
                                              (by_method["team-net"], 3)], "2026-12-06T09:00:00+00:00"), folder)
    commit("zed-net scored; the keeper ranks the round again")
    ranked = {"zed-net": ("verified", 1), "gnn-mal": ("verified", 2), "team-net": ("verified", 3)}
    assert _board(results) == ranked

    theirs = tmp_path / "forgers-ranks"
    _write(theirs)
    (theirs / first.name).write_text(first_text)
    _git(theirs, "init", "-q")
    _git(theirs, "add", first.name)
    _git(theirs, "commit", "-q", "-m", "the round's ranks")
    as_submodule(repo, "leaderboard/hidden/ranks", first.parent, theirs)
    commit("leaderboard/hidden/ranks as a submodule")
    assert first.read_text() == first_text  # a recursive clone's checkout

    monkeypatch.setenv("COLUMNS", "300")  # each row on one line
    assert _board(results) == {m: ("verified", None) for m in ranked}
    assert not any(rank in ("1", "2", "3") for rank, _ in shown_rows(results, capsys))

    # control: the ranks file read as it is, as before
    monkeypatch.setattr(history, "in_writers_repository", lambda folder: False)
    assert _board(results) == {"gnn-mal": ("verified", 1), "team-net": ("verified", 2), "zed-net": ("verified", None)}
    rows = shown_rows(results, capsys)
    assert ("1", "gnn-mal") in rows and ("2", "team-net") in rows, rows
