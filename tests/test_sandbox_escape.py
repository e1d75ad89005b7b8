"""Issue 24, the sandbox that cannot be left or re-shaped: each attack of the red team's table, run
for real inside the harness's own bubblewrap sandbox, and beside it a control that runs the same
attack with the guard taken away and shows that it then works.

The attacks: a nested user namespace (inside it a predictor is root over fresh mount and cgroup
namespaces), mounting cgroup2 / cgroup v1 there (rewrite its own limits, keep state across seeds in
a host cgroup, the release_agent path), widening its CPU set, reading the labels an installed
perfgraphs wheel ships, running as host root when the harness is root, and timings that hide fit
work spread over cores or count forked pages twice.
"""

from __future__ import annotations

import json
import functools
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from perfgraphs.leaderboard.sandbox import confine, harness, isolation
from test_leaderboard_adversarial import env, honest_level, parts, write_submission  # noqa: F401 — fixtures
from test_leaderboard_redteam import log_lines, run_predictor

pytestmark = [pytest.mark.skipif(isolation.unavailable_reason() is not None,
                                 reason=f"no isolation here: {isolation.unavailable_reason()}"),
              pytest.mark.skipif(confine.seccomp_unavailable_reason() is not None,
                                 reason=f"no seccomp here: {confine.seccomp_unavailable_reason()}")]

# Each attack with ctypes, so that nothing but the kernel decides; prints one JSON line of
# {attack: 0 (it worked) or the errno}.
ATTACKS = """
import ctypes, json, os
libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p]
CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUSER = 0x20000, 0x02000000, 0x10000000

def errno_of(rc):
    return 0 if rc == 0 else ctypes.get_errno()

def attacks():
    out = {}
    all_cores = set(range(os.cpu_count()))
    try:
        os.sched_setaffinity(0, all_cores)
        out["widen_cpu_set"] = 0 if os.sched_getaffinity(0) == all_cores else -1
    except OSError as exc:
        out["widen_cpu_set"] = exc.errno
    out["io_uring_setup"] = errno_of(0 if libc.syscall(425, 8, ctypes.create_string_buffer(120)) >= 0 else -1)
    try:  # evict a page of a shared read-only file from the host's page cache (a covert channel)
        fd = os.open(os.__file__, os.O_RDONLY)
        os.posix_fadvise(fd, 0, 4096, os.POSIX_FADV_DONTNEED)
        out["evict_page_cache"] = 0
    except OSError as exc:
        out["evict_page_cache"] = exc.errno
    pid = os.fork()  # the namespace attacks in a child: a success must not change this process
    if pid == 0:
        res = {"nested_user_namespace": errno_of(libc.unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWCGROUP))}
        os.makedirs("/tmp/cg2", exist_ok=True)
        os.makedirs("/tmp/cg1", exist_ok=True)
        res["mount_cgroup2"] = errno_of(libc.mount(b"none", b"/tmp/cg2", b"cgroup2", 0, None))
        res["mount_cgroup_v1_memory"] = errno_of(libc.mount(b"none", b"/tmp/cg1", b"cgroup", 0, b"memory"))
        res["sys_fs_cgroup_absent"] = int(not os.path.exists("/sys/fs/cgroup"))
        with open("/tmp/child.json", "w") as f:
            json.dump(res, f)
        os._exit(0)
    os.waitpid(pid, 0)
    with open("/tmp/child.json") as f:
        out.update(json.load(f))
    return out
"""

GUARDED = ("nested_user_namespace", "mount_cgroup2", "mount_cgroup_v1_memory", "widen_cpu_set", "io_uring_setup",
           "evict_page_cache")


