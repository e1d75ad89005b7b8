"""The parent side of the harness: write a job folder, run one sandboxed process per seed under
time and memory limits, read back its predictions. A cross-validated (tabular) config has one job
folder per fold, and each seed runs one fresh process per fold: a predictor never keeps state
from a fold whose training rows are another fold's test rows.

Only these cross the process boundary: the training and validation parts (with labels: they are
for training and model selection) and the test part's *input* columns — an allow-list (graph
columns, or the tabular config's own list in :mod:`perfgraphs.benchmarks.tabular_protocol`), so a
label column added to the datasets later can never leak by default. The parent keeps the test
labels and scores; the child runs the submitted code and nothing else.

Limits: wall clock for ``fit`` + ``predict`` (the clock starts when the child has loaded its
data), the resident set of the child's whole process tree (polled), plus hard ``setrlimit``
backstops the child applies to itself before importing submitted code.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from perfgraphs.data.build import LABEL_COLUMNS, STATIC_COLUMNS
from perfgraphs.errors import PerfgraphsError

MB = 1024 * 1024
# The graph columns a predictor may see for test rows (as built by perfgraphs.data.build).
INPUT_COLUMNS = ("sample_id", "split", "family", "source", "img_size", "structure_id", "structure_hash",
                 *STATIC_COLUMNS, "onnx_ops", "input_names", "input_dims", "metadata_keys", "metadata_values",
                 "name", "node_feat", "edge_index")
# Address space beyond the resident-set limit that the setrlimit backstop allows: torch, PyG and
# BLAS reserve several GB of virtual memory they never touch.
ADDRESS_SPACE_HEADROOM_MB = 8192
# The watchdog polls fast at first (short predictors, quick failures) and backs off to a few
# times a second, so a long fit is not slowed by its own supervision on a shared core; the
# address-space backstop catches allocations faster than the slow poll.
POLL_FIRST_S, POLL_MAX_S, POLL_FAST_FOR_S = 0.05, 0.25, 5.0
# Id columns the invariance probe replaces with fresh random ids (tabular rows carry their id
# twice: ``row_id`` and the ``sample_id`` the Evaluator reads, which equals it).
ID_COLUMNS = ("sample_id", "row_id")


class SeedFailed(PerfgraphsError):
    """A seed's predictor process crashed, exceeded a limit or returned nothing."""


@dataclass(frozen=True)
class Limits:
    time_limit_s: float = 1800.0  # fit + predict of one seed (the submission's import counts)
    memory_mb: int = 8192  # resident set of the predictor's process tree
    startup_s: float = 600.0  # interpreter start and data loading, before the clock starts


@dataclass
class SeedOutput:
    seed: int
    pred: np.ndarray  # test predictions, in test-input order
    probe_pred: np.ndarray  # predictions of the shuffled, re-labelled copy, in its own order
    fit_seconds: float
    predict_seconds: float
    num_params: int | None
    config: dict | None
    peak_memory_mb: float


def as_table(part) -> pa.Table:
    """A Hugging Face part (or Arrow table) as one Arrow table, honouring any row selection."""
    if isinstance(part, pa.Table):
        return part
    return part.with_format("arrow")[:]


def input_table(part, columns: tuple[str, ...] = INPUT_COLUMNS, labels: tuple[str, ...] | None = None) -> pa.Table:
    """The test rows as the predictor may see them: the allow-listed ``columns`` only. ``labels``:
    the columns that must never be among them (default: the labeled graph configs' measurement
    columns; a tabular config passes its targets, its platform and CPU columns being inputs)."""
    table = as_table(part)
    keep = [c for c in columns if c in table.column_names]
    out = table.select(keep)
    leaked = set(out.column_names) & ({"y"} | set(LABEL_COLUMNS if labels is None else labels))
    if leaked:  # cannot happen with the allow-list; kept as a tripwire if it is ever edited
        raise PerfgraphsError(f"label column(s) {sorted(leaked)} in the test inputs")
    return out


def probe_table(inputs: pa.Table, rng: np.random.Generator) -> tuple[pa.Table, np.ndarray]:
    """The test inputs in a random order with fresh random ids (``sample_id``, and ``row_id``
    where the rows have one), and the order (probe row j is test row perm[j])."""
    perm = rng.permutation(inputs.num_rows)
    probe = inputs.take(pa.array(perm))
    ids: set[str] = set()
    while len(ids) < inputs.num_rows:
        ids.add(secrets.token_hex(8))
    fresh = pa.array(sorted(ids), pa.string())
    for name in ID_COLUMNS:
        if name in probe.column_names:
            probe = probe.set_column(probe.column_names.index(name), name, fresh)
    return probe, perm


@dataclass(frozen=True)
class Job:
    folder: Path
    perm: np.ndarray  # probe order
    n_test: int
    part: str = ""  # "fold 2" for a cross-validation fold; "" for a config's one test part
    test_ids: tuple[str, ...] = ()  # sample_id of the test inputs, in their order

    def who(self, seed: int) -> str:
        """How messages name one run: ``seed 3`` or ``seed 3, fold 2``."""
        return f"seed {seed}, {self.part}" if self.part else f"seed {seed}"


