"""Ninety-sixth adversarial pass (2026-12-06), side a (the sandbox's seccomp filter): what the filter
compares, and sockets the sandbox does not need.

1. The filter refused evicting a read-only bind's pages from the host's page cache (``posix_fadvise``
   DONTNEED, ``madvise`` COLD/PAGEOUT: ``confine.ARGUMENT_RULES``, the red team's second round) by comparing
   the advice with ``SCMP_CMP_EQ``, on all 64 bits of the register; the kernel reads the advice as a C
   ``int``, its low 32 bits. ``fadvise64(fd, 0, 0, (1 << 32) | 4)`` passed the filter and the kernel
   evicted: on this VM (ext4) the 1,024 resident pages of a 4 MB file read in the sandbox went to 0, so
   the write-once page-cache channel between runs was rewritable again. Now every comparison with an int
   argument is on its low 32 bits (``confine.int_argument_is``).
2. The ninety-fourth pass (side a) found that on a cgroup v1 hierarchy the buffers of the sandbox's
   loopback TCP sockets are charged to no counter the record reads and to no limit: a predictor kept
   404 MB in its own connections' queues under a 300 MB ``--memory-mb`` and was stated a 139 MB peak; the
   ridge example holding 600 MB so was recorded with 137 MB, its page saying "the memory cgroup's peak,
   every page of the run". The sandbox has no network to reach, so the filter now refuses ``socket`` and
   ``socketpair`` of every family but AF_UNIX (whose buffers are charged:
   ``tests/test_leaderboard_redteam_sandbox.py``), whatever the higher bits (``confine.SOCKET_CALLS``).

Each test's control runs the same code under the filter compiled as before."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from perfgraphs.leaderboard.sandbox import confine, isolation
from test_leaderboard_redteam import log_lines, run_predictor
from test_sandbox_escape import _cgroups
from test_leaderboard_adversarial import env, parts  # noqa: F401 — fixtures

pytestmark = [pytest.mark.skipif(isolation.unavailable_reason() is not None or shutil.which("bwrap") is None,
                                 reason=f"no isolation here: {isolation.unavailable_reason()}"),
              pytest.mark.skipif(confine.seccomp_unavailable_reason() is not None,
                                 reason=f"no seccomp here: {confine.seccomp_unavailable_reason()}")]

# raw system calls with ctypes, so that nothing but the filter and the kernel decides: {call: 0 or errno}
CALLS = """
import ctypes, json, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
L = ctypes.c_long
SYS_FADVISE64, SYS_SOCKET, HIGH = 221, 41, 1 << 32

def result(rc):
    return 0 if rc >= 0 else ctypes.get_errno()

fd = os.open(os.__file__, os.O_RDONLY)  # a file of a read-only bind, in the host's page cache
out = {"fadvise_dontneed": result(libc.syscall(L(SYS_FADVISE64), L(fd), L(0), L(0), L(4))),
       "fadvise_dontneed_high_bits": result(libc.syscall(L(SYS_FADVISE64), L(fd), L(0), L(0), L(HIGH | 4)))}
for name, family in (("inet", 2), ("inet6", 10), ("inet_high_bits", HIGH | 2), ("unix", 1)):
    out["socket_" + name] = result(libc.syscall(L(SYS_SOCKET), L(family), L(1), L(0)))
print("RESULT", json.dumps(out), flush=True)
"""


def _in_the_sandbox(tmp_path) -> dict:
    dirs = {p: tmp_path / p for p in ("job", "inbox", "code", "submission")}
    for d in dirs.values():
        d.mkdir(parents=True, exist_ok=True)
        d.chmod(0o755)
    fd = confine.seccomp_fd()
    try:
        argv = isolation.command(isolation.SandboxPaths(**dirs), [sys.executable, "-c", textwrap.dedent(CALLS)], fd)
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=isolation.outer_environment(),
                              pass_fds=(fd,), start_new_session=True)
    finally:
        os.close(fd)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.split("RESULT", 1)[1].splitlines()[0])


# the control's filter: whole-register comparisons, sockets of any family (as before this pass)
FILTER_AS_BEFORE = {"int_argument_is": lambda arg, value: confine._ArgCmp(arg, 4, value, 0), "SOCKET_CALLS": ()}


def test_an_int_argument_is_compared_as_the_kernel_reads_it(tmp_path, weakened_filter):
    now = _in_the_sandbox(tmp_path / "now")
    assert now["fadvise_dontneed"] != 0 and now["fadvise_dontneed_high_bits"] != 0, now
    assert now["socket_inet"] != 0 and now["socket_inet6"] != 0 and now["socket_inet_high_bits"] != 0, now
    assert now["socket_unix"] == 0, now  # what multiprocessing and asyncio use still works

    weakened_filter(**FILTER_AS_BEFORE)
    before = _in_the_sandbox(tmp_path / "before")
    assert before["fadvise_dontneed"] != 0, before  # the plain advice was refused
    # the kernel took the high-bit advice as DONTNEED (an advice it did not know would be EINVAL)
    assert before["fadvise_dontneed_high_bits"] == 0, before
    assert before["socket_inet"] == 0 and before["socket_inet_high_bits"] == 0, before


HELD_MB = 600
HOLD = f"""
def attack(model):
    import socket as _socket
    _srv = _socket.socket(); _srv.bind(('127.0.0.1', 0)); _srv.listen(64)
    _held, _total, _chunk = [], 0, b'x' * (1 << 20)
    while _total < {HELD_MB} << 20:
        _a = _socket.socket(); _a.setsockopt(_socket.SOL_SOCKET, _socket.SO_SNDBUF, 4 << 20)
        _a.connect(_srv.getsockname()); _b, _ = _srv.accept()
        _b.setsockopt(_socket.SOL_SOCKET, _socket.SO_RCVBUF, 4 << 20); _a.setblocking(False)
        try:
            while True:
                _total += _a.send(_chunk)
        except BlockingIOError:
            pass
        _held.append((_a, _b))
    model.held_sockets = _held
    print('HELD', _total >> 20, flush=True)
"""


def _v1_memory_cgroup() -> bool:
    with confine.Confinement(64, name="probe96a") as box:
        return box.available and box.version == 1


@pytest.mark.skipif(not _cgroups(), reason="no memory cgroup here")
def test_memory_kept_in_loopback_sockets_is_not_a_way_around_the_peak(env, parts, weakened_filter):  # noqa: F811
    out, log, _ = run_predictor(env, parts, "socket-hoard", HOLD)
    assert isinstance(out, Exception) and "Operation not permitted" in str(out), out  # no socket to open
    assert not log_lines(log, "HELD")

    if not _v1_memory_cgroup():
        return  # version 2 charges socket buffers to the cgroup: the control's understatement is v1's
    weakened_filter(**FILTER_AS_BEFORE)
    out, log, _ = run_predictor(env, parts, "socket-hoard-before", HOLD)
    assert not isinstance(out, Exception), out
    assert int(log_lines(log, "HELD")[0]) >= HELD_MB
    assert out.confinement == "bubblewrap+cgroup+seccomp" and out.peak_memory_mb < HELD_MB, out.peak_memory_mb
