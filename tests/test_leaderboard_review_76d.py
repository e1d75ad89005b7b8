"""Seventy-sixth adversarial pass (2026-12-06), read side: a reference folder's name was reserved from
the first main-line commit that ever added a file under ``leaderboard/reference/<name>/``, whether or
not the folder stayed. A folder removed (a reference renamed or retired) leaves its name free: `check`
accepts a team's ``gnn-x`` and every board shows it. A later pull request putting back one README under
``leaderboard/reference/gnn/`` dated the name from the folder's first life, before Alice's ``gnn-x``,
and every board dropped her record, which a folder new to the repository no longer does (the
thirty-sixth pass). A name is now reserved from the start of its folder's present run on the main line
(``history.folder_runs``), and a record whose line arrived while an earlier run of the folder held the
name stays refused (``trust._named_before_its_reference``): a pull request of two fast-forwarded
commits taking the folder out and putting it back frees nothing."""

from __future__ import annotations

import shutil

import pytest

from test_leaderboard_review_36a import _git
from test_leaderboard_review_61a import _line, _shown


@pytest.fixture(autouse=True)
def _forget_tmp_references():
    from perfgraphs.leaderboard.records import history, results, trust

    yield
    for cached in (trust.reference_spellings, trust._reference_code_problem, trust._reference_files,
                   history._folder_arrivals):
        cached.cache_clear()
    results.forget_checked()


def _commit(repo, message: str) -> None:
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", message)


def _folder(repo, present: bool) -> None:
    folder = repo / "reference" / "gnn"
    if present:
        folder.mkdir()
        (folder / "README.md").write_text("a reference baseline gnn\n")
    else:
        shutil.rmtree(folder)
    _commit(repo, "reference gnn " + ("added" if present else "retired"))


def _add_line(repo, method: str, authors: str) -> None:
    path = repo / "results" / "dippm.jsonl"
    path.write_text((path.read_text() if path.exists() else "") + _line(method, authors) + "\n")
    _commit(repo, f"{method} by {authors}")


def _repo(tmp_path, monkeypatch):
    """A repository whose reference folder ``gnn`` arrived with its first commit (beside ``static-mlp``)."""
    from perfgraphs.leaderboard.records import trust

    repo = tmp_path / "repo"
    (repo / "results").mkdir(parents=True)
    (repo / "reference" / "static-mlp").mkdir(parents=True)
    (repo / "reference" / "static-mlp" / "README.md").write_text("the static MLP reference\n")
    _git(repo, "init", "-q", "-b", "main")
    (repo / "reference" / "gnn").mkdir()
    (repo / "reference" / "gnn" / "README.md").write_text("a reference baseline gnn\n")
    _commit(repo, "references")
    monkeypatch.setattr(trust, "REFERENCE_DIR", repo / "reference")
    return repo


def test_a_folder_put_back_does_not_take_a_name_recorded_while_it_was_gone(tmp_path, monkeypatch, capsys):
    """Attack: the reference folder ``gnn`` is retired; Alice's ``gnn-x`` lands and is shown; Mallory's
    pull request puts the folder back. `leaderboard show` dropped Alice's record (the name dated from the
    folder's first commit). Now it is shown; Bob's ``gnn-y``, merged after the folder came back, is
    refused. Control: the folder dated from its first commit again drops Alice's record too."""
    from perfgraphs.leaderboard.records import history

    repo = _repo(tmp_path, monkeypatch)
    _folder(repo, present=False)
    _add_line(repo, "gnn-x", "Alice Author")
    methods, skipped = _shown(repo, capsys)
    assert methods == ["gnn-x"] and not skipped, skipped
    _folder(repo, present=True)  # Mallory's pull request
    _add_line(repo, "gnn-y", "Bob Builder")
    methods, skipped = _shown(repo, capsys)
    assert methods == ["gnn-x"] and len(skipped) == 1 and "'gnn'" in skipped[0], skipped

    real = history.folder_runs

    def first_arrivals(folder):  # control: a folder dated from its first arrival, as before
        top, runs = real(folder)
        return top, {name: ((r[0][0], r[-1][1]),) for name, r in runs.items()}

    monkeypatch.setattr(history, "folder_runs", first_arrivals)
    methods, skipped = _shown(repo, capsys)
    assert methods == [] and len(skipped) == 2, skipped


def test_a_folder_taken_out_and_put_back_frees_no_name(tmp_path, monkeypatch, capsys):
    """Neighbour: Mallory's ``gnn-m`` lands while the folder ``gnn`` holds the name (refused); a pull
    request of two commits, fast-forwarded, takes the folder out and puts it back (an empty diff). Her
    line arrived while the folder held the name, so it stays refused, as it was before the fix. Control:
    with the folder dated from its present run alone, her record is shown under the reference's name."""
    from perfgraphs.leaderboard.records import trust

    repo = _repo(tmp_path, monkeypatch)
    _add_line(repo, "gnn-m", "Mal Lory")
    methods, skipped = _shown(repo, capsys)
    assert methods == [] and len(skipped) == 1, skipped
    _folder(repo, present=False)
    _folder(repo, present=True)
    methods, skipped = _shown(repo, capsys)
    assert methods == [] and len(skipped) == 1 and "'gnn'" in skipped[0], skipped

    monkeypatch.setattr(trust, "_recorded_while_held", lambda start, earlier: False)  # control
    methods, skipped = _shown(repo, capsys)
    assert methods == ["gnn-m"] and not skipped, skipped
