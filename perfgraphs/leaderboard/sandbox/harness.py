"""The parent side of the harness: write a job folder, run one sandboxed process per seed under
time and memory limits, read back its predictions. A cross-validated (tabular) config has one job
folder per fold, and each seed runs one fresh process per fold: a predictor never keeps state
from a fold whose training rows are another fold's test rows.

The child runs inside bubblewrap (:mod:`perfgraphs.leaderboard.sandbox.isolation`): it sees the training
and validation parts (with labels: they are for training and model selection), then — only after
it has reported ``fit`` done — the test part's *input* columns (an allow-list: graph columns, or
the tabular config's own list in :mod:`perfgraphs.evaluation.tabular_protocol`, so a label column
added to the datasets later can never leak by default), and nothing else of this machine. The
parent keeps the test labels and scores.

Every number of a record is measured here, never read from the child: *fit s* on this process's
clock from the child's "ready" (data loaded, submission not yet imported) to its "fit done";
*predict s* from handing over the test inputs to the arrival of their predictions; peak memory
from the kernel's accounting of the child's process tree. The parameter count is the child's own
report and is labelled self-reported.

Limits: wall clock for import + ``fit`` + ``predict`` (the clock starts when the child has loaded
its data), the resident set of the child's whole process tree (polled), plus hard ``setrlimit``
backstops the child applies to itself before importing submitted code.
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import json
import math
import os
import queue
import re
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from perfgraphs.data.build import LABEL_COLUMNS, STATIC_COLUMNS
from perfgraphs.errors import PerfgraphsError
from perfgraphs.leaderboard.sandbox import confine, isolation
from perfgraphs.leaderboard.sandbox.channel import (FREEZE_ORDER, FROZEN_STATE, MAX_STATE_PAYLOAD, NO_NEW_PROGRAMS,
                                                     ORDER, Message, Receiver)
from perfgraphs.leaderboard.sandbox.limits import Limits  # where it is defined: the CLI reads it without this module

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


@dataclass
class SeedOutput:
    seed: int
    pred: np.ndarray  # test predictions, in test-input order
    probe_pred: np.ndarray  # predictions of the shuffled, re-labelled copy, in its own order
    fit_seconds: float
    predict_seconds: float
    num_params: int | None
    config: dict | None
    peak_memory_mb: float | None  # None: not measured (no memory cgroup: harness.stated_peak_bytes)
    confinement: str = ""  # bubblewrap[+cgroup][+seccomp], or "none" (check without isolation)
    # CPU seconds of the sandbox's processes in each phase (user + system, every thread and child):
    # beside the wall clock, so a fit fanned over many cores shows as such
    fit_cpu_seconds: float | None = None
    predict_cpu_seconds: float | None = None
    cores: int | None = None  # the size of the CPU set the predictor was pinned to
    state: bytes | None = None  # a freezing run's fitted predictor (.npz: fitted_state), as it sent it



# the predictor's unpickling allow-listed in the sandbox child (sandbox.unpickling): the harness writes
# it into the job, which the submission cannot touch; off only in tests whose control shows what a
# pickle does past the static scan
RESTRICT_UNPICKLING = True
# PyYAML's Python tags name only what a pickle may (sandbox.unpickling.restrict_yaml_python_tags): off only in
# tests whose control shows what a YAML file runs past it
RESTRICT_YAML = True
# TorchScript programs refused where they would load (sandbox.torchscript), as pickles are: the same
# rule, off only in tests whose control shows what a program does past the static checks
REFUSE_TORCHSCRIPT = True
# logging.config builds only the logging package's classes, the standard streams and the submission's own
# (sandbox.logconfig): off only in tests whose control shows what a configuration runs past it
RESTRICT_LOGGING_CONFIG = True
# SymPy parses formula strings as formulas and lambdify prints no string (sandbox.formulas): off only in tests
# whose control shows what a formula runs past it
RESTRICT_SYMPY = True
# pandas' expressions read data, jinja2 renders sandboxed, Mako builds no template, PyG evaluates type hints and
# prints names only, and so does fx (sandbox.expressions): off only in tests whose control shows what an
# expression runs past it
RESTRICT_EXPRESSIONS = True
# a sandboxed run starts no other program, so no interpreter runs without the guards above
# (confine.no_new_programs_filter): off only in tests whose control shows what a fresh interpreter runs
REFUSE_NEW_PROGRAMS = True
# nor is another interpreter made inside the child's process (child._refuse_subinterpreters): off only in tests
# whose control shows what a sub-interpreter runs
REFUSE_SUBINTERPRETERS = True
# the child's working folder, where a predictor writes, is not on its sys.path (child._no_working_folder_on_path):
# off only in tests whose control shows what a module written there runs
NO_WORKING_FOLDER_ON_PATH = True

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
    # the schema's metadata left out: written by whoever wrote the part (pandas' lists every column, the
    # label columns' names and types among them), it is no input (hundred-and-twenty-sixth pass, side b's lead)
    out = table.select(keep).replace_schema_metadata(None)
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

    submission_root: Path = Path(".")
    freeze: bool = False  # its runs send their fitted state before fit_done (FREEZE_ORDER)
    frozen: bool = False  # its runs load their own seed's state (hand_frozen_state) instead of fitting

    @property
    def order(self) -> tuple[str, ...]:
        return FREEZE_ORDER if self.freeze else ORDER

    def who(self, seed: int) -> str:
        """How messages name one run: ``seed 3`` or ``seed 3, fold 2``."""
        return f"seed {seed}, {self.part}" if self.part else f"seed {seed}"


def prepare_job(folder: Path, submission_root: Path, entry_point: str, target: str, quick: bool,
                train, validation, test, limits: Limits, probe_seed: int = 0,
                input_columns: tuple[str, ...] = INPUT_COLUMNS, label_columns: tuple[str, ...] | None = None,
                part: str = "", freeze: bool = False, frozen: dict[int, bytes] | None = None) -> Job:
    """Write what the sandboxed processes read: ``job/`` (training and validation parts, the job
    description: mounted read-only from the start) and ``held/`` (the test inputs and the probe, a
    frozen run's states: never mounted, copied into a run's inbox only when the harness hands them over).

    ``freeze``: each run sends its fitted state at the end of its fit, before "fit_done". ``frozen`` (seed -> the state a
    freezing run sent): each run loads its own seed's state instead of fitting (held here, handed to that
    run alone: :func:`hand_frozen_state`), and gets no training or validation part (nothing to fit on)."""
    (folder / "job").mkdir(parents=True, exist_ok=True)
    (folder / "held").mkdir(exist_ok=True)
    if frozen is None:
        pq.write_table(as_table(train), folder / "job" / "train.parquet")
        if validation is not None:
            pq.write_table(as_table(validation), folder / "job" / "validation.parquet")
    else:
        (folder / "held" / "frozen").mkdir()
        for seed, state in frozen.items():
            (folder / "held" / "frozen" / f"seed-{int(seed)}.npz").write_bytes(state)
    inputs = input_table(test, input_columns, label_columns)
    pq.write_table(inputs, folder / "held" / "test_inputs.parquet")
    probe, perm = probe_table(inputs, np.random.default_rng(probe_seed))
    pq.write_table(probe, folder / "held" / "probe_inputs.parquet")
    spec = {"entry_point": entry_point, "target": target, "quick": quick,
            "address_space_mb": limits.memory_mb + ADDRESS_SPACE_HEADROOM_MB,
            "cpu_seconds": int(limits.startup_s + 2 * limits.time_limit_s + 60), "limits": asdict(limits),
            "restrict_unpickling": RESTRICT_UNPICKLING, "refuse_torchscript": REFUSE_TORCHSCRIPT,
            "restrict_logging_config": RESTRICT_LOGGING_CONFIG, "restrict_sympy": RESTRICT_SYMPY,
            "restrict_expressions": RESTRICT_EXPRESSIONS, "restrict_yaml": RESTRICT_YAML,
            "refuse_subinterpreters": REFUSE_SUBINTERPRETERS, "no_working_folder_on_path": NO_WORKING_FOLDER_ON_PATH,
            "freeze": freeze,
            "frozen": frozen is not None}
    (folder / "job" / "job.json").write_text(json.dumps(spec))
    # the sandbox's host user is not the submitter's (isolation.sandbox_user): it reads a copy
    copy = copy_submission(Path(submission_root), folder / "submission")
    isolation.make_readable(folder / "job")
    return Job(folder, perm, inputs.num_rows, part, tuple(map(str, inputs.column("sample_id").to_pylist())),
               submission_root=copy, freeze=freeze, frozen=frozen is not None)


def hand_frozen_state(job: Job, inbox: Path, seed: int) -> None:
    """Put this run's own seed's frozen state in its inbox (:data:`FROZEN_STATE`), the one folder of the
    sandbox no other run reads. The states were written into the job folder, which every run of every
    seed reads, and a predictor whose ``load_state`` averaged the five states it found there scored each
    seed of a hidden record as an ensemble of the five frozen fits (no spread between seeds, a lower MAPE
    than any one fit), while the record stated one fit's time (sixty-third pass of 2026-12-06)."""
    shutil.copyfile(job.folder / "held" / "frozen" / f"seed-{int(seed)}.npz", inbox / FROZEN_STATE)
    (inbox / FROZEN_STATE).chmod(0o444)  # the sandbox's user reads it (isolation.sandbox_user)


