"""Hundred-and-third adversarial pass (2026-12-07), side a (pools a seed exhausts for another run): the kernel's
per-user pools of inotify instances and POSIX message queues, which every sandbox shares.

A root harness starts every sandbox as the same host uid (``isolation.sandbox_user``, 1999999), and the kernel counts
some pools per host uid across all user namespaces: inotify instances (``fs.inotify.max_user_instances``, 128 here),
fanotify groups (``fs.fanotify.max_user_groups``, 128) and the bytes of POSIX message queues (``RLIMIT_MSGQUEUE``,
819,200). On this VM (cgroup v1, kernel 6.18) a predictor under a 256 MB ``--memory-mb`` took, through ``run_seed``,
the 128 inotify instances and 9 message queues (all 819,200 bytes; EMFILE at the next), and
while its seed ran a process of the sandbox's host uid outside it (what another team's sandbox on a shared scoring
machine is to the kernel) was refused ``inotify_init1`` and ``mq_open`` with EMFILE; the pools come back when the
seed's processes die, so the harm lasts a seed's time limit (30 minutes by default). The root harness itself is not
refused (uid 0 has its own counts).

Now the sandbox's filter refuses ``inotify_init``/``inotify_init1``, ``fanotify_init`` and ``mq_open``
(``confine._no_per_user_pools``; ``fanotify_init(0, 0)`` was refused already for want of CAP_SYS_ADMIN, the
unprivileged ``FAN_REPORT_FID`` groups of the same per-uid pool were not tried). The control compiles the filter
without the rule and runs the same predictor.

Leads of the same pass not run end to end (see the pass's report): the machine's open files (``fs.file-max``
2,466,239; the sandbox's ``RLIMIT_NOFILE`` is 20,000 with 512 tasks, and root, the harness, is exempt), not exhausted
on a host other processes use. Queued real-time signals (``RLIMIT_SIGPENDING``) and pipe pages
(``fs.pipe-user-pages-soft``) are counted per host uid too and stay open; a host uid of its own for each sandbox
would close every per-uid pool at once.
"""

from __future__ import annotations

import ctypes
import errno
import os

import pytest

from perfgraphs.leaderboard.sandbox import isolation
from host_user_trier import answer, fork_trier, run_trying
from test_leaderboard_redteam import log_lines
from test_sandbox_escape import _cgroups
from test_leaderboard_adversarial import env, parts  # noqa: F401 — fixtures

pytestmark = [pytest.mark.skipif(isolation.unavailable_reason() is not None,
                                 reason=f"no isolation here: {isolation.unavailable_reason()}"),
              pytest.mark.skipif(not _cgroups(), reason="no memory cgroup here")]

HOARD = """
def attack(model):
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    _watchers, _queues = [], []
    while len(_watchers) < 10000 and (_fd := libc.inotify_init1(0)) >= 0:
        _watchers.append(_fd)
    _inotify = ctypes.get_errno()
    while len(_queues) < 10000 and (_fd := libc.mq_open(b'/q%d' % len(_queues), 0o102, 0o600, None)) >= 0:
        _queues.append(_fd)  # O_CREAT | O_RDWR, the default size (10 messages of 8 kB)
    print('POOLS', len(_watchers), _inotify, len(_queues), ctypes.get_errno(), flush=True)
    model.held = (_watchers, _queues)
    time.sleep(0.5 if _watchers else 0)  # held while the sandbox's user outside tries (every 20 ms)
"""


def _ask_once(refused: set) -> None:
    """Ask for one inotify instance and one message queue; note the errno of each refusal."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(0)
    refused.add(("inotify", ctypes.get_errno())) if fd < 0 else os.close(fd)
    name = b"/perfgraphs-103a-%d" % os.getpid()
    fd = libc.mq_open(name, 0o102, 0o600, None)
    if fd < 0:
        refused.add(("mq", ctypes.get_errno()))
    else:
        os.close(fd)
        libc.mq_unlink(name)


def _sandbox_ids():
    """The sandbox's base host uid and gid (None when the harness is not root)."""
    return isolation.sandbox_user()


def _run_trying(env, parts, name):  # noqa: F811 — fixtures as arguments
    """run_predictor while the sandbox's host user asks for the pools outside: (SeedOutput or exception, log,
    the (pool, errno) pairs it was refused)."""
    return run_trying(env, parts, name, HOARD, _sandbox_ids(), _ask_once)


def test_a_predictor_takes_no_per_user_pool_from_other_sandboxes(env, parts, monkeypatch, weakened_filter):  # noqa: F811
    out, log, refused = _run_trying(env, parts, "user-pools")
    assert not isinstance(out, Exception), out
    assert log_lines(log, "POOLS") == [f"0 {errno.EPERM} 0 {errno.EPERM}"], log_lines(log, "POOLS")
    assert refused == [], refused

    # the filter without the rule, and every sandbox as the one host uid the trier takes (before pass 104a)
    monkeypatch.setattr(isolation, "per_run_host_user", lambda user: (str(user[0]), str(user[1])))
    weakened_filter(_no_per_user_pools=lambda: [])
    out, log, refused = _run_trying(env, parts, "user-pools-before")
    assert not isinstance(out, Exception), out
    assert out.confinement == "bubblewrap+cgroup+seccomp", out.confinement
    watchers, err_watch, queues, err_queue = map(int, log_lines(log, "POOLS")[0].split())
    # the whole per-user pools (128 instances, 9 queues of 819,200 bytes on the Intel VM), then EMFILE; the sandbox's
    # host user outside refused meanwhile
    assert watchers >= 64 and queues >= 4 and err_watch == err_queue == errno.EMFILE, log_lines(log, "POOLS")
    assert refused == [("inotify", errno.EMFILE), ("mq", errno.EMFILE)], refused
    assert _refused_once() == []  # given back when the sandbox ended: the next seed starts cleanly


def _refused_once() -> list:
    """What the sandbox's host user is refused when it asks once, now."""
    return answer(*fork_trier(_sandbox_ids(), _ask_once))
