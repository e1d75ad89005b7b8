"""Hugging Face row view, in the graphs-datasets convention (``edge_index``, ``num_nodes``,
``node_feat``, ``y``) plus the raw node facts, so any featurizer can be applied after loading and
the :class:`PerfGraph` is recovered exactly."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from perfgraphs.features import get_featurizer
from perfgraphs.graph.ir import ATTRIBUTE_NAMES, SHAPE_RANK, PerfGraph

RAW_COLUMNS = (
    "name", "batch_size", "input_names", "input_dims", "onnx_ops", "attributes",
    "node_input_shape", "node_output_shape", "macs", "flops", "params", "memory_bytes",
    "activation_matmul", "total_params", "total_memory_bytes", "metadata_keys", "metadata_values",
)


def to_hf_row(graph: PerfGraph, featurizer: str = "trappm", y: Sequence[float] | None = None) -> dict[str, Any]:
    feat = get_featurizer(featurizer)
    return {
        "edge_index": graph.edge_index.tolist(),
        "num_nodes": graph.num_nodes,
        "node_feat": feat.node_features(graph).tolist(),
        "y": [list(map(float, y))] if y is not None else [[]],
        "featurizer": feat.id,
        "name": graph.name,
        "batch_size": graph.batch_size,
        "input_names": [n for n, _ in graph.input_shapes],
        "input_dims": [list(s) for _, s in graph.input_shapes],
        "onnx_ops": list(graph.onnx_ops),
        "attributes": graph.attributes.tolist(),
        "node_input_shape": graph.node_input_shape.tolist(),
        "node_output_shape": graph.node_output_shape.tolist(),
        "macs": graph.macs.tolist(),
        "flops": graph.flops.tolist(),
        "params": graph.params.tolist(),
        "memory_bytes": graph.memory_bytes.tolist(),
        "activation_matmul": graph.activation_matmul.tolist(),
        "total_params": graph.total_params,
        "total_memory_bytes": graph.total_memory_bytes,
        "metadata_keys": [k for k, _ in graph.metadata],
        "metadata_values": [v for _, v in graph.metadata],
    }


def from_hf_row(row: dict[str, Any]) -> PerfGraph:
    """The exact :class:`PerfGraph` a row was made from (features are recomputable from it)."""
    n = int(row["num_nodes"])
    return PerfGraph(
        name=row["name"],
        batch_size=int(row["batch_size"]),
        input_shapes=tuple((str(k), tuple(int(d) for d in s)) for k, s in zip(row["input_names"], row["input_dims"])),
        onnx_ops=tuple(row["onnx_ops"]),
        attributes=np.asarray(row["attributes"], dtype=np.int64).reshape(n, len(ATTRIBUTE_NAMES)),
        node_input_shape=np.asarray(row["node_input_shape"], dtype=np.int64).reshape(n, SHAPE_RANK),
        node_output_shape=np.asarray(row["node_output_shape"], dtype=np.int64).reshape(n, SHAPE_RANK),
        macs=np.asarray(row["macs"], dtype=np.int64),
        flops=np.asarray(row["flops"], dtype=np.int64),
        params=np.asarray(row["params"], dtype=np.int64),
        memory_bytes=np.asarray(row["memory_bytes"], dtype=np.int64),
        activation_matmul=np.asarray(row["activation_matmul"], dtype=np.bool_),
        edge_index=np.asarray(row["edge_index"], dtype=np.int64).reshape(2, -1),
        total_params=int(row["total_params"]),
        total_memory_bytes=int(row["total_memory_bytes"]),
        metadata=tuple(zip(map(str, row["metadata_keys"]), map(str, row["metadata_values"]))),
    )
