"""DIPPM node features (32): operator category one-hot (16) + 12 operator attributes + output
shape padded to 4. Static (5): total MACs, batch size, #conv, #dense, #relu."""

from __future__ import annotations

import numpy as np

from perfgraphs.features.base import Featurizer, log1p_nonneg, one_hot
from perfgraphs.graph.ir import ATTRIBUTE_INDEX, PerfGraph
from perfgraphs.graph.operators import DIPPM_CATEGORIES, dippm_category

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


def _node(graph: PerfGraph) -> np.ndarray:
    cats = np.array([
        _CATEGORY_INDEX[dippm_category(op, bool(mm))]
        for op, mm in zip(graph.onnx_ops, graph.activation_matmul)
    ], dtype=np.int64)
    attrs = graph.attributes[:, [ATTRIBUTE_INDEX[a] for a in ATTRIBUTES]].astype(np.float64)
    for i, a in enumerate(ATTRIBUTES):
        if a.startswith(("channels", "groups")):
            attrs[:, i] = log1p_nonneg(attrs[:, i])
    return np.hstack([
        one_hot(cats, len(DIPPM_CATEGORIES)),
        attrs,
        log1p_nonneg(graph.node_output_shape[:, :OUTPUT_RANK]),
    ])


def _static(s: dict) -> np.ndarray:
    return np.array([log1p_nonneg(s["total_macs"]), s["batch_size"], s["num_conv"], s["num_dense"], s["num_relu"]],
                    dtype=np.float64)


DIPPM = Featurizer("dippm", 1, NODE_NAMES, STATIC_NAMES, _node, _static)
