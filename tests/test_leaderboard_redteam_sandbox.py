"""Red team of the sandbox itself (bubblewrap + seccomp + cgroup), second round: attacks that the
earlier files (test_sandbox_escape, test_leaderboard_redteam, test_leaderboard_adversarial,
test_leaderboard_confine) do not try. Each test is one attack the sandbox defeats; where cheap, a
control beside it runs the same attack with the guard taken away and shows that it then works.

The probes run in the harness's own sandbox (``isolation.command`` with the seccomp filter of
``confine.seccomp_fd()``, inside a ``confine.Confinement`` where one is needed), started the way
``harness.run_seed`` starts it, but without a whole seed (seconds, not a minute, per probe).
Each probe is ctypes against the kernel and prints one JSON line: nothing but the kernel decides.
"""

from __future__ import annotations

import json
import os
import platform
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from perfgraphs.leaderboard.sandbox import confine, harness, isolation

pytestmark = [pytest.mark.skipif(isolation.unavailable_reason() is not None,
                                 reason=f"no isolation here: {isolation.unavailable_reason()}"),
              pytest.mark.skipif(confine.seccomp_unavailable_reason() is not None,
                                 reason=f"no seccomp here: {confine.seccomp_unavailable_reason()}")]

x86_64 = pytest.mark.skipif(platform.machine() != "x86_64", reason="the probes use x86-64 syscall numbers")
root_only = pytest.mark.skipif(os.geteuid() != 0, reason="the control needs root")


def _cgroups_available() -> bool:
    with confine.Confinement(64, name="probe") as box:
        return box.available


# -- running a probe the way run_seed does ---------------------------------------------------

def sandbox_run(tmp_path: Path, code: str, *, seccomp: bool = True, disable_userns: bool = True,
                memory_mb: int | None = None, timeout: float = 60) -> tuple[dict, dict]:
    """Run ``code`` (which must print ``RESULT <json>``) in the harness's sandbox with the
    channel and 'go' pipes passed as run_seed passes them (their numbers are argv[1], argv[2]).
    Returns (the result, facts of the run: cgroup peak, the fds' numbers)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    dirs = {p: tmp_path / p for p in ("job", "inbox", "code", "submission")}
    for d in dirs.values():
        d.mkdir(parents=True, exist_ok=True)
        d.chmod(0o755)
    fd = confine.seccomp_fd() if seccomp else None
    read_fd, write_fd = os.pipe()
    go_read, go_write = os.pipe()
    argv = isolation.command(isolation.SandboxPaths(**dirs),
                             [sys.executable, "-c", textwrap.dedent(code), str(write_fd), str(go_read)], fd)
    if not disable_userns:
        argv.remove("--disable-userns")
    facts: dict = {"fds": [write_fd, go_read]}
    with confine.Confinement(memory_mb or 64, name="redteam") as box:
        use_box = memory_mb is not None and box.available

        def pre():
            if use_box:
                box.preexec()
        passed = (write_fd, go_read, *((fd,) if fd is not None else ()))
        log = tmp_path / "seed-0.log"  # stdout and stderr: a host file, as a seed's log is
        try:
            with open(log, "wb") as log_file:
                popen = subprocess.Popen(argv, env=isolation.outer_environment(), stdin=subprocess.DEVNULL,
                                         stdout=log_file, stderr=subprocess.STDOUT, pass_fds=passed,
                                         preexec_fn=pre, start_new_session=True, cwd=dirs["inbox"])
        finally:
            for f in passed:
                os.close(f)
        try:
            popen.wait(timeout=timeout)
            out = err = log.read_text(errors="replace")
        finally:
            if popen.poll() is None:
                popen.kill()
                popen.wait()
            os.close(read_fd)
            os.close(go_write)
        if use_box:
            facts["peak_mb"] = (box.peak_memory_bytes() or 0) / 2**20
    assert "RESULT" in out, f"rc {popen.returncode}: {err[-3000:]}"
    return json.loads(out.split("RESULT", 1)[1].splitlines()[0]), facts


COMMON = """
import ctypes, errno, json, mmap, os, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long

