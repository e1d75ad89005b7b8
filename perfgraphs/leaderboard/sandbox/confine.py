"""Kernel-enforced limits for a predictor's sandbox: a memory cgroup, a task cap, a seccomp filter.

bubblewrap (:mod:`perfgraphs.leaderboard.sandbox.isolation`) decides what a predictor can *see*; it does not
bound what it can *use*. Polling resident memory misses pages a predictor keeps in its private
``/tmp`` tmpfs or in a memfd, and the kernel's own per-process peak (VmHWM) can be reset by the
process itself through ``/proc/self/clear_refs``. A memory cgroup charges every page the sandbox
faults in — anonymous memory, tmpfs and memfd pages, page tables, kernel stacks — and its peak
counter lives in ``/sys``, which the sandbox does not mount. The pids controller bounds tasks
(processes *and* threads), so a thread bomb fails at the cap instead of exhausting the host.

A seccomp filter (handed to ``bwrap --seccomp FD``) refuses the few system calls that reach state
shared beyond the sandbox's namespaces: the kernel keyrings (``add_key``/``keyctl``/
``request_key``, a store that outlives a sandbox, so one seed could leave data for the next), and
``bpf``/``perf_event_open``/``userfaultfd`` (kernel attack surface a predictor never needs), every
call that would re-shape the sandbox (new namespaces, mounts: :data:`BLOCKED_SYSCALLS`), and widening
its CPU affinity beyond the scored cores.

Usage, per seed::

    with Confinement(memory_mb=limits.memory_mb, name=f"seed{seed}") as box:
        fd = seccomp_fd()
        popen = subprocess.Popen([...bwrap, "--seccomp", str(fd), ...], preexec_fn=box.preexec,
                                 start_new_session=True, pass_fds=(..., fd))
        os.close(fd)
        ... popen.wait() ...
    # leaving the block SIGKILLs whatever is left in the cgroup and removes it; the readings
    # (box.peak_memory_bytes(), box.memory_limit_hit(), box.task_limit_hit()) stay readable

Neither part raises on a machine without cgroups or libseccomp: ``Confinement.available`` /
``why_not`` and ``seccomp_unavailable_reason()`` say so, and the caller decides whether to refuse.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import functools
import os
import re
import secrets
import signal
import time
import warnings
from pathlib import Path

# ----------------------------------------------------------------------------------------------
# cgroups
# ----------------------------------------------------------------------------------------------

V1_CONTROLLERS = ("memory", "pids")


class _Unusable(Exception):
    """This cgroup layout cannot confine a child here (the message is the one-line reason)."""


def _read(path: Path) -> str:
    return path.read_text()


def _write(path: Path, value: str) -> None:
    # cgroup files want a single write(2) of the whole value; os.write avoids buffered partials
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def _own_cgroups() -> dict[str, str]:
    """Our cgroup path per v1 controller name, and under ``""`` the v2 (unified) path."""
    out: dict[str, str] = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for ctrl in controllers.split(",") if controllers else [""]:
            out[ctrl] = path
    return out


def _cgroup_mounts() -> list[tuple[str, str, str, set[str]]]:
    """(mount point, root inside the hierarchy, fs type, mount + super options) of every cgroup mount."""
    mounts = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(tail) >= 3 and tail[0] in ("cgroup", "cgroup2"):
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), fields[4])  # "\040" is a space
            # per-mount options (fields[5]) and the superblock's (tail[2]): "ro" in either one counts
            mounts.append((point, fields[3], tail[0], set(fields[5].split(",")) | set(tail[2].split(","))))
    return mounts


def _dir_of(point: str, root: str, own: str) -> Path:
    """The directory of our cgroup ``own`` in a hierarchy mounted at ``point`` whose mount shows
    the hierarchy from ``root`` (normally "/"; a container may bind a subtree)."""
    if root != "/" and not (own == root or own.startswith(root.rstrip("/") + "/")):
        raise _Unusable(f"our cgroup {own} is outside the part of the hierarchy mounted at {point}")
    rel = own[len(root):] if root != "/" else own
    return Path(point) / rel.lstrip("/")


def _v2_parent(mounts, own) -> Path:
    """Where to create a v2 child with the memory and pids controllers: our own cgroup, or (when
    it holds processes and so cannot enable them) its parent, if that already does."""
    if "" not in own:
        raise _Unusable("no cgroup v2 hierarchy")
    candidates = [m for m in mounts if m[2] == "cgroup2"]
    if not candidates:
        raise _Unusable("no cgroup v2 mount")
    point, root, _, opts = candidates[0]
    if "ro" in opts or not os.access(point, os.W_OK):
        raise _Unusable(f"cgroup v2 at {point} is read-only or not writable by us")
    base = _dir_of(point, root, own[""])
    have = set(_read(base / "cgroup.controllers").split())
    if missing := [c for c in ("memory", "pids") if c not in have]:
        raise _Unusable(f"cgroup v2 at {base} lacks the {', '.join(missing)} controller(s)")
    enabled = set(_read(base / "cgroup.subtree_control").split())
    if {"memory", "pids"} <= enabled:
        return base
    try:  # children only get a controller the parent enables for its subtree
        _write(base / "cgroup.subtree_control", "+memory +pids")
        return base
    except OSError as exc:
        # EBUSY: the "no internal processes" rule — our cgroup holds processes (us), so it cannot
        # hand domain controllers to children. The usual pure-v2 layout (a systemd service, a
        # container whose entrypoint moved itself into a leaf) has a parent that already enables
        # both for its children: a sibling of our cgroup there is just as nested under every
        # outer limit. We never enable controllers on a parent ourselves (not ours to change).
        parent = base.parent
        if base != Path(point) and {"memory", "pids"} <= set(_read(parent / "cgroup.subtree_control").split()) \
                and os.access(parent, os.W_OK):
            return parent
        raise _Unusable(f"cannot enable memory+pids for children of {base} "
                        f"({errno.errorcode.get(exc.errno, exc.errno)}: it holds processes) and its "
                        f"parent does not enable them") from exc


def _v1_parents(mounts, own) -> dict[str, Path]:
    """Our v1 memory and pids cgroups (each controller is its own hierarchy)."""
    parents = {}
    for ctrl in V1_CONTROLLERS:
        hits = [m for m in mounts if m[2] == "cgroup" and ctrl in m[3]]
        if not hits or ctrl not in own:
            raise _Unusable(f"no cgroup v1 {ctrl} hierarchy")
        point, root, _, opts = hits[0]
        if "ro" in opts or not os.access(point, os.W_OK):
            raise _Unusable(f"cgroup v1 {ctrl} hierarchy at {point} is read-only or not writable by us")
        parents[ctrl] = _dir_of(point, root, own[ctrl])
    return parents


def _sweep(parent: Path) -> None:
    """Remove the empty cgroups of harnesses that died without cleaning up (a SIGKILLed harness
    cannot; its sandboxes died with it through --die-with-parent). Only ``perfgraphs-*-<pid>-*``
    directories of dead pids; rmdir fails, harmlessly, on one that still holds a process."""
    for d in parent.glob("perfgraphs-*-*-*"):
        pid = d.name.rsplit("-", 2)[-2]
        if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            try:
                d.rmdir()
            except OSError:
                pass


class Confinement:
    """Fresh child cgroup(s) for one sandbox: a hard memory limit (no swap) and a task cap.

    A context manager. On enter it creates the cgroup(s) — v2 when our v2 cgroup (or its parent,
    see :func:`_v2_parent`) can give children the memory and pids controllers, else in the v1
    memory and pids hierarchies, each as a child of the cgroup we are in — and sets the limits.
    If neither works, ``available`` is False and ``why_not`` says why in one line; nothing raises.
    On exit every task still inside is SIGKILLed (so a process that double-forked away from the
    sandbox's tree dies too) and the cgroups are removed."""

    KILL_WAIT_S = 5.0  # how long exit waits for killed tasks to leave before giving up (warns)

    def __init__(self, memory_mb: int, max_tasks: int = 512, *, name: str = "sandbox"):
        self.memory_bytes = int(memory_mb) * 2**20
        self.max_tasks = int(max_tasks)
        # unique per harness process and per call: seeds may run concurrently
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:64]
        self.dirname = f"perfgraphs-{safe}-{os.getpid()}-{secrets.token_hex(4)}"
        self.available = False
        self.why_not: str | None = "not entered"
        self.version: int | None = None  # 2 or 1 once available
        self.dirs: dict[str, Path] = {}  # "memory"/"pids" -> cgroup directory (same dir on v2)
        self._procs: tuple[bytes, ...] = ()  # cgroup.procs paths preexec writes to
        self._final: tuple[int | None, bool, bool] | None = None  # readings taken on exit

    # -- lifecycle ---------------------------------------------------------------------------

    def __enter__(self) -> Confinement:
        reasons = []
        for version, make in ((2, self._make_v2), (1, self._make_v1)):
            try:
                make()
            except (_Unusable, OSError, ValueError) as exc:
                self._remove_dirs(wait=False)
                reasons.append(f"v{version}: {exc}")
                continue
            self.available, self.version, self.why_not = True, version, None
            unique = dict.fromkeys(self.dirs.values())  # v2: one directory for both controllers
            self._procs = tuple(os.fsencode(d / "cgroup.procs") for d in unique)
            return self
        self.why_not = "no usable cgroup for memory and task limits (" + "; ".join(reasons) + ")"
        return self

    def __exit__(self, *exc) -> None:
        if self.available:
            self.kill_all()
            # the counters die with the directories: keep the final readings for the caller
            self._final = (self.peak_memory_bytes(), self.memory_limit_hit(), self.task_limit_hit())
            self._remove_dirs(wait=True)
            self.available = False

    def _make_v2(self) -> None:
        mounts, own = _cgroup_mounts(), _own_cgroups()
        _sweep(_v2_parent(mounts, own))
        path = _v2_parent(mounts, own) / self.dirname
        path.mkdir()
        self.dirs = {"memory": path, "pids": path}
        _write(path / "memory.max", str(self.memory_bytes))
        if (path / "memory.swap.max").exists():  # absent when the kernel has no swap accounting
            _write(path / "memory.swap.max", "0")
        if (path / "memory.oom.group").exists():  # an OOM kills the whole sandbox, not one thread
            _write(path / "memory.oom.group", "1")
        _write(path / "pids.max", str(self.max_tasks))
        self.dirs["cpu"] = path  # cpu.stat's usage_usec: in every v2 cgroup, no controller needed

    def _make_v1(self) -> None:
        parents = _v1_parents(_cgroup_mounts(), _own_cgroups())
        for ctrl, parent in parents.items():
            _sweep(parent)
            path = parent / self.dirname
            path.mkdir()
            self.dirs[ctrl] = path
        mem = self.dirs["memory"]
        _write(mem / "memory.limit_in_bytes", str(self.memory_bytes))
        if (mem / "memory.memsw.limit_in_bytes").exists():  # memory+swap: no escape into swap
            _write(mem / "memory.memsw.limit_in_bytes", str(self.memory_bytes))
        _write(self.dirs["pids"] / "pids.max", str(self.max_tasks))
        # CPU accounting where its hierarchy is there (optional: a sandbox without it is still confined,
        # its CPU seconds are then not measured: harness.cpu_clock)
        hits = [m for m in _cgroup_mounts() if m[2] == "cgroup" and "cpuacct" in m[3]]
        own = _own_cgroups()
        if hits and "cpuacct" in own and "ro" not in hits[0][3] and os.access(hits[0][0], os.W_OK):
            try:
                path = _dir_of(hits[0][0], hits[0][1], own["cpuacct"]) / self.dirname
                path.mkdir()
                self.dirs["cpu"] = path
            except (OSError, _Unusable):
                pass

    # -- the child's side --------------------------------------------------------------------

    def preexec(self) -> None:
        """For ``subprocess.Popen(preexec_fn=...)``: runs in the forked child before exec and moves
        it into the cgroup(s), so bwrap and everything it forks are confined from their first
        instruction (moving the child after Popen returns would leave a window). Only raw
        os.open/os.write: the child of a threaded parent must not take locks. A failed move raises,
        which makes Popen raise: never a silently unconfined sandbox. No-op when not available
        (the caller has chosen to run without confinement)."""
        pid = str(os.getpid()).encode()
        for procs in self._procs:
            fd = os.open(procs, os.O_WRONLY)
            try:
                os.write(fd, pid)
            finally:
                os.close(fd)

    # -- readings ----------------------------------------------------------------------------

    def _value(self, ctrl: str, v2_file: str, v1_file: str) -> str | None:
        if not self.available:
            return None
        path = self.dirs[ctrl] / (v2_file if self.version == 2 else v1_file)
        try:
            return _read(path)
        except OSError:  # e.g. memory.peak needs kernel 5.19+
            return None

    def peak_memory_bytes(self) -> int | None:
        """The cgroup's peak charge (anonymous + tmpfs/memfd + page cache + kernel memory) since
        creation; kept in /sys, out of the sandbox's reach. None when unknown. After the block:
        the value at exit."""
        if self._final is not None:
            return self._final[0]
        text = self._value("memory", "memory.peak", "memory.max_usage_in_bytes")
        return int(text) if text and text.strip().isdigit() else None

    def memory_limit_hit(self) -> bool:
        """True when the cgroup's usage ever reached its limit (an OOM kill, or the kernel having
        to reclaim at the limit). Note: reaching the limit can also mean page cache was reclaimed
        without any failure (a predictor streaming large files): this is "touched the ceiling"."""
        if self._final is not None:
            return self._final[1]
        if self.version == 2:
            events = _keyed(self._value("memory", "memory.events", ""))
            return any(events.get(k, 0) > 0 for k in ("max", "oom", "oom_kill"))
        failcnt = self._value("memory", "", "memory.failcnt")
        oom = _keyed(self._value("memory", "", "memory.oom_control"))
        return bool(failcnt and int(failcnt) > 0) or oom.get("under_oom", 0) > 0 or oom.get("oom_kill", 0) > 0

    def cpu_seconds(self) -> float | None:
        """User + system CPU seconds of every task that ever ran in the cgroup, now (None without
        CPU accounting). The kernel charges a task's time to its cgroup as it runs: a child reaped
        by the kernel (SIGCHLD ignored), double-forked away or already gone still counts, which a
        sum over the live process tree misses."""
        if not self.available or "cpu" not in self.dirs:
            return None
        try:
            if self.version == 2:
                usec = _keyed(_read(self.dirs["cpu"] / "cpu.stat")).get("usage_usec")
                return None if usec is None else usec / 1e6
            return int(_read(self.dirs["cpu"] / "cpuacct.usage")) / 1e9
        except (OSError, ValueError):
            return None

    def task_limit_hit(self) -> bool:
        """True when a fork or thread creation was refused at ``max_tasks`` (pids.events)."""
        if self._final is not None:
            return self._final[2]
        return _keyed(self._value("pids", "pids.events", "pids.events")).get("max", 0) > 0

    def tasks(self) -> set[int]:
        """Process ids (in our pid namespace) still inside the cgroup(s)."""
        pids: set[int] = set()
        for d in dict.fromkeys(self.dirs.values()):
            try:
                pids |= {int(p) for p in _read(d / "cgroup.procs").split()}
            except OSError:
                pass
        return pids

    # -- teardown ----------------------------------------------------------------------------

    def kill_all(self) -> bool:
        """SIGKILL every process in the cgroup(s) until none is left or KILL_WAIT_S passed. A
        loop, because a process may fork between our read of cgroup.procs and the kill (pids.max
        bounds how often). True when the cgroup(s) ended empty."""
        if self.version == 2 and (self.dirs["pids"] / "cgroup.kill").exists():
            try:  # kernel 5.14+: kills the whole subtree atomically, no fork race
                _write(self.dirs["pids"] / "cgroup.kill", "1")
            except OSError:
                pass
        deadline = time.monotonic() + self.KILL_WAIT_S
        while pids := self.tasks():
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            if time.monotonic() > deadline:
                warnings.warn(f"confinement {self.dirname}: tasks {sorted(pids)[:8]} survived SIGKILL",
                              RuntimeWarning, stacklevel=2)
                return False
            time.sleep(0.01)
        return True

    def _remove_dirs(self, wait: bool) -> None:
        # rmdir fails with EBUSY while a dying task is still being torn down: retry briefly
        deadline = time.monotonic() + (self.KILL_WAIT_S if wait else 0)
        for ctrl, path in list(self.dirs.items()):
            while True:
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError as exc:
                    if time.monotonic() > deadline:
                        warnings.warn(f"could not remove cgroup {path}: {exc}", RuntimeWarning, stacklevel=2)
                        break
                    time.sleep(0.02)
        self.dirs = {}


