"""Sixty-third adversarial pass (2026-12-06), submit side: two findings.

A ``--frozen`` hidden run handed every run the states of every seed. ``prepare_job`` wrote each seed's
frozen state into the job folder (``/job/frozen/seed-<n>.npz``), which every run of every seed reads,
so a predictor whose ``load_state`` read the other seeds' states beside its own scored each seed as an
ensemble of all five fits: each seed's record was the five fits averaged (a lower MAPE than any one fit
earned, every seed alike, so a seed spread of nothing), while the record stated the frozen fit time of
one. RULES says a frozen run gets "only its state". Now the states are held back with the test inputs
(never mounted) and each run gets its own seed's state alone, in its own inbox
(``harness.hand_frozen_state``): on the tiny board the bagged ridge below scored 17.6 % MAPE in every
seed, where its seeds' own fits score 14.0-44.6 %.

And a median whose ``fit`` read a prior formula from a file it ships (``prior.txt``) with
``sympy.sympify`` and ``lambdify``-ed it ran code no check or review reads: sympify evaluates the
formula as Python with every builtin function in its namespace (``exec(open(...).read())``, or
``Symbol.__new__.__globals__``), and lambdify prints a symbol's name into the source it runs
(``Symbol("__import__('runpy').run_path(...)")`` is a formula to sympify). Now the sandbox child, before
it imports the predictor, makes SymPy's parser refuse a formula holding more than SymPy's names, numbers
and operators, and lambdify refuse strings and names that are no identifiers
(``perfgraphs.leaderboard.sandbox.formulas``)."""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest

from perfgraphs.cli import main
from perfgraphs.data.load import static_features
from perfgraphs.leaderboard.sandbox import harness
from test_leaderboard_review_52b import freeze_and_score_hidden
from test_submit import (BOARD, code_submission, each_seed_once_in_order, env, example_copy,  # noqa: F401 — fixtures
                         numpy_mape, parts)

frozen_round = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None,
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
    return bagged_ridge(folder, "ridge-ensemble" if ensemble else "ridge-bagged", ENSEMBLE if ensemble else "")


def bagged_ridge(folder, method: str, on_load: str = ""):
    """The ridge example under ``method``, fitted on a bootstrap draw of the training rows by seed, the
    source ``on_load`` run first in its ``load_state``."""
    def edit(source: str) -> str:
        init = "        self.target = target\n"
        fit = "        y = np.log(np.asarray(train[self.target], dtype=np.float64))\n"
        load = "    def load_state(self, state: dict[str, np.ndarray]) -> None:\n"
        assert init in source and fit in source and load in source
        source = source.replace(init, init + "        self.seed = seed\n")
        draw = "        self._rows = np.random.default_rng(self.seed).integers(0, len(y), len(y))\n"
        return source.replace(fit, fit + draw + BOOTSTRAP).replace(load, load + on_load)

    return example_copy(folder, method, edit)


def _predict(state: dict, rows) -> np.ndarray:
    """The example's prediction from one state's numbers (as tests/test_frozen_fits.py writes it)."""
    z = (static_features(rows).astype(np.float64) - state["mean"]) / state["scale"]
    return np.exp(z @ state["coef"] + float(state["intercept"]))


def _frozen_scores(env, parts, capsys, git_commitments, monkeypatch, ensemble: bool):
    """Freeze the submission, commit the fits, commit a hidden set (the tiny test part) after them and
    score it --frozen: (the submission, its frozen fits' folder, each seed's own state, the hidden record,
    the labels)."""
    sub = _bagged_ridge(env["tmp"] / "sub", ensemble)
    frozen, record = freeze_and_score_hidden(env, parts, capsys, git_commitments, monkeypatch, sub)
    states = {s: dict(np.load(frozen / f"seed-{s}.npz", allow_pickle=False)) for s in range(5)}
    return sub, frozen, states, record, np.asarray(parts.test["latency_ms"], dtype=float)


def _hand_every_state(monkeypatch) -> None:
    """The guard off: each run is handed the other seeds' frozen states beside its own (as the job folder
    every run read held them all before the sixty-third pass)."""
    own = harness.hand_frozen_state

    def every_state(job, inbox, seed):
        own(job, inbox, seed)
        for other in range(5):
            if other != int(seed):
                shutil.copyfile(job.folder / "held" / "frozen" / f"seed-{other}.npz", inbox / f"seed-{other}.npz")
                (inbox / f"seed-{other}.npz").chmod(0o444)

    monkeypatch.setattr(harness, "hand_frozen_state", every_state)


