"""TraPPM node features (113): operator one-hot (98) + input shape (6) + output shape (6)
+ MACs + parameters + memory bytes. Static (6): batch, #nodes, #edges, MACs, params, memory."""

from __future__ import annotations

import numpy as np

from perfgraphs.features.base import Featurizer, log1p_nonneg, one_hot
from perfgraphs.graph.ir import SHAPE_RANK, PerfGraph
from perfgraphs.graph.operators import ONNX_OPERATORS, OPERATOR_INDEX, canonical_operator

NODE_NAMES = (
    tuple(f"op_{op}" for op in ONNX_OPERATORS)
    + tuple(f"input_dim{i}_log1p" for i in range(SHAPE_RANK))
    + tuple(f"output_dim{i}_log1p" for i in range(SHAPE_RANK))
    + ("macs_log1p", "params_log1p", "memory_bytes_log1p")
)
STATIC_NAMES = ("batch_size", "num_nodes", "num_edges", "total_macs_log1p", "total_params_log1p",
                "total_memory_bytes_log1p")


def _node(graph: PerfGraph) -> np.ndarray:
    ops = np.array([OPERATOR_INDEX[canonical_operator(op)] for op in graph.onnx_ops], dtype=np.int64)
    return np.hstack([
        one_hot(ops, len(ONNX_OPERATORS)),
        log1p_nonneg(graph.node_input_shape),
        log1p_nonneg(graph.node_output_shape),
        log1p_nonneg(np.stack([graph.macs, graph.params, graph.memory_bytes], axis=1)),
    ])


def _static(s: dict) -> np.ndarray:
    return np.array([
        s["batch_size"], s["num_nodes"], s["num_edges"],
        log1p_nonneg(s["total_macs"]), log1p_nonneg(s["total_params"]), log1p_nonneg(s["total_memory_bytes"]),
    ], dtype=np.float64)


TRAPPM = Featurizer("trappm", 1, NODE_NAMES, STATIC_NAMES, _node, _static)