def _keyed(text: str | None) -> dict[str, int]:
    """'key value' lines (memory.events, memory.oom_control, pids.events) as a dict."""
    out = {}
    for line in (text or "").splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            out[parts[0]] = int(parts[1])
    return out


# ----------------------------------------------------------------------------------------------
# seccomp
# ----------------------------------------------------------------------------------------------

# Refused with EPERM inside the sandbox, in three groups:
# * kernel state that survives the sandbox (a channel between seeds): the keyrings;
# * large kernel attack surface no predictor needs: bpf, perf_event_open, userfaultfd;
# * re-shaping the sandbox itself: new namespaces (unshare, setns; clone's namespace flags below),
#   and every way to mount (mount, the new mount API, pivot_root, umount2). With a nested user
#   namespace a predictor was root over a fresh cgroup namespace, mounted cgroup2 and rewrote its
#   own memory and task limits; bubblewrap's --disable-userns closes that too (two locks, one door).
# * sched_setaffinity: the harness pins the predictor to the scored cores; it may not widen them.
# * another process's memory: process_vm_readv/writev, pidfd_getfd, process_madvise (which also
#   evicts another process's pages: the page-cache channel by the side door), process_mrelease.
#   Inside the sandbox the child is PID 1 and every other process is forked from it, under the same
#   filters (isolation._no_unfiltered_init: bubblewrap's init, under one filter, was ptrace-d into
#   an execve, 124b); no gain was found through them, but no predictor needs them. ptrace stays (a
#   predictor's profiler of its own children), confined by the same PID namespace.
# * memfd_create: an anonymous file on no mount of the sandbox's, so no noexec flag covers it; a
#   predictor wrote a library it kept gzipped to one and dlopen-ed /proc/self/fd/N (fifty-seventh
#   pass: the writable places are noexec, isolation.SCRATCH_DIRS). shm_open uses /dev/shm instead.
# The same calls Docker's default profile denies to an unprivileged container, less what a
# predictor legitimately uses (ptrace of its own children, personality, ...).
BLOCKED_SYSCALLS = ("add_key", "keyctl", "request_key", "bpf", "perf_event_open", "userfaultfd",
                    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "open_tree", "move_mount",
                    "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr", "sched_setaffinity",
                    "io_uring_setup", "io_uring_enter", "io_uring_register",
                    "process_vm_readv", "process_vm_writev", "pidfd_getfd", "process_madvise", "process_mrelease",
                    "memfd_create")