def err(rc):
    return 0 if rc >= 0 else ctypes.get_errno()

def in_child(fn):
    # run fn in a forked child: ('exit', code) or ('signal', number); a syscall a filter kills
    # must not take the probe with it
    pid = os.fork()
    if pid == 0:
        try:
            os._exit(fn() & 0xff)
        except BaseException:
            os._exit(99)
    _, st = os.waitpid(pid, 0)
    return ["signal", os.WTERMSIG(st)] if os.WIFSIGNALED(st) else ["exit", os.WEXITSTATUS(st)]
"""


# -- (c) seccomp: other architectures, clone3, setns through a pidfd --------------------------

ARCH = COMMON + """
def i386_keyctl():
    # 32-bit entry (int 0x80): eax=288 (i386 keyctl), ebx=0 (KEYCTL_GET_KEYRING_ID), ecx=-3
    # (the session keyring): a filter written for x86-64 numbers must not be sidestepped by the
    # other table
    code = bytes([0x53, 0xb8, 0x20, 0x01, 0, 0, 0x31, 0xdb, 0xb9, 0xfd, 0xff, 0xff, 0xff, 0x31, 0xd2,
                  0xcd, 0x80, 0x5b, 0xc3])
    m = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    m.write(code)
    r = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(m)))()
    return 0 if r >= 0 else 100 + min(-r, 100)  # 0: the keyring answered

def x32_keyctl():
    r = libc.syscall(0x40000000 | 250, 0, -3, 0, 0)  # x32 bit | keyctl
    return 0 if r >= 0 else 100 + min(ctypes.get_errno(), 100)

class CloneArgs(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint64) for n in ("flags", "pidfd", "child_tid", "parent_tid", "exit_signal",
                                               "stack", "stack_size", "tls", "set_tid", "set_tid_size",
                                               "cgroup")]

def clone3_newuser():
    # clone3 carries its flags in memory the filter cannot read: a new user + mount namespace
    args = CloneArgs(flags=0x10000000 | 0x00020000, exit_signal=signal.SIGCHLD)
    r = libc.syscall(435, ctypes.byref(args), ctypes.sizeof(args))
    if r == 0:
        os._exit(0)  # the child: it exists, so the namespaces were made
    if r < 0:
        return ctypes.get_errno()
    os.waitpid(r, 0)
    return 0

out = {"i386_keyctl": in_child(i386_keyctl), "x32_keyctl": in_child(x32_keyctl),
       "clone3_newuser": in_child(clone3_newuser)}
