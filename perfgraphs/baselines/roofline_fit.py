"""Physics alone on one platform, and boosting of what physics misses (issue 34 item 4).

* :class:`FittedRoofline` ("roofline-fit") — the roofline of :mod:`perfgraphs.features.roofline`
  with its four hardware constants learned from one board's training labels instead of read from a
  datasheet: every kernel of a graph takes ``max(FLOPs / P, bytes / W)`` (``P`` the matrix units'
  rate for convolutions and matrix products, the vector units' for the rest, ``W`` the memory
  bandwidth) plus a fixed cost ``L`` per launched kernel, and a graph costs the sum. A single-platform
  board never names its hardware to a predictor, and a datasheet is wrong by design for what a board
  measures (the H200's eager fp32 kernels cost about 21 µs each where the prior's launch term says
  5 µs; a CPU's vector rate depends on the operator library): fitting the four numbers keeps the
  physics (which kernels are compute- and which memory-bound, how cost grows with FLOPs, bytes and
  kernel count) and lets the board say what its machine does. The constants are in the label's unit
  (for an energy label, FLOPs per joule): :attr:`FittedRoofline.hardware_` states them. Fitted by
  robust least squares on log errors (scipy's ``least_squares``, soft-L1 loss, the Jacobian
  analytic) from several starting ridges, the lowest cost kept. No seed, no randomness.
* :class:`RooflineBoost` ("roofline-boost") — ``layerwise-boost``'s operator mix and the fitted
  roofline's make-up (its log, its compute-, memory- and launch-bound shares, the kernel count)
  as features of XGBoost boosters that learn ``log(label / roofline)``: trees bounded where they
  cannot extrapolate, so outside the training range the physics carries the prediction. Grid
  selected on the validation part as ``layerwise-boost``'s.

Graphs are exported at their batch, so a graph's operator costs are the whole batch's (the
weights once): the roofline of the graph is the time of its batch, the labels' unit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import ParameterGrid

from perfgraphs.baselines.common import BaselineInputError, BaselineRegressor, NotFittedError, as_targets, squeeze_targets
from perfgraphs.features.roofline import NodeCosts

CONSTANTS = ("matrix_flops_per_unit", "vector_flops_per_unit", "bytes_per_unit", "launch_units")
# starting points: matrix-unit ridge (FLOPs per byte) x matrix / vector rate ratio; a CPU core's ridge
# is near 10, a GPU's fp32 near 20-60, its tensor cores' near 200
START_RIDGES = (2.0, 20.0, 200.0)
START_VECTOR_RATIOS = (1.0, 8.0)
START_LAUNCH_SHARE = 0.1  # the launch term's starting share of a typical graph's label


def node_costs(graphs) -> NodeCosts:
    """The operator costs of a part's graphs (a Hugging Face part, its selection applied, or an
    Arrow table)."""
    from perfgraphs.data.featurize import arrow_table
    from perfgraphs.evaluation.platform_transfer import node_costs_of

    table = arrow_table(graphs) if hasattr(graphs, "data") and hasattr(graphs.data, "table") else graphs
    if not hasattr(table, "column"):
        raise BaselineInputError("the roofline baselines take a Hugging Face part or an Arrow table of graph rows")
    return node_costs_of(table)


@dataclass(frozen=True)
class _Kernels:
    """The launched kernels of many graphs, flat (a view of :class:`NodeCosts` for the fit)."""

    graph: np.ndarray  # index of each kernel's graph
    flops: np.ndarray
    bytes: np.ndarray
    matrix: np.ndarray
    count: np.ndarray  # kernels per graph
    n_graphs: int

    @classmethod
    def of(cls, costs: NodeCosts) -> "_Kernels":
        graph = np.repeat(np.arange(costs.n_graphs), np.diff(costs.offsets))
        k = costs.kernel
        return cls(graph[k], costs.flops[k], (costs.activation_bytes + costs.weight_bytes)[k], costs.matrix[k],
                   np.bincount(graph[k], minlength=costs.n_graphs).astype(np.float64), costs.n_graphs)


@dataclass(frozen=True)
class RooflineMakeUp:
    """Per graph: the fitted roofline and its parts, in the label's unit."""

    total: np.ndarray
    compute: np.ndarray  # kernels bound by a compute rate
    memory: np.ndarray  # kernels bound by bandwidth
    launch: np.ndarray
    kernels: np.ndarray

    def features(self) -> np.ndarray:
        """log total, the three shares, log1p kernels."""
        t = self.total
        return np.column_stack([np.log(t), self.compute / t, self.memory / t, self.launch / t, np.log1p(self.kernels)])


