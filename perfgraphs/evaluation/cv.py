"""The benchmark's tabular protocols as scikit-learn cross-validation inputs.

``cv_inputs(rows, target)`` gives ``(X, y, cv)`` for ``cross_val_score`` / ``GridSearchCV``:
``X`` the static inputs the reference predictors and :class:`EstimatorPredictor` read (model +
hardware features of the ``perfgraphs/llm`` rows), ``y`` the labeled target, and ``cv`` either
the official stratified 5-fold split (the committed ``fold`` column as a ``PredefinedSplit``:
the folds the leaderboard scores) or leave-models-out (``GroupKFold`` over ``model_id``: every
fold's test models are absent from its training rows, the question "how well does it predict a
model it has never seen"). Leave-models-out is an analysis protocol, not a leaderboard board.
"""

from __future__ import annotations

import numpy as np

from perfgraphs.errors import PerfgraphsError

CV_PROTOCOLS = ("stratified-5-fold", "leave-models-out")


class CrossValidationError(PerfgraphsError, ValueError):
    """Rows, target or protocol a cross-validation cannot be built from."""


def feature_matrix(rows, featurizer: str = "trappm") -> np.ndarray:
    """Static inputs of a part: model + hardware features of tabular ``perfgraphs/llm`` rows, the
    featurizer's static columns of graph rows."""
    from perfgraphs.data.llm_features import tabular_features
    from perfgraphs.data.load import static_features

    return tabular_features(rows) if is_tabular(rows) else static_features(rows, featurizer)


def is_tabular(rows) -> bool:
    return "fold" in rows.column_names and "row_id" in rows.column_names


def official_cv(rows):
    """The committed stratified 5-fold split of tabular rows: ``PredefinedSplit`` on their ``fold``."""
    from sklearn.model_selection import PredefinedSplit

    if "fold" not in rows.column_names:
        raise CrossValidationError("the rows have no fold column: graph datasets are split into train / validation / "
                                   "test parts (perfgraphs.get_split), not cross-validated")
    return PredefinedSplit(np.asarray(rows["fold"]))


def leave_models_out(rows, n_splits: int = 5) -> list[tuple[np.ndarray, np.ndarray]]:
    """``GroupKFold(n_splits)`` over ``model_id``: (train, test) index pairs, no model in both."""
    from sklearn.model_selection import GroupKFold

    if "model_id" not in rows.column_names:
        raise CrossValidationError("leave-models-out needs a model_id column (the perfgraphs/llm configs have one)")
    groups = np.asarray(rows["model_id"])
    n_models = len(set(groups.tolist()))
    if n_models < n_splits:
        raise CrossValidationError(f"leave-models-out with {n_splits} folds needs at least {n_splits} models, "
                                   f"the rows have {n_models}")
    return list(GroupKFold(n_splits=n_splits).split(np.zeros((len(groups), 1)), groups=groups))


def cv_inputs(rows, target: str, protocol: str = "stratified-5-fold", n_splits: int = 5):
    """``(X, y, cv)`` over the rows labeled with ``target`` (see the module docstring)."""
    if protocol not in CV_PROTOCOLS:
        raise CrossValidationError(f"unknown cross-validation protocol {protocol!r} "
                                   f"(available: {', '.join(CV_PROTOCOLS)})")
    if target not in rows.column_names:
        raise CrossValidationError(f"the rows have no column {target!r}")
    labeled = [i for i, v in enumerate(rows[target]) if v is not None]
    rows = rows.select(labeled)
    X = feature_matrix(rows)
    y = np.asarray(rows[target], dtype=np.float64)
    cv = official_cv(rows) if protocol == "stratified-5-fold" else leave_models_out(rows, n_splits)
    return X, y, cv
