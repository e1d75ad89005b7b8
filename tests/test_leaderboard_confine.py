"""Kernel-enforced confinement of a predictor (perfgraphs.leaderboard.sandbox.confine), tested for real:
real cgroups, real bubblewrap sandboxes, a real seccomp filter. Each test is skipped, with the
reason, where this machine lacks what it needs (cgroups we may create, bwrap, libseccomp)."""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from perfgraphs.leaderboard.sandbox import confine, isolation

MB = 2**20


def _cgroups_reason() -> str | None:
    with confine.Confinement(64, name="probe") as box:
        return None if box.available else box.why_not


CGROUPS_REASON = _cgroups_reason()
needs_cgroups = pytest.mark.skipif(CGROUPS_REASON is not None, reason=f"cgroups unusable: {CGROUPS_REASON}")
needs_bwrap = pytest.mark.skipif(isolation.unavailable_reason() is not None,
                                 reason=f"bubblewrap unusable: {isolation.unavailable_reason()}")
needs_seccomp = pytest.mark.skipif(confine.seccomp_unavailable_reason() is not None,
                                   reason=f"seccomp unusable: {confine.seccomp_unavailable_reason()}")


def _sandbox(tmp_path: Path, code: str, extra: list[str] = ()) -> list[str]:
    """The harness's own bwrap command line (isolation.command) running ``code``; ``extra`` bwrap
    options go before the command."""
    dirs = {}
    for part in ("job", "inbox", "code", "submission"):
        dirs[part] = tmp_path / part
        dirs[part].mkdir(exist_ok=True)
    argv = isolation.command(isolation.SandboxPaths(**dirs), [sys.executable, "-c", textwrap.dedent(code)])
    cut = len(argv) - 1 - argv[::-1].index("--")  # bwrap's own "--" (a root harness's launcher has one before)
    return argv[:cut] + list(extra) + argv[cut:]


def _run(box: confine.Confinement, argv: list[str], timeout: float = 40, **kw) -> subprocess.CompletedProcess:
    # as the harness spawns a seed: own session, moved into the cgroup before exec
    env = isolation.outer_environment() if argv[0].endswith("bwrap") else None
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env,
                          preexec_fn=box.preexec, start_new_session=True, **kw)


@needs_cgroups
@needs_bwrap
def test_tmpfs_counts_against_the_memory_limit(tmp_path):
    # The red team's hole: pages in the sandbox's private /tmp are no one's resident memory.
    # In a memory cgroup they are charged like any other page, so filling /tmp hits the limit.
    code = """
        import os
        block = os.urandom(1 << 20)
        with open("/tmp/fill", "wb") as f:
            for i in range(600):
                f.write(block)
                f.flush()
        print("wrote 600 MB", flush=True)
    """
    with confine.Confinement(300, name="tmpfs") as box:
        done = _run(box, _sandbox(tmp_path, code))
        assert "wrote 600 MB" not in done.stdout
        assert done.returncode != 0
        assert box.memory_limit_hit()
        peak = box.peak_memory_bytes()
        assert peak is None or peak <= 300 * MB  # a hard limit, never crossed
    assert box.memory_limit_hit() and box.peak_memory_bytes() == peak  # readings outlive the cgroup


@needs_cgroups
@needs_bwrap
def test_peak_survives_clear_refs(tmp_path):
    # Writing 5 to /proc/self/clear_refs resets the process's VmHWM (its own peak); the cgroup's
    # peak counter lives in /sys, which the sandbox does not have.
    code = """
        def hwm():
            return [l for l in open("/proc/self/status") if l.startswith("VmHWM")][0].split()[1]
        block = b"\\x01" * (200 << 20)  # written, so every page is really faulted in
        del block
        before = hwm()
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        print("VmHWM kB before/after clear_refs:", before, hwm(), flush=True)
    """
    with confine.Confinement(1024, name="peak") as box:
        done = _run(box, _sandbox(tmp_path, code))
        assert done.returncode == 0, done.stderr
        print(done.stdout)
        assert box.peak_memory_bytes() >= 200 * MB
        assert not box.memory_limit_hit()


