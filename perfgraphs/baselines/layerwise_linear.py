"""Per-layer additive linear model (Gianniti et al., SPEC §4).

Each layer l of category c costs β0_c + β1_c · ops_l, and a network costs the sum over its
layers. Summing per category gives a model that is *linear in graph-level regressors*:

    t(graph) = Σ_c β0_c · count_c(graph) + β1_c · flops_c(graph)

so it is fitted directly on graph-level targets, without per-layer labels. ``count_c`` and
``flops_c`` come from the raw node facts (operator type and per-node FLOPs), so the model needs
the Hugging Face rows (``load_dataset(...)``) or :class:`PerfGraph` objects, not featurized PyG
data. Categories are DIPPM's operator categories, with pooling split into stride 1 and stride > 1
as in the paper; conv/dense, norm, ReLU and the rest each get their own pair of coefficients.
(The paper's separate forward/backward models apply to training-step targets; inference graphs
have only the forward pass.)

Fitting is non-negative least squares on relative errors (rows divided by y): costs are
non-negative by nature, which keeps the model physically meaningful and predictions ≥ 0, and
the relative-error weighting matches the MAPE it is scored on. Training is in linear space, not
log space: the model is additive by construction. Predictions are floored at a tiny positive
value so a graph with no covered operators still gets a valid (positive) prediction.
"""

from __future__ import annotations

import numpy as np

from perfgraphs.baselines.common import BaselineInputError, BaselineRegressor, NotFittedError, as_targets
from perfgraphs.features.layer_categories import (CATEGORIES, FEATURE_NAMES, graph_layer_features, node_categories,
                                                  per_graph)
from perfgraphs.views.hf import RAW_NODE_FEATURES

__all__ = ["CATEGORIES", "FEATURE_NAMES", "LayerwiseLinear", "layer_features"]

_COL = {name: i for i, name in enumerate(RAW_NODE_FEATURES)}


def layer_features(graphs) -> np.ndarray:
    """(n, 2·len(CATEGORIES)) per-category node counts and FLOP sums.

    ``graphs``: a Hugging Face split / Arrow table with ``node_feat``, ``onnx_ops`` and
    ``num_nodes`` columns, or a sequence of :class:`PerfGraph`.
    """
    import pyarrow as pa

    from perfgraphs.data.featurize import arrow_table

    # arrow_table applies a selection (e.g. the rows labeled on one platform), which .data.table would not
    table = arrow_table(graphs) if hasattr(graphs, "data") and hasattr(graphs.data, "table") else graphs
    if isinstance(table, pa.Table):
        num_nodes = table.column("num_nodes").to_numpy()
        raw = pa.concat_arrays([c.flatten().flatten() for c in table.column("node_feat").chunks]).to_numpy()
        raw = raw.reshape(-1, len(RAW_NODE_FEATURES))
        ops = [op for chunk in table.column("onnx_ops").chunks for op in chunk.flatten().to_pylist()]
        cats = node_categories(ops, raw[:, _COL["activation_matmul"]], raw[:, _COL["stride_h"]])
        graph_of_node = np.repeat(np.arange(len(num_nodes)), num_nodes)
        return per_graph(cats, raw[:, _COL["flops"]], graph_of_node, len(num_nodes))
    graphs = list(graphs)
    if not graphs or not hasattr(graphs[0], "onnx_ops"):
        raise BaselineInputError("layer_features needs a Hugging Face split, an Arrow table or PerfGraphs")
    return np.vstack([graph_layer_features(g) for g in graphs])


class LayerwiseLinear(BaselineRegressor):
    """``fit(graphs, y)`` / ``predict(graphs)`` (graphs as for :func:`layer_features`); or pass the
    feature matrix itself with ``fit_features`` / ``predict_features``. One model per target."""

    def __init__(self, min_prediction_fraction: float = 1e-3):
        self.min_prediction_fraction = min_prediction_fraction  # floor = this × smallest training target

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.positive_only = True  # costs: non-negative least squares on relative errors
        tags.input_tags.two_d_array = False  # X is graphs (rows or PerfGraphs), see layer_features
        return tags

    def fit(self, graphs, y) -> "LayerwiseLinear":
        return self.fit_features(layer_features(graphs), y)

    def predict(self, graphs) -> np.ndarray:
        return self.predict_features(layer_features(graphs))

    def fit_features(self, F: np.ndarray, y) -> "LayerwiseLinear":
        from scipy.optimize import nnls

        y = as_targets(y)
        F = np.asarray(F, dtype=np.float64)
        if len(F) != len(y):
            raise BaselineInputError(f"{len(y)} targets for {len(F)} graphs")
        if (y <= 0).any():
            raise BaselineInputError("LayerwiseLinear needs positive targets (times, bytes, energy)")
        # column scaling for conditioning; unused categories (all-zero columns) stay at β = 0
        self.scale_ = np.where(F.max(axis=0) > 0, F.max(axis=0), 1.0)
        A = F / self.scale_
        coefs = []
        for t in range(y.shape[1]):
            beta, _ = nnls(A / y[:, t:t + 1], np.ones(len(y)))
            coefs.append(beta / self.scale_)
        self.coef_ = np.stack(coefs, axis=1)  # (2C, T): per-layer β0 (counts) then β1 (FLOPs)
        self.floor_ = y.min(axis=0) * self.min_prediction_fraction
        return self

    def predict_features(self, F: np.ndarray) -> np.ndarray:
        if not hasattr(self, "coef_"):
            raise NotFittedError("LayerwiseLinear.predict called before fit")
        pred = np.maximum(np.asarray(F, dtype=np.float64) @ self.coef_, self.floor_)
        return pred[:, 0] if pred.shape[1] == 1 else pred

    def coefficients(self, target: int = 0) -> dict[str, tuple[float, float]]:
        """Category → (β0 per layer, β1 per FLOP)."""
        k = len(CATEGORIES)
        return {c: (float(self.coef_[i, target]), float(self.coef_[k + i, target])) for i, c in enumerate(CATEGORIES)}
