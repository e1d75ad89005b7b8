"""The stratified 5-fold protocol of the tabular LLM config and its noise-floor statement."""

from __future__ import annotations

import numpy as np
import pytest

from perfgraphs.evaluation.tabular_protocol import (
    CONFIG_KEY, TabularProtocolError, check_baseline, folds, noise_floor_sentence, repeated_measurements,
    with_eval_columns,
)


def _rows(values: list[float], configs: list[int]):
    """Rows whose serving configuration is ``configs[i]`` (equal ints = same configuration)."""
    import datasets

    n = len(values)
    cols = {k: [f"{k}-{c}" for c in configs] for k in CONFIG_KEY}
    cols.update(row_id=[f"r{i}" for i in range(n)], fold=[i % 5 for i in range(n)],
                energy_per_token_joules=values)
    cols["model_id"] = [f"org{c % 2}/model-{c}" for c in configs]
    cols["gpu_model"] = ["H100" if c % 2 else "B200" for c in configs]
    return datasets.Dataset.from_dict(cols)


def test_noise_floor_is_the_spread_of_repeated_configurations():
    values = [0.5, 0.6, 1.0, 2.0, 0.3]
    rows = _rows(values, [0, 0, 1, 2, 2])
    repeats = repeated_measurements(rows, "energy_per_token_joules")
    assert sorted(map(sorted, repeats)) == [[0.3, 2.0], [0.5, 0.6]]
    expected = np.mean([abs(a - b) / a for a, b in ((0.5, 0.6), (0.6, 0.5), (2.0, 0.3), (0.3, 2.0))]) * 100
    assert f"{expected:.1f} % MAPE" in noise_floor_sentence(rows, "energy_per_token_joules")
    single = noise_floor_sentence(_rows(values, [0, 1, 2, 3, 4]), "energy_per_token_joules")
    assert "none is measurable" in single


def test_folds_partition_the_rows_and_eval_columns_name_them():
    rows = with_eval_columns(_rows([float(i + 1) for i in range(12)], list(range(12))))
    parts = folds(rows)
    assert [p.index for p in parts] == [0, 1, 2, 3, 4]
    tested = [sid for p in parts for sid in p.test["sample_id"]]
    assert sorted(tested) == sorted(rows["row_id"])  # every row predicted exactly once
    for p in parts:
        assert not set(p.train["row_id"]) & set(p.test["row_id"])
        assert len(p.train) + len(p.test) == len(rows)
    assert set(rows["family"]) == {"org0", "org1"} and set(rows["platform"]) == {"H100", "B200"}
    with pytest.raises(TabularProtocolError, match="two folds"):
        folds(rows.select([0, 5]))


def test_graph_baselines_are_refused_with_the_reason():
    check_baseline("llm-xgboost", "static", ["llm-xgboost", "static-mlp"])
    with pytest.raises(TabularProtocolError, match="cannot be graphed offline.*llm-xgboost, static-mlp"):
        check_baseline("llm-gnn", "graph", ["static-mlp", "llm-xgboost"])


def test_runner_cross_validates_llm_xgboost_on_mlenergy(tmp_path):
    from perfgraphs.leaderboard.runner import RunSpec, run_benchmark
    from perfgraphs.data.load import load_dataset
    from perfgraphs.loaders.sources import ExternalSourceError

    try:
        rows = load_dataset("llm", "mlenergy", home=tmp_path)["train"]
    except ExternalSourceError as exc:
        pytest.skip(f"ML.ENERGY data not available offline: {exc}")
    target = "median_itl_ms"
    # the rows' fold column is the stratified protocol's (the boards' default is leave-models-out, below)
    spec = RunSpec("llm", "mlenergy", target, "llm-xgboost", seeds=(0,), quick=True, protocol="stratified-5-fold")
    result = run_benchmark(spec, home=tmp_path, log=False)
    scores = result.per_seed[0]
    assert scores["n"] == len(rows)  # every row predicted once, out of fold
    assert set(scores["per_platform"]) == set(rows["gpu_model"])
    # the pooled predictions are in fold order: score them independently
    order = np.argsort(np.asarray(rows["fold"]), kind="stable")
    y = np.asarray(rows[target], dtype=float)[order]
    pred = np.asarray(scores["y_pred"])
    assert scores["mape_pct"] == pytest.approx(np.mean(np.abs(y - pred) / y) * 100)
    assert scores["mape_pct"] < 0.5 * np.mean(np.abs(y - y.mean()) / y) * 100
    # the default: the committed leave-models-out folds (read as plain JSON), pooled in fold order
    import json

    from perfgraphs.data.splits import split_path

    committed = json.loads(split_path("perfgraphs/llm", "leave-models-out", 0).read_text())["parts"]
    fold_of = {rid: int(k.removeprefix("fold")) for k, ids in committed.items() for rid in ids}
    grouped = run_benchmark(RunSpec("llm", "mlenergy", target, "llm-xgboost", seeds=(0,), quick=True),
                            home=tmp_path, log=False)
    assert grouped.spec.protocol == "leave-models-out" and grouped.spec.identity != spec.identity
    order = np.argsort(np.asarray([fold_of[r] for r in rows["row_id"]]), kind="stable")
    y = np.asarray(rows[target], dtype=float)[order]
    pred = np.asarray(grouped.per_seed[0]["y_pred"])
    assert grouped.per_seed[0]["mape_pct"] == pytest.approx(np.mean(np.abs(y - pred) / y) * 100)
    assert grouped.per_seed[0]["mape_pct"] > scores["mape_pct"]  # unseen models are harder
    # (same seed → same predictions is checked on the estimator in test_llm_baselines.py)
    with pytest.raises(TabularProtocolError, match="graphed offline"):
        run_benchmark(RunSpec("llm", "mlenergy", target, "gnn-lm", quick=True), home=tmp_path, log=False)
