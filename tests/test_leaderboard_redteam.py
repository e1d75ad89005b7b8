"""Red team of the submission harness: attacks beyond ``test_leaderboard_adversarial``.

Each test is one attack; it passes when the harness defeats it. A predictor here is a whole
module (``BASE`` plus an ``attack(model)`` run at the end of ``fit``) in a real sandboxed seed
(bubblewrap) on the tiny real dataset of ``conftest``; a few attacks need no predictor process
(the submission folder and its metadata are read by the harness itself, outside the sandbox).
Probes that end the run the same way share one predictor and report every finding at once.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import numpy as np
import pytest

from perfgraphs.leaderboard.sandbox import isolation
from test_leaderboard_adversarial import env, honest_level, parts, write_submission  # noqa: F401 — fixtures

pytestmark = pytest.mark.skipif(isolation.unavailable_reason() is not None,
                                reason=f"no isolation here: {isolation.unavailable_reason()}")

BASE = """
import json, os, sys, time
import numpy as np

FD, GO = int(sys.argv[5]), int(sys.argv[6])  # the runner's channel and 'go' descriptors

class Predictor:
    def __init__(self, target, seed=0, quick=False):
        self.target = target

    def fit(self, train, val):
        self.level = float(np.exp(np.mean(np.log(train[self.target]))))
        attack(self)

    def predict(self, graphs):
        return np.full(len(graphs), self.level)
