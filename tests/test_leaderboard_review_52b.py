"""Fifty-second adversarial pass (2026-12-05), submit side: frozen fits. A ``--frozen`` hidden run
stated the manifest's fit (wall and CPU seconds) as the record's fit and dropped what its own fit
phase took: importing the predictor, constructing it and ``load_state``, all timed by the harness
between "ready" and "fit_done". A predictor whose ``state()`` sent a few numbers from an instant
fit and whose ``load_state`` did the real fit (on the public training part shipped in its folder,
or any work at all) had a hidden record state the frozen milliseconds while every second of the
real fit ran unrecorded. The record's fit is now the frozen fit plus the frozen run's own load.

And a state the predictor's process sent was read by the harness (outside the sandbox, before
writing the fits) with ``numpy.load``, which inflates a compressed member whole and allocates an
array header's declared shape before reading it: a freezing predictor that replaced ``numpy.savez``
sent 66 KB that the harness read as 64 MiB (at the 256 MB cap on a state, hundreds of GiB), or a
header of 8 PiB that stopped ``submit --freeze`` with an internal MemoryError. A state is now read
only when every member is stored uncompressed and holds the bytes its header declares."""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest

from test_leaderboard_review_36b import seeds_run
from test_sandbox_escape import cpu_seconds_within
from test_submit import (BOARD, commit_tiny_hidden_set, env, example_copy, parts,  # noqa: F401 — fixtures
                         run_cli)

BURN_S = 3.0  # well above the ridge's own fit in the sandbox (about a second: its imports)

BURNED_SEED = 1  # one seed burns: the others are the control (their frozen fit stated, no burn)
BURN = (
    "        import time as _t\n"
    f"        _end = _t.process_time() + ({BURN_S} if self.seed == {BURNED_SEED} else 0)\n"
    "        while _t.process_time() < _end:\n"
    "            pass\n"
)

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None,
                                reason="a hidden board's runs drop the page cache and freezing runs in the sandbox")


SAVEZ_COMPRESSED = (
    "        np.savez = np.savez_compressed\n"
    "        return {'w': np.zeros(1 << 23)}\n"
)
HUGE_HEADER = (
    "        import io as _io, zipfile as _zf\n"
    "        _h = _io.BytesIO()\n"
    "        np.lib.format.write_array_header_1_0(_h, {'descr': '<f8', 'fortran_order': False, 'shape': (1 << 50,)})\n"
    "        def _savez(file, **arrays):\n"
    "            with _zf.ZipFile(file, 'w') as z:\n"
    "                z.writestr('w.npy', _h.getvalue() + bytes(64))\n"
    "        np.savez = _savez\n"
)


def _forging(folder, body: str, method: str):
    """The ridge example whose ``state()`` runs ``body`` first (it replaces the writer the child calls)."""
    hook = "    def state(self) -> dict[str, np.ndarray]:\n"

    def edit(source: str) -> str:
        assert hook in source
        return source.replace(hook, hook + body)

    return example_copy(folder, method, edit)


def _freeze(env, capsys, sub, name):
    return run_cli(["submit", str(sub), *BOARD, "--quick", "--freeze", str(env["tmp"] / name),
                    "--results", str(env["results"]), "--no-mlflow"], capsys)


def test_a_compressed_state_is_refused_before_it_is_inflated(env, parts, capsys, monkeypatch):
    ran = seeds_run(monkeypatch)
    rc, err = _freeze(env, capsys, _forging(env["tmp"] / "bomb", SAVEZ_COMPRESSED, "ridge-bomb"), "f")
    assert rc == 1 and len(err) == 1 and "seed 0's state: 'w.npy' is compressed" in err[0], err
    assert not (env["tmp"] / "f").exists()
    assert ran == [0]  # refused as its seed ended: the four seeds after it never fitted


def test_a_state_header_larger_than_its_bytes_is_refused_in_one_line(env, parts, capsys):
    rc, err = _freeze(env, capsys, _forging(env["tmp"] / "huge", HUGE_HEADER, "ridge-huge"), "h")
    assert rc == 1 and len(err) == 1 and "declares (1125899906842624,) of float64" in err[0], err


