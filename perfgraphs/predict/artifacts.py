"""Persisted predictors: one artifact per (config, label column), trained from the built datasets
and written without pickle.

An artifact is four (five with a time breakdown) files named by its key (:attr:`PlatformTarget.key`):

* ``<key>.artifact.json`` — what it is: dataset, config, column, the dataset build it was trained
  on (the manifest's content hash and the registry version), the feature version, the code commit,
  the chosen hyper-parameters, the target transform, held-out scores, the distribution threshold,
  the operator types seen in training and the sha256 of the two files below;
* ``<key>.booster.json`` — the XGBoost booster (``Booster.save_model``, XGBoost's JSON format),
  the trained form;
* ``<key>.booster.onnx`` — the same booster converted by onnxmltools to an ONNX tree ensemble, the
  form ``predict`` runs (on onnxruntime: importing xgboost, which pulls in scikit-learn and SciPy,
  costs a fresh process about 2 s, onnxruntime about 0.2 s); the conversion is checked against
  XGBoost's own predictions on every labeled row before it is written;
* ``<key>.layerwise.json`` — for a time target, the per-operator-category linear model;
* ``<key>.rows.npz`` — the features and real labels of every labeled row (``allow_pickle=False``
  arrays), for the nearest-neighbour distance and the nearest measured models of a report.

``load_artifact`` refuses an artifact whose feature version differs from this checkout's, whose
dataset version differs from the registry's, or whose build differs from the config's local build
when there is one: a predictor is only as meaningful as the rows it was fitted on.
"""

from __future__ import annotations

import functools
import json
import subprocess
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from perfgraphs.atomic import atomic_write_bytes, sha256_file
from perfgraphs.baselines.catalog import LAYERWISE_LINEAR, STATIC_XGBOOST
from perfgraphs.predict.errors import ArtifactMismatchError, ArtifactMissingError
from perfgraphs.predict.features import feature_names, feature_version, rows_features
from perfgraphs.predict.platforms import PlatformTarget
from perfgraphs.registry import GRAPH_ROWS, TABULAR_ROWS

FORMAT_VERSION = 2  # 2: the booster's ONNX form is part of the artifact
PREDICTOR = STATIC_XGBOOST  # the leaderboard's reference baseline the artifacts are
ARTIFACTS_DIR = Path(__file__).resolve().parent / "artifacts"
MIN_LABELS = 30  # fewer labeled rows than this: no predictor (its held-out score would mean little)
NEIGHBOUR_QUANTILE = 0.99  # of the training rows' distances to the nearest *other* structure
ONNX_OPSET = 15  # the newest ai.onnx opset onnxmltools' XGBoost converter writes
ONNX_INPUT = "features"
# the ONNX booster's predictions must equal XGBoost's to this relative tolerance: both evaluate the
# same float32 thresholds, and only the order of summing the trees' leaves may differ
ONNX_REL_TOL = 1e-5


@dataclass(frozen=True)
class Artifact:
    key: str
    meta: dict
    booster: object  # onnxruntime.InferenceSession of the booster's ONNX form
    features: np.ndarray  # (n, d) raw features of every labeled row
    labels: np.ndarray  # (n,)
    in_training: np.ndarray  # (n,) bool: the row was fitted on (train + validation parts)
    names: tuple[str, ...]  # sample ids of the rows
    breakdown: dict | None = None  # the layerwise time model of a time target (see time_shares)

    @property
    def mean(self) -> np.ndarray:
        return np.asarray(self.meta["feature_mean"])

    @property
    def scale(self) -> np.ndarray:
        return np.asarray(self.meta["feature_scale"])

    @property
    def fixed_batch_size(self) -> int | None:
        """The one batch size every labeled graph row has (the timm platforms' per-sample latency
        is labeled on batch-1 graphs), so a question is asked at that batch; None when rows vary."""
        if self.meta["kind"] != GRAPH_ROWS or not len(self.features):
            return None
        batches = self.features[:, self.meta["feature_names"].index("batch_size")]
        return int(batches[0]) if np.all(batches == batches[0]) else None

    def predict(self, X: np.ndarray) -> np.ndarray:
        # float32, as XGBoost casts its inputs: the trees' thresholds are float32
        z = self.booster.run(None, {ONNX_INPUT: np.asarray(X, dtype=np.float32)})[0]
        return untransform(z, self.meta["target_transform"])

    def standardised(self, X: np.ndarray) -> np.ndarray:
        return (np.asarray(X, dtype=np.float64) - self.mean) / self.scale

    def nearest(self, x: np.ndarray, k: int = 3) -> list[tuple[int, float]]:
        """(row index, distance) of the ``k`` nearest training rows in standardised feature space."""
        train = np.flatnonzero(self.in_training)
        d = np.linalg.norm(self.standardised(self.features[train]) - self.standardised(x.reshape(1, -1)), axis=1)
        order = np.argsort(d, kind="stable")[:k]
        return [(int(train[i]), float(d[i])) for i in order]


