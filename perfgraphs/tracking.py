"""MLflow tracking with a SQLite backend (no server): ``$MLFLOW_TRACKING_URI`` if set, else
``sqlite:///<PERFGRAPHS_HOME>/mlflow.db`` with artifacts beside it."""

from __future__ import annotations

import contextlib
import os
import platform
from pathlib import Path


def tracking_uri(home: Path | None = None) -> str:
    if os.environ.get("MLFLOW_TRACKING_URI"):
        return os.environ["MLFLOW_TRACKING_URI"]
    from perfgraphs.data.build import perfgraphs_home

    root = home or perfgraphs_home()
    root.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{root / 'mlflow.db'}"


@contextlib.contextmanager
def _first_contact(uri: str):
    """Hold an exclusive lock beside a SQLite tracking database while a process first touches it:
    MLflow creates and migrates the schema on first contact, and two submissions starting together
    on a fresh database raced there ("duplicate column name: step", seen 2026-11-29), losing one run."""
    prefix = "sqlite:///"
    if not uri.startswith(prefix):
        yield
        return
    import fcntl

    lock = Path(uri[len(prefix):] + ".lock")
    with open(lock, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def experiment(name: str, home: Path | None = None):
    """Set the tracking URI and return the experiment id for ``name`` (created on first use)."""
    import mlflow

    uri = tracking_uri(home)
    mlflow.set_tracking_uri(uri)
    with _first_contact(uri):
        found = mlflow.get_experiment_by_name(name)
        if found is not None:
            return found.experiment_id
        root = home
        if root is None:
            from perfgraphs.data.build import perfgraphs_home

            root = perfgraphs_home()
        artifacts = (root / "mlflow-artifacts").resolve()
        artifacts.mkdir(parents=True, exist_ok=True)
        return mlflow.create_experiment(name, artifact_location=artifacts.as_uri())


def environment_tags() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    from perfgraphs.data.manifest import source_commit

    tags = {"git_commit": source_commit(), "python": platform.python_version(),
            "machine": platform.machine(), "cpu": _cpu_model()}
    for pkg in ("perfgraphs", "torch", "torch-geometric", "xgboost", "timm", "onnx"):
        try:
            tags[f"version.{pkg}"] = version(pkg)
        except PackageNotFoundError:
            pass
    return tags


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"
