"""Per-layer cost model with a boosted correction ("layerwise-boost"), in nn-Meter's spirit.

Two stages, both on graph-level labels only (one platform's):

1. **Additive kernel costs.** As :class:`~perfgraphs.baselines.layerwise_linear.LayerwiseLinear`,
   a network costs the sum of its layers' costs, but the layers are split the way GPU kernels
   differ: convolutions into depthwise / grouped / 1x1 / k x k / strided k x k (a depthwise conv
   is memory-bound where a dense one is compute-bound), and every layer's FLOPs are binned by its
   arithmetic intensity (FLOPs per byte moved), so a FLOP of a memory-bound kernel may cost more
   than one of a compute-bound kernel (the roofline's two regimes, without assuming the ridge).
   The regressors are per-kind layer counts and memory traffic and per-intensity-bucket FLOPs and
   bytes; non-negative least squares on relative errors fits them (costs are non-negative; the
   weighting matches the MAPE the board scores).
2. **Boosted correction.** XGBoost learns ``log(y) - log(additive cost)`` from the operator mix:
   per-kind counts / FLOPs / bytes / parameters, their shares of the network's total (what a kernel
   fusion or a launch-bound model depends on, and what transfers to unseen families better than
   absolute sizes), the input resolution and the additive estimate itself. Trees on a log ratio
   stay bounded where they cannot extrapolate: outside the training range the correction
   saturates and the additive model carries the prediction.

The gradient-boosting hyper-parameters are searched on the validation part (scikit-learn's
``ParameterGrid``, selection by validation MAPE, as :class:`StaticXGBoost` does; the tree counts of
a grid point share one booster, scored on its first trees); ``quick=True`` fits one CI-sized point.

:class:`AdditiveResidualBoost` is the model on a plain feature matrix (``X (n, d)``, its first
``n_additive`` columns the additive cost regressors): it passes scikit-learn's ``check_estimator``.
:class:`LayerwiseBoost` takes graphs (Hugging Face rows / an Arrow table / PerfGraphs, as
:func:`~perfgraphs.baselines.layerwise_linear.layer_features`) and computes
:func:`operator_mix_features` first.
"""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import ParameterGrid

from perfgraphs.baselines.common import (
    BaselineInputError, BaselineRegressor, NotFittedError, as_targets, squeeze_targets, validated,
)
from perfgraphs.graph.ir import ATTRIBUTE_INDEX
from perfgraphs.graph.operators import dippm_category
from perfgraphs.views.hf import RAW_NODE_FEATURES

# Layer kinds: DIPPM's operator categories with convolutions and pooling split by how their kernels run
KINDS: tuple[str, ...] = (
    "conv_depthwise", "conv_grouped", "conv_1x1", "conv_kxk", "conv_kxk_strided", "dense", "attention_matmul",
    "relu", "activation", "batchnorm", "norm", "softmax", "add", "elementwise", "pool_max_s1", "pool_max_s2",
    "pool_avg_s1", "pool_avg_s2", "concat", "layout", "shape", "other")
# arithmetic-intensity bucket edges (FLOPs per byte); an RTX 4090's fp16 ridge is near 200, a CPU core's near 10
INTENSITY_EDGES: tuple[float, ...] = (1.0, 4.0, 16.0, 64.0, 256.0)
_N_BUCKETS = len(INTENSITY_EDGES) + 1
ADDITIVE_NAMES: tuple[str, ...] = (
    tuple(f"count_{k}" for k in KINDS) + tuple(f"bytes_{k}" for k in KINDS)
    + tuple(f"flops_intensity{b}" for b in range(_N_BUCKETS)) + tuple(f"bytes_intensity{b}" for b in range(_N_BUCKETS)))
MIX_NAMES: tuple[str, ...] = (
    tuple(f"flops_{k}" for k in KINDS) + tuple(f"params_{k}" for k in KINDS)
    + tuple(f"count_intensity{b}" for b in range(_N_BUCKETS))
    + tuple(f"flops_share_{k}" for k in KINDS) + tuple(f"bytes_share_{k}" for k in KINDS)
    + ("total_flops", "total_bytes", "total_params", "num_nodes", "input_height", "input_width"))
