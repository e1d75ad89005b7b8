"""Isolation of submitted code with bubblewrap (``bwrap``), the sandbox Flatpak uses.

A predictor process sees a root file system built from nothing: the system's ``/usr`` read-only,
the Python installation and virtual environment read-only, a *copy* of the perfgraphs package code
(Python files only, no data, no results, no reference predictions), the submission folder
read-only, its job folder (training and validation parts) read-only, the test inputs when the
parent hands them over, and a private ``/tmp``. It has its own PID namespace (its ``/proc`` lists
only itself), no network, no capabilities, no user namespace of its own (``--disable-userns``),
runs as ``nobody`` and dies with the harness (``--die-with-parent``; every process it forked dies
with the namespace). On the host it is never root: a harness running as root starts bubblewrap
through :mod:`perfgraphs.leaderboard.sandbox.launch`, as :data:`DEFAULT_SANDBOX_UID` plus the launcher's pid
(:func:`per_run_host_user`: a host uid of its own for each live sandbox). An installed
(non-editable) perfgraphs package, whose package data holds labels, is covered by an empty tmpfs. The repository
checkout, ``PERFGRAPHS_HOME``, the results folder and the environment variables of the parent are
simply not there.

Why bubblewrap and not a home-made filter: a filter has to foresee every path a cheat could take
(symlinks, ``/proc``, the dataset cache, the package's own loaders); a namespace that never
contains the data needs to foresee nothing.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from perfgraphs.paths import CODE_EXCLUDE, is_staged_data

# Where things appear inside the sandbox.
JOB_MOUNT = "/job"  # training and validation parts, job.json (read-only)
INBOX_MOUNT = "/inbox"  # test inputs, written by the parent only after fit (read-only)
CODE_MOUNT = "/opt/perfgraphs-code"  # the staged package code (read-only)
SUBMISSION_MOUNT = "/submission"  # the submitted folder (read-only)
WORK_DIR = "/tmp/work"  # the predictor's current directory (private tmpfs)

# Environment variables a predictor may inherit: thread counts and nothing that names a path of
# the host (PERFGRAPHS_HOME, MLFLOW_TRACKING_URI, HF caches, the CI's secrets all stay outside).
PASSED_ENV = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "LANG", "LC_ALL", "TZ")
# Host folders the system's shared libraries and locale data live in (read-only); on a merged-/usr
# system /lib, /lib64, /bin and /sbin are symlinks into /usr and are recreated as such.
SYSTEM_DIRS = ("/usr", "/lib", "/lib64", "/bin", "/sbin")
SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/passwd", "/etc/group", "/etc/localtime", "/etc/nsswitch.conf")
# Package folders of perfgraphs whose Python code a predictor may import, and the package data staged
# with it: in perfgraphs.paths, which the exposure scan (a records module) reads too
# The host user a sandbox runs as when the harness is root: no account, file or other process of a
# usual system has it (nobody's 65534 does: other daemons run as nobody).
DEFAULT_SANDBOX_UID = 1_999_999


class IsolationUnavailable(Exception):
    """bubblewrap is missing or cannot create namespaces on this machine."""


@functools.lru_cache(maxsize=1)
def unavailable_reason() -> str | None:
    """None when bubblewrap works here; else one line saying why not (checked once per process by
    running a real sandbox, so a bwrap that exists but cannot create namespaces counts as absent)."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed (Debian: apt-get install bubblewrap)"
    probe = [bwrap, *_namespace_flags(), *_system_binds(), "--", "/bin/true"]
    try:
        user = sandbox_user()
    except IsolationUnavailable as exc:
        return str(exc)
    if user is not None:  # as the harness will run it: dropped to the sandbox's user first
        probe = [sys.executable, "-I", "-S", str(LAUNCHER), *per_run_host_user(user), "0", "0", "0", "--", *probe]
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap could not run ({type(exc).__name__})"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return f"bubblewrap cannot create a sandbox on this machine ({last[:160]})"
    return None


