"""MLP on static (graph-level) features only — the weakest reference of the TraPPM comparison
(SPEC §4: MSE, Adam lr 1e-3, 100 epochs). It shows how much the graph structure adds."""

from __future__ import annotations

import numpy as np

from sklearn.preprocessing import StandardScaler

from perfgraphs.baselines.common import (
    BaselineRegressor, NotFittedError, TargetTransform, as_targets, mlp, resolve, squeeze_targets, torch_seeded,
    validated,
)


class StaticMLP(BaselineRegressor):
    """``fit(X (n, S), y (n,) | (n, T))`` / ``predict(X)``; targets in log space when ``log_target``.

    ``None`` hyper-parameters take the paper value, or the CI value when ``quick`` (20 epochs).
    Full-batch training below ``batch_size`` samples, mini-batches (seeded shuffle) above.
    """

    def __init__(self, hidden_dims: tuple[int, ...] = (512, 512), dropout: float = 0.0, lr: float = 1e-3,
                 epochs: int | None = None, batch_size: int = 32, quick: bool = False, seed: int = 0,
                 log_target: bool = True):
        self.hidden_dims = hidden_dims
        self.dropout = dropout
        self.lr = lr
        self.epochs = epochs
        self.batch_size = batch_size
        self.quick = quick
        self.seed = seed
        self.log_target = log_target

    def fit(self, X, y) -> "StaticMLP":
        import torch

        X, y = validated(self, X, y)
        y = as_targets(y)
        self.x_scaler_ = StandardScaler().fit(X)
        self.target_transform_ = TargetTransform.fit(y, self.log_target)
        xt = torch.as_tensor(self.x_scaler_.transform(X), dtype=torch.float32)
        zt = torch.as_tensor(self.target_transform_.transform(y), dtype=torch.float32)
        epochs = resolve(self.epochs, self.quick, 100, 20)
        gen = torch.Generator().manual_seed(self.seed)
        with torch_seeded(self.seed):
            self.module_ = mlp([X.shape[1], *self.hidden_dims, y.shape[1]], self.dropout)
            opt = torch.optim.Adam(self.module_.parameters(), lr=self.lr)
            self.module_.train()
            for _ in range(epochs):
                order = torch.randperm(len(xt), generator=gen)
                for start in range(0, len(xt), self.batch_size):
                    idx = order[start:start + self.batch_size]
                    opt.zero_grad()
                    loss = torch.nn.functional.mse_loss(self.module_(xt[idx]), zt[idx])
                    loss.backward()
                    opt.step()
            self.module_.eval()
        self.n_targets_ = y.shape[1]
        return self

    def predict(self, X) -> np.ndarray:
        import torch

        if not hasattr(self, "module_"):
            raise NotFittedError("StaticMLP.predict called before fit")
        xt = torch.as_tensor(self.x_scaler_.transform(validated(self, X, reset=False)), dtype=torch.float32)
        with torch.no_grad():
            z = self.module_(xt).double().numpy()
        return squeeze_targets(self.target_transform_.inverse(z), self.n_targets_)
