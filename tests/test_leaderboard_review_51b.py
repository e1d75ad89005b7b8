"""Fifty-first adversarial pass (2026-12-05), submit side: frozen fits. A freezing run called the
predictor's ``state()`` after the probe, in no timed phase: a predictor whose ``fit`` only kept the
training part and whose ``state()`` did the fit froze a manifest stating a fit of a few milliseconds
and no CPU, which a ``--frozen`` hidden record then states as its fit (and it fitted after seeing the
public test inputs). The state is now sent inside the fit phase, before "fit_done" and before any
test input is handed over, so the fit the manifest states is every second ``state()`` took."""

from __future__ import annotations

import json
import shutil

import pytest

from test_sandbox_escape import cpu_seconds_within
from test_submit import BOARD, env, example_copy, parts, run_cli  # noqa: F401 — fixtures

BURN_S = 0.6

BURN = (
    "        import time as _t\n"
    f"        _end = _t.process_time() + {BURN_S}\n"
    "        while _t.process_time() < _end:\n"
    "            pass\n"
)



def _submission(folder, late: bool):
    """The ridge example burning ``BURN_S`` CPU seconds in its fit: in ``fit`` (the control) or, late,
    in ``state()``, where ``fit`` only keeps the training part and the real fit runs."""
    return example_copy(folder, "ridge-late" if late else "ridge-burn", lambda source: _edited(source, late))


def _edited(source: str, late: bool) -> str:
    fit = "    def fit(self, train, val=None) -> \"Predictor\":\n"
    state = "    def state(self)"
    assert fit in source and state in source
    if late:
        source = source.replace(fit, fit + "        if not getattr(self, '_late', False):\n"
                                      "            self._train = train\n"
                                      "            return self\n")
        head, tail = source.split(state, 1)
        line, rest = tail.split("\n", 1)
        source = (head + state + line + "\n" + BURN + "        self._late = True\n"
                  "        self.fit(self._train)\n" + rest)
        source = source.replace("    def predict(self, graphs", "    def predict(self, graphs", 1)
        predict = "    def predict(self, graphs"
        head, tail = source.split(predict, 1)
        line, rest = tail.split("\n", 1)
        source = (head + predict + line + "\n"
                  "        if not hasattr(self, 'coef_'):\n"
                  "            import numpy as _np\n"
                  "            return _np.ones(len(graphs))\n" + rest)
    else:
        source = source.replace(fit, fit + BURN)
    return source


def _freeze(env, capsys, late: bool) -> dict:
    sub = _submission(env["tmp"] / ("late" if late else "burn"), late)
    frozen = env["tmp"] / ("frozen-late" if late else "frozen-burn")
    rc, err = run_cli(["submit", str(sub), *BOARD, "--quick", "--freeze", str(frozen),
                       "--results", str(env["results"]), "--no-mlflow"], capsys)
    assert rc == 0, err
    return json.loads((frozen / "manifest.json").read_text())


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="freezing runs in the sandbox")
def test_a_fit_done_in_state_is_in_the_frozen_fit_time(env, parts, capsys):
    for seed in _freeze(env, capsys, late=True)["seeds"]:
        assert seed["fit"]["fit_seconds"] >= BURN_S and cpu_seconds_within(seed["fit"]["fit_cpu_seconds"], BURN_S * 0.9)


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="freezing runs in the sandbox")
def test_control_a_fit_done_in_fit_is_in_the_frozen_fit_time(env, parts, capsys):
    for seed in _freeze(env, capsys, late=False)["seeds"]:
        assert seed["fit"]["fit_seconds"] >= BURN_S and cpu_seconds_within(seed["fit"]["fit_cpu_seconds"], BURN_S * 0.9)