# Refused with one argument value: evicting pages of a file from the host's page cache
# (posix_fadvise DONTNEED; madvise COLD/PAGEOUT). The page cache of the read-only binds is shared
# with the host and every later sandbox: loading a page sets a bit that a later run reads by timing
# a read, and eviction clears it, a rewritable channel between seeds and folds (the red team's
# second round). Refusing eviction leaves a write-once channel: see leaderboard/RULES.md.
# (syscall, argument index, value): fadvise64(fd, offset, len, advice), madvise(addr, len, advice)
ARGUMENT_RULES = (("fadvise64", 3, 4), ("madvise", 2, 20), ("madvise", 2, 21))
# Sockets of any family but AF_UNIX: the sandbox has no network (its own namespace, loopback only), and on a
# cgroup v1 hierarchy the buffers of loopback TCP sockets are charged to no counter the record reads nor to the
# memory limit: a predictor kept 404 MB in its own loopback connections' queues under a 300 MB limit and was
# stated a 139 MB peak, the ridge example holding 600 MB so a 137 MB one on its page (ninety-fourth pass, side a).
# AF_UNIX buffers are charged like any page (tests/test_leaderboard_redteam_sandbox.py). Refused for any
# first argument other than AF_UNIX, so no higher bits pass either.
SOCKET_CALLS, AF_UNIX = ("socket", "socketpair"), 1
# Answered with ENOSYS: sysinfo(2), the machine's load averages, task count and free memory, read by no path
# that could be masked. They outlive a run: a seed that held a few hundred runnable processes over one of
# the kernel's 5-second load samples set the 1-minute average to the band it wanted, and the next seed,
# started two seconds later, read it exactly, the running mean of the frozen fits before it (seventy-third
# pass, tests/test_leaderboard_review_73b.py). glibc's sysconf(_SC_PHYS_PAGES) and its kin ask sysinfo
# and, refused, return a number of no meaning: nothing a predictor fits or scores may rest on them.
# statfs(2) of any mount the sandbox reads (/job, /inbox, /submission, /usr) answers with the free blocks of the
# host's disk, to the block, and a seed's log (its stdout and stderr, up to 64 MB) is a file of that disk kept
# until the whole submission has run: a seed wrote its stdout until the free-block count fell in the band it
# wanted, and the next seed read the running mean of the frozen fits before it there (seventy-fourth pass,
# tests/test_leaderboard_review_74b.py). A count that other processes move too is no fact a predictor needs.
FILE_SYSTEM_USAGE_SYSCALLS = ("statfs", "fstatfs", "ustat")
MACHINE_WIDE_SYSCALLS = ("sysinfo", *FILE_SYSTEM_USAGE_SYSCALLS)
# clone(2) with any of these flags makes a namespace: refused (the flags are clone's first argument
# on x86-64 and arm64). CLONE_NEWTIME exists only for unshare and clone3.
CLONE_NAMESPACE_FLAGS = {"CLONE_NEWNS": 0x00020000, "CLONE_NEWCGROUP": 0x02000000, "CLONE_NEWUTS": 0x04000000,
                         "CLONE_NEWIPC": 0x08000000, "CLONE_NEWUSER": 0x10000000, "CLONE_NEWPID": 0x20000000,
                         "CLONE_NEWNET": 0x40000000}
