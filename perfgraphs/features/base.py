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
        x = np.asarray(self._node(graph), dtype=np.float64)
        if x.shape != (graph.num_nodes, self.node_dim):
            raise AssertionError(f"{self.id}: node features {x.shape}, expected ({graph.num_nodes}, {self.node_dim})")
        return x.astype(np.float32)

    def static_features(self, graph: PerfGraph) -> np.ndarray:
        s = np.asarray(self._static(graph.static_features()), dtype=np.float64)
        if s.shape != (self.static_dim,):
            raise AssertionError(f"{self.id}: static features {s.shape}, expected ({self.static_dim},)")
        return s.astype(np.float32)

    def static_features_table(self, facts: dict[str, np.ndarray]) -> np.ndarray:
        """(num_graphs, static_dim) from columns of static facts, one entry per graph."""
        s = np.asarray(self._static({k: np.asarray(v, dtype=np.float64) for k, v in facts.items()}), dtype=np.float64)
        return s.T.astype(np.float32).reshape(-1, self.static_dim)


def one_hot(indices: np.ndarray, width: int) -> np.ndarray:
    out = np.zeros((len(indices), width), dtype=np.float64)
    out[np.arange(len(indices)), indices] = 1.0
    return out


def log1p_nonneg(values: np.ndarray) -> np.ndarray:
    """log1p of non-negative values; unknown (negative) entries become 0."""
    return np.log1p(np.clip(np.asarray(values, dtype=np.float64), 0, None))
