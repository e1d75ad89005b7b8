"""Seventy-fourth adversarial pass (2026-12-06), submit side: the seeds of a ``--frozen`` hidden run
handed each other their fits through the free blocks of the host's disk, which ``statfs`` reads.

Every seed's output (stdout and stderr) is a file the harness writes on the host's disk, in the job
folder beside ``/job``, ``/inbox`` and ``/submission``, and it stays there until the whole submission has
run (it may grow to 64 MB). ``statfs(2)`` of any of those mounts (``os.statvfs('/job')``) answers with
that disk's free blocks, to the block. So a seed wrote to its own stdout until the disk's free-block count
modulo W * STEP fell in the band it wanted (16 MB at most: it reads the count back as it writes), and the
next seed read that band at its start: the harness's writes between two seeds (the next inbox, its state)
move the count by a few blocks, less than half a band. Here each seed's ``load_state`` read the running
mean of the earlier seeds' levels (the ridge's intercept, estimated on a random tenth of the training rows)
and left the mean including its own for the next: the 63rd pass's ensemble of frozen fits, rebuilt through
a fifth channel, on a disk that other test suites wrote to at the same time. Now the seccomp filter
answers ``statfs``, ``fstatfs`` and ``ustat`` with ENOSYS (``confine.MACHINE_WIDE_SYSCALLS``) and each seed
scores its own state.
"""

from __future__ import annotations

import os
import shutil

import pytest

from perfgraphs.leaderboard.sandbox import confine
from test_leaderboard_review_70b import assert_relayed
from test_leaderboard_review_72b import relayed_running_mean
from test_leaderboard_review_73b import recompiled  # noqa: F401 — fixture
from test_submit import each_seed_once_in_order

SEEDS = (0, 1, 2, 3, 4)  # seed 0 leaves its level, each later one reads, mixes and (but the last) leaves
W, Q, STEP = 64, 0.02, 64  # the relayed level: round(level / Q) modulo W, as the band (STEP blocks) of used blocks

pytestmark = [pytest.mark.machine_alone,  # its control reads machine-wide state another test's run would move
              pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None,
                                 reason="a hidden board's runs drop the caches and freezing runs in the sandbox")]

# the attack, in load_state: read the earlier seeds' running mean level from the host disk's free blocks that
# statfs(2) of /job returns (their band, STEP blocks wide, modulo W), mix in this seed's own, and leave the new
# mean there for the next seed by writing to its own stdout (the seed's log, a host file) until the count is in
# the middle of the band wanted
READ = (
    "        def relay():\n"
    "            import os as _o\n"
    f"            W, Q, STEP = {W}, {Q}, {STEP}\n"
    "            own, mix = float(state['intercept']), float(state['intercept'])\n"
    "            if self.seed > 0:\n"
    "                r = round(own / Q)\n"
    "                d = ((-_o.statvfs('/job').f_bfree) % (W * STEP) // STEP - r) % W\n"
    "                prev = (r + (d - W if d >= W // 2 else d)) * Q\n"
    "                mix = (prev * self.seed + own) / (self.seed + 1)\n"
    "            return mix\n"
    "        self.calls_ = 0\n"
    "        try:\n"
    "            state = {**state, 'intercept': np.asarray(relay())}\n"
    "        except OSError:  # no disk to read: the seed scores its own level\n"
    "            pass\n"
)
# in predict, on its second call (the probe: the harness wrote every input of this seed by then), leave the
# mean level for the next seed by writing to stdout until the used blocks are in the middle of its band
LEAVE = (
    "        self.calls_ = getattr(self, 'calls_', 0) + 1\n"
    "        try:\n"
    "            import os as _o\n"
    f"            W, Q, STEP, LAST = {W}, {Q}, {STEP}, {SEEDS[-1]}\n"
    "            M, want, block = W * STEP, round(self.intercept_ / Q) % W, b'.' * 4095 + b'\\n'\n"
    "            for _ in range(4 if self.calls_ == 2 and self.seed < LAST else 0):\n"
    "                used = (-_o.statvfs('/job').f_bfree) % M\n"
    "                if abs(used - want * STEP - STEP // 2) < STEP // 4:\n"
    "                    break\n"
    "                for _ in range((want * STEP + STEP // 2 - used) % M):\n"
    "                    _o.write(1, block)\n"
    "        except OSError:\n"
    "            pass\n"
)


def test_a_frozen_run_reads_no_earlier_seeds_disk_blocks(relay_round, monkeypatch, recompiled):  # noqa: F811
    """Attack: each seed's load_state reads the earlier seeds' mean level from the host disk's free blocks
    (statfs of /job) and leaves the new mean there by writing its own stdout, the seed's log on that disk.
    Now the sandbox's seccomp filter answers statfs with ENOSYS, the relay reads nothing, and every seed of
    the hidden record scores what its own state predicts. Control (the relay passes' shared freeze,
    ``relay_round``): with statfs allowed, seeds 1-4 scored the running mean level of the fits before them,
    the record's mean MAPE below its fits'."""
    relay_round.assert_guarded_scores_own()
    relay_round.use(monkeypatch)
    monkeypatch.setattr(confine, "MACHINE_WIDE_SYSCALLS", tuple(c for c in confine.MACHINE_WIDE_SYSCALLS
                                                                if c not in confine.FILE_SYSTEM_USAGE_SYSCALLS))
    confine._compiled.cache_clear()
    each_seed_once_in_order(monkeypatch)
    # another try where another process wrote half a band's worth of the disk between two seeds (other suites
    # run beside this one): the channel shares the disk, the guard under test does not
    assert_relayed(relay_round.score_again, relay_round.states, relay_round.own, relay_round.parts,
                   lambda st: relayed_running_mean(st, W, Q), tries=3)