def _sandbox_run(tmp_path: Path, *, disable_userns: bool = True, seccomp: bool = True) -> dict:
    """Run ATTACKS in the harness's sandbox (isolation.command), optionally without a guard."""
    dirs = {p: tmp_path / p for p in ("job", "inbox", "code", "submission")}
    for d in dirs.values():
        d.mkdir(parents=True, exist_ok=True)
        d.chmod(0o755)
    code = textwrap.dedent(ATTACKS) + "\nprint('RESULT', json.dumps(attacks()), flush=True)\n"
    fd = confine.seccomp_fd() if seccomp else None
    argv = isolation.command(isolation.SandboxPaths(**dirs), [sys.executable, "-c", code], fd)
    if not disable_userns:
        argv.remove("--disable-userns")

    def pin():  # as the harness does: the predictor starts on fewer cores than the machine has
        os.sched_setaffinity(0, {0})
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=isolation.outer_environment(),
                              pass_fds=(fd,) if fd is not None else (), preexec_fn=pin, start_new_session=True)
    finally:
        if fd is not None:
            os.close(fd)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.split("RESULT", 1)[1].splitlines()[0])


def _cgroups() -> bool:
    with confine.Confinement(64, name="probe") as box:
        return box.available


@functools.lru_cache(maxsize=1)
def _cpu_accounting() -> bool:
    with confine.Confinement(64, name="probe") as box:
        return box.available and box.cpu_seconds() is not None


def cpu_seconds_within(value, low: float, high: float = float("inf")) -> bool:
    """A seed's CPU seconds as the harness states them: within [low, high] where the sandbox's cgroup
    accounts CPU, else not measured at all (None: a process-tree sum misses reaped workers, ninetieth pass)."""
    return value is not None and low <= value <= high if _cpu_accounting() else value is None


needs_two_cores = pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: no CPU set to widen")


@needs_two_cores
def test_every_attack_fails_in_the_harness_sandbox(tmp_path):
    result = _sandbox_run(tmp_path)
    assert all(result[name] != 0 for name in GUARDED), result
    assert result["sys_fs_cgroup_absent"] == 1  # no cgroup filesystem in the sandbox at all


@needs_two_cores
def test_control_the_attacks_work_without_the_guards(tmp_path):
    # The same attacks with neither --disable-userns nor the seccomp filter: the kernel lets a
    # sandboxed process make a user namespace, mount cgroup filesystems in it, and widen its cores.
    result = _sandbox_run(tmp_path, disable_userns=False, seccomp=False)
    assert result["nested_user_namespace"] == 0, result
    assert result["mount_cgroup2"] == 0, result
    assert result["widen_cpu_set"] == 0, result
    assert result["evict_page_cache"] == 0, result
    if result["io_uring_setup"] != 0:  # some hosts disable io_uring for everyone (kernel.io_uring_disabled)
        assert result["io_uring_setup"] in (1, 38), result


def test_each_guard_alone_stops_the_nested_namespace(tmp_path):
    # two locks on one door: either one holds if the other is ever lost
    only_bwrap = _sandbox_run(tmp_path / "a", seccomp=False)
    only_seccomp = _sandbox_run(tmp_path / "b", disable_userns=False)
    assert only_bwrap["nested_user_namespace"] != 0, only_bwrap
    assert only_seccomp["nested_user_namespace"] != 0 and only_seccomp["mount_cgroup2"] != 0, only_seccomp


# -- never root on the host -------------------------------------------------------------------------

