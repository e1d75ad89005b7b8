"""Sixty-third adversarial pass (2026-12-06), submit side: a ``--frozen`` hidden run handed every run the
states of every seed. ``prepare_job`` wrote each seed's frozen state into the job folder
(``/job/frozen/seed-<n>.npz``), which every run of every seed reads, so a predictor whose ``load_state``
read the other seeds' states beside its own scored each seed as an ensemble of all five fits: each
seed's record was the five fits averaged (a lower MAPE than any one fit earned, every seed alike, so a
seed spread of nothing), while the record stated the frozen fit time of one. RULES says a frozen run
gets "only its state". Now the states are held back with the test inputs (never mounted) and each run
gets its own seed's state alone, in its own inbox (``harness.hand_frozen_state``): on the tiny
board the bagged ridge below scored 17.6 % MAPE in every seed, where its seeds' own fits score 14.0-44.6 %."""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest

from perfgraphs.data.load import static_features
from test_submit import (BOARD, commit_tiny_hidden_set, env, example_copy, numpy_mape, parts,  # noqa: F401 — fixtures
                         run_cli)

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None,
                                reason="a hidden board's runs drop the page cache and freezing runs in the sandbox")

# an honest seed-dependent fit: each seed fits the ridge on its own bootstrap draw of the training rows
BOOTSTRAP = (
    "        X, y = X[self._rows], y[self._rows]\n"
)
# the attack: load_state averages every seed's state it can find beside its own (an ensemble of the five fits)
ENSEMBLE = (
    "        import glob as _glob\n"
    "        _states = [dict(np.load(p, allow_pickle=False)) for p in sorted(_glob.glob('/job/frozen/seed-*.npz'))\n"
    "                   + sorted(_glob.glob('/inbox/*.npz'))]\n"
    "        if len(_states) > 1:\n"
    "            state = {k: np.mean([s[k] for s in _states], axis=0) for k in state}\n"
)


def _bagged_ridge(folder, ensemble: bool):
    """The ridge example, fitted on a bootstrap draw of the training rows by seed (an honest spread of
    fits); with ``ensemble`` its ``load_state`` takes the mean of every seed's state it can read."""
    def edit(source: str) -> str:
        init = "        self.target = target\n"
        fit = "        y = np.log(np.asarray(train[self.target], dtype=np.float64))\n"
        load = "    def load_state(self, state: dict[str, np.ndarray]) -> None:\n"
        assert init in source and fit in source and load in source
        source = source.replace(init, init + "        self.seed = seed\n")
        draw = "        self._rows = np.random.default_rng(self.seed).integers(0, len(y), len(y))\n"
        source = source.replace(fit, fit + draw + BOOTSTRAP)
        return source.replace(load, load + ENSEMBLE) if ensemble else source

    return example_copy(folder, "ridge-ensemble" if ensemble else "ridge-bagged", edit)


def _predict(state: dict, rows) -> np.ndarray:
    """The example's prediction from one state's numbers (as tests/test_frozen_fits.py writes it)."""
    z = (static_features(rows).astype(np.float64) - state["mean"]) / state["scale"]
    return np.exp(z @ state["coef"] + float(state["intercept"]))


def _frozen_scores(env, parts, capsys, git_commitments, monkeypatch, ensemble: bool):
    """Freeze the submission, commit the fits, commit a hidden set (the tiny test part) after them and
    score it --frozen: (each seed's own state, the hidden record, the labels)."""
    commitments, commit = git_commitments
    sub = _bagged_ridge(env["tmp"] / "sub", ensemble)
    frozen = commitments.parent / "frozen" / "sub"
    rc, err = run_cli(["submit", str(sub), *BOARD, "--quick", "--freeze", str(frozen),
                       "--results", str(env["results"]), "--no-mlflow"], capsys)
    assert rc == 0, err
    commit("frozen fits")
    commit_tiny_hidden_set(env["tmp"] / "keeper", parts, git_commitments, capsys, monkeypatch)
    rc, err = run_cli(["submit", str(sub), *BOARD, "--quick", "--hidden-labels", "--frozen", str(frozen),
                       "--results", str(env["results"]), "--no-mlflow"], capsys)
    assert rc == 0, err
    (record,) = [json.loads(line) for line in (env["results"] / "dippm.jsonl").read_text().splitlines()]
    states = {s: dict(np.load(frozen / f"seed-{s}.npz", allow_pickle=False)) for s in range(5)}
    return states, record, np.asarray(parts.test["latency_ms"], dtype=float)


def test_a_frozen_run_gets_its_own_seeds_state_only(env, parts, capsys, git_commitments, monkeypatch):  # noqa: F811
    """Attack: the bagged ridge whose load_state averages every seed's state it finds (the job folder
    held all five). Before, every seed of the hidden record scored the five fits' mean state (the same
    predictions in every seed, below the seeds' own errors on average); now each seed finds its own
    state alone and scores exactly what that state predicts."""
    states, record, y = _frozen_scores(env, parts, capsys, git_commitments, monkeypatch, ensemble=True)
    assert record["test_set"] == "hidden" and record["tier"] == "verified"
    own = {s: numpy_mape(y, _predict(states[s], parts.test)) for s in states}
    assert len({round(m, 9) for m in own.values()}) == 5  # the five fits differ: an ensemble would show
    mean_state = {k: np.mean([states[s][k] for s in states], axis=0) for k in states[0]}
    ensemble = numpy_mape(y, _predict(mean_state, parts.test))
    for s in record["per_seed"]:
        assert s["mape_pct"] == pytest.approx(own[s["seed"]], rel=1e-9), (s["mape_pct"], own, ensemble)
    assert len({s["predictions_sha256"] for s in record["per_seed"]}) == 5


def test_control_the_honest_bagged_ridge_scores_its_own_states(env, parts, capsys, git_commitments,  # noqa: F811
                                                               monkeypatch):
    """Control: the same bagged ridge without the averaging scores each seed from its own state (so the
    attack's record above is what the averaging made of it)."""
    states, record, y = _frozen_scores(env, parts, capsys, git_commitments, monkeypatch, ensemble=False)
    for s in record["per_seed"]:
        assert s["mape_pct"] == pytest.approx(numpy_mape(y, _predict(states[s["seed"]], parts.test)), rel=1e-9)

