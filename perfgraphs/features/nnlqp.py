"""NNLQP-style node features (44): one-hot over 32 operator codes + 8 normalised attributes
+ output shape (4, normalised). Static (4): FLOPs, parameters, memory bytes, batch size.

As in NNLQP, attributes are divided by fixed per-attribute scales (not fitted on data, so the
features never depend on which graphs are in a dataset).
"""

from __future__ import annotations

import numpy as np

from perfgraphs.features.base import Featurizer, NodeMatrix, Nodes, log1p_nonneg, op_indices
from perfgraphs.graph.ir import ATTRIBUTE_INDEX
from perfgraphs.graph.operators import OTHER

OP_CODES = (
    "Conv", "ConvTranspose", "Gemm", "MatMul", "BatchNormalization", "LayerNormalization",
    "Relu", "Clip", "Sigmoid", "HardSwish", "HardSigmoid", "Gelu", "Erf", "Tanh", "Softmax",
    "Add", "Mul", "Sub", "Div", "MaxPool", "AveragePool", "GlobalAveragePool", "ReduceMean",
    "Concat", "Reshape", "Transpose", "Flatten", "Slice", "Gather", "Split", "Pad", OTHER,
)
_OP_INDEX = {op: i for i, op in enumerate(OP_CODES)}
ATTRIBUTE_SCALES = {
    "kernel_h": 7.0, "kernel_w": 7.0, "stride_h": 4.0, "stride_w": 4.0, "pad_top": 3.0,
    "groups": 1024.0, "channels_in": 4096.0, "channels_out": 4096.0,
}
OUTPUT_SCALE = (256.0, 4096.0, 512.0, 512.0)
NODE_NAMES = (
    tuple(f"op_{op}" for op in OP_CODES)
    + tuple(f"attr_{a}_scaled" for a in ATTRIBUTE_SCALES)
    + tuple(f"output_dim{i}_scaled" for i in range(len(OUTPUT_SCALE)))
)
STATIC_NAMES = ("total_flops_log1p", "total_params_log1p", "total_memory_bytes_log1p", "batch_size")


def _node(graph: Nodes, out: np.ndarray | None = None) -> np.ndarray:
    m = NodeMatrix(graph.num_nodes, len(NODE_NAMES), out)
    m.one_hot(op_indices(graph.onnx_ops, _OP_INDEX, _OP_INDEX[OTHER]), len(OP_CODES))
    for a, scale in ATTRIBUTE_SCALES.items():
        m.put(graph.attributes[:, ATTRIBUTE_INDEX[a]].astype(np.float64) / scale)
    m.put(np.clip(graph.node_output_shape[:, : len(OUTPUT_SCALE)], 0, None) / np.array(OUTPUT_SCALE))
    return m.done()


def _static(s: dict) -> np.ndarray:
    return np.array([log1p_nonneg(s["total_flops"]), log1p_nonneg(s["total_params"]),
                     log1p_nonneg(s["total_memory_bytes"]), s["batch_size"]], dtype=np.float64)


NNLQP = Featurizer("nnlqp", 1, NODE_NAMES, STATIC_NAMES, _node, _static)
