"""A campaign's life: its workers die with it, it waits for a busy core, and what the machine
refuses (a read-only store, a full disk, a damaged hardware.json, a zero timeout) is one typed
line with exit code 2, never "internal error".

Campaigns run with ``--core 0`` (the test suite's core); those that must not measure are stopped
by the refusal under test before any worker starts.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest
import yaml

from perfgraphs.collect.corecheck import occupants, wait_for_core
from perfgraphs.collect.errors import CoreBusyError
from perfgraphs.collect.store import MeasurementStore

REPO = Path(__file__).resolve().parents[1]
PLATFORM = "cpu-torch-fp32"
TWO_CORES = hasattr(os, "sched_getaffinity") and {0, 1} <= os.sched_getaffinity(0)


def write_plan(tmp_path: Path, protocol="tiny", timeout_s=120) -> Path:
    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump({
        "suite": "t", "protocol": protocol, "platforms": [PLATFORM], "timeout_s": timeout_s,
        "groups": [{"family": "r", "models": ["timm:resnet10t"], "input_sizes": [32]}]}))
    return path


def seeded_store(root: Path) -> MeasurementStore:
    """A store whose hardware probe and drift baseline exist, so the campaign's first worker is a
    measurement (the probe takes seconds and is not what these tests are about)."""
    store = MeasurementStore(root)
    store.save_metadata({"suite": "t", "ref_baseline_ms": {"cpu": 20.0}})
    store.save_hardware(PLATFORM, {"peak_gflops_measured": 50.0, "machine_id": "test"})
    with store.lock():  # the lock file exists, as after any earlier campaign
        pass
    return store


@pytest.fixture
def run_cli(capsys):
    """The CLI in-process (its fork server and torch import are paid once per session)."""
    from perfgraphs.cli import main

    def call(*args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        try:
            code = main(["collect", *args, "--core", "0"])
        except SystemExit as exc:  # argparse refusals
            code = exc.code
        out = capsys.readouterr()
        return code, out.out, out.err

    return call


def assert_one_typed_line(code: int, err: str, message: str) -> None:
    assert code == 2, err
    assert err.startswith("perfgraphs: error: ") and err.count("\n") == 1, err
    assert message in err and "internal error" not in err and "Traceback" not in err, err


# -- finding 4: workers die with their campaign -----------------------------------------------
def _alive(proc: psutil.Process) -> bool:
    try:
        return proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_no_worker_outlives_a_killed_campaign_by_a_second(tmp_path):
    """SIGKILL of the campaign process alone (not its process group, as the OOM killer or a lost
    ssh session does it): its worker used to measure on for the rest of its configuration."""
    out = tmp_path / "out"
    seeded_store(out)
    plan = write_plan(tmp_path, protocol={"name": "endless", "warmup_runs": 1, "timed_runs": 1_000_000},
                      timeout_s=600)
    with open(tmp_path / "log", "wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "perfgraphs", "collect", str(plan), "--out", str(out),
                                 "--core", "0"], cwd=REPO, stdout=log, stderr=log, start_new_session=True)
    campaign = psutil.Process(proc.pid)
    workers: list[psutil.Process] = []
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and proc.poll() is None:
            with contextlib.suppress(psutil.NoSuchProcess):  # processes come and go while we look
                # the fork server is the campaign's child; workers are the fork server's children
                workers = [p for p in campaign.children(recursive=True) if p.ppid() != proc.pid]
                if workers and time.time() - workers[0].create_time() > 2:
                    break
            time.sleep(0.1)
        assert workers, f"no worker started: {(tmp_path / 'log').read_text()[-2000:]}"
        server = [p for p in campaign.children() if p.pid == workers[0].ppid()]
        os.kill(proc.pid, signal.SIGKILL)
        killed = time.monotonic()
        proc.wait()
        while time.monotonic() - killed < 1.0 and any(_alive(p) for p in workers + server):
            time.sleep(0.02)
        survivors = [p.pid for p in workers + server if _alive(p)]
        assert not survivors, f"processes alive 1 s after the campaign was killed: {survivors}"
    finally:
        for p in workers + [campaign]:
            with contextlib.suppress(psutil.NoSuchProcess):
                p.kill()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


def busy_elsewhere(core: int | None = None, name: str | None = None) -> int:
    """A CPU-bound process that is not our descendant (a campaign ignores its own children),
    optionally pinned to ``core`` and named like a worker; returns its pid."""
    code = ("import ctypes, os\n"
            f"core, name = {core!r}, {name!r}\n"
            "if core is not None: os.sched_setaffinity(0, {core})\n"
            "if name: ctypes.CDLL(None).prctl(15, ctypes.c_char_p(name.encode()), 0, 0, 0)\n"
            "while True: pass\n")
    # the shell exits at once, so the busy process is reparented away from this one
    started = subprocess.run(["sh", "-c", '"$0" -c "$1" >/dev/null 2>&1 & echo $!', sys.executable, code],
                             capture_output=True, text=True, check=True)
    pid = int(started.stdout)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # until it has pinned/named itself
        with contextlib.suppress(OSError):
            named = name is None or Path(f"/proc/{pid}/comm").read_text().strip() == name
            if named and (core is None or os.sched_getaffinity(pid) == {core}):
                return pid
        time.sleep(0.05)
    raise AssertionError("the busy process did not start")


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(not TWO_CORES, reason="needs cores 0 and 1 (pinning says nothing on one core)")
def test_a_campaign_does_not_measure_beside_a_busy_process_on_its_core(tmp_path, run_cli):
    out = tmp_path / "out"
    seeded_store(out)
    pid = busy_elsewhere(core=0)
    try:
        code, stdout, err = run_cli(str(write_plan(tmp_path)), "--out", str(out), "--core-wait", "1")
    finally:
        _kill(pid)
    assert_one_typed_line(code, err, "core 0 is still busy after 1 s: ")
    assert f"pid {pid} (python" in err  # (other processes pinned there would be named too)
    assert "waiting up to 1 s" in stdout
    assert MeasurementStore(out).read().num_rows == 0  # nothing measured on the shared core


@pytest.mark.skipif(not TWO_CORES, reason="needs cores 0 and 1")
def test_a_resumed_campaign_waits_for_a_leftover_worker():
    """A worker of another campaign (recognised by its name even where it is not pinned) holds the
    core; the wait ends when it ends."""
    pid = busy_elsewhere(name="perfgraphs-wkr")
    timer = threading.Timer(1.5, _kill, (pid,))
    messages: list[str] = []
    try:  # whatever fails, the busy process must not outlive the test
        assert any(o.pid == pid and o.worker for o in occupants(0))
        started = time.monotonic()
        timer.start()
        wait_for_core(0, timeout_s=60, notify=messages.append)
    finally:
        timer.cancel()
        _kill(pid)
    assert time.monotonic() - started >= 1.4
    assert f"pid {pid} (a perfgraphs worker)" in messages[0] and messages[-1] == "core 0 is free"
    with pytest.raises(CoreBusyError):  # and a wait has a bound
        pid = busy_elsewhere(core=0)
        try:
            wait_for_core(0, timeout_s=0.5, notify=messages.append)
        finally:
            _kill(pid)


# -- finding 5 (the collector's part): typed one-line errors --------------------------------------
@contextlib.contextmanager
def read_only(*folders: Path):
    """Folders nobody may create files in. chmod does not stop root; the immutable attribute does."""
    if os.geteuid() != 0:
        for f in folders:
            f.chmod(0o555)
        try:
            yield
        finally:
            for f in folders:
                f.chmod(0o755)
        return
    done = []
    try:
        for f in folders:
            if subprocess.run(["chattr", "+i", str(f)], capture_output=True).returncode != 0:
                pytest.skip("running as root where chattr +i is not available")
            done.append(f)
        yield
    finally:
        for f in done:
            subprocess.run(["chattr", "-i", str(f)], check=True)


def test_a_read_only_store_is_one_typed_line(tmp_path, run_cli):
    out = tmp_path / "out"
    seeded_store(out)
    with read_only(out, out / PLATFORM):
        code, _, err = run_cli(str(write_plan(tmp_path)), "--out", str(out))
    assert_one_typed_line(code, err, f"cannot write {out / 'campaign.json'}")
    fresh = tmp_path / "ro"
    fresh.mkdir()
    with read_only(fresh):
        code, _, err = run_cli(str(write_plan(tmp_path)), "--out", str(fresh / "new"))
    assert_one_typed_line(code, err, "cannot lock the measurement store")


@contextlib.contextmanager
def files_limited_to(size: int):
    """Every write past ``size`` bytes fails with EFBIG, as a write to a full disk fails (ENOSPC):
    RLIMIT_FSIZE needs no privileges, a full filesystem would. Only the soft limit is lowered, so
    it can be restored."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an error from write(), not a kill
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)