@frozen_round
def test_a_frozen_run_gets_its_own_seeds_state_only(env, parts, capsys, git_commitments, monkeypatch):  # noqa: F811
    """Attack: the bagged ridge whose load_state averages every seed's state it finds (the job folder
    held all five). Before, every seed of the hidden record scored the five fits' mean state (the same
    predictions in every seed, below the seeds' own errors on average); now each seed finds its own
    state alone and scores exactly what that state predicts.

    Control, on the same freeze: with every seed's state handed to each run (the guard off), every seed
    scores the ensemble of the five fits, the same in every seed."""
    sub, frozen, states, record, y = _frozen_scores(env, parts, capsys, git_commitments, monkeypatch, ensemble=True)
    assert record["test_set"] == "hidden" and record["tier"] == "verified"
    own = {s: numpy_mape(y, _predict(states[s], parts.test)) for s in states}
    assert len({round(m, 9) for m in own.values()}) == 5  # the five fits differ: an ensemble would show
    mean_state = {k: np.mean([states[s][k] for s in states], axis=0) for k in states[0]}
    ensemble = numpy_mape(y, _predict(mean_state, parts.test))
    for s in record["per_seed"]:
        assert s["mape_pct"] == pytest.approx(own[s["seed"]], rel=1e-9), (s["mape_pct"], own, ensemble)
    assert len({s["predictions_sha256"] for s in record["per_seed"]}) == 5

    _hand_every_state(monkeypatch)
    each_seed_once_in_order(monkeypatch)  # the replay and the run-again check would refuse the ensemble too
    (env["results"] / "dippm.jsonl").unlink()
    assert main(["submit", str(sub), *BOARD, "--quick", "--hidden-labels", "--frozen", str(frozen),
                 "--results", str(env["results"]), "--no-mlflow"]) == 0
    (record,) = [json.loads(line) for line in (env["results"] / "dippm.jsonl").read_text().splitlines()]
    for s in record["per_seed"]:
        assert s["mape_pct"] == pytest.approx(ensemble, rel=1e-9), (s["mape_pct"], own, ensemble)
    assert ensemble < np.mean(list(own.values()))  # below the seeds' own errors on average


# -- SymPy's formula strings (the second finding) ------------------------------------------------------

# a median scaled by a prior formula the folder ships (`prior.txt`), parsed with sympify and lambdify-ed
MEDIAN_FORMULA = (
    "from pathlib import Path\n"
    "import numpy as np\n"
    "import sympy\n"
    "HERE = Path(__file__).parent\n"
    "class Predictor:\n"
    "    def __init__(self, target, seed=0, quick=False):\n"
    "        self.target = target\n"
    "    def fit(self, train, val):\n"
    "        prior = sympy.sympify((HERE / 'prior.txt').read_text())\n"
    "        scale = sympy.lambdify(sympy.Symbol('median'), prior)\n"
    "        self.level = float(scale(float(np.median(train[self.target]))))\n"
    "    def predict(self, graphs):\n"
    "        return np.full(len(graphs), self.level)\n")
NOTES = "raise SystemExit('the notes ran')\n"  # a text file, to every check; Python to exec
RUN_NOTES = "__import__('runpy').run_path('/submission/notes.txt')"


def _check(sub, env) -> list[str]:  # noqa: F811
    return ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]


def _refused(capsys, what: str) -> None:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"the sandbox refused {what}" in err and "ran" not in err, err


def test_a_formula_string_runs_no_python(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: the median's `prior.txt` is Python that runs the folder's `notes.txt`: through a builtin
    (`exec(open(...).read())`: sympify's namespace holds every builtin function), through attributes
    (`Symbol.__new__.__globals__`), and through a symbol whose name is the code, which sympify builds as
    a formula and lambdify prints into the function it runs. Before, each ran (`check` failed with
    "SystemExit: the notes ran"); now each is refused in the sandbox, in one line. Controls: a plain
    formula scores; with the guard off the notes run."""
    sub = code_submission(tmp_path / "formula", "median-formula", MEDIAN_FORMULA)
    (sub / "notes.txt").write_text(NOTES)
    (sub / "prior.txt").write_text("Max(median, 1e-3) * 1.0\n")
    assert main(_check(sub, env)) == 0, capsys.readouterr().err  # control: a formula
    capsys.readouterr()

    (sub / "prior.txt").write_text("exec(open('/submission/notes.txt').read()) or median\n")
    assert main(_check(sub, env)) == 1
    _refused(capsys, "to evaluate a SymPy formula holding the name exec")

    (sub / "prior.txt").write_text("Symbol.__new__.__globals__['__builtins__']['exec']"
                                   "(open('/submission/notes.txt').read()) or median\n")
    assert main(_check(sub, env)) == 1
    _refused(capsys, "to evaluate a SymPy formula holding an attribute")

    (sub / "prior.txt").write_text(f'Symbol("{RUN_NOTES} and median")\n')
    assert main(_check(sub, env)) == 1
    _refused(capsys, "to lambdify the name")

    monkeypatch.setattr(harness, "RESTRICT_SYMPY", False)  # control: the guard off, the notes run
    for formula in ("exec(open('/submission/notes.txt').read()) or median", f'Symbol("{RUN_NOTES} and median")'):
        (sub / "prior.txt").write_text(formula + "\n")
        assert main(_check(sub, env)) == 1
        assert "SystemExit: the notes ran" in capsys.readouterr().err