# clone3 passes its flags in a struct that seccomp cannot read: it fails with ENOSYS, and the C
# library falls back to clone (glibc does for threads and fork), which the rule above can check.
# What container runtimes do for the same reason.
ENOSYS_SYSCALLS = ("clone3",)

SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_CMP_NE, SCMP_CMP_MASKED_EQ = 1, 7  # libseccomp's enum scmp_compare (MASKED_EQ: (arg & a) == b)


class _ArgCmp(ctypes.Structure):
    """libseccomp's ``struct scmp_arg_cmp``."""
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64),
                ("datum_b", ctypes.c_uint64)]


def int_argument_is(arg: int, value: int) -> _ArgCmp:
    """The comparison "argument ``arg``, a C ``int``, equals ``value``": on its low 32 bits only. Seccomp
    reads all 64 bits of a register, the kernel only the int's 32: compared whole (``SCMP_CMP_EQ``), the
    advice ``(1 << 32) | POSIX_FADV_DONTNEED`` passed the filter, the kernel read DONTNEED and evicted the
    pages of a read-only bind from the host's page cache, the channel ARGUMENT_RULES closes rewritable again
    (ninety-sixth pass, side a; tests/test_leaderboard_review_96a.py)."""
    return _ArgCmp(arg, SCMP_CMP_MASKED_EQ, 0xFFFFFFFF, value)