def test_a_full_disk_leaves_no_half_written_file(tmp_path):
    from perfgraphs.collect.errors import StoreIOError

    store = seeded_store(tmp_path / "out")
    row = {"key": "k", "measurement_id": "0" * 32, "platform": PLATFORM, "status": "ok"}
    with files_limited_to(4096), pytest.raises(StoreIOError, match="cannot write .*/parts/k-00000000.parquet"):
        store.append(row)  # a part is ~20 KiB
    leftovers = [p.name for p in (tmp_path / "out").rglob("*") if ".tmp-" in p.name or p.suffix == ".sha256"]
    assert leftovers == []  # neither half a file nor a sidecar without its file
    assert store.read().num_rows == 0


def test_a_full_disk_during_a_campaign_is_one_typed_line(tmp_path):
    """The campaign's first write after taking its store (recording this run in campaign.json)."""
    out = tmp_path / "out"
    seeded_store(out)

    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (256, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

    result = subprocess.run([sys.executable, "-m", "perfgraphs", "collect", str(write_plan(tmp_path)), "--out",
                             str(out), "--core", "0"], cwd=REPO, capture_output=True,
                            text=True, timeout=600, preexec_fn=small_files)
    assert_one_typed_line(result.returncode, result.stderr[result.stderr.find("perfgraphs: error:"):],
                          f"cannot write {out / 'campaign.json'}")
    assert "Traceback" not in result.stderr
    assert not [p for p in out.rglob("*") if ".tmp-" in p.name]
    assert MeasurementStore(out).metadata() == {"suite": "t", "ref_baseline_ms": {"cpu": 20.0}}  # untouched


@pytest.mark.parametrize("damage", [b"{not json", b"\xff\xfe\x00", b'{"peak_gflops_measured": 5'])
def test_a_damaged_hardware_json_does_not_crash_a_dry_run(tmp_path, run_cli, damage):
    out = tmp_path / "out"
    seeded_store(out)
    (out / PLATFORM / "hardware.json").write_bytes(damage)
    plan = str(write_plan(tmp_path))
    code, stdout, err = run_cli(plan, "--out", str(out), "--dry-run")
    assert code == 0, err
    assert "estimated machine time" in stdout and "(peak unmeasured GFLOP/s)" in stdout
    assert err.startswith("perfgraphs: warning: corrupt measurement store file") and err.count("\n") == 1, err
    code, _, err = run_cli(plan, "--out", str(out))  # measuring needs the probe: refused
    assert_one_typed_line(code, err, f"corrupt measurement store file {out / PLATFORM / 'hardware.json'}")


@pytest.mark.parametrize("flag, value, message", [
    ("--timeout", "0", "argument --timeout: must be > 0, got 0"),
    ("--timeout", "-5", "argument --timeout: must be > 0, got -5"),
    ("--timeout", "nan", "argument --timeout: must be > 0, got nan"),
    ("--core", "-1", "argument --core: must be >= 0, got -1"),
    ("--flush-every", "0", "argument --flush-every: must be >= 1, got 0"),
    ("--core-wait", "-1", "argument --core-wait: must be >= 0, got -1"),
])
def test_out_of_range_arguments_are_refused_while_parsing(tmp_path, run_cli, flag, value, message):
    code, stdout, err = run_cli(str(write_plan(tmp_path)), "--out", str(tmp_path / "o"), "--dry-run", flag, value)
    assert code == 2 and err == f"perfgraphs: error: {message}\n" and stdout == ""


@pytest.mark.parametrize("timeout", [0, -1])
def test_a_plan_with_a_zero_timeout_is_refused(tmp_path, run_cli, timeout):
    code, _, err = run_cli(str(write_plan(tmp_path, timeout_s=timeout)), "--out", str(tmp_path / "o"), "--dry-run")
    assert_one_typed_line(code, err, f"timeout_s must be > 0, got {timeout}")