def test_control_without_the_stored_check_a_small_state_is_read_as_64_mib(env, parts, capsys, monkeypatch):
    from perfgraphs.baselines import fitted_state

    monkeypatch.setattr(fitted_state, "_stored_arrays", lambda data, what: None)
    rc, err = _freeze(env, capsys, _forging(env["tmp"] / "bomb", SAVEZ_COMPRESSED, "ridge-bomb"), "f")
    assert rc == 0, err
    state = env["tmp"] / "f" / "seed-0.npz"
    assert state.stat().st_size < 1 << 20
    assert np.load(state, allow_pickle=False)["w"].nbytes == 64 << 20


def _submission(folder):
    """The ridge example whose ``load_state`` burns ``BURN_S`` CPU seconds in seed ``BURNED_SEED`` (the
    stand-in for a fit done there), where a frozen run calls it instead of ``fit``."""
    hook = "    def load_state(self, state: dict[str, np.ndarray]) -> None:\n"

    init = "        self.target = target\n"

    def edit(source: str) -> str:
        assert hook in source and init in source
        return source.replace(init, init + "        self.seed = seed\n").replace(hook, hook + BURN)

    return example_copy(folder, "ridge-loads", edit)


def freeze_and_score_hidden(env, parts, capsys, git_commitments, monkeypatch, sub):
    """Freeze ``sub``, commit the fits, commit a hidden set (the tiny test part) after them, score it
    --frozen: (the frozen fits' folder, the hidden record)."""
    commitments, commit = git_commitments
    frozen = commitments.parent / "frozen" / "sub"
    rc, err = run_cli(["submit", str(sub), *BOARD, "--quick", "--freeze", str(frozen),
                       "--results", str(env["results"]), "--no-mlflow"], capsys)
    assert rc == 0, err
    commit("frozen fits")
    commit_tiny_hidden_set(env["tmp"] / "keeper", parts, git_commitments, capsys, monkeypatch)
    rc, err = run_cli(["submit", str(sub), *BOARD, "--quick", "--hidden-labels", "--frozen",
                       str(frozen), "--results", str(env["results"]), "--no-mlflow"], capsys)
    assert rc == 0, err
    (record,) = [json.loads(line) for line in (env["results"] / "dippm.jsonl").read_text().splitlines()]
    return frozen, record


def _frozen_record(env, parts, capsys, git_commitments, monkeypatch):
    """Freeze the submission and score it --frozen on a hidden set committed after: (manifest, record)."""
    sub = _submission(env["tmp"] / "sub")
    frozen, record = freeze_and_score_hidden(env, parts, capsys, git_commitments, monkeypatch, sub)
    return json.loads((frozen / "manifest.json").read_text()), record


def test_a_fit_done_in_load_state_is_in_the_frozen_records_fit(env, parts, capsys, git_commitments, monkeypatch):
    """Attack: seed 1's ``load_state`` burns 3 CPU seconds (a fit done where a frozen run loads the state):
    its frozen record's fit holds the burn. Control, the other four seeds of the same record (one freeze
    and one hidden run, most of the test's time): a plain frozen run states the frozen fit and its own
    load (imports, load_state), no burn."""
    manifest, record = _frozen_record(env, parts, capsys, git_commitments, monkeypatch)
    assert record["test_set"] == "hidden" and record["frozen_fit"]
    # the freeze itself stated the ridge's own fit: the burn ran only where the frozen run loaded the state
    fits = {s["seed"]: s["fit"] for s in manifest["seeds"]}
    assert all(f["fit_seconds"] < BURN_S for f in fits.values())
    for s in record["per_seed"]:
        if s["seed"] == BURNED_SEED:
            assert s["fit_seconds"] >= fits[s["seed"]]["fit_seconds"] + 0.9 * BURN_S, s
            frozen_cpu = fits[s["seed"]]["fit_cpu_seconds"]  # None, as the record's, without cgroup accounting
            assert cpu_seconds_within(s["fit_cpu_seconds"], (frozen_cpu or 0.0) + 0.9 * BURN_S), s
        else:
            assert fits[s["seed"]]["fit_seconds"] <= s["fit_seconds"] < fits[s["seed"]]["fit_seconds"] + BURN_S, s