# setns into the namespaces of a pidfd (PID 1, bubblewrap): joining is refused, whatever the target
pidfd = libc.syscall(434, 1, 0)
out["pidfd_open_pid1"] = err(pidfd)
out["setns_pidfd"] = err(libc.setns(pidfd, 0)) if pidfd >= 0 else -1
# raw clone with a namespace flag (the masked rule), in a child
out["clone_newuser"] = in_child(lambda: err(libc.syscall(56, 0x10000000 | 17, 0, 0, 0, 0)) or 0)
print("RESULT", json.dumps(out), flush=True)
"""


@pytest.fixture(scope="module")
def arch_guarded(tmp_path_factory):
    return sandbox_run(tmp_path_factory.mktemp("arch"), ARCH)[0]


@pytest.fixture(scope="module")
def arch_unguarded(tmp_path_factory):
    return sandbox_run(tmp_path_factory.mktemp("arch-open"), ARCH, seccomp=False, disable_userns=False)[0]


@x86_64
def test_the_i386_syscall_table_is_killed_not_a_side_door(arch_guarded):
    # int 0x80 reaches the 32-bit table, where keyctl is 288, not 250: libseccomp's filter checks
    # the architecture first and kills the process (SIGSYS) for any non-native one
    assert arch_guarded["i386_keyctl"] == ["signal", signal.SIGSYS], arch_guarded


@x86_64
def test_control_the_i386_keyctl_reaches_the_keyring_without_the_filter(arch_unguarded):
    if arch_unguarded["i386_keyctl"] == ["signal", signal.SIGSEGV]:
        pytest.skip("no 32-bit syscall entry on this kernel")
    assert arch_unguarded["i386_keyctl"] == ["exit", 0], arch_unguarded


@x86_64
def test_x32_numbers_are_killed(arch_guarded):
    assert arch_guarded["x32_keyctl"] == ["signal", signal.SIGSYS], arch_guarded


@x86_64
def test_clone3_cannot_carry_namespace_flags_past_the_filter(arch_guarded):
    assert arch_guarded["clone3_newuser"] == ["exit", 38], arch_guarded  # ENOSYS
    assert arch_guarded["clone_newuser"] == ["exit", 1], arch_guarded  # EPERM


@x86_64
def test_control_clone3_makes_a_user_namespace_without_the_guards(arch_unguarded):
    assert arch_unguarded["clone3_newuser"] == ["exit", 0], arch_unguarded


@x86_64
def test_setns_through_a_pidfd_is_refused(arch_guarded):
    assert arch_guarded["pidfd_open_pid1"] == 0, arch_guarded  # a pidfd is no harm in itself ...
    assert arch_guarded["setns_pidfd"] == 1, arch_guarded  # ... joining through it is refused (EPERM)


# -- (c) descriptors and PID 1: nothing leads out ---------------------------------------------

FDS = COMMON + """
import stat
FD, GO = int(sys.argv[1]), int(sys.argv[2])
out = {"fds": {}, "pid1_fds": {}}
for pid, key in (("self", "fds"), ("1", "pid1_fds")):
    for n in os.listdir(f"/proc/{pid}/fd"):
        try:
            st = os.stat(f"/proc/{pid}/fd/{n}")
            flags = int(open(f"/proc/{pid}/fdinfo/{n}").read().split("flags:")[1].split()[0], 8)
            out[key][n] = {"link": os.readlink(f"/proc/{pid}/fd/{n}"), "dir": stat.S_ISDIR(st.st_mode),
                           "o_path": bool(flags & 0o10000000)}
        except OSError:
            pass  # the listing's own descriptor
# a descriptor's file as a starting point for a relative path: never a directory of the host
out["openat_log_parent"] = err(libc.openat(1, b"..", os.O_RDONLY))
try:
    os.listdir("/proc/self/fd/1/..")
    out["proc_fd_parent"] = 0
except OSError as exc:
    out["proc_fd_parent"] = exc.errno
out["pid1_cwd"] = os.readlink("/proc/1/cwd")
out["pid1_root_same"] = sorted(os.listdir("/proc/1/root")) == sorted(os.listdir("/"))
status = dict(l.split(":", 1) for l in open("/proc/1/status").read().splitlines() if ":" in l)
out["pid1"] = {k: status[k].strip() for k in ("Name", "Seccomp", "NoNewPrivs", "CapEff", "CapBnd")}
# PID 1 is bubblewrap, the same user: ptrace reaches it, so it must be no stronger than we are
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
out["ptrace_pid1"] = err(libc.ptrace(0x4206, 1, None, None))  # PTRACE_SEIZE
if out["ptrace_pid1"] == 0:
    libc.ptrace(17, 1, None, None)