FEATURE_NAMES: tuple[str, ...] = ADDITIVE_NAMES + MIX_NAMES
_KIND_INDEX = {k: i for i, k in enumerate(KINDS)}
_COL = {name: i for i, name in enumerate(RAW_NODE_FEATURES)}


def _node_kinds(ops, raw: np.ndarray) -> np.ndarray:
    """Kind index of every node (``ops``: the nodes' ONNX op types, ``raw``: their RAW_NODE_FEATURES rows)."""
    ops = np.asarray(ops, dtype=object).astype(str)
    matmul = raw[:, _COL["activation_matmul"]] > 0
    names, inverse = np.unique(np.char.add(ops, np.where(matmul, "|1", "|0")), return_inverse=True)
    cats = np.array([dippm_category(n[:-2], n.endswith("|1")) for n in names], dtype=object)[inverse].astype(str)
    groups, cin = raw[:, _COL["groups"]], raw[:, _COL["channels_in"]]
    kernel = raw[:, _COL["kernel_h"]] * np.maximum(raw[:, _COL["kernel_w"]], 1)
    strided = raw[:, _COL["stride_h"]] > 1
    conv = np.select([(groups > 1) & (groups >= cin), groups > 1, kernel <= 1, strided],
                     ["conv_depthwise", "conv_grouped", "conv_1x1", "conv_kxk_strided"], "conv_kxk")
    pool = np.char.add(cats, np.where(strided, "_s2", "_s1"))
    kinds = np.where(cats == "conv", conv, np.where(np.char.startswith(cats, "pool"), pool, cats))
    names, inverse = np.unique(kinds, return_inverse=True)
    return np.array([_KIND_INDEX[k] for k in names], dtype=np.int64)[inverse]


def _graph_rows(kinds, flops, memory, params, graph_of_node, n_graphs, input_hw) -> np.ndarray:
    k = len(KINDS)
    count, fl, mem, par = (np.zeros((n_graphs, k)) for _ in range(4))
    for out, values in ((count, 1.0), (fl, flops), (mem, memory), (par, params)):
        np.add.at(out, (graph_of_node, kinds), values)
    computing = flops > 0
    bucket = np.searchsorted(INTENSITY_EDGES, flops / np.maximum(memory, 1.0))
    fl_b, mem_b, n_b = (np.zeros((n_graphs, _N_BUCKETS)) for _ in range(3))
    idx = (graph_of_node[computing], bucket[computing])
    np.add.at(fl_b, idx, flops[computing])
    np.add.at(mem_b, idx, memory[computing])
    np.add.at(n_b, idx, 1.0)
    tot_fl, tot_mem = fl.sum(1, keepdims=True), mem.sum(1, keepdims=True)
    totals = np.c_[tot_fl, tot_mem, par.sum(1), count.sum(1), input_hw]
    return np.hstack([count, mem, fl_b, mem_b, fl, par, n_b, fl / np.maximum(tot_fl, 1.0),
                      mem / np.maximum(tot_mem, 1.0), totals])


def _input_hw(dims) -> tuple[float, float]:
    """Height and width of a graph's first input (0, 0 when it has no spatial input)."""
    first = dims[0] if dims else []
    return (float(first[-2]), float(first[-1])) if len(first) >= 3 else (0.0, 0.0)


