"""Shared plumbing of the reference predictors: input conversion, target/feature scaling, seeding,
and one mini-batch training loop for the graph models.

Targets are trained in log space where positive (latency, memory, energy span orders of
magnitude; a model fitted on raw values would only care about the largest graphs) and
standardised, and predictions are mapped back with ``exp``, so they are always positive.
Static features are standardised with statistics of the training set only.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from perfgraphs.errors import PerfgraphsError


class BaselineInputError(PerfgraphsError):
    """Training data a baseline cannot use (shapes, non-finite or non-positive log-space targets)."""


class NotFittedError(PerfgraphsError):
    """``predict`` called before ``fit``."""


def resolve(explicit, quick: bool, paper, quick_value):
    """Hyper-parameter value: explicit constructor kwarg > quick (CI) default > paper default."""
    if explicit is not None:
        return explicit
    return quick_value if quick else paper


def as_targets(y) -> np.ndarray:
    """(n,) or (n, T) array-like → (n, T) float64."""
    if hasattr(y, "detach"):
        y = y.detach().cpu().numpy()
    y = np.asarray(y, dtype=np.float64)
    if y.ndim == 1:
        y = y[:, None]
    if y.ndim != 2:
        raise BaselineInputError(f"targets must have shape (n,) or (n, T), got {y.shape}")
    if not np.isfinite(y).all():
        raise BaselineInputError("targets contain NaN or inf")
    return y


def as_features(X) -> np.ndarray:
    if hasattr(X, "detach"):
        X = X.detach().cpu().numpy()
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise BaselineInputError(f"static features must have shape (n, S), got {X.shape}")
    if not np.isfinite(X).all():
        raise BaselineInputError("static features contain NaN or inf")
    return X


def static_arrays(pyg_dataset) -> tuple[np.ndarray, np.ndarray | None]:
    """``(static (n, S), y (n, T) or None)`` of a dataset made by :func:`perfgraphs.data.load.to_pyg`."""
    static = np.concatenate([d.static.numpy() for d in pyg_dataset], axis=0).astype(np.float64)
    has_y = len(pyg_dataset) > 0 and getattr(pyg_dataset[0], "y", None) is not None
    y = np.concatenate([d.y.numpy() for d in pyg_dataset], axis=0).astype(np.float64) if has_y else None
    return static, y


def graph_targets(pyg_dataset, y=None) -> np.ndarray:
    """Targets for graph baselines: ``y`` if given, else the dataset's own ``y`` column."""
    if y is not None:
        out = as_targets(y)
    else:
        _, out = static_arrays(pyg_dataset)
        if out is None:
            raise BaselineInputError("dataset has no y: build it with to_pyg(..., targets=[...]) or pass y")
        out = as_targets(out)
    if len(out) != len(pyg_dataset):
        raise BaselineInputError(f"{len(out)} targets for {len(pyg_dataset)} graphs")
    return out


@dataclass
class Standardizer:
    """Column-wise (x − mean) / std; constant columns get std 1 so they map to 0."""

    mean: np.ndarray
    std: np.ndarray

    @classmethod
    def fit(cls, X: np.ndarray) -> "Standardizer":
        std = X.std(axis=0)
        return cls(X.mean(axis=0), np.where(std > 1e-12, std, 1.0))

    def transform(self, X: np.ndarray) -> np.ndarray:
        return (X - self.mean) / self.std

    def inverse(self, Z: np.ndarray) -> np.ndarray:
        return Z * self.std + self.mean


@dataclass
class TargetTransform:
    """log (where ``log_target``) then standardise; :meth:`inverse` maps model outputs back."""

    log_target: bool
    scaler: Standardizer

    @classmethod
    def fit(cls, y: np.ndarray, log_target: bool = True) -> "TargetTransform":
        if log_target and (y <= 0).any():
            raise BaselineInputError(
                f"{int((y <= 0).sum())} non-positive target value(s): log-space training needs y > 0 "
                "(pass log_target=False for signed targets)")
        return cls(log_target, Standardizer.fit(np.log(y) if log_target else y))

    def transform(self, y: np.ndarray) -> np.ndarray:
        return self.scaler.transform(np.log(y) if self.log_target else y)

    def inverse(self, z: np.ndarray) -> np.ndarray:
        out = self.scaler.inverse(np.asarray(z, dtype=np.float64))
        # clip before exp: an untrained/diverged net must not turn into inf predictions
        return np.exp(np.clip(out, -700.0, 700.0)) if self.log_target else out


def squeeze_targets(pred: np.ndarray, n_targets: int) -> np.ndarray:
    """(n,) for a single-target model (as scikit-learn), else (n, T)."""
    return pred[:, 0] if n_targets == 1 else pred


@contextlib.contextmanager
def torch_seeded(seed: int) -> Iterator[None]:
    """Seed torch inside a forked RNG state, so fitting is reproducible and leaves the caller's
    global RNG untouched."""
    import torch

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield


def prepare_graphs(pyg_dataset, static_scaler: Standardizer, z: np.ndarray | None = None) -> list:
    """Copies of the graphs with standardised ``static`` and (for training) targets ``z``."""
    import torch

    items = []
    for i, d in enumerate(pyg_dataset):
        item = d.clone()
        item.static = torch.as_tensor(static_scaler.transform(d.static.double().numpy()), dtype=torch.float32)
        item.x = item.x.float()
        if z is not None:
            item.z = torch.as_tensor(z[i:i + 1], dtype=torch.float32)
        items.append(item)
    return items


def train_graph_model(
    model,
    items: list,
    *,
    epochs: int,
    lr: float,
    batch_size: int,
    loss: str,
    seed: int,
    weight_decay: float = 0.0,
) -> list[float]:
    """Mini-batch Adam on the graphs' standardised targets ``z``; returns the mean loss per epoch.

    The loader shuffles with its own ``torch.Generator``; call inside :func:`torch_seeded` so
    weight init and dropout are reproducible too.
    """
    import torch
    from torch_geometric.loader import DataLoader

    gen = torch.Generator().manual_seed(seed)
    loader = DataLoader(items, batch_size=batch_size, shuffle=True, generator=gen)
    opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=lr, weight_decay=weight_decay)
    loss_fn = {"mse": torch.nn.MSELoss(), "huber": torch.nn.HuberLoss()}[loss]
    history = []
    model.train()
    for _ in range(epochs):
        total, count = 0.0, 0
        for batch in loader:
            opt.zero_grad()
            out = model(batch)
            value = loss_fn(out, batch.z)
            value.backward()
            opt.step()
            total += float(value.detach()) * batch.num_graphs
            count += batch.num_graphs
        history.append(total / max(count, 1))
    model.eval()
    return history


def predict_graph_model(model, items: list, batch_size: int = 64) -> np.ndarray:
    import torch
    from torch_geometric.loader import DataLoader

    model.eval()
    outs = []
    with torch.no_grad():
        for batch in DataLoader(items, batch_size=batch_size, shuffle=False):
            outs.append(model(batch).double().numpy())
    return np.concatenate(outs, axis=0)


class GraphEstimator:
    """fit/predict shell shared by the graph baselines; subclasses provide :meth:`_build_module`
    and the ``_hparams`` (epochs, lr, batch_size, loss, weight_decay) they train with.

    ``fit(pyg_dataset, y=None)`` takes targets from the dataset's ``y`` unless given;
    ``predict(pyg_dataset)`` returns (n,) for one target, (n, T) for several, on the original scale.
    """

    seed: int
    log_target: bool

    def _hparams(self) -> dict:
        raise NotImplementedError

    def _build_module(self, node_dim: int, static_dim: int, n_targets: int):
        raise NotImplementedError

    def _augment(self, items: list) -> list:
        """Hook: attach precomputed per-graph tensors (TraPPM's frozen embeddings)."""
        return items

    def fit(self, pyg_dataset, y=None):
        targets = graph_targets(pyg_dataset, y)
        static, _ = static_arrays(pyg_dataset)
        self.static_scaler_ = Standardizer.fit(static)
        self.target_transform_ = TargetTransform.fit(targets, self.log_target)
        z = self.target_transform_.transform(targets)
        items = self._augment(prepare_graphs(pyg_dataset, self.static_scaler_, z))
        h = self._hparams()
        with torch_seeded(self.seed):
            self.module_ = self._build_module(items[0].x.shape[1], static.shape[1], targets.shape[1])
            self.loss_history_ = train_graph_model(
                self.module_, items, epochs=h["epochs"], lr=h["lr"], batch_size=h["batch_size"],
                loss=h["loss"], seed=self.seed, weight_decay=h.get("weight_decay", 0.0))
        self.n_targets_ = targets.shape[1]
        return self

    def predict(self, pyg_dataset) -> np.ndarray:
        if not hasattr(self, "module_"):
            raise NotFittedError(f"{type(self).__name__}.predict called before fit")
        items = self._augment(prepare_graphs(pyg_dataset, self.static_scaler_))
        z = predict_graph_model(self.module_, items)
        return squeeze_targets(self.target_transform_.inverse(z), self.n_targets_)


def mlp(dims: list[int], dropout: float, final_activation: bool = False):
    """Linear → ReLU → Dropout blocks; the last Linear is bare unless ``final_activation``."""
    from torch import nn

    layers: list = []
    for i, (a, b) in enumerate(zip(dims[:-1], dims[1:])):
        layers.append(nn.Linear(a, b))
        if i < len(dims) - 2 or final_activation:
            layers += [nn.ReLU(), nn.Dropout(dropout)]
    return nn.Sequential(*layers)


def signed_log1p(t):
    """sign(t)·log1p(|t|): keeps sum-pooled embeddings of 10- and 5000-node graphs in one range."""
    import torch

    return torch.sign(t) * torch.log1p(t.abs())
