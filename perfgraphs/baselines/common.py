"""Shared plumbing of the reference predictors: input conversion, target/feature scaling, seeding,
and one mini-batch training loop for the graph models.

Targets are trained in log space where positive (latency, memory, energy span orders of
magnitude; a model fitted on raw values would only care about the largest graphs) and
standardised, and predictions are mapped back with ``exp``, so they are always positive.
Static features are standardised with statistics of the training set only (scikit-learn's
``StandardScaler``).

Every baseline is a scikit-learn estimator (:class:`BaselineRegressor`): parameters are the
constructor's keywords, fitted state ends in ``_``, so ``clone``, ``Pipeline``,
``cross_val_score`` and ``GridSearchCV`` work. The static-feature models validate ``X`` with
scikit-learn's ``validate_data``; the graph models take ``X`` = a sequence of PyG ``Data`` (see
:class:`GraphEstimator` for that input adapter).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Iterator

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import NotFittedError as SklearnNotFittedError
from sklearn.preprocessing import StandardScaler
from sklearn.utils.validation import validate_data

from perfgraphs.errors import PerfgraphsError


class BaselineInputError(PerfgraphsError, ValueError):
    """Training data a baseline cannot use (shapes, non-finite or non-positive log-space targets).

    A ``ValueError`` too, as scikit-learn's own input errors, so its utilities and checks that
    expect one (``check_estimator``, error_score handling) see the usual type."""


class NotFittedError(PerfgraphsError, SklearnNotFittedError):
    """``predict`` called before ``fit`` (scikit-learn's ``NotFittedError`` too)."""


class BaselineRegressor(RegressorMixin, BaseEstimator):
    """scikit-learn contract shared by the baselines: several target columns train several
    outputs, and targets must be positive while ``log_target`` (true by default) holds."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        tags.target_tags.positive_only = bool(getattr(self, "log_target", False))
        return tags


class BaselineInputTypeError(BaselineInputError, TypeError):
    """Input of the wrong kind (sparse, objects that are not numbers): a ``TypeError`` too, as
    scikit-learn raises it."""


def validated(estimator, X, y="no_validation", reset: bool = True):
    """scikit-learn's ``validate_data`` on float64 2-D ``X`` (and ``y``, multi-output allowed;
    ``fit`` passes its ``y`` even when None, so a missing one is refused with scikit-learn's
    message). Sets (``reset``) or checks ``n_features_in_``; its errors come back as
    :class:`BaselineInputError` (or :class:`BaselineInputTypeError`) with scikit-learn's text."""
    if hasattr(X, "detach"):
        X = X.detach().cpu().numpy()
    if hasattr(y, "detach"):
        y = y.detach().cpu().numpy()
    try:
        if isinstance(y, str) and y == "no_validation":
            return validate_data(estimator, X, reset=reset, dtype=np.float64)
        return validate_data(estimator, X, y, reset=reset, dtype=np.float64, multi_output=True, y_numeric=True)
    except BaselineInputError:
        raise
    except TypeError as exc:
        raise BaselineInputTypeError(str(exc)) from exc
    except ValueError as exc:
        raise BaselineInputError(str(exc)) from exc


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
class TargetTransform:
    """log (where ``log_target``) then standardise; :meth:`inverse` maps model outputs back.
    (Not ``TransformedTargetRegressor``: the clip before ``exp`` and the refusal of
    non-positive targets are part of every baseline, not an option of the caller.)"""

    log_target: bool
    scaler: StandardScaler

    @classmethod
    def fit(cls, y: np.ndarray, log_target: bool = True) -> "TargetTransform":
        if log_target and (y <= 0).any():
            raise BaselineInputError(
                f"{int((y <= 0).sum())} non-positive target value(s): log-space training needs y > 0 "
                "(pass log_target=False for signed targets)")
        return cls(log_target, StandardScaler().fit(np.log(y) if log_target else y))

    def transform(self, y: np.ndarray) -> np.ndarray:
        return self.scaler.transform(np.log(y) if self.log_target else y)

    def inverse(self, z: np.ndarray) -> np.ndarray:
        out = self.scaler.inverse_transform(np.asarray(z, dtype=np.float64))
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