"""

# Control characters a terminal acts on (ESC, BEL, ...): a message that reaches the operator's
# terminal must not carry them, or the predictor writes on the screen (moves the cursor, erases the
# rejection, prints a fake "recorded" line, retitles the window).
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x9b]")
ESCAPES = "\x1b]0;owned\x07\x1b[1A\x1b[2Kperfgraphs submit: recorded (fake)"


def run_predictor(env, parts, name: str, attack: str, limits=None):  # noqa: F811 — fixtures as arguments
    """One isolated seed of ``BASE`` + ``attack``; returns (SeedOutput or the exception, the log
    path, the host's time.monotonic() when run_seed returned). Any exception is returned, not
    raised: a harness that crashes on a predictor's message is a finding, not a test error."""
    from perfgraphs.leaderboard.sandbox.harness import Limits, prepare_job, run_seed

    source = textwrap.dedent(BASE) + "\n" + textwrap.dedent(attack)
    sub = write_submission(env["tmp"] / f"sub-{name}", name, source)
    job_dir = env["tmp"] / f"job-{name}"
    job = prepare_job(job_dir, sub, "predictor:Predictor", "latency_ms", True, parts.train, parts.validation,
                      parts.test, Limits())
    code = isolation.staged_code_dir(env["tmp"])
    try:
        out = run_seed(job, 0, limits or Limits(time_limit_s=120), code)
    except Exception as exc:  # noqa: BLE001
        out = exc
    return out, job_dir / "seed-0.log", time.monotonic()


def log_lines(log: Path, prefix: str) -> list[str]:
    with open(log, errors="replace") as f:
        return [line[len(prefix):].strip() for line in f if line.startswith(prefix)]


# -- (c) timings and memory: the 'go' pipe stalls the harness's own clock and watchdog ---------

# The runner's read end of the 'go' pipe can be reopened write-only through /proc/self/fd and
# filled; the harness then blocks in _hand_over's os.write(go, b"test\n") with its watchdog and
# clock stopped, after it has already put the test inputs in the inbox. Whatever the predictor
# does before it drains the pipe is neither in "fit s" nor in "predict s", nor under the time or
# memory limit.
FILL_GO = """
def fill_go_and_claim_fit_done():
    import perfgraphs.leaderboard.sandbox.channel as channel
    send = channel.send
    w = os.open(f"/proc/self/fd/{GO}", os.O_WRONLY | os.O_NONBLOCK)
    junk = 0
    for size in (4096, 1):
        try:
            while True:
                junk += os.write(w, b"x" * size)
        except BlockingIOError:
            pass
    print("FILLED", junk, flush=True)
    send(FD, "fit_done")  # the harness copies the test inputs, then blocks writing "test"
    channel.send = lambda fd, kind, *a, **k: None if kind == "fit_done" else send(fd, kind, *a, **k)
    print("FIT_AT", time.monotonic(), flush=True)
    return junk
"""

HIDDEN_WORK_S, HIDDEN_PEAK_MB = 3.0, 400

HIDE_WORK = FILL_GO + f"""
def attack(model):
    junk = fill_go_and_claim_fit_done()
    deadline = time.monotonic() + 30
    while not os.path.exists("/inbox/test_inputs.parquet") and time.monotonic() < deadline:
        time.sleep(0.02)
    print("TEST INPUTS IN THE INBOX DURING FIT:", os.path.exists("/inbox/test_inputs.parquet"), flush=True)
    big = np.ones({HIDDEN_PEAK_MB} * 2**20 // 8)  # the real work: a {HIDDEN_PEAK_MB} MB peak ...
    big[::512] += 1.0
    del big
    time.sleep({HIDDEN_WORK_S})  # ... and {HIDDEN_WORK_S} s
    with open("/proc/self/clear_refs", "w") as f:  # the kernel forgets the peak (VmHWM := VmRSS)
        f.write("5")
    left = junk
    while left > 0:  # drain the junk: the harness's "test" lands behind it and its clock restarts
        left -= len(os.read(GO, min(left, 65536)))
"""


def test_a_stalled_hand_over_hides_no_time_and_no_memory(env, parts):
    out, log, _ = run_predictor(env, parts, "hide-work", HIDE_WORK)
    assert not isinstance(out, Exception) or "time limit" not in str(out), out
    problems = []
    if not isinstance(out, Exception):
        total = out.fit_seconds + out.predict_seconds
        if total < HIDDEN_WORK_S:
            problems.append(f"fit {out.fit_seconds:.3f} s + predict {out.predict_seconds:.3f} s = {total:.3f} s "
                            f"recorded for {HIDDEN_WORK_S} s of work")
        if out.peak_memory_mb < HIDDEN_PEAK_MB:
            problems.append(f"peak memory {out.peak_memory_mb:.0f} MB recorded for a {HIDDEN_PEAK_MB} MB peak")
        np.testing.assert_array_equal(out.pred, np.full(len(parts.test), honest_level(parts)))
    assert not problems, "; ".join(problems)


HANG_S, HANG_LIMIT_S = 30, 5

HANG = FILL_GO + f"""
def attack(model):
    fill_go_and_claim_fit_done()
    time.sleep({HANG_S})  # never drains: the harness waits in os.write for as long as this lives
    os._exit(0)
"""


def test_a_stalled_hand_over_cannot_outlast_the_time_limit(env, parts):
    from perfgraphs.leaderboard.sandbox.harness import Limits, SeedFailed

    out, log, returned = run_predictor(env, parts, "hang", HANG, Limits(time_limit_s=HANG_LIMIT_S))
    assert isinstance(out, SeedFailed), out
    stalled = log_lines(log, "FIT_AT")
    if not stalled:  # the pipe could not be reopened or filled: nothing stalled
        return
    waited = returned - float(stalled[0])
    assert waited < HANG_LIMIT_S + 10, (f"the harness returned {waited:.0f} s after the predictor stalled it, with a "
                                        f"time limit of {HANG_LIMIT_S} s: {out}")


# -- (c)/(e) memory and tasks the watchdog does not count ------------------------------------

STASH_TMP_MB, STASH_MEMFD_MB, MAX_TASKS = 600, 400, 2048

UNCOUNTED = f"""
def attack(model):
    import threading
    # a task bomb, bounded here: nothing caps the number of processes/threads (host pid_max is shared)
    threading.stack_size(64 * 1024)
    stop, threads = threading.Event(), []
    try:
        while len(threads) < {MAX_TASKS} + 50:
            t = threading.Thread(target=stop.wait)
            t.start()
            threads.append(t)
    except (RuntimeError, MemoryError) as exc:
        print("task limit:", exc, flush=True)
    print("TASKS", len(threads), flush=True)
    stop.set()
    for t in threads:
        t.join()
    # memory in the sandbox's RAM-backed /tmp and in a memfd: resident, but in no process's RSS
    chunk = b"\\1" * (8 * 2**20)
    with open("/tmp/model.bin", "wb") as f:
        for _ in range({STASH_TMP_MB} // 8):
            f.write(chunk)
    model.memfd = os.memfd_create("weights")
    for _ in range({STASH_MEMFD_MB} // 8):
        os.write(model.memfd, chunk)
    print("STASHED", flush=True)
"""


def _cgroups_unavailable() -> str | None:
    from perfgraphs.leaderboard.sandbox.confine import Confinement

    with Confinement(64, name="probe") as box:
        return box.why_not


@pytest.mark.skipif(_cgroups_unavailable() is not None, reason="no usable cgroup here: the harness falls back to "
                    "polled resident memory, which these attacks are known to escape")
def test_memory_outside_the_resident_set_and_task_bombs_are_limited(env, parts):
    from perfgraphs.leaderboard.sandbox.harness import Limits, SeedFailed

    limit_mb = 700  # the sandboxed interpreter with its data needs ~300 MB
    out, log, _ = run_predictor(env, parts, "uncounted", UNCOUNTED, Limits(time_limit_s=120, memory_mb=limit_mb))
    problems = []
    tasks = log_lines(log, "TASKS")
    if tasks and int(tasks[0]) >= MAX_TASKS:
        problems.append(f"the predictor started {tasks[0]} threads: no pids limit in the sandbox")
    stashed = STASH_TMP_MB + STASH_MEMFD_MB
    if not isinstance(out, Exception) and out.peak_memory_mb < stashed:
        problems.append(f"accepted under --memory-mb {limit_mb} with peak memory {out.peak_memory_mb:.0f} MB while "
                        f"holding {stashed} MB in /tmp (tmpfs) and a memfd")
    elif isinstance(out, Exception) and not isinstance(out, SeedFailed):
        problems.append(f"the harness raised {type(out).__name__}: {out}")
    assert not problems, "; ".join(problems)


# -- (b)/(a) what the sandbox can reach: descriptors, PID 1, sockets, kernel keyrings ----------

RECON = """
def keyring_stash(token):
    # link a key into every keyring /proc/keys shows: the host user's own keyrings are among them
    import ctypes, platform
    nr = {"x86_64": (248, 250), "aarch64": (217, 219)}.get(platform.machine())
    if nr is None or not os.path.exists("/proc/keys"):
        return []
    libc = ctypes.CDLL(None, use_errno=True)
    rings = [int(line.split()[0], 16) for line in open("/proc/keys") if " keyring " in line]
    data = b"fitted-model-weights"
    return [hex(r) for r in rings if libc.syscall(nr[0], b"user", token.encode(), data, len(data), r) > 0]

def attempt(what, default):
    try:
        return what()
    except Exception as exc:
        print("probe failed:", type(exc).__name__, exc, flush=True)
        return default

def attack(model):
    import socket
    report = {"fds": {}, "channel": [FD, GO]}
    for n in os.listdir("/proc/self/fd"):
        try:
            report["fds"][n] = os.readlink(f"/proc/self/fd/{n}")
        except OSError:
            pass
    report["pid1_environ"] = attempt(lambda: [v.split("=")[0] for v in open("/proc/1/environ").read().split("\\0")
                                              if v], [])
    report["pid1_cmdline"] = attempt(lambda: open("/proc/1/cmdline").read().split("\\0"), [])
    report["pids"] = sorted(p for p in os.listdir("/proc") if p.isdigit())
    report["sys"] = os.path.exists("/sys/kernel")
    try:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(2)
        s.connect("\\0" + TOKEN)
        s.sendall(b"labels please")
        report["abstract"] = "connected"
    except OSError as exc:
        report["abstract"] = str(exc)
    report["keyrings"] = attempt(lambda: keyring_stash(TOKEN), [])
    print("REPORT " + json.dumps(report), flush=True)
"""


def _host_keys(token: str) -> list[int]:
    path = Path("/proc/keys")
    if not path.exists():
        return []
    return [int(line.split()[0], 16) for line in path.read_text().splitlines() if token in line]


@pytest.mark.skipif(__import__("perfgraphs.leaderboard.sandbox.confine", fromlist=["_"]).seccomp_program() is None,
                    reason="no libseccomp here: the kernel keyrings stay reachable from the sandbox")
def test_the_sandbox_reaches_nothing_of_the_host(env, parts):
    import ctypes

    token = f"pg-redteam-{uuid.uuid4().hex[:12]}"
    server = socket.socket(socket.AF_UNIX)
    server.bind("\0" + token)
    server.listen(1)
    server.settimeout(0.5)
    try:
        out, log, _ = run_predictor(env, parts, "recon", f"TOKEN = {token!r}\n" + RECON)
        with pytest.raises(socket.timeout):
            server.accept()
    finally:
        server.close()
    time.sleep(0.5)
    leaked_keys = _host_keys(token)
    libc = ctypes.CDLL(None, use_errno=True)
    for key in leaked_keys:  # clean up the host's keyrings
        libc.syscall(250 if os.uname().machine == "x86_64" else 219, 21, key)  # KEYCTL_INVALIDATE
    report = json.loads(log_lines(log, "REPORT")[0])
    assert not isinstance(out, Exception), out
    problems = []
    channel_fds = {str(fd) for fd in report["channel"]}  # the runner's <channel fd> <go fd>
    extra = {n: t for n, t in report["fds"].items() if n not in {"0", "1", "2"} | channel_fds}
    if extra:
        problems.append(f"descriptors inherited from the host: {extra}")
    if any(not t.startswith("pipe:") for n, t in report["fds"].items() if n in channel_fds):
        problems.append(f"channel descriptors that are not pipes: {report['fds']}")
    # bubblewrap's init as PID 1 shows bwrap's environment; by default PID 1 is the runner itself (124b), its own
    if not isolation.CHILD_AS_PID_1 and set(report["pid1_environ"]) - {"PATH", *isolation.PASSED_ENV}:
        problems.append(f"PID 1 environment: {report['pid1_environ']}")
    if len(report["pids"]) > 2:  # bubblewrap and the runner
        problems.append(f"processes visible: {report['pids']}")
    if report["sys"]:
        problems.append("/sys is mounted")
    if report["abstract"] == "connected":
        problems.append("connected to a host abstract unix socket")
    if leaked_keys:
        problems.append(f"the predictor linked a key into the host's keyrings {report['keyrings']} (it outlives "
                        "the sandbox: a store shared by every later seed and submission)")
    assert not problems, "; ".join(problems)


# -- (b)/(e) the log file is the host's, unbounded; its last line reaches the operator ----------

FLOOD_MB, LOG_CAP_MB = 160, 64

FLOOD = f"""
def attack(model):
    chunk = (b"A" * 1023 + b"\\n") * 1024
    for _ in range({FLOOD_MB}):
        os.write(1, chunk)
    os.write(1, {ESCAPES!r}.encode() + b"\\n")
    os._exit(3)
"""


def test_output_is_bounded_and_sanitized(env, parts):
    out, log, _ = run_predictor(env, parts, "flood", FLOOD)
    problems = []
    size_mb = log.stat().st_size / 2**20
    log.unlink()
    if size_mb > LOG_CAP_MB:
        problems.append(f"the predictor wrote {size_mb:.0f} MB into the host's {log.name} (no cap; RLIMIT_FSIZE "
                        "is unlimited and the harness reads the whole file back for the last line)")
    if CONTROL.search(str(out)):
        problems.append(f"terminal control sequences in the rejection: {str(out)!r}")
    assert not problems, "; ".join(problems)


def test_failure_messages_carry_no_terminal_control_sequences(tmp_path):
    """The predictor's own error message (sent over the channel) reaches the operator's terminal."""
    from perfgraphs.leaderboard.sandbox.harness import Limits, _failure

    message = str(_failure("seed 0", {"error_kind": "crash", "message": f"RuntimeError: {ESCAPES}"}, Limits()))
    assert not CONTROL.search(message), repr(message)


# -- (e) the channel: messages the parent cannot digest ---------------------------------------

BAD_SHAPE = """
def attack(model):
    import perfgraphs.leaderboard.sandbox.channel as channel
    send = channel.send
    def forged(fd, kind, payload=b"", **fields):
        if kind == "pred":  # no values, and a shape whose product overflows int64 to 0
            return send(fd, "pred", b"", shape=[2**32, 2**32])
        return send(fd, kind, payload, **fields)
    channel.send = forged
"""


def test_a_pred_message_with_an_overflowing_shape_is_a_rejection_not_a_crash(env, parts):
    from perfgraphs.leaderboard.sandbox.harness import SeedFailed

    out, _, _ = run_predictor(env, parts, "shape", BAD_SHAPE)
    assert isinstance(out, SeedFailed), f"the harness raised {type(out).__name__}: {out}"


DEEP_HEADER = """
def attack(model):
    os.write(FD, b"[" * 300000 + b"]" * 300000 + b"\\n")  # valid JSON, under 1 MB, too deep to parse
    os._exit(0)
"""


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_header_too_deep_to_parse_is_a_broken_channel(env, parts):
    from perfgraphs.leaderboard.sandbox.harness import Limits, SeedFailed

    out, _, _ = run_predictor(env, parts, "deep", DEEP_HEADER, Limits(time_limit_s=5))
    assert isinstance(out, SeedFailed) and "harness channel" in str(out), out


# -- (e) the submission folder and its metadata, read by the harness outside the sandbox --------

LOADER = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
from perfgraphs.leaderboard.submission import SubmissionError, load_submission
try:
    load_submission(sys.argv[1])
    print("LOADED")
except SubmissionError as exc:
    print("REJECTED", exc.problems)
"""


def test_special_files_in_a_submission_cannot_exhaust_or_hang_the_harness(env, tmp_path):
    """A symlink to /dev/zero (git stores symlinks) or a FIFO named *.py: the static check reads
    every .py file of the folder in the harness process, before any sandbox."""
    from test_leaderboard_adversarial import cheat_source

    problems = []
    for name, plant in (("zero", lambda p: p.symlink_to("/dev/zero")), ("fifo", lambda p: os.mkfifo(p))):
        sub = write_submission(tmp_path / name, name, cheat_source("    def cheat(g, t):\n        return None\n",
                                                                    env, tmp_path))
        plant(sub / "helpers.py")
        try:
            done = subprocess.run([sys.executable, "-c", LOADER, str(sub)], capture_output=True, text=True,
                                  timeout=20)
            last = (done.stdout + done.stderr).strip().splitlines()[-1:] or ["nothing"]
            if done.returncode != 0 or not last[0].startswith(("REJECTED", "LOADED")):
                problems.append(f"{name}: the harness process died reading the submission ({last[0][:120]})")
        except subprocess.TimeoutExpired:
            problems.append(f"{name}: reading the submission hung for 20 s")
    assert not problems, "; ".join(problems)


def test_metadata_cannot_amplify_into_a_huge_record(env, parts, tmp_path):
    """YAML aliases: ~1 kB of submission.yaml expands into a multi-MB results line (levels of 8
    references; two more levels and the harness runs out of memory writing the record)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    import yaml

    from perfgraphs.leaderboard.submit import SubmitOptions, submit

    sub = tmp_path / "aliases"
    (sub / "predictions").mkdir(parents=True)
    ids, y = list(parts.test["sample_id"]), np.asarray(parts.test["latency_ms"], dtype=float)
    pred = np.full(len(ids), honest_level(parts))
    for seed in range(5):
        pq.write_table(pa.table({"sample_id": ids, "target": ["latency_ms"] * len(ids), "value": pred}),
                       sub / "predictions" / f"seed-{seed}.parquet")
    bomb = "lol"
    for _ in range(7):
        bomb = [bomb] * 8  # one object referenced 8 times: yaml.safe_dump writes anchors and aliases
    mape = float(np.mean(np.abs(pred - y) / y) * 100)
    meta = {"method": "aliases", "authors": ["hostile"], "contact": "h@example.org",
            "code": {"url": "https://example.org", "commit": "a1" * 20}, "paper": None, "external_data": False,
            "division": "closed", "hyperparameters": {"grid": {"depth": [bomb]}, "chosen": {"depth": bomb}},
            "predictions": "predictions",
            "dataset": {"name": "perfgraphs/dippm", "config": "cpu-torch-fp32", "target": "latency_ms",
                        "version": parts.version, "content_hash": parts.content_hash},
            "reported": {"mape_pct": {"mean": mape, "std": 0.0}}}
    (sub / "submission.yaml").write_text(yaml.safe_dump(meta))
    assert (sub / "submission.yaml").stat().st_size < 4096
    opts = SubmitOptions(dataset="dippm", config="cpu-torch-fp32", target="latency_ms", results_root=env["results"],
                         home=env["home"])
    verdict, written = submit(sub, opts, log_mlflow=False)
    size = (env["results"] / "dippm.jsonl").stat().st_size
    assert size < 2**20, (f"a {(sub / 'submission.yaml').stat().st_size}-byte submission.yaml was recorded as a "
                          f"{size / 2**20:.0f} MB results file (problems: {verdict.problems})")
