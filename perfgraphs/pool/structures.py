"""Compact storage of graph structures: one row per architecture × input size.

Every per-node fact is affine in the batch size (see :mod:`perfgraphs.graph.template`), so a row
stores the graph at batch 1 plus the per-batch increment of the affine columns; any batch variant
is then exact arithmetic, and the structure is stored once for all its variants.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from perfgraphs.graph.ir import ATTRIBUTE_NAMES, SHAPE_RANK, PerfGraph
from perfgraphs.graph.template import GraphTemplate, _interpolate

A = len(ATTRIBUTE_NAMES)

SCHEMA = pa.schema([
    pa.field("structure_id", pa.string(), nullable=False),  # "<source>@<input>" e.g. timm:resnet50@224
    pa.field("source", pa.string(), nullable=False),
    pa.field("family", pa.string(), nullable=False),
    pa.field("img_size", pa.int32()),  # null for text models
    pa.field("seq_len", pa.int32()),  # null for image models
    pa.field("structure_hash", pa.string(), nullable=False),
    pa.field("num_nodes", pa.int32(), nullable=False),
    pa.field("onnx_ops", pa.list_(pa.string()), nullable=False),
    pa.field("attributes", pa.list_(pa.int32()), nullable=False),  # n × 16, row-major
    pa.field("edge_index", pa.list_(pa.int32()), nullable=False),  # 2 × E, row-major
    pa.field("activation_matmul", pa.list_(pa.bool_()), nullable=False),
    pa.field("params", pa.list_(pa.int64()), nullable=False),
    pa.field("input_names", pa.list_(pa.string()), nullable=False),
    pa.field("input_dims_b1", pa.list_(pa.list_(pa.int64())), nullable=False),
    # batch-1 values and per-extra-sample increments of the affine columns
    pa.field("node_input_shape_b1", pa.list_(pa.int64()), nullable=False),
    pa.field("node_input_shape_step", pa.list_(pa.int64()), nullable=False),
    pa.field("node_output_shape_b1", pa.list_(pa.int64()), nullable=False),
    pa.field("node_output_shape_step", pa.list_(pa.int64()), nullable=False),
    pa.field("macs_b1", pa.list_(pa.int64()), nullable=False),
    pa.field("macs_step", pa.list_(pa.int64()), nullable=False),
    pa.field("flops_b1", pa.list_(pa.int64()), nullable=False),
    pa.field("flops_step", pa.list_(pa.int64()), nullable=False),
    pa.field("memory_bytes_b1", pa.list_(pa.int64()), nullable=False),
    pa.field("memory_bytes_step", pa.list_(pa.int64()), nullable=False),
    pa.field("total_params", pa.int64(), nullable=False),
    pa.field("total_memory_bytes_b1", pa.int64(), nullable=False),
    pa.field("total_memory_bytes_step", pa.int64(), nullable=False),
    pa.field("metadata_keys", pa.list_(pa.string()), nullable=False),
    pa.field("metadata_values", pa.list_(pa.string()), nullable=False),
])


def structure_id(source: str, img_size: int | None = None, seq_len: int | None = None) -> str:
    return f"{source}@{img_size if img_size is not None else f'seq{seq_len}'}"


@dataclass(frozen=True)
class StoredStructure:
    """A structure row decoded: the batch-1 graph and the batch-2 graph it extrapolates from."""

    structure_id: str
    family: str
    img_size: int | None
    seq_len: int | None
    one: PerfGraph
    two: PerfGraph

    def graph(self, batch_size: int) -> PerfGraph:
        return self.one if batch_size == 1 else _interpolate(self.one, self.two, batch_size)


def encode(template: GraphTemplate, family: str, img_size: int | None, seq_len: int | None) -> dict:
    """One table row from a template whose batch variants are affine (checked by the template)."""
    one, two = template.graph(1, seq_len), template.graph(2, seq_len)
    if not template.batch_affine(seq_len):
        raise ValueError(f"{template.name}: batch variants are not affine; cannot store compactly")

    def step(col: str) -> list[int]:
        return (getattr(two, col) - getattr(one, col)).ravel().tolist()

    return {
        "structure_id": structure_id(template.name, img_size, seq_len),
        "source": template.name,
        "family": family,
        "img_size": img_size,
        "seq_len": seq_len,
        "structure_hash": one.structure_hash,
        "num_nodes": one.num_nodes,
        "onnx_ops": list(one.onnx_ops),
        "attributes": one.attributes.ravel().tolist(),
        "edge_index": one.edge_index.ravel().tolist(),
        "activation_matmul": one.activation_matmul.tolist(),
        "params": one.params.tolist(),
        "input_names": [n for n, _ in one.input_shapes],
        "input_dims_b1": [list(s) for _, s in one.input_shapes],
        **{f"{c}_b1": getattr(one, c).ravel().tolist() for c in
           ("node_input_shape", "node_output_shape", "macs", "flops", "memory_bytes")},
        **{f"{c}_step": step(c) for c in
           ("node_input_shape", "node_output_shape", "macs", "flops", "memory_bytes")},
        "total_params": one.total_params,
        "total_memory_bytes_b1": one.total_memory_bytes,
        "total_memory_bytes_step": two.total_memory_bytes - one.total_memory_bytes,
        "metadata_keys": [k for k, _ in one.metadata],
        "metadata_values": [v for _, v in one.metadata],
    }


def decode(row: dict) -> StoredStructure:
    n = int(row["num_nodes"])

    def graph(k: int) -> PerfGraph:
        def col(name: str, shape: tuple[int, ...]) -> np.ndarray:
            base = np.asarray(row[f"{name}_b1"], dtype=np.int64)
            return (base + k * np.asarray(row[f"{name}_step"], dtype=np.int64)).reshape(shape)

        return PerfGraph(
            name=row["source"],
            batch_size=1 + k,
            input_shapes=tuple((name, (1 + k, *dims[1:])) for name, dims in zip(row["input_names"], row["input_dims_b1"])),
            onnx_ops=tuple(row["onnx_ops"]),
            attributes=np.asarray(row["attributes"], dtype=np.int64).reshape(n, A),
            node_input_shape=col("node_input_shape", (n, SHAPE_RANK)),
            node_output_shape=col("node_output_shape", (n, SHAPE_RANK)),
            macs=col("macs", (n,)),
            flops=col("flops", (n,)),
            params=np.asarray(row["params"], dtype=np.int64),
            memory_bytes=col("memory_bytes", (n,)),
            activation_matmul=np.asarray(row["activation_matmul"], dtype=np.bool_),
            edge_index=np.asarray(row["edge_index"], dtype=np.int64).reshape(2, -1),
            total_params=int(row["total_params"]),
            total_memory_bytes=int(row["total_memory_bytes_b1"]) + k * int(row["total_memory_bytes_step"]),
            metadata=tuple(zip(row["metadata_keys"], row["metadata_values"])),
        )

    return StoredStructure(row["structure_id"], row["family"], row["img_size"], row["seq_len"], graph(0), graph(1))