def _evaluate(theta: np.ndarray, k: _Kernels, jacobian: bool = False):
    """The roofline of every graph at log constants ``theta`` (log of the matrix rate, the vector
    rate, the bandwidth, the launch cost), its make-up, and with ``jacobian`` d total / d theta."""
    a_matrix, a_vector, w, launch = theta
    compute = k.flops * np.exp(-np.where(k.matrix, a_matrix, a_vector))
    memory = k.bytes * np.exp(-w)
    bound_by_compute = compute >= memory
    n = k.n_graphs
    compute_part = np.bincount(k.graph, np.where(bound_by_compute, compute, 0.0), minlength=n)
    memory_part = np.bincount(k.graph, np.where(bound_by_compute, 0.0, memory), minlength=n)
    launch_part = np.exp(launch) * k.count
    make_up = RooflineMakeUp(compute_part + memory_part + launch_part, compute_part, memory_part, launch_part, k.count)
    if not jacobian:
        return make_up
    d_matrix = -np.bincount(k.graph, np.where(bound_by_compute & k.matrix, compute, 0.0), minlength=n)
    return make_up, np.column_stack([d_matrix, -(compute_part + d_matrix), -memory_part, launch_part])


class FittedRoofline(BaselineRegressor):
    """``fit(graphs, y)`` / ``predict(graphs)`` (graphs: a Hugging Face part or an Arrow table of
    graph rows); ``fit_costs`` / ``predict_costs`` take :class:`NodeCosts`. One set of constants per
    target column. ``coef_`` holds the log constants (4 per target), ``hardware_`` the constants."""

    def __init__(self, loss: str = "soft_l1", f_scale: float = 0.1, max_nfev: int = 200):
        self.loss = loss  # scipy least_squares' loss on the log errors
        self.f_scale = f_scale  # the log error above which the loss turns linear (0.1: about 10 %)
        self.max_nfev = max_nfev

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.positive_only = True
        tags.input_tags.two_d_array = False  # X is graphs
        return tags

    def fit(self, graphs, y) -> "FittedRoofline":
        return self.fit_costs(node_costs(graphs), y)

    def predict(self, graphs) -> np.ndarray:
        return self.predict_costs(node_costs(graphs))

    def _starts(self, k: _Kernels, y: np.ndarray) -> list[np.ndarray]:
        flops = np.bincount(k.graph, k.flops, minlength=k.n_graphs)
        has = flops > 0
        # the matrix rate that would give the median graph its label if every FLOP were on it
        rate = np.log(np.median(flops[has] / y[has])) if has.any() else 0.0
        launch = np.log(START_LAUNCH_SHARE * np.median(y) / max(np.median(k.count), 1.0))
        return [np.array([rate, rate - np.log(v), rate - np.log(r), launch])
                for r in START_RIDGES for v in START_VECTOR_RATIOS]

    def _fit_one(self, k: _Kernels, y: np.ndarray) -> np.ndarray:
        from scipy.optimize import least_squares

        log_y = np.log(y)

        def residuals(theta):
            return np.log(_evaluate(theta, k).total) - log_y

        def jacobian(theta):
            make_up, d = _evaluate(theta, k, jacobian=True)
            return d / make_up.total[:, None]

        fits = [least_squares(residuals, start, jac=jacobian, loss=self.loss, f_scale=self.f_scale,
                              max_nfev=self.max_nfev) for start in self._starts(k, y)]
        return min(fits, key=lambda f: f.cost).x

    def fit_costs(self, costs: NodeCosts, y) -> "FittedRoofline":
        y = as_targets(y)
        if len(y) != costs.n_graphs:
            raise BaselineInputError(f"{len(y)} targets for {costs.n_graphs} graphs")
        if not np.isfinite(y).all() or (y <= 0).any():
            raise BaselineInputError("the roofline fits positive, finite targets (times, energies)")
        k = _Kernels.of(costs)
        if not k.count.any():
            raise BaselineInputError("no graph launches a kernel: nothing for the roofline to cost")
        self.coef_ = np.stack([self._fit_one(k, y[:, t]) for t in range(y.shape[1])], axis=1)
        self.hardware_ = [dict(zip(CONSTANTS, map(float, np.exp(c)))) for c in self.coef_.T]
        return self

    def fitted_state(self) -> dict[str, np.ndarray]:
        """The log constants, 4 per target (:mod:`perfgraphs.baselines.fitted_state`)."""
        if not hasattr(self, "coef_"):
            raise NotFittedError("FittedRoofline.fitted_state called before fit")
        return {"coef": np.asarray(self.coef_, dtype=np.float64)}

    def load_fitted_state(self, state: dict[str, np.ndarray]) -> "FittedRoofline":
        from perfgraphs.baselines import fitted_state as fs

        coef = np.asarray(fs.need(fs.check_state(state), "coef"), dtype=np.float64)
        if coef.ndim != 2 or coef.shape[0] != len(CONSTANTS) or not np.isfinite(coef).all():
            raise fs.FittedStateError(f"the state's coef is not {len(CONSTANTS)} finite log constants per target")
        self.coef_ = coef
        self.hardware_ = [dict(zip(CONSTANTS, map(float, np.exp(c)))) for c in coef.T]
        return self

    def make_up(self, costs: NodeCosts, target: int = 0) -> RooflineMakeUp:
        """The fitted roofline's parts for each graph of ``costs``."""
        if not hasattr(self, "coef_"):
            raise NotFittedError("FittedRoofline used before fit")
        return _evaluate(self.coef_[:, target], _Kernels.of(costs))

    def predict_costs(self, costs: NodeCosts) -> np.ndarray:
        if not hasattr(self, "coef_"):
            raise NotFittedError("FittedRoofline.predict called before fit")
        k = _Kernels.of(costs)
        pred = np.stack([_evaluate(self.coef_[:, t], k).total for t in range(self.coef_.shape[1])], axis=1)
        return squeeze_targets(pred, self.coef_.shape[1])


