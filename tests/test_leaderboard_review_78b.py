"""Seventy-eighth adversarial pass (2026-12-06), submit side: a frozen fit scored package code changed
after the freeze. The manifest pins the submission folder (``frozen_fits.submission_sha256``), the
board and the build, but the predictor also runs the perfgraphs package the harness stages into the
sandbox as this checkout holds it at scoring time (``isolation.staged_code_dir``): the ridge example's
features, and the whole model of every reference (``leaderboard/reference/<name>`` is a thin wrapper
of ``perfgraphs/baselines``). A ridge frozen honestly, and a pull request landed after the set's
commitment that changed ``perfgraphs.data.load.static_features`` (here: features that carry a refit
on the hidden rows into the frozen coefficients' frame), had the keeper's record, stating the frozen
fit and its ``frozen_fit``, score the refit (far below the MAPE the frozen state earns); a change that
broke the features would as silently have scored a frozen reference worse than its fit earns. Now a
frozen hidden run first predicts the public test part from each seed's state, with the code staged
now, and scores nothing unless it predicts as the freeze did (``submit._frozen_replay_problems``:
the public MAPE and Kendall tau the manifest names, to ``check.INVARIANCE_RTOL``)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

import perfgraphs
from perfgraphs.leaderboard import submit as submit_module
from test_leaderboard_review_67b import _refit, assert_scored_the_refit
from test_submit import (BOARD, commit_tiny_hidden_set, env, example_copy, parts,  # noqa: F401 — fixtures
                         run_cli)

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None,
                                reason="a hidden board's runs drop the page cache and freezing runs in the sandbox")


def _arr(values) -> str:
    return "_np.array([" + ", ".join(repr(float(v)) for v in np.ravel(values)) + "])"


def _package_after_the_draw(tmp: Path, frozen: dict, refit: dict) -> Path:
    """A copy of the perfgraphs package as a pull request landed after the commitment leaves it:
    ``static_features`` returns features that the frozen coefficients turn into the refit's prediction
    (Z' = Z_refit * coef_refit / coef, the intercepts' difference on the first column)."""
    src = Path(perfgraphs.__file__).resolve().parent
    dest = tmp / "checkout-after-the-draw" / "perfgraphs"
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns("__pycache__"))
    shift = (float(refit["intercept"]) - float(frozen["intercept"])) / float(frozen["coef"][0])
    with open(dest / "data" / "load.py", "a") as fh:
        fh.write(
            "\n\nimport numpy as _np\n_static_features_before = static_features\n\n\n"
            "def static_features(part):\n"
            f"    x = _np.asarray(_static_features_before(part), dtype=_np.float64)\n"
            f"    z = (x - {_arr(refit['mean'])}) / {_arr(refit['scale'])} * {_arr(refit['coef'])} / {_arr(frozen['coef'])}\n"
            f"    z[:, 0] += {shift!r}\n"
            f"    return {_arr(frozen['mean'])} + {_arr(frozen['scale'])} * z\n")
    return dest / "__init__.py"


def _score_frozen(sub, frozen, env, capsys):
    return run_cli(["submit", str(sub), *BOARD, "--quick", "--hidden-labels", "--frozen", str(frozen),
                    "--results", str(env["results"]), "--no-mlflow"], capsys)


def test_package_code_changed_after_the_freeze_scores_nothing(env, parts, capsys, git_commitments, monkeypatch):
    """Attack: the ridge frozen and committed before the set's commitment, then the package code it
    calls changed. Before, the keeper's record (verified, frozen_fit) scored the refit that change
    carried; now the run refuses in one line. Control (the same freeze): with the replay check off the
    record is written, scoring far below what the frozen state earns."""
    commitments, commit = git_commitments
    sub, frozen = example_copy(env["tmp"] / "sub", "ridge-pr-after-draw"), commitments.parent / "frozen" / "sub"
    rc, err = run_cli(["submit", str(sub), *BOARD, "--quick", "--freeze", str(frozen),
                       "--results", str(env["results"]), "--no-mlflow"], capsys)
    assert rc == 0, err
    commit("frozen fits")
    commit_tiny_hidden_set(env["tmp"] / "keeper", parts, git_commitments, capsys, monkeypatch)
    state = dict(np.load(frozen / "seed-0.npz", allow_pickle=False))
    refit = _refit(parts.test)
    monkeypatch.setattr(perfgraphs, "__file__", str(_package_after_the_draw(env["tmp"], state, refit)))

    rc, err = _score_frozen(sub, frozen, env, capsys)
    assert rc == 1 and len(err) == 1, err
    assert "does not predict the public test part as when it was frozen" in err[0], err
    assert not (env["results"] / "dippm.jsonl").exists()

    monkeypatch.setattr(submit_module, "_frozen_replay_problems", lambda *args, **kwargs: [])
    rc, err = _score_frozen(sub, frozen, env, capsys)
    assert_scored_the_refit(rc, err, env, parts, state, refit, rel=1e-6)