def hand_no_new_programs(inbox: Path) -> None:
    """Put the filter of new programs (:func:`confine.no_new_programs_filter`) in a sandboxed run's inbox, where
    its child loads it before the predictor's folder is on ``sys.path``: the guards the child puts in place are
    its process's, and a ``spawn`` pool's worker, a fresh interpreter, ran a pickle's ``eval`` that the guard
    refuses in the child (hundred-and-twenty-second pass, side b). None is handed where this machine compiles
    none (no libseccomp, or an architecture whose ``seccomp(2)`` number ``confine`` does not know)."""
    program = confine.no_new_programs_filter()
    if program is not None:
        (inbox / NO_NEW_PROGRAMS).write_bytes(program)
        (inbox / NO_NEW_PROGRAMS).chmod(0o444)  # the sandbox's user reads it (isolation.sandbox_user)


def copy_submission(source: Path, dest: Path) -> Path:
    """The submission's folders and regular files, readable by everyone; symlinks stay links (they
    resolve inside the sandbox, where the host's files are not); anything else (a FIFO, a socket, a
    device) is left out: opening a FIFO to copy it would block the harness; and so are Python
    bytecode (:func:`is_bytecode`), since the sandbox runs the submission's source, and helper scripts
    (:func:`is_helper_script`), since it runs only the source an import statement reaches.

    The harness may be root and the folder someone else's: it is walked through directory
    descriptors opened without following links (``O_NOFOLLOW``), so a folder swapped for a link
    to ``/etc`` while the copy runs is never read through."""
    dest.mkdir(parents=True, exist_ok=True)
    top = os.open(source, os.O_RDONLY | os.O_DIRECTORY)
    try:
        _copy_dir(top, dest)
    finally:
        os.close(top)
    isolation.make_readable(dest)
    return dest.resolve()


