"""Example leaderboard submission: ridge regression of log(latency) on log static graph features.

Six numbers per graph (batch size, nodes, edges, MACs, parameters, bytes moved; the ``trappm``
featurizer's static part, already log1p-scaled) and a linear model in log space, i.e. latency as
a product of powers of those quantities. No graph structure, no training loop: the point is the
interface, and a floor any learned predictor should beat.

The interface the harness calls (one fresh process per seed):

    Predictor(target=..., seed=..., quick=...)   # keywords the constructor accepts
    .fit(train, val)        # Hugging Face parts with labels (val: for model selection only)
    .predict(graphs)        # test inputs, no label columns -> array of shape (len(graphs),)
    .config                 # optional: hyper-parameters actually used (checked against submission.yaml)
    .state() / .load_state(state)   # optional: the fitted model as {name: numeric array} and back,
                                    # for frozen fits (`perfgraphs submit --freeze`, RULES.md)
"""

from __future__ import annotations

import numpy as np

from perfgraphs.data.load import static_features


class Predictor:
    def __init__(self, target: str, seed: int = 0, quick: bool = False, alpha: float = 0.01):
        self.target = target
        self.alpha = alpha  # chosen on the validation part, see submission.yaml
        self.config = {"alpha": alpha, "features": "trappm static (log1p)"}

    def _features(self, part) -> np.ndarray:
        return static_features(part).astype(np.float64)

    def fit(self, train, val=None) -> "Predictor":
        X = self._features(train)
        y = np.log(np.asarray(train[self.target], dtype=np.float64))
        self.mean_, self.scale_ = X.mean(axis=0), X.std(axis=0)
        self.scale_[self.scale_ == 0] = 1.0
        Z = (X - self.mean_) / self.scale_
        self.intercept_ = y.mean()
        # closed-form ridge on centred data: (Z'Z + alpha I) w = Z'(y - mean)
        self.coef_ = np.linalg.solve(Z.T @ Z + self.alpha * np.eye(Z.shape[1]), Z.T @ (y - self.intercept_))
        return self

    def predict(self, graphs) -> np.ndarray:
        Z = (self._features(graphs) - self.mean_) / self.scale_
        return np.exp(Z @ self.coef_ + self.intercept_)

    def state(self) -> dict[str, np.ndarray]:
        return {"mean": self.mean_, "scale": self.scale_, "intercept": np.asarray(self.intercept_), "coef": self.coef_}

    def load_state(self, state: dict[str, np.ndarray]) -> None:
        self.mean_, self.scale_, self.coef_ = state["mean"], state["scale"], state["coef"]
        self.intercept_ = float(state["intercept"])

    @property
    def n_params(self) -> int:
        return int(self.coef_.size + 1)
