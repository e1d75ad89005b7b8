"""Another run's view of the host's per-uid pools while a sandboxed predictor holds them (passes 103a and 104a):
a forked child of the test, as the host uid another sandbox would run as, tries the pools every 20 ms while a
predictor runs, and says what it saw."""

from __future__ import annotations

import ast
import os
import time
from typing import Callable

from perfgraphs.leaderboard.sandbox.harness import Limits
from test_leaderboard_redteam import run_predictor


def fork_trier(ids: tuple[int, int] | None, attempt: Callable[[set], None]) -> tuple[int, int, int]:
    """A child of this process as host uid and gid ``ids`` (None: this process's) calling ``attempt(seen)`` every
    20 ms until its pipe from us closes, then writing ``sorted(seen)``: (pid, the pipe's end to close, the read end
    of the answer). ``ids`` may be a callable of the child's pid (a uid the launcher derives from its own pid)."""
    go_r, go_w = os.pipe()
    out_r, out_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover — the child
        try:
            os.close(go_w)
            os.close(out_r)
            if callable(ids):
                ids = ids(os.getpid())
            if ids is not None:
                os.setgroups([])
                os.setresgid(ids[1], ids[1], ids[1])
                os.setresuid(ids[0], ids[0], ids[0])
            os.set_blocking(go_r, False)
            seen: set = set()
            while True:
                attempt(seen)
                time.sleep(0.02)
                try:
                    if os.read(go_r, 1) == b"":
                        break
                except BlockingIOError:
                    pass
            os.write(out_w, repr(sorted(seen)).encode())
        finally:
            os._exit(0)
    os.close(go_r)
    os.close(out_w)
    return pid, go_w, out_r


def answer(pid: int, go: int, result: int) -> list:
    """Stop the trier and read what it saw."""
    os.close(go)
    seen = ast.literal_eval(os.read(result, 4096).decode() or "[]")
    os.close(result)
    os.waitpid(pid, 0)
    return seen


def run_trying(env, parts, name: str, attack: str, ids, attempt: Callable[[set], None]):
    """run_predictor (``attack`` under a 256 MB limit) while the trier tries: (SeedOutput or exception, log, what the
    trier saw)."""
    trier = fork_trier(ids, attempt)
    try:
        out, log, _ = run_predictor(env, parts, name, attack, Limits(time_limit_s=120, memory_mb=256))
    finally:
        seen = answer(*trier)
    return out, log, seen
