"""Hundred-and-first adversarial pass (2026-12-07), side a (machine-wide pools a sandbox can exhaust): the kernel's
pool of native asynchronous I/O events.

The sandbox's filter refused io_uring but not the older native AIO calls, and ``io_setup(2)`` takes its events from
one pool of the whole machine (``/proc/sys/fs/aio-max-nr``, 65,536 here, ``aio-nr`` what is taken), which no
cgroup, no uid and no namespace divides and no capability exempts. On this VM (cgroup v1, kernel 6.18) one call of a
predictor, ``io_setup(65536)``, took all of it through ``run_seed`` under a 256 MB ``--memory-mb`` (15 MB charged
to its cgroup: the ring's pages); while the seed ran, every other process of the host, the root harness itself
included, was refused ``io_setup`` with EAGAIN, so a rival's run on a shared scoring machine (DeepSpeed's NVMe
offload, any libaio reader) and the host's own services (InnoDB, qemu) failed for as long as the seed chose to
live. The pool comes back when the sandbox's processes die (``aio-nr`` 0 after the seed: the next seed starts
cleanly), so the harm lasts a seed's time limit, 30 minutes by default.

Now the sandbox's filter refuses ``io_setup`` (``confine._no_native_aio``): without a context no other AIO call does
anything. The control compiles the filter without the rule and runs the same predictor.

Leads of the same pass that found no such pool (see the pass's report): inotify instances and watches are per host
uid, so shared by every sandbox, but their memory is charged (124,721 watches on ``/usr``: 373 MB charged, 19 MB of
unreclaimable slab) and the pool is freed when the sandbox ends.
"""

from __future__ import annotations

import ctypes
import platform
import threading

import pytest

from perfgraphs.leaderboard.sandbox import isolation
from perfgraphs.leaderboard.sandbox.harness import Limits
from test_leaderboard_redteam import log_lines, run_predictor
from test_sandbox_escape import _cgroups
from test_leaderboard_adversarial import env, parts  # noqa: F401 — fixtures

IO_SETUP, IO_DESTROY = {"x86_64": (206, 207), "aarch64": (0, 1)}.get(platform.machine(), (None, None))

pytestmark = [pytest.mark.skipif(isolation.unavailable_reason() is not None,
                                 reason=f"no isolation here: {isolation.unavailable_reason()}"),
              pytest.mark.skipif(not _cgroups(), reason="no memory cgroup here"),
              pytest.mark.skipif(IO_SETUP is None, reason="io_setup's number unknown on this architecture")]

HOARD = f"""
def attack(model):
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    _held, _events = [], 0
    for _size in (1 << 20, 65536, 4096, 256, 16, 1):  # io_setup(n, &ctx) until the machine's pool is spent
        while True:
            _ctx = ctypes.c_ulong(0)
            if libc.syscall({IO_SETUP}, _size, ctypes.byref(_ctx)) != 0:
                break
            _held.append(_ctx)
            _events += _size
    print('AIO', _events, ctypes.get_errno(), flush=True)
    model.contexts = _held
    time.sleep(1 if _events else 0)  # held while the host tries (every 50 ms)
"""


def _host_refused(done: threading.Event) -> list[int]:
    """Meanwhile, this (root) process asks for one event now and then; the errnos of its refusals."""
    libc = ctypes.CDLL(None, use_errno=True)
    refused = []
    while not done.wait(0.05):
        ctx = ctypes.c_ulong(0)
        if libc.syscall(IO_SETUP, 1, ctypes.byref(ctx)) != 0:
            refused.append(ctypes.get_errno())
        else:
            libc.syscall(IO_DESTROY, ctx)
    return refused


def _run_trying(env, parts, name):  # noqa: F811 — fixtures as arguments
    """run_predictor while the host asks for AIO contexts: (SeedOutput or exception, log, the host's refusals)."""
    done, refused = threading.Event(), []
    trier = threading.Thread(target=lambda: refused.extend(_host_refused(done)), daemon=True)
    trier.start()
    try:
        out, log, _ = run_predictor(env, parts, name, HOARD, Limits(time_limit_s=120, memory_mb=256))
    finally:
        done.set()
        trier.join()
    return out, log, refused


def test_a_predictor_takes_no_aio_events_from_the_machine(env, parts, weakened_filter):  # noqa: F811
    out, log, refused = _run_trying(env, parts, "aio-hoard")
    assert not isinstance(out, Exception), out
    assert log_lines(log, "AIO") == ["0 1"], log_lines(log, "AIO")  # EPERM at the first call
    assert refused == [], refused

    weakened_filter(_no_native_aio=lambda: [])
    out, log, refused = _run_trying(env, parts, "aio-hoard-before")
    assert not isinstance(out, Exception), out
    assert out.confinement == "bubblewrap+cgroup+seccomp", out.confinement
    events, err = map(int, log_lines(log, "AIO")[0].split())
    # the machine's whole pool (65,536 events on the Intel VM), then EAGAIN; the root harness refused meanwhile
    assert events >= int(open("/proc/sys/fs/aio-max-nr").read()) // 2 and err == 11, (events, err)
    assert refused and set(refused) == {11}, refused
    assert int(open("/proc/sys/fs/aio-nr").read()) == 0  # given back when the sandbox ended
