"""The LLM tree model (SPEC §4, thesis ch. 6): XGBoost on model + hardware features.

Grid: n_estimators {100, 500, 1000, 2000}, lr {0.1, 0.01, 0.001}, max_depth {3, 5, 8, 10, 30},
subsample {0.5, 0.75, 1} (180 points; the thesis found lr 0.1, depth 8, 2000 trees, subsample 1
best). Protocol: stratified 5-fold CV; the thesis does not say how the grid point was chosen
inside it, so here selection happens inside each outer fold's training rows only: on the
validation part when the caller gives one, else on a seeded ``validation_fraction`` of the
training rows; the chosen point is then refitted on all of them (no test row ever influences
selection, and every baseline of a fold trains on the same rows).

Same booster plumbing as :class:`StaticXGBoost` (one model per target, log-space targets,
``tree_method="hist"``, one thread, seeded), so the two differ only in grid and refit.
"""

from __future__ import annotations

from perfgraphs.baselines.static_xgboost import StaticXGBoost

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


class LLMXGBoost(StaticXGBoost):
    """``fit(X, y, X_val=None, y_val=None)`` / ``predict(X)`` on :func:`perfgraphs.data.llm_features`
    rows. Selection as :class:`StaticXGBoost` (on the validation set, or on a held-out
    ``validation_fraction`` of ``X`` without one); the final boosters are refitted on every row
    seen (training ∪ validation) when ``refit_on_validation``."""

    # the same parameters as StaticXGBoost (scikit-learn reads them from this signature); only
    # the refit default differs
    def __init__(self, grid: dict[str, tuple] | None = None, quick: bool = False, seed: int = 0, n_jobs: int = 1,
                 log_target: bool = True, refit_on_validation: bool = True, validation_fraction: float = 0.2):
        super().__init__(grid=grid, quick=quick, seed=seed, n_jobs=n_jobs, log_target=log_target,
                         refit_on_validation=refit_on_validation, validation_fraction=validation_fraction)

    def _grid(self) -> dict[str, tuple]:
        return self.grid if self.grid is not None else (LLM_QUICK_GRID if self.quick else LLM_PAPER_GRID)
