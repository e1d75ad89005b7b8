"""Reference baselines behind the leaderboard's predictor interface.

``BaselinePredictor(name, target=..., seed=..., quick=...)`` exposes ``fit(train, val)`` and
``predict(graphs) -> (n,) array`` on Hugging Face parts of a dataset (the objects
``perfgraphs.load_dataset`` returns): it featurizes the rows the way the baseline needs (static
features, PyG graphs, raw rows) and calls the scikit-learn style estimator. The benchmark runner
and the leaderboard's reference submissions both use it, so a reference entry is the same code
path as ``perfgraphs benchmark``.

``EstimatorPredictor(estimator, target=...)`` does the same for any scikit-learn regressor on the
static inputs (:func:`perfgraphs.evaluation.cv.feature_matrix`, the ``X`` of ``cv_inputs``): what
:func:`perfgraphs.leaderboard.estimator_submission` packages for ``perfgraphs check``.
"""

from __future__ import annotations

import numpy as np

from perfgraphs.baselines.catalog import COEFFICIENTS, GRAPH_TEXT, ROWS, STATIC, TRAINABLE, baseline
from perfgraphs.errors import PerfgraphsError
from perfgraphs.registry import TRAPPM


class BaselinePredictor:
    """One reference baseline as a leaderboard predictor."""

    def __init__(self, name: str, target: str, seed: int = 0, quick: bool = False):
        self.baseline = baseline(name)
        self.name, self.target, self.seed, self.quick = name, target, seed, quick
        self.featurizer, self.kind = self.baseline.featurizer, self.baseline.inputs
        self.model = self.baseline.make(quick, seed, target)
        self.config = {"baseline": name, "featurizer": self.featurizer, "quick": quick}
        # Import the estimator's framework here, not on the first call inside fit(): the harness
        # times fit() and would otherwise count a first import of torch / PyG (seconds) as training.
        import importlib

        for module in self.baseline.frameworks:
            importlib.import_module(module)

    def _static(self, rows) -> np.ndarray:
        from perfgraphs.evaluation.cv import feature_matrix

        return feature_matrix(rows, self.featurizer)

    def _prompts(self, rows) -> list[str]:
        """GNN + LM prompt: the task and the target (multi-platform targets name the platform)."""
        return [f"Predict {self.target} of this deep-learning model."] * len(rows)

    def fit(self, train, val=None) -> "BaselinePredictor":
        from perfgraphs.data.load import to_pyg

        y = np.asarray(train[self.target], dtype=float)
        if self.kind == ROWS:
            if self.baseline.selects_on_validation and val is not None and len(val):
                self.model.fit(train, y, val, np.asarray(val[self.target], dtype=float))
            else:
                self.model.fit(train, y)
        elif self.kind == STATIC:
            X = self._static(train)
            if self.baseline.selects_on_validation and val is not None and len(val):
                self.model.fit(X, y, self._static(val), np.asarray(val[self.target], dtype=float))
            else:
                self.model.fit(X, y)
        elif self.kind == GRAPH_TEXT:
            from perfgraphs.baselines.gnn_lm import graph_summaries

            # stages 1 and 2 on the training graphs (their labels unused), then stage 3
            self.model.fit(to_pyg(train, self.featurizer, targets=[self.target]), prompts=self._prompts(train),
                           summaries=graph_summaries(train))
        else:
            p_train = to_pyg(train, self.featurizer, targets=[self.target])
            if self.baseline.pretrains:
                self.model.fit_autoencoder(p_train)  # unlabeled pre-training on the training graphs
            self.model.fit(p_train)
        return self

    def predict(self, graphs) -> np.ndarray:
        from perfgraphs.data.load import to_pyg

        if self.kind == ROWS:
            pred = self.model.predict(graphs)
        elif self.kind == STATIC:
            pred = self.model.predict(self._static(graphs))
        elif self.kind == GRAPH_TEXT:
            pred = self.model.predict(to_pyg(graphs, self.featurizer), prompts=self._prompts(graphs))
        else:
            pred = self.model.predict(to_pyg(graphs, self.featurizer))
        return np.asarray(pred, dtype=np.float64).ravel()

    def state(self) -> dict[str, np.ndarray]:
        """The fitted estimator as numbers (a frozen fit, ``perfgraphs submit --freeze``); the
        baselines whose estimator has no ``fitted_state`` (trees, the language models) cannot be frozen."""
        if not callable(getattr(self.model, "fitted_state", None)):
            raise PerfgraphsError(f"{self.name} cannot be frozen: its estimator has no fitted_state()")
        return self.model.fitted_state()

    def load_state(self, state: dict[str, np.ndarray]) -> "BaselinePredictor":
        """This predictor as the one whose :meth:`state` ``state`` is (instead of ``fit``)."""
        if not callable(getattr(self.model, "load_fitted_state", None)):
            raise PerfgraphsError(f"{self.name} cannot be frozen: its estimator has no load_fitted_state()")
        self.model.load_fitted_state(state)
        return self

    @property
    def n_params(self) -> int | None:
        """Learned parameters: torch weights of the neural baselines (TraPPM: encoder and
        regressor), the coefficients of the linear model; None for the tree ensemble, whose
        size is not a parameter count."""
        if self.baseline.parameters == COEFFICIENTS:
            return int(self.model.coef_.size) if hasattr(self.model, "coef_") else None
        if self.baseline.parameters == TRAINABLE:
            return self.model.num_trainable_params
        modules = [getattr(self.model, attr, None) for attr in ("module_", "encoder_")]
        modules += [m for m, *_ in getattr(self.model, "per_target_", [])]
        seen: dict[int, int] = {}
        for module in modules:
            if module is not None:
                for p in module.parameters():
                    seen[id(p)] = p.numel()
        return sum(seen.values()) if seen else None


class EstimatorPredictor:
    """A scikit-learn regressor as a leaderboard predictor: ``fit(train, val)`` fits a ``clone``
    of ``estimator`` on the training part's static inputs and labels (``val`` is not used: a
    selection the estimator needs happens inside it, e.g. ``GridSearchCV``); every parameter
    named ``seed`` or ``random_state`` (nested ones too) takes the harness's seed."""

    def __init__(self, estimator, target: str, seed: int = 0, quick: bool = False, featurizer: str = TRAPPM):
        from sklearn.base import clone, is_regressor

        if not is_regressor(estimator):
            raise PerfgraphsError(f"{type(estimator).__name__} is not a scikit-learn regressor")
        self.target, self.seed, self.quick, self.featurizer = target, seed, quick, featurizer
        self.model = clone(estimator)
        seeds = {k: seed for k in self.model.get_params(deep=True) if k.split("__")[-1] in ("seed", "random_state")}
        self.model.set_params(**seeds)
        self.config = {"estimator": repr(estimator)}

    def fit(self, train, val=None) -> "EstimatorPredictor":
        from perfgraphs.evaluation.cv import feature_matrix

        self.model.fit(feature_matrix(train, self.featurizer), np.asarray(train[self.target], dtype=np.float64))
        return self

    def predict(self, graphs) -> np.ndarray:
        from perfgraphs.evaluation.cv import feature_matrix

        return np.asarray(self.model.predict(feature_matrix(graphs, self.featurizer)), dtype=np.float64).ravel()