def is_helper_script(rel: Path) -> bool:
    """Whether a submission's file at ``rel`` (relative to the folder) is Python source no ``import``
    statement reaches: a ``.py`` under a folder of no Python name (``scripts-train/``,
    ``2024_scripts/``, where RULES puts the helper scripts the predictor does not import) or itself of
    no Python name (``train-model.py``). The copy the sandbox runs leaves such files out: no check reads
    them as the predictor's code, yet a library that imports a module named by a string the submission
    controls ran them, five passes in a row, each by another importer (a link ``opt_einsum ->
    scripts-train``, a link ``cuda/bindings -> ../scripts-train``, an entry point of package metadata, a
    pickle's class, a logging configuration's factory: fifty-eighth to sixty-second passes). Absent, no
    importer can run them, known or not."""
    from perfgraphs.leaderboard.pickle_scan import importable_by_statement

    if rel.suffix not in importlib.machinery.SOURCE_SUFFIXES:
        return False
    return not all("." not in part and importable_by_statement(part) for part in (*rel.parent.parts, rel.stem))


def is_bytecode(name: str) -> bool:
    """Whether a submission's file, folder or link of this name is (or holds) Python bytecode,
    which the copy the sandbox runs leaves out. Python imports ``__pycache__/<module>.<tag>.pyc``
    compiled with unchecked hash-based invalidation (PEP 552) in place of the source beside it,
    whatever that source says, and a lone ``<module>.pyc`` with no source at all: a ``predictor.py``
    that read as a median ran the bytecode shipped beside it, and the review that enforces what the
    code cannot tell (rule 3: a predictor predicts, it does not measure; no picked seeds) read code
    that never ran (fortieth pass of 2026-12-04). Left out, Python compiles the source it is given."""
    return name == "__pycache__" or name.endswith(tuple(importlib.machinery.BYTECODE_SUFFIXES))