def _host_uids_of_a_sandbox(tmp_path: Path) -> tuple[set[int], int]:
    """The host uids of a sandbox's processes, and the pid of the process the harness started (the launcher's, which
    its per-run host uid adds to the base: isolation.per_run_host_user)."""
    import psutil

    dirs = {p: tmp_path / p for p in ("job", "inbox", "code", "submission")}
    for d in dirs.values():
        d.mkdir(exist_ok=True)
        d.chmod(0o755)
    argv = isolation.command(isolation.SandboxPaths(**dirs), [sys.executable, "-c", "import time; time.sleep(20)"])
    popen = subprocess.Popen(argv, env=isolation.outer_environment(), start_new_session=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:  # until the sandboxed interpreter is up (bwrap's grandchild)
            assert popen.poll() is None, "the sandbox exited"
            tree = [psutil.Process(popen.pid)] + psutil.Process(popen.pid).children(recursive=True)
            if any(p.name().startswith("python") for p in tree[1:]):
                break
            time.sleep(0.1)
        return {p.uids().real for p in tree} | {p.uids().effective for p in tree}, popen.pid
    finally:
        popen.kill()
        popen.wait()


@pytest.mark.skipif(os.geteuid() != 0, reason="the harness is not root here: bubblewrap maps to its own user")
def test_a_root_harness_runs_the_sandbox_as_an_unprivileged_host_user(tmp_path):
    uids, launcher = _host_uids_of_a_sandbox(tmp_path)
    # a host uid of its own (the base plus the launcher's pid): pools counted per uid are not shared (pass 104a)
    assert 0 not in uids and uids == {isolation.sandbox_user()[0] + launcher}, uids


@pytest.mark.skipif(os.geteuid() != 0, reason="the harness is not root here")
def test_control_without_the_launcher_the_sandbox_is_host_root(tmp_path, monkeypatch):
    monkeypatch.setattr(isolation, "sandbox_user", lambda: None)  # bubblewrap started by root itself
    uids, _ = _host_uids_of_a_sandbox(tmp_path)
    assert 0 in uids, uids


# -- an installed package's labels stay out ---------------------------------------------------------

def _sandbox_reads(tmp_path: Path, path: Path) -> str:
    """What a process in the harness's sandbox prints when it opens ``path``: READ and the text, or DENIED."""
    dirs = {p: tmp_path / p for p in ("job", "inbox", "code", "submission")}
    for d in dirs.values():
        d.mkdir(exist_ok=True)
        d.chmod(0o755)
    code = f"try:\n    print('READ', open({str(path)!r}).read())\nexcept OSError as e:\n    print('DENIED', e)\n"
    done = subprocess.run(isolation.command(isolation.SandboxPaths(**dirs), [sys.executable, "-c", code]),
                          capture_output=True, text=True, timeout=60, env=isolation.outer_environment())
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _read_installed_rows(tmp_path: Path, monkeypatch, masked: bool) -> str:
    site = tmp_path / "lib" / "site-packages"
    artifacts = site / "perfgraphs" / "predict" / "artifacts"
    artifacts.mkdir(parents=True)
    (artifacts / "board.rows.npz").write_bytes(b"LABELS 1.2345 6.789")
    isolation.make_readable(tmp_path / "lib")
    monkeypatch.setattr(sys, "path", [*sys.path, str(site)])
    if not masked:
        monkeypatch.setattr(isolation, "_installed_package_dirs", lambda: [])
    return _sandbox_reads(tmp_path, artifacts / "board.rows.npz")


def test_an_installed_wheel_shows_no_package_data_in_the_sandbox(tmp_path, monkeypatch):
    assert "DENIED" in _read_installed_rows(tmp_path, monkeypatch, masked=True)


def test_control_the_wheel_data_is_readable_without_the_mask(tmp_path, monkeypatch):
    assert "READ LABELS" in _read_installed_rows(tmp_path, monkeypatch, masked=False)


def test_a_keeper_folder_the_sandbox_reads_is_named_and_one_it_cannot_is_not(tmp_path, monkeypatch):
    """Hidden labels under a folder bound into every sandbox (here a site-packages folder on the
    harness's path) are readable by a predictor: readable_root names that folder, which submit
    refuses; a folder outside every bind is unreadable there and readable_root gives None."""
    site = tmp_path / "lib" / "site-packages"
    exposed = site / "keeper" / "dippm-cpu-torch-fp32.parquet"
    hidden = tmp_path / "keeper" / "dippm-cpu-torch-fp32.parquet"
    for f in (exposed, hidden):
        f.parent.mkdir(parents=True)
        f.write_text("LABELS 1.2345")
    isolation.make_readable(tmp_path)
    monkeypatch.setattr(sys, "path", [*sys.path, str(site)])
    assert "READ LABELS" in _sandbox_reads(tmp_path, exposed)  # the attack, without the guard
    assert isolation.readable_root(exposed.parent) == site.resolve()
    assert "DENIED" in _sandbox_reads(tmp_path, hidden)
    assert isolation.readable_root(hidden.parent) is None
    assert isolation.readable_root(hidden.parent, also=(tmp_path / "keeper",)) == (tmp_path / "keeper").resolve()
    assert isolation.readable_root(Path("/usr/share/hidden")) == Path("/usr").resolve()
    # submit's check follows links: a keeper outside every bind whose labels file is a link into one
    # (or a second name of a file elsewhere) is refused; a plain file there is not (the control)
    from perfgraphs.leaderboard.submit import _keeper_problem
    from perfgraphs.registry import task

    board = task("dippm", "cpu-torch-fp32", "latency_ms")
    assert _keeper_problem(hidden.parent, board, None) is None
    linked = tmp_path / "linked-keeper"
    linked.mkdir()
    (linked / hidden.name).symlink_to(exposed)
    assert "READ LABELS" in _sandbox_reads(tmp_path, exposed) and str(site.resolve()) in _keeper_problem(linked, board, None)
    (linked / hidden.name).unlink()
    os.link(hidden, linked / hidden.name)
    assert "other name" in _keeper_problem(linked, board, None)
    scores = tmp_path / "scores-keeper"
    scores.mkdir()
    (scores / "scores").symlink_to(site)  # kept scores written into a folder the sandbox reads
    assert str(site.resolve()) in _keeper_problem(scores, board, None)


# -- timings on a known CPU set ---------------------------------------------------------------------

SPIN = """
def attack(model):
    import threading
    def spin():
        t = time.thread_time()
        while time.thread_time() - t < 1.0:  # one CPU second each, whatever the wall clock
            pass
    threads = [threading.Thread(target=spin) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("AFFINITY", sorted(os.sched_getaffinity(0)), flush=True)
"""


def test_fit_is_timed_on_its_cpu_set_with_cpu_time_beside_wall_time(env, parts):
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(before)})  # the harness scores on one core: its own CPU set
    try:
        out, log, _ = run_predictor(env, parts, "spin", SPIN)
    finally:
        os.sched_setaffinity(0, before)
    assert not isinstance(out, Exception), out
    assert out.cores == (1 if confine.seccomp_program() is not None else None)  # stated where it cannot widen
    assert log_lines(log, "AFFINITY") == [str([min(before)])]
    # two threads of one CPU second each on one core: about two CPU seconds and two wall seconds
    assert cpu_seconds_within(out.fit_cpu_seconds, 1.8, 4.0), out.fit_cpu_seconds
    assert out.fit_seconds >= 1.8, out.fit_seconds
    assert cpu_seconds_within(out.predict_cpu_seconds, 0), out.predict_cpu_seconds