def operator_mix_features(graphs) -> np.ndarray:
    """(n, len(FEATURE_NAMES)) per-graph features: the additive cost regressors first
    (``ADDITIVE_NAMES``), then the operator-mix features of the correction (``MIX_NAMES``).

    ``graphs``: a Hugging Face split / Arrow table with ``node_feat``, ``onnx_ops``, ``num_nodes``
    and ``input_dims`` columns, or a sequence of :class:`PerfGraph`."""
    import pyarrow as pa

    from perfgraphs.data.featurize import arrow_table

    table = arrow_table(graphs) if hasattr(graphs, "data") and hasattr(graphs.data, "table") else graphs
    if isinstance(table, pa.Table):
        missing = {"node_feat", "onnx_ops", "num_nodes", "input_dims"} - set(table.column_names)
        if missing:
            raise BaselineInputError(f"layerwise-boost needs graph columns; missing: {', '.join(sorted(missing))}")
        num_nodes = table.column("num_nodes").to_numpy()
        raw = pa.concat_arrays([c.flatten().flatten() for c in table.column("node_feat").chunks]).to_numpy()
        raw = raw.reshape(-1, len(RAW_NODE_FEATURES)).astype(np.float64)
        ops = [op for chunk in table.column("onnx_ops").chunks for op in chunk.flatten().to_pylist()]
        hw = np.array([_input_hw(d) for d in table.column("input_dims").to_pylist()]).reshape(-1, 2)
        graph_of_node = np.repeat(np.arange(len(num_nodes)), num_nodes)
        return _graph_rows(_node_kinds(ops, raw), raw[:, _COL["flops"]], raw[:, _COL["memory_bytes"]],
                           raw[:, _COL["params"]], graph_of_node, len(num_nodes), hw)
    graphs = list(graphs)
    if not graphs or not hasattr(graphs[0], "onnx_ops"):
        raise BaselineInputError("operator_mix_features needs a Hugging Face split, an Arrow table or PerfGraphs")
    rows = []
    for g in graphs:
        raw = np.zeros((g.num_nodes, len(RAW_NODE_FEATURES)))
        raw[:, _COL["activation_matmul"]] = g.activation_matmul
        for name in ("groups", "channels_in", "kernel_h", "kernel_w", "stride_h"):
            raw[:, _COL[name]] = g.attributes[:, ATTRIBUTE_INDEX[name]]
        hw = np.array([_input_hw([list(g.input_shapes[0][1])] if g.input_shapes else [])])
        rows.append(_graph_rows(_node_kinds(g.onnx_ops, raw), np.asarray(g.flops, float),
                                np.asarray(g.memory_bytes, float), np.asarray(g.params, float),
                                np.zeros(g.num_nodes, dtype=np.int64), 1, hw))
    return np.vstack(rows)


# Features of recent Hugging Face parts by their fingerprint (content-derived by ``datasets``):
# a protocol refits every seed on the same parts, and extracting features from selected rows
# rewrites the whole table (flatten_indices), which costs more than the fit itself.
_FEATURE_CACHE: dict[str, np.ndarray] = {}
_FEATURE_CACHE_SIZE = 64


def cached_operator_mix_features(graphs) -> np.ndarray:
    """:func:`operator_mix_features`, remembered for a Hugging Face part's fingerprint (other inputs
    are computed every time); a read-only array, so a caller cannot alter what the cache holds."""
    key = getattr(graphs, "_fingerprint", None)
    if not isinstance(key, str):
        return operator_mix_features(graphs)
    if key not in _FEATURE_CACHE:
        if len(_FEATURE_CACHE) >= _FEATURE_CACHE_SIZE:
            _FEATURE_CACHE.pop(next(iter(_FEATURE_CACHE)))
        features = operator_mix_features(graphs)
        features.flags.writeable = False
        _FEATURE_CACHE[key] = features
    return _FEATURE_CACHE[key]


PAPER_GRID: dict[str, tuple] = {  # searched on the validation part (no paper fixes this model's grid)
    "n_estimators": (150, 300),
    "max_depth": (4, 6),
    "learning_rate": (0.1,),
}
QUICK_GRID: dict[str, tuple] = {"n_estimators": (150,), "max_depth": (6,), "learning_rate": (0.1,)}