# The child is the sandbox's PID 1 itself (bubblewrap's --as-pid-1; off only in the control of
# tests/test_leaderboard_review_124b.py): see _no_unfiltered_init
CHILD_AS_PID_1 = True


def _no_unfiltered_init() -> list[str]:
    """``--as-pid-1``: no bubblewrap init in the sandbox's PID namespace, so every process a predictor can see
    is the child or forked from it, under the child's filter of new programs. Why: bubblewrap's init, the
    child's parent, has only the sandbox's filter, and the same uid, no capabilities and a dumpable memory as
    the predictor: a predictor ``ptrace``-attached it (``/proc/1/mem`` opens under the same check), pointed it
    at an ``execve`` of the Python of the environment, and that interpreter, with one filter and none of the
    child's guards, evaluated a pickle's ``eval`` (hundred-and-twenty-fourth pass, side b;
    tests/test_leaderboard_review_124b.py). As PID 1 the child reaps no orphan but its own pools' workers;
    the sandbox's end takes the rest."""
    return ["--as-pid-1"] if CHILD_AS_PID_1 else []


def _namespace_flags() -> list[str]:
    # every namespace (pid, net, ipc, uts, cgroup, user, mount), an unprivileged uid, no
    # capabilities, no controlling terminal (TIOCSTI), dead when the harness dies, and no user
    # namespace of its own (--disable-userns, bubblewrap >= 0.8: inside a nested one a predictor is
    # root over fresh cgroup and mount namespaces; the seccomp filter refuses the calls as well)
    return ["--unshare-all", "--unshare-user", "--disable-userns", "--uid", "65534", "--gid", "65534",
            "--cap-drop", "ALL", "--die-with-parent", "--new-session", *_no_unfiltered_init()]


def _system_binds() -> list[str]:
    args = []
    for path in SYSTEM_DIRS:
        p = Path(path)
        if p.is_symlink():
            args += ["--symlink", os.readlink(p), path]
        elif p.is_dir():
            args += ["--ro-bind", path, path]
    for path in SYSTEM_FILES:
        if Path(path).is_file():
            args += ["--ro-bind", path, path]
    return args + ["--proc", "/proc", "--dev", "/dev", *_no_terminals(), *_masked_proc()]


def _no_terminals() -> list[str]:
    """bubblewrap's arguments covering the sandbox's ``/dev/pts`` with an empty read-only tmpfs, so
    ``/dev/ptmx`` (a link into it) leads nowhere and no pseudo-terminal can be opened.

    Why: a pseudo-terminal pair's kernel memory (two tty structures, two line disciplines' buffers,
    what is written and not read) is charged to no memory cgroup, and the kernel's pool of them is
    shared by the whole machine. A predictor that opened the 3,071 pairs its devpts instance could have
    and filled them held about 300 MB of kernel memory (slab and vmalloc) under a 300 MB limit, stated
    as a 16 MB peak, and left no pair for any other sandbox on the machine (ninety-seventh pass, side a;
    tests/test_leaderboard_review_97a.py). No predictor needs a terminal."""
    return ["--tmpfs", "/dev/pts", "--remount-ro", "/dev/pts"]


# What of the host kernel's /proc a sandbox sees: its own processes (the pid namespace's folders,
# ``self``, ``thread-self`` and the links into them), the CPU's description, the kernel's version,
# command line and file systems (facts fixed at boot), and ``/proc/sys`` (tunables, read-only to it)
# less ``/proc/sys/fs`` (counts of open files, inodes and dentries). Every other entry of the top of
# /proc is covered: a file by the host's /dev/null (read empty, or refused where the mount belongs to
# the sandbox's user namespace, which opens no device), a folder by an empty read-only tmpfs.
# Those entries are machine-wide, and a run can move many of them at will while nothing resets them
# when it ends, so a run left one at a value it chose for the next run to read: the seeds of a
# --frozen hidden run relayed the running mean of their fits' levels through /proc/vmstat's
# unevictable_pgs_mlocked modulo 2**28 (seventieth pass), then through the memory pressure-stall total
# of /proc/pressure/memory, to the microsecond, by reading a large file at their memory limit
# (seventy-second pass), each file masked once found. Counters and gauges of the whole machine are a
# family (/proc/stat's forks and context switches, /proc/loadavg, /proc/uptime's idle time, the
# interrupts, the disks' reads, the free pages by order, locks, keys): an allow-list of what a
# predictor has a use for closes the family at once, as a container runtime masks /proc by default.
# glibc counts the CPUs from /sys/devices/system/cpu/online (bound: :data:`CPU_FACTS`) and, without it,
# from the run's CPU affinity, so os.cpu_count() holds without /proc/stat.
PROC_SHOWN = ("self", "thread-self", "mounts", "net", "cpuinfo", "version", "cmdline", "filesystems", "sys")
PROC_HIDDEN_FOLDERS = ("/proc/sys/fs",)
CPU_FACTS = ("/sys/devices/system/cpu/online", "/sys/devices/system/cpu/possible",
             "/sys/devices/system/cpu/present")