_NOFOLLOW = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


def _copy_dir(dir_fd: int, dest: Path, rel: Path = Path()) -> None:
    for entry in sorted(os.scandir(dir_fd), key=lambda e: e.name):
        out = dest / entry.name
        if is_bytecode(entry.name):  # whatever its type: a link named so leads Python to bytecode too
            continue
        if is_helper_script(rel / entry.name):  # a link too: Python reads the source through it
            continue
        if entry.is_symlink():
            out.symlink_to(os.readlink(entry.name, dir_fd=dir_fd))
            continue
        try:
            fd = os.open(entry.name, _NOFOLLOW, dir_fd=dir_fd)  # fails (ELOOP) on a link swapped in
        except OSError:
            continue
        try:
            mode = os.fstat(fd).st_mode
            if stat.S_ISDIR(mode):
                out.mkdir(exist_ok=True)
                _copy_dir(fd, out, rel / entry.name)
            elif stat.S_ISREG(mode):
                with open(out, "wb") as f:
                    while chunk := os.read(fd, 1 << 20):
                        f.write(chunk)
        finally:
            os.close(fd)


def _tree(popen: subprocess.Popen) -> list:
    import psutil

    try:
        root = psutil.Process(popen.pid)
        return [root] + root.children(recursive=True)
    except psutil.Error:
        return []


def _tree_rss(procs: list) -> int:
    import psutil

    total = 0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def _tree_cpu_seconds(procs: list) -> float:
    """User + system CPU seconds of a process tree: every live process's own, plus what its
    reaped children spent (a forked worker that already exited counts through its parent)."""
    import psutil

    total = 0.0
    for p in procs:
        try:
            t = p.cpu_times()
            total += t.user + t.system + t.children_user + t.children_system
        except psutil.Error:
            pass
    return total


def cpu_clock(box) -> Callable[[], float | None]:
    """The clock a seed's CPU seconds are read on: the sandbox's cgroup accounting (``box``), which the
    kernel charges as every task runs, or none (its seconds are then not measured, never a smaller
    number). A sum over the process tree misses a worker the kernel reaps for a parent that ignores
    SIGCHLD: without a cgroup, a ridge fit whose two such workers burned 0.8 CPU seconds a seed was
    recorded by `perfgraphs submit` with 0.15 CPU seconds in fit, shown as measured (ninetieth pass)."""
    if box is not None and box.cpu_seconds() is not None:
        return box.cpu_seconds
    return lambda: None


def _spent(cpu: dict[str, float | None], start: str, end: str) -> float | None:
    """The CPU seconds between two readings of :func:`cpu_clock`, or None where either is unknown."""
    if cpu.get(start) is None or cpu.get(end) is None:
        return None
    return cpu[end] - cpu[start]


def stated_cores(cores: set[int], seccomp: bool) -> int | None:
    """The size of the CPU set a seed is stated to have run on: the set the harness pinned it to, where
    the seccomp filter refuses ``sched_setaffinity`` so that the predictor cannot widen it; else none
    (not measured). Without the filter (no libseccomp here) a predictor widened its set to every core
    while its record stated the harness's one (ninetieth pass's lead)."""
    return len(cores) if seccomp else None


def scored_cores() -> set[int]:
    """The cores a predictor is pinned to: the harness's own CPU set (run the harness under
    ``taskset -c`` to score on fewer). Its size is recorded beside every timing."""
    return set(os.sched_getaffinity(0))