FORKED = """
def attack(model):
    big = np.ones(300 * 2**20 // 8)  # 300 MB, touched
    children = []
    for _ in range(3):
        pid = os.fork()
        if pid == 0:
            big[::512].sum()  # read only: the pages stay shared with the parent
            time.sleep(1.5)
            os._exit(0)
        children.append(pid)
    for pid in children:
        os.waitpid(pid, 0)
"""


@pytest.mark.skipif(not _cgroups(), reason="no cgroups here")
def test_forked_pages_count_once_in_peak_memory(env, parts):
    out, _, _ = run_predictor(env, parts, "forked", FORKED)
    assert not isinstance(out, Exception), out
    assert 300 <= out.peak_memory_mb < 900, out.peak_memory_mb  # four processes share one 300 MB array


def test_control_a_sum_of_resident_sets_counts_forked_pages_in_every_process():
    code = textwrap.dedent("""
        import os, sys, time
        import numpy as np
        big = np.ones(300 * 2**20 // 8)
        for _ in range(3):
            if os.fork() == 0:
                big[::512].sum(); time.sleep(30); os._exit(0)
        print("READY", flush=True); time.sleep(30)
    """)
    popen = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert popen.stdout.readline().strip() == "READY"
        time.sleep(0.5)
        total_mb = harness._tree_rss(harness._tree(popen)) / 2**20
    finally:
        for p in harness._tree(popen)[::-1]:
            p.kill()
        popen.wait()
    assert total_mb > 1000, total_mb


# -- CPU seconds a predictor cannot hide ------------------------------------------------------------

