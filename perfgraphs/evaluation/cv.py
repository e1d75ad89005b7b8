"""The benchmark's tabular protocols as scikit-learn cross-validation inputs.

``cv_inputs(rows, target)`` gives ``(X, y, cv)`` for ``cross_val_score`` / ``GridSearchCV``:
``X`` the static inputs the reference predictors and :class:`EstimatorPredictor` read (model +
hardware features of the ``perfgraphs/llm`` rows), ``y`` the labeled target, and ``cv`` one of
the two committed 5-fold splits as a ``PredefinedSplit``: ``leave-models-out`` (the official
boards' folds, grouped by model with ``GroupKFold`` over the normalised ``model_id``: every fold's
test models are absent from its training rows, the question "how well does it predict a model it
has never seen") or ``stratified-5-fold`` (the LLM study's folds, the ``fold`` column: every model
in every training fold; the secondary boards).
"""

from __future__ import annotations

import numpy as np

from perfgraphs.errors import PerfgraphsError
from perfgraphs.registry import TRAPPM

CV_PROTOCOLS = ("stratified-5-fold", "leave-models-out")


class CrossValidationError(PerfgraphsError, ValueError):
    """Rows, target or protocol a cross-validation cannot be built from."""


def feature_matrix(rows, featurizer: str = TRAPPM) -> np.ndarray:
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
    """``GroupKFold(n_splits)`` over the normalised ``model_id``
    (:func:`perfgraphs.data.tabular.model_group`): (train, test) index pairs, no model in both;
    the folds of :func:`perfgraphs.data.tabular.grouped_folds`, which writes the committed files
    (:func:`cv_inputs` reads those for a config's rows)."""
    from perfgraphs.data.tabular import grouped_folds

    if "model_id" not in rows.column_names:
        raise CrossValidationError("leave-models-out needs a model_id column (the perfgraphs/llm configs have one)")
    try:
        fold = np.asarray(grouped_folds(list(rows["model_id"]), n_splits))
    except PerfgraphsError as exc:  # fewer models than folds
        raise CrossValidationError(str(exc)) from None
    index = np.arange(len(fold))
    return [(index[fold != k], index[fold == k]) for k in range(n_splits)]


def committed_grouped_cv(rows):
    """The committed leave-models-out folds of a config's rows as a ``PredefinedSplit`` (the folds
    the official boards score), found by the rows' ids; None when no config's file lists them all
    (rows of your own: :func:`leave_models_out` makes folds the same way)."""
    from sklearn.model_selection import PredefinedSplit

    from perfgraphs.data.recipes import split_config
    from perfgraphs.data.splits import committed_test_fold, split_path
    from perfgraphs.registry import DATASETS

    if "row_id" not in rows.column_names:
        return None
    ids = list(rows["row_id"])
    for ds in DATASETS.values():
        for cfg in ds.configs:
            if "leave-models-out" not in cfg.split_protocols:
                continue
            if not split_path(ds.name, "leave-models-out", 0, split_config(cfg)).exists():
                continue
            try:
                return PredefinedSplit(committed_test_fold(ds.name, "leave-models-out", ids, split_config(cfg)))
            except PerfgraphsError:
                continue  # another config's rows
    return None


def cv_inputs(rows, target: str, protocol: str = "stratified-5-fold", n_splits: int = 5):
    """``(X, y, cv)`` over the rows labeled with ``target`` (see the module docstring). For
    ``leave-models-out``: the committed folds when the rows are a config's, else
    :func:`leave_models_out` with ``n_splits``."""
    if protocol not in CV_PROTOCOLS:
        raise CrossValidationError(f"unknown cross-validation protocol {protocol!r} "
                                   f"(available: {', '.join(CV_PROTOCOLS)})")
    if target not in rows.column_names:
        raise CrossValidationError(f"the rows have no column {target!r}")
    labeled = [i for i, v in enumerate(rows[target]) if v is not None]
    rows = rows.select(labeled)
    X = feature_matrix(rows)
    y = np.asarray(rows[target], dtype=np.float64)
    if protocol == "stratified-5-fold":
        cv = official_cv(rows)
    else:
        cv = committed_grouped_cv(rows) if n_splits == 5 else None
        cv = cv if cv is not None else leave_models_out(rows, n_splits)
    return X, y, cv
