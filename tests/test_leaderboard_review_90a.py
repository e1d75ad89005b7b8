"""Ninetieth adversarial pass (2026-12-06), side a (measurements): CPU seconds without a cgroup.

A seed's CPU seconds in fit were read from the sandbox's cgroup where it has CPU accounting, and
otherwise from a sum over the live process tree (each process's own time plus its reaped children's).
A worker the kernel reaps for a parent that ignores SIGCHLD adds its time to no process of the tree.
With the cgroup off (``bubblewrap+seccomp``, as 8 committed records ran), the ridge example whose fit
forked two such workers, each burning 0.4 CPU seconds, was recorded by ``perfgraphs submit`` (five seeds)
with 0.15 CPU seconds in fit (the seeds' mean) where each seed's workers alone burned 0.8, and the board's
"CPU s in fit (cores)" column showed that number as measured; one seed of two workers burning 1.5 CPU
seconds each was stated 0.10 (the control). Now a seed's CPU seconds are read from the cgroup's accounting only
(``harness.cpu_clock``); without it they are not measured (None, "–" on the board), never a smaller number.

Leads read in the code and found closed (not run, no test): the fit clock starts at "ready", sent by the harness's child
after loading the data and before the submission is imported (import, ``__init__`` and any module-level
work are in *fit s*); the sandbox's processes die with it (PID namespace, ``--die-with-parent``, and the
cgroup's ``kill_all``), a double-forked worker included; a worker still running after "fit_done" moves
its CPU into *predict* (the rules' "moved, never hidden": its wall time is in predict s); the state a
freezing run sends is taken before "fit_done" (51b). Run time: about 13 s, 25 s with the fixtures' setup (one 5-seed submit and one seed in the sandbox).
"""

from __future__ import annotations

import json
import shutil

import pytest

from perfgraphs.leaderboard.records import results
from perfgraphs.leaderboard.sandbox import confine, harness
from perfgraphs.leaderboard.site.pages import _table
from test_leaderboard_redteam import run_predictor
from test_sandbox_escape import HIDE_CPU, needs_two_cores
from test_submit import BOARD, env, example_copy, parts, run_cli  # noqa: F401 — fixtures

BURN_S = 0.4  # CPU seconds each of the two workers burns

HIDDEN_WORKERS = (
    "        import os as _os, signal as _signal, time as _t\n"
    "        _signal.signal(_signal.SIGCHLD, _signal.SIG_IGN)  # the kernel reaps them: no time for this process\n"
    "        _pids = []\n"
    "        for _ in range(2):\n"
    "            _pid = _os.fork()\n"
    "            if _pid == 0:\n"
    f"                _end = _t.process_time() + {BURN_S}\n"
    "                while _t.process_time() < _end:\n"
    "                    pass\n"
    "                _os._exit(0)\n"
    "            _pids.append(_pid)\n"
    "        for _pid in _pids:  # wait without reaping\n"
    "            while True:\n"
    "                try:\n"
    "                    _os.kill(_pid, 0)\n"
    "                except ProcessLookupError:\n"
    "                    break\n"
    "                _t.sleep(0.01)\n"
    "        _signal.signal(_signal.SIGCHLD, _signal.SIG_DFL)\n"
)


def _with_hidden_workers(source: str) -> str:
    fit = "    def fit(self, train, val=None) -> \"Predictor\":\n"
    assert fit in source
    return source.replace(fit, fit + HIDDEN_WORKERS)


def _no_cgroup(monkeypatch) -> None:
    """A machine without a usable cgroup: the harness's Confinement finds none (and says why)."""
    def enter(self):
        self.why_not = "no cgroup in this test"
        return self
    monkeypatch.setattr(confine.Confinement, "__enter__", enter)


def _submitted(env, capsys, method: str) -> dict:
    sub = example_copy(env["tmp"] / method, method, _with_hidden_workers)
    rc, err = run_cli(["submit", str(sub), *BOARD, "--quick", "--results", str(env["results"]), "--no-mlflow"], capsys)
    assert rc == 0, err
    records = [json.loads(line) for line in (env["results"] / "dippm.jsonl").read_text().splitlines()]
    return next(r for r in records if r["method"].startswith(method))


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="the workers run in the sandbox")
def test_cpu_seconds_a_tree_sum_misses_are_not_stated_as_measured(env, parts, capsys, monkeypatch):
    _no_cgroup(monkeypatch)
    record = _submitted(env, capsys, "sigchld-workers")
    assert record["isolation"] == "bubblewrap+seccomp", record["isolation"]
    assert record["fit_cpu_seconds"] is None, record["fit_cpu_seconds"]  # the board shows "–", not a number
    assert all(s["fit_cpu_seconds"] is None and s["predict_cpu_seconds"] is None for s in record["per_seed"])
    table = _table([results.Entry(**record)], "mape_pct", "")
    assert "CPU s in fit (cores)" in table and "data-v='-1'>–</td>" in table  # the column's cell: not measured
    # control: the tree sum back on, one seed of two workers burning 1.5 CPU seconds each is stated with
    # a fraction of them (the record states the seeds' mean of this number)
    post_init = harness._SeedWatch.__post_init__

    def tree_sum_clock(watch) -> None:
        post_init(watch)
        watch.cpu_clock = lambda: harness._tree_cpu_seconds(harness._tree(watch.popen))

    monkeypatch.setattr(harness._SeedWatch, "__post_init__", tree_sum_clock)
    out, _, _ = run_predictor(env, parts, "sigchld-control", HIDE_CPU)
    assert not isinstance(out, Exception), out
    assert out.confinement == "bubblewrap+seccomp" and out.fit_cpu_seconds < 0.5, out.fit_cpu_seconds


WIDEN = """
def attack(model):
    os.sched_setaffinity(0, range(os.cpu_count()))  # refused under the seccomp filter (EPERM)
    print("AFFINITY", len(os.sched_getaffinity(0)), flush=True)
"""


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="the seed runs in the sandbox")
@needs_two_cores
def test_cores_are_stated_only_where_the_predictor_cannot_widen_them(env, parts, monkeypatch):
    """The pass's second lead: the predictor cannot widen the CPU set the harness pins it to because the
    seccomp filter refuses ``sched_setaffinity``; without libseccomp nothing refused it, and a seed that
    widened its set to every core was stated on the harness's one core (``cores`` 1). Now no core count
    is stated without the filter (``harness.stated_cores``). Control: stating the pinned set anyway."""
    import os

    from test_leaderboard_redteam import log_lines

    monkeypatch.setattr(confine, "seccomp_program", lambda: None)  # a machine without libseccomp
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(before)})  # the harness scores on one core: its own CPU set
    try:
        out, log, _ = run_predictor(env, parts, "widen", WIDEN)
        monkeypatch.setattr(harness, "stated_cores", lambda cores, seccomp: len(cores))  # control: the old rule
        control, control_log, _ = run_predictor(env, parts, "widen-control", WIDEN)
    finally:
        os.sched_setaffinity(0, before)
    assert not isinstance(out, Exception) and not isinstance(control, Exception), (out, control)
    assert log_lines(log, "AFFINITY") == [str(os.cpu_count())]  # it ran on every core
    assert out.confinement == "bubblewrap+cgroup" or out.confinement == "bubblewrap", out.confinement
    assert out.cores is None
    assert log_lines(control_log, "AFFINITY") == [str(os.cpu_count())] and control.cores == 1