def prepare_graphs(pyg_dataset, static_scaler: StandardScaler, z: np.ndarray | None = None) -> list:
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


def graph_inputs(pyg_dataset, targets: bool = True):
    """The input adapter of the graph baselines for scikit-learn utilities: ``(X, y)`` with ``X``
    a plain list of the dataset's PyG ``Data`` graphs (scikit-learn indexes lists, so
    ``GridSearchCV``, ``cross_val_score`` and ``Pipeline`` slice it per fold) and ``y`` their
    targets, (n,) for one column, (n, T) for several; ``targets=False``: ``y`` is None."""
    graphs = list(pyg_dataset)
    if not targets:
        return graphs, None
    y = graph_targets(graphs)
    return graphs, squeeze_targets(y, y.shape[1])


def check_graphs(X) -> list:
    """``X`` of a graph baseline as a list of PyG ``Data`` with ``x``, ``edge_index`` and ``static``."""
    if isinstance(X, np.ndarray) or not hasattr(X, "__len__"):
        raise BaselineInputError(f"graph baselines take a sequence of PyG Data graphs (see graph_inputs), "
                                 f"got {type(X).__name__}")
    graphs = list(X)
    if not graphs:
        raise BaselineInputError("no graphs: found 0 sample(s)")
    missing = [k for k in ("x", "edge_index", "static") if getattr(graphs[0], k, None) is None]
    if missing:
        raise BaselineInputError(f"graph baselines take PyG Data made by to_pyg; the first graph has no "
                                 f"{', '.join(missing)}")
    return graphs


class GraphEstimator(BaselineRegressor):
    """fit/predict shell shared by the graph baselines; subclasses provide :meth:`_build_module`
    and the ``_hparams`` (epochs, lr, batch_size, loss, weight_decay) they train with.

    ``fit(X, y=None)``: ``X`` is a sequence of PyG ``Data`` (a dataset made by
    :func:`perfgraphs.data.load.to_pyg`, or the list :func:`graph_inputs` returns); targets come
    from the graphs' own ``y`` unless given. ``predict(X)`` returns (n,) for one target, (n, T)
    for several, on the original scale.
    """

    def _hparams(self) -> dict:
        # the supervised GNNs of the research: MSE, Adam at ``lr``, 100 epochs (quick: 30)
        return {"epochs": resolve(self.epochs, self.quick, 100, 30), "lr": self.lr,
                "batch_size": self.batch_size, "loss": "mse"}

    def _build_module(self, node_dim: int, static_dim: int, n_targets: int):
        raise NotImplementedError

    def _augment(self, items: list) -> list:
        """Hook: attach precomputed per-graph tensors (TraPPM's frozen embeddings)."""
        return items

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False  # X is a sequence of graphs, not a matrix
        return tags

    def _fit_module(self, graphs: list, targets: np.ndarray) -> None:
        static, _ = static_arrays(graphs)
        self.static_scaler_ = StandardScaler().fit(static)
        self.target_transform_ = TargetTransform.fit(targets, self.log_target)
        z = self.target_transform_.transform(targets)
        items = self._augment(prepare_graphs(graphs, self.static_scaler_, z))
        h = self._hparams()
        self.dims_ = (items[0].x.shape[1], static.shape[1], targets.shape[1])  # what the module is built with
        with torch_seeded(self.seed):
            self.module_ = self._build_module(*self.dims_)
            self.loss_history_ = train_graph_model(
                self.module_, items, epochs=h["epochs"], lr=h["lr"], batch_size=h["batch_size"],
                loss=h["loss"], seed=self.seed, weight_decay=h.get("weight_decay", 0.0))
        self.n_targets_ = targets.shape[1]

    def fit(self, X, y=None):
        graphs = check_graphs(X)
        self._fit_module(graphs, graph_targets(graphs, y))
        return self

    def fitted_state(self) -> dict[str, np.ndarray]:
        """The fitted network as numbers (:mod:`perfgraphs.baselines.fitted_state`): the sizes it was
        built with, the static features' and the targets' scaling, the module's weights."""
        if not hasattr(self, "module_"):
            raise NotFittedError(f"{type(self).__name__}.fitted_state called before fit")
        return network_state(self.dims_, self.static_scaler_, self.target_transform_, self.module_)

    def load_fitted_state(self, state: dict[str, np.ndarray]) -> "GraphEstimator":
        """This (unfitted) estimator as the one whose :meth:`fitted_state` ``state`` is: predicts
        what it predicted. Its hyper-parameters must be the writer's (the module is rebuilt from them)."""
        from perfgraphs.baselines import fitted_state as fs

        self.dims_, self.static_scaler_, self.target_transform_, self.module_ = \
            load_network(fs.check_state(state), self._build_module)
        self.n_targets_ = self.dims_[2]
        return self

    def predict(self, X) -> np.ndarray:
        if not hasattr(self, "module_"):
            raise NotFittedError(f"{type(self).__name__}.predict called before fit")
        items = self._augment(prepare_graphs(check_graphs(X), self.static_scaler_))
        z = predict_graph_model(self.module_, items)
        return squeeze_targets(self.target_transform_.inverse(z), self.n_targets_)