PAPER_GRID: dict[str, tuple] = {"n_estimators": (150, 300, 600), "max_depth": (4, 6), "learning_rate": (0.05,)}
QUICK_GRID: dict[str, tuple] = {"n_estimators": (150,), "max_depth": (4,), "learning_rate": (0.1,)}


class RooflineBoost(BaselineRegressor):
    """``fit(graphs, y, graphs_val=None, y_val=None)`` / ``predict(graphs)``: the fitted roofline
    times XGBoost's correction of it (see the module). With several grid points each is grown on the
    training rows and the one with the lowest validation MAPE kept (without a validation part, a
    seeded ``validation_fraction`` of the training rows, which return to the final fit);
    ``grid_scores_`` and ``best_params_`` record it. One target column."""

    def __init__(self, grid: dict[str, tuple] | None = None, quick: bool = False, seed: int = 0, n_jobs: int = 1,
                 subsample: float = 0.8, colsample_bytree: float = 0.6, validation_fraction: float = 0.2):
        self.grid = grid
        self.quick = quick
        self.seed = seed
        self.n_jobs = n_jobs
        self.subsample = subsample
        self.colsample_bytree = colsample_bytree
        self.validation_fraction = validation_fraction

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.positive_only = True
        tags.input_tags.two_d_array = False
        return tags

    def _features(self, graphs, costs: NodeCosts | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(features, log roofline) of graphs (``costs``: their node costs, when already read)."""
        from perfgraphs.baselines.layerwise_boost import cached_operator_mix_features

        make_up = self.roofline_.make_up(node_costs(graphs) if costs is None else costs)
        return np.column_stack([cached_operator_mix_features(graphs), make_up.features()]), np.log(make_up.total)

    def _booster(self, point: dict, F: np.ndarray, z: np.ndarray):
        import xgboost as xgb

        native = {"eta": point["learning_rate"], "max_depth": point["max_depth"], "subsample": self.subsample,
                  "colsample_bytree": self.colsample_bytree, "tree_method": "hist", "objective": "reg:squarederror",
                  "seed": self.seed, "nthread": self.n_jobs, "verbosity": 0}
        return xgb.train(native, xgb.DMatrix(F, label=z), num_boost_round=point["n_estimators"])

    def fit(self, graphs, y, graphs_val=None, y_val=None) -> "RooflineBoost":
        if (graphs_val is None) != (y_val is None):
            raise BaselineInputError("pass both graphs_val and y_val, or neither")
        y = as_targets(y)
        if y.shape[1] != 1:
            raise BaselineInputError(f"RooflineBoost fits one target column, got {y.shape[1]}")
        y = y[:, 0]
        points = list(ParameterGrid(self.grid if self.grid is not None else (QUICK_GRID if self.quick else PAPER_GRID)))
        costs = node_costs(graphs)  # read once: the roofline's fit and the booster's features
        self.roofline_ = FittedRoofline().fit_costs(costs, y)
        F, base = self._features(graphs, costs)
        z = np.log(y) - base
        self.grid_scores_: list[tuple[dict, float]] = []
        if len(points) == 1:
            best = points[0]
        else:
            if graphs_val is not None:
                F_fit, z_fit = F, z
                F_sel, base_sel = self._features(graphs_val)
                y_sel = as_targets(y_val)[:, 0]
            else:
                held = np.zeros(len(y), dtype=bool)
                held[np.random.default_rng(self.seed).permutation(len(y))[:max(1, round(self.validation_fraction
                                                                                         * len(y)))]] = True
                F_fit, z_fit, F_sel, base_sel, y_sel = F[~held], z[~held], F[held], base[held], y[held]
            best = self._select(points, F_fit, z_fit, F_sel, base_sel, y_sel)
        self.booster_ = self._booster(best, F, z)
        self.best_params_ = [best]
        return self

    def _select(self, points, F_fit, z_fit, F_sel, base_sel, y_sel) -> dict:
        """The grid point with the lowest MAPE on the selection rows; the tree counts of a point share
        one booster grown to the largest, scored on its first trees."""
        import xgboost as xgb

        from perfgraphs.evaluation.evaluator import mape_pct

        counts = sorted({p["n_estimators"] for p in points})
        others = {tuple(sorted((k, v) for k, v in p.items() if k != "n_estimators")) for p in points}
        for other in sorted(others):
            grown = self._booster({**dict(other), "n_estimators": max(counts)}, F_fit, z_fit)
            for n in counts:
                z = grown.predict(xgb.DMatrix(F_sel), iteration_range=(0, n)).astype(np.float64)
                self.grid_scores_.append(({**dict(other), "n_estimators": n},
                                          mape_pct(y_sel, np.exp(base_sel + z))))
        return min(self.grid_scores_, key=lambda ps: ps[1])[0]

    def predict(self, graphs) -> np.ndarray:
        import xgboost as xgb

        if not hasattr(self, "booster_"):
            raise NotFittedError("RooflineBoost.predict called before fit")
        F, base = self._features(graphs)
        return np.exp(np.clip(base + self.booster_.predict(xgb.DMatrix(F)).astype(np.float64), -700.0, 700.0))
