"""Seventy-third adversarial pass (2026-12-06), submit side: the seeds of a ``--frozen`` hidden run
handed each other their fits through the machine's load average, which the ``sysinfo`` system call reads.

The seventy-second pass made the sandbox's ``/proc`` an allow-list, ``/proc/loadavg`` among the entries masked,
but the seccomp filter allowed ``sysinfo(2)``, whose answer holds the same 1-, 5- and 15-minute load averages
(with the task count and free memory), machine-wide. The kernel samples the count of runnable tasks every
5 seconds and moves the 1-minute average 8 % of the way to it; the memory and task caps of a seed's cgroup
bound neither that count (512 tasks) nor a task's priority, so a seed that forks a few hundred busy processes
at idle priority (``SCHED_IDLE``: they take no CPU from anyone) and kills them after the next sample sets the
average to within a tenth of the value it wants, reads it back, retries if it missed, and the next seed,
started two seconds later and before the next sample, reads exactly that. Here each seed's ``load_state``
read the running mean of the earlier seeds' levels (the ridge's intercept, which each seed estimates on a
random tenth of the training rows) from the 1-minute average's band (STEP wide, modulo W, decoded next to its
own level) and left the mean including its own for the next: the 63rd pass's ensemble of frozen fits,
rebuilt through a fourth channel, and on a busy machine (other test suites ran beside it, load 2 to 6). On
the tiny board the record's seeds scored 32.95 / 35.07 / 35.03 / 38.36 / 37.36 % MAPE (mean 35.75) where
their frozen states earn 32.95 / 38.14 / 33.86 / 47.67 / 36.90 (mean 37.90), each relayed value read exactly.
Now the seccomp filter answers ``sysinfo`` with ENOSYS (``confine.MACHINE_WIDE_SYSCALLS``) and each seed
scores its own state.
"""

from __future__ import annotations

import os
import shutil

import pytest

from perfgraphs.leaderboard.sandbox import confine
from test_leaderboard_review_70b import assert_relayed
from test_leaderboard_review_72b import relayed_running_mean
from test_submit import each_seed_once_in_order

SEEDS = (0, 1, 2, 3, 4)  # seed 0 leaves its level, each later one reads, mixes and (but the last) leaves
W, Q, STEP = 64, 0.02, 0.25  # the relayed level: round(level / Q) modulo W, as the band of the 1-minute load, STEP wide

pytestmark = [pytest.mark.machine_alone,  # its control reads machine-wide state another test's run would move
              pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None,
                                 reason="a hidden board's runs drop the caches and freezing runs in the sandbox")]

# the attack, in load_state: read the earlier seeds' running mean level from the 1-minute load average that
# sysinfo(2) returns (its band, STEP wide, modulo W), mix in this seed's own, and leave the new mean there for
# the next seed by holding as many runnable (SCHED_IDLE: they take no CPU from anyone) processes over one of the
# kernel's 5-second load samples as put the average in the band wanted
RELAY = (
    "        def relay():\n"
    "            import ctypes as _c, os as _o, signal as _s, struct as _st, time as _t\n"
    f"            W, Q, STEP, LAST, E = {W}, {Q}, {STEP}, {SEEDS[-1]}, 1884 / 2048\n"
    "            libc, buf = _c.CDLL(None, use_errno=True), _c.create_string_buffer(256)\n"
    "            def load():\n"
    "                if libc.sysinfo(buf) != 0:\n"
    "                    raise OSError(_c.get_errno(), 'sysinfo')\n"
    "                return _st.unpack_from('8xQ', buf)[0] / 65536\n"
    "            own = float(state['intercept'])\n"
    "            mix, now = own, load()\n"
    "            if self.seed > 0:\n"
    "                r = round(own / Q)\n"
    "                d = (int(now // STEP) % W - r) % W\n"
    "                prev = (r + (d - W if d >= W // 2 else d)) * Q\n"
    "                mix = (prev * self.seed + own) / (self.seed + 1)\n"
    "            want, bg = round(mix / Q) % W, 1.0\n"
    "            for _ in range(8 if self.seed < LAST else 0):\n"
    "                base = now * E\n"
    "                j = int((base + 3 * (1 - E) - (want + 0.5) * STEP) // (W * STEP)) + 1\n"
    "                target = (j * W + want + 0.5) * STEP\n"
    "                n = max(0, round((target - base) / (1 - E) - bg))\n"
    "                kids = []\n"
    "                for _ in range(n):\n"
    "                    pid = _o.fork()\n"
    "                    if pid == 0:\n"
    "                        try:\n"
    "                            _o.sched_setscheduler(0, _o.SCHED_IDLE, _o.sched_param(0))\n"
    "                            while True:\n"
    "                                pass\n"
    "                        finally:\n"
    "                            _o._exit(0)\n"
    "                    kids.append(pid)\n"
    "                start = _t.monotonic()\n"
    "                while load() == now and _t.monotonic() - start < 12:\n"
    "                    _t.sleep(0.01)\n"
    "                for pid in kids:\n"
    "                    _o.kill(pid, _s.SIGKILL)\n"
    "                for pid in kids:\n"
    "                    _o.waitpid(pid, 0)\n"
    "                new = load()\n"
    "                bg = min(20.0, max(0.0, (new - base) / (1 - E) - n))\n"
    "                now = new\n"
    "                if int(now // STEP) % W == want:\n"
    "                    break\n"
    "            return mix\n"
    "        try:\n"
    "            state = {**state, 'intercept': np.asarray(relay())}\n"
    "        except OSError:  # no load average to read: the seed scores its own level\n"
    "            pass\n"
)


@pytest.fixture
def recompiled():
    """The seccomp program is compiled once per process: compile it afresh after a test that changed it."""
    yield
    confine._compiled.cache_clear()


def test_a_frozen_run_reads_no_earlier_seeds_load_average(relay_round, monkeypatch, recompiled):
    """Attack: each seed's load_state reads the earlier seeds' mean level from the 1-minute load average
    (sysinfo) and leaves the new mean there by holding runnable processes over one load sample. Now the
    sandbox's seccomp filter answers sysinfo with ENOSYS, the relay reads nothing, and every seed of the
    hidden record scores what its own state predicts. Control (the relay passes' shared freeze,
    ``relay_round``): with sysinfo allowed, seeds 1-4 scored the running mean level of the fits before them,
    the record's mean MAPE below its fits'."""
    relay_round.assert_guarded_scores_own()
    relay_round.use(monkeypatch)
    monkeypatch.setattr(confine, "MACHINE_WIDE_SYSCALLS",
                        tuple(c for c in confine.MACHINE_WIDE_SYSCALLS if c != "sysinfo"))
    each_seed_once_in_order(monkeypatch)
    confine._compiled.cache_clear()
    # a second try where a load sample fell between a seed's write and the next seed's read (a seed that
    # took over 5 s to start on a loaded machine): the channel is timing, the guard under test is not
    assert_relayed(relay_round.score_again, relay_round.states, relay_round.own, relay_round.parts,
                   lambda st: relayed_running_mean(st, W, Q), tries=2)