@needs_cgroups
@needs_bwrap
def test_thread_bomb_stops_at_the_task_cap(tmp_path):
    code = """
        import threading
        stop, started = threading.Event(), []
        try:
            for _ in range(200):
                t = threading.Thread(target=stop.wait)
                t.start()
                started.append(t)
        except RuntimeError as exc:
            print("refused:", exc)
        stop.set()
        print("threads", len(started), flush=True)
    """
    with confine.Confinement(512, max_tasks=64, name="threads") as box:
        done = _run(box, _sandbox(tmp_path, code))
        assert done.returncode == 0, done.stderr
        started = int(done.stdout.split("threads")[-1])
        # 64 tasks, some taken by bwrap's two processes and Python's main thread
        assert 50 <= started < 64, done.stdout
        assert "refused" in done.stdout
        assert box.task_limit_hit()


@needs_cgroups
def test_exit_kills_escaped_processes_and_removes_cgroups():
    # A child that double-forks a detached sleeper and exits: the sleeper is no longer in the
    # child's process tree, but it is still in the cgroup, and leaving the block kills it.
    code = textwrap.dedent("""
        import os, subprocess
        quiet = subprocess.DEVNULL  # not our stdout pipe: the test's read must not wait for the sleeper
        p = subprocess.Popen(["sleep", "300"], start_new_session=True, stdout=quiet, stderr=quiet)
        print(p.pid, flush=True)
        os._exit(0)
    """)
    with confine.Confinement(256, name="escape") as box:
        dirs = list(box.dirs.values())
        assert all(d.is_dir() for d in dirs)
        done = _run(box, [sys.executable, "-c", code])
        sleeper = int(done.stdout.split()[0])
        assert sleeper in box.tasks()
    assert not any(d.exists() for d in dirs)
    assert not box.available
    deadline = time.monotonic() + 5  # gone, or a zombie waiting for init to reap it
    while Path(f"/proc/{sleeper}").exists() and time.monotonic() < deadline:
        state = Path(f"/proc/{sleeper}/stat").read_text().rsplit(")", 1)[-1].split()[0]
        if state == "Z":
            break
        time.sleep(0.05)
    else:
        assert not Path(f"/proc/{sleeper}").exists()


@needs_cgroups
@needs_bwrap
def test_exit_while_sandbox_still_runs(tmp_path):
    # The harness may leave the block with bwrap still running (a timeout): it is killed, its
    # zombie does not keep the cgroup busy, and the directories go.
    with confine.Confinement(256, name="running") as box:
        dirs = list(box.dirs.values())
        argv = _sandbox(tmp_path, "import time; time.sleep(300)")
        popen = subprocess.Popen(argv, env=isolation.outer_environment(), preexec_fn=box.preexec,
                                 start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        # bwrap and python, the sandbox's PID 1 (bwrap's own init between them when the child is not: 124b)
        tasks = 2 if isolation.CHILD_AS_PID_1 else 3
        while len(box.tasks()) < tasks and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(box.tasks()) >= tasks
    # killed with the cgroup: SIGKILL, or 128 + 9 where bwrap saw its child killed a moment before its own
    # kill landed (once in a full suite under load, 2026-12-07)
    assert popen.wait(timeout=10) in (-9, 128 + 9)
    assert not any(d.exists() for d in dirs)


def test_unavailable_degrades_without_raising():
    box = confine.Confinement(64, name="never-entered")
    assert not box.available and box.why_not
    box.preexec()  # a no-op, not an error
    assert box.peak_memory_bytes() is None and not box.memory_limit_hit()


# ------------------------------------------------------------------------------------------------
# seccomp
# ------------------------------------------------------------------------------------------------

def _syscall_numbers() -> dict[str, int]:
    lib = ctypes.CDLL("libseccomp.so.2")
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    numbers = {name: lib.seccomp_syscall_resolve_name(name.encode()) for name in confine.BLOCKED_SYSCALLS}
    return {name: nr for name, nr in numbers.items() if nr >= 0}


# Each blocked call with harmless arguments; keyctl(KEYCTL_GET_KEYRING_ID, session, create=0)
# only reads, so the control run without the filter changes nothing on the host.
PROBE = """
    import ctypes, json
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    out = {}
    ARGS = {"keyctl": (0, -3, 0), "add_key": (b"user", b"perfgraphs-probe", b"x", 1, -3)}
    for name, nr in NUMBERS.items():
        args = ARGS.get(name, (0, 0, 0))
        args = [a if isinstance(a, bytes) else ctypes.c_long(a) for a in args]
        ctypes.set_errno(0)
        out[name] = 0 if libc.syscall(ctypes.c_long(nr), *args) >= 0 else ctypes.get_errno()
    print("RESULT", json.dumps(out), flush=True)
"""


@needs_seccomp
def test_seccomp_program_shape():
    program = confine.seccomp_program()
    assert program and len(program) % 8 == 0
    assert confine.scmp_act_errno(1) == 0x00050001
    # the EPERM return instruction is in the program: BPF_RET|BPF_K (0x06) with k = 0x00050001
    assert (0x0006).to_bytes(2, "little") + b"\0\0" + (0x00050001).to_bytes(4, "little") in program
    fd = confine.seccomp_fd()
    try:
        assert os.read(fd, 65536) == program
    finally:
        os.close(fd)


@needs_seccomp
@needs_bwrap
def test_seccomp_refuses_keyrings_inside_bwrap(tmp_path):
    numbers = _syscall_numbers()
    assert "keyctl" in numbers and "add_key" in numbers
    code = f"NUMBERS = {numbers!r}\n" + textwrap.dedent(PROBE) + textwrap.dedent("""
        import numpy as np
        a = np.random.default_rng(0).standard_normal((300, 300))
        print("numpy", float(np.trace(a @ a.T)) > 0, flush=True)
    """)
    fd = confine.seccomp_fd()
    try:
        done = subprocess.run(_sandbox(tmp_path, code, ["--seccomp", str(fd)]), capture_output=True,
                              text=True, timeout=60, env=isolation.outer_environment(), pass_fds=(fd,))
    finally:
        os.close(fd)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.split("RESULT", 1)[1].splitlines()[0])
    assert result == {name: 1 for name in numbers}  # every blocked call: EPERM (errno 1)
    assert "numpy True" in done.stdout