out["pids"] = sorted(p for p in os.listdir("/proc") if p.isdigit())
print("RESULT", json.dumps(out), flush=True)
"""


def test_no_inherited_descriptor_leads_outside(tmp_path):
    result, facts = sandbox_run(tmp_path, FDS)
    channel = {str(f) for f in facts["fds"]}
    for n, fd in result["fds"].items():
        assert not fd["dir"] and not fd["o_path"], (n, fd)
        assert n in {"0", "1", "2"} | channel, f"descriptor {n} ({fd['link']}) inherited from the host"
        if n in channel:
            assert fd["link"].startswith("pipe:"), fd
    for n, fd in result["pid1_fds"].items():  # bubblewrap keeps stdio and its event fd, no folder
        assert not fd["dir"] and not fd["o_path"], (n, fd)
    assert result["openat_log_parent"] == 20 and result["proc_fd_parent"] == 20, result  # ENOTDIR
    assert result["pid1_cwd"] == isolation.WORK_DIR and result["pid1_root_same"], result
    assert result["pids"] == (["1"] if isolation.CHILD_AS_PID_1 else ["1", "2"]), result  # it is PID 1 (124b)


def test_control_a_passed_folder_descriptor_would_lead_outside(tmp_path):
    # why the descriptors matter: one O_PATH descriptor of a host folder passed into the sandbox
    # (as a careless pass_fds or a Popen without close_fds would) opens the host's files
    secret = tmp_path / "host-secret"
    secret.mkdir()
    (secret / "labels.txt").write_text("3.25\n")
    isolation.make_readable(secret)
    leak = os.open(secret, os.O_PATH | os.O_DIRECTORY)
    try:
        code = f"import os\nprint('RESULT', '\"' + open(os.open('labels.txt', os.O_RDONLY, dir_fd={leak})).read().strip() + '\"')"
        dirs = {p: tmp_path / p for p in ("job", "inbox", "code", "submission")}
        for d in dirs.values():
            d.mkdir()
            d.chmod(0o755)
        argv = isolation.command(isolation.SandboxPaths(**dirs), [sys.executable, "-c", code])
        done = subprocess.run(argv, env=isolation.outer_environment(), pass_fds=(leak,), capture_output=True,
                              text=True, timeout=60)
    finally:
        os.close(leak)
    assert "RESULT \"3.25\"" in done.stdout, done.stderr[-2000:]


def test_pid1_is_ptraceable_but_filtered_like_the_predictor(tmp_path, monkeypatch):
    # bubblewrap's PID 1 runs as the predictor's user and is ptrace-able by it: it must carry the
    # same seccomp filter, no capability and no_new_privs, or it is an unfiltered puppet. (Where bubblewrap's
    # init is PID 1 at all: by default the sandboxed program is, since the child's own second filter is not
    # the init's, tests/test_leaderboard_review_124b.py.)
    monkeypatch.setattr(isolation, "CHILD_AS_PID_1", False)
    result, _ = sandbox_run(tmp_path, FDS)
    assert result["pid1"]["Name"] == "bwrap"
    assert result["pid1"]["Seccomp"] == "2" and result["pid1"]["NoNewPrivs"] == "1", result["pid1"]
    assert int(result["pid1"]["CapEff"], 16) == 0 and int(result["pid1"]["CapBnd"], 16) == 0, result["pid1"]


def test_control_without_the_filter_pid1_is_an_unfiltered_puppet(tmp_path, monkeypatch):
    monkeypatch.setattr(isolation, "CHILD_AS_PID_1", False)  # bubblewrap's init as PID 1 (see above)
    result, _ = sandbox_run(tmp_path, FDS, seccomp=False)
    assert result["ptrace_pid1"] == 0, result  # attachable ...
    assert result["pid1"]["Seccomp"] == "0", result["pid1"]  # ... and free of any filter


# -- (c) privileged kernel doors: file handles, priorities -----------------------------------

HANDLES = COMMON + """
class FH(ctypes.Structure):
    _fields_ = [("bytes", ctypes.c_uint), ("type", ctypes.c_int), ("h", ctypes.c_ubyte * 128)]
out = {}
# "shocker": forge a handle of the file system's root inode (ext4: inode 2, FILEID_INO32_GEN) and
# open it through any mount of that file system, here the read-only /usr: the host's whole disk
mount_fd = os.open("/usr", os.O_RDONLY)
fh = FH(bytes=8, type=1)
ctypes.memmove(fh.h, (ctypes.c_uint32 * 2)(2, 0), 8)
out["open_by_handle_at"] = err(libc.open_by_handle_at(mount_fd, ctypes.byref(fh), os.O_RDONLY))
# the predictor may not outrank the harness's watchdog or the machine
try:
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
    out["sched_fifo"] = 0
