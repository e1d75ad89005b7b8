"""Hundred-and-fifth adversarial pass, side b (what a pull request commits that runs).

The sandbox never runs a submission's or the package's committed bytecode (``harness.is_bytecode``; the
staged code is sources only), but the keeper's own process (``perfgraphs submit --hidden-labels``, which
scores the round and signs its record) imports the package from the checkout, installed editable as the
README makes it. An unchecked hash-based ``perfgraphs/evaluation/__pycache__/evaluator.cpython-311.pyc``
(PEP 552) runs in place of ``evaluator.py`` whatever the source says; ``.gitignore`` keeps ``__pycache__``
only from a plain ``git add``, and a pull request after the draw that committed one with ``git add -f``
(binary: no review reads it) left every source as it was. No check of a hidden run looked at it:
``code_before`` dates the submission's folder (bytecode left out), ``package_data_before`` the package's
tables, ``bound_files_tracked`` the interpreter's folders. Here the bytecode scores a tenth of the MAPE:
the tiny board's ridge, committed before the draw, got a keeper-signed *verified* record on the 31 hidden
labels at a tenth of the MAPE its predictions earn. Now a hidden run is refused while the commitments'
repository tracks any bytecode file (``frozen_fits.bytecode_tracked``, in ``package_data_before``: both
the harness-fitted and the ``--frozen`` route). Not closed: a bytecode file that replaces the checking
module itself runs before the check; the suite's ``test_this_checkout_tracks_no_bytecode`` asks git itself.
"""

from __future__ import annotations

import importlib.util
import os
import py_compile
import shutil

import pytest

import perfgraphs.evaluation.evaluator as evaluator
from perfgraphs.leaderboard import frozen_fits
from test_leaderboard_review_79b import _record
from test_leaderboard_review_82b import _git
from test_submit import BOARD, commit_tiny_hidden_set, env, example_copy, parts, run_cli  # noqa: F401 — fixtures

hidden_round = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None,
                                  reason="a hidden board's runs drop the page cache and run in the sandbox")

PLANTED = "mape_pct=float(np.mean(rel_err) * 10.0),"  # what the bytecode runs: a tenth of the MAPE


@hidden_round
def test_bytecode_a_pull_request_commits_is_not_run_by_a_hidden_round(env, parts, capsys, git_commitments,
                                                                       monkeypatch, tmp_path):
    """Attack: the keeper's checkout holds the package and a ridge committed before the draw; a pull request
    after it commits, with ``git add -f``, unchecked-hash bytecode for ``evaluator.py`` (its source unchanged);
    the hidden run is refused in one line. Control: with the check off, the keeper's process importing the
    evaluator from that checkout runs the bytecode, and the keeper signs a verified record at a tenth of the
    MAPE the ridge's predictions earn."""
    repo, source, folder = keepers_checkout("__pycache__/\n", "ridge-105b", env, parts, capsys, git_commitments,
                                            monkeypatch)

    text = source.read_text()
    assert text.count("mape_pct=float(np.mean(rel_err) * 100.0),") == 1
    planted = tmp_path / "evaluator.py"
    planted.write_text(text.replace("mape_pct=float(np.mean(rel_err) * 100.0),", PLANTED))
    pyc = importlib.util.cache_from_source(str(source))
    py_compile.compile(str(planted), cfile=pyc, dfile=str(source), doraise=True,
                       invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    _git(repo, "add", "-f", pyc)
    _git(repo, "commit", "-q", "-m", "a pull request after the draw: only a binary file")
    assert source.read_text() == text and _git_status(repo) == ""

    submit = refused_in_one_line(folder, "ridge-105b", "git tracks Python bytecode (perfgraphs/evaluation/__pycache__/evaluator.",
                                 env, capsys)

    # control: the check off; the keeper's process imports the evaluator from its checkout and runs the bytecode
    monkeypatch.setattr(frozen_fits, "bytecode_tracked", lambda top: None)
    spec = importlib.util.spec_from_file_location(evaluator.__name__, source)
    imported = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(imported)
    assert_signed_at_a_tenth(imported, submit, env, "ridge-105b", capsys, monkeypatch)


def keepers_checkout(gitignore: str, method: str, env, parts, capsys, git_commitments, monkeypatch):
    """The keeper's checkout before the draw: the package's evaluator source and a team's ridge ``method``
    committed, then the tiny hidden set drawn and committed: (repository, the evaluator's source, the ridge)."""
    commitments, commit = git_commitments
    repo = commitments.parent.parent
    (repo / ".gitignore").write_text(gitignore)
    source = repo / "perfgraphs" / "evaluation" / "evaluator.py"  # the package, in the keeper's checkout
    source.parent.mkdir(parents=True)
    shutil.copyfile(evaluator.__file__, source)
    folder = example_copy(repo / "submissions" / "ridge", method)
    commit("the package and a team's ridge, before the draw")
    commit_tiny_hidden_set(env["tmp"] / "keeper", parts, git_commitments, capsys, monkeypatch)
    return repo, source, folder


def refused_in_one_line(folder, method: str, says: str, env, capsys) -> list[str]:
    """The keeper's hidden run of the ridge ``method`` in ``folder`` refused in one line saying ``says``, no
    record written; returns the command, for the control to run again."""
    submit = ["submit", str(folder), *BOARD, "--quick", "--hidden-labels", "--results", str(env["results"]),
              "--no-mlflow"]
    rc, err = run_cli(submit, capsys)
    assert rc == 1 and len(err) == 1 and says in err[0], err
    results = env["results"] / "dippm.jsonl"
    assert not results.exists() or method not in results.read_text()
    return submit


def assert_signed_at_a_tenth(imported, submit: list[str], env, method: str, capsys, monkeypatch) -> None:
    """The keeper's process scores with ``imported`` (the planted evaluator) in place of the source's
    ``compute_metrics``: the hidden run goes through and the keeper signs a verified record at a tenth of the
    MAPE the source computes for the same predictions."""
    honest = []

    def scored(y_true, y_pred):
        honest.append(source_metrics(y_true, y_pred).mape_pct)
        return imported.compute_metrics(y_true, y_pred)

    source_metrics = evaluator.compute_metrics
    monkeypatch.setattr(evaluator, "compute_metrics", scored)
    rc, err = run_cli(submit, capsys)
    assert rc == 0, err
    record = _record(env, method)
    assert record["tier"] == "verified" and record["keeper_signature"]
    for s in record["per_seed"]:
        assert any(s["mape_pct"] * 10 == pytest.approx(h) for h in honest) and s["mape_pct"] < max(honest) / 5, (
            s["mape_pct"], honest)


def _git_status(repo) -> str:
    from perfgraphs.leaderboard.records.history import git

    return git(repo, "status", "--porcelain", "--untracked-files=all")


def test_this_checkout_tracks_no_bytecode():
    """The half the keeper's process cannot do itself: bytecode that replaces ``frozen_fits`` runs before its
    check does. Asked of git here, in the suite's own code (pytest runs test modules from their source), so a
    pull request's run of the suite refuses any tracked bytecode file, this one's included (not the finding:
    it passes on the unfixed code, as the checkout tracks none)."""
    import subprocess
    from pathlib import Path

    top = Path(__file__).resolve().parent.parent
    listed = subprocess.run(["git", "-C", str(top), "ls-files", "-z", "--recurse-submodules"], capture_output=True, check=True).stdout
    names = [n.decode() for n in listed.split(b"\0") if n]
    tracked = [n for n in names if any(p == "__pycache__" or p.endswith((".pyc", ".pyo")) for p in n.split("/"))]
    assert names and not tracked, tracked
