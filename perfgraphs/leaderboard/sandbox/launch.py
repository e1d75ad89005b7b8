"""Start bubblewrap as an unprivileged host user when the harness runs as root (standard library
only; run as ``python -I -S launch.py UID GID N [SRC STAGE]*N -- BWRAP ARGS...``).

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
"""

import ctypes
import os
import sys

CLONE_NEWNS = 0x00020000
MS_BIND, MS_REC, MS_PRIVATE = 0x1000, 0x4000, 0x40000


def _check(rc: int, what: str) -> None:
    if rc != 0:
        err = ctypes.get_errno()
        sys.stderr.write(f"perfgraphs sandbox launcher: {what} failed: {os.strerror(err)}\n")
        sys.exit(126)


def main(argv: list[str]) -> None:
    uid, gid, n = int(argv[0]), int(argv[1]), int(argv[2])
    pairs = argv[3:3 + 2 * n]
    if argv[3 + 2 * n] != "--" or uid == 0 or gid == 0:
        sys.stderr.write("perfgraphs sandbox launcher: bad arguments\n")
        sys.exit(126)
    command = argv[4 + 2 * n:]
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p]
    _check(libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    # nothing mounted below propagates back to the host's namespace
    _check(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "making / private")
    for source, stage in zip(pairs[0::2], pairs[1::2]):
        _check(libc.mount(os.fsencode(source), os.fsencode(stage), None, MS_BIND | MS_REC, None),
               f"binding {source}")
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    if os.getuid() == 0 or os.geteuid() == 0:  # never go on as root
        sys.exit(126)
    os.execv(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