def network_state(dims: tuple, static_scaler, target_transform: TargetTransform, module) -> dict[str, np.ndarray]:
    from perfgraphs.baselines import fitted_state as fs

    return {"dims": np.asarray(dims, dtype=np.int64), **fs.prefixed("static_scaler", fs.scaler_state(static_scaler)),
            "target.log": np.asarray(int(target_transform.log_target)),
            **fs.prefixed("target", fs.scaler_state(target_transform.scaler)),
            **fs.prefixed("module", fs.module_state(module))}


def load_network(state: dict[str, np.ndarray], build) -> tuple:
    """(dims, static scaler, target transform, module) of :func:`network_state`'s ``state``;
    ``build(node_dim, static_dim, n_targets)`` makes the module the weights are loaded into."""
    from perfgraphs.baselines import fitted_state as fs

    dims = tuple(fs.dims(state, "dims", 3))
    log = fs.need(state, "target.log")
    transform = TargetTransform(bool(int(log)), fs.load_scaler(fs.part(state, "target")))
    module = fs.load_module(build(*dims), fs.part(state, "module"))
    return dims, fs.load_scaler(fs.part(state, "static_scaler")), transform, module


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


def sum_pooled_sage(node_dim: int, static_dim: int, n_targets: int, *, hidden: int, layers: int, dropout: float,
                    layer_norm: bool, static_width: int, fc_hidden: int):
    """SAGE layers over the operator graph (ReLU, dropout; LayerNorm after each if asked), a
    sum-pooled graph embedding (sign·log1p: sums grow with graph size by orders of magnitude, and
    latency is roughly additive over operators, which a mean would hide), concatenated with the
    static features through FC → ``static_width`` (ReLU, dropout), then FC ``fc_hidden`` → one
    output per target. The NNLQP-style GNN and the LLM study's GNN are two settings of it."""
    import torch
    from torch import nn
    from torch_geometric.nn import SAGEConv, global_add_pool

    class SumPooledSAGE(nn.Module):
        def __init__(self):
            super().__init__()
            self.convs = nn.ModuleList([SAGEConv(node_dim if i == 0 else hidden, hidden) for i in range(layers)])
            if layer_norm:
                self.norms = nn.ModuleList([nn.LayerNorm(hidden) for _ in range(layers)])
            self.dropout = nn.Dropout(dropout)
            self.static_fc = mlp([static_dim, static_width], dropout, final_activation=True)
            self.head = mlp([hidden + static_width, fc_hidden, n_targets], dropout)

        def forward(self, batch):
            h = batch.x
            for k, conv in enumerate(self.convs):
                h = conv(h, batch.edge_index)
                h = self.dropout(torch.relu(self.norms[k](h) if layer_norm else h))
            g = signed_log1p(global_add_pool(h, batch.batch, size=batch.num_graphs))
            return self.head(torch.cat([g, self.static_fc(batch.static)], dim=1))

    return SumPooledSAGE()