except OSError as exc:
    out["sched_fifo"] = exc.errno
try:
    os.setpriority(os.PRIO_PROCESS, 0, -5)
    out["nice_minus_5"] = 0
except OSError as exc:
    out["nice_minus_5"] = exc.errno
print("RESULT", json.dumps(out), flush=True)
"""


def _root_fs_type(path: str) -> str:
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        left, _, right = line.partition(" - ")
        if left.split()[4] == path:
            return right.split()[0]
    return ""


@x86_64
def test_open_by_handle_at_cannot_reach_the_host_disk(tmp_path):
    result, _ = sandbox_run(tmp_path, HANDLES)
    assert result["open_by_handle_at"] == 1, result  # EPERM: no CAP_DAC_READ_SEARCH
    assert result["sched_fifo"] == 1 and result["nice_minus_5"] in (1, 13), result


@x86_64
@root_only
def test_control_open_by_handle_at_opens_the_disk_root_with_the_capability(tmp_path):
    if _root_fs_type("/") != "ext4":
        pytest.skip("the forged handle is an ext4 one")
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)

    class FH(ctypes.Structure):
        _fields_ = [("bytes", ctypes.c_uint), ("type", ctypes.c_int), ("h", ctypes.c_ubyte * 128)]

    fh = FH(bytes=8, type=1)
    ctypes.memmove(fh.h, (ctypes.c_uint32 * 2)(2, 0), 8)
    mount_fd = os.open("/usr", os.O_RDONLY)
    try:
        fd = libc.open_by_handle_at(mount_fd, ctypes.byref(fh), os.O_RDONLY | os.O_DIRECTORY)
        assert fd >= 0, ctypes.get_errno()
        try:
            assert "usr" in os.listdir(fd)  # the root of the disk, from a handle alone
        finally:
            os.close(fd)
    finally:
        os.close(mount_fd)


# -- (b) memory kept in kernel buffers still counts --------------------------------------------

SOCKETS = COMMON + """
import resource, socket
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
pairs, total, chunk = [], 0, b"\\xab" * 65536
while total < STASH_MB * 2**20 and len(pairs) < 2000:
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 * 2**20)
    b.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 2**20)
    a.setblocking(False)
    try:
        while True:
            total += a.send(chunk)
    except BlockingIOError:
        pass
    pairs.append((a, b))
