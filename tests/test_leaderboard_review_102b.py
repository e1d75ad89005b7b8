"""The hundred-and-second pass's lead (2026-12-07), hidden rounds: the interpreter's folders are bound into
every sandbox at their own paths (``isolation.bound_roots``), and the README makes the keeper's virtual
environment inside the checkout (``.venv``, ignored). A file a pull request commits there with ``git add -f``
is written by the keeper's ``git pull`` over the ignored one, status clean, and no date check of a hidden run
(``code_before``, ``pins_before``, ``package_data_before``) looks at it: a predictor committed before the draw
reads, under ``sys.prefix``, numbers a pull request put there after it. Now a hidden run is refused while git
tracks any file under a folder every sandbox reads (``frozen_fits.bound_files_tracked``, in
``package_data_before``). The pass found nothing else in frozen-fit and submission folders (its report)."""

from __future__ import annotations

import subprocess
import sys

from perfgraphs.leaderboard import frozen_fits
from perfgraphs.leaderboard.sandbox import isolation
from test_sandbox_escape import _sandbox_reads, pytestmark  # noqa: F401 — the same sandbox, the same skips


def _git(repo, *args):
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=k", "-c", "user.email=k@x", *args], check=True,
                   capture_output=True)


def test_a_file_tracked_in_the_interpreters_folders_refuses_a_hidden_run(tmp_path, monkeypatch):
    repo = tmp_path / "checkout"
    site = repo / ".venv" / "lib" / "site-packages"  # the keeper's environment, as the README makes it
    site.mkdir(parents=True)
    (repo / ".gitignore").write_text("/.venv/\n")
    _git(repo, "init", "-q")
    _git(repo, "add", ".gitignore")
    _git(repo, "commit", "-q", "-m", "the repository")
    monkeypatch.setattr(sys, "path", [*sys.path, str(site)])  # the interpreter runs from it
    assert frozen_fits.bound_files_tracked(repo) is None  # the keeper's own environment: nothing tracked

    planted = site / "calibration.txt"  # a pull request after the draw
    planted.write_text("LABELS 1.2345 6.789\n")
    _git(repo, "add", "-f", str(planted))
    _git(repo, "commit", "-q", "-m", "pin a calibration file")
    why = frozen_fits.bound_files_tracked(repo)
    assert why is not None and ".venv/lib/site-packages/calibration.txt" in why and "every sandbox" in why, why

    # control: what the refusal stands on: every sandbox reads that file, at its own path
    isolation.make_readable(repo / ".venv")
    assert "READ LABELS 1.2345 6.789" in _sandbox_reads(tmp_path, planted)


def test_a_frozen_folders_manifest_that_is_no_regular_file_is_refused_unread(tmp_path):
    """The pass's other lead: ``read_frozen`` read ``manifest.json`` and each state with ``read_bytes()``
    before any check, so a manifest linked to ``/dev/zero`` grew until a MemoryError (an internal error)
    and one that is a FIFO hung the keeper's run. Now each is read as a regular file within a limit
    (``submission.read_regular``), refused in one line. Control: ``read_bytes`` opens what a link names."""
    import os

    import pytest

    from perfgraphs.leaderboard.frozen_fits import MANIFEST, FrozenFitError, read_frozen

    outside = tmp_path / "outside.json"
    outside.write_text('{"kind": "not read"}')
    for name, make in (("link", lambda p: p.symlink_to("/dev/zero")), ("fifo", lambda p: os.mkfifo(p)),
                       ("outside", lambda p: p.symlink_to(outside))):
        folder = tmp_path / name
        folder.mkdir()
        make(folder / MANIFEST)
        with pytest.raises(FrozenFitError, match="no readable manifest.json") as refused:
            read_frozen(folder, {}, (0,))
        assert "\n" not in str(refused.value)
    assert (tmp_path / "outside" / MANIFEST).read_bytes() == outside.read_bytes()  # the old read followed it
