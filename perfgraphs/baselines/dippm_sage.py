"""DIPPM's GraphSAGE predictor (SPEC §4): 3 SAGEConv blocks → mean-pooled graph embedding ⊕ static
features → 3 FC blocks → one output per target (latency, energy, memory in the paper, so it is
multi-target). Hidden 512, dropout 0.05, Adam lr 2.754e-5, Huber loss.

The paper reports "long training" without an epoch count; at that small learning rate we default
to 500 epochs (our choice). ``quick`` (CI) uses 30 epochs, hidden 64 and lr 1e-3 so a smoke run
actually moves the weights. Graph embedding = mean pool (our reading of DIPPM).
"""

from __future__ import annotations

from perfgraphs.baselines.common import GraphEstimator, mlp, resolve


def _module(node_dim: int, static_dim: int, n_targets: int, hidden: int, dropout: float):
    import torch
    from torch import nn
    from torch_geometric.nn import SAGEConv, global_mean_pool

    class DIPPMNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.convs = nn.ModuleList([SAGEConv(node_dim if i == 0 else hidden, hidden) for i in range(3)])
            self.dropout = nn.Dropout(dropout)
            self.head = mlp([hidden + static_dim, hidden, hidden // 2, n_targets], dropout)

        def forward(self, batch):
            h = batch.x
            for conv in self.convs:
                h = self.dropout(torch.relu(conv(h, batch.edge_index)))
            g = global_mean_pool(h, batch.batch, size=batch.num_graphs)
            return self.head(torch.cat([g, batch.static], dim=1))

    return DIPPMNet()


class DIPPMSage(GraphEstimator):
    """``fit(graphs, y=None)`` / ``predict(graphs)`` (graphs: see :class:`GraphEstimator`);
    ``y`` (n, T) trains T outputs."""

    def __init__(self, hidden_dim: int | None = None, dropout: float = 0.05, lr: float | None = None,
                 epochs: int | None = None, batch_size: int = 16, quick: bool = False, seed: int = 0,
                 log_target: bool = True):
        self.hidden_dim = hidden_dim
        self.dropout = dropout
        self.lr = lr
        self.epochs = epochs
        self.batch_size = batch_size
        self.quick = quick
        self.seed = seed
        self.log_target = log_target

    def _hparams(self) -> dict:
        return {"epochs": resolve(self.epochs, self.quick, 500, 30),
                "lr": resolve(self.lr, self.quick, 2.754e-5, 1e-3),
                "batch_size": self.batch_size, "loss": "huber"}

    def _build_module(self, node_dim: int, static_dim: int, n_targets: int):
        return _module(node_dim, static_dim, n_targets, resolve(self.hidden_dim, self.quick, 512, 64), self.dropout)
