"""Featurizer interface: a named, versioned map from a :class:`PerfGraph` to tensors.

Featurizers are pure functions of the graph's stored facts, computed in float64 and rounded to
float32 at the end, so the same graph gives the same numbers on every machine. Magnitudes
(MACs, parameters, bytes, shape dims) enter as ``log1p`` values: raw counts span ten orders of
magnitude, which no GNN trains well on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from perfgraphs.graph.ir import PerfGraph


@dataclass(frozen=True)
class Featurizer:
    """``node(graph) -> (num_nodes, node_dim)``, ``static(graph) -> (static_dim,)``, float32."""

    name: str
    version: int
    node_feature_names: tuple[str, ...]
    static_feature_names: tuple[str, ...]
    _node: Callable[[PerfGraph], np.ndarray]
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

    def node_features(self, graph: PerfGraph) -> np.ndarray:
        x = self._node(graph)
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
    """Vocabulary index per node; the lookup table is built once per distinct operator."""
    table = {op: index.get(op, default) for op in set(ops)}
    return np.fromiter((table[op] for op in ops), dtype=np.int64, count=len(ops))


class NodeMatrix:
    """The float32 feature matrix, filled block by block: values are computed in float64 and
    rounded once on assignment, so no (n, d) float64 intermediate is ever built."""

    def __init__(self, n: int, width: int):
        self.x = np.zeros((n, width), dtype=np.float32)
        self.col = 0

    def one_hot(self, indices: np.ndarray, width: int) -> None:
        self.x[np.arange(len(indices)), self.col + indices] = 1.0
        self.col += width

    def put(self, values: np.ndarray) -> None:
        values = values.reshape(len(self.x), -1)
        self.x[:, self.col:self.col + values.shape[1]] = values
        self.col += values.shape[1]

    def done(self) -> np.ndarray:
        assert self.col == self.x.shape[1], (self.col, self.x.shape)
        return self.x


def log1p_nonneg(values: np.ndarray) -> np.ndarray:
    """log1p of non-negative values; unknown (negative) entries become 0."""
    return np.log1p(np.clip(np.asarray(values, dtype=np.float64), 0, None))
