"""DIPPM node features (32): operator category one-hot (16) + 12 operator attributes + output
shape padded to 4. Static (5): total MACs, batch size, #conv, #dense, #relu."""

from __future__ import annotations

import numpy as np

from perfgraphs.features.base import Featurizer, NodeMatrix, Nodes, log1p_nonneg, op_indices
from perfgraphs.graph.ir import ATTRIBUTE_INDEX
from perfgraphs.graph.operators import DIPPM_CATEGORIES, DIPPM_CATEGORY_OF, OTHER
from perfgraphs.registry import DIPPM

ATTRIBUTES = ("kernel_h", "kernel_w", "stride_h", "stride_w", "pad_top", "pad_left",
              "dilation_h", "dilation_w", "groups", "channels_in", "channels_out", "axis")
OUTPUT_RANK = 4
NODE_NAMES = (
    tuple(f"category_{c}" for c in DIPPM_CATEGORIES)
    + tuple(f"attr_{a}_log1p" if a.startswith(("channels", "groups")) else f"attr_{a}" for a in ATTRIBUTES)
    + tuple(f"output_dim{i}_log1p" for i in range(OUTPUT_RANK))
)
STATIC_NAMES = ("total_macs_log1p", "batch_size", "num_conv", "num_dense", "num_relu")
_CATEGORY_INDEX = {c: i for i, c in enumerate(DIPPM_CATEGORIES)}


_CATEGORY_OF_OP = {op: _CATEGORY_INDEX[category] for op, category in DIPPM_CATEGORY_OF.items()}


def _node(graph: Nodes, out: np.ndarray | None = None) -> np.ndarray:
    cats = op_indices(graph.onnx_ops, _CATEGORY_OF_OP, _CATEGORY_INDEX[OTHER])
    cats[graph.activation_matmul] = _CATEGORY_INDEX["attention_matmul"]
    m = NodeMatrix(graph.num_nodes, len(NODE_NAMES), out)
    m.one_hot(cats, len(DIPPM_CATEGORIES))
    for a in ATTRIBUTES:
        values = graph.attributes[:, ATTRIBUTE_INDEX[a]]
        m.put(log1p_nonneg(values) if a.startswith(("channels", "groups")) else values.astype(np.float64))
    m.put(log1p_nonneg(graph.node_output_shape[:, :OUTPUT_RANK]))
    return m.done()


def _static(s: dict) -> np.ndarray:
    return np.array([log1p_nonneg(s["total_macs"]), s["batch_size"], s["num_conv"], s["num_dense"], s["num_relu"]],
                    dtype=np.float64)


DIPPM = Featurizer(DIPPM, 1, NODE_NAMES, STATIC_NAMES, _node, _static)