PR_SET_SECCOMP = 22  # prctl(2)'s option that installs a filter, as seccomp(2)'s SECCOMP_SET_MODE_FILTER does


def _no_stacked_filters() -> list[tuple[str, int, _ArgCmp | None]]:
    """The rules refusing a predictor a seccomp filter of its own: ``seccomp(2)`` and ``prctl(PR_SET_SECCOMP)``.

    Why: a filter's kernel memory is mostly charged to no memory cgroup. The kernel keeps a copy of the classic
    program (kmalloc, for checkpoint/restore) and its machine code (JIT, forced on by BPF_JIT_ALWAYS_ON, in
    executable memory no cgroup charges); only the translated program is charged. Every thread may stack filters
    up to 32,768 instructions: 150 threads of a predictor stacked 1,050 filters of 4,095 instructions under a 256 MB
    limit, the host's unreclaimable slab and vmalloc use grew by 133 MB beside a stated peak of 181 MB, and about
    70 MB of it (68 kB a filter) was charged to no cgroup (hundredth pass, side a;
    tests/test_leaderboard_review_100a.py). The JIT's pool (``bpf_jit_limit``) is the
    whole machine's: a seed that spent it would leave another sandbox's bubblewrap unable to load its own filter.
    No predictor needs a filter of its own."""
    return [("seccomp", errno.EPERM, None), ("prctl", errno.EPERM, int_argument_is(0, PR_SET_SECCOMP))]


SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC = 1, 1  # seccomp(2)'s operation and flag the child loads with
SECCOMP_SYSCALL = {"x86_64": 317, "aarch64": 277}  # seccomp(2)'s number, which Python's os module does not wrap
# What starts another program: a fresh interpreter has none of the child's guards (_no_new_programs)
NEW_PROGRAM_SYSCALLS = ("execve", "execveat")


def _but_the_childs_own_filter(rules: list[tuple[str, int, _ArgCmp | None]]) -> list[tuple[str, int, _ArgCmp | None]]:
    """``rules`` with a refusal of every ``seccomp(2)`` call narrowed to let one form through: the
    ``SECCOMP_SET_MODE_FILTER`` with ``SECCOMP_FILTER_FLAG_TSYNC`` by which the sandbox's child loads
    :func:`no_new_programs_filter` before the predictor's folder is on ``sys.path``. That filter refuses every
    ``seccomp(2)`` call after it, so a predictor stacks no filter of its own (``_no_stacked_filters``, hundredth
    pass) whichever form it asks; ``prctl(PR_SET_SECCOMP)`` stays refused here."""
    out: list[tuple[str, int, _ArgCmp | None]] = []
    for call, err, cmp in rules:
        if call == "seccomp" and cmp is None:
            out += [(call, err, _ArgCmp(0, SCMP_CMP_NE, SECCOMP_SET_MODE_FILTER, 0)),
                    (call, err, _ArgCmp(1, SCMP_CMP_NE, SECCOMP_FILTER_FLAG_TSYNC, 0))]
        else:
            out.append((call, err, cmp))
    return out


def _no_new_programs() -> list[tuple[str, int, _ArgCmp | None]]:
    """The rules refusing the sandbox's child, once loaded, any new program: ``execve(2)`` and ``execveat(2)``.

    Why: the child puts its guards in place in its own process before the predictor is imported (unpickling,
    TorchScript, logging configurations, SymPy, pandas expressions, templates, YAML tags), and a fresh
    interpreter started in the sandbox has none of them. A median whose ``multiprocessing`` pool was started with
    ``get_context("spawn")`` read its ``prior.bin`` in the pool's worker (an 8-byte header, then
    ``pickle.load``): the pickle's ``eval`` of a line no source holds, which the guard refuses in the child and
    no static form shows, ran in the worker, and ``check`` passed with every prediction 1.5 times the median
    (hundred-and-twenty-second pass, side b; tests/test_leaderboard_review_122b.py). A forked process keeps
    the guards, so pools started by ``fork`` (Python's default here, ``datasets``' ``num_proc``, torch's
    ``DataLoader`` workers) still run; a predictor starts no other program."""
    return [(call, errno.EPERM, None) for call in NEW_PROGRAM_SYSCALLS]


def no_new_programs_filter() -> bytes | None:
    """The filter the sandbox's child loads before the predictor's folder is on ``sys.path``
    (:func:`_no_new_programs`, and every ``seccomp(2)`` refused from then on), or None where this machine
    compiles no filter or its architecture's ``seccomp(2)`` number is not known here."""
    if os.uname().machine not in SECCOMP_SYSCALL:
        return None
    return _compile(_no_new_programs() + _no_stacked_filters())[0]


