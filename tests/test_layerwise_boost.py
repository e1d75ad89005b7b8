"""The ``layerwise-boost`` reference baseline: per-kernel-kind additive costs + a boosted log-ratio
correction (perfgraphs.baselines.layerwise_boost).

Ground truth: (1) on a plain matrix, a known additive cost times a known step-shaped slowdown,
which NNLS alone cannot represent; (2) on real exported graphs, a roofline latency computed here
from each node's FLOPs and bytes (t = Σ_nodes max(flops / P, bytes / B) + launch), independently
of the feature code. The board-level check needs timm's published results and skips without
``PERFGRAPHS_EXTERNAL_DIR``.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from sklearn.base import clone

from perfgraphs.baselines import AdditiveResidualBoost, LayerwiseBoost, LayerwiseLinear, operator_mix_features
from perfgraphs.baselines.common import BaselineInputError, NotFittedError
from perfgraphs.baselines.layerwise_boost import ADDITIVE_NAMES, FEATURE_NAMES, KINDS
from perfgraphs.evaluation.evaluator import mape_pct
from perfgraphs.views.hf import from_hf_row



@pytest.fixture(scope="module")
def tiny_rows(tiny_dippm_rows):
    return tiny_dippm_rows


def _step_costs(n: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """X: 3 additive regressors + 1 mix feature; y = (2·x0 + 0.5·x1) · (1.6 if mix > 0.5 else 1)."""
    X = np.c_[rng.uniform(1, 10, (n, 3)), rng.uniform(0, 1, n)]
    return X, (2.0 * X[:, 0] + 0.5 * X[:, 1]) * np.where(X[:, 3] > 0.5, 1.6, 1.0)


def test_learns_a_known_additive_cost_with_a_multiplicative_correction():
    rng = np.random.default_rng(0)
    X, y = _step_costs(600, rng)
    X_test, y_test = _step_costs(300, rng)
    model = AdditiveResidualBoost(n_additive=3, seed=0).fit(X, y)
    assert mape_pct(y_test, model.predict(X_test)) < 2.0
    # the additive part alone cannot represent the step (it is what the correction is for)
    additive = np.maximum(X_test[:, :3] @ model.coef_[:, 0], 1e-9)
    assert mape_pct(y_test, additive) > 10.0
    assert (model.coef_ >= 0).all() and model.coef_[2, 0] < 0.05 * model.coef_[0, 0]  # x2 costs nothing
    # without the step, NNLS on relative errors recovers the costs themselves
    pure = AdditiveResidualBoost(n_additive=3, seed=0).fit(X, 2.0 * X[:, 0] + 0.5 * X[:, 1])
    assert np.allclose(pure.coef_[:, 0], [2.0, 0.5, 0.0], atol=1e-6)


def _roofline_ms(graph, flops_per_ms: float = 5e9, bytes_per_ms: float = 5e8, launch_ms: float = 2e-3) -> float:
    flops = np.asarray(graph.flops, dtype=float)
    moved = np.asarray(graph.memory_bytes, dtype=float)
    return float(np.maximum(flops / flops_per_ms, moved / bytes_per_ms).sum() + launch_ms * graph.num_nodes)


def test_predicts_a_roofline_latency_of_real_graphs(tiny_rows):
    """Every other graph trains, the rest are predicted: the kind/intensity split must get within
    a few per cent of a roofline (memory-bound depthwise convs, compute-bound dense ones)."""
    graphs = [from_hf_row(tiny_rows[i]) for i in range(len(tiny_rows))]
    y = np.array([_roofline_ms(g) for g in graphs])
    train, test = np.arange(0, len(y), 2), np.arange(1, len(y), 2)
    model = LayerwiseBoost(quick=True, seed=0).fit(tiny_rows.select(train), y[train])
    pred = model.predict(tiny_rows.select(test))
    assert pred.shape == (len(test),) and (pred > 0).all()
    assert mape_pct(y[test], pred) < 5.0
    # far better than the best constant, and at least as good as the per-category linear model
    assert mape_pct(y[test], np.full(len(test), np.exp(np.log(y[train]).mean()))) > 50.0
    linear = LayerwiseLinear().fit(tiny_rows.select(train), y[train]).predict(tiny_rows.select(test))
    assert mape_pct(y[test], pred) <= mape_pct(y[test], linear) + 0.5


def test_features_from_rows_equal_those_from_graphs_and_count_every_node(tiny_rows):
    F = operator_mix_features(tiny_rows)
    assert F.shape == (len(tiny_rows), len(FEATURE_NAMES))
    picks = [0, 17, len(tiny_rows) - 1]
    assert np.array_equal(F[picks], operator_mix_features([from_hf_row(tiny_rows[i]) for i in picks]))
    counts = F[:, [FEATURE_NAMES.index(f"count_{k}") for k in KINDS]]
    assert np.array_equal(counts.sum(axis=1), np.asarray(tiny_rows["num_nodes"]))
    # depthwise convolutions, counted independently from the graphs' attributes
    from perfgraphs.graph.ir import ATTRIBUTE_INDEX

    for i in picks:
        g = from_hf_row(tiny_rows[i])
        groups, cin = g.attributes[:, ATTRIBUTE_INDEX["groups"]], g.attributes[:, ATTRIBUTE_INDEX["channels_in"]]
        depthwise = sum(op == "Conv" and gr > 1 and gr >= c for op, gr, c in zip(g.onnx_ops, groups, cin))
        assert depthwise > 0 and F[i, FEATURE_NAMES.index("count_conv_depthwise")] == depthwise
        assert F[i, FEATURE_NAMES.index("input_height")] == g.input_shapes[0][1][-2]
    assert FEATURE_NAMES[:len(ADDITIVE_NAMES)] == ADDITIVE_NAMES


def test_validation_search_picks_the_lowest_validation_mape(tiny_rows):
    y = np.array([_roofline_ms(from_hf_row(tiny_rows[i])) for i in range(len(tiny_rows))])
    F = operator_mix_features(tiny_rows)
    grid = {"n_estimators": (2, 100), "max_depth": (3,), "learning_rate": (0.3,)}
    model = LayerwiseBoost(grid=grid, seed=0).fit_features(F[::2], y[::2], F[1::2], y[1::2])
    scores = dict((p["n_estimators"], s) for p, s in model.grid_scores_)
    assert model.best_params_[0]["n_estimators"] == min(scores, key=scores.get)
    assert len(model.grid_scores_) == 2 and scores[100] < scores[2]
    # the selected model (the first trees of the grown booster) is the one a fresh fit of that point makes
    refit = AdditiveResidualBoost(n_additive=len(ADDITIVE_NAMES), seed=0, **model.best_params_[0]).fit(F[::2], y[::2])
    assert np.array_equal(model.predict_features(F[1::2]), refit.predict(F[1::2]))
    grown = AdditiveResidualBoost(n_additive=len(ADDITIVE_NAMES), seed=0, n_estimators=100, subsample=0.5).fit(F, y)
    fresh = AdditiveResidualBoost(n_additive=len(ADDITIVE_NAMES), seed=0, n_estimators=7, subsample=0.5).fit(F, y)
    assert np.array_equal(grown.first_trees(7).predict(F), fresh.predict(F))
    # without a validation set the selection holds out training rows, which return to the final fit
    alone = LayerwiseBoost(grid=grid, seed=0).fit_features(F, y)
    chosen = AdditiveResidualBoost(n_additive=len(ADDITIVE_NAMES), seed=0, **alone.best_params_[0]).fit(F, y)
    assert np.array_equal(alone.predict_features(F), chosen.predict(F))


def test_sklearn_contract():
    from sklearn.utils.estimator_checks import check_estimator

    # scikit-learn's multi-output check fits signed make_regression targets without honouring the
    # positive_only tag it honours elsewhere; a cost model refuses them, as it must (as the static
    # baselines in tests/test_sklearn_api.py). Every other check must pass.
    results = check_estimator(AdditiveResidualBoost(), on_fail=None, expected_failed_checks={
        "check_regressor_multioutput": "signed targets; costs are positive"})
    assert [r["check_name"] for r in results if r["status"] == "failed"] == []
    for est in (AdditiveResidualBoost(n_additive=3, seed=4), LayerwiseBoost(quick=True, seed=3)):
        twin = clone(est)
        assert twin is not est and twin.get_params() == est.get_params()
    rng = np.random.default_rng(1)
    X, y = _step_costs(200, rng)
    a = AdditiveResidualBoost(n_additive=3, seed=2).fit(X, y).predict(X)
    assert np.array_equal(a, clone(AdditiveResidualBoost(n_additive=3, seed=2)).fit(X, y).predict(X))


def test_refusals():
    rng = np.random.default_rng(2)
    X, y = _step_costs(50, rng)
    with pytest.raises(NotFittedError):
        LayerwiseBoost().predict_features(np.zeros((2, len(FEATURE_NAMES))))
    with pytest.raises(BaselineInputError, match="non-positive"):
        AdditiveResidualBoost(n_additive=3).fit(X, -y)
    with pytest.raises(BaselineInputError, match="n_additive"):
        AdditiveResidualBoost(n_additive=9).fit(X, y)
    with pytest.raises(BaselineInputError, match="operator_mix_features"):
        LayerwiseBoost(quick=True).fit_features(X, y)
    with pytest.raises(BaselineInputError, match="Hugging Face split"):
        LayerwiseBoost(quick=True).fit(X, y)
    with pytest.raises(BaselineInputError, match="both graphs_val and y_val"):
        LayerwiseBoost(quick=True).fit(X, y, graphs_val=X)


def test_cli_bad_input_is_one_line():
    result = subprocess.run([sys.executable, "-m", "perfgraphs", "benchmark", "--dataset", "dippm", "--config",
                             "cpu-torch-fp32", "--target", "no_such_target_ms", "--baseline", "layerwise-boost",
                             "--no-mlflow"], capture_output=True, text=True, timeout=300)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode != 0 and len(lines) == 1 and "no_such_target_ms" in lines[0], result.stderr
    assert "Traceback" not in result.stderr + result.stdout


@pytest.mark.skipif(not os.environ.get("PERFGRAPHS_EXTERNAL_DIR"),
                    reason="needs timm's published benchmark results (set PERFGRAPHS_EXTERNAL_DIR; CI has none)")
def test_rtx4090_board_random_split_within_the_issue_target():
    """Issue 19: the best reference on the RTX 4090 board's random split at ≤ 8 % MAPE (quick mode
    here; the committed 5-seed table is full size)."""
    from perfgraphs.leaderboard.predictors import BaselinePredictor
    from perfgraphs.evaluation.protocol import protocol_parts
    from perfgraphs.registry import NNLQP_BOARD_PLATFORM, task

    target = f"latency_per_sample_ms__{NNLQP_BOARD_PLATFORM}"
    parts, _ = protocol_parts(task("nnlqp", "timm-platforms", target))
    p = parts[0]
    pred = BaselinePredictor("layerwise-boost", target, seed=0, quick=True).fit(p.train, p.validation).predict(p.test)
    assert mape_pct(np.asarray(p.test[target], dtype=float), pred) <= 8.0


def test_feature_cache_follows_the_rows(tiny_rows):
    """Parts are remembered by their Hugging Face fingerprint: another selection of rows is another
    entry, a cached entry equals a fresh computation, and nobody can write into it."""
    from perfgraphs.baselines.layerwise_boost import cached_operator_mix_features

    first, second = tiny_rows.select([0, 1, 2]), tiny_rows.select([3, 4, 5])
    a, b = cached_operator_mix_features(first), cached_operator_mix_features(second)
    assert np.array_equal(a, operator_mix_features(first)) and np.array_equal(b, operator_mix_features(second))
    assert not np.array_equal(a, b)
    assert cached_operator_mix_features(tiny_rows.select([0, 1, 2])) is a  # same rows, same fingerprint
    with pytest.raises(ValueError):
        a[0, 0] = -1.0
