"""The benchmark protocol runner: dataset × split × baseline × seeds → Evaluator → MLflow.

``run_benchmark(RunSpec(...))`` trains a reference baseline on the protocol's training part (the
validation part only for model selection), predicts the test part, scores it with the official
:class:`perfgraphs.evaluate.Evaluator`, and logs parameters, per-seed metrics, the per-family
table and two plots to MLflow with the dataset's name, version and content hash, the git commit,
package versions and hardware. The run identity is the hash of its arguments.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from perfgraphs.errors import PerfgraphsError

# baseline name → (featurizer, input kind)
BASELINES: dict[str, tuple[str, str]] = {
    "static-mlp": ("trappm", "static"),
    "static-xgboost": ("trappm", "static"),
    "dippm-sage": ("dippm", "graph"),
    "nnlqp-gnn": ("nnlqp", "graph"),
    "trappm": ("trappm", "graph"),
    "layerwise-linear": ("trappm", "rows"),
}


@dataclass(frozen=True)
class RunSpec:
    dataset: str
    config: str
    target: str
    baseline: str
    seeds: tuple[int, ...] = (0,)
    quick: bool = False

    @property
    def identity(self) -> str:
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:16]


@dataclass
class RunResult:
    spec: RunSpec
    per_seed: list[dict[str, Any]] = field(default_factory=list)
    fit_seconds: list[float] = field(default_factory=list)
    predict_per_second: list[float] = field(default_factory=list)

    def mean_std(self, metric: str) -> tuple[float, float]:
        values = np.array([float(r[metric]) for r in self.per_seed])
        return float(values.mean()), float(values.std()) if len(values) > 1 else 0.0


def make_estimator(name: str, quick: bool, seed: int):
    from perfgraphs import baselines as b

    factories = {
        "static-mlp": b.StaticMLP, "static-xgboost": b.StaticXGBoost, "dippm-sage": b.DIPPMSage,
        "nnlqp-gnn": b.NNLQPGNN, "trappm": b.TraPPM, "layerwise-linear": b.LayerwiseLinear,
    }
    if name not in factories:
        raise PerfgraphsError(f"unknown baseline {name!r} (available: {', '.join(sorted(factories))})")
    if name == "layerwise-linear":
        return factories[name]()  # least squares: no epochs, no randomness
    return factories[name](quick=quick, seed=seed)


def _fit_predict(name: str, model, train, val, test, featurizer: str, target: str) -> tuple[np.ndarray, float, float]:
    from perfgraphs.data.load import static_features, to_pyg

    kind = BASELINES[name][1]
    y_train = np.asarray(train[target], dtype=float)
    t0 = time.perf_counter()
    if kind == "rows":
        model.fit(train, y_train)
        fit_s = time.perf_counter() - t0
        t1 = time.perf_counter()
        pred = model.predict(test)
        return np.asarray(pred).ravel(), fit_s, len(test) / max(time.perf_counter() - t1, 1e-9)
    if kind == "static":
        X = static_features(train, featurizer)
        if name == "static-xgboost" and val is not None and len(val):
            model.fit(X, y_train, static_features(val, featurizer), np.asarray(val[target], dtype=float))
        else:
            model.fit(X, y_train)
        fit_s = time.perf_counter() - t0
        t1 = time.perf_counter()
        pred = model.predict(static_features(test, featurizer))
        return np.asarray(pred).ravel(), fit_s, len(test) / max(time.perf_counter() - t1, 1e-9)
    p_train = to_pyg(train, featurizer, targets=[target])
    p_test = to_pyg(test, featurizer, targets=[target])
    if name == "trappm":
        model.fit_autoencoder(p_train)  # unlabeled pre-training on the training graphs
    model.fit(p_train)
    fit_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    pred = model.predict(p_test)
    return np.asarray(pred).ravel(), fit_s, len(p_test) / max(time.perf_counter() - t1, 1e-9)


def labeled_parts(data, target: str):
    """The parts restricted to rows that carry ``target`` (multi-platform configs leave a platform's
    column empty where it has no measurement); parts left empty are dropped."""
    import datasets

    if any(target not in part.column_names for part in data.values()):
        raise PerfgraphsError(f"the loaded data has no column {target!r}")
    out = {}
    for name, part in data.items():
        values = part[target]
        keep = [i for i, v in enumerate(values) if v is not None and np.isfinite(v)]
        if keep:
            out[name] = part if len(keep) == len(part) else part.select(keep)
    return datasets.DatasetDict(out)


def run_benchmark(spec: RunSpec, home: Path | None = None, log: bool = True) -> RunResult:
    from perfgraphs.data.load import load_dataset
    from perfgraphs.evaluate import Evaluator

    if spec.baseline not in BASELINES:
        raise PerfgraphsError(f"unknown baseline {spec.baseline!r} (available: {', '.join(sorted(BASELINES))})")
    evaluator = Evaluator(spec.dataset, spec.target, spec.config)
    data = labeled_parts(load_dataset(spec.dataset, spec.config, home=home), spec.target)
    if "train" not in data or "test" not in data:
        raise PerfgraphsError(f"{spec.dataset}/{spec.config} has no train/test parts with {spec.target} labels yet")
    val = data["validation"] if "validation" in data else None
    featurizer = BASELINES[spec.baseline][0]
    result = RunResult(spec)
    for seed in spec.seeds:
        model = make_estimator(spec.baseline, spec.quick, seed)
        pred, fit_s, pps = _fit_predict(spec.baseline, model, data["train"], val, data["test"], featurizer, spec.target)
        scores = evaluator.eval({"sample_id": data["test"]["sample_id"],
                                 "y_true": np.asarray(data["test"][spec.target], dtype=float),
                                 "y_pred": pred, "family": data["test"]["family"]},
                                expected_ids=data["test"]["sample_id"])
        scores["seed"] = seed
        scores["y_pred"] = pred.tolist()
        result.per_seed.append(scores)
        result.fit_seconds.append(fit_s)
        result.predict_per_second.append(pps)
    if log:
        _log_mlflow(result, data, home)
    return result


def _log_mlflow(result: RunResult, data, home: Path | None) -> None:
    import mlflow

    from perfgraphs.data.build import dataset_folder
    from perfgraphs.data.manifest import read_manifest
    from perfgraphs.registry import get_dataset
    from perfgraphs.tracking import environment_tags, experiment

    spec = result.spec
    ds = get_dataset(spec.dataset)
    manifest = read_manifest(dataset_folder(ds, ds.config(spec.config), home)) or {}
    exp = experiment(f"{ds.name}/{spec.config}/{spec.target}", home)
    with mlflow.start_run(experiment_id=exp, run_name=f"{spec.baseline}-{spec.identity}"):
        mlflow.set_tags({**environment_tags(), "run_identity": spec.identity, "dataset": ds.name,
                         "dataset_version": ds.version, "dataset_content_hash": manifest.get("content_hash", "")})
        mlflow.log_params({**asdict(spec), "seeds": ",".join(map(str, spec.seeds))})
        for i, scores in enumerate(result.per_seed):
            mlflow.log_metrics({k: float(v) for k, v in scores.items()
                                if isinstance(v, (int, float)) and k != "seed"}, step=i)
        for metric in ("mape_pct", "rmse", "acc_10_pct", "kendall_tau"):
            if metric in result.per_seed[0]:
                mean, std = result.mean_std(metric)
                mlflow.log_metrics({f"{metric}_mean": mean, f"{metric}_std": std})
        mlflow.log_metrics({"fit_seconds_mean": float(np.mean(result.fit_seconds)),
                            "predictions_per_second_mean": float(np.mean(result.predict_per_second))})
        with _artifact_dir() as tmp:
            _write_artifacts(result, data, tmp)
            mlflow.log_artifacts(str(tmp))


class _artifact_dir:
    def __enter__(self) -> Path:
        import tempfile

        self._tmp = tempfile.TemporaryDirectory()
        return Path(self._tmp.name)

    def __exit__(self, *exc) -> None:
        self._tmp.cleanup()


def _write_artifacts(result: RunResult, data, folder: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    spec = result.spec
    first = result.per_seed[0]
    rows = ["| family | n | MAPE % | Acc(10%) % |", "|---|---|---|---|"]
    for family, m in sorted(first.get("per_family", {}).items()):
        rows.append(f"| {family} | {m.get('n', '')} | {m['mape_pct']:.2f} | {m['acc_10_pct']:.1f} |")
    (folder / "per_family.md").write_text("\n".join(rows) + "\n")
    (folder / "per_seed.json").write_text(json.dumps(
        [{k: v for k, v in s.items() if k != "y_pred"} for s in result.per_seed], indent=2, default=float))
    y_true = np.asarray(data["test"][spec.target], dtype=float)
    y_pred = np.asarray(first["y_pred"])
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.loglog(y_true, y_pred, ".", alpha=0.6)
    lo, hi = min(y_true.min(), y_pred.min()), max(y_true.max(), y_pred.max())
    ax.plot([lo, hi], [lo, hi], "k--", lw=1)
    ax.set_xlabel(f"measured {spec.target}")
    ax.set_ylabel(f"predicted {spec.target}")
    ax.set_title(f"{spec.baseline} on {spec.dataset}/{spec.config}")
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


def to_entry(result: RunResult, home: Path | None = None):
    """The leaderboard record of a reference run (verified tier: the harness timed it)."""
    from perfgraphs.data.build import dataset_folder
    from perfgraphs.data.manifest import read_manifest, source_commit
    from perfgraphs.leaderboard.records import Entry
    from perfgraphs.registry import get_dataset
    from perfgraphs.tracking import environment_tags

    spec = result.spec
    ds = get_dataset(spec.dataset)
    manifest = read_manifest(dataset_folder(ds, ds.config(spec.config), home)) or {}
    keep = ("seed", "n", "mape_pct", "rmse", "acc_5_pct", "acc_10_pct", "acc_15_pct", "kendall_tau", "per_family")
    return Entry(
        method=spec.baseline + (" (quick)" if spec.quick else ""),
        dataset=ds.name, dataset_version=ds.version, dataset_content_hash=manifest.get("content_hash", ""),
        config=spec.config, target=spec.target, tier="verified", division="closed",
        code_commit=source_commit(),
        per_seed=[{k: v for k, v in s.items() if k in keep} for s in result.per_seed],
        fit_seconds=float(np.mean(result.fit_seconds)),
        predictions_per_second=float(np.mean(result.predict_per_second)),
        num_params=None, hardware=environment_tags()["cpu"], run_identity=spec.identity,
    )