HIDE_CPU = """
def attack(model):
    import signal
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps the workers: no time for their parent
    pids = []
    for _ in range(2):
        pid = os.fork()
        if pid == 0:
            t = time.process_time()
            while time.process_time() - t < 1.5:
                pass
            os._exit(0)
        pids.append(pid)
    for p in pids:  # wait without reaping
        while True:
            try:
                os.kill(p, 0)
            except ProcessLookupError:
                break
            time.sleep(0.02)
"""


@pytest.mark.skipif(not _cpu_accounting(), reason="no cgroup CPU accounting here")
def test_workers_reaped_by_the_kernel_still_count_in_fit_cpu_seconds(env, parts):
    out, _, _ = run_predictor(env, parts, "hide-cpu", HIDE_CPU)
    assert not isinstance(out, Exception), out
    assert out.fit_cpu_seconds >= 2.5, out.fit_cpu_seconds  # two workers of 1.5 CPU seconds each


def test_control_a_process_tree_sum_misses_workers_reaped_by_the_kernel():
    code = textwrap.dedent(HIDE_CPU.replace("def attack(model):", "def attack():")) + textwrap.dedent("""
        import sys
        print("READY", flush=True)
        sys.stdin.readline()
        attack()
        print("DONE", flush=True)
        sys.stdin.readline()
    """)
    popen = subprocess.Popen([sys.executable, "-c", "import os, time\n" + code], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert popen.stdout.readline().strip() == "READY"
        before = harness._tree_cpu_seconds(harness._tree(popen))
        popen.stdin.write("\n")
        popen.stdin.flush()
        assert popen.stdout.readline().strip() == "DONE"
        after = harness._tree_cpu_seconds(harness._tree(popen))
    finally:
        popen.kill()
        popen.wait()
    assert after - before < 0.5, after - before  # 3 CPU seconds spent, none seen by the tree sum


# -- the submission copy never reads through a link swapped in --------------------------------------

def _host_folder(tmp_path: Path) -> Path:
    """A folder standing for the host's private files (/etc, /root) the harness, as root, can read."""
    host = tmp_path / "host"
    host.mkdir()
    (host / "shadow").write_text("root:secret\n")
    host.chmod(0o700)
    return host


def _swap_after_listing(monkeypatch, folder: Path, target: Path) -> None:
    """Replace ``folder`` by a link to ``target`` right after the copy has listed its parent: the
    window an attacker who owns the submission folder would race for."""
    real_scandir = os.scandir
    swapped = []

    def scandir(arg=None):
        if not isinstance(arg, int):  # pathlib and the rest: untouched
            return real_scandir(arg)
        entries = list(real_scandir(arg))
        if not swapped:
            folder.rename(folder.with_name("moved"))
            folder.symlink_to(target)
            swapped.append(True)
        return iter(entries)
    monkeypatch.setattr(harness.os, "scandir", scandir)


def test_a_folder_swapped_for_a_link_is_not_read_through(tmp_path, monkeypatch):
    src = tmp_path / "sub"
    (src / "inner").mkdir(parents=True)
    (src / "inner" / "x.py").write_text("x = 1\n")
    (src / "predictor.py").write_text("pass\n")
    os.mkfifo(src / "pipe")  # opened by a plain copy, it would block the harness
    _swap_after_listing(monkeypatch, src / "inner", _host_folder(tmp_path))
    dest = harness.copy_submission(src, tmp_path / "copy")
    assert (dest / "predictor.py").read_text() == "pass\n"
    assert not (dest / "inner" / "shadow").exists() and not (dest / "pipe").exists()


def test_control_a_plain_copy_reads_through_the_swapped_link(tmp_path, monkeypatch):
    import shutil

    src = tmp_path / "sub"
    (src / "inner").mkdir(parents=True)
    (src / "inner" / "x.py").write_text("x = 1\n")
    (src / "inner").rename(src / "moved")
    (src / "inner").symlink_to(_host_folder(tmp_path))
    shutil.copytree(src, tmp_path / "copy", symlinks=False)
    assert (tmp_path / "copy" / "inner" / "shadow").exists()  # the host's file, copied for the sandbox


def test_the_staged_code_carries_the_tables_it_reads_and_no_fitted_artifact(tmp_path):
    """A reference that reads the hardware descriptors (the serving priors) ran into a missing
    table inside the sandbox: the staged code holds the package's datasheet and model-card tables
    and the exporters' configs, and still no predict artifact (fitted on labels) nor results."""
    import perfgraphs

    staged = isolation.stage_code(tmp_path) / "perfgraphs"
    package = Path(perfgraphs.__file__).resolve().parent
    for table in ("features/hardware/descriptors.csv", "features/llm_architectures.csv"):
        assert (staged / table).read_bytes() == (package / table).read_bytes(), table
    assert any((staged / "graph" / "hf_configs").glob("*.json"))
    # control: the artifacts are in the package, and not in what the sandbox sees
    assert any((package / "predict" / "artifacts").glob("*.json"))
    assert not (staged / "predict" / "artifacts").exists()
    assert {p.suffix for p in staged.rglob("*") if p.is_file()} == {".py", ".json", ".csv"}


# every entry of the sandbox's /proc top and of /proc/sys/fs that it reads (files) or lists (folders),
# then the CPU count Python finds
_PROC_WALK = (
    "import os\n"
    "for top in ('/proc', '/proc/sys/fs'):\n"
    "    for name in sorted(os.listdir(top)):\n"
    "        path = os.path.join(top, name)\n"
    "        if name.isdigit() or os.path.islink(path):\n"
    "            continue\n"
    "        try:\n"
    "            seen = os.listdir(path) if os.path.isdir(path) else open(path, 'rb').read(64)\n"
    "        except OSError:\n"
    "            continue\n"
    "        if seen:\n"
    "            print('SHOWN', path)\n"
    "print('CPUS', os.cpu_count())\n"
)


def _sandbox_shows(tmp_path: Path) -> tuple[set[str], str]:
    dirs = {p: tmp_path / p for p in ("job", "inbox", "code", "submission")}
    for d in dirs.values():
        d.mkdir(exist_ok=True)
        d.chmod(0o755)
    done = subprocess.run(isolation.command(isolation.SandboxPaths(**dirs), [sys.executable, "-c", _PROC_WALK]),
                          capture_output=True, text=True, timeout=60, env=isolation.outer_environment())
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    return {line.split(" ", 1)[1] for line in lines if line.startswith("SHOWN ")}, lines[-1]


def test_the_sandbox_sees_only_the_proc_entries_a_predictor_has_a_use_for(tmp_path, monkeypatch):
    """The seventieth and seventy-second passes relayed frozen fits between seeds through machine-wide
    counters of ``/proc`` (``vmstat``, ``pressure/memory``); the sandbox's ``/proc`` now shows its own
    processes and the entries of ``isolation.PROC_SHOWN`` only: every other entry of its top, and
    ``/proc/sys/fs``, reads empty or not at all (the device bound over a file opens empty or, on a mount of
    the sandbox's user namespace, not at all; a folder is an empty tmpfs), while Python still counts the
    machine's CPUs. Control: with ``vmstat`` and ``pressure`` shown the sandbox reads the host's counters."""
    on_host = {f"/proc/{n}" for n in os.listdir("/proc") if not n.isdigit() and not os.path.islink(f"/proc/{n}")}
    assert {"/proc/vmstat", "/proc/stat", "/proc/loadavg", "/proc/meminfo"} <= on_host
    shown, cpus = _sandbox_shows(tmp_path)
    assert shown and shown <= {f"/proc/{n}" for n in isolation.PROC_SHOWN}, shown
    assert cpus == f"CPUS {os.cpu_count()}"
    monkeypatch.setattr(isolation, "PROC_SHOWN", (*isolation.PROC_SHOWN, "vmstat", "pressure"))
    shown, _ = _sandbox_shows(tmp_path)
    assert "/proc/vmstat" in shown and ("/proc/pressure" in shown) == os.path.isdir("/proc/pressure")
