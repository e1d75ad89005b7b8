"""Sixty-seventh adversarial pass (2026-12-06), submit side: a frozen fit scored a model made after
the hidden set was drawn. ``--frozen`` scores a folder only when its content hash is the one the
manifest names (``frozen_fits.submission_sha256``), and that hash covered every regular file and
link, but not a folder holding neither: yet the sandbox's copy makes every folder, and the predictor
reads their names. A ridge frozen honestly whose ``load_state`` takes its numbers from folder names
when it finds them (``after-draw-coef-<hex>/``, each holding one ``.pyc`` so that git keeps it, and
bytecode is left out of the hash and the copy alike) got, after the set's commitment, folders holding a
refit on every public row (on the tiny board, the hidden rows themselves): the same hash, the frozen
run accepted, and the keeper's record, stating the frozen fit and its ``frozen_fit``, scored the refit
(12.8 % MAPE in seed 0, where its frozen state earns 40.6 %). Now a folder holding nothing the hash covers
is hashed by its path (a folder with a file or link under it is named by their paths already, so the
hashes of every folder without such an empty one, the committed references' among them, are unchanged)."""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest

from perfgraphs.data.load import static_features
from perfgraphs.leaderboard import frozen_fits
from perfgraphs.leaderboard import submit as submit_module
from test_submit import (BOARD, commit_tiny_hidden_set, env, example_copy, numpy_mape, parts,  # noqa: F401 — fixtures
                         run_cli)

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None,
                                reason="a hidden board's runs drop the page cache and freezing runs in the sandbox")

SEEDS: list[str] = []  # the five a record needs
KEYS = ("mean", "scale", "coef", "intercept")
# load_state: numbers found in the names of the folder's folders, `after-draw-<key>-<hex of float64s>`,
# replace the frozen state's (an honest ridge while there are none, as when it was frozen)
FROM_FOLDER_NAMES = (
    "        from pathlib import Path as _P\n"
    "        for _d in _P(__file__).parent.glob('after-draw-*'):\n"
    "            _key, _hex = _d.name[len('after-draw-'):].rsplit('-', 1)\n"
    "            state = {**state, _key: np.frombuffer(bytes.fromhex(_hex), dtype=np.float64).reshape(np.shape(state[_key]))}\n"
)


def _ridge(folder):
    hook = "    def load_state(self, state: dict[str, np.ndarray]) -> None:\n"

    def edit(source: str) -> str:
        assert hook in source
        return source.replace(hook, hook + FROM_FOLDER_NAMES)

    return example_copy(folder, "ridge-after-draw", edit)


def _predict(state: dict, rows) -> np.ndarray:
    """The example's prediction from one state's numbers (as tests/test_frozen_fits.py writes it)."""
    z = (static_features(rows).astype(np.float64) - state["mean"]) / state["scale"]
    return np.exp(z @ state["coef"] + float(state["intercept"]))


def _refit(rows, target="latency_ms", alpha=0.01) -> dict:
    """The example's fit, done by its writer after the draw (here on the hidden rows themselves)."""
    X = static_features(rows).astype(np.float64)
    y = np.log(np.asarray(rows[target], dtype=np.float64))
    mean, scale = X.mean(axis=0), X.std(axis=0)
    scale[scale == 0] = 1.0
    Z = (X - mean) / scale
    coef = np.linalg.solve(Z.T @ Z + alpha * np.eye(Z.shape[1]), Z.T @ (y - y.mean()))
    return {"mean": mean, "scale": scale, "coef": coef, "intercept": np.asarray(y.mean())}


def _add_after_draw(sub, state: dict) -> None:
    """The refit as folder names, each holding one bytecode file (so git keeps the folder)."""
    for key in KEYS:
        folder = sub / f"after-draw-{key}-{np.asarray(state[key], dtype=np.float64).tobytes().hex()}"
        folder.mkdir()
        (folder / "keep.pyc").write_bytes(b"\0")


def _freeze_then_change(env, parts, capsys, git_commitments, monkeypatch):
    """Freeze the ridge, commit the fits, commit the hidden set after them, then add the refit's
    folders: (the submission, the frozen fits' folder, the frozen state, the refit)."""
    commitments, commit = git_commitments
    sub, frozen = _ridge(env["tmp"] / "sub"), commitments.parent / "frozen" / "sub"
    rc, err = run_cli(["submit", str(sub), *BOARD, "--quick", *SEEDS, "--freeze", str(frozen),
                       "--results", str(env["results"]), "--no-mlflow"], capsys)
    assert rc == 0, err
    commit("frozen fits")
    commit_tiny_hidden_set(env["tmp"] / "keeper", parts, git_commitments, capsys, monkeypatch)
    refit = _refit(parts.test)
    _add_after_draw(sub, refit)
    return sub, frozen, dict(np.load(frozen / "seed-0.npz", allow_pickle=False)), refit


