"""The predictor's side of the harness, one process per seed and part, inside the sandbox
(:mod:`perfgraphs.leaderboard.sandbox.isolation`):

    python -m perfgraphs.leaderboard.sandbox.child <job> <inbox> <submission> <seed> <channel fd> <go fd>

It lowers its own resource limits before anything else runs, loads the training and validation
parts, imports the submitted predictor and fits it. Only then does the harness put the test inputs
(no label column) in the inbox, and after their predictions the shuffled, re-labelled probe copy.
Everything it reports (predictions, the self-reported parameter count and config, or the one-line
reason it failed) goes over the channel (:mod:`perfgraphs.leaderboard.sandbox.channel`); the harness keeps
the clock. It never sees a test label: those stay in the parent, which scores.

Frozen fits (``perfgraphs submit --freeze`` / ``--frozen``): a freezing run sends the fitted
predictor's ``state()`` (numbers only, :mod:`perfgraphs.baselines.fitted_state`) before "fit_done", in the
fit's clocks and before any test input is handed over; a frozen run gets no training or validation
part, reads its own seed's state from its inbox (no other seed's is in reach) and calls
``load_state(state)`` where a fresh run calls ``fit``.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import traceback
from pathlib import Path

from perfgraphs.leaderboard.sandbox import channel

MB = 1024 * 1024
MAX_FILE_MB = 64


def _limit(spec: dict) -> None:
    """Hard limits inherited by anything the predictor starts: address space (a backstop; the
    parent watches the resident set), CPU seconds (wall clock is the parent's job) and no core dumps."""
    address_space = int(spec["address_space_mb"]) * MB
    resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    cpu = int(spec["cpu_seconds"])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # stdout/stderr are a host file (the seed's log): no single file may grow past this
    resource.setrlimit(resource.RLIMIT_FSIZE, (MAX_FILE_MB * MB, MAX_FILE_MB * MB))


def _where(exc: BaseException, root: Path) -> str:
    """file:line of the innermost frame inside the submission, so the message points at its code."""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        try:
            rel = Path(frame.filename).resolve().relative_to(root)
        except ValueError:
            continue
        return f" at {rel}:{frame.lineno}"
    return ""


def _one_line(exc: BaseException, root: Path) -> str:
    text = " ".join(str(exc).split())[:300]
    return f"{type(exc).__name__}{': ' + text if text else ''}{_where(exc, root)}"


def _load_part(path: Path):
    """A part the harness wrote, as a Hugging Face dataset named by its file's hash. Unnamed, ``datasets``
    fingerprints a table by hashing every value: about a second for a board's training part (node
    features: 230 MB in memory), in every seed, and inside the predict phase's clock for the test inputs."""
    import hashlib

    import datasets
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not path.exists():
        return None
    data = path.read_bytes()
    return datasets.Dataset(pq.read_table(pa.BufferReader(data)), fingerprint=hashlib.sha256(data).hexdigest()[:32])


def _construct(cls, spec: dict, seed: int):
    import inspect

    kwargs = {"target": spec["target"], "seed": seed, "quick": bool(spec["quick"])}
    try:
        params = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return cls(**kwargs)
    if not any(p.kind is p.VAR_KEYWORD for p in params.values()):
        if "target" not in params:
            raise TypeError("the predictor class must accept the keyword argument 'target' "
                            "(and optionally 'seed' and 'quick'): def __init__(self, target, seed=0, quick=False)")
        kwargs = {k: v for k, v in kwargs.items() if k in params}
    return cls(**kwargs)


def _as_array(pred):
    import numpy as np

    if hasattr(pred, "detach"):
        pred = pred.detach().cpu().numpy()
    try:
        return np.asarray(pred, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"predict returned {type(pred).__name__} that is not numeric: return a float array "
                        "of shape (n,)") from None


def count_params(model) -> int | None:
    """``model.n_params`` if it says; else the unique parameters of every torch module reachable
    from its attributes (a few levels deep); None when there is neither (trees, kNN, ...)."""
    n = getattr(model, "n_params", None)
    if callable(n):
        n = n()
    if n is not None:
        return int(n)
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    seen: dict[int, int] = {}
    visited: set[int] = set()
    found = False
    stack = [(model, 0)]
    skip = ("numpy", "pyarrow", "datasets", "pandas")
    while stack and len(visited) < 20000:
        obj, depth = stack.pop()
        if id(obj) in visited or depth > 4:
            continue
        visited.add(id(obj))
        if isinstance(obj, torch.nn.Module):
            found = True
            for p in obj.parameters():
                seen[id(p)] = p.numel()
            continue
        if isinstance(obj, dict):
            stack += [(v, depth + 1) for v in obj.values()]
        elif isinstance(obj, (list, tuple)):
            stack += [(v, depth + 1) for v in obj[:1000]]
        elif hasattr(obj, "__dict__") and not isinstance(obj, type) \
                and not type(obj).__module__.split(".")[0] in skip:
            stack += [(v, depth + 1) for v in vars(obj).values()]
    return sum(seen.values()) if found else None


def _config(model) -> dict | None:
    config = getattr(model, "config", None)
    if callable(config):
        config = config()
    if config is None:
        return None
    if not isinstance(config, dict):
        return {"config": repr(config)[:500]}
    config = json.loads(json.dumps(config, default=repr))
    if channel._deeper_than(config, channel.MAX_HEADER_DEPTH - 1):  # the harness refuses a deeper header
        raise ValueError(f"the predictor's config nests deeper than {channel.MAX_HEADER_DEPTH - 1} levels: report "
                         "the hyper-parameters used as a flat dict")
    return config


def _wait_for(go: int, expected: str) -> None:
    """Block until the harness says the next inputs are in the inbox."""
    line = b""
    while not line.endswith(b"\n"):
        chunk = os.read(go, 1)
        if not chunk:
            raise RuntimeError("the harness closed the channel")
        line += chunk
    if line.decode().strip() != expected:
        raise RuntimeError(f"the harness sent {line!r}, expected {expected!r}")


def _send_array(fd: int, kind: str, values) -> None:
    import numpy as np

    values = np.ascontiguousarray(values, dtype="<f8")
    channel.send(fd, kind, values.tobytes(), shape=list(values.shape))


def run(job: Path, inbox: Path, root: Path, seed: int, fd: int, go: int) -> int:
    """Load the parts, import and fit the predictor, then predict the test inputs and the probe
    when the harness hands them over. Everything goes back over the channel; nothing is written."""
    spec = json.loads((job / "job.json").read_text())
    _limit(spec)
    if spec.get("no_working_folder_on_path", True):
        _no_working_folder_on_path()  # what the predictor writes there is no module (125th pass, side b)
    try:
        train, val = _load_part(job / "train.parquet"), _load_part(job / "validation.parquet")
        import numpy as np  # noqa: F401 — loaded before the clock starts, like the data

        channel.send(fd, "ready")  # the harness's clock for the time limit starts here
        import importlib

        _refuse_new_programs(inbox)  # before anything of the folder can run: no interpreter without the guards below
        if spec.get("refuse_subinterpreters", True):
            _refuse_subinterpreters()  # nor one inside this process (hundred-and-twenty-fifth pass, side b)
        sys.path.insert(0, str(root))
        from perfgraphs.leaderboard.sandbox.unpickling import restrict_unpickling

        if spec.get("restrict_unpickling", True):
            restrict_unpickling(root)  # before the predictor runs: any pickle it loads names listed classes only
        if spec.get("restrict_yaml", True):
            from perfgraphs.leaderboard.sandbox.unpickling import restrict_yaml_python_tags

            restrict_yaml_python_tags(root)  # and a YAML Python tag names what a pickle may (115th pass, side b)
        if spec.get("refuse_torchscript", True):
            from perfgraphs.leaderboard.sandbox.torchscript import refuse_torchscript

            refuse_torchscript()  # and no serialized TorchScript program runs, whatever the scan read
        if spec.get("restrict_logging_config", True):
            from perfgraphs.leaderboard.sandbox.logconfig import restrict_logging_config

            restrict_logging_config(root)  # and a logging configuration builds no name it reads (sixty-second pass)
        if spec.get("restrict_sympy", True):
            from perfgraphs.leaderboard.sandbox.formulas import restrict_sympy

            restrict_sympy()  # and a SymPy formula string runs no Python (sixty-third pass)
        if spec.get("restrict_expressions", True):
            from perfgraphs.leaderboard.sandbox.expressions import restrict_expressions

            restrict_expressions()  # nor a pandas expression or a template (sixty-fourth pass), nor an fx graph's names
        module_name, cls_name = spec["entry_point"].split(":")
        module = importlib.import_module(module_name)
        cls = getattr(module, cls_name, None)
        if cls is None:
            raise AttributeError(f"module {module_name} has no {cls_name}: set entry_point to 'module:ClassName'")
        model = _construct(cls, spec, seed)
        missing = [m for m in ("fit", "predict") if not callable(getattr(model, m, None))]
        if missing:
            raise TypeError(f"{cls_name} has no method {' or '.join(missing)}: define fit(train, val) and "
                            "predict(graphs) -> array of shape (n,)")
        if spec.get("frozen"):
            _load_state(model, cls_name, inbox / channel.FROZEN_STATE)  # this seed's own, handed to this run alone
        else:
            model.fit(train, val)
            if spec.get("freeze"):  # inside the fit phase: the time state() takes is the fit's (fifty-first pass)
                channel.send(fd, "state", _state_bytes(model, cls_name))
        channel.send(fd, "fit_done")
        _wait_for(go, "test")
        _send_array(fd, "pred", _as_array(model.predict(_load_part(inbox / "test_inputs.parquet"))))
        _wait_for(go, "probe")
        _send_array(fd, "probe", _as_array(model.predict(_load_part(inbox / "probe_inputs.parquet"))))
        channel.send(fd, "result", num_params=count_params(model), config=_config(model))
    except MemoryError as exc:
        _report_failure(fd, "memory", _one_line(exc, root))
    except BaseException as exc:  # noqa: BLE001 — anything the submission raises, SystemExit included
        _report_failure(fd, "crash", _one_line(exc, root))
    return 0


def _refuse_new_programs(inbox: Path) -> None:
    """Load the filter of new programs the harness handed over (``confine.no_new_programs_filter``; none where
    the run has no seccomp filter): every guard below is this process's, and a fresh interpreter started in the
    sandbox (a ``spawn`` pool's worker) had none of them (hundred-and-twenty-second pass, side b). Then starting
    a program through ``_posixsubprocess`` (``subprocess``, ``multiprocessing``'s spawn and forkserver) fails at
    once with a line that says so: ``multiprocessing`` never reads the failed ``execve``'s error, and a spawn
    pool forked its worker again and again while the predictor waited for it up to its time limit."""
    path = inbox / channel.NO_NEW_PROGRAMS
    if not path.exists():
        return
    import _posixsubprocess

    from perfgraphs.leaderboard.sandbox.confine import load_own_filter

    load_own_filter(path.read_bytes())
    _posixsubprocess.fork_exec = _no_program
    _no_resource_tracker()


def _no_working_folder_on_path() -> None:
    """Take the working folder off ``sys.path``, where ``python -m`` put it (second, before the standard library
    and every installed package; in the sandbox a writable tmpfs, ``isolation.WORK_DIR``).

    Why: a file the predictor writes there at run time is a module to every later import, and no check reads it.
    A median that extracted its ``prior.tar`` (a scale of 1.0 and an ``opt_einsum.py``) into its working folder and
    then imported torch, which tries ``opt_einsum``, ran the archive's module, which set the scale to 1.5, and
    passed ``check`` (hundred-and-twenty-fifth pass, side b; tests/test_leaderboard_review_125b.py): the static
    check refuses such a module in the folder (``submission.unimported_modules``), not in an archive."""
    here = os.getcwd()
    sys.path[:] = [p for p in sys.path if p not in ("", ".", here)]


SUBINTERPRETER_EVENT = "cpython.PyInterpreterState_New"  # the audit event CPython raises before making an interpreter


def _refuse_subinterpreters() -> None:
    """Refuse, in this process and every process forked from it, any new interpreter: an audit hook
    (``sys.addaudithook``, which no Python code removes) raises at :data:`SUBINTERPRETER_EVENT`.

    Why: a fresh interpreter needs no new program (:func:`_refuse_new_programs`). ``_xxsubinterpreters``, of the
    standard library, makes one in this process with a module state of its own, whose ``pickle`` is imported
    afresh, unguarded: a median that read its ``prior.bin`` (an 8-byte header, then ``pickle.load``) in one ran the
    pickle's ``eval`` and passed ``check`` with every prediction 1.5 times the median (hundred-and-twenty-fifth
    pass, side b; tests/test_leaderboard_review_125b.py). ``_xxsubinterpreters.create`` now fails with
    "interpreter creation failed", and ``ctypes.pythonapi.Py_NewInterpreter`` with this hook's error."""
    sys.addaudithook(_no_subinterpreter)


def _no_subinterpreter(event: str, args) -> None:
    if event == SUBINTERPRETER_EVENT:
        import errno

        raise PermissionError(errno.EPERM, "the sandbox makes no other interpreter: its guards are this one's")


def _no_program(*args, **kwargs):
    """What starting a program does in the sandbox once the filter of new programs is loaded."""
    import errno

    raise PermissionError(errno.EPERM, "the sandbox starts no other program (a spawn or forkserver pool's worker is "
                                       "one): start a pool with fork")


def _no_resource_tracker() -> None:
    """Make ``multiprocessing``'s (and ``multiprocess``'s) resource tracker track nothing and start nothing. It is
    a program of its own, a fresh interpreter, which a ``SharedMemory`` block or a spawn pool's semaphore starts
    on first use, and the sandbox starts no program (:func:`_refuse_new_programs`): with it, a predictor that
    took a shared-memory block failed (``tests/test_leaderboard_review_57b.py``). What
    it does, unlinking the blocks and semaphores a process leaves behind, the sandbox's own ``/dev/shm`` does:
    a tmpfs that goes with the sandbox."""
    import importlib

    for package in ("multiprocessing", "multiprocess"):
        try:
            tracker = importlib.import_module(f"{package}.resource_tracker").ResourceTracker
        except ImportError:
            continue
        tracker.ensure_running = _no_program  # a spawn pool asks it first: the same line as starting one
        tracker._send = lambda self, cmd, name, rtype: None


def _frozen_methods(model, cls_name: str, method: str) -> None:
    if not callable(getattr(model, method, None)):
        raise TypeError(f"{cls_name} has no method {method}: a frozen fit needs state() -> dict of name -> numeric "
                        "array and load_state(state)")


def _state_bytes(model, cls_name: str) -> bytes:
    from perfgraphs.baselines.fitted_state import to_bytes

    _frozen_methods(model, cls_name, "state")
    return to_bytes(model.state())


def _load_state(model, cls_name: str, path: Path) -> None:
    from perfgraphs.baselines.fitted_state import from_bytes

    _frozen_methods(model, cls_name, "load_state")
    model.load_state(from_bytes(path.read_bytes(), f"the frozen state of {path.name}"))


def _report_failure(fd: int, kind: str, message: str) -> None:
    try:
        channel.send(fd, "error", error_kind=kind, message=message)
    except OSError:  # the harness is gone or the predictor closed the channel: nothing to tell
        pass


if __name__ == "__main__":
    job_dir, inbox_dir, submission_dir, seed_arg, fd_arg, go_arg = sys.argv[1:7]
    sys.exit(run(Path(job_dir), Path(inbox_dir), Path(submission_dir), int(seed_arg), int(fd_arg), int(go_arg)))