@needs_seccomp
@needs_bwrap
def test_keyctl_works_without_the_filter(tmp_path):
    # The control: the EPERM above comes from our filter, not from the sandbox or the host.
    numbers = {"keyctl": _syscall_numbers()["keyctl"]}
    done = subprocess.run(_sandbox(tmp_path, f"NUMBERS = {numbers!r}\n" + textwrap.dedent(PROBE)),
                          capture_output=True, text=True, timeout=60, env=isolation.outer_environment())
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.split("RESULT", 1)[1].splitlines()[0])
    if result["keyctl"] == 1:
        pytest.skip("keyctl is already refused here without our filter (host seccomp policy)")
    assert result["keyctl"] != 1


@needs_seccomp
@needs_bwrap
def test_cross_process_memory_calls_reach_the_kernel_without_the_filter(tmp_path):
    # The control for the memory calls the filter refuses: without it the kernel answers them
    # (here with a bad-argument error, never EPERM), so the EPERM above is the filter's.
    names = ("process_vm_readv", "pidfd_getfd", "process_madvise")
    numbers = {n: nr for n, nr in _syscall_numbers().items() if n in names}
    assert numbers, "libseccomp knows none of the cross-process memory calls"
    done = subprocess.run(_sandbox(tmp_path, f"NUMBERS = {numbers!r}\n" + textwrap.dedent(PROBE)),
                          capture_output=True, text=True, timeout=60, env=isolation.outer_environment())
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.split("RESULT", 1)[1].splitlines()[0])
    assert all(err != 1 for err in result.values()), result


def _resident_pages(path: Path) -> int:
    """How many pages of ``path`` are in the page cache (mincore of a read-only mapping)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    size = path.stat().st_size
    pages = (size + os.sysconf("SC_PAGE_SIZE") - 1) // os.sysconf("SC_PAGE_SIZE")
    with open(path, "rb") as f:
        addr = libc.mmap(None, size, 1, 1, f.fileno(), 0)  # PROT_READ, MAP_SHARED
        assert addr not in (None, ctypes.c_void_p(-1).value)
        try:
            vec = (ctypes.c_ubyte * pages)()
            assert libc.mincore(addr, size, vec) == 0
            return sum(b & 1 for b in vec)
        finally:
            libc.munmap(addr, size)


@pytest.mark.machine_alone  # its control reads what the page cache kept, which another test's drop empties
@pytest.mark.skipif(not os.access(confine.DROP_CACHES, os.W_OK), reason="not root: the page cache cannot be dropped")
def test_a_hidden_board_run_starts_on_an_empty_page_cache(tmp_path):
    # the channel: a page one run loaded is still cached for the next (mincore shows what a timed
    # read would); control first, then the drop the harness does before each hidden-board run
    marker = tmp_path / "marker.bin"
    marker.write_bytes(os.urandom(64 * 4096))
    os.sync()
    marker.read_bytes()
    assert _resident_pages(marker) == 64  # control: nothing in between, the pages stay cached
    assert confine.drop_page_cache() is None
    assert _resident_pages(marker) == 0
