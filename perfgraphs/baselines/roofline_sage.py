"""DIPPM's graph network learning what the fitted roofline misses (issue 34 item 4: the GNN beside
XGBoost and ``layerwise-boost``, which ``roofline-boost`` covers).

``roofline-fit`` (:class:`~perfgraphs.baselines.roofline_fit.FittedRoofline`) is fitted on the
training labels first; :class:`~perfgraphs.baselines.dippm_sage.DIPPMSage`, unchanged (its paper
settings, or its CI-sized ones with ``quick``), then learns ``log(label / roofline)`` from the graph,
and a prediction is the roofline times the network's correction. Why a residual: the network's
output is a standardised log, so where a graph is unlike training its error is bounded in log space
around the physics instead of around the training labels' mean (the failure of the plain networks
on unseen families; benchmarks/README.md, "Unseen families on one board").

Input: graph rows (a Hugging Face part): the roofline reads their operator costs, the network their
PyG view under the DIPPM featurizer.
"""

from __future__ import annotations

import numpy as np

from perfgraphs.baselines.common import BaselineInputError, BaselineRegressor, NotFittedError, as_targets
from perfgraphs.registry import DIPPM


class RooflineSage(BaselineRegressor):
    """``fit(graphs, y)`` / ``predict(graphs)``; one target column. ``roofline_`` and ``network_``
    are the two fitted parts, ``module_`` the network's torch module (its parameter count)."""

    def __init__(self, quick: bool = False, seed: int = 0, featurizer: str = DIPPM):
        self.quick = quick
        self.seed = seed
        self.featurizer = featurizer

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.positive_only = True
        tags.input_tags.two_d_array = False  # X is graph rows
        return tags

    def _pyg(self, graphs):
        from perfgraphs.data.load import to_pyg

        return to_pyg(graphs, self.featurizer)

    def fit(self, graphs, y) -> "RooflineSage":
        from perfgraphs.baselines.dippm_sage import DIPPMSage
        from perfgraphs.baselines.roofline_fit import FittedRoofline, node_costs

        y = as_targets(y)
        if y.shape[1] != 1:
            raise BaselineInputError(f"RooflineSage fits one target column, got {y.shape[1]}")
        costs = node_costs(graphs)
        self.roofline_ = FittedRoofline().fit_costs(costs, y)
        ratio = y[:, 0] / self.roofline_.predict_costs(costs)
        self.network_ = DIPPMSage(quick=self.quick, seed=self.seed).fit(self._pyg(graphs), ratio)
        self.module_ = self.network_.module_
        return self

    def fitted_state(self) -> dict[str, np.ndarray]:
        """The fitted roofline (``roofline.*``) and the network (``network.*``) as numbers."""
        from perfgraphs.baselines import fitted_state as fs

        if not hasattr(self, "roofline_"):
            raise NotFittedError("RooflineSage.fitted_state called before fit")
        return {**fs.prefixed("roofline", self.roofline_.fitted_state()),
                **fs.prefixed("network", self.network_.fitted_state())}

    def load_fitted_state(self, state: dict[str, np.ndarray]) -> "RooflineSage":
        from perfgraphs.baselines import fitted_state as fs
        from perfgraphs.baselines.dippm_sage import DIPPMSage
        from perfgraphs.baselines.roofline_fit import FittedRoofline

        state = fs.check_state(state)
        self.roofline_ = FittedRoofline().load_fitted_state(fs.part(state, "roofline"))
        self.network_ = DIPPMSage(quick=self.quick, seed=self.seed).load_fitted_state(fs.part(state, "network"))
        self.module_ = self.network_.module_
        return self

    def prior(self, graphs) -> np.ndarray:
        """The fitted roofline's prediction alone."""
        if not hasattr(self, "roofline_"):
            raise NotFittedError("RooflineSage.predict called before fit")
        return np.asarray(self.roofline_.predict(graphs), dtype=np.float64).ravel()

    def predict(self, graphs) -> np.ndarray:
        prior = self.prior(graphs)
        return prior * np.asarray(self.network_.predict(self._pyg(graphs)), dtype=np.float64).ravel()
