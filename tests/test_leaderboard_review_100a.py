"""Hundredth adversarial pass (2026-12-06), side a (kernel memory a sandbox holds outside its cgroup): seccomp
filters a predictor stacks on its own threads.

The sandbox's filter refused what reaches shared state, but not ``seccomp(2)`` nor ``prctl(PR_SET_SECCOMP)``,
and bubblewrap sets no_new_privs, so a predictor could install filters of its own, each thread up to the
kernel's 32,768 instructions (seven filters of 4,095). Of a filter's kernel memory only the translated program
is charged to the memory cgroup: the copy of the classic program (kmalloc, kept for checkpoint/restore) and its
machine code (the JIT is forced on, ``CONFIG_BPF_JIT_ALWAYS_ON``; executable memory from a pool of the whole
machine, ``/proc/sys/net/core/bpf_jit_limit``) are not. On this VM (cgroup v1, kernel 6.18), through
``run_seed`` under a 256 MB ``--memory-mb``: 150 threads stacked 1,050 filters of 4,095 instructions (each an
``A /= 3``, some twenty bytes of machine code), the host's unreclaimable slab and vmalloc use grew by 133 MB
while the seed ran and the cgroup stated a 181 MB peak. Measured apart on the host (the same 150 threads in a
memory cgroup of their own): the 1,050 filters took 116 MB of the host's free memory and the cgroup was charged
45 MB (6 of them the threads' own), so about 70 MB, some 68 kB a filter, was held that no limit counted (slab
35 MB: the classic copies; vmalloc 97 MB: the JIT code and the charged translated programs). 490 threads grew
the host's slab and vmalloc use by 372 MB before the cgroup stopped them at the limit. A --memory-mb of a few GB
lets one seed stack filters whose JIT code nears the machine's 528 MB ``bpf_jit_limit`` (not tried here).

Now the sandbox's filter refuses both calls (``confine._no_stacked_filters``). The control compiles the filter
without them and runs the same predictor.
"""

from __future__ import annotations

import pytest

from perfgraphs.leaderboard.sandbox import isolation
from test_leaderboard_redteam import log_lines
from test_leaderboard_review_97a import _run_watching
from test_sandbox_escape import _cgroups
from test_leaderboard_adversarial import env, parts  # noqa: F401 — fixtures

import test_leaderboard_review_97a as review_97a

pytestmark = [pytest.mark.skipif(isolation.unavailable_reason() is not None,
                                 reason=f"no isolation here: {isolation.unavailable_reason()}"),
              pytest.mark.skipif(not _cgroups(), reason="no memory cgroup here")]

LIMIT_MB = review_97a.LIMIT_MB  # 256
HOARD = """
def attack(model):
    import ctypes, threading
    libc = ctypes.CDLL(None, use_errno=True)
    class Insn(ctypes.Structure):
        _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]
    class Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Insn))]
    # ld [0]; 4,093 times A /= 3; ret ALLOW: the longest classic program, its machine code long too
    _n = 4095
    _insns = (Insn * _n)(*([Insn(0x20, 0, 0, 0)] + [Insn(0x34, 0, 0, 3)] * (_n - 2) + [Insn(0x06, 0, 0, 0x7fff0000)]))
    _prog = Prog(_n, _insns)
    _counts, _errors, _done = [], [], threading.Event()

    def _stack():  # prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) until the kernel's 32,768 per thread
        _count = 0
        while libc.prctl(22, 2, ctypes.byref(_prog), 0, 0) == 0:
            _count += 1
        _counts.append(_count)
        _errors.append(ctypes.get_errno())
        _done.wait()
    _threads = [threading.Thread(target=_stack, daemon=True) for _ in range(150)]
    for _t in _threads:
        _t.start()
    while len(_counts) < len(_threads):
        time.sleep(0.05)
    print('FILTERS', sum(_counts), len(_threads), sorted(set(_errors)), flush=True)
    time.sleep(0.5)  # held while the host looks (it samples every 20 ms)
    _done.set()
"""


def test_a_predictor_stacks_no_seccomp_filter(env, parts, monkeypatch, weakened_filter):  # noqa: F811
    monkeypatch.setattr(review_97a, "HOARD", HOARD)
    out, log, _ = _run_watching(env, parts, "filter-hoard")
    assert not isinstance(out, Exception), out
    assert log_lines(log, "FILTERS") == ["0 150 [1]"], log_lines(log, "FILTERS")  # EPERM, every thread

    weakened_filter(_no_stacked_filters=lambda: [])
    out, log, grown_mb = _run_watching(env, parts, "filter-hoard-before")
    assert not isinstance(out, Exception), out
    assert int(log_lines(log, "FILTERS")[0].split()[0]) >= 1000, log_lines(log, "FILTERS")
    assert out.confinement == "bubblewrap+cgroup+seccomp", out.confinement
    # the kernel's slab and vmalloc use grew with the filters (133 MB on the Intel VM, about 70 MB of it charged to
    # no cgroup, beside a 181 MB stated peak under the 256 MB limit); a quarter of the limit, so another machine's
    # kernel or a busy host passes too
    assert grown_mb > LIMIT_MB / 4 and out.peak_memory_mb < LIMIT_MB, (grown_mb, out.peak_memory_mb)
