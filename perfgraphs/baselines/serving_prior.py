"""LLM serving predictors that start from the decode-step physics (issue 27).

Both read the model + serving features of ``perfgraphs/llm`` ``mlenergy`` rows
(:func:`perfgraphs.data.llm_features.llm_features`) and compute, per row, the decode-step prior of
:mod:`perfgraphs.features.serving` on the row's GPU (its descriptor,
:mod:`perfgraphs.features.hardware`: bandwidth, matrix peak, TDP).

* :class:`ServingPrior` — physics alone: ``log y = log prior + c``, ``c`` the training rows' median
  log ratio. How far the datasheet and one constant go.
* :class:`ServingPriorBoost` — gradient boosting of ``log(y / prior)`` from the same features with
  the GPU as its descriptor's numbers instead of a one-hot, plus the prior's own terms (log step,
  weight- vs compute-bound), so a model never seen in training starts from its physics.

The target is a constructor argument (it picks which of the prior's three quantities is the base).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin

from perfgraphs.baselines.common import NotFittedError
from perfgraphs.errors import PerfgraphsError

PRIOR_OF_TARGET = {"median_itl_ms": "median_itl_ms", "p90_itl_ms": "median_itl_ms",
                   "output_throughput_tokens_per_sec": "output_throughput_tokens_per_sec",
                   "energy_per_token_joules": "energy_per_token_joules"}


class ServingPriorError(PerfgraphsError):
    """Rows or a target the serving prior cannot serve."""


def serving_terms(X: np.ndarray):
    """The decode-step prior of every row of an ``llm_features`` matrix, and the GPU descriptors."""
    from perfgraphs.data.llm_features import CATEGORIES, feature_names
    from perfgraphs.features.hardware import find_descriptor
    from perfgraphs.features.serving import decode_step

    names = feature_names()
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != len(names):
        raise ServingPriorError(f"the serving prior reads perfgraphs/llm mlenergy features ({len(names)} columns), "
                                f"not a matrix of shape {X.shape}")
    col = {n: i for i, n in enumerate(names)}
    gpus = []
    for row in X:
        hit = [g for g in CATEGORIES["gpu_model"] if row[col[f"gpu_model={g}"]] == 1.0]
        descriptor = find_descriptor(hit[0]) if hit else None
        if descriptor is None:
            raise ServingPriorError("a row's GPU is not one the descriptor table knows "
                                    f"(known here: {', '.join(CATEGORIES['gpu_model'])})")
        gpus.append(descriptor)
    terms = decode_step(total_params=np.exp(X[:, col["log_total_params_billions"]]) * 1e9,
                        activated_params=np.exp(X[:, col["log_activated_params_billions"]]) * 1e9,
                        weight_bits=X[:, col["weight_bits"]], batch=2.0 ** X[:, col["log2_max_num_seqs"]],
                        num_gpus=2.0 ** X[:, col["log2_num_gpus"]], replicas=2.0 ** X[:, col["log2_data_parallel"]],
                        descriptors=gpus)
    return terms, gpus


def _log_prior(X: np.ndarray, target: str) -> tuple[np.ndarray, object, list]:
    if target not in PRIOR_OF_TARGET:
        raise ServingPriorError(f"no serving prior for target {target!r} (targets: {', '.join(PRIOR_OF_TARGET)})")
    terms, gpus = serving_terms(X)
    return np.log(getattr(terms, PRIOR_OF_TARGET[target])), terms, gpus


class ServingPrior(RegressorMixin, BaseEstimator):
    def __init__(self, target: str = "median_itl_ms"):
        self.target = target

    def fit(self, X, y, X_val=None, y_val=None):
        log_prior, _, _ = _log_prior(X, self.target)
        self.offset_ = float(np.median(np.log(np.asarray(y, dtype=float)) - log_prior))
        self.coef_ = np.array([self.offset_])  # its one learned number, as the catalog counts parameters
        return self

    def predict(self, X) -> np.ndarray:
        if not hasattr(self, "offset_"):
            raise NotFittedError("ServingPrior.predict called before fit")
        return np.exp(_log_prior(X, self.target)[0] + self.offset_)


class ServingPriorBoost(RegressorMixin, BaseEstimator):
    def __init__(self, target: str = "median_itl_ms", max_iter: int = 300, learning_rate: float = 0.05,
                 max_leaf_nodes: int = 15, min_samples_leaf: int = 10, seed: int = 0, quick: bool = False):
        self.target = target
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.max_leaf_nodes = max_leaf_nodes
        self.min_samples_leaf = min_samples_leaf
        self.seed = seed
        self.quick = quick

    def _inputs(self, X) -> tuple[np.ndarray, np.ndarray]:
        from perfgraphs.data.llm_features import feature_names

        log_prior, terms, gpus = _log_prior(X, self.target)
        keep = [i for i, n in enumerate(feature_names()) if not n.startswith("gpu_model=")]
        hardware = np.array([[np.log(d.memory_bandwidth_gb_per_s), np.log(d.peak_gflop_per_s("bf16", True)),
                              np.log(d.tdp_w or np.nan), np.log(d.memory_gb or np.nan)] for d in gpus])
        physics = np.column_stack([np.log(terms.step_ms), np.log(terms.weight_ms / terms.compute_ms)])
        return np.column_stack([np.asarray(X, float)[:, keep], hardware, physics]), log_prior

    def fit(self, X, y, X_val=None, y_val=None):
        from sklearn.ensemble import HistGradientBoostingRegressor

        if X_val is not None and len(X_val):  # no selection: the validation rows train too
            X, y = np.vstack([X, X_val]), np.concatenate([np.asarray(y, float), np.asarray(y_val, float)])
        Z, log_prior = self._inputs(X)
        self.model_ = HistGradientBoostingRegressor(
            max_iter=self.max_iter, learning_rate=self.learning_rate, max_leaf_nodes=self.max_leaf_nodes,
            min_samples_leaf=self.min_samples_leaf, random_state=self.seed)
        self.model_.fit(Z, np.log(np.asarray(y, dtype=float)) - log_prior)
        return self

    def predict(self, X) -> np.ndarray:
        if not hasattr(self, "model_"):
            raise NotFittedError("ServingPriorBoost.predict called before fit")
        Z, log_prior = self._inputs(X)
        return np.exp(self.model_.predict(Z) + log_prior)
