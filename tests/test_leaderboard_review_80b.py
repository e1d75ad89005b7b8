"""Eightieth adversarial pass (2026-12-06), submit side: the replay of a ``--frozen`` hidden run (one seed's
state predicting the public test part, seventy-eighth pass) ran BEFORE the hidden seeds, so it handed every
one of them its frozen fit through a machine-wide number, and the run-again check saw nothing.

The replay is told from a hidden run by its inputs (the public test part's rows, which the predictor knows;
a hidden set's architectures are new), and from a freezing run by having loaded a state. In it the ridge
below predicts with its own state (so the replay scores the manifest's MAPE) and leaves its level (the
intercept) in the kernel's pipe-inode counter (``get_next_ino``, seventy-fifth pass); in each hidden run it
reads that level and predicts with the mean of it and its own, writing nothing. Every hidden run, the one run
again included, reads the same level, so ``check.check_run_again`` passes, and the record's seeds score an
ensemble of two frozen fits while it states one: on the tiny board (the hidden set its test part less one
row) the record's mean MAPE was 36.04 % where the five states earn 38.80 when seed 0 replayed, 38.95 / 36.50 /
43.70 / 37.95 when seed 1 / 2 / 3 / 4 did (38.63 averaged over the secret draw: an ensemble's gain). Now the replay runs after the hidden seeds
(``submit._predictions``): what it leaves reaches no scored run.
"""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pyarrow.parquet as pq
import pytest

from perfgraphs.leaderboard import submit
from relay_round import SEEDS
from test_leaderboard_review_63b import _predict
from test_leaderboard_review_70b import relaying_ridge
from test_leaderboard_review_72b import run_submission
from test_submit import BOARD, env, numpy_mape, parts, run_cli  # noqa: F401 — fixtures

W, Q, STEP = 32, 0.01, 32  # the level: round(level / Q) modulo W, as the band (STEP batches of 1024) of the counter

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None,
                                reason="a hidden board's runs drop the caches and freezing runs in the sandbox")

LOADED = "        self.loaded_level = float(state['intercept'])\n"


def _in_predict(n_public: int) -> str:
    """The attack, at the start of predict (once a run): in a run that loaded a state (not a freeze), on the
    public test part's rows leave this state's level in the counter's band; on any other rows read the
    band and predict with the mean of that level and this state's own."""
    return (
        "        import os as _o\n"
        "        if getattr(self, 'loaded_level', None) is not None and not getattr(self, 'relayed', False):\n"
        "            self.relayed = True\n"
        f"            W, Q, STEP, N = {W}, {Q}, {STEP}, {n_public}\n"
        "            def counter():\n"
        "                top = 0\n"
        "                for _ in range(2100):\n"
        "                    a, b = _o.pipe(); top = max(top, _o.fstat(a).st_ino); _o.close(a); _o.close(b)\n"
        "                return top // 1024\n"
        "            own, M = self.loaded_level, W * STEP\n"
        "            r = round(own / Q)\n"
        "            try:\n"
        "                if len(graphs) == N:  # the replay: leave this level at the start of its band\n"
        "                    want = (r % W) * STEP + 2\n"
        "                    for _ in range(4):\n"
        "                        now = counter() % M\n"
        "                        if 0 <= now - want <= 4:\n"
        "                            break\n"
        "                        for _ in range(((want - now) % M) * 1024):\n"
        "                            a, b = _o.pipe(); _o.close(a); _o.close(b)\n"
        "                else:  # a hidden run: the replay's level, mixed with this seed's\n"
        "                    d = (counter() % M // STEP - r) % W\n"
        "                    self.intercept_ = ((r + (d - W if d >= W // 2 else d)) * Q + own) / 2\n"
        "            except OSError:\n"
        "                pass\n"
    )


def _leave_band(band: int) -> None:
    """Leave the pipe-inode counter at the start of ``band`` (as the attack's replay leaves its level), so
    that a hidden seed that reads it before any replay reads a level that is no seed's."""
    def counter() -> int:
        top = 0
        for _ in range(2100):
            a, b = os.pipe()
            top = max(top, os.fstat(a).st_ino)
            os.close(a)
            os.close(b)
        return top // 1024
    want, m = band * STEP + 2, W * STEP
    for _ in range(4):
        now = counter() % m
        if 0 <= now - want <= 4:
            return
        for _ in range(((want - now) % m) * 1024):
            a, b = os.pipe()
            os.close(a)
            os.close(b)