def _score_frozen(sub, frozen, env, capsys):
    return run_cli(["submit", str(sub), *BOARD, "--quick", *SEEDS, "--hidden-labels", "--frozen",
                    str(frozen), "--results", str(env["results"]), "--no-mlflow"], capsys)


def assert_scored_the_refit(rc: int, err, env, parts, state: dict, refit: dict, rel: float) -> None:
    """Control of a frozen round with its guard off: a verified frozen record whose first seed scored what
    ``refit`` (a fit on the hidden rows) predicts, to ``rel``, under half the MAPE its frozen ``state`` earns."""
    assert rc == 0, err
    (record,) = [json.loads(line) for line in (env["results"] / "dippm.jsonl").read_text().splitlines()]
    assert record["test_set"] == "hidden" and record["tier"] == "verified" and record["frozen_fit"]
    y = np.asarray(parts.test["latency_ms"], dtype=float)
    earned, scored = numpy_mape(y, _predict(state, parts.test)), record["per_seed"][0]["mape_pct"]
    assert scored == pytest.approx(numpy_mape(y, _predict(refit, parts.test)), rel=1e-9)
    assert scored < earned / 2, (scored, earned)


def test_a_folder_added_after_the_freeze_is_not_the_frozen_submission(env, parts, capsys, git_commitments,
                                                                    monkeypatch):
    """Attack: folders whose names hold a refit, added after the set's commitment. Before, the frozen
    run was accepted and the record scored the refit; now the folder is not the one frozen, in one line.
    Control (the same freeze, one freeze being most of the test's time): with the hash as it was (no
    folder in it), the keeper's record states the frozen fit and scores the refit the folder names
    carried, far below what the frozen state earns."""
    sub, frozen, state, refit = _freeze_then_change(env, parts, capsys, git_commitments, monkeypatch)
    rc, err = _score_frozen(sub, frozen, env, capsys)
    assert rc == 1 and len(err) == 1, err
    assert "the fits were frozen with submission_sha256" in err[0], err
    assert not (env["results"] / "dippm.jsonl").exists()

    monkeypatch.setattr(frozen_fits, "_unhashed_folders", lambda folders, hashed: [])
    # the refit moves the public test part's predictions too: the seventy-eighth pass's replay, off here
    monkeypatch.setattr(submit_module, "_frozen_replay_problems", lambda *args, **kwargs: [])
    rc, err = _score_frozen(sub, frozen, env, capsys)
    assert_scored_the_refit(rc, err, env, parts, state, refit, rel=1e-9)


def test_control_the_hash_of_a_folder_without_empty_folders_is_unchanged(tmp_path):
    """Control: a folder whose every folder holds a file keeps the hash it had (its folders' paths are
    in its files'), so fits frozen before stay valid; an empty folder, or one of bytecode only, changes it."""
    sub = example_copy(tmp_path / "sub", "ridge-plain")
    (sub / "pkg" / "__pycache__").mkdir(parents=True)
    (sub / "pkg" / "util.py").write_text("X = 1\n")
    (sub / "pkg" / "__pycache__" / "util.cpython-311.pyc").write_bytes(b"\0")
    before = frozen_fits.submission_sha256(sub)
    assert before == _files_only_hash(sub)
    (sub / "knob").mkdir()
    assert frozen_fits.submission_sha256(sub) != before
    (sub / "knob" / "keep.pyc").write_bytes(b"\0")
    assert frozen_fits.submission_sha256(sub) != before


def _files_only_hash(root) -> str:
    """The hash as it was written before this pass (regular files and links only)."""
    import hashlib

    from perfgraphs.atomic import sha256_file
    from perfgraphs.leaderboard.sandbox.harness import is_bytecode

    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(is_bytecode(part) for part in rel.parts):
            continue
        if path.is_symlink():
            digest.update(b"L\0" + str(rel).encode() + b"\0" + os.readlink(path).encode() + b"\0")
        elif path.is_file():
            digest.update(b"F\0" + str(rel).encode() + b"\0" + sha256_file(path).encode())
    return digest.hexdigest()
