"""Is the measuring core free? A campaign waits (bounded) until it is.

A latency measured on a core that another busy process shares is that process's noise, not the
model's cost. What occupies a core, as far as we can tell from /proc without privileges:

* a perfgraphs worker of another campaign (named ``perfgraphs-wkr``, see :mod:`lifeline`) allowed
  on that core and using CPU, e.g. one left measuring by a campaign killed before workers died
  with their campaign;
* any other user process pinned to exactly that core that used CPU in a short sample.

Kernel threads (every core has its own), zombies, this process and its descendants (our own fork
server) are ignored. Where this process itself may only use that one core, "pinned there" says
nothing (everything is), and only workers count.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Callable

from perfgraphs.collect.errors import CoreBusyError
from perfgraphs.collect.lifeline import WORKER_NAME

PF_KTHREAD = 0x00200000
SAMPLE_S = 0.3
POLL_S = 0.5


@dataclass(frozen=True)
class Occupant:
    pid: int
    name: str
    worker: bool

    def describe(self) -> str:
        return f"pid {self.pid} ({'a perfgraphs worker' if self.worker else self.name})"


def _stat(pid: int) -> tuple[str, str, int, int, int] | None:
    """``(name, state, ppid, flags, cpu ticks)`` of a process, None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read().decode(errors="replace")
    except OSError:
        return None
    name = stat[stat.find("(") + 1: stat.rfind(")")]
    fields = stat[stat.rfind(")") + 2:].split()  # fields 3.. of proc(5)
    return name, fields[0], int(fields[1]), int(fields[6]), int(fields[11]) + int(fields[12])


def _processes() -> dict[int, tuple]:
    out = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (st := _stat(int(entry))) is not None:
            out[int(entry)] = st
    return out


def _own_family(procs: dict[int, tuple]) -> set[int]:
    family, grew = {os.getpid()}, True
    while grew:
        grew = False
        for pid, st in procs.items():
            if pid not in family and st[2] in family:
                family.add(pid)
                grew = True
    return family


def occupants(core: int, sample_s: float = SAMPLE_S) -> list[Occupant]:
    if not os.path.isdir("/proc") or not hasattr(os, "sched_getaffinity"):
        return []
    alone = os.sched_getaffinity(0) == {core}
    procs = _processes()
    family = _own_family(procs)
    candidates: dict[int, tuple[Occupant, int]] = {}
    for pid, (name, state, _ppid, flags, ticks) in procs.items():
        if pid in family or flags & PF_KTHREAD or state in "ZX":
            continue
        try:
            allowed = os.sched_getaffinity(pid)
        except OSError:  # gone meanwhile
            continue
        worker = name == WORKER_NAME
        if core in allowed and (worker or (allowed == {core} and not alone)):
            candidates[pid] = (Occupant(pid, name, worker), ticks)
    if not candidates:
        return []
    time.sleep(sample_s)  # a pinned process that sleeps costs the measurement nothing
    busy = []
    for pid, (occupant, ticks) in sorted(candidates.items()):
        st = _stat(pid)
        # a worker counts only while it works: an idle one (a test session's fork-server child
        # waiting for its next configuration) costs a measurement nothing, and would otherwise
        # hold the core for as long as its parent lives
        if st is not None and st[1] not in "ZX" and st[4] > ticks:
            busy.append(occupant)
    return busy


def wait_for_core(core: int, timeout_s: float, notify: Callable[[str], None] = print) -> None:
    """Return once ``core`` is free; raise CoreBusyError if it is still busy after ``timeout_s``."""
    busy = occupants(core)
    if not busy:
        return
    deadline = time.monotonic() + timeout_s
    notify(f"core {core} is busy: {', '.join(o.describe() for o in busy)}; "
           f"waiting up to {timeout_s:g} s for it to be free")
    while busy:
        if time.monotonic() >= deadline:
            raise CoreBusyError(
                f"core {core} is still busy after {timeout_s:g} s: {', '.join(o.describe() for o in busy)}; "
                f"stop it, wait longer (--core-wait) or measure on another core (--core)")
        time.sleep(POLL_S)
        busy = occupants(core)
    notify(f"core {core} is free")