def _masked_proc() -> list[str]:
    """bubblewrap's arguments, after the sandbox's ``/proc`` is mounted, covering every entry of the
    host's ``/proc`` that is not a process's folder or in :data:`PROC_SHOWN`, and the folders of
    :data:`PROC_HIDDEN_FOLDERS` (the sandbox's ``/proc`` is the host kernel's: what it lacks is not
    listed, and what it has is covered), then binding :data:`CPU_FACTS` read-only."""
    args = []
    hidden = [f"/proc/{name}" for name in sorted(os.listdir("/proc")) if not name.isdigit() and name not in PROC_SHOWN]
    for path in (*hidden, *PROC_HIDDEN_FOLDERS):
        if os.path.islink(path) or not os.path.exists(path):
            continue  # a link leads into self/ (mounts, net); a file the kernel dropped is not there to cover
        if os.path.isdir(path):
            args += ["--tmpfs", path, "--remount-ro", path]
        else:
            args += ["--ro-bind", "/dev/null", path]
    return args + [arg for path in CPU_FACTS if os.path.isfile(path) for arg in ("--ro-bind", path, path)]


# Where a predictor writes: a private /tmp and /dev/shm (POSIX shared memory and semaphores, which
# multiprocessing's locks and queues take); nothing else is writable (bubblewrap's root and /dev,
# whose folders it makes, are remounted read-only once built). A root harness's launcher mounts each
# scratch place as a fresh tmpfs with noexec (bubblewrap's --tmpfs cannot): a predictor that wrote a
# library it kept gzipped (no ELF file to the static check) to /tmp, /dev/shm or the root and dlopen-ed
# it ran machine code no review reads (fifty-seventh pass). An unprivileged harness has no launcher:
# its scratch places are bubblewrap's tmpfs, which allow execution.
SCRATCH_DIRS = ("/tmp", "/dev/shm")
NOEXEC_SCRATCH = True  # tests turn it off to show what it refuses
# The launcher also binds the package code, the submission, the job and the inbox noexec: a median mapped machine
# code its folder kept in a `scale.bin` (no ELF) straight from /submission (hundred-and-sixteenth pass, side a).
NOEXEC_DATA = True  # tests turn it off to show what it refuses


def _scratch(stage: Path | None) -> tuple[list[str], list[str]]:
    """(bubblewrap's arguments for the scratch places, the launcher's folders to mount noexec)."""
    args, mounts = [], []
    for i, dest in enumerate(SCRATCH_DIRS):
        if stage is None or not NOEXEC_SCRATCH:
            args += ["--tmpfs", dest]
            continue
        folder = stage / f"scratch{i}"
        folder.mkdir(mode=0o755, exist_ok=True)
        mounts.append(str(folder))
        args += ["--bind", str(folder), dest]
    return args, mounts


def readable_root(path: Path, also: tuple[Path, ...] = ()) -> Path | None:
    """The folder or file every sandbox reads that holds ``path`` (a system folder or file, the
    interpreter and its packages, or one of ``also``: the submission's own folder), or None when no
    sandbox can read it. A keeper folder of hidden labels must give None."""
    target = Path(path).expanduser().resolve()
    for root in bound_roots() + [Path(a).resolve() for a in also]:
        if target == root or root in target.parents:
            return root
    return None


