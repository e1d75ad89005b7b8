"""Hundred-and-fifth adversarial pass (2026-12-07), side a (the host uid per sandbox): a pid is unique only in its
own PID namespace, and the launcher made each sandbox's host uid from it.

Pass 104a gave each sandbox of a root harness the host uid 1999999 plus the launcher's pid (``launch.host_id``), so
that no two live sandboxes share the kernel's per-uid pools (pipe pages, queued signals). Two root harnesses in two
PID namespaces that share the host's uids (two containers of a CI runner, a keeper started with ``unshare --pid``)
number their processes alike from 1. Here two harnesses, each pid 1 of a fresh PID namespace (with its own ``/proc``),
each ran ``run_seed`` (an idle predictor), and each noted the host uids of its namespace's processes as it handed the
test inputs over: both sandboxes, alive in two namespaces at once, were host uid 2,000,001 (the launcher was pid 2 in
each, after the harness's pid 1), so the hoard of 104a (64 pipes of 1 MB, 96,367 queued signals) would again shrink the
other's pipes and refuse its timers. (The predictor cannot read its host uid: bubblewrap's nested user namespace maps
it to 0 in ``/proc/self/uid_map``.)

Now ``isolation.per_run_host_user`` moves the base by ``isolation.pid_namespace_offset``: 0 in the host's initial PID
namespace (unchanged there), else a stretch of 4,194,304 uids (the kernel's PID_MAX_LIMIT) chosen by the namespace's
inode number, unique among live namespaces. The two sandboxes here were then 1,423,869,057 and 1,436,451,969 (namespaces 339 and 342 past the initial one).
The control switches the offset off and finds the one shared uid again.

Tried and not found: pid reuse while a sandbox outlives its launcher (``harness._kill`` SIGKILLs the whole tree and
``Confinement`` waits for its cgroup to empty; ``kernel.pid_max`` is 32,768 here, and the keyrings are refused, the
writable places are fresh tmpfs and the IPC namespace is private, so nothing owned by the uid outlives the seed);
bytecode (a submission's ``.pyc`` is left out of its copy, ``harness.is_bytecode``). Not tried: a host file owned by a uid of the range (none
under /work or the venv here), ``fs.file-max``, vmsplice/mlock/page tables/dentries as uncharged kernel memory.
"""

from __future__ import annotations

import ctypes
import os

import pytest

from perfgraphs.leaderboard.sandbox import confine, harness, isolation
from test_leaderboard_redteam import run_predictor
from test_sandbox_escape import _cgroups
from test_leaderboard_adversarial import env, parts  # noqa: F401 — fixtures

pytestmark = [pytest.mark.skipif(isolation.unavailable_reason() is not None,
                                 reason=f"no isolation here: {isolation.unavailable_reason()}"),
              pytest.mark.skipif(isolation.sandbox_user() is None, reason="the harness is not root here"),
              pytest.mark.skipif(not _cgroups(), reason="no memory cgroup here")]

CLONE_NEWNS, CLONE_NEWPID = 0x00020000, 0x20000000
MS_REC, MS_PRIVATE = 0x4000, 0x40000

IDLE = """
def attack(model):
    pass
"""


def _spy_on_sandbox_uids() -> set[int]:
    """The host uids of every process of this PID namespace but root's (the sandbox's, its launcher's after the drop),
    noted as the harness hands the test inputs over (the sandbox is running then); only our namespace is in /proc."""
    import psutil

    uids: set[int] = set()
    hand_over = harness._hand_over

    def noting(*args, **kwargs):
        for p in psutil.process_iter():
            try:
                uids.add(p.uids().real)
            except psutil.Error:
                pass
        uids.discard(0)
        return hand_over(*args, **kwargs)

    harness._hand_over = noting
    return uids


def _harness_in_fresh_pid_namespace(env, parts, name):  # noqa: F811 — fixtures as arguments
    """run_predictor by pid 1 of a new PID namespace (and mount namespace, its own /proc), which then holds the
    namespace until the returned pipe closes: (pid to wait for, the pipe's end to close, the read end of the answer:
    the host uid the predictor printed)."""
    out_r, out_w = os.pipe()
    hold_r, hold_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover — the child, then pid 1 of the new namespace
        try:
            os.close(out_r)
            os.close(hold_w)
            libc = ctypes.CDLL(None, use_errno=True)
            libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p]
            if libc.unshare(CLONE_NEWPID | CLONE_NEWNS) == 0 and os.fork() == 0:
                answer = "no answer"
                try:
                    libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None)
                    libc.mount(b"proc", b"/proc", b"proc", 0, None)
                    confine._sweep = lambda parent: None  # this /proc sees no other harness's cgroups' pids
                    uids = _spy_on_sandbox_uids()
                    out, _, _ = run_predictor(env, parts, name, IDLE)
                    answer = repr(out) if isinstance(out, Exception) else ",".join(map(str, sorted(uids)))
                finally:
                    os.write(out_w, answer.encode())
                    os.close(out_w)
                    os.read(hold_r, 1)
                    os._exit(0)
            os.close(out_w)
            os.close(hold_r)
            os.wait()
        finally:
            os._exit(0)
    os.close(out_w)
    os.close(hold_r)
    return pid, hold_w, out_r


def _two_namespaces_uids(env, parts, name) -> tuple[str, str]:  # noqa: F811
    """The host uids of two sandboxes, each started by a harness in a PID namespace of its own, both alive."""
    first = _harness_in_fresh_pid_namespace(env, parts, f"{name}-1")
    answers = [os.read(first[2], 4096).decode()]  # the first has run; its namespace stays alive
    second = _harness_in_fresh_pid_namespace(env, parts, f"{name}-2")
    answers.append(os.read(second[2], 4096).decode())
    for _, hold, out in (first, second):  # the second's children hold the first's pipe too: close both, then wait
        os.close(hold)
        os.close(out)
    for pid, _, _ in (first, second):
        os.waitpid(pid, 0)
    return answers[0], answers[1]


def test_sandboxes_of_harnesses_in_two_pid_namespaces_are_two_host_uids(env, parts, monkeypatch):  # noqa: F811
    a, b = _two_namespaces_uids(env, parts, "pidns")
    assert a.isdigit() and b.isdigit(), (a, b)  # one host uid in each namespace, not root
    assert a != b, (a, b)  # two live sandboxes, two host uids

    # the control: the launcher's pid alone, as before (pids from 1 in each namespace)
    monkeypatch.setattr(isolation, "pid_namespace_offset", lambda base: 0)
    a, b = _two_namespaces_uids(env, parts, "pidns-before")
    assert a.isdigit() and a == b, (a, b)
    assert int(a) - isolation.sandbox_user()[0] < 100, a  # the base plus a small pid