def stated_peak_bytes(box) -> int | None:
    """The peak memory a seed is stated to have used: its memory cgroup's peak (every page charged to the run
    once: /tmp and /dev/shm files, socket and pipe buffers, kernel memory), or none, not measured ("–" on the
    board), never a smaller number. Without a cgroup the harness samples the process tree's resident sets (they
    still enforce ``--memory-mb``), and memory a predictor keeps outside every resident set is in no sample: a fit
    that kept 480 MB in /dev/shm files, read back a piece at a time, was stated a peak of 226 MB by
    ``perfgraphs check``, 646 MB under the cgroup (hundred-and-thirteenth pass, side a;
    tests/test_leaderboard_review_113a.py)."""
    if box is None or not box.available:
        return None
    return box.peak_memory_bytes() or None


def _kill(popen: subprocess.Popen) -> None:
    import psutil

    procs = _tree(popen)
    for p in procs:  # the sandbox's own session and anything it forked, not only the group
        try:
            p.kill()
        except psutil.Error:
            pass
    try:
        os.killpg(popen.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    popen.wait()


LOG_TAIL_BYTES = 4096
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def printable(text: str, limit: int = 400) -> str:
    """Text from the predictor's process, safe for a terminal and one line: control characters
    (escape sequences could rewrite the operator's screen) become spaces."""
    return " ".join(_CONTROL.sub(" ", text).split())[:limit]


def _last_line(log: Path) -> str:
    """The last non-empty line of the seed's output, reading only its tail (the file can be large)."""
    try:
        with open(log, "rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - LOG_TAIL_BYTES))
            tail = f.read().decode(errors="replace")
    except OSError:
        return ""
    lines = [ln for ln in tail.splitlines() if ln.strip()]
    return printable(lines[-1], 200) if lines else ""


def sandbox_argv(job: Job, inbox: Path, seed: int, fd: int, go: int, code: Path | None,
                 seccomp: int | None = None) -> list[str]:
    """The runner's command line: inside bubblewrap when ``code`` (the staged package code) is
    given, else a plain child process (``perfgraphs check`` on a machine without bubblewrap)."""
    runner = [sys.executable, "-m", "perfgraphs.leaderboard.sandbox.child"]
    if code is None:
        return [*runner, str(job.folder / "job"), str(inbox), str(job.submission_root), str(seed), str(fd), str(go)]
    paths = isolation.SandboxPaths(job=job.folder / "job", inbox=inbox, code=code, submission=job.submission_root)
    return isolation.command(paths, [*runner, isolation.JOB_MOUNT, isolation.INBOX_MOUNT,
                                     isolation.SUBMISSION_MOUNT, str(seed), str(fd), str(go)], seccomp)


def run_seed(job: Job, seed: int, limits: Limits, code: Path | None = None) -> SeedOutput:
    """Run one seed in a fresh interpreter (isolated when ``code`` is given: bubblewrap, plus a
    cgroup for memory and tasks and a seccomp filter where this machine has them); raise
    :class:`SeedFailed` with a one-line reason. Every number of the output is measured here."""
    log = job.folder / f"seed-{seed}.log"
    inbox = Path(tempfile.mkdtemp(prefix=f"inbox-{seed}-", dir=job.folder))
    inbox.chmod(0o755)  # the sandbox's user reads what the harness hands over
    if job.frozen:
        hand_frozen_state(job, inbox, seed)
    cores = scored_cores()
    with contextlib.ExitStack() as stack:
        box = None
        if code is not None:
            # tasks: thread pools start one thread per core unless told otherwise
            box = stack.enter_context(confine.Confinement(limits.memory_mb, max(512, 16 * (os.cpu_count() or 1)),
                                                          name=f"seed{seed}"))
        seccomp = confine.seccomp_fd() if code is not None and confine.seccomp_program() is not None else None
        if box is not None and box.available:
            # what the sandbox reads, charged to its own cgroup
            uncached(job.folder / "job", job.submission_root, inbox)
        if seccomp is not None and REFUSE_NEW_PROGRAMS:
            hand_no_new_programs(inbox)
        read_fd, write_fd = os.pipe()
        go_read, go_write = os.pipe()
        argv = sandbox_argv(job, inbox, seed, write_fd, go_read, code, seccomp)
        # bubblewrap itself is the sandbox's PID 1, whose /proc/1/environ the predictor can read: it
        # gets no more of this process's environment than the predictor does
        env = isolation.outer_environment() if code is not None else {**os.environ, "PYTHONUNBUFFERED": "1"}
        extra = (seccomp,) if seccomp is not None else ()
        try:
            with open(log, "wb") as log_file:
                popen = subprocess.Popen(argv, cwd=inbox, stdin=subprocess.DEVNULL, stdout=log_file,
                                         stderr=subprocess.STDOUT, env=env, start_new_session=True,
                                         pass_fds=(write_fd, go_read, *extra),
                                         preexec_fn=_preexec(box if box is not None and box.available else None,
                                                             cores))
        finally:
            for fd in (write_fd, go_read, *extra):
                os.close(fd)
        # room for a wrong shape, which the checker then names; far more is a broken channel
        receiver = Receiver(read_fd, max_payload=8 * (4 * job.n_test + 1024),
                            max_state=MAX_STATE_PAYLOAD if job.freeze else 0)
        os.set_blocking(go_write, False)
        try:
            out = _supervise(job, seed, limits, popen, receiver, inbox, go_write, log, box)
        finally:
            if popen.poll() is None:  # done, interrupted (Ctrl-C, SIGTERM) or failed: never leave it running
                _kill(popen)
            os.close(go_write)
        out.confinement = confinement_label(code, box, seccomp is not None)
        out.cores = stated_cores(cores, seccomp is not None)
        return out


def uncached(*folders: Path) -> None:
    """Drop from the page cache every regular file under ``folders`` (written here: the job's parts and
    the submission's copy), so that the pages a run reads or maps are charged to its own cgroup. A page
    cached by the harness's write is charged to the harness, and a predictor that mapped the 300 MB of
    weights shipped in its folder and touched every page had the record state a peak of 134 MB where
    reading them into its memory stated 434 MB (sixtieth pass of 2026-12-05). Hidden boards drop the
    whole cache before every run (:func:`confine.drop_page_cache`); this drops only the job's files."""
    for folder in folders:
        for path in Path(folder).rglob("*"):
            if path.is_symlink() or not path.is_file():
                continue
            try:
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
            except OSError:
                continue
            try:
                os.fdatasync(fd)  # a dirty page is not dropped: write this file's first (not the whole machine's)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def _preexec(box, cores: set[int]):
    """The child's steps between fork and exec: into the cgroup(s), then onto the scored cores
    (the seccomp filter refuses sched_setaffinity inside the sandbox, so it cannot widen them)."""
    def run() -> None:
        if box is not None:
            box.preexec()
        os.sched_setaffinity(0, cores)
    return run


def confinement_label(code: Path | None, box, seccomp: bool) -> str:
    """How a seed ran, as the record states it: ``bubblewrap+cgroup+seccomp`` at best."""
    if code is None:
        return "none"
    return "bubblewrap" + ("+cgroup" if box is not None and box.available else "") + ("+seccomp" if seccomp else "")


def _hand_over(job: Job, inbox: Path, name: str, go: int, who: str) -> float:
    """Put one held file in the inbox, then tell the runner; returns this process's clock just before
    the telling, the earliest a message answering the inputs can have been written. Stamped after the
    write instead, a harness thread the host descheduled between the write and the stamp let the channel's
    reader stamp an honest fast answer earlier, and the seed failed as "sent predictions before the harness
    handed over their inputs" (test_submit_tabular on a loaded machine, ninety-ninth pass's report).
    The write never blocks: the runner only reads this pipe, so a full pipe means the predictor filled it
    (it can reopen the pipe through /proc/self/fd) to stall this process, its clock and its watchdog."""
    tmp = inbox / f".{name}.tmp"
    shutil.copyfile(job.folder / "held" / f"{name}_inputs.parquet", tmp)
    os.replace(tmp, inbox / f"{name}_inputs.parquet")
    told_at = time.monotonic()
    try:
        os.write(go, f"{name}\n".encode())
    except BrokenPipeError:  # the runner is gone; the channel's end says how
        pass
    except BlockingIOError:
        raise SeedFailed(f"{who}: the predictor process filled the harness's control pipe: do not write to the "
                         "harness's file descriptors") from None
    return told_at


@dataclass
class _SeedWatch:
    """What the supervision of one seed has seen so far: the messages in order, the time of each
    (this process's clock), the channel's byte offset written before each hand-over, the CPU
    time at each phase."""

    job: Job
    seed: int
    limits: Limits
    popen: subprocess.Popen
    receiver: Receiver
    inbox: Path
    go: int
    log: Path
    box: object | None
    started: float
    at: dict[str, float] = field(default_factory=dict)
    got: dict[str, Message] = field(default_factory=dict)
    marks: dict[str, int] = field(default_factory=dict)  # stream offset written before each hand-over
    cpu: dict[str, float] = field(default_factory=dict)
    who: str = field(init=False)
    cgroup: bool = field(init=False)
    cpu_clock: Callable[[], float | None] = field(init=False)

    def __post_init__(self) -> None:
        self.who = self.job.who(self.seed)
        self.cgroup = self.box is not None and self.box.available
        self.cpu_clock = cpu_clock(self.box if self.cgroup else None)

    def check_limits(self, now: float) -> None:
        """Stop the predictor past the memory limit, the startup time or the fit + predict time."""
        who, limits, popen, at = self.who, self.limits, self.popen, self.at
        procs = _tree(popen)
        # with a memory cgroup the kernel enforces the limit and counts a page shared by forked
        # workers once; a sum of resident sets would count it in every process
        rss = 0 if self.cgroup else _tree_rss(procs)
        if rss > limits.memory_mb * MB:
            _kill(popen)
            raise SeedFailed(f"{who}: the predictor exceeded the memory limit of {limits.memory_mb} MB "
                             f"(resident set {rss / MB:.0f} MB) and was stopped: use less memory or ask for a "
                             "larger --memory-mb")
        if "ready" not in at and now - self.started > limits.startup_s:
            _kill(popen)
            raise SeedFailed(f"{who}: the predictor process did not load its data within "
                             f"{limits.startup_s:g} s: the machine is overloaded, retry later")
        if "ready" in at and now - at["ready"] > limits.time_limit_s:
            _kill(popen)
            raise SeedFailed(f"{who}: fit + predict exceeded the time limit of {limits.time_limit_s:g} s and "
                             "the predictor was stopped: make it faster (--quick runs CI-sized settings) or ask "
                             "for a larger --time-limit-s")

    def channel_ended(self, message: Exception | None) -> SeedFailed:
        """The channel closed (None) or broke (an exception) before the result: the failure to raise."""
        popen, box = self.popen, self.box
        if message is None:  # the channel closed: give the process a moment to exit on its own
            try:
                popen.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        _kill(popen)
        if message is None and box is not None and box.available and box.memory_limit_hit():
            return SeedFailed(f"{self.who}: the predictor was stopped at the memory limit of {self.limits.memory_mb} "
                              "MB (its processes, their /tmp files and memfds count): use less memory or ask for a "
                              "larger --memory-mb")
        return _ended(self.who, popen, message, self.log, self.limits)

    def accept(self, message: Message) -> None:
        """Check one message (an error, out of order, or sent before its inputs were handed over:
        the predictor is stopped), record it, and hand over the next inputs it calls for."""
        who, popen, at, marks = self.who, self.popen, self.at, self.marks
        if message.kind == "error":
            _kill(popen)
            raise _failure(who, message.fields, self.limits)
        expected = self.job.order[len(self.got)]
        if message.kind != expected:
            _kill(popen)
            raise SeedFailed(f"{who}: the predictor process sent {message.kind!r} on the harness channel where "
                             f"{expected!r} was due: do not write to the harness's file descriptors")
        if message.kind in ("pred", "probe") and (message.start < marks[message.kind]
                                                  or message.at < at[f"handed_{message.kind}"]):
            _kill(popen)  # sent before its inputs existed: a forged message, to fake the prediction time
            raise SeedFailed(f"{who}: the predictor process sent predictions before the harness handed over their "
                             "inputs: do not write to the harness's file descriptors")
        self.got[message.kind], at[message.kind] = message, message.at
        if message.kind in ("ready", "fit_done", "pred"):
            self.cpu[message.kind] = self.cpu_clock()
        if message.kind == "fit_done":
            at["handed_test_start"] = time.monotonic()  # the predict clock starts before the inputs are readable
            marks["pred"] = self.receiver.written()  # bytes already sent cannot be predictions of the inputs
            at["handed_pred"] = _hand_over(self.job, self.inbox, "test", self.go, who)
        elif message.kind == "pred":
            marks["probe"] = self.receiver.written()
            at["handed_probe"] = _hand_over(self.job, self.inbox, "probe", self.go, who)

    def output(self) -> SeedOutput:
        """The seed's predictions, times and peak memory, once its result has come."""
        at, cpu, who = self.at, self.cpu, self.who
        # the kernel's accounting of the cgroup, which no process inside can reset (the cgroup files are not
        # mounted in the sandbox); none without a cgroup
        peak = stated_peak_bytes(self.box)
        _kill(self.popen)  # its work is done: atexit hooks and stray children never run on
        result = self.got["result"].fields
        return SeedOutput(seed=self.seed, pred=_array(who, self.got["pred"]),
                          probe_pred=_array(who, self.got["probe"]),
                          fit_seconds=at["fit_done"] - at["ready"], predict_seconds=at["pred"] - at["handed_test_start"],
                          num_params=_self_reported_params(result.get("num_params")),
                          config=result.get("config") if isinstance(result.get("config"), dict) else None,
                          peak_memory_mb=None if peak is None else peak / MB,
                          fit_cpu_seconds=_spent(cpu, "ready", "fit_done"),
                          predict_cpu_seconds=_spent(cpu, "fit_done", "pred"),
                          state=self.got["state"].payload if "state" in self.got else None)


def _supervise(job: Job, seed: int, limits: Limits, popen: subprocess.Popen, receiver: Receiver, inbox: Path,
               go: int, log: Path, box=None) -> SeedOutput:
    """Enforce the limits and the message order; time each phase on this process's clock."""
    watch = _SeedWatch(job=job, seed=seed, limits=limits, popen=popen, receiver=receiver, inbox=inbox, go=go,
                       log=log, box=box, started=time.monotonic())
    while "result" not in watch.got:
        now = time.monotonic()
        watch.check_limits(now)
        at = watch.at
        fast = now - watch.started < POLL_FAST_FOR_S or ("ready" in at and now - at["ready"] < POLL_FAST_FOR_S)
        try:
            message = receiver.messages.get(timeout=POLL_FIRST_S if fast else POLL_MAX_S)
        except queue.Empty:
            continue
        if message is None or isinstance(message, Exception):
            raise watch.channel_ended(message)
        watch.accept(message)
    return watch.output()


def _array(who: str, message: Message) -> np.ndarray:
    """The predictions as sent, in their shape (the checker says what is wrong with a shape: at
    most two dimensions, whose product — in Python integers, which do not overflow — is the size)."""
    values = np.frombuffer(message.payload[: len(message.payload) // 8 * 8], dtype="<f8").astype(np.float64)
    shape = message.fields.get("shape")
    if isinstance(shape, list) and 1 <= len(shape) <= 2 and all(type(d) is int and d >= 0 for d in shape) \
            and math.prod(shape) == values.size and len(message.payload) == 8 * values.size:
        return values.reshape(shape)
    raise SeedFailed(f"{who}: the predictor process sent {values.size} values with shape {shape!r} on the harness "
                     "channel: do not write to the harness's file descriptors")


def _self_reported_params(value) -> int | None:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _failure(who: str, fields: dict, limits: Limits) -> SeedFailed:
    message = printable(str(fields.get("message", "")))
    if fields.get("error_kind") == "memory":
        return SeedFailed(f"{who}: the predictor ran out of memory under the limit of {limits.memory_mb} MB "
                          f"({message}): use less memory or ask for a larger --memory-mb")
    return SeedFailed(f"{who}: the predictor failed: {message}: fix it and run `perfgraphs check` again")


def _ended(who: str, popen: subprocess.Popen, problem: Exception | None, log: Path, limits: Limits) -> SeedFailed:
    if problem is not None:
        return SeedFailed(f"{who}: the predictor process broke the harness channel ({problem}): do not write to "
                          "the harness's file descriptors")
    rc = popen.returncode
    how = f"was killed by signal {-rc}" if rc is not None and rc < 0 else f"exited with code {rc}"
    if rc == -signal.SIGXCPU:
        how += " (CPU-time limit)"
    last = _last_line(log)
    return SeedFailed(f"{who}: the predictor process {how} before reporting a result"
                      + (f" (last output: {last})" if last else "")
                      + ": do not call os._exit or kill the interpreter; run it locally to see why")
