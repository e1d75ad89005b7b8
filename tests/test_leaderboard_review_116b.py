"""Hundred-and-sixteenth adversarial pass (2026-12-07), side b (the keeper checkout, git-level): a frozen hidden
run read package data from a *submodule*. ``frozen_fits.package_data_before`` dates the tables the sandbox stages
(eighty-sixth pass) and ``staged_files_not_committed`` holds every staged file to the blob git holds for it
(hundred-and-thirteenth pass, side b), but both ran only when the package and the set's commitment lay in one
repository: a package in another repository was taken for "an install, which no pull request edits", and
nothing was asked. A pull request after the draw that replaced the checkout's ``perfgraphs/`` folder with a
gitlink (a ``.gitmodules`` entry and one commit id: all a review of it reads) to a repository whose commit adds
one LLM datasheet row, the row's link spelling three hidden labels and the set's size, had the keeper's
checkout (``git submodule update --init``, status clean, the commit the draw read no longer the point since
``score`` runs at any later commit) stage that table, and a ridge frozen and committed before the draw (86b's
reader) scored the three labels past the replay into a keeper-signed *verified* record: about 37.7 % MAPE where
the frozen state earns 40.4 % (printed by the test). Now a hidden run is refused while the package it stages lies
inside the commitment's checkout but in a repository of its own (``frozen_fits.package_in_nested_repository``):
a submodule's or an embedded repository's files are not blobs of the checkout, and no date check reads them."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from perfgraphs.leaderboard import frozen_fits
from test_leaderboard_review_84b import _datasheet_row
from test_leaderboard_review_86b import _reader, frozen_before_a_draw, refused_then_verified
from test_submit import env, parts  # noqa: F401 — fixtures

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None,
                                reason="a hidden board's runs drop the page cache and run in the sandbox")

GIT = ["-c", "user.name=acme", "-c", "user.email=acme@example.org"]


def _package_as_submodule(repo, package, labels: dict[int, float], size: int, commit) -> None:
    """The pull request after the draw: ``perfgraphs/`` becomes a submodule whose one commit adds a datasheet row
    spelling ``labels`` and the set's ``size``; the keeper's checkout holds it checked out, status clean."""
    table = package / "features" / "llm_architectures.csv"
    _datasheet_row(table, labels)
    table.write_text(table.read_text().replace("5e1f0c2a/config.json", f"{size:02x}1f0c2a/config.json"))
    subprocess.run(["git", "-C", str(package), "init", "-q"], check=True)
    subprocess.run(["git", "-C", str(package), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(package), *GIT, "commit", "-q", "-m", "datasheet: Acme-LM-7B"], check=True)
    subprocess.run(["git", "-C", str(repo), "rm", "-r", "-q", "--cached", "perfgraphs"], check=True)
    (repo / ".gitmodules").write_text('[submodule "perfgraphs"]\n\tpath = perfgraphs\n'
                                      "\turl = https://github.com/acme/perfgraphs.git\n")
    subprocess.run(["git", "-C", str(repo), "-c", "advice.addEmbeddedRepo=false", "add", "perfgraphs", ".gitmodules"],
                   check=True)
    commit("vendor the package as a submodule")
    listed = subprocess.run(["git", "-C", str(repo), "ls-files", "--stage", "perfgraphs"], capture_output=True,
                            text=True, check=True).stdout
    assert listed.startswith("160000 "), listed  # one gitlink: no file of the package is a blob of the checkout
    assert subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=all"],
                          capture_output=True, text=True, check=True).stdout == ""


def test_a_package_in_a_submodule_stages_no_table_into_a_frozen_round(env, parts, capsys, git_commitments,
                                                                       monkeypatch):
    """Attack: the package, and a team's ridge frozen, committed before the draw; after it, the package folder a
    submodule whose commit adds a datasheet row spelling three hidden labels and the set's size; the keeper's
    frozen run is refused in one line. Control: with the check off the replay passes and the keeper signs a
    verified record scoring the three labels, better than the frozen state earns."""
    _, commit = git_commitments
    repo, package, sub, frozen, y, keys, keep, labels = frozen_before_a_draw(env, parts, git_commitments, capsys,
                                                                             monkeypatch, "submodule-116b", _reader)
    _package_as_submodule(repo, package, labels, int(keep.sum()), commit)

    print("116b:", refused_then_verified(
        env, parts, capsys, monkeypatch, sub, frozen, "submodule-116b",
        ["but in a repository of its own", "a submodule"], (frozen_fits, "package_in_nested_repository"),
        (y, keys, keep, labels)))
