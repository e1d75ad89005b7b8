"""Ninety-seventh adversarial pass (2026-12-06), side a (the sandbox's kernel interfaces): memory held in
pseudo-terminals, which no memory cgroup charges.

bubblewrap's ``--dev`` gives the sandbox a devpts instance of its own (``/dev/pts``, ``/dev/ptmx``), and the
seccomp filter cannot refuse what ``open("/dev/ptmx")`` does: every open makes a pseudo-terminal pair, whose
kernel memory (two tty structures, two line disciplines' buffers allocated with vmalloc, and what is written
to either side and not read) is charged to no memory cgroup, and whose pool is the whole machine's
(``/proc/sys/kernel/pty/max`` 4,096 less the 1,024 kept for the host's own instance). On this VM (cgroup v1,
kernel 6.18) a predictor opened the 3,071 pairs its instance could get and wrote to both sides until they
were full: the host's unreclaimable slab grew by 136 MB and its vmalloc use by 74 MB, its free memory fell
by 300 MB, under a 300 MB ``--memory-mb``, and the cgroup stated a 16 MB peak; no other sandbox on the
machine could open a terminal until it ended. Through ``run_seed`` (the record's figures), under a 256 MB
limit: 3,071 pairs, 77 MB written to them, the host's unreclaimable slab and vmalloc use 207 MB higher while
the seed ran, and a stated peak of 146 MB (146 + 207 MB held, over the limit).

Now the sandbox's ``/dev/pts`` is covered by an empty read-only tmpfs (``isolation._no_terminals``), so
``/dev/ptmx`` leads nowhere. The control runs the same predictor with the cover switched off.
"""

from __future__ import annotations

import threading

import pytest

from perfgraphs.leaderboard.sandbox import confine, isolation
from perfgraphs.leaderboard.sandbox.harness import Limits
from test_leaderboard_redteam import log_lines, run_predictor
from test_sandbox_escape import _cgroups
from test_leaderboard_adversarial import env, parts  # noqa: F401 — fixtures

pytestmark = [pytest.mark.skipif(isolation.unavailable_reason() is not None,
                                 reason=f"no isolation here: {isolation.unavailable_reason()}"),
              pytest.mark.skipif(not _cgroups(), reason="no memory cgroup here")]

LIMIT_MB = 256
HOARD = """
def attack(model):
    import resource, tty
    resource.setrlimit(resource.RLIMIT_NOFILE, (resource.getrlimit(resource.RLIMIT_NOFILE)[1],) * 2)
    _held, _written, _chunk = [], 0, b'x' * 65536
    try:
        while len(_held) < 4000:
            _m, _s = os.openpty()
            tty.setraw(_s)
            _held.append((_m, _s))
            for _fd in (_m, _s):
                os.set_blocking(_fd, False)
                try:
                    while True:
                        _written += os.write(_fd, _chunk)
                except BlockingIOError:
                    pass
    except OSError as _exc:
        print('STOPPED', type(_exc).__name__, _exc.errno, flush=True)
    model.terminals = _held
    print('PTYS', len(_held), _written >> 20, flush=True)
    time.sleep(0.5)  # held while the host looks (it samples every 20 ms)
"""


def _kernel_kb() -> int:
    """The host's unreclaimable slab and vmalloc use, in kB: where a terminal's memory lies."""
    fields = dict(line.split(":", 1) for line in open("/proc/meminfo"))
    return sum(int(fields[k].split()[0]) for k in ("SUnreclaim", "VmallocUsed"))


def _run_watching(env, parts, name):  # noqa: F811 — fixtures as arguments
    """run_predictor with the host's kernel memory sampled meanwhile: (SeedOutput or exception, log, growth MB)."""
    base, most, done = _kernel_kb(), [0], threading.Event()

    def sample():
        while not done.wait(0.02):
            most[0] = max(most[0], _kernel_kb())
    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    try:
        out, log, _ = run_predictor(env, parts, name, HOARD, Limits(time_limit_s=120, memory_mb=LIMIT_MB))
    finally:
        done.set()
        watcher.join()
    return out, log, (most[0] - base) // 1024


def test_a_sandbox_opens_no_terminal(env, parts, monkeypatch):  # noqa: F811
    out, log, _ = _run_watching(env, parts, "pty-hoard")
    assert not isinstance(out, Exception), out
    assert log_lines(log, "PTYS")[0].split()[0] == "0", log_lines(log, "PTYS")
    assert log_lines(log, "STOPPED") == ["FileNotFoundError 2"]

    monkeypatch.setattr(isolation, "_no_terminals", lambda: [])  # the control: /dev/pts as bubblewrap makes it
    out, log, grown_mb = _run_watching(env, parts, "pty-hoard-before")
    assert not isinstance(out, Exception), out
    assert int(log_lines(log, "PTYS")[0].split()[0]) >= 1000, log_lines(log, "PTYS")
    assert out.confinement == "bubblewrap+cgroup+seccomp", out.confinement
    # the kernel held memory for it that no stated peak shows (207 MB on the Intel VM against a 146 MB peak
    # under the 256 MB limit); a quarter of the limit, so another machine's kernel or a busy host passes too
    assert grown_mb > LIMIT_MB / 4 and out.peak_memory_mb < LIMIT_MB, (grown_mb, out.peak_memory_mb)
