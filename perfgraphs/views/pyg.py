"""PyTorch Geometric view of one :class:`PerfGraph`: ``Data(x, edge_index, static, y)``.

The public entry is :func:`perfgraphs.to_pyg`, which takes a graph or a loaded split."""

from __future__ import annotations

from typing import Sequence

from perfgraphs.features import get_featurizer
from perfgraphs.graph.ir import PerfGraph
from perfgraphs.registry import TRAPPM


def graph_data(graph: PerfGraph, featurizer: str = TRAPPM, y: Sequence[float] | None = None):
    """``static`` has shape (1, static_dim) and ``y`` (1, num_targets) so that PyG batching
    stacks them per graph."""
    import torch
    from torch_geometric.data import Data

    feat = get_featurizer(featurizer)
    data = Data(
        x=torch.from_numpy(feat.node_features(graph)),
        edge_index=torch.from_numpy(graph.edge_index.copy()),
        static=torch.from_numpy(feat.static_features(graph)).unsqueeze(0),
        num_nodes=graph.num_nodes,
    )
    if y is not None:
        data.y = torch.tensor([list(map(float, y))], dtype=torch.float32)
    return data