class AdditiveResidualBoost(BaselineRegressor):
    """``fit(X, y)`` / ``predict(X)`` on a feature matrix whose first ``n_additive`` columns
    (None: all) are additive cost regressors: non-negative least squares on relative errors over
    those, then an XGBoost booster per target on every column plus the log additive estimate,
    trained on ``log(y) - log(additive estimate)``. Deterministic for a ``seed`` (``hist``
    trees, ``n_jobs`` threads: one by default, as multi-threaded histograms may reorder sums)."""

    def __init__(self, n_additive: int | None = None, n_estimators: int = 150, max_depth: int = 6,
                 learning_rate: float = 0.1, subsample: float = 0.8, colsample_bytree: float = 0.6,
                 min_prediction_fraction: float = 1e-3, seed: int = 0, n_jobs: int = 1):
        self.n_additive = n_additive
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.learning_rate = learning_rate
        self.subsample = subsample
        self.colsample_bytree = colsample_bytree
        self.min_prediction_fraction = min_prediction_fraction
        self.seed = seed
        self.n_jobs = n_jobs

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.positive_only = True  # costs: relative errors and a log ratio need y > 0
        return tags

    def _additive(self, X: np.ndarray) -> np.ndarray:
        return X[:, :self.n_additive] if self.n_additive is not None else X

    def _log_base(self, X: np.ndarray) -> np.ndarray:
        return np.log(np.maximum(self._additive(X) @ self.coef_, self.floor_))

    def fit(self, X, y) -> "AdditiveResidualBoost":
        import xgboost as xgb
        from scipy.optimize import nnls

        X, y = validated(self, X, y)
        y = as_targets(y)
        if (y <= 0).any():
            raise BaselineInputError(f"{int((y <= 0).sum())} non-positive target value(s): costs must be > 0")
        if self.n_additive is not None and not 1 <= self.n_additive <= X.shape[1]:
            raise BaselineInputError(f"n_additive={self.n_additive} for {X.shape[1]} feature columns")
        A = self._additive(X)
        # column scaling for conditioning; unused regressors (all-zero columns) stay at 0
        peak = np.abs(A).max(axis=0)
        scale = np.where(peak > 0, peak, 1.0)
        self.coef_ = np.stack([nnls((A / scale) / y[:, [t]], np.ones(len(y)))[0] / scale
                               for t in range(y.shape[1])], axis=1)
        self.floor_ = y.min(axis=0) * self.min_prediction_fraction
        base = self._log_base(X)
        native = {"eta": self.learning_rate, "max_depth": self.max_depth, "subsample": self.subsample,
                  "colsample_bytree": self.colsample_bytree, "tree_method": "hist", "objective": "reg:squarederror",
                  "seed": self.seed, "nthread": self.n_jobs, "verbosity": 0}
        self.models_ = [xgb.train(native, xgb.DMatrix(np.c_[X, base[:, t]], label=np.log(y[:, t]) - base[:, t]),
                                  num_boost_round=self.n_estimators) for t in range(y.shape[1])]
        return self

    def first_trees(self, n_estimators: int) -> "AdditiveResidualBoost":
        """A copy keeping the first ``n_estimators`` trees of each booster: the model a fit with
        ``n_estimators`` would have made (boosting adds trees in order, each from the same seeded
        sampler), which lets a search over tree counts train once."""
        import copy

        if not hasattr(self, "models_"):
            raise NotFittedError(f"{type(self).__name__}.first_trees called before fit")
        if not 1 <= n_estimators <= self.n_estimators:
            raise BaselineInputError(f"first_trees({n_estimators}) of a model with {self.n_estimators} trees")
        out = copy.copy(self)
        out.n_estimators = n_estimators
        out.models_ = [m[:n_estimators] for m in self.models_]
        return out

    def predict(self, X) -> np.ndarray:
        import xgboost as xgb

        if not hasattr(self, "models_"):
            raise NotFittedError(f"{type(self).__name__}.predict called before fit")
        X = validated(self, X, reset=False)
        base = self._log_base(X)
        log_pred = np.stack([base[:, t] + m.predict(xgb.DMatrix(np.c_[X, base[:, t]])).astype(np.float64)
                             for t, m in enumerate(self.models_)], axis=1)
        return squeeze_targets(np.exp(np.clip(log_pred, -700.0, 700.0)), len(self.models_))


