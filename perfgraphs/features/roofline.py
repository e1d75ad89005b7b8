"""An analytical prior: a graph's per-sample time on a platform from the roofline, operator by operator.

Each operator of the graph (its FLOPs and the bytes it reads and writes, from the IR's cost facts)
takes ``max(FLOPs / compute roof, bytes / memory bandwidth)`` on the platform's descriptor
(:mod:`perfgraphs.features.hardware`): matrix products on the matrix units in half precision,
everything else on the vector units. At batch B a sample's share of an operator's weights is 1/B of
them (they are read once per batch), its activations are its own, and each launched kernel costs a
fixed overhead shared by the B samples. The sum over operators is the prior; it is an estimate,
never a label, and predictors learn log(label / prior) on top of it (issue 27).

Graph costs are exported in float32, so the IR's bytes are 4 per element; a half-precision platform
moves half of them, an int8 one a quarter.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from perfgraphs.graph.costs import MAC_OPS

# operators that move no data of their own in a compiled or eager runtime (views, shape arithmetic)
VIEW_OPS = frozenset({"Shape", "Constant", "ConstantOfShape", "Reshape", "Flatten", "Squeeze", "Unsqueeze",
                      "Identity", "Range", "Size", "Cast", "Dropout"})
# a kernel's fixed cost (launch and framework dispatch), in microseconds: the order of an eager
# PyTorch CUDA launch, and of an operator dispatch on a CPU. The residual learns the real value.
LAUNCH_US = {"gpu": 5.0, "cpu": 1.0}
BYTES_SCALE = {"amp": 0.5, "fp16": 0.5, "bf16": 0.5, "int8": 0.25}  # vs the IR's float32 bytes


@dataclass(frozen=True)
class NodeCosts:
    """Per-operator costs of many graphs at batch 1, concatenated (graph g's operators are
    ``offsets[g]:offsets[g + 1]``)."""

    offsets: np.ndarray  # (n_graphs + 1,) int64
    flops: np.ndarray  # per sample
    activation_bytes: np.ndarray  # read and written per sample (float32)
    weight_bytes: np.ndarray  # read once per batch (float32)
    matrix: np.ndarray  # bool: a matrix product (Conv, Gemm, MatMul, ...)
    kernel: np.ndarray  # bool: launches work (not a view or shape operator)
    # priors already computed from these (immutable) costs, by their caller's key: a pure function's
    # results, so sharing them changes no answer
    memo: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def n_graphs(self) -> int:
        return len(self.offsets) - 1

    @classmethod
    def from_columns(cls, lengths: np.ndarray, ops: list[str], flops: np.ndarray, params: np.ndarray,
                     memory_bytes: np.ndarray) -> "NodeCosts":
        """From the IR's per-node facts (``node_feat`` columns ``flops``, ``params``,
        ``memory_bytes``; ``onnx_ops``), every graph's nodes in order."""
        weight = 4.0 * params.astype(np.float64)
        activation = np.maximum(memory_bytes.astype(np.float64) - weight, 0.0)
        ops = np.asarray(ops, dtype=object)
        matrix = np.isin(ops, list(MAC_OPS))
        kernel = ~np.isin(ops, list(VIEW_OPS))
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        return cls(offsets, flops.astype(np.float64), activation, weight, matrix, kernel)

    def select(self, graphs: np.ndarray) -> "NodeCosts":
        parts = [np.arange(self.offsets[g], self.offsets[g + 1]) for g in graphs]
        idx = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
        lengths = np.diff(self.offsets)[graphs]
        return NodeCosts(np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64), self.flops[idx],
                         self.activation_bytes[idx], self.weight_bytes[idx], self.matrix[idx], self.kernel[idx])


@dataclass(frozen=True)
class RooflineTerms:
    """Per graph, per sample: the prior and the parts it is made of (milliseconds)."""

    prior_ms: np.ndarray
    compute_ms: np.ndarray  # operators bound by the compute roof
    memory_ms: np.ndarray  # operators bound by bandwidth
    launch_ms: np.ndarray
    kernels: np.ndarray  # kernels launched per batch


def _per_graph(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    sums = np.concatenate([[0.0], np.cumsum(values)])
    return sums[offsets[1:]] - sums[offsets[:-1]]


def roofline(costs: NodeCosts, descriptor, precision: str, batch_sizes) -> RooflineTerms:
    """The roofline prior of every graph of ``costs`` on one platform; ``batch_sizes`` per graph
    (or one for all)."""
    n = costs.n_graphs
    batch = np.broadcast_to(np.asarray(batch_sizes, dtype=np.float64), (n,))
    batch = np.where(np.isfinite(batch) & (batch > 0), batch, 1.0)
    per_node_batch = np.repeat(batch, np.diff(costs.offsets))
    scale = BYTES_SCALE.get(precision, 1.0)
    bytes_moved = scale * (costs.activation_bytes + costs.weight_bytes / per_node_batch)
    peak = np.where(costs.matrix, descriptor.peak_gflop_per_s(precision, True),
                    descriptor.peak_gflop_per_s(precision, False)) * 1e9
    compute_s = costs.flops / peak
    memory_s = bytes_moved / (descriptor.memory_bandwidth_gb_per_s * 1e9)
    bound = np.maximum(compute_s, memory_s) * costs.kernel
    compute_ms = _per_graph(np.where(compute_s >= memory_s, bound, 0.0), costs.offsets) * 1e3
    memory_ms = _per_graph(np.where(compute_s < memory_s, bound, 0.0), costs.offsets) * 1e3
    kernels = _per_graph(costs.kernel.astype(np.float64), costs.offsets)
    launch_ms = kernels * LAUNCH_US[descriptor.device_kind] / 1e3 / batch
    return RooflineTerms(compute_ms + memory_ms + launch_ms, compute_ms, memory_ms, launch_ms, kernels)
