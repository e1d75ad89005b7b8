"""A measurement worker must not outlive its campaign.

Workers are forked by the campaign's fork server (a child of the campaign). When the campaign is
killed (SIGKILL, the OOM killer, a lost terminal) nothing in it runs any more, so it cannot stop
its worker: left alone, the worker measured on, pinned to the measuring core, for the rest of its
configuration, and a campaign resumed meanwhile measured beside it. Nor does the fork server go
away by itself: it exits when every holder of its "alive" pipe has closed it, and each worker
holds a copy.

The kernel's parent-death signal does not need the dying process. Two links, both SIGKILL:

* the fork server asks for it when the campaign dies (:func:`guard_fork_server`, run when the
  server imports this module as a preload; the campaign names itself in ``PERFGRAPHS_CAMPAIGN_PID``);
* every worker asks for it when the fork server dies (:func:`bind_to_campaign`, its first act).

``prctl(PR_SET_PDEATHSIG)`` only covers deaths *after* the call, so each then checks that its
parent is still the one it should be; if not, the campaign died meanwhile and it exits at once.

The worker also names itself ``perfgraphs-wkr`` (``/proc/<pid>/comm``), so a campaign can recognise
another campaign's worker on its core (:mod:`perfgraphs.collect.corecheck`).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1
PR_SET_NAME = 15
WORKER_NAME = "perfgraphs-wkr"  # at most 15 bytes: the kernel's limit for a thread name
CAMPAIGN_ENV = "PERFGRAPHS_CAMPAIGN_PID"


def _prctl(option: int, arg) -> bool:
    """Best effort: False where there is no prctl (not Linux)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, arg, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def parent_of(pid: int) -> int | None:
    """The parent pid of ``pid`` from /proc (None if it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read().decode(errors="replace")
    except OSError:
        return None
    # the command name (field 2) may contain spaces and parentheses: parse after the last ')'
    return int(stat.rsplit(")", 1)[1].split()[1])


def bind_to_campaign(campaign_pid: int) -> None:
    """Call first in a worker: SIGKILL when the parent exits; exit now if the campaign is gone."""
    _prctl(PR_SET_NAME, ctypes.c_char_p(WORKER_NAME.encode()))
    if not _prctl(PR_SET_PDEATHSIG, ctypes.c_ulong(signal.SIGKILL)):
        return
    parent = os.getppid()
    if parent != campaign_pid and parent_of(parent) != campaign_pid:
        print(f"perfgraphs worker {os.getpid()}: campaign process {campaign_pid} is gone; exiting",
              file=sys.stderr)
        os._exit(1)


def guard_fork_server() -> None:
    """In the fork server (a direct child of the process named in PERFGRAPHS_CAMPAIGN_PID): SIGKILL
    when that process dies. Anywhere else (the campaign itself, a worker): nothing."""
    campaign = os.environ.get(CAMPAIGN_ENV, "")
    if not campaign.isdigit() or os.getppid() != int(campaign) or os.getpid() == int(campaign):
        return
    if _prctl(PR_SET_PDEATHSIG, ctypes.c_ulong(signal.SIGKILL)) and os.getppid() != int(campaign):
        os._exit(1)  # the campaign died before the call: no signal will come


guard_fork_server()  # on import: the fork server imports this module first among its preloads