def bound_roots() -> list[Path]:
    """The host's folders and files every sandbox reads, read-only, whatever it runs: the system's and the
    interpreter's with its packages (not a submission's own folder, nor the staged code copy)."""
    return [Path(p).resolve() for p in (*SYSTEM_DIRS, *SYSTEM_FILES) if Path(p).exists()] + _python_roots()


def _python_roots() -> list[Path]:
    """The interpreter and its packages, read-only, at their own paths (a venv's scripts and
    ``pyvenv.cfg`` name them absolutely): the prefixes, and any other ``site-packages`` folder on
    ``sys.path`` (a venv layered on another through a ``.pth`` file). Never another ``sys.path``
    entry: the test runner or an editable install puts the repository checkout there."""
    roots = {Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve(), Path(sys.executable).resolve().parent}
    roots |= {Path(p).resolve() for p in sys.path if p and Path(p).name in ("site-packages", "dist-packages")
              and Path(p).is_dir()}
    ordered = sorted(roots, key=lambda p: len(p.parts))
    kept: list[Path] = []
    for root in ordered:  # a folder inside one already bound needs no bind of its own
        if not any(root == k or k in root.parents for k in kept):
            kept.append(root)
    return kept


def _installed_package_dirs() -> list[Path]:
    """``perfgraphs`` folders of a regular (non-editable) install inside the bound site-packages:
    a wheel ships package data there (the predict artifacts' labelled rows, committed splits and
    records), which a predictor must not read. Each is covered by an empty tmpfs in the sandbox;
    the predictor imports the staged code copy instead (``PYTHONPATH``)."""
    found = []
    for p in sys.path:
        if p and Path(p).name in ("site-packages", "dist-packages") and (Path(p) / "perfgraphs").is_dir():
            found.append((Path(p) / "perfgraphs").resolve())
    return sorted(set(found))


def staged_files() -> Iterator[tuple[Path, Path]]:
    """(host file, its path under the staged folder) for every file :func:`stage_code` copies: the Python
    code of the perfgraphs package (every sub-package, wherever the install maps it) and the package data
    the code reads, never a data, results or cache folder. One listing for the copy and for the check that
    a hidden run's staged files are the bytes git holds (``frozen_fits.staged_files_not_committed``)."""
    import perfgraphs

    roots = {"": Path(perfgraphs.__file__).resolve().parent}
    for sub in ("benchmarks",):
        module = sys.modules.get(f"perfgraphs.{sub}") or __import__(f"perfgraphs.{sub}", fromlist=["_"])
        roots[sub] = Path(module.__file__).resolve().parent
    for sub, src in roots.items():
        target = Path("perfgraphs", sub) if sub else Path("perfgraphs")
        for path in src.rglob("*"):
            rel = path.relative_to(src)
            if any(part in CODE_EXCLUDE for part in rel.parts[:-1]) or path.is_symlink() or not path.is_file():
                continue
            if not sub and rel.parts[0] in roots:  # a sub-package that lives elsewhere is copied from there
                continue
            if path.suffix == ".py" or (not sub and is_staged_data(rel.parts)):
                yield path, target / rel


def stage_code(dest: Path) -> Path:
    """Copy the Python code of the perfgraphs package and the package data it reads
    (:func:`staged_files`) into ``dest/perfgraphs``. Returns ``dest``, the folder to put on ``sys.path``."""
    for path, rel in staged_files():
        out = dest / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, out)
    make_readable(dest)  # the sandbox's host user is not the harness's (sandbox_user)
    return dest


@dataclass(frozen=True)
class SandboxPaths:
    job: Path  # host folder bound read-only at /job
    inbox: Path  # host folder bound read-only at /inbox
    code: Path  # staged code, bound at /opt/perfgraphs-code
    submission: Path  # the submission folder, bound at /submission


