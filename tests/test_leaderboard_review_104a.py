"""Hundred-and-fourth adversarial pass (2026-12-07), side a (per-uid pools): pipe pages and queued signals, which the
kernel counts per host uid, and every sandbox of a root harness ran as one host uid.

A root harness started every sandbox as ``isolation.sandbox_user`` (1999999); the hundred-and-third pass refused the
inotify, fanotify and message-queue pools in the filter and left two others open. On this VM (cgroup v1, kernel 6.18)
a predictor under a 256 MB ``--memory-mb`` opened, through ``run_seed``, 64 pipes and set each to 1 MB
(``F_SETPIPE_SZ``, ``fs.pipe-max-size``): the 16,384 pages of ``fs.pipe-user-pages-soft`` (the pipes stay empty:
only their slot arrays, some 640 kB by their size, not measured), the 65th refused with EPERM; then it queued 96,367
real-time signals to its own blocked thread (``pthread_sigqueue``; ``RLIMIT_SIGPENDING`` 96,367). While its seed ran,
a process of the sandbox's host uid outside it (to the kernel, what another team's sandbox is) got new pipes of 8,192
bytes instead of 65,536 (two pages: 512 MB streamed between two processes took 0.16-0.21 s through such a pipe, 0.08 s
through a whole one, on this loaded VM), was refused ``F_SETPIPE_SZ`` with EPERM and ``timer_create`` with EAGAIN.
The pools come back when the seed's processes die, so the harm lasts a seed's time limit. Neither can be refused
in the filter without refusing pipes and signals.

Now each sandbox runs as a host uid of its own: the launcher adds its pid to the base uid
(``isolation.per_run_host_user``, ``launch.host_id``), unique among live sandboxes because bubblewrap keeps the
launcher's pid and the sandbox dies with it (``--die-with-parent``); that closes every per-uid pool at once (pipe
pages, signals, and the inotify/mq pools of pass 103a behind its filter rule). The trier here takes the uid the
launcher would give another run (the base plus the trier's pid, or the base itself when the guard is off). The control
switches ``per_run_host_user`` back to the one shared uid and runs the same predictor.

Not tried: ``fs.file-max`` (the sandbox's 20,000 files a process with 512 tasks), ``pid_max``/``threads-max`` (capped
by the 512 tasks of the cgroup), ``vmsplice``/``mlock``/page tables/dentries as kernel memory outside the cgroup;
harness processes and pipes are root's (uid 0 is exempt from the pipe and signal pools, and counted apart).
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os

import pytest

from perfgraphs.leaderboard.sandbox import isolation
from host_user_trier import run_trying
from test_leaderboard_redteam import log_lines
from test_sandbox_escape import _cgroups
from test_leaderboard_adversarial import env, parts  # noqa: F401 — fixtures

pytestmark = [pytest.mark.skipif(isolation.unavailable_reason() is not None,
                                 reason=f"no isolation here: {isolation.unavailable_reason()}"),
              pytest.mark.skipif(not _cgroups(), reason="no memory cgroup here")]

F_SETPIPE_SZ, F_GETPIPE_SZ = 1031, 1032

HOARD = """
def attack(model):
    import ctypes, fcntl, signal
    libc = ctypes.CDLL(None, use_errno=True)
    _pipes, _err = [], 0
    while len(_pipes) < 1000:
        _r, _w = os.pipe()
        _pipes.append((_r, _w))
        try:
            fcntl.fcntl(_w, 1031, 1 << 20)  # F_SETPIPE_SZ: 256 pages, pipe-max-size
        except OSError as _e:
            _err = _e.errno
            break
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGRTMIN])
    libc.pthread_self.restype = ctypes.c_ulong
    _me, _queued = libc.pthread_self(), 0
    libc.pthread_sigqueue.argtypes = [ctypes.c_ulong, ctypes.c_int, ctypes.c_void_p]
    while _queued < 10 ** 6 and libc.pthread_sigqueue(_me, signal.SIGRTMIN, None) == 0:
        _queued += 1
    print('POOLS', len(_pipes) - (_err != 0), _err, _queued, flush=True)
    model.held = _pipes
    time.sleep(0.5 if _queued else 0)
"""


def _try_once(seen: set) -> None:
    """Open a pipe, note its size, ask it for 64 kB and create a POSIX timer; note each refusal's errno."""
    libc = ctypes.CDLL(None, use_errno=True)
    r, w = os.pipe()
    seen.add(("pipe", fcntl.fcntl(w, F_GETPIPE_SZ)))
    try:
        fcntl.fcntl(w, F_SETPIPE_SZ, 1 << 16)
    except OSError as e:
        seen.add(("setsize", e.errno))
    os.close(r)
    os.close(w)
    timer = ctypes.c_void_p()
    if libc.timer_create(1, None, ctypes.byref(timer)) != 0:
        seen.add(("timer", ctypes.get_errno()))
    else:
        libc.timer_delete(timer)


def _another_runs_ids(user):
    """The host uid and gid the launcher would give another run started by a process of ``pid``: as
    ``per_run_host_user`` and ``launch.host_id`` make them (before this pass: the one shared uid)."""
    if user is None:
        return None
    args = isolation.per_run_host_user(user)
    return lambda pid: tuple(int(a[1:]) + pid if a.startswith("+") else int(a) for a in args)


def _run_trying(env, parts, name):  # noqa: F811 — fixtures as arguments
    """run_predictor while another run's host user opens pipes and timers outside: (SeedOutput or exception, log,
    what it saw)."""
    return run_trying(env, parts, name, HOARD, _another_runs_ids(isolation.sandbox_user()), _try_once)


def test_a_predictor_takes_no_per_user_pool_from_other_runs(env, parts, monkeypatch):  # noqa: F811
    out, log, seen = _run_trying(env, parts, "uid-pools")
    assert not isinstance(out, Exception), out
    _assert_held(log)  # the predictor still fills its own uid's pools...
    assert seen == [("pipe", 65536)], seen  # ...but another run's pipes whole, its timers made

    # the control: every sandbox as the one host uid, as before
    monkeypatch.setattr(isolation, "per_run_host_user", lambda user: (str(user[0]), str(user[1])))
    out, log, seen = _run_trying(env, parts, "uid-pools-before")
    assert not isinstance(out, Exception), out
    assert out.confinement == "bubblewrap+cgroup+seccomp", out.confinement
    _assert_held(log)
    # another run's new pipes of 2 pages meanwhile, a bigger size and a timer refused
    assert ("pipe", 8192) in seen and ("setsize", errno.EPERM) in seen and ("timer", errno.EAGAIN) in seen, seen


def _assert_held(log) -> None:
    """The predictor held the pools: 64 pipes of 1 MB (16,384 pages), then EPERM, and 96,367 signals on the VM."""
    pipes, err, signals = map(int, log_lines(log, "POOLS")[0].split())
    assert pipes >= 16 and err == errno.EPERM and signals >= 1024, log_lines(log, "POOLS")