rss = int([l for l in open("/proc/self/status") if l.startswith("VmRSS")][0].split()[1]) // 1024
print("RESULT", json.dumps({"stashed_mb": total // 2**20, "rss_mb": rss}), flush=True)
"""
STASH_MB = 384


@pytest.mark.skipif(not _cgroups_available(), reason="no usable cgroup here")
def test_data_parked_in_socket_buffers_counts_in_peak_memory(tmp_path):
    # unix socket queues hold the predictor's data in kernel memory, outside any process's
    # resident set: the sandbox's memory cgroup must still charge it
    result, facts = sandbox_run(tmp_path, SOCKETS.replace("STASH_MB", str(STASH_MB)), memory_mb=2048)
    assert result["stashed_mb"] >= STASH_MB, result
    assert result["rss_mb"] < STASH_MB / 4, result  # control: invisible to a resident-set poll
    assert facts["peak_mb"] >= STASH_MB, (facts, result)


# -- (d) nothing one sandbox leaves is seen by the next ---------------------------------------

LEAVE = COMMON + """
import socket, time
TOKEN = sys.argv[-1] if len(sys.argv) > 3 else "pg-persist"
out = {}
open("/dev/shm/" + TOKEN, "w").write("model")
open("/tmp/" + TOKEN, "w").write("model")
libc.shmget.restype = ctypes.c_int
shm = libc.shmget(0x5EED0001, 4096, 0o1666)  # IPC_CREAT | 0666
out["sysv_shm"] = err(shm)
mq = libc.syscall(240, TOKEN.encode(), os.O_CREAT | os.O_RDWR, 0o666, None)  # mq_open("/TOKEN")
out["mq"] = err(mq)
s = socket.socket(socket.AF_UNIX)
s.bind("\\0" + TOKEN)
s.listen(4)
print("RESULT", json.dumps(out), flush=True)
sys.stdout.close()
time.sleep(HOLD_S)  # stays up while the next sandbox looks
"""

LOOK = COMMON + """
import socket
TOKEN = "pg-persist"
out = {"dev_shm": os.path.exists("/dev/shm/" + TOKEN), "tmp": os.path.exists("/tmp/" + TOKEN)}
libc.shmget.restype = ctypes.c_int
out["sysv_shm"] = libc.shmget(0x5EED0001, 4096, 0) >= 0
out["mq"] = libc.syscall(240, TOKEN.encode(), os.O_RDWR, 0, None) >= 0
s = socket.socket(socket.AF_UNIX)
try:
    s.connect("\\0" + TOKEN)
    out["abstract_socket"] = True
except OSError:
    out["abstract_socket"] = False
print("RESULT", json.dumps(out), flush=True)
"""
HOLD_S = 20


def _leave_then_look(tmp_path: Path, isolated: bool) -> dict:
    """A first run leaves state and stays alive; a second, concurrent run looks for it."""
    leave_code = LEAVE.replace("HOLD_S", str(HOLD_S))
    if isolated:
        dirs = {p: tmp_path / "a" / p for p in ("job", "inbox", "code", "submission")}
        for d in dirs.values():
            d.mkdir(parents=True)
            d.chmod(0o755)
        fd = confine.seccomp_fd()
        argv = isolation.command(isolation.SandboxPaths(**dirs), [sys.executable, "-c", leave_code], fd)
        first = subprocess.Popen(argv, env=isolation.outer_environment(), pass_fds=(fd,), stdout=subprocess.PIPE,
                                 text=True, start_new_session=True)
        os.close(fd)
    else:
        first = subprocess.Popen([sys.executable, "-c", leave_code], stdout=subprocess.PIPE, text=True,
                                 start_new_session=True, cwd=tmp_path)
    try:
        assert "RESULT" in first.stdout.readline()
        if isolated:
            return sandbox_run(tmp_path / "b", LOOK)[0]
        done = subprocess.run([sys.executable, "-c", LOOK], capture_output=True, text=True, timeout=60)
        return json.loads(done.stdout.split("RESULT", 1)[1])
    finally:
        first.kill()
        first.wait()


def test_no_state_passes_between_concurrent_sandboxes(tmp_path):
    seen = _leave_then_look(tmp_path, isolated=True)
    assert not any(seen.values()), seen


def test_control_the_same_state_passes_between_plain_processes(tmp_path):
    try:
        seen = _leave_then_look(tmp_path, isolated=False)
    finally:  # clean up the host's IPC objects and files
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        shm = libc.shmget(0x5EED0001, 4096, 0)
        if shm >= 0:
            libc.shmctl(shm, 0, None)  # IPC_RMID
        libc.mq_unlink(b"/pg-persist")
        for p in ("/dev/shm/pg-persist", "/tmp/pg-persist"):
            Path(p).unlink(missing_ok=True)
    assert seen["sysv_shm"] and seen["abstract_socket"] and seen["dev_shm"], seen


# -- (b) CPU seconds: an unreaped (zombie) worker still counts -------------------------------

ZOMBIE = """
import os, sys, time
pid = os.fork()
if pid == 0:
    t = time.process_time()
    while time.process_time() - t < 1.0:
        pass
    os._exit(0)
while open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z":
    time.sleep(0.01)
print("ZOMBIE", flush=True)
time.sleep(30)
"""


def test_a_worker_left_as_a_zombie_still_counts_in_cpu_seconds():
    popen = subprocess.Popen([sys.executable, "-c", ZOMBIE], stdout=subprocess.PIPE, text=True)
    try:
        assert popen.stdout.readline().strip() == "ZOMBIE"
        cpu = harness._tree_cpu_seconds(harness._tree(popen))
    finally:
        harness._kill(popen)
    assert cpu >= 0.9, cpu