def outer_environment() -> dict[str, str]:
    """The environment bwrap itself runs with: enough to find the system's binaries, nothing that
    names a host path of this project (bwrap is PID 1 inside the sandbox, readable there)."""
    return {"PATH": "/usr/bin:/bin", **{k: os.environ[k] for k in PASSED_ENV if k in os.environ}}


def sandbox_user() -> tuple[int, int] | None:
    """The base of the host uid and gid a sandbox runs as when the harness is root, which the launcher offsets by its
    pid (:func:`per_run_host_user`; None otherwise: bubblewrap
    then maps the sandbox to the harness's own, unprivileged, user). ``PERFGRAPHS_SANDBOX_UID``
    overrides the default, a uid no account or file of a usual system has."""
    if os.geteuid() != 0:
        return None
    uid = int(os.environ.get("PERFGRAPHS_SANDBOX_UID", DEFAULT_SANDBOX_UID))
    if uid <= 0:
        raise IsolationUnavailable(f"PERFGRAPHS_SANDBOX_UID={uid}: the sandbox's host user must not be root")
    return uid, uid


def per_run_host_user(user: tuple[int, int]) -> tuple[str, str]:
    """The launcher's uid and gid arguments for :func:`sandbox_user`: ``+N``, N plus the launcher's pid
    (:func:`perfgraphs.leaderboard.sandbox.launch.host_id`), a host uid of its own for each sandbox alive.

    Why: the kernel counts pipe pages, queued signals, inotify instances and message queues per host uid, and with one
    uid for every sandbox a seed that held them shrank or refused the pipes and timers of every other run of that uid
    (hundred-and-fourth pass, side a; tests/test_leaderboard_review_104a.py). A uid of its own closes every such pool
    at once: what a seed spends is its own, and given back when its processes die. A pid is unique only in its
    own PID namespace: the base is moved by :func:`pid_namespace_offset` first."""
    offset = pid_namespace_offset(user[0])
    return f"+{user[0] + offset}", f"+{user[1] + offset}"


PROC_PID_INIT_INO = 0xEFFFFFFC  # the inode number of the initial PID namespace (the kernel's PROC_PID_INIT_INO)
PID_MAX_LIMIT = 4_194_304  # no pid of any namespace reaches it (the kernel's PID_MAX_LIMIT on 64-bit)


