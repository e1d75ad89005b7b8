"""Start bubblewrap as an unprivileged host user when the harness runs as root (standard library
only; run as ``python -I -S launch.py UID GID N E [SRC STAGE]*N M [SCRATCH]*M -- BWRAP ARGS...``).

Why: bubblewrap started by root maps the sandbox's user to host root. The sandbox holds no
capabilities, but host root's file ownership, its uid in every kernel check and whatever a kernel
bug lets through are root's. Started by an unprivileged uid, a predictor that somehow left every
namespace would be that uid: no file of the host's is its own.

Why a launcher: an unprivileged bubblewrap must be able to reach every folder it binds, and the
harness's (a Python under ``/root``, a job folder under a private temporary folder) are root's own.
So, still root, this process takes a private mount namespace, binds each such source onto an
empty world-traversable ``STAGE`` folder (visible in this namespace only: the host sees empty
folders), drops to ``UID``/``GID`` with no supplementary groups, and executes bubblewrap, which
binds the stages to the paths the sandbox expects. Nothing here outlives the exec.

Each ``SCRATCH`` folder gets a fresh tmpfs mounted ``noexec`` (world-writable, sticky), which bubblewrap
binds where the sandbox writes (``/tmp``, ``/dev/shm``): bubblewrap's own ``--tmpfs`` allows execution,
and a predictor that wrote a library kept gzipped in its folder to ``/tmp`` and ``dlopen``ed it ran
machine code no review reads (fifty-seventh pass). The kernel refuses an executable mapping of a file
on a ``noexec`` mount, whichever loader asks, and the sandbox's user namespace cannot lift the flag.
Every staged bind after the first ``E`` (the Python environment's) is ``noexec`` too (the package code, the
submission, the job and inbox folders): a median that mapped 24 bytes of machine code of its folder's
``scale.bin`` with ``PROT_EXEC`` straight from ``/submission`` ran them (hundred-and-sixteenth pass, side a).
"""

import ctypes
import os
import sys

CLONE_NEWNS = 0x00020000
MS_NOSUID, MS_NODEV, MS_NOEXEC = 0x2, 0x4, 0x8
MS_BIND, MS_REC, MS_PRIVATE, MS_REMOUNT = 0x1000, 0x4000, 0x40000, 0x20


def _check(rc: int, what: str) -> None:
    if rc != 0:
        err = ctypes.get_errno()
        sys.stderr.write(f"perfgraphs sandbox launcher: {what} failed: {os.strerror(err)}\n")
        sys.exit(126)


def host_id(arg: str, pid: int) -> int:
    """The host uid or gid an argument names: ``N`` is N itself, ``+N`` is N plus ``pid`` (the launcher's own pid,
    which bubblewrap keeps after the exec and whose death kills the sandbox through ``--die-with-parent``), so that
    no two sandboxes alive at once share a host uid.

    Why: the kernel keeps some pools per host uid across every user namespace: pipe pages
    (``fs.pipe-user-pages-soft``), queued signals (``RLIMIT_SIGPENDING``), inotify instances, message queues. When
    every sandbox ran as one uid, a predictor under a 256 MB limit held 64 pipes of 1 MB (the 16,384 pages) and
    96,367 queued real-time signals, and while its seed ran a process of that uid outside it (to the kernel, another
    team's sandbox) got pipes of 8,192 bytes instead of 65,536, was refused ``F_SETPIPE_SZ`` with EPERM and
    ``timer_create`` with EAGAIN (hundred-and-fourth pass, side a; tests/test_leaderboard_review_104a.py)."""
    return int(arg[1:]) + pid if arg.startswith("+") else int(arg)


def make_noexec(libc, stage: str, source: str) -> None:
    """Remount the bind at ``stage`` ``noexec`` (and ``nosuid``, ``nodev``): no file of it can be mapped
    executable, whichever loader asks. Why: a median that kept 24 bytes of machine code (no ELF, data to every
    check) in its folder's ``scale.bin`` mapped them with ``PROT_EXEC`` straight from ``/submission`` and called
    them through ``ctypes`` (hundred-and-sixteenth pass, side a; tests/test_leaderboard_review_116a.py)."""
    _check(libc.mount(None, os.fsencode(stage), None, MS_BIND | MS_REMOUNT | MS_NOSUID | MS_NODEV | MS_NOEXEC, None),
           f"making {source} noexec")


def main(argv: list[str]) -> None:
    uid, gid, n, keep_exec = host_id(argv[0], os.getpid()), host_id(argv[1], os.getpid()), int(argv[2]), int(argv[3])
    pairs = argv[4:4 + 2 * n]
    m = int(argv[4 + 2 * n])
    scratch = argv[5 + 2 * n:5 + 2 * n + m]
    if argv[5 + 2 * n + m] != "--" or uid == 0 or gid == 0:
        sys.stderr.write("perfgraphs sandbox launcher: bad arguments\n")
        sys.exit(126)
    command = argv[6 + 2 * n + m:]
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p]
    _check(libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    # nothing mounted below propagates back to the host's namespace
    _check(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "making / private")
    for i, (source, stage) in enumerate(zip(pairs[0::2], pairs[1::2])):
        _check(libc.mount(os.fsencode(source), os.fsencode(stage), None, MS_BIND | MS_REC, None),
               f"binding {source}")
        if i >= keep_exec:  # data and source only: nothing there is mapped executable
            make_noexec(libc, stage, source)
    for folder in scratch:  # where the sandbox writes: no file there can be mapped executable
        _check(libc.mount(b"tmpfs", os.fsencode(folder), b"tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, b"mode=1777"),
               f"mounting a noexec tmpfs on {folder}")
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    if os.getuid() == 0 or os.geteuid() == 0:  # never go on as root
        sys.exit(126)
    os.execv(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
