"""The LLM tree model (SPEC §4, thesis ch. 6): XGBoost on model + hardware features.

Grid: n_estimators {100, 500, 1000, 2000}, lr {0.1, 0.01, 0.001}, max_depth {3, 5, 8, 10, 30},
subsample {0.5, 0.75, 1} (180 points; the thesis found lr 0.1, depth 8, 2000 trees, subsample 1
best). Protocol: stratified 5-fold CV; the thesis does not say how the grid point was chosen
inside it, so here each outer fold selects on a validation part of its own training rows and
then refits the chosen point on all of them (no test row ever influences selection).

Same booster plumbing as :class:`StaticXGBoost` (one model per target, log-space targets,
``tree_method="hist"``, one thread, seeded), so the two differ only in grid and refit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from perfgraphs.baselines.common import TargetTransform, as_features, as_targets
from perfgraphs.baselines.static_xgboost import StaticXGBoost, grid_points

LLM_PAPER_GRID: dict[str, tuple] = {
    "n_estimators": (100, 500, 1000, 2000),
    "learning_rate": (0.1, 0.01, 0.001),
    "max_depth": (3, 5, 8, 10, 30),
    "subsample": (0.5, 0.75, 1.0),
    "colsample_bytree": (1.0,),  # not in the LLM grid: XGBoost's default
}
# CI grid: the paper's best learning rate and depth against a shallow alternative, with a tree
# count that converges at lr 0.1 on a few hundred rows.
LLM_QUICK_GRID: dict[str, tuple] = {
    "n_estimators": (300,),
    "learning_rate": (0.1,),
    "max_depth": (3, 8),
    "subsample": (1.0,),
    "colsample_bytree": (1.0,),
}


@dataclass
class LLMXGBoost(StaticXGBoost):
    """``fit(X, y, X_val=None, y_val=None)`` / ``predict(X)`` on :func:`perfgraphs.data.llm_features`
    rows. With a validation set the grid point is selected on it (``grid_scores_``), then the
    final boosters are refitted on training ∪ validation when ``refit_on_validation``."""

    refit_on_validation: bool = True

    def _grid(self) -> list[dict]:
        return grid_points(self.grid if self.grid is not None else (LLM_QUICK_GRID if self.quick else LLM_PAPER_GRID))

    def fit(self, X, y, X_val=None, y_val=None) -> "LLMXGBoost":
        super().fit(X, y, X_val, y_val)
        if X_val is not None and self.refit_on_validation:
            X_all = np.concatenate([as_features(X), as_features(X_val)])
            y_all = np.concatenate([as_targets(y), as_targets(y_val)])
            # the target scaler is refitted too: it only standardises, selection is unaffected
            self.target_transform_ = TargetTransform.fit(y_all, self.log_target)
            z = self.target_transform_.transform(y_all)
            self.models_ = [self._train(p, X_all, z[:, t]) for t, p in enumerate(self.best_params_)]
        return self
