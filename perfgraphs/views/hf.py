"""Hugging Face row view in the graphs-datasets convention.

``edge_index``, ``num_nodes``, ``node_feat`` and ``y`` as in the Hugging Face graph datasets;
``node_feat`` holds the *raw node facts* (integers, columns in :data:`RAW_NODE_FEATURES`), so any
featurizer can be applied after loading and the :class:`PerfGraph` is recovered exactly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from perfgraphs.graph.ir import ATTRIBUTE_NAMES, SHAPE_RANK, PerfGraph

if TYPE_CHECKING:
    from perfgraphs.features.base import NodeColumns

RAW_NODE_FEATURES: tuple[str, ...] = (
    *ATTRIBUTE_NAMES,
    *(f"input_dim{i}" for i in range(SHAPE_RANK)),
    *(f"output_dim{i}" for i in range(SHAPE_RANK)),
    "macs", "flops", "params", "memory_bytes", "activation_matmul",
)
_A, _S = len(ATTRIBUTE_NAMES), SHAPE_RANK


def raw_node_matrix(graph: PerfGraph) -> np.ndarray:
    """(num_nodes, len(RAW_NODE_FEATURES)) int64."""
    return np.hstack([
        graph.attributes, graph.node_input_shape, graph.node_output_shape,
        np.stack([graph.macs, graph.flops, graph.params, graph.memory_bytes,
                  graph.activation_matmul.astype(np.int64)], axis=1),
    ]).astype(np.int64)


def to_hf_row(graph: PerfGraph, y: Sequence[float] | None = None) -> dict[str, Any]:
    return {
        "edge_index": graph.edge_index.tolist(),
        "num_nodes": graph.num_nodes,
        "node_feat": raw_node_matrix(graph).tolist(),
        "y": [list(map(float, y))] if y is not None else [[]],
        "onnx_ops": list(graph.onnx_ops),
        "name": graph.name,
        "batch_size": graph.batch_size,
        "input_names": [n for n, _ in graph.input_shapes],
        "input_dims": [list(s) for _, s in graph.input_shapes],
        "total_params": graph.total_params,
        "total_memory_bytes": graph.total_memory_bytes,
        "metadata_keys": [k for k, _ in graph.metadata],
        "metadata_values": [v for _, v in graph.metadata],
    }


def graph_from_columns(row: dict[str, Any], raw: np.ndarray, edge_index: np.ndarray) -> PerfGraph:
    """Rebuild a graph from a row's scalar columns and its raw node matrix / edges as arrays."""
    return PerfGraph(
        name=row["name"],
        batch_size=int(row["batch_size"]),
        input_shapes=tuple((str(k), tuple(int(d) for d in s)) for k, s in zip(row["input_names"], row["input_dims"])),
        onnx_ops=tuple(row["onnx_ops"]),
        attributes=raw[:, :_A],
        node_input_shape=raw[:, _A:_A + _S],
        node_output_shape=raw[:, _A + _S:_A + 2 * _S],
        macs=raw[:, -5], flops=raw[:, -4], params=raw[:, -3], memory_bytes=raw[:, -2],
        activation_matmul=raw[:, -1].astype(bool),
        edge_index=edge_index,
        total_params=int(row["total_params"]),
        total_memory_bytes=int(row["total_memory_bytes"]),
        metadata=tuple(zip(map(str, row["metadata_keys"]), map(str, row["metadata_values"]))),
    )


def node_columns(raw: np.ndarray, ops) -> NodeColumns:
    """The featurizer input for a block of rows of raw node facts (views, no copies); ``ops`` are
    operator strings or :class:`~perfgraphs.features.base.EncodedOps`."""
    from perfgraphs.features.base import NodeColumns

    return NodeColumns(
        onnx_ops=ops, attributes=raw[:, :_A], node_input_shape=raw[:, _A:_A + _S],
        node_output_shape=raw[:, _A + _S:_A + 2 * _S],
        macs=raw[:, -5], flops=raw[:, -4], params=raw[:, -3], memory_bytes=raw[:, -2],
        activation_matmul=raw[:, -1] != 0,
    )


def from_hf_row(row: dict[str, Any]) -> PerfGraph:
    """The exact :class:`PerfGraph` a row was made from."""
    n = int(row["num_nodes"])
    raw = np.asarray(row["node_feat"], dtype=np.int64).reshape(n, len(RAW_NODE_FEATURES))
    return graph_from_columns(row, raw, np.asarray(row["edge_index"], dtype=np.int64).reshape(2, -1))
