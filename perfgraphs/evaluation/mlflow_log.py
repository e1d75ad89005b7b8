"""One MLflow run per scored predictor (reference baseline or leaderboard submission).

Parameters, per-seed metrics (as steps), mean and sample standard deviation over seeds, cost
measurements, and artifacts: the per-family table, per-seed scores and the actual-vs-predicted
and per-family error plots. Tags carry the dataset name, version and content hash, the run
identity and the environment (git commit, package versions, CPU).
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from perfgraphs.evaluation.parts import ProtocolData

METRICS = ("mape_pct", "rmse", "acc_10_pct", "kendall_tau")
# The longest parameter value MLflow stores (``mlflow.utils.validation.MAX_PARAM_VAL_LENGTH``): a
# longer one is cut there with a warning, and the run then holds a value the record does not.
MLFLOW_PARAM_CHARS = 6000


def param_text(value) -> str | int | float | bool:
    """A run parameter's value as :func:`log_run` logs it: scalars as they are, anything else
    (a list or mapping of hyper-parameter values) as JSON."""
    return value if isinstance(value, (int, float, str, bool)) else json.dumps(value, default=str)


@dataclass
class RunLog:
    run_name: str
    identity: str
    target: str
    params: dict[str, Any]
    per_seed: list[dict]  # Evaluator results with "seed" (and "y_pred" for the plots)
    y_true: np.ndarray  # labels of the scored part, aligned with every per_seed["y_pred"]
    fit_seconds: list[float] = field(default_factory=list)  # empty when not measured (self-reported)
    predictions_per_second: list[float] = field(default_factory=list)
    tags: dict[str, str] = field(default_factory=dict)


def mean_std(values: list[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (0 for a single value): the leaderboard's convention."""
    # numpy, not ``statistics``: a NaN score (Kendall's tau of a constant prediction) must give a
    # NaN summary, and statistics.stdev raises on NaN instead
    # (None is how a record stores an undefined score: it counts as NaN here)
    arr = np.asarray([np.nan if v is None else float(v) for v in values], dtype=np.float64)
    return float(arr.mean()), (float(arr.std(ddof=1)) if len(arr) > 1 else 0.0)


def log_run(log: RunLog, data: ProtocolData, home: Path | None = None) -> str:
    """Log ``log`` under the experiment ``<dataset>/<config>/<target>``; returns the run id."""
    import mlflow

    from perfgraphs.tracking import environment_tags, experiment

    exp = experiment(f"{data.dataset}/{data.config}/{log.target}", home)
    with mlflow.start_run(experiment_id=exp, run_name=log.run_name) as run:
        mlflow.set_tags({**environment_tags(), "run_identity": log.identity, "dataset": data.dataset,
                         "dataset_version": data.version, "dataset_content_hash": data.content_hash, **log.tags})
        mlflow.log_params({k: param_text(v) for k, v in log.params.items()})
        for i, scores in enumerate(log.per_seed):
            mlflow.log_metrics({k: float(v) for k, v in scores.items()
                                if isinstance(v, (int, float)) and not isinstance(v, bool) and k != "seed"}, step=i)
        for metric in METRICS:
            if metric in log.per_seed[0]:
                mean, std = mean_std([s[metric] for s in log.per_seed])
                if np.isfinite(mean):  # an undefined score (τ of constant predictions) is not logged
                    mlflow.log_metrics({f"{metric}_mean": mean, f"{metric}_std": std})
        if log.fit_seconds:
            mlflow.log_metrics({"fit_seconds_mean": float(np.mean(log.fit_seconds)),
                                "predictions_per_second_mean": float(np.mean(log.predictions_per_second))})
        with tempfile.TemporaryDirectory() as tmp:
            write_artifacts(log, data, Path(tmp))
            mlflow.log_artifacts(tmp)
        return run.info.run_id


def write_artifacts(log: RunLog, data: ProtocolData, folder: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    first = log.per_seed[0]
    rows = ["| family | n | MAPE % | Acc(10%) % |", "|---|---|---|---|"]
    for family, m in sorted(first.get("per_family", {}).items()):
        rows.append(f"| {family} | {m.get('n', '')} | {m['mape_pct']:.2f} | {m['acc_10_pct']:.1f} |")
    (folder / "per_family.md").write_text("\n".join(rows) + "\n")
    (folder / "per_seed.json").write_text(json.dumps(
        [{k: v for k, v in s.items() if k != "y_pred"} for s in log.per_seed], indent=2, default=float))
    if "y_pred" in first:
        y_true = np.asarray(log.y_true, dtype=float)
        y_pred = np.asarray(first["y_pred"], dtype=float)
        fig, ax = plt.subplots(figsize=(5, 5))
        ax.loglog(y_true, y_pred, ".", alpha=0.6)
        lo, hi = min(y_true.min(), y_pred.min()), max(y_true.max(), y_pred.max())
        ax.plot([lo, hi], [lo, hi], "k--", lw=1)
        ax.set_xlabel(f"measured {log.target}")
        ax.set_ylabel(f"predicted {log.target}")
        ax.set_title(f"{log.run_name} on {data.dataset}/{data.config}")
        fig.savefig(folder / "actual_vs_predicted.png", dpi=100, bbox_inches="tight")
        plt.close(fig)
    fams = sorted(first.get("per_family", {}))
    if fams:
        fig, ax = plt.subplots(figsize=(6, 3))
        ax.bar(fams, [first["per_family"][f]["mape_pct"] for f in fams])
        ax.set_ylabel("MAPE %")
        ax.tick_params(axis="x", rotation=45)
        fig.savefig(folder / "per_family_error.png", dpi=100, bbox_inches="tight")
        plt.close(fig)
