"""Per-operator-category node counts and FLOP sums of a graph: the regressors of the per-layer
linear model (:class:`perfgraphs.baselines.LayerwiseLinear`). They live here, apart from the
estimator, so a caller that only applies a fitted model's coefficients (``perfgraphs.predict``'s
share of time per operator type) does not import scikit-learn."""

from __future__ import annotations

import numpy as np

from perfgraphs.graph.ir import ATTRIBUTE_INDEX
from perfgraphs.graph.operators import DIPPM_CATEGORIES, dippm_category

# DIPPM's operator categories, with pooling split into stride 1 and stride > 1 as in Gianniti et al.
CATEGORIES: tuple[str, ...] = tuple(
    c2 for c in DIPPM_CATEGORIES for c2 in ((f"{c}_s1", f"{c}_s2") if c.startswith("pool") else (c,))
)
_CAT_INDEX = {c: i for i, c in enumerate(CATEGORIES)}
FEATURE_NAMES: tuple[str, ...] = tuple(f"count_{c}" for c in CATEGORIES) + tuple(f"flops_{c}" for c in CATEGORIES)


def node_categories(ops, activation_matmul: np.ndarray, stride_h: np.ndarray) -> np.ndarray:
    """Each node's index in :data:`CATEGORIES`."""
    out = np.empty(len(ops), dtype=np.int64)
    for i, (op, mm, s) in enumerate(zip(ops, activation_matmul, stride_h)):
        c = dippm_category(op, bool(mm))
        if c.startswith("pool"):
            c += "_s2" if s > 1 else "_s1"
        out[i] = _CAT_INDEX[c]
    return out


def per_graph(cats: np.ndarray, flops: np.ndarray, graph_of_node: np.ndarray, n_graphs: int) -> np.ndarray:
    """(n_graphs, 2·len(CATEGORIES)): per category, the node count then the FLOP sum."""
    k = len(CATEGORIES)
    counts = np.zeros((n_graphs, k))
    sums = np.zeros((n_graphs, k))
    np.add.at(counts, (graph_of_node, cats), 1.0)
    np.add.at(sums, (graph_of_node, cats), flops.astype(np.float64))
    return np.hstack([counts, sums])


def graph_layer_features(graph) -> np.ndarray:
    """(1, 2·len(CATEGORIES)) features of one :class:`PerfGraph`."""
    cats = node_categories(graph.onnx_ops, graph.activation_matmul, graph.attributes[:, ATTRIBUTE_INDEX["stride_h"]])
    return per_graph(cats, graph.flops, np.zeros(graph.num_nodes, dtype=np.int64), 1)
