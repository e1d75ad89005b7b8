"""Thirty-seventh adversarial pass (2026-12-04), other boards: the tabular (cross-validated) and
transfer boards, predictions-files submissions, `leaderboard reproduce`, the MLflow run of a submit
and what `perfgraphs predict` reads from the leaderboard. Each test is one attack that worked
before its fix, with a control that shows it working without the guard."""

from __future__ import annotations

import dataclasses
import types

import pytest

from perfgraphs.leaderboard.records import results as results_mod
from perfgraphs.predict import api


def _llm_reference(read_entries, target: str):
    """The full-strength leave-models-out record of static-xgboost on the llm cpu-torch-fp32 board."""
    found = [e for e in read_entries("llm") if e.config == "cpu-torch-fp32" and e.target == target
             and e.method == "static-xgboost" and e.protocol == "leave-models-out"]
    if not found:
        pytest.skip("no full leave-models-out static-xgboost record on the llm cpu-torch-fp32 board")
    return found[-1]


def test_predict_quotes_only_what_the_board_ranks(monkeypatch):
    """Attack: `perfgraphs predict` quotes a reference's leaderboard record as the predictor's measured
    error, and took the newest record of the predictor's name on the config and target, whatever it was:
    for the encoder LLMs' recommended `latency_calibrated_ms` it printed "MAPE 8.0 % from leaderboard
    record static-xgboost (quick)", a CI smoke test under the stratified folds (every model seen in
    training), beside 23-29 % for the targets whose leave-models-out records it took; a later smoke
    test, or a run on the secondary stratified board, replaced the ranked record's 23 % the same way.
    Now only a full-strength record under the config's ranked protocol counts (`api._as_ranked`), and
    without one predict quotes the artifact's own held-out error. Control: without that guard the
    newer stratified record's error (12 %) is quoted."""
    real = results_mod.read_entries
    ranked = _llm_reference(real, "latency_ms")
    later = dataclasses.replace(ranked, date_utc="2026-12-04T00:00:00+00:00")
    secondary = dataclasses.replace(later, protocol="stratified-5-fold",
                                    per_seed=[{**s, "mape_pct": 12.0} for s in ranked.per_seed])
    smoke = dataclasses.replace(later, method="static-xgboost (quick)",
                                per_seed=[{**s, "mape_pct": 11.0} for s in ranked.per_seed])
    monkeypatch.setattr(results_mod, "read_entries", lambda dataset, *a, **k: [ranked, secondary, smoke])
    art = types.SimpleNamespace(meta={"dataset": "perfgraphs/llm", "config": "cpu-torch-fp32", "column": "latency_ms",
                                      "predictor": "static-xgboost",
                                      "dataset_content_hash": ranked.dataset_content_hash})
    error = api._leaderboard_error(art)
    assert error is not None and error.mape_pct == pytest.approx(ranked.mean_std("mape_pct")[0])
    assert "(quick)" not in error.source and ranked.date_utc[:10] in error.source
    # with only the smoke test and the secondary board's record, no leaderboard record is quoted
    monkeypatch.setattr(results_mod, "read_entries", lambda dataset, *a, **k: [secondary, smoke])
    assert api._leaderboard_error(art) is None
    # control: the guard away, the newest record of the name is quoted, whichever board it is on
    monkeypatch.setattr(api, "_as_ranked", lambda e, boards: True)
    assert api._leaderboard_error(art).mape_pct in (11.0, 12.0)
