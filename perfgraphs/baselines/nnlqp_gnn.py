"""NNLQP-style supervised GNN (SPEC §4): stacked SAGEConv layers over the operator graph, a
sum-pooled graph embedding (latency is roughly additive over operators, so sum keeps graph size
information that a mean would discard) concatenated with an embedding of the static features,
then an FC head. The TraPPM comparison kept this architecture and swapped in TraPPM node
features: here the featurizer is whatever ``to_pyg`` was called with.

Layer counts are our reading of NNLQP (6 graph layers, hidden 512); ``quick`` uses 3 layers,
hidden 64 and 30 epochs.
"""

from __future__ import annotations

from perfgraphs.baselines.common import GraphEstimator, resolve, sum_pooled_sage


def _module(node_dim: int, static_dim: int, n_targets: int, hidden: int, layers: int, dropout: float):
    # LayerNorm after every SAGE layer; a narrow static embedding (hidden / 4); head FC hidden
    return sum_pooled_sage(node_dim, static_dim, n_targets, hidden=hidden, layers=layers, dropout=dropout,
                           layer_norm=True, static_width=hidden // 4, fc_hidden=hidden)


class NNLQPGNN(GraphEstimator):
    """``fit(graphs, y=None)`` / ``predict(graphs)`` (graphs: see :class:`GraphEstimator`); multi-target capable."""

    def __init__(self, hidden_dim: int | None = None, num_layers: int | None = None, dropout: float = 0.05,
                 lr: float = 1e-3, epochs: int | None = None, batch_size: int = 16, quick: bool = False,
                 seed: int = 0, log_target: bool = True):
        self.hidden_dim = hidden_dim
        self.num_layers = num_layers
        self.dropout = dropout
        self.lr = lr
        self.epochs = epochs
        self.batch_size = batch_size
        self.quick = quick
        self.seed = seed
        self.log_target = log_target

    def _build_module(self, node_dim: int, static_dim: int, n_targets: int):
        return _module(node_dim, static_dim, n_targets, resolve(self.hidden_dim, self.quick, 512, 64),
                       resolve(self.num_layers, self.quick, 6, 3), self.dropout)