def untransform(z: np.ndarray, transform: dict) -> np.ndarray:
    """A booster's raw output → the target in its unit (the inverse of the trained target transform)."""
    out = np.asarray(z, dtype=np.float64).reshape(-1) * transform["scale"] + transform["mean"]
    return np.exp(np.clip(out, -700.0, 700.0)) if transform["log"] else out


def _onnx_session(data: bytes):
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1  # a few rows: threads cost more than they give
    return ort.InferenceSession(data, sess_options=options, providers=["CPUExecutionProvider"])


def write_onnx_booster(booster, path: Path, X: np.ndarray, transform: dict) -> dict:
    """Convert an ``xgboost.Booster`` to ONNX (onnxmltools), check that onnxruntime predicts what
    XGBoost predicts on the rows ``X`` (relative :data:`ONNX_REL_TOL`), write it to ``path`` and
    return the conversion's record for the artifact's metadata."""
    from importlib.metadata import version

    import xgboost as xgb
    from onnxmltools.convert import convert_xgboost
    from onnxmltools.convert.common.data_types import FloatTensorType

    X = np.asarray(X, dtype=np.float64)
    # named after the file: the converter's default name is a random uuid, and the same booster
    # must convert to the same bytes (the artifact records their sha256)
    model = convert_xgboost(booster, name=path.name.removesuffix(".onnx"),
                            initial_types=[(ONNX_INPUT, FloatTensorType([None, X.shape[1]]))], target_opset=ONNX_OPSET)
    data = model.SerializeToString()
    want = untransform(booster.predict(xgb.DMatrix(X)), transform)
    got = untransform(_onnx_session(data).run(None, {ONNX_INPUT: X.astype(np.float32)})[0], transform)
    rel = float(np.max(np.abs(got - want) / np.maximum(np.abs(want), np.finfo(np.float64).tiny))) if len(X) else 0.0
    if not rel <= ONNX_REL_TOL:
        raise ArtifactMismatchError(f"the ONNX form of {path.name} predicts up to {rel:.2e} (relative) away from "
                                    f"XGBoost on its {len(X)} rows, beyond {ONNX_REL_TOL:g}: not written")
    atomic_write_bytes(path, data)
    return {"file": path.name, "converter": f"onnxmltools {version('onnxmltools')}", "opset": ONNX_OPSET,
            "xgboost": version("xgboost"), "rows_checked": int(len(X)), "max_rel_diff_vs_xgboost": rel}


def code_commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).resolve().parent, capture_output=True,
                             text=True, timeout=10)
        return out.stdout.strip() if out.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def local_build_hash(dataset: str, config: str, home: Path | None = None) -> str | None:
    """The content hash of the config's build in the cache, None when it is not built (read only)."""
    from perfgraphs.data.folders import dataset_folder
    from perfgraphs.data.manifest import read_manifest
    from perfgraphs.errors import PerfgraphsError
    from perfgraphs.registry import get_dataset

    ds = get_dataset(dataset)
    try:
        manifest = read_manifest(dataset_folder(ds, ds.config(config), home))
    except PerfgraphsError:
        return None
    return (manifest or {}).get("content_hash") or None


