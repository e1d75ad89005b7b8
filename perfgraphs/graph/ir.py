"""The performance-graph IR: one model at one input configuration, as immutable columns.

A :class:`PerfGraph` stores raw facts per node (operator, attributes, shapes, MACs, FLOPs,
parameters, bytes) and true producer→consumer edges. Featurizers turn the facts into tensors at
load time, so a new feature set never needs a new extraction. Columns are read-only numpy arrays
so a graph can be shared between threads, datasets and caches without defensive copies.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from perfgraphs.graph.operators import (
    CONV_OPS,
    DENSE_OPS,
    RELU_OPS,
    canonical_operator,
)

SHAPE_RANK = 6  # rank-padded shapes: rank 5 (3-D conv) + batch

# Integer attribute columns, one row per node; 0 where an operator has no such attribute,
# except ``axis`` which is -1 when absent (0 is a valid axis).
ATTRIBUTE_NAMES: tuple[str, ...] = (
    "kernel_h", "kernel_w", "kernel_d",
    "stride_h", "stride_w", "stride_d",
    "pad_top", "pad_left", "pad_bottom", "pad_right",
    "dilation_h", "dilation_w",
    "groups", "channels_in", "channels_out", "axis",
)
ATTRIBUTE_INDEX = {name: i for i, name in enumerate(ATTRIBUTE_NAMES)}

# Format version of the serialized graph; bump when a column's meaning changes.
IR_VERSION = 1

_INT_COLUMNS = ("macs", "flops", "params", "memory_bytes")


def _frozen(array: np.ndarray, dtype) -> np.ndarray:
    out = np.ascontiguousarray(array, dtype=dtype)
    if out is array:
        out = out.copy()
    out.setflags(write=False)
    return out


@dataclass(frozen=True)
class NodeFacts:
    """One node, as a record (a convenience view over the graph's columns)."""

    index: int
    onnx_op: str
    op_type: str
    attributes: dict[str, int]
    input_shape: tuple[int, ...]
    output_shape: tuple[int, ...]
    macs: int
    flops: int
    params: int
    memory_bytes: int
    activation_matmul: bool


@dataclass(frozen=True, eq=False)
class PerfGraph:
    """An immutable computation graph with per-node cost facts.

    ``node_input_shape``/``node_output_shape`` are left-aligned (dim 0 = batch) and zero-padded to
    rank 6; unknown dims are -1. ``total_params`` counts each parameter tensor once (shared
    weights are not double-counted) and ``total_memory_bytes`` counts each distinct tensor once.
    """

    name: str
    batch_size: int
    input_shapes: tuple[tuple[str, tuple[int, ...]], ...]
    onnx_ops: tuple[str, ...]
    attributes: np.ndarray  # (n, len(ATTRIBUTE_NAMES)) int64
    node_input_shape: np.ndarray  # (n, 6) int64
    node_output_shape: np.ndarray  # (n, 6) int64
    macs: np.ndarray  # (n,) int64
    flops: np.ndarray  # (n,) int64
    params: np.ndarray  # (n,) int64
    memory_bytes: np.ndarray  # (n,) int64
    activation_matmul: np.ndarray  # (n,) bool: MatMul whose operands are both activations
    edge_index: np.ndarray  # (2, E) int64, sorted, unique
    total_params: int
    total_memory_bytes: int
    metadata: tuple[tuple[str, str], ...] = field(default=())

    def __post_init__(self) -> None:
        n = len(self.onnx_ops)
        object.__setattr__(self, "onnx_ops", tuple(self.onnx_ops))
        object.__setattr__(self, "attributes", _frozen(self.attributes, np.int64).reshape(n, len(ATTRIBUTE_NAMES)))
        for col in ("node_input_shape", "node_output_shape"):
            object.__setattr__(self, col, _frozen(getattr(self, col), np.int64).reshape(n, SHAPE_RANK))
        for col in _INT_COLUMNS:
            arr = _frozen(getattr(self, col), np.int64)
            if arr.shape != (n,):
                raise ValueError(f"column {col} has shape {arr.shape}, expected ({n},)")
            object.__setattr__(self, col, arr)
        object.__setattr__(self, "activation_matmul", _frozen(self.activation_matmul, np.bool_).reshape(n))
        edges = _frozen(self.edge_index, np.int64).reshape(2, -1)
        if edges.size and (edges.min() < 0 or edges.max() >= n):
            raise ValueError("edge_index refers to a node that does not exist")
        object.__setattr__(self, "edge_index", edges)

    # -- sizes and node access ----------------------------------------------------------------
    @property
    def num_nodes(self) -> int:
        return len(self.onnx_ops)

    @property
    def num_edges(self) -> int:
        return int(self.edge_index.shape[1])

    @property
    def op_types(self) -> tuple[str, ...]:
        """Vocabulary operator per node (``other`` for operators outside the vocabulary)."""
        return tuple(canonical_operator(op) for op in self.onnx_ops)

    def node(self, index: int) -> NodeFacts:
        def shape(row: np.ndarray) -> tuple[int, ...]:
            dims = [int(d) for d in row]
            while dims and dims[-1] == 0:
                dims.pop()
            return tuple(dims)

        return NodeFacts(
            index=index,
            onnx_op=self.onnx_ops[index],
            op_type=canonical_operator(self.onnx_ops[index]),
            attributes={k: int(v) for k, v in zip(ATTRIBUTE_NAMES, self.attributes[index])},
            input_shape=shape(self.node_input_shape[index]),
            output_shape=shape(self.node_output_shape[index]),
            macs=int(self.macs[index]),
            flops=int(self.flops[index]),
            params=int(self.params[index]),
            memory_bytes=int(self.memory_bytes[index]),
            activation_matmul=bool(self.activation_matmul[index]),
        )

    # -- graph-level facts ------------------------------------------------------------------
    def operator_histogram(self) -> dict[str, int]:
        """Count of nodes per ONNX operator, ``other`` included as its raw op names."""
        hist: dict[str, int] = {}
        for op in self.onnx_ops:
            hist[op] = hist.get(op, 0) + 1
        return dict(sorted(hist.items(), key=lambda kv: (-kv[1], kv[0])))

    def count_ops(self, ops: frozenset[str]) -> int:
        return sum(1 for op in self.onnx_ops if op in ops)

    @property
    def num_other(self) -> int:
        """Nodes whose operator is outside the vocabulary (the ``other`` bucket)."""
        return sum(1 for op in self.op_types if op == "other")

    def static_features(self) -> dict[str, int]:
        """Graph-level static features, unit-suffixed, in a fixed order."""
        activation_mm = int(self.activation_matmul.sum())
        dense = self.count_ops(DENSE_OPS) - activation_mm
        return {
            "batch_size": self.batch_size,
            "num_nodes": self.num_nodes,
            "num_edges": self.num_edges,
            "total_macs": int(self.macs.sum()),
            "total_flops": int(self.flops.sum()),
            "total_params": self.total_params,
            "total_memory_bytes": self.total_memory_bytes,
            "num_conv": self.count_ops(CONV_OPS),
            "num_dense": dense,
            "num_relu": self.count_ops(RELU_OPS),
            "num_attention": activation_mm + self.count_ops(frozenset({"Attention"})),
            "num_other": self.num_other,
        }

    # -- serialization ------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "ir_version": IR_VERSION,
            "name": self.name,
            "batch_size": self.batch_size,
            "input_shapes": [[n, list(s)] for n, s in self.input_shapes],
            "onnx_ops": list(self.onnx_ops),
            "attributes": self.attributes.tolist(),
            "node_input_shape": self.node_input_shape.tolist(),
            "node_output_shape": self.node_output_shape.tolist(),
            **{col: getattr(self, col).tolist() for col in _INT_COLUMNS},
            "activation_matmul": self.activation_matmul.tolist(),
            "edge_index": self.edge_index.tolist(),
            "total_params": self.total_params,
            "total_memory_bytes": self.total_memory_bytes,
            "metadata": [list(kv) for kv in self.metadata],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "PerfGraph":
        if data.get("ir_version") != IR_VERSION:
            raise ValueError(f"unsupported graph ir_version {data.get('ir_version')!r}")
        n = len(data["onnx_ops"])
        return cls(
            name=data["name"],
            batch_size=int(data["batch_size"]),
            input_shapes=tuple((str(k), tuple(int(d) for d in s)) for k, s in data["input_shapes"]),
            onnx_ops=tuple(data["onnx_ops"]),
            attributes=np.asarray(data["attributes"], dtype=np.int64).reshape(n, len(ATTRIBUTE_NAMES)),
            node_input_shape=np.asarray(data["node_input_shape"], dtype=np.int64).reshape(n, SHAPE_RANK),
            node_output_shape=np.asarray(data["node_output_shape"], dtype=np.int64).reshape(n, SHAPE_RANK),
            **{col: np.asarray(data[col], dtype=np.int64) for col in _INT_COLUMNS},
            activation_matmul=np.asarray(data["activation_matmul"], dtype=np.bool_),
            edge_index=np.asarray(data["edge_index"], dtype=np.int64).reshape(2, -1),
            total_params=int(data["total_params"]),
            total_memory_bytes=int(data["total_memory_bytes"]),
            metadata=tuple((str(k), str(v)) for k, v in data.get("metadata", [])),
        )

    def to_json(self) -> bytes:
        """Canonical JSON: the same graph always serializes to the same bytes."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":")).encode()

    @classmethod
    def from_json(cls, data: bytes | str) -> "PerfGraph":
        return cls.from_dict(json.loads(data))

    @property
    def content_hash(self) -> str:
        """sha256 of the canonical serialization: equal iff every fact is equal."""
        return hashlib.sha256(self.to_json()).hexdigest()

    @property
    def structure_hash(self) -> str:
        """sha256 of topology, operators and attributes: equal for batch and input-size variants.

        Used to deduplicate architectures that export to the same graph under different names.
        """
        h = hashlib.sha256()
        h.update("\n".join(self.onnx_ops).encode())
        h.update(self.attributes.tobytes())
        h.update(self.edge_index.tobytes())
        return h.hexdigest()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PerfGraph) and self.to_json() == other.to_json()

    def __hash__(self) -> int:
        return hash(self.content_hash)

    def __repr__(self) -> str:
        s = self.static_features()
        return (
            f"PerfGraph({self.name!r}, batch={self.batch_size}, nodes={s['num_nodes']}, "
            f"edges={s['num_edges']}, gmacs={s['total_macs'] / 1e9:.3f}, params={s['total_params']:,})"
        )
