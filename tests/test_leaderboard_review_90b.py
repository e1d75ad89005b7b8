"""Ninetieth adversarial pass (2026-12-06), read side (hidden rounds): the commitments folder as another
repository. The fiftieth pass read ``leaderboard/hidden/``'s history at the path the repository holds, so a
committed link to a copy of the folder read as a deletion; a committed *gitlink* was not looked at. A pull
request that replaces the folder with a submodule (``git submodule add <its writer's repository>
leaderboard/hidden``), whose one commit holds a copy of the folder with the set's ``.sha256`` and a key of
the writer's own together, had every reader of the folder (``history.repository_place``: git asked from the
folder answers for the submodule) read the writer's history in a recursive clone: the writer's key was
"committed with the set's commitment" and, as the submodule first committed it, the key that commit held.
`leaderboard show` ranked the writer's hand-signed 5 % record first, *verified*, over its writer's signed
ranks, and skipped the keeper's two records (10 %, 20 %) as "not signed by the hidden set's keeper". Now a
folder whose repository is committed inside another one that holds the running package outside it
(``history.committed_inside_another``) is in no repository: none of the set's records is read."""

from __future__ import annotations

import json
import shutil

from test_leaderboard_review_20261202 import _git
from test_leaderboard_review_48a import CONFIG, DATASET, SET, _ranks
from test_leaderboard_review_55a import _board, _round, _signed, _write
from test_leaderboard_review_68a import _rows


def as_submodule(repo, inside: str, folder, theirs) -> None:
    """The folder ``inside`` of ``repo`` (at ``folder``) replaced by a submodule of ``theirs``, as a pull
    request does it: a recursive clone checks the submodule out in its place."""
    _git(repo, "rm", "-r", "-q", inside)
    shutil.rmtree(folder, ignore_errors=True)
    _git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(theirs), inside)
    assert _git(repo, "ls-files", "--stage", inside).startswith("160000")  # the setup


def shown_rows(results, capsys) -> list[tuple[str, str]]:
    """(rank, method) of each row `leaderboard show` prints for ``results``."""
    from perfgraphs.cli import main

    capsys.readouterr()
    assert main(["leaderboard", "show", "--results", str(results)]) == 0
    return _rows(capsys.readouterr()[0])


def test_a_submodule_commitments_folder_signs_nothing(git_commitments, tmp_path, capsys, monkeypatch):
    """Attack: the keeper's keyed round (``gnn-mal`` 1, ``team-net`` 2); a pull request adds its writer's
    signed record and replaces ``leaderboard/hidden/`` with a submodule: a repository of the writer's whose
    one commit holds the keeper's files, the writer's key in the keeper's key's place and the writer's ranks.
    No row of the writer's is shown. Control: with the new check off, `leaderboard show` ranks the forged
    record first, verified, and skips both keeper's records."""
    from perfgraphs.leaderboard.records import hidden, history, keeper_key
    from perfgraphs.leaderboard.records.keeper_key import write_public_key
    from perfgraphs.leaderboard.records.results import Entry
    from perfgraphs.leaderboard.records.sealed_ranks import write_sealed

    folder, commit = git_commitments
    repo = folder.parent.parent
    results, _, mal, team = _round(git_commitments, tmp_path)
    assert _board(results) == {"gnn-mal": ("verified", 1), "team-net": ("verified", 2)}

    forger, theirs = tmp_path / "forger", tmp_path / "forgers-hidden"
    forger.mkdir()
    shutil.copytree(folder, theirs)
    write_public_key(forger, DATASET, CONFIG, SET, theirs)  # over the keeper's key file
    forged = _signed(forger, "gnn-forged", "Eve Forger", (5.0, 5.2, 4.8, 5.1, 4.9))
    write_sealed(_ranks(forger, [(Entry(**forged), 1)], "2026-12-06T20:00:00+00:00"), theirs)
    _git(theirs, "init", "-q")
    _git(theirs, "add", "-A")
    _git(theirs, "commit", "-q", "-m", "the organisers' folder")
    as_submodule(repo, "leaderboard/hidden", folder, theirs)
    _write(results, json.dumps(team), json.dumps(mal), json.dumps(forged))
    commit("gnn-forged; leaderboard/hidden as a submodule")
    assert (folder / f"dippm-cpu-torch-fp32-{SET[:16]}.pub").is_file()  # a recursive clone's checkout

    monkeypatch.setenv("COLUMNS", "300")  # each row on one line

    skipped: list[str] = []
    assert _board(results, skipped) == {}
    assert len(skipped) == 3 and all("no git history of leaderboard/hidden/" in s for s in skipped), skipped
    assert not any(method == "gnn-forged" for _, method in shown_rows(results, capsys))

    # control: the folder's history asked from the folder, as before
    monkeypatch.setattr(history, "committed_inside_another", lambda top: False)
    for cached in (keeper_key._first_committed_key, keeper_key._first_committed, keeper_key._published_key_held,
                   hidden._history, hidden._ever_compromised):
        cached.cache_clear()
    skipped = []
    assert _board(results, skipped) == {"gnn-forged": ("verified", 1)}
    assert len(skipped) == 2 and all("not signed by the hidden set's keeper" in s for s in skipped), skipped
    rows = shown_rows(results, capsys)
    assert ("1", "gnn-forged") in rows and not any(m in ("gnn-mal", "team-net") for _, m in rows), rows
