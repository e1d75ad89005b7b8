"""TraPPM (SPEC §4): a graph auto-encoder pre-trained on unlabeled graphs, then frozen, feeding a
small supervised GraphSAGE regressor.

Phase 1 (:meth:`TraPPM.fit_autoencoder`): encoder = 4 SAGEConv layers with BatchNorm, ReLU and
dropout 0.5 between them → 512-d node embeddings Z; decoder = σ(z_i · z_j); loss = BCE on the
graph's edges (positives) and as many negative-sampled node pairs of the same graph, with
ε = 1e-15 inside the logs; Adam lr 5e-4, 400 epochs. Why: unlabeled graphs are cheap (no
measurement), so the structure prior comes from many more graphs than have labels.

Phase 2 (:meth:`TraPPM.fit`): the encoder is frozen and its sum-pooled node embeddings are
computed once per graph; regressor = 2 SAGEConv (ReLU, dropout 0.05) → sum pool ⊕ pooled GAE
embedding ⊕ static → 2 FC (ReLU, dropout 0.05) → 1; MSE, Adam lr 1e-3, 100 epochs. One model
per target column, as in the paper.

Deviations, documented: pooled sums enter as sign·log1p (graph sizes here span three orders
of magnitude); negative pairs are drawn uniformly within each graph without rejecting true edges
(computation graphs are sparse: a collision is rare and only adds label noise). ``fit`` without a
prior ``fit_autoencoder`` pre-trains on the training graphs themselves (their labels unused).
"""

from __future__ import annotations

import numpy as np

from perfgraphs.baselines.common import (
    GraphEstimator, NotFittedError, check_graphs, graph_targets, mlp, predict_graph_model, prepare_graphs, resolve,
    load_network, network_state, signed_log1p, torch_seeded,
)

EPS = 1e-15


def _encoder(node_dim: int, hidden: int, dropout: float):
    import torch
    from torch import nn
    from torch_geometric.nn import SAGEConv

    class GAEEncoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.convs = nn.ModuleList([SAGEConv(node_dim if i == 0 else hidden, hidden) for i in range(4)])
            self.norms = nn.ModuleList([nn.BatchNorm1d(hidden) for _ in range(3)])
            self.dropout = nn.Dropout(dropout)

        def forward(self, x, edge_index):
            for conv, norm in zip(self.convs[:-1], self.norms):
                x = self.dropout(torch.relu(norm(conv(x, edge_index))))
            return self.convs[-1](x, edge_index)

    return GAEEncoder()


def _negative_pairs(batch, generator) -> "torch.Tensor":
    """One random (i, j) node pair per edge, both inside the edge's own graph."""
    import torch

    src = batch.edge_index[0]
    g = batch.batch[src]
    start = batch.ptr[g]
    size = batch.ptr[g + 1] - start
    rand = torch.rand(2, src.numel(), generator=generator)
    return start + (rand * size).long().clamp(max=size - 1)


def reconstruction_loss(z, edge_index, neg_index):
    """BCE of the inner-product decoder σ(z_i·z_j) on positive and negative pairs."""
    import torch

    pos = torch.sigmoid((z[edge_index[0]] * z[edge_index[1]]).sum(-1))
    neg = torch.sigmoid((z[neg_index[0]] * z[neg_index[1]]).sum(-1))
    return -(pos + EPS).log().mean() - (1 - neg + EPS).log().mean()


