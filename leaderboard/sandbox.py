"""The predictor's side of the harness, one process per seed:

    python -m perfgraphs.leaderboard.sandbox <job folder> <seed>

It lowers its own resource limits before anything else runs, loads the parts the parent wrote
(train and validation with labels; test inputs and the shuffled, re-labelled probe copy without
any label column), imports the submitted predictor, and times ``fit`` and ``predict``. Its only
output is ``seed-<k>/`` in the job folder: the predictions as ``.npy`` and ``result.json``
(timings, parameter count, the predictor's ``config``, or the one-line reason it failed). It never
sees a test label: those stay in the parent, which scores.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
import traceback
from pathlib import Path

MB = 1024 * 1024


def _limit(spec: dict) -> None:
    """Hard limits inherited by anything the predictor starts: address space (a backstop; the
    parent watches the resident set), CPU seconds (wall clock is the parent's job) and no core dumps."""
    address_space = int(spec["address_space_mb"]) * MB
    resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    cpu = int(spec["cpu_seconds"])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _write_json(path: Path, obj: dict) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(obj, default=str))
    os.replace(tmp, path)


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


def _load_parts(job: Path):
    import datasets
    import pyarrow.parquet as pq

    def part(name: str):
        path = job / f"{name}.parquet"
        return datasets.Dataset(pq.read_table(path)) if path.exists() else None

    return part("train"), part("validation"), part("test_inputs"), part("probe_inputs")


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
    return json.loads(json.dumps(config, default=repr))


def run(job: Path, seed: int) -> int:
    spec = json.loads((job / "job.json").read_text())
    out = job / f"seed-{seed}"
    out.mkdir(exist_ok=True)
    _limit(spec)
    root = Path(spec["submission_root"])
    result: dict = {"ok": False}
    try:
        train, val, test, probe = _load_parts(job)
        import numpy as np

        (out / "ready").touch()  # the parent's clock for the time limit starts here
        import importlib

        sys.path.insert(0, str(root))
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
        t0 = time.perf_counter()
        model.fit(train, val)
        fit_s = time.perf_counter() - t0
        t1 = time.perf_counter()
        pred = _as_array(model.predict(test))
        predict_s = time.perf_counter() - t1
        probe_pred = _as_array(model.predict(probe))
        np.save(out / "pred.npy", pred, allow_pickle=False)
        np.save(out / "probe.npy", probe_pred, allow_pickle=False)
        result = {"ok": True, "fit_seconds": fit_s, "predict_seconds": predict_s,
                  "num_params": count_params(model), "config": _config(model)}
    except MemoryError as exc:
        result = {"ok": False, "kind": "memory", "message": _one_line(exc, root)}
    except BaseException as exc:  # noqa: BLE001 — anything the submission raises, SystemExit included
        result = {"ok": False, "kind": "crash", "message": _one_line(exc, root)}
    _write_json(out / "result.json", result)
    return 0


if __name__ == "__main__":
    sys.exit(run(Path(sys.argv[1]), int(sys.argv[2])))
