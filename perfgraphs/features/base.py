"""Featurizer interface: a named, versioned map from a :class:`PerfGraph` to tensors.

Featurizers are pure functions of the graph's stored facts, computed in float64 and rounded to
float32 at the end, so the same graph gives the same numbers on every machine. Magnitudes
(MACs, parameters, bytes, shape dims) enter as ``log1p`` values: raw counts span ten orders of
magnitude, which no GNN trains well on.

Node features are per node: a featurizer reads only a node's own facts. A featurizer therefore
accepts, besides a :class:`PerfGraph`, any :class:`NodeColumns` — e.g. a slice of the node table
of a whole dataset, with operators dictionary-encoded — and can write into a slice of a larger
output matrix; ``perfgraphs.data.load.to_pyg`` featurizes a whole dataset that way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence, Union

import numpy as np

from perfgraphs.graph.ir import PerfGraph


@dataclass(frozen=True)
class EncodedOps:
    """Operators as dictionary codes: ``vocabulary[codes[i]]`` is node i's ONNX operator.

    Mapping the (few hundred) distinct operators through a vocabulary and then gathering by code
    replaces millions of Python dict lookups with one numpy take.
    """

    codes: np.ndarray  # (n,) int
    vocabulary: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.codes)


@dataclass(frozen=True)
class NodeColumns:
    """The per-node facts a featurizer reads, as (views of) int64 columns — a PerfGraph without
    edges, graph-level facts or validation copies."""

    onnx_ops: Union[Sequence[str], EncodedOps]
    attributes: np.ndarray  # (n, 16)
    node_input_shape: np.ndarray  # (n, 6)
    node_output_shape: np.ndarray  # (n, 6)
    macs: np.ndarray
    flops: np.ndarray
    params: np.ndarray
    memory_bytes: np.ndarray
    activation_matmul: np.ndarray  # (n,) bool

    @property
    def num_nodes(self) -> int:
        return len(self.macs)


Nodes = Union[PerfGraph, NodeColumns]


@dataclass(frozen=True)
class Featurizer:
    """``node(nodes, out) -> (num_nodes, node_dim)``, ``static(facts) -> (static_dim,)``, float32.

    ``_node`` receives the output matrix to fill (or None to allocate one)."""

    name: str
    version: int
    node_feature_names: tuple[str, ...]
    static_feature_names: tuple[str, ...]
    _node: Callable[[Nodes, "np.ndarray | None"], np.ndarray]
    # static facts (PerfGraph.static_features() keys → scalars or per-graph arrays) → features
    _static: Callable[[dict], np.ndarray]

    @property
    def node_dim(self) -> int:
        return len(self.node_feature_names)

    @property
    def static_dim(self) -> int:
        return len(self.static_feature_names)

    @property
    def id(self) -> str:
        return f"{self.name}-v{self.version}"

    def node_features(self, graph: Nodes, out: np.ndarray | None = None) -> np.ndarray:
        """(num_nodes, node_dim) float32; written into ``out`` when given (a C-contiguous float32
        block of that shape, e.g. rows of a whole dataset's matrix)."""
        if out is not None and (out.shape != (graph.num_nodes, self.node_dim) or out.dtype != np.float32
                                or not out.flags.c_contiguous):
            raise ValueError(f"{self.id}: out must be C-contiguous float32 {(graph.num_nodes, self.node_dim)}, "
                             f"got {out.shape} {out.dtype}")
        x = self._node(graph, out)
        if x.shape != (graph.num_nodes, self.node_dim) or x.dtype != np.float32:
            raise AssertionError(f"{self.id}: node features {x.shape} {x.dtype}, expected ({graph.num_nodes}, {self.node_dim}) float32")
        return x

    def static_features(self, graph: PerfGraph) -> np.ndarray:
        s = np.asarray(self._static(graph.static_features()), dtype=np.float64)
        if s.shape != (self.static_dim,):
            raise AssertionError(f"{self.id}: static features {s.shape}, expected ({self.static_dim},)")
        return s.astype(np.float32)

    def static_features_table(self, facts: dict[str, np.ndarray]) -> np.ndarray:
        """(num_graphs, static_dim) from columns of static facts, one entry per graph."""
        s = np.asarray(self._static({k: np.asarray(v, dtype=np.float64) for k, v in facts.items()}), dtype=np.float64)
        return s.T.astype(np.float32).reshape(-1, self.static_dim)


def op_indices(ops, index: dict[str, int], default: int) -> np.ndarray:
    """Vocabulary index per node (``index.get(op, default)``), from operator strings or codes."""
    if isinstance(ops, EncodedOps):
        table = np.array([index.get(op, default) for op in ops.vocabulary], dtype=np.int64)
        return table[ops.codes] if len(table) else np.zeros(0, dtype=np.int64)
    table = {op: index.get(op, default) for op in set(ops)}
    return np.fromiter((table[op] for op in ops), dtype=np.int64, count=len(ops))


class NodeMatrix:
    """The float32 feature matrix, filled block by block: values are computed in float64 and
    rounded once on assignment, so no (n, d) float64 intermediate is ever built.

    Every column is written exactly once (``done`` checks), so the matrix starts uninitialised:
    ``np.empty`` gets transparent huge pages, where ``np.zeros`` faults in 4 KiB zero pages —
    for a dataset-sized matrix that page-faulting cost more than all the feature arithmetic.
    """

    def __init__(self, n: int, width: int, out: np.ndarray | None = None):
        self.x = np.empty((n, width), dtype=np.float32) if out is None else out
        self.col = 0

    def one_hot(self, indices: np.ndarray, width: int) -> None:
        block = self.x[:, self.col:self.col + width]
        block[...] = 0.0
        # flat positions: one scatter instead of 2-D fancy indexing
        self.x.reshape(-1)[np.arange(len(indices)) * self.x.shape[1] + (self.col + indices)] = 1.0
        self.col += width

    def put(self, values: np.ndarray) -> None:
        values = values.reshape(len(self.x), -1)
        self.x[:, self.col:self.col + values.shape[1]] = values
        self.col += values.shape[1]

    def done(self) -> np.ndarray:
        assert self.col == self.x.shape[1], (self.col, self.x.shape)
        return self.x


# log1p of the integers below this bound, computed once by the same np.log1p on the same float64
# inputs: a lookup gives bit-identical values ~5x faster than evaluating log1p per element
# (shape dims, channels and most parameter counts are small integers).
_LOG1P_TABLE_SIZE = 1 << 16
_LOG1P_TABLE = np.log1p(np.arange(_LOG1P_TABLE_SIZE, dtype=np.float64))


def log1p_nonneg(values: np.ndarray) -> np.ndarray:
    """float64 log1p of non-negative values; unknown (negative) entries become 0."""
    values = np.asarray(values)
    if values.dtype.kind not in "iu":
        return np.log1p(np.clip(np.asarray(values, dtype=np.float64), 0, None))
    clipped = np.maximum(values, 0)  # int max then float: equal to clipping the float values
    if clipped.ndim == 0:
        return np.log1p(np.float64(clipped))
    out = np.take(_LOG1P_TABLE, clipped, mode="clip")  # right wherever clipped < table size
    large = np.flatnonzero(clipped >= _LOG1P_TABLE_SIZE)
    if len(large):
        flat = out.reshape(-1)
        flat[large] = np.log1p(clipped.reshape(-1)[large].astype(np.float64))
    return out