def pid_namespace_offset(base: int) -> int:
    """How far the sandbox uids of a harness in this PID namespace are moved from ``base``: 0 in the host's initial
    namespace, else a stretch of :data:`PID_MAX_LIMIT` uids of its own, chosen by the namespace's inode number (unique
    among live namespaces; a harness's namespace outlives every sandbox it started, which die with it).

    Why: the launcher adds its pid to the base, and a pid is unique only in its namespace. Two root harnesses in two
    containers that share the host's uids (a CI runner's jobs, a keeper started with ``unshare --pid``) number their
    processes from 1 alike: each harness started in a fresh PID namespace gave its sandbox the same host uid,
    1999999 plus the same small pid, and the per-uid pools of pass 104a were shared again (hundred-and-fifth pass,
    side a; tests/test_leaderboard_review_105a.py). The stretches wrap after about a thousand namespaces' numbers
    (the uid space ends at 2**32 - 2)."""
    try:
        inode = os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return 0
    slots = max(1, (2**32 - 2 - base) // PID_MAX_LIMIT - 1)
    k = inode - PROC_PID_INIT_INO
    return 0 if k <= 0 else (1 + (k - 1) % slots) * PID_MAX_LIMIT


def _stage_root() -> Path:
    """Empty, world-traversable folders the launcher binds root-only sources onto (in its private
    mount namespace only, so one set serves every concurrent sandbox of this process)."""
    global _STAGE
    if _STAGE is None or not _STAGE.is_dir():
        _STAGE = Path(tempfile.mkdtemp(prefix="perfgraphs-stage-", dir="/tmp"))
        _STAGE.chmod(0o755)
        atexit.register(shutil.rmtree, _STAGE, True)
    return _STAGE


_STAGE: Path | None = None
LAUNCHER = Path(__file__).resolve().parent / "launch.py"


def make_readable(path: Path) -> None:
    """Give everyone read access to a folder the sandbox reads (its user is not the harness's):
    folders r-x, files r--, added to whatever the owner has; symlinks are left alone."""
    for p in [path, *path.rglob("*")]:
        if p.is_symlink():
            continue
        mode = p.stat().st_mode
        p.chmod(mode | (0o555 if p.is_dir() else 0o444))


def command(paths: SandboxPaths, argv: list[str], seccomp_fd: int | None = None) -> list[str]:
    """The command line that runs ``argv`` (a Python invocation) inside the sandbox;
    ``seccomp_fd``: a compiled filter (:func:`perfgraphs.leaderboard.sandbox.confine.seccomp_fd`). When the
    harness is root it starts with the launcher (:mod:`perfgraphs.leaderboard.sandbox.launch`), which
    drops to :func:`sandbox_user` before bubblewrap runs; the folders of ``paths`` must then be
    readable by that user (:func:`make_readable`)."""
    bwrap = shutil.which("bwrap")
    if bwrap is None or unavailable_reason() is not None:
        raise IsolationUnavailable(unavailable_reason() or "bubblewrap is not available")
    env = ["--clearenv", "--setenv", "HOME", "/tmp/home", "--setenv", "PATH", "/usr/bin:/bin",
           "--setenv", "PYTHONPATH", CODE_MOUNT, "--setenv", "PYTHONDONTWRITEBYTECODE", "1",
           "--setenv", "PYTHONUNBUFFERED", "1", "--setenv", "HF_DATASETS_OFFLINE", "1",
           "--setenv", "HF_HUB_OFFLINE", "1", "--setenv", "MPLCONFIGDIR", "/tmp/home/.mpl",
           "--setenv", "USER", "nobody", "--setenv", "LOGNAME", "nobody"]
    for name in PASSED_ENV:
        if name in os.environ:
            env += ["--setenv", name, os.environ[name]]
    # (source on the host, path in the sandbox): every bind besides the system's
    # (the Python environment's keep exec; the launcher mounts the others noexec: 116th pass, side a)
    roots = [(str(r), str(r)) for r in _python_roots()]
    binds = [*roots, (str(paths.code), CODE_MOUNT),
             (str(paths.submission), SUBMISSION_MOUNT), (str(paths.job), JOB_MOUNT), (str(paths.inbox), INBOX_MOUNT)]
    user = sandbox_user()
    staged: list[str] = []
    if user is not None:
        stage = _stage_root()
        for i, (source, dest) in enumerate(binds):
            (stage / str(i)).mkdir(mode=0o755, exist_ok=True)
            staged += [source, str(stage / str(i))]
            binds[i] = (str(stage / str(i)), dest)
    masks = []
    for package in _installed_package_dirs():
        masks += ["--tmpfs", str(package), "--remount-ro", str(package)]
    scratch, scratch_mounts = _scratch(_stage_root() if user is not None else None)
    sandbox = [bwrap, *_namespace_flags(), *_system_binds(), *scratch,
               *(arg for source, dest in binds for arg in ("--ro-bind", source, dest)), *masks,
               "--dir", "/tmp/home", "--dir", WORK_DIR, "--chdir", WORK_DIR,
               *(["--remount-ro", "/dev", "--remount-ro", "/"] if NOEXEC_SCRATCH else []),
               *(["--seccomp", str(seccomp_fd)] if seccomp_fd is not None else []),
               *env, "--", *argv]
    if user is None:
        return sandbox
    keep_exec = len(roots) if NOEXEC_DATA else len(binds)
    return [sys.executable, "-I", "-S", str(LAUNCHER), *per_run_host_user(user), str(len(staged) // 2),
            str(keep_exec), *staged, str(len(scratch_mounts)), *scratch_mounts, "--", *sandbox]


def staged_code_dir(parent: Path) -> Path:
    """A fresh staged copy of the package code under ``parent`` (one per submission: the code
    being scored is the code of this checkout at this moment)."""
    return stage_code(Path(tempfile.mkdtemp(prefix="code-", dir=parent)))