def prepare_job(folder: Path, submission_root: Path, entry_point: str, target: str, quick: bool,
                train, validation, test, limits: Limits, probe_seed: int = 0,
                input_columns: tuple[str, ...] = INPUT_COLUMNS, label_columns: tuple[str, ...] | None = None,
                part: str = "") -> Job:
    """Write the parts and the job description the sandboxed processes read."""
    folder.mkdir(parents=True, exist_ok=True)
    pq.write_table(as_table(train), folder / "train.parquet")
    if validation is not None:
        pq.write_table(as_table(validation), folder / "validation.parquet")
    inputs = input_table(test, input_columns, label_columns)
    pq.write_table(inputs, folder / "test_inputs.parquet")
    probe, perm = probe_table(inputs, np.random.default_rng(probe_seed))
    pq.write_table(probe, folder / "probe_inputs.parquet")
    spec = {"submission_root": str(submission_root), "entry_point": entry_point, "target": target,
            "quick": quick, "address_space_mb": limits.memory_mb + ADDRESS_SPACE_HEADROOM_MB,
            "cpu_seconds": int(limits.startup_s + 2 * limits.time_limit_s + 60), "limits": asdict(limits)}
    (folder / "job.json").write_text(json.dumps(spec))
    return Job(folder, perm, inputs.num_rows, part, tuple(map(str, inputs.column("sample_id").to_pylist())))


def _tree_rss(proc) -> int:
    import psutil

    total = 0
    try:
        procs = [proc] + proc.children(recursive=True)
    except psutil.Error:
        return 0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def _kill(popen: subprocess.Popen) -> None:
    try:
        os.killpg(popen.pid, signal.SIGKILL)  # the whole session: the predictor's own children too
    except ProcessLookupError:
        pass
    popen.wait()


def _last_line(log: Path) -> str:
    try:
        lines = [ln.strip() for ln in log.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    return lines[-1][:200] if lines else ""


def run_seed(job: Job, seed: int, limits: Limits) -> SeedOutput:
    """Run one seed in a fresh interpreter; raise :class:`SeedFailed` with a one-line reason."""
    out = job.folder / f"seed-{seed}"
    log = job.folder / f"seed-{seed}.log"
    scratch = Path(tempfile.mkdtemp(prefix=f"seed-{seed}-", dir=job.folder))
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with open(log, "wb") as log_file:
        popen = subprocess.Popen([sys.executable, "-m", "perfgraphs.leaderboard.sandbox", str(job.folder), str(seed)],
                                 cwd=scratch, stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT,
                                 env=env, start_new_session=True)
    try:
        peak = _watch(popen, out, job.who(seed), limits)
    finally:
        if popen.poll() is None:  # interrupted (Ctrl-C, SIGTERM) or failed: never leave it running
            _kill(popen)
    return _collect(job, popen, out, log, seed, limits, peak)


def _watch(popen: subprocess.Popen, out: Path, who: str, limits: Limits) -> int:
    """Poll until the child exits; kill it and raise on a limit. Returns the peak resident set."""
    import psutil

    try:
        proc = psutil.Process(popen.pid)
    except psutil.NoSuchProcess:  # already gone: _collect says how it ended
        return 0
    started, clock, peak = time.monotonic(), None, 0
    while popen.poll() is None:
        rss = _tree_rss(proc)
        peak = max(peak, rss)
        now = time.monotonic()
        if rss > limits.memory_mb * MB:
            _kill(popen)
            raise SeedFailed(f"{who}: the predictor exceeded the memory limit of {limits.memory_mb} MB "
                             f"(resident set {rss / MB:.0f} MB) and was stopped: use less memory or ask for a "
                             "larger --memory-mb")
        if clock is None and (out / "ready").exists():
            clock = now
        if clock is None and now - started > limits.startup_s:
            _kill(popen)
            raise SeedFailed(f"{who}: the predictor process did not load its data within "
                             f"{limits.startup_s:g} s: the machine is overloaded, retry later")
        if clock is not None and now - clock > limits.time_limit_s:
            _kill(popen)
            raise SeedFailed(f"{who}: fit + predict exceeded the time limit of {limits.time_limit_s:g} s and "
                             "the predictor was stopped: make it faster (--quick runs CI-sized settings) or ask "
                             "for a larger --time-limit-s")
        fast = now - started < POLL_FAST_FOR_S or (clock is not None and now - clock < POLL_FAST_FOR_S)
        time.sleep(POLL_FIRST_S if fast else POLL_MAX_S)
    return peak


def _collect(job: Job, popen: subprocess.Popen, out: Path, log: Path, seed: int, limits: Limits,
             peak: int) -> SeedOutput:
    who = job.who(seed)
    result_path = out / "result.json"
    if not result_path.exists():
        rc = popen.returncode
        how = f"was killed by signal {-rc}" if rc < 0 else f"exited with code {rc}"
        if rc == -signal.SIGXCPU:
            how += " (CPU-time limit)"
        last = _last_line(log)
        raise SeedFailed(f"{who}: the predictor process {how} before reporting a result"
                         + (f" (last output: {last})" if last else "")
                         + ": do not call os._exit or kill the interpreter; run it locally to see why")
    result = json.loads(result_path.read_text())
    if not result.get("ok"):
        if result.get("kind") == "memory":
            raise SeedFailed(f"{who}: the predictor ran out of memory under the limit of {limits.memory_mb} MB "
                             f"({result.get('message')}): use less memory or ask for a larger --memory-mb")
        raise SeedFailed(f"{who}: the predictor failed: {result.get('message')}: fix it and run "
                         "`perfgraphs check` again")
    return SeedOutput(seed=seed, pred=np.load(out / "pred.npy", allow_pickle=False),
                      probe_pred=np.load(out / "probe.npy", allow_pickle=False),
                      fit_seconds=float(result["fit_seconds"]), predict_seconds=float(result["predict_seconds"]),
                      num_params=result.get("num_params"), config=result.get("config"),
                      peak_memory_mb=peak / MB)
