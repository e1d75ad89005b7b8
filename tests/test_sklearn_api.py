"""The baselines and protocols as scikit-learn objects: ``check_estimator`` on the static-feature
baselines, the grid and split utilities against independent constructions, and the
cross-validation inputs of the tabular configs on synthetic rows (no dataset build needed)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sklearn.utils.estimator_checks import check_estimator

from perfgraphs.baselines import LLMXGBoost, StaticMLP, StaticXGBoost
from perfgraphs.baselines.llm_xgboost import LLM_PAPER_GRID
from perfgraphs.baselines.static_xgboost import PAPER_GRID, BoosterRegressor
from perfgraphs.evaluation.evaluator import mape_pct

# scikit-learn's multi-output check fits make_regression targets (signed) without honouring the
# positive_only tag it honours elsewhere; log-space training refuses them, as it must
SIGNED_MULTIOUTPUT = {"check_regressor_multioutput": "signed targets; log_target=False instances run it"}


def _failures(estimator, expected=None) -> list[str]:
    results = check_estimator(estimator, on_fail=None, expected_failed_checks=expected or {})
    return [f"{r['check_name']}: {r['exception']!r}"[:400] for r in results if r["status"] == "failed"]


@pytest.mark.parametrize("estimator", [BoosterRegressor(n_estimators=20), StaticXGBoost(quick=True),
                                       LLMXGBoost(quick=True), StaticMLP(quick=True)], ids=lambda e: type(e).__name__)
def test_static_baselines_pass_check_estimator(estimator):
    assert _failures(estimator, SIGNED_MULTIOUTPUT) == []


@pytest.mark.parametrize("estimator", [StaticXGBoost(quick=True, log_target=False),
                                       StaticMLP(quick=True, log_target=False)], ids=lambda e: type(e).__name__)
def test_signed_target_baselines_pass_check_estimator(estimator):
    # the MLP's float32 forward pass sums a batch of 20 rows and one of 10 in different orders:
    # predictions near 0 then differ by ~1e-7 absolute, above the check's atol
    expected = ({"check_methods_subset_invariance": "float32 batch summation order"}
                if isinstance(estimator, StaticMLP) else {})
    assert _failures(estimator, expected) == []


@pytest.mark.parametrize("grid", [PAPER_GRID, LLM_PAPER_GRID])
def test_parameter_grid_keeps_the_order_the_committed_results_were_selected_in(grid):
    """Ties go to the earlier point, so the order matters: sorted names, product of their values."""
    from sklearn.model_selection import ParameterGrid

    keys = sorted(grid)
    by_hand = [dict(zip(keys, values)) for values in itertools.product(*(grid[k] for k in keys))]
    assert list(ParameterGrid(grid)) == by_hand


def test_grid_scores_are_the_validation_mapes_of_each_point():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    y = np.exp(X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.1 * rng.normal(size=120))
    grid = {"n_estimators": (5, 60), "learning_rate": (0.3,), "max_depth": (2, 4), "subsample": (1.0,),
            "colsample_bytree": (1.0,)}
    model = StaticXGBoost(grid=grid, seed=3).fit(X[:80], y[:80], X[80:], y[80:])
    for params, score in model.grid_scores_:
        by_hand = BoosterRegressor(**params, seed=3).fit(X[:80], y[:80]).predict(X[80:])
        assert score == pytest.approx(mape_pct(y[80:], by_hand), rel=1e-12)
    best = min(model.grid_scores_, key=lambda ps: ps[1])[0]
    assert model.best_params_ == [best]
    assert np.array_equal(model.predict(X), BoosterRegressor(**best, seed=3).fit(X[:80], y[:80]).predict(X))


def test_clone_and_params_round_trip():
    from sklearn.base import clone

    model = LLMXGBoost(quick=True, seed=4)
    assert model.get_params()["refit_on_validation"] is True  # its own default, read from its signature
    copy = clone(model.set_params(validation_fraction=0.3))
    assert copy.get_params() == model.get_params() and copy is not model


# -- the tabular protocols as scikit-learn splitters --------------------------------------------

def _rows(n_models=6, per_model=7, null_every=0):
    import datasets

    rng = np.random.default_rng(1)
    models = [f"org/m{m}" for m in range(n_models) for _ in range(per_model)]
    n = len(models)
    target = [float(v) for v in np.exp(rng.normal(size=n))]
    if null_every:
        target = [None if i % null_every == 0 else v for i, v in enumerate(target)]
    return datasets.Dataset.from_dict({
        "row_id": [f"r{i}" for i in range(n)], "fold": [int(f) for f in rng.integers(0, 5, n)],
        "model_id": models, "median_itl_ms": target,
        # the cpu-torch-fp32 columns, so the features are the encoder ones
        **{c: [float(v) for v in rng.integers(1, 100, n)] for c in ("seq_len_tokens",)},
    })


def test_official_cv_is_the_fold_column():
    from perfgraphs.evaluation.cv import official_cv

    rows = _rows()
    fold = np.asarray(rows["fold"])
    splits = list(official_cv(rows).split())
    assert len(splits) == len(set(fold.tolist()))
    for k, (train, test) in zip(sorted(set(fold.tolist())), splits):
        assert np.array_equal(test, np.flatnonzero(fold == k))
        assert np.array_equal(train, np.flatnonzero(fold != k))


def test_leave_models_out_never_shares_a_model():
    from perfgraphs.evaluation.cv import CrossValidationError, leave_models_out

    rows = _rows()
    models = np.asarray(rows["model_id"])
    splits = leave_models_out(rows, n_splits=3)
    tested = np.concatenate([test for _, test in splits])
    assert sorted(tested.tolist()) == list(range(len(rows)))  # every row tested once
    for train, test in splits:
        assert not set(models[train]) & set(models[test])
    with pytest.raises(CrossValidationError, match="at least 7 models"):
        leave_models_out(rows, n_splits=7)


def test_cv_inputs_keep_labeled_rows_only(monkeypatch):
    import perfgraphs.data.llm_features as lf
    from perfgraphs.evaluation import cv

    # the features themselves are tested with llm_features; here only which rows they are of
    monkeypatch.setattr(lf, "tabular_features", lambda rows: np.asarray(rows["seq_len_tokens"], dtype=float)[:, None])
    rows = _rows(null_every=4)
    X, y, folds = cv.cv_inputs(rows, "median_itl_ms")
    keep = [i for i, v in enumerate(rows["median_itl_ms"]) if v is not None]
    assert len(keep) < len(rows) and X.shape == (len(keep), 1)
    assert np.array_equal(y, np.asarray([rows["median_itl_ms"][i] for i in keep]))
    assert np.array_equal(folds.test_fold, np.asarray(rows["fold"])[keep])
    with pytest.raises(cv.CrossValidationError, match="unknown cross-validation protocol"):
        cv.cv_inputs(rows, "median_itl_ms", protocol="random")
    with pytest.raises(cv.CrossValidationError, match="no column"):
        cv.cv_inputs(rows, "latency_ms")


def test_estimator_predictor_seeds_every_seed_parameter():
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from perfgraphs.leaderboard.predictors import EstimatorPredictor
    from perfgraphs.errors import PerfgraphsError

    model = make_pipeline(StandardScaler(), StaticXGBoost(quick=True, seed=0))
    p = EstimatorPredictor(model, "median_itl_ms", seed=7)
    assert p.model.get_params()["staticxgboost__seed"] == 7
    assert model.get_params()["staticxgboost__seed"] == 0  # the caller's estimator is untouched
    assert EstimatorPredictor(RandomForestRegressor(), "t", seed=3).model.random_state == 3
    with pytest.raises(PerfgraphsError, match="not a scikit-learn regressor"):
        EstimatorPredictor(StandardScaler(), "t")


def test_across_strata_deal_allocates_folds_as_stratified_kfold():
    """The committed LLM CPU deal (round-robin continued across strata in name order) gives each
    fold as many rows of each model as scikit-learn's StratifiedKFold does; the rows differ
    (StratifiedKFold deals each model's rows in contiguous blocks, the committed protocol by a hash
    order), which is why the committed split is not regenerated with it."""
    from sklearn.model_selection import StratifiedKFold

    from perfgraphs.data.tabular import stratified_folds

    rng = np.random.default_rng(2)
    strata = sorted(f"model{m}" for m in rng.integers(0, 9, 137))
    ids = [f"row{i}" for i in range(len(strata))]
    ours = np.asarray(stratified_folds(ids, strata, across_strata=True))
    skf = np.empty(len(ids), dtype=int)
    for k, (_, test) in enumerate(StratifiedKFold(5).split(np.zeros(len(ids)), strata)):
        skf[test] = k
    for s in sorted(set(strata)):
        rows = np.asarray(strata) == s
        assert np.bincount(ours[rows], minlength=5).tolist() == np.bincount(skf[rows], minlength=5).tolist(), s
    assert not np.array_equal(ours, skf)