def load_own_filter(program: bytes) -> None:
    """Load ``program`` (a compiled classic-BPF filter) on every thread of this process, on top of the
    sandbox's (``seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC)``); raise OSError where the
    kernel refuses. Threads a library started before are filtered too (TSYNC)."""

    class _Prog(ctypes.Structure):  # struct sock_fprog
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]

    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    prog = _Prog(len(program) // 8, program)
    rc = libc.syscall(ctypes.c_long(SECCOMP_SYSCALL[os.uname().machine]), ctypes.c_uint(SECCOMP_SET_MODE_FILTER),
                      ctypes.c_uint(SECCOMP_FILTER_FLAG_TSYNC), ctypes.byref(prog))
    if rc != 0:
        err = ctypes.get_errno() if rc < 0 else errno.EBUSY  # TSYNC: a positive rc is a thread it could not filter
        raise OSError(err, f"the sandbox could not load its filter of new programs: {os.strerror(err)}")


def _no_native_aio() -> list[tuple[str, int, _ArgCmp | None]]:
    """The rule refusing a predictor a native asynchronous I/O context: ``io_setup(2)`` (without one, no other
    ``io_*`` call does anything).

    Why: ``io_setup`` takes its events from one pool of the whole machine (``/proc/sys/fs/aio-max-nr``), which no
    cgroup, uid or namespace divides and no capability exempts. One ``io_setup(65536)`` by a predictor under a
    256 MB limit took all of it (15 MB charged), and while its seed ran every other process of the host, the root
    harness included, was refused ``io_setup`` with EAGAIN: a rival's run on a shared scoring machine, or the host's
    own database, failed for as long as the seed lived (hundred-and-first pass, side a;
    tests/test_leaderboard_review_101a.py). io_uring is refused already (BLOCKED_SYSCALLS); no predictor needs
    the kernel's AIO."""
    return [("io_setup", errno.EPERM, None)]


# inotify and fanotify instances, POSIX message queues: pools the kernel keeps per host uid (_no_per_user_pools)
PER_USER_POOL_SYSCALLS = ("inotify_init", "inotify_init1", "fanotify_init", "mq_open")


def _no_per_user_pools() -> list[tuple[str, int, _ArgCmp | None]]:
    """The rules refusing a predictor an inotify or fanotify instance and a POSIX message queue.

    Why: the kernel counts each of them per host uid across every user namespace (``fs.inotify.max_user_instances``
    128, ``fs.fanotify.max_user_groups`` 128, ``RLIMIT_MSGQUEUE`` 819,200 bytes), and every sandbox of a root harness
    runs as the same host uid (:func:`perfgraphs.leaderboard.sandbox.isolation.sandbox_user`), so one seed can spend
    the pool of all the others. A predictor under a 256 MB limit took the 128 inotify instances and 9 message queues
    (the 819,200 bytes), and while its seed ran a process of the sandbox's host uid outside it (to the kernel, what
    another team's sandbox on a shared scoring machine is) was refused both with EMFILE (hundred-and-third pass, side a;
    tests/test_leaderboard_review_103a.py). No predictor needs to watch files or queue messages through the kernel."""
    return [(call, errno.EPERM, None) for call in PER_USER_POOL_SYSCALLS]


def scmp_act_errno(err: int) -> int:
    """libseccomp's SCMP_ACT_ERRNO(x) macro: SECCOMP_RET_ERRNO (0x00050000) | the errno."""
    return 0x00050000 | (err & 0x0000FFFF)


def _libseccomp():
    """libseccomp through ``ctypes``, its functions typed, or the one-line reason it cannot be had."""
    name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    try:
        lib = ctypes.CDLL(name, use_errno=True)
    except OSError:
        return None, "libseccomp is not installed (Debian: apt-get install libseccomp2)"
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.restype = ctypes.c_int
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    # the array form of seccomp_rule_add: not variadic, so ctypes passes the comparators portably
    lib.seccomp_rule_add_array.restype = ctypes.c_int
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint,
                                           ctypes.c_void_p]
    lib.seccomp_export_bpf.restype = ctypes.c_int
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    return lib, None


def _compile(rules: list[tuple[str, int, _ArgCmp | None]]) -> tuple[bytes | None, str | None]:
    """(program, None) or (None, reason): a filter that allows every call but ``rules`` (call, errno,
    comparison or None), each refused with its errno."""
    status = Path("/proc/self/status").read_text()
    if "Seccomp:" not in status:
        return None, "the kernel has no seccomp support"
    lib, why = _libseccomp()
    if lib is None:
        return None, why
    # Default ALLOW for the native architecture. libseccomp's generated program KILLs any other
    # architecture (i386 via int 0x80) and, on x86_64, x32-numbered calls: no side door to keyctl.
    ctx = lib.seccomp_init(SCMP_ACT_ALLOW)
    if not ctx:
        return None, "seccomp_init failed"
    try:
        for call, err, cmp in rules:
            nr = lib.seccomp_syscall_resolve_name(call.encode())
            if nr == -1:  # __NR_SCMP_ERROR: libseccomp does not know the name
                continue
            if cmp is None:
                rc = lib.seccomp_rule_add_array(ctx, scmp_act_errno(err), nr, 0, None)
            else:
                rc = lib.seccomp_rule_add_array(ctx, scmp_act_errno(err), nr, 1, ctypes.byref(cmp))
            if rc < 0 and nr >= 0:  # a negative nr is a pseudo-number: not on this arch, skip
                return None, f"seccomp_rule_add({call}) failed: {os.strerror(-rc)}"
        read, write = os.pipe()
        try:
            rc = lib.seccomp_export_bpf(ctx, write)
            os.close(write)
            write = -1
            program = b"".join(iter(lambda: os.read(read, 65536), b""))
        finally:
            os.close(read)
            if write >= 0:
                os.close(write)
        if rc < 0 or not program or len(program) % 8:  # a BPF program is whole 8-byte instructions
            return None, f"seccomp_export_bpf failed ({os.strerror(-rc) if rc < 0 else 'bad length'})"
        return program, None
    finally:
        lib.seccomp_release(ctx)


