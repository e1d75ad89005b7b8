"""The quiet gate: was the machine quiet enough, around the measuring core, while we measured?

CPU-time labels (``cpu_time_ms``) are immune to another process merely *sharing* the core (the
measuring thread's clock stops while it waits), but not to what sharing does to caches, to a
hypervisor taking the core (steal), or to another thread on the same physical core (an SMT
sibling shares the execution units). The gate looks at each of these during a configuration's
warm-up + timed runs and says whether the row can be trusted; the campaign re-queues a
configuration measured while the gate was open (a bounded number of times, then records it with
``gate_flagged``). Every row records what the gate saw, open or not.

What it reads, all without privileges:

* ``/proc/thread-self/schedstat``: nanoseconds the measuring thread spent *waiting on the run
  queue* of its core, i.e. runnable but displaced by someone else. Exact (scheduler clock), unlike
  per-core tick counters. → ``gate_runqueue_wait_pct`` of the measured span.
* ``/proc/self/status`` ``nonvoluntary_ctxt_switches``: how often it was preempted.
* ``/proc/stat`` per-CPU ticks (USER_HZ, 10 ms): steal time of the measuring core and busy time of
  its SMT siblings (``/sys/devices/system/cpu/cpuN/topology/thread_siblings_list``; our worker is
  pinned to one core, so sibling busy time is someone else's) and of the other cores (recorded,
  not gated: they share only the last-level cache and memory bandwidth, which the probe watches).
* the reference probe's CPU time after each timed run against the campaign's baseline probe:
  a core that got slower for a reason none of the above shows (frequency, cache pressure from the
  other cores) drifts the probe. → ``gate_probe_drift_pct``.

Machines: on this project's 2-vCPU KVM machines ``lscpu`` reports one thread per core, so cores 0
and 1 have no siblings; campaigns pin to core 1 and leave core 0 to the OS and to everything else.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from functools import lru_cache

# Thresholds (fractions of the measured span, or of the baseline probe). Chosen so that a quiet
# machine passes (steal on these VMs idles around 0.5 %, run-queue wait under 0.5 %) and a busy
# loop on the core or its sibling does not.
RUNQUEUE_WAIT_MAX = 0.02
STEAL_MAX = 0.03
SIBLINGS_BUSY_MAX = 0.25  # a busy loop there reads ~100 %; light housekeeping a few %
# Probe drift: 0.15 at first; on the EPYC VM it re-queued about one measurement in two, and over the
# first 141 configurations measured twice the between-round error did not depend on the drift the
# stored rounds had seen (MAPE 10.8 / 10.3 / 11.8 % for drift under 5 / 5-10 / 10-15 %; 10.9 % with
# an earlier re-queue, 11.4 % without): the probe's slow phases are not the model's. Now only a
# gross slowdown re-queues; every row keeps its drift, so a stricter rule can be re-applied.
PROBE_DRIFT_MAX = 0.40
# Below this span the per-CPU tick counters (10 ms) say nothing: steal/sibling shares are not gated.
MIN_TICK_SPAN_S = 0.2  # 20 ticks: a sibling busy all along reads 20, one tick of noise 5 %
CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@lru_cache(maxsize=None)
def siblings(core: int) -> tuple[int, ...]:
    """The other logical CPUs on the same physical core as ``core`` (SMT siblings); () if none or
    unknown."""
    path = f"/sys/devices/system/cpu/cpu{core}/topology/thread_siblings_list"
    try:
        text = open(path).read().strip()
    except OSError:
        return ()
    cpus: set[int] = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return tuple(sorted(cpus - {core}))


def _cpu_ticks() -> dict[int, tuple[int, int]]:
    """Per logical CPU: (busy ticks, steal ticks). Busy = user+nice+system+irq+softirq."""
    out = {}
    try:
        with open("/proc/stat") as f:
            for line in f:
                if line.startswith("cpu") and line[3:4].isdigit():
                    name, *vals = line.split()
                    v = [int(x) for x in vals] + [0] * 8
                    out[int(name[3:])] = (v[0] + v[1] + v[2] + v[5] + v[6], v[7])
    except OSError:
        pass
    return out


def _thread_schedstat() -> tuple[int, int] | None:
    """(ns on CPU, ns waiting on the run queue) of the calling thread."""
    for path in ("/proc/thread-self/schedstat", f"/proc/self/task/{threading.get_native_id()}/schedstat"):
        try:
            run_ns, wait_ns, _ = open(path).read().split()
            return int(run_ns), int(wait_ns)
        except (OSError, ValueError):
            continue
    return None


def _involuntary_switches() -> int | None:
    try:
        with open("/proc/thread-self/status") as f:
            for line in f:
                if line.startswith("nonvoluntary_ctxt_switches:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def _own_ticks() -> int:
    """This process's CPU ticks (all threads), to subtract from its core's busy time."""
    try:
        fields = open("/proc/self/stat").read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return 0


@dataclass(frozen=True)
class GateSnapshot:
    wall_ns: int
    sched: tuple[int, int] | None
    switches: int | None
    ticks: dict[int, tuple[int, int]]
    own_ticks: int


def snapshot() -> GateSnapshot:
    return GateSnapshot(time.monotonic_ns(), _thread_schedstat(), _involuntary_switches(),
                        _cpu_ticks(), _own_ticks())


def observe(before: GateSnapshot, after: GateSnapshot, core: int | None,
            watch: tuple[int, ...] = ()) -> dict:
    """What the gate saw between two snapshots taken in the measuring thread (row columns).
    ``watch``: the cores whose load slows the measuring core — its SMT siblings and any core the
    hardware probe found interfering (:func:`interfering_cores`)."""
    span_s = max((after.wall_ns - before.wall_ns) / 1e9, 1e-9)
    cols: dict = {"gate_span_s": span_s}
    if before.sched and after.sched:
        run = after.sched[0] - before.sched[0]
        wait = after.sched[1] - before.sched[1]
        cols["gate_runqueue_wait_pct"] = 100 * wait / max(run + wait, 1)
    if before.switches is not None and after.switches is not None:
        cols["gate_involuntary_switches"] = after.switches - before.switches
    if core is not None and core in before.ticks and core in after.ticks:
        ticks_span = span_s * CLK_TCK
        steal = after.ticks[core][1] - before.ticks[core][1]
        cols["gate_steal_pct"] = 100 * steal / ticks_span
        sib = [c for c in sorted(set(siblings(core)) | set(watch)) if c != core
               and c in before.ticks and c in after.ticks]
        cols["gate_siblings_busy_pct"] = (100 * sum(after.ticks[c][0] - before.ticks[c][0] for c in sib)
                                          / ticks_span) if sib else None
        others = [c for c in before.ticks if c != core and c not in sib and c in after.ticks]
        cols["gate_other_cores_busy_pct"] = (100 * sum(after.ticks[c][0] - before.ticks[c][0] for c in others)
                                             / (ticks_span * len(others))) if others else None
    return cols


def verdict(cols: dict) -> str | None:
    """Why the gate was open (None: it was shut, the row stands). Reads only recorded columns, so
    a stored row can be re-judged."""
    reasons = []
    wait = cols.get("gate_runqueue_wait_pct")
    if wait is not None and wait > 100 * RUNQUEUE_WAIT_MAX:
        reasons.append(f"run-queue wait {wait:.1f} %")
    if (cols.get("gate_span_s") or 0) >= MIN_TICK_SPAN_S:
        steal = cols.get("gate_steal_pct")
        if steal is not None and steal > 100 * STEAL_MAX:
            reasons.append(f"steal {steal:.1f} %")
        sib = cols.get("gate_siblings_busy_pct")
        if sib is not None and sib > 100 * SIBLINGS_BUSY_MAX:
            reasons.append(f"SMT sibling busy {sib:.0f} %")
    drift = cols.get("gate_probe_drift_pct")
    if drift is not None and drift > 100 * PROBE_DRIFT_MAX:
        reasons.append(f"probe drift {drift:+.0f} %")
    return "; ".join(reasons) or None


def core_busy_share(core: int, watch: tuple[int, ...] = (), sample_s: float = 0.3) -> float:
    """Share of ``core`` (and of its siblings and ``watch`` cores, the busiest) used by anyone in a
    short sample; called by the campaign between configurations, when no worker of ours runs."""
    before = _cpu_ticks()
    time.sleep(sample_s)
    after = _cpu_ticks()
    ticks_span = sample_s * CLK_TCK
    shares = [(after[c][0] - before[c][0]) / ticks_span
              for c in {core, *siblings(core), *watch} if c in before and c in after]
    return max(shares, default=0.0)


INCONCLUSIVE_BUSY = 0.20
INTERFERENCE_MIN = 0.10  # slowdown of the measuring core's probe that makes another core a sibling


def _spin() -> None:
    while True:
        pass


def interfering_cores(others: list[int], probe, rounds: int = 3) -> dict[int, float | None]:
    """Slowdown of ``probe`` (a callable returning CPU ms, run on the measuring core) while a busy
    loop runs on each of ``others``, one at a time: ``{core: slowdown}`` for every core tested.

    Why: a VM's vCPUs may be hyperthreads of one host core, which the guest's topology does not
    show (these 2-vCPU machines report one thread per core). A core already busy during the quiet
    sample gives no baseline: its slowdown is None, and the caller counts it as interfering. Measured here: a plain busy loop on
    vCPU 0 made a matmul probe on vCPU 1 25 % slower in *CPU time*, a memory copy 75 %; so on such a
    machine the other vCPU must be as quiet as the measuring one. A busy-loop cannot slow another
    core's arithmetic except through a shared physical core, so this finds exactly those."""
    import signal
    import statistics

    out: dict[int, float] = {}

    def sample() -> float:
        return statistics.median(probe() for _ in range(40))

    for other in others[:16]:
        t0, ticks0 = time.monotonic(), _cpu_ticks()
        alone = min(sample() for _ in range(rounds))
        ticks1 = _cpu_ticks()
        busy = (ticks1.get(other, (0, 0))[0] - ticks0.get(other, (0, 0))[0]) / (
            max(time.monotonic() - t0, 1e-3) * CLK_TCK)
        if busy > INCONCLUSIVE_BUSY:
            out[other] = None  # someone else already loads that core: no quiet baseline to compare
            continue
        pid = os.fork()  # a bare fork: the caller may be a daemonic worker (no multiprocessing children)
        if pid == 0:
            try:
                os.sched_setaffinity(0, {other})
                _spin()
            finally:
                os._exit(0)
        try:
            time.sleep(0.2)
            loaded = min(sample() for _ in range(rounds))
        finally:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        out[other] = loaded / alone - 1
    return out


def llc_sharing(core: int) -> tuple[int, ...]:
    """The other logical CPUs sharing ``core``'s last-level cache (sysfs), () if unknown."""
    base = f"/sys/devices/system/cpu/cpu{core}/cache"
    try:
        levels = sorted(os.listdir(base))
    except OSError:
        return ()
    best: tuple[int, str] = (0, "")
    for entry in levels:
        try:
            level = int(open(f"{base}/{entry}/level").read())
            shared = open(f"{base}/{entry}/shared_cpu_list").read().strip()
        except (OSError, ValueError):
            continue
        best = max(best, (level, shared))
    cpus: set[int] = set()
    for part in best[1].split(",") if best[1] else ():
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return tuple(sorted(cpus - {core}))


def virtualized() -> bool:
    """A guest whose vCPUs may share host cores its topology does not show."""
    try:
        return any("hypervisor" in line.split() for line in open("/proc/cpuinfo") if line.startswith("flags"))
    except OSError:
        return False
