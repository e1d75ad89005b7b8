"""Run a function in a fresh process with a timeout, classifying every way it can die.

A fork server that has already imported torch/timm/onnxruntime forks each worker, so a worker
starts in milliseconds yet shares nothing mutable with earlier ones (the server itself never runs
a tensor operation, so no thread pool exists at fork time). Every worker first binds its life to
the campaign's (:mod:`perfgraphs.collect.lifeline`): a killed campaign leaves no worker running.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import signal
import sys
import types
from dataclasses import dataclass

from perfgraphs.collect.lifeline import CAMPAIGN_ENV, bind_to_campaign

# lifeline first: the server binds its life to the campaign's as early as it can
PRELOAD = ["perfgraphs.collect.lifeline", "torch", "timm", "torchvision", "onnxruntime",
           "perfgraphs.collect.worker", "perfgraphs.graph"]
_CTX = None


def context():
    global _CTX
    if _CTX is None:
        _CTX = mp.get_context("forkserver")
        _CTX.set_forkserver_preload(PRELOAD)
    return _CTX


@dataclass
class Outcome:
    value: object | None
    status: str  # "ok" | "timeout" | "killed" | "crashed"
    message: str = ""


@contextlib.contextmanager
def _main_not_rerun():
    """While a worker starts: a ``__main__`` without file or spec, so that multiprocessing does not
    run the host's main script again in the worker (``spawn.prepare`` does, as ``__mp_main__``).
    Nothing a worker runs lives there; a Ray worker's main script imports Ray, which cost each
    measuring worker about a second, and pytest's imports pytest."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if main is None or (spec is not None and spec.name.endswith("__main__")) or not getattr(main, "__file__", None):
        yield  # nothing to re-run (python -m perfgraphs: multiprocessing skips a __main__ module)
        return
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = main


def _bound(campaign_pid: int, env: dict[str, str] | None, target, *args) -> None:
    """The worker's entry point: die with the campaign, set ``env``, then run ``target``."""
    bind_to_campaign(campaign_pid)
    os.environ.update(env or {})
    target(*args)


def run_isolated(target, args: tuple, timeout_s: float, env: dict[str, str] | None = None) -> Outcome:
    """``env``: variables the worker sets before running ``target``. The fork server keeps the
    environment it started with, so what changes between calls (the GPU a Ray task was given,
    ``CUDA_VISIBLE_DEVICES``) must travel with each call."""
    ctx = context()
    receive, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_bound, args=(os.getpid(), env, target, send, *args), daemon=True)
    # read by the fork server if this start launches it (lifeline.guard_fork_server); set only
    # meanwhile, so that no other child of this process mistakes itself for the fork server
    os.environ[CAMPAIGN_ENV] = str(os.getpid())
    try:
        with _main_not_rerun():
            proc.start()
    finally:
        os.environ.pop(CAMPAIGN_ENV, None)
    send.close()
    value = None
    try:
        if receive.poll(timeout_s):
            try:
                value = receive.recv()
            except EOFError:
                value = None
    finally:
        receive.close()
    if value is not None:
        proc.join(30)
        if proc.is_alive():
            proc.kill()
            proc.join()
        return Outcome(value, "ok")
    if proc.is_alive():
        proc.kill()
        proc.join()
        return Outcome(None, "timeout", f"timed out after {timeout_s:g} s")
    proc.join()
    code = proc.exitcode
    if code is not None and code < 0:
        name = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else str(-code)
        if -code == signal.SIGKILL:
            return Outcome(None, "killed", "worker killed by SIGKILL (most likely the out-of-memory killer)")
        return Outcome(None, "crashed", f"worker died by signal {name}")
    return Outcome(None, "crashed", f"worker exited with code {code} without a result")
