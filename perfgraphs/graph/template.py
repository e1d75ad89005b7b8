"""One export, many variants: batch sizes (and sequence lengths) derived without re-exporting.

A :class:`GraphTemplate` holds an ONNX model with dynamic axes. A concrete variant re-runs ONNX
shape inference with fixed input dims. Batch variants are cheaper still: every per-node fact
(shapes, MACs, FLOPs, bytes) is affine in the batch size, so two anchor graphs (batch 1 and 2)
determine all others. The affine rule is checked once per template against an exact inference at
batch 3; a model where it does not hold falls back to exact inference for every batch.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import onnx

from perfgraphs.errors import InvalidInputSpecError
from perfgraphs.graph.inputs import InputSpec, check_ranges
from perfgraphs.graph.ir import PerfGraph
from perfgraphs.graph.onnx_import import import_graph, input_dims, with_concrete_inputs

_AFFINE_COLUMNS = ("node_input_shape", "node_output_shape", "macs", "flops", "memory_bytes")


class GraphTemplate:
    """An exported model from which concrete :class:`PerfGraph` variants are derived."""

    def __init__(self, model: onnx.ModelProto, name: str, spec: InputSpec | None = None):
        self.model = model
        self.name = name
        self.spec = spec
        self.declared_dims = input_dims(model)
        self._anchors: dict[int | None, tuple[PerfGraph, PerfGraph] | None] = {}

    # -- what the model accepts -------------------------------------------------------------
    @property
    def dynamic_batch(self) -> bool:
        return all(dims and not isinstance(dims[0], int) for dims in self.declared_dims.values())

    @property
    def dynamic_sequence(self) -> bool:
        return all(len(d) > 1 and not isinstance(d[1], int) for d in self.declared_dims.values())

    def _dims(self, batch_size: int, seq_len: int | None) -> dict[str, list[int]]:
        dims: dict[str, list[int]] = {}
        for name, declared in self.declared_dims.items():
            concrete = list(declared)
            if concrete:
                concrete[0] = batch_size
            if seq_len is not None:
                if len(concrete) < 2 or (isinstance(declared[1], int) and declared[1] != seq_len):
                    raise InvalidInputSpecError(f"{self.name} has no dynamic sequence axis")
                concrete[1] = seq_len
            elif self.spec is not None and self.spec.seq_len is not None and len(concrete) > 1 \
                    and not isinstance(concrete[1], int):
                concrete[1] = self.spec.seq_len
            if any(not isinstance(d, int) or d <= 0 for d in concrete):
                raise InvalidInputSpecError(
                    f"{self.name}: input {name!r} has unresolved dims {declared}; give them explicitly "
                    f"(a sequence length for axis 1)"
                )
            dims[name] = concrete
        return dims

    # -- variants -----------------------------------------------------------------------------
    def exact(self, batch_size: int, seq_len: int | None = None) -> PerfGraph:
        """Variant by full shape inference (the reference the affine path is checked against)."""
        check_ranges(batch_size=batch_size, seq_len=seq_len)
        inferred = with_concrete_inputs(self.model, self._dims(batch_size, seq_len))
        return import_graph(inferred, name=self.name, batch_size=batch_size)

    def graph(self, batch_size: int = 1, seq_len: int | None = None) -> PerfGraph:
        """The variant at ``batch_size`` (and ``seq_len`` for text models)."""
        check_ranges(batch_size=batch_size, seq_len=seq_len)
        if not self.dynamic_batch:
            # The first input with an axis; a model whose inputs are all scalars has no batch.
            declared = next((dims[0] for dims in self.declared_dims.values() if dims), 1)
            if batch_size != declared:
                return self.exact(batch_size, seq_len)  # may fail if batch is baked in
        anchors = self._anchors.get(seq_len, ())
        if anchors == ():
            anchors = self._make_anchors(seq_len)
            self._anchors[seq_len] = anchors
        if anchors is None or not self.dynamic_batch:
            return self.exact(batch_size, seq_len)
        one, two = anchors
        if batch_size == 1:
            return one
        return _interpolate(one, two, batch_size)

    def batch_affine(self, seq_len: int | None = None) -> bool:
        """Whether batch variants at ``seq_len`` are derived affinely (checked at batch 3)."""
        self.graph(1, seq_len)
        return self._anchors.get(seq_len) is not None

    def _make_anchors(self, seq_len: int | None) -> tuple[PerfGraph, PerfGraph] | None:
        if not self.dynamic_batch:
            return None
        one, two = self.exact(1, seq_len), self.exact(2, seq_len)
        if one.structure_hash != two.structure_hash:
            return None
        if _interpolate(one, two, 3) != self.exact(3, seq_len):
            return None
        return one, two


def _interpolate(one: PerfGraph, two: PerfGraph, batch_size: int) -> PerfGraph:
    k = batch_size - 1
    columns = {c: getattr(one, c) + (getattr(two, c) - getattr(one, c)) * k for c in _AFFINE_COLUMNS}
    batch_dim = {n: s for n, s in one.input_shapes}
    return replace(
        one,
        batch_size=batch_size,
        input_shapes=tuple((n, (batch_size, *s[1:])) for n, s in batch_dim.items()),
        total_memory_bytes=one.total_memory_bytes + (two.total_memory_bytes - one.total_memory_bytes) * k,
        **columns,
    )