# -- training ---------------------------------------------------------------------------------
def _other_structure_distances(Z: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Each row's distance to the nearest row of another group (structure or model): how far a
    new architecture typically lies from what the predictor saw."""
    out = np.empty(len(Z))
    for i in range(len(Z)):
        d = np.linalg.norm(Z - Z[i], axis=1)
        d[groups == groups[i]] = np.inf
        out[i] = d.min() if np.isfinite(d).any() else 0.0
    return out


@dataclass(frozen=True)
class _Fitted:
    """The booster an artifact ships and the rows it was fitted and scored on."""

    model: Any  # the fitted StaticXGBoost
    heldout: Any  # its held-out metrics
    heldout_how: str
    rows: Any  # every labeled row, in the order of X and y
    X: np.ndarray
    y: np.ndarray
    in_training: np.ndarray  # which of the rows the shipped booster was fitted on
    groups: np.ndarray  # of the fitted rows: what "another structure" is for the distance threshold
    train_rows: Any
    test: Any | None  # the held-out part of a standard split; None for a cv-folds config


@dataclass(frozen=True)
class _Written:
    """What writing the artifact's model files produced, for its record."""

    paths: tuple[Path, ...]
    target_transform: dict
    onnx_record: dict
    breakdown: dict | None


def _fit_on_folds(rows, pt: PlatformTarget, seed: int) -> _Fitted:
    """A cv-folds config: held-out scores are the pooled out-of-fold predictions of the boards'
    official folds, leave-models-out (every test model absent from its fold's training rows); the
    shipped booster is fitted on every row. Until 2026-12-04 they were the stratified folds', where
    every model is in every training fold: predict quoted 8 % for encoder latency where the models
    it is asked about are unseen (thirty-seventh pass's lead)."""
    from perfgraphs.evaluation.cv import committed_grouped_cv, leave_models_out
    from perfgraphs.evaluation.evaluator import compute_metrics

    X, y = rows_features(rows, pt.kind), np.asarray(rows[pt.column], dtype=np.float64)
    committed = committed_grouped_cv(rows)
    folds = list(committed.split()) if committed is not None else leave_models_out(rows)
    pred = np.empty_like(y)
    for tr, te in folds:
        pred[te] = PREDICTOR.make(quick=True, seed=seed).fit(X[tr], y[tr]).predict(X[te])
    return _Fitted(model=PREDICTOR.make(quick=True, seed=seed).fit(X, y), heldout=compute_metrics(y, pred),
                   heldout_how="pooled out-of-fold predictions of the leave-models-out 5 folds (the boards' "
                               "official protocol: each fold's models unseen in its training rows)",
                   rows=rows, X=X, y=y, in_training=np.ones(len(y), dtype=bool),
                   groups=np.asarray(rows["model_id"]), train_rows=rows, test=None)


def _fit_on_split(parts: dict, pt: PlatformTarget, seed: int) -> _Fitted:
    """A config with a standard split: fitted on train (validation for early stopping, then as
    training rows too), scored on test."""
    import datasets

    from perfgraphs.evaluation.evaluator import compute_metrics

    train, test = parts["train"], parts["test"]
    val = parts.get("validation")
    X_tr, y_tr = rows_features(train, pt.kind), np.asarray(train[pt.column], dtype=np.float64)
    if val is not None and len(val):
        X_va, y_va = rows_features(val, pt.kind), np.asarray(val[pt.column], dtype=np.float64)
        model = PREDICTOR.make(quick=True, seed=seed).fit(X_tr, y_tr, X_va, y_va)
        train_rows = datasets.concatenate_datasets([train, val])
    else:
        model = PREDICTOR.make(quick=True, seed=seed).fit(X_tr, y_tr)
        train_rows = train
    X_te, y_te = rows_features(test, pt.kind), np.asarray(test[pt.column], dtype=np.float64)
    heldout = compute_metrics(y_te, model.predict(X_te))
    rows = datasets.concatenate_datasets([train_rows, test])
    X, y = rows_features(rows, pt.kind), np.asarray(rows[pt.column], dtype=np.float64)
    return _Fitted(model=model, heldout=heldout,
                   heldout_how="the test part of the config's standard split (never fitted on)",
                   rows=rows, X=X, y=y,
                   in_training=np.r_[np.ones(len(train_rows), dtype=bool), np.zeros(len(test), dtype=bool)],
                   groups=np.asarray(train_rows["structure_hash"]), train_rows=train_rows, test=test)


def train_artifact(pt: PlatformTarget, out_dir: Path = ARTIFACTS_DIR, home: Path | None = None,
                   seed: int = 0) -> dict | None:
    """Train the predictor of one platform target and write its artifact; None (and nothing
    written) when the config has fewer than :data:`MIN_LABELS` labeled rows of it."""
    import datasets

    from perfgraphs.data.load import load_dataset
    from perfgraphs.evaluation.parts import labeled_parts
    from perfgraphs.registry import get_dataset

    ds = get_dataset(pt.dataset)
    data = labeled_parts(load_dataset(ds.name, pt.config, home=home), pt.column)
    parts = {k: v for k, v in data.items()}
    rows_all = datasets.concatenate_datasets(list(parts.values())) if parts else None
    if rows_all is None or len(rows_all) < MIN_LABELS:
        return None
    fitted = _fit_on_folds(rows_all, pt, seed) if pt.kind == TABULAR_ROWS else _fit_on_split(parts, pt, seed)
    intervals = fit_artifact_intervals(rows_all, pt, fitted.model.best_params_[0], seed)
    out_of_fold = None
    if pt.kind == GRAPH_ROWS:
        from perfgraphs.predict.heldout import heldout_intervals

        # where architectures measured after training exist, they calibrate (the out-of-fold
        # intervals missed the labels' campaign shift and unnamed structures; see predict.heldout)
        calibrated = heldout_intervals(pt, fitted.model.predict)
        if calibrated is not None:
            intervals, out_of_fold = calibrated, intervals
    X_fit = fitted.X[fitted.in_training]
    mean, scale = X_fit.mean(axis=0), X_fit.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    other = _other_structure_distances((X_fit - mean) / scale, fitted.groups)
    written = _write_model_files(pt, fitted, out_dir)
    y, in_training, tabular = fitted.y, fitted.in_training, pt.kind == TABULAR_ROWS
    meta = {
        "format_version": FORMAT_VERSION, "key": pt.key, "predictor": PREDICTOR.name,
        "dataset": pt.dataset, "config": pt.config, "column": pt.column, "target": pt.target, "unit": pt.unit,
        "kind": pt.kind, "dataset_version": ds.version,
        "dataset_content_hash": local_build_hash(pt.dataset, pt.config, home) or "",
        "feature_version": feature_version(pt.kind), "feature_names": feature_names(pt.kind),
        "code_commit": code_commit(), "trained_at_utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "seed": seed, "hyperparameters": fitted.model.best_params_[0], "n_labeled": int(len(y)),
        "n_fitted": int(in_training.sum()),
        "target_transform": written.target_transform, "booster_onnx": written.onnx_record,
        "feature_mean": mean.tolist(), "feature_scale": scale.tolist(),
        "heldout": {**{k: float(v) for k, v in fitted.heldout.as_dict().items()}, "how": fitted.heldout_how},
        "intervals": intervals, **({"intervals_out_of_fold": out_of_fold} if out_of_fold else {}),
        "label_range": [float(y[in_training].min()), float(y[in_training].max())],
        "distance_threshold": float(np.quantile(other, NEIGHBOUR_QUANTILE)) if len(other) else 0.0,
        "distance_threshold_how": f"{NEIGHBOUR_QUANTILE:.0%} quantile of the fitted rows' standardised distance to "
                                  f"the nearest fitted row of another {'model' if tabular else 'structure'}",
        "seen_operators": _seen_operators(fitted.train_rows),
        "time_breakdown": None if written.breakdown is None else {
            "predictor": LAYERWISE_LINEAR.name, "heldout_mape_pct": written.breakdown["heldout_mape_pct"]},
        "files": {p.name: sha256_file(p) for p in written.paths},
    }
    (out_dir / f"{pt.key}.artifact.json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")
    return meta


def _seen_operators(train_rows) -> list[str]:
    if "onnx_ops" not in train_rows.column_names:
        return []
    return sorted({op for ops in train_rows["onnx_ops"] for op in ops})


def _write_model_files(pt: PlatformTarget, fitted: _Fitted, out_dir: Path) -> _Written:
    """The booster (JSON and ONNX), the rows, and for a time target the layerwise breakdown."""
    out_dir.mkdir(parents=True, exist_ok=True)
    files = []
    breakdown = None
    if pt.kind != TABULAR_ROWS and pt.unit == "ms":
        breakdown = _layerwise_breakdown(fitted.train_rows, fitted.test, pt.column)
        path = out_dir / f"{pt.key}.layerwise.json"
        path.write_text(json.dumps(breakdown, indent=1, sort_keys=True) + "\n")
        files.append(path)
    booster_path = out_dir / f"{pt.key}.booster.json"
    onnx_path = out_dir / f"{pt.key}.booster.onnx"
    rows_path = out_dir / f"{pt.key}.rows.npz"
    booster = fitted.model.booster_.models_[0]
    transform = fitted.model.booster_.target_transform_
    booster.save_model(str(booster_path))
    target_transform = {"log": bool(transform.log_target), "mean": float(transform.scaler.mean_[0]),
                        "scale": float(transform.scaler.scale_[0])}
    onnx_record = write_onnx_booster(booster, onnx_path, fitted.X, target_transform)
    rows = fitted.rows
    names = [str(v) for v in rows["sample_id" if "sample_id" in rows.column_names else "row_id"]]
    np.savez_compressed(rows_path, features=fitted.X.astype(np.float64), labels=fitted.y,
                        in_training=fitted.in_training, names=np.asarray(names, dtype=np.str_))
    return _Written(paths=(booster_path, onnx_path, rows_path, *files), target_transform=target_transform,
                    onnx_record=onnx_record, breakdown=breakdown)


def family_groups(rows, kind: str) -> np.ndarray:
    """The unit an interval is held out by: a graph row's architecture family (the dataset's
    ``family`` column), an encoder row's model."""
    return np.asarray(rows["family" if kind == GRAPH_ROWS else "model_id"])


def fit_artifact_intervals(rows, pt: PlatformTarget, hyperparameters: dict, seed: int = 0) -> dict:
    """The conformal intervals of a platform target (:mod:`perfgraphs.predict.intervals`): every
    labeled row predicted by the artifact's predictor (its chosen hyper-parameters) fitted
    without the row's family."""
    from perfgraphs.predict.intervals import fit_intervals, grouped_out_of_fold

    X, y = rows_features(rows, pt.kind), np.asarray(rows[pt.column], dtype=np.float64)
    groups = family_groups(rows, pt.kind)
    grid = {k: (v,) for k, v in hyperparameters.items()}

    def fit_predict(X_tr, y_tr, X_te):
        return PREDICTOR.estimator_class()(grid=grid, seed=seed).fit(X_tr, y_tr).predict(X_te)

    return fit_intervals(y, grouped_out_of_fold(X, y, groups, fit_predict), groups)


def _layerwise_breakdown(train_rows, test, column: str) -> dict:
    """The per-operator-category linear model (the ``layerwise-linear`` baseline, Gianniti et al.)
    of a time target: its coefficients split a graph's time into operator categories, which the
    report shows as the share of predicted time per operator type."""
    from perfgraphs.baselines.layerwise_linear import CATEGORIES, LayerwiseLinear
    from perfgraphs.evaluation.evaluator import mape_pct

    model = LayerwiseLinear().fit(train_rows, np.asarray(train_rows[column], dtype=np.float64))
    return {"categories": list(CATEGORIES), "coef": model.coef_[:, 0].tolist(), "floor": float(model.floor_[0]),
            "heldout_mape_pct": mape_pct(np.asarray(test[column], dtype=np.float64), model.predict(test))}


def time_shares(breakdown: dict, graph) -> list[tuple[str, float]]:
    """(operator category, share of the layerwise model's time) of a graph, descending."""
    # the features alone: the estimator's module would import scikit-learn (seconds in a fresh process)
    from perfgraphs.features.layer_categories import graph_layer_features

    cats = breakdown["categories"]
    k = len(cats)
    f = graph_layer_features(graph)[0]
    coef = np.asarray(breakdown["coef"])
    parts = f[:k] * coef[:k] + f[k:] * coef[k:]
    total = parts.sum()
    if total <= 0:
        return []
    return sorted(((c, float(v / total)) for c, v in zip(cats, parts) if v > 0), key=lambda cv: -cv[1])


# -- loading ----------------------------------------------------------------------------------
def read_meta(key: str, directory: Path = ARTIFACTS_DIR) -> dict | None:
    path = Path(directory) / f"{key}.artifact.json"
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ArtifactMismatchError(f"{path} is not a readable predictor artifact ({exc})") from None


def check_meta(meta: dict, home: Path | None = None) -> None:
    """Refuse an artifact this checkout would not have trained: another format, feature version,
    dataset version or (when the config is built here) dataset build."""
    from perfgraphs.registry import get_dataset

    key = meta.get("key", "?")
    retrain = "run `perfgraphs predict train`"
    if meta.get("format_version") != FORMAT_VERSION:
        convert = " (or `perfgraphs predict convert` to add its booster's ONNX form)" \
            if meta.get("format_version") == 1 else ""
        raise ArtifactMismatchError(f"artifact {key} has format {meta.get('format_version')}, this version reads "
                                    f"{FORMAT_VERSION}: {retrain}{convert}")
    want = feature_version(meta["kind"])
    if meta.get("feature_version") != want:
        raise ArtifactMismatchError(f"artifact {key} was trained on features {meta.get('feature_version')}, this "
                                    f"checkout computes {want}: {retrain}")
    version = get_dataset(meta["dataset"]).version
    if meta.get("dataset_version") != version:
        raise ArtifactMismatchError(f"artifact {key} was trained on {meta['dataset']} {meta.get('dataset_version')}, "
                                    f"the registry has {version}: {retrain}")
    local = local_build_hash(meta["dataset"], meta["config"], home)
    if local is not None and local != meta.get("dataset_content_hash"):
        raise ArtifactMismatchError(
            f"artifact {key} was trained on build {str(meta.get('dataset_content_hash'))[:12]} of {meta['dataset']} "
            f"{meta['config']}, the local build is {local[:12]}: {retrain} to fit it to the local build")


@functools.lru_cache(maxsize=128)
def _load(key: str, directory: str, stamp: tuple) -> Artifact:
    d = Path(directory)
    meta = read_meta(key, d)
    for name, digest in meta["files"].items():
        path = d / name
        if not path.exists():
            raise ArtifactMissingError(f"artifact {key}: {path} is missing")
        if sha256_file(path) != digest:
            raise ArtifactMismatchError(f"artifact {key}: {path} does not match the sha256 its artifact.json records")
    onnx_name = (meta.get("booster_onnx") or {}).get("file", "")
    if onnx_name not in meta["files"]:
        raise ArtifactMismatchError(f"artifact {key} names no ONNX booster among its files: run `perfgraphs predict "
                                    f"train`")
    booster = _onnx_session((d / onnx_name).read_bytes())
    layerwise = d / f"{key}.layerwise.json"
    breakdown = json.loads(layerwise.read_text()) if layerwise.name in meta["files"] else None
    with np.load(d / f"{key}.rows.npz", allow_pickle=False) as z:
        return Artifact(key, meta, booster, z["features"], z["labels"], z["in_training"],
                        tuple(str(n) for n in z["names"]), breakdown)


def load_artifact(pt: PlatformTarget, directory: Path = ARTIFACTS_DIR, home: Path | None = None) -> Artifact:
    meta = read_meta(pt.key, directory)
    if meta is None:
        raise ArtifactMissingError(f"no predictor artifact for {pt.column} of {pt.dataset} {pt.config} in {directory}: "
                                   f"run `perfgraphs predict train`")
    check_meta(meta, home)
    path = Path(directory) / f"{pt.key}.artifact.json"
    st = path.stat()
    return _load(pt.key, str(Path(directory).resolve()), (st.st_mtime_ns, st.st_size))


def convert_artifact(key: str, directory: Path = ARTIFACTS_DIR) -> dict:
    """Bring a format-1 artifact (XGBoost JSON only) to this format: add its booster's ONNX form,
    checked against XGBoost on the artifact's own rows. The trained files are untouched and their
    sha256 checked first; only the metadata gains the ONNX file."""
    import xgboost as xgb

    d = Path(directory)
    meta = read_meta(key, d)
    if meta is None:
        raise ArtifactMissingError(f"no predictor artifact {key} in {d}")
    if meta.get("format_version") == FORMAT_VERSION:
        return meta
    if meta.get("format_version") != 1:
        raise ArtifactMismatchError(f"artifact {key} has format {meta.get('format_version')}: only format 1 converts; "
                                    f"run `perfgraphs predict train`")
    for name, digest in meta["files"].items():
        if not (d / name).exists() or sha256_file(d / name) != digest:
            raise ArtifactMismatchError(f"artifact {key}: {d / name} is missing or does not match its sha256")
    booster = xgb.Booster()
    booster.load_model(str(d / f"{key}.booster.json"))
    with np.load(d / f"{key}.rows.npz", allow_pickle=False) as z:
        X = z["features"]
    onnx_path = d / f"{key}.booster.onnx"
    record = write_onnx_booster(booster, onnx_path, X, meta["target_transform"])
    meta = {**meta, "format_version": FORMAT_VERSION, "booster_onnx": record,
            "files": {**meta["files"], onnx_path.name: sha256_file(onnx_path)}}
    # the stored artifact is rewritten in place: atomically, so an interrupted convert leaves the old one
    atomic_write_bytes(d / f"{key}.artifact.json", (json.dumps(meta, indent=1, sort_keys=True) + "\n").encode())
    return meta


def convert_all(directory: Path = ARTIFACTS_DIR) -> list[dict]:
    """:func:`convert_artifact` for every artifact of a folder."""
    suffix = ".artifact.json"
    return [convert_artifact(p.name[:-len(suffix)], directory) for p in sorted(Path(directory).glob(f"*{suffix}"))]


def train_all(platform: str | None = None, mode: str | None = None, out_dir: Path = ARTIFACTS_DIR,
              home: Path | None = None, on_progress=None) -> list[dict]:
    """Train every platform target's artifact (of one platform / mode when given); returns the
    metas written, skipping targets with fewer than :data:`MIN_LABELS` labels."""
    from perfgraphs.predict.platforms import all_platforms, find_platform, trained_targets

    chosen = [find_platform(platform, mode or "infer")] if platform else \
        [p for p in all_platforms() if mode is None or p.mode == mode]
    done: dict[str, dict | None] = {}
    for p in chosen:
        for pt in trained_targets(p):
            if pt.key in done:
                continue
            done[pt.key] = meta = train_artifact(pt, out_dir, home)
            if on_progress is not None:
                on_progress(pt, meta)
    return [m for m in done.values() if m is not None]