def _replay_first(monkeypatch) -> None:
    """The guard off: the order before this pass, the replay (one seed's state predicting the public test
    part) run as soon as the frozen fits are read, before the hidden seeds."""
    read, replay = submit._read_frozen, submit._frozen_replay_problems

    def read_then_replay(sub, scoring, data, test, opts, problems):
        frozen = read(sub, scoring, data, test, opts, problems)
        if frozen is not None:
            problems += replay(sub, scoring, data, opts, frozen, submit._input_columns(scoring.board), True)
        return None if problems else frozen
    monkeypatch.setattr(submit, "_read_frozen", read_then_replay)
    monkeypatch.setattr(submit, "_replay_after_the_scored_runs", lambda *args, **kwargs: [])


def _spy_replays(monkeypatch, drawn: list) -> None:
    """``drawn`` gets the seed of each replay run (a spy: every run goes on unchanged)."""
    run_code = submit._run_code

    def spy(sub, runs, test, target, opts, *args, **kwargs):
        if opts.hidden_labels is None:
            drawn.append(opts.seeds[0])
        return run_code(sub, runs, test, target, opts, *args, **kwargs)
    monkeypatch.setattr(submit, "_run_code", spy)


def test_the_replay_hands_no_hidden_seed_its_fit(env, parts, capsys, git_commitments, monkeypatch):  # noqa: F811
    """Attack: the replay leaves its seed's level in the pipe-inode counter, and each hidden seed predicts
    with the mean of that level and its own. Now the replay runs after the hidden seeds, which read only
    what was there before (here a band no seed's level is in): no seed scores the mix with the replay's
    fit. Control (the same freeze): with the replay run first, every seed other than the replay's scored
    exactly the mean of its own level and the replay seed's, the run again included, and got a record."""
    commitments, commit = git_commitments
    n = len(parts.test["latency_ms"])
    sub = relaying_ridge(env["tmp"] / "sub", LOADED, "ridge-replay-relay", _in_predict(n))
    frozen = commitments.parent / "frozen" / "sub"
    run_submission(sub, env, capsys, "--freeze", str(frozen), memory_mb=None)
    commit("frozen fits")
    keeper = env["tmp"] / "keeper"  # the hidden set: the test part less its last row (new rows in a real round)
    keeper.mkdir()
    monkeypatch.setenv("PERFGRAPHS_HIDDEN_DIR", str(keeper))
    pq.write_table(parts.test.data.table.slice(0, n - 1), keeper / "dippm-cpu-torch-fp32.parquet")
    rc, _ = run_cli(["leaderboard", "commit-hidden", "--dataset", "dippm", "--config", "cpu-torch-fp32",
                     "--commitments", str(commitments)], capsys)
    assert rc == 0
    commit()
    states = {s: dict(np.load(frozen / f"seed-{s}.npz", allow_pickle=False)) for s in SEEDS}
    y = np.asarray(parts.test["latency_ms"], dtype=float)[:n - 1]
    levels = {s: float(states[s]["intercept"]) for s in SEEDS}
    bands = {round(level / Q) % W for level in levels.values()}
    assert len(bands) > 1  # the fits differ: a mix shows

    def mixed(r: int) -> dict[int, float]:  # each seed's MAPE when it predicts with its level mixed with r's
        return {s: numpy_mape(y, _predict({**states[s], "intercept": np.asarray(
            (round(levels[r] / Q) * Q + levels[s]) / 2)}, parts.test)[:n - 1]) for s in SEEDS}
    hidden = ("--hidden-labels", "--frozen", str(frozen))

    drawn: list[int] = []
    _spy_replays(monkeypatch, drawn)
    _leave_band(next(b for b in range(W) if all(min((b - c) % W, (c - b) % W) > 2 for c in bands)))
    results = env["results"] / "dippm.jsonl"
    results.unlink(missing_ok=True)
    rc, err = run_cli(["submit", str(sub), *BOARD, "--quick", *hidden, "--results", str(env["results"]),
                       "--no-mlflow"], capsys)
    (r,) = drawn
    if rc == 0:  # a record: no seed heard from the replay's
        got = {s["seed"]: s["mape_pct"] for s in json.loads(results.read_text())["per_seed"]}
        assert not any(got[s] == pytest.approx(m, rel=1e-9) for s, m in mixed(r).items() if s != r), (r, got)

    _replay_first(monkeypatch)
    drawn.clear()
    record = run_submission(sub, env, capsys, *hidden, memory_mb=None)
    (r,) = drawn
    got = {s["seed"]: s["mape_pct"] for s in record["per_seed"]}
    assert record["tier"] == "verified" and record["frozen_fit"]
    assert got == pytest.approx(mixed(r), rel=1e-9), (r, got)