class LayerwiseBoost(BaselineRegressor):
    """``fit(graphs, y, graphs_val=None, y_val=None)`` / ``predict(graphs)`` (graphs as for
    :func:`operator_mix_features`); ``fit_features`` / ``predict_features`` take the feature matrix.

    With several grid points, each is fitted on the training rows and the one with the lowest
    validation MAPE is kept (the caller's validation set, else a seeded ``validation_fraction`` of
    the training rows); the chosen model is the one fitted on the training rows (refitted on all of
    them when the selection held some out). ``best_params_`` and ``grid_scores_`` ((params,
    validation MAPE) per point) record it."""

    def __init__(self, grid: dict[str, tuple] | None = None, quick: bool = False, seed: int = 0, n_jobs: int = 1,
                 validation_fraction: float = 0.2):
        self.grid = grid
        self.quick = quick
        self.seed = seed
        self.n_jobs = n_jobs
        self.validation_fraction = validation_fraction

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.positive_only = True
        tags.input_tags.two_d_array = False  # X is graphs; AdditiveResidualBoost is the tabular model
        return tags

    def _grid(self) -> dict[str, tuple]:
        return self.grid if self.grid is not None else (QUICK_GRID if self.quick else PAPER_GRID)

    def _model(self, params: dict) -> AdditiveResidualBoost:
        return AdditiveResidualBoost(n_additive=len(ADDITIVE_NAMES), seed=self.seed, n_jobs=self.n_jobs, **params)

    def fit(self, graphs, y, graphs_val=None, y_val=None) -> "LayerwiseBoost":
        if (graphs_val is None) != (y_val is None):
            raise BaselineInputError("pass both graphs_val and y_val, or neither")
        F_val = cached_operator_mix_features(graphs_val) if graphs_val is not None else None
        return self.fit_features(cached_operator_mix_features(graphs), y, F_val, y_val)

    def predict(self, graphs) -> np.ndarray:
        return self.predict_features(cached_operator_mix_features(graphs))

    def fit_features(self, F, y, F_val=None, y_val=None) -> "LayerwiseBoost":
        from perfgraphs.baselines.static_xgboost import mean_mape_score

        F = np.asarray(F, dtype=np.float64)
        y = as_targets(y)
        if F.ndim != 2 or F.shape[1] != len(FEATURE_NAMES) or len(F) != len(y):
            raise BaselineInputError(f"expected ({len(y)}, {len(FEATURE_NAMES)}) features "
                                     f"(operator_mix_features), got {F.shape}")
        grid = self._grid()
        self.grid_scores_: list[tuple[dict, float]] = []
        if len(ParameterGrid(grid)) == 1:
            best = list(ParameterGrid(grid))[0]
            self.model_ = self._model(best).fit(F, y)
            self.best_params_ = [best] * y.shape[1]
            return self
        if F_val is not None:
            F_fit, y_fit, F_sel, y_sel = F, y, np.asarray(F_val, dtype=np.float64), as_targets(y_val)
        else:
            if len(F) < 2:
                raise BaselineInputError(f"grid selection needs at least 2 training rows, got {len(F)}")
            n_held = min(len(F) - 1, max(1, round(self.validation_fraction * len(F))))
            held = np.zeros(len(F), dtype=bool)
            held[np.random.default_rng(self.seed).permutation(len(F))[:n_held]] = True
            F_fit, y_fit, F_sel, y_sel = F[~held], y[~held], F[held], y[held]
        # one booster per point of the other parameters, grown to the largest tree count; the
        # smaller counts are its first trees (first_trees), scored without refitting
        counts = tuple(grid["n_estimators"])
        candidates = []
        for point in ParameterGrid({k: v for k, v in grid.items() if k != "n_estimators"}):
            grown = self._model({**point, "n_estimators": max(counts)}).fit(F_fit, y_fit)
            for n in counts:
                model = grown.first_trees(n)
                self.grid_scores_.append(({**point, "n_estimators": n}, -mean_mape_score(model, F_sel, y_sel)))
                candidates.append(model)
        best_index = int(np.argmin([score for _, score in self.grid_scores_]))
        best = self.grid_scores_[best_index][0]
        # selected on held-out training rows: they return to the final fit
        self.model_ = candidates[best_index] if F_val is not None else self._model(best).fit(F, y)
        self.best_params_ = [best] * y.shape[1]
        return self

    def predict_features(self, F) -> np.ndarray:
        if not hasattr(self, "model_"):
            raise NotFittedError("LayerwiseBoost.predict called before fit")
        return self.model_.predict(np.asarray(F, dtype=np.float64))
