"""TraPPM node features (113): operator one-hot (98) + input shape (6) + output shape (6)
+ MACs + parameters + memory bytes. Static (6): batch, #nodes, #edges, MACs, params, memory."""

from __future__ import annotations

import numpy as np

from perfgraphs.features.base import Featurizer, NodeMatrix, Nodes, log1p_nonneg, op_indices
from perfgraphs.graph.ir import SHAPE_RANK
from perfgraphs.graph.operators import ONNX_OPERATORS, OPERATOR_INDEX, OTHER
from perfgraphs.registry import TRAPPM

NODE_NAMES = (
    tuple(f"op_{op}" for op in ONNX_OPERATORS)
    + tuple(f"input_dim{i}_log1p" for i in range(SHAPE_RANK))
    + tuple(f"output_dim{i}_log1p" for i in range(SHAPE_RANK))
    + ("macs_log1p", "params_log1p", "memory_bytes_log1p")
)
STATIC_NAMES = ("batch_size", "num_nodes", "num_edges", "total_macs_log1p", "total_params_log1p",
                "total_memory_bytes_log1p")


def _node(graph: Nodes, out: np.ndarray | None = None) -> np.ndarray:
    m = NodeMatrix(graph.num_nodes, len(NODE_NAMES), out)
    m.one_hot(op_indices(graph.onnx_ops, OPERATOR_INDEX, OPERATOR_INDEX[OTHER]), len(ONNX_OPERATORS))
    m.put(log1p_nonneg(graph.node_input_shape))
    m.put(log1p_nonneg(graph.node_output_shape))
    for column in (graph.macs, graph.params, graph.memory_bytes):
        m.put(log1p_nonneg(column))
    return m.done()


def _static(s: dict) -> np.ndarray:
    return np.array([
        s["batch_size"], s["num_nodes"], s["num_edges"],
        log1p_nonneg(s["total_macs"]), log1p_nonneg(s["total_params"]), log1p_nonneg(s["total_memory_bytes"]),
    ], dtype=np.float64)


TRAPPM = Featurizer(TRAPPM, 1, NODE_NAMES, STATIC_NAMES, _node, _static)