def _regressor(node_dim: int, static_dim: int, gae_dim: int, hidden: int, dropout: float):
    import torch
    from torch import nn
    from torch_geometric.nn import SAGEConv, global_add_pool

    class TraPPMNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.convs = nn.ModuleList([SAGEConv(node_dim if i == 0 else hidden, hidden) for i in range(2)])
            self.dropout = nn.Dropout(dropout)
            self.head = mlp([hidden + gae_dim + static_dim, hidden, hidden // 2, 1], dropout)

        def forward(self, batch):
            h = batch.x
            for conv in self.convs:
                h = self.dropout(torch.relu(conv(h, batch.edge_index)))
            g = signed_log1p(global_add_pool(h, batch.batch, size=batch.num_graphs))
            return self.head(torch.cat([g, batch.gae, batch.static], dim=1))

    return TraPPMNet()


class TraPPM(GraphEstimator):
    """``fit_autoencoder(unlabeled_pyg)`` then ``fit(pyg_dataset, y=None)`` / ``predict(pyg_dataset)``.

    ``quick`` (CI): embedding/hidden 64, 20 auto-encoder epochs, 30 regressor epochs.
    """

    def __init__(self, embedding_dim: int | None = None, hidden_dim: int | None = None,
                 gae_dropout: float = 0.5, gae_lr: float = 5e-4, gae_epochs: int | None = None,
                 dropout: float = 0.05, lr: float = 1e-3, epochs: int | None = None, batch_size: int = 16,
                 quick: bool = False, seed: int = 0, log_target: bool = True):
        self.embedding_dim = embedding_dim
        self.hidden_dim = hidden_dim
        self.gae_dropout = gae_dropout
        self.gae_lr = gae_lr
        self.gae_epochs = gae_epochs
        self.dropout = dropout
        self.lr = lr
        self.epochs = epochs
        self.batch_size = batch_size
        self.quick = quick
        self.seed = seed
        self.log_target = log_target

    # -- phase 1 ---------------------------------------------------------------------------
    def fit_autoencoder(self, pyg_dataset) -> "TraPPM":
        import torch
        from torch_geometric.loader import DataLoader

        items = [d.clone() for d in pyg_dataset]
        for item in items:
            item.x = item.x.float()
        gen = torch.Generator().manual_seed(self.seed)
        loader = DataLoader(items, batch_size=32, shuffle=True, generator=gen)
        with torch_seeded(self.seed):
            self.encoder_ = _encoder(items[0].x.shape[1], resolve(self.embedding_dim, self.quick, 512, 64),
                                     self.gae_dropout)
            opt = torch.optim.Adam(self.encoder_.parameters(), lr=self.gae_lr)
            self.gae_loss_history_ = []
            self.encoder_.train()
            for _ in range(resolve(self.gae_epochs, self.quick, 400, 20)):
                total, count = 0.0, 0
                for batch in loader:
                    opt.zero_grad()
                    z = self.encoder_(batch.x, batch.edge_index)
                    loss = reconstruction_loss(z, batch.edge_index, _negative_pairs(batch, gen))
                    loss.backward()
                    opt.step()
                    total, count = total + float(loss.detach()) * batch.num_graphs, count + batch.num_graphs
                self.gae_loss_history_.append(total / count)
        self.encoder_.eval()
        for p in self.encoder_.parameters():
            p.requires_grad_(False)
        return self

    def graph_embeddings(self, pyg_dataset) -> np.ndarray:
        """(n, embedding_dim) sum-pooled frozen GAE embeddings (sign·log1p-compressed)."""
        if not hasattr(self, "encoder_"):
            raise NotFittedError("TraPPM auto-encoder is not trained: call fit_autoencoder first")
        return np.concatenate([e.numpy() for e in self._embed([d for d in pyg_dataset])], axis=0)

    def _embed(self, items: list) -> list:
        import torch

        self.encoder_.eval()
        with torch.no_grad():
            return [signed_log1p(self.encoder_(d.x.float(), d.edge_index).sum(0, keepdim=True)) for d in items]

    # -- phase 2 ---------------------------------------------------------------------------
    def _augment(self, items: list) -> list:
        for item, emb in zip(items, self._embed(items)):
            item.gae = emb
        return items

    def _build_module(self, node_dim: int, static_dim: int, n_targets: int):
        return _regressor(node_dim, static_dim, self.encoder_.convs[-1].out_channels,
                          resolve(self.hidden_dim, self.quick, 512, 64), self.dropout)

    def fit(self, X, y=None) -> "TraPPM":
        """Phase 2 on graphs ``X`` (see :class:`GraphEstimator`); an encoder from an earlier
        :meth:`fit_autoencoder` is kept (the two-phase protocol), else one is pre-trained on ``X``
        first. ``clone`` drops a pre-trained encoder with the rest of the fitted state, so inside
        ``GridSearchCV`` / ``cross_val_score`` every fold pre-trains on its own training graphs."""
        graphs = check_graphs(X)
        if not hasattr(self, "encoder_"):
            self.fit_autoencoder(graphs)
        targets = graph_targets(graphs, y)
        self.per_target_ = []
        for t in range(targets.shape[1]):
            self._fit_module(graphs, targets[:, t:t + 1])
            self.per_target_.append((self.module_, self.static_scaler_, self.target_transform_))
        return self

    def fitted_state(self) -> dict[str, np.ndarray]:
        """The frozen encoder and each target's regressor as numbers (see
        :meth:`GraphEstimator.fitted_state`): ``encoder.*`` with its sizes, ``target<t>.*`` per column."""
        from perfgraphs.baselines import fitted_state as fs

        if not hasattr(self, "per_target_"):
            raise NotFittedError("TraPPM.fitted_state called before fit")
        first = self.encoder_.convs[0]
        state = {"encoder_dims": np.asarray([first.in_channels, first.out_channels], dtype=np.int64),
                 "n_targets": np.asarray(len(self.per_target_), dtype=np.int64),
                 **fs.prefixed("encoder", fs.module_state(self.encoder_))}
        for t, (module, scaler, transform) in enumerate(self.per_target_):
            dims = (self.dims_[0], self.dims_[1], 1)
            state.update(fs.prefixed(f"target{t}", network_state(dims, scaler, transform, module)))
        return state

    def load_fitted_state(self, state: dict[str, np.ndarray]) -> "TraPPM":
        from perfgraphs.baselines import fitted_state as fs

        state = fs.check_state(state)
        node_dim, embedding = fs.dims(state, "encoder_dims", 2)
        self.encoder_ = fs.load_module(_encoder(node_dim, embedding, self.gae_dropout), fs.part(state, "encoder"))
        for p in self.encoder_.parameters():
            p.requires_grad_(False)
        n_targets = int(fs.need(state, "n_targets"))
        if not 1 <= n_targets <= 64:
            raise fs.FittedStateError(f"the state's n_targets {n_targets} is not 1-64")
        self.per_target_ = []
        for t in range(n_targets):
            dims, scaler, transform, module = load_network(fs.part(state, f"target{t}"), self._build_module)
            self.per_target_.append((module, scaler, transform))
        self.dims_, self.module_, self.static_scaler_, self.target_transform_ = dims, module, scaler, transform
        self.n_targets_ = n_targets
        return self

    def predict(self, X) -> np.ndarray:
        if not hasattr(self, "per_target_"):
            raise NotFittedError("TraPPM.predict called before fit")
        graphs = check_graphs(X)
        cols = []
        for module, scaler, transform in self.per_target_:
            items = self._augment(prepare_graphs(graphs, scaler))
            cols.append(transform.inverse(predict_graph_model(module, items))[:, 0])
        return cols[0] if len(cols) == 1 else np.stack(cols, axis=1)