@functools.lru_cache(maxsize=1)
def _compiled() -> tuple[bytes | None, str | None]:
    """(program, None) or (None, reason): the sandbox's filter. Compiled once: the program never changes."""
    rules = [(call, errno.EPERM, None) for call in BLOCKED_SYSCALLS]
    rules += [(call, errno.ENOSYS, None) for call in (*ENOSYS_SYSCALLS, *MACHINE_WIDE_SYSCALLS)]
    # (call, errno, comparison or None): clone with a namespace flag, (flags & flag) == flag
    rules += [("clone", errno.EPERM, _ArgCmp(0, SCMP_CMP_MASKED_EQ, flag, flag))
              for flag in CLONE_NAMESPACE_FLAGS.values()]
    rules += [(call, errno.EPERM, int_argument_is(arg, value)) for call, arg, value in ARGUMENT_RULES]
    rules += [(call, errno.EPERM, _ArgCmp(0, SCMP_CMP_NE, AF_UNIX, 0)) for call in SOCKET_CALLS]
    rules += _but_the_childs_own_filter(_no_stacked_filters())
    rules += _no_native_aio()
    rules += _no_per_user_pools()
    return _compile(rules)


def seccomp_program() -> bytes | None:
    """The compiled classic-BPF filter bubblewrap's ``--seccomp FD`` expects, or None."""
    return _compiled()[0]


def seccomp_unavailable_reason() -> str | None:
    """None when :func:`seccomp_program` works here; else one line saying why not."""
    return _compiled()[1]


def seccomp_fd() -> int:
    """A fresh readable fd holding the program, for ``bwrap --seccomp FD`` via ``pass_fds``
    (bwrap reads it to EOF, so one fd serves one bwrap; close it in the parent after Popen).
    A pipe whose write end is already closed: nothing can alter the program after this returns.
    Raises RuntimeError when seccomp is unavailable (check :func:`seccomp_unavailable_reason`)."""
    program = seccomp_program()
    if program is None:
        raise RuntimeError(seccomp_unavailable_reason())
    if len(program) > 65536:  # stays within one pipe buffer, so the write below cannot block
        raise RuntimeError("seccomp program larger than a pipe buffer")
    read, write = os.pipe()
    try:
        os.write(write, program)
    finally:
        os.close(write)
    return read


# ----------------------------------------------------------------------------------------------
# the page cache between runs
# ----------------------------------------------------------------------------------------------

DROP_CACHES = Path("/proc/sys/vm/drop_caches")
# what each hidden-board run starts without: the page cache (1) and the reclaimable dentries and inodes (2).
# A run may look up any name in the folders bound from the host, and a name that does not exist stays
# cached as a negative dentry after the run ends: with the page cache alone dropped, each seed of a
# --frozen run timed the lookups the seed before had made (3 microseconds cached, 60 and more read from
# the disk) and read the earlier seeds' states from them, 248 bits a seed (sixty-ninth pass)
DROP_CACHES_WHAT = "3"


def drop_page_cache() -> str | None:
    """Empty the host's page cache of clean pages, and its dentry and inode caches of what no process
    holds (:data:`DROP_CACHES_WHAT`), before a run: None when done, else why not.

    The read-only binds share the host's page cache and dentries, so one run can leave pages or names
    cached that a later run finds by timing a read or a lookup (a write-once channel, since eviction is
    refused inside the sandbox: ARGUMENT_RULES). On a public board that carries nothing a predictor
    could not read anyway; on a hidden board it could carry what one part saw to the next, so every
    hidden-board run starts on empty caches, and a harness that cannot drop them (not root) does not
    score hidden boards."""
    os.sync()  # dirty pages are not dropped: write them first
    try:
        with open(DROP_CACHES, "w") as f:
            f.write(f"{DROP_CACHES_WHAT}\n")
    except OSError as exc:
        return (f"cannot drop the page cache ({DROP_CACHES}: {exc.strerror or exc}): hidden boards are scored only "
                "by a harness that can (root on the scoring machine), so no run sees pages an earlier one loaded")
    return None
