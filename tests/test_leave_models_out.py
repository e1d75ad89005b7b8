"""Leave-models-out, the official protocol of the perfgraphs/llm boards: folds grouped by model
(scikit-learn's GroupKFold over the normalised ``model_id``), committed as ``row_id`` lists.

The committed files are checked against ground truth read from the ids themselves, not from the
generator: an ML.ENERGY ``row_id`` names its source file (``models/<org>__<model>__<task>.json#k``,
one file per model and task), an encoder row's ``row_id`` its model (``hf:<name>@seq<n>#b<b>``).
"""

from __future__ import annotations

import json
import os

import numpy as np
import pyarrow as pa
import pytest

from perfgraphs.data.splits import (FOLD_PROTOCOLS, PROTOCOLS, UnknownSplitError, committed_test_fold,
                                    split_file, split_path)
from perfgraphs.data.tabular import grouped_fold_parts, grouped_folds, model_group
from perfgraphs.registry import DATASETS

LLM = next(ds for ds in DATASETS.values() if any(c.evaluation == "cv-folds" for c in ds.configs))
CV_CONFIGS = [c for c in LLM.configs if c.evaluation == "cv-folds"]


def _split_config(cfg):
    from perfgraphs.data.recipes import split_config

    return split_config(cfg)


def _model_of(row_id: str) -> str:
    """The model a row id names, read from the id's own text (independent of the generator)."""
    if row_id.startswith("models/"):  # ML.ENERGY: models/<org>__<model>__<task>.json#k
        org, model, _task = row_id.removeprefix("models/").split("#")[0].removesuffix(".json").split("__")
        return f"{org}/{model}"
    return row_id.split("@")[0]  # our encoder rows: hf:<name>@seq<n>#b<b>


def _committed(cfg, protocol):
    return split_file(LLM.name, protocol, 0, _split_config(cfg))


@pytest.mark.parametrize("cfg", CV_CONFIGS, ids=lambda c: c.name)
def test_registry_makes_leave_models_out_official_and_keeps_stratified(cfg):
    from perfgraphs.leaderboard.records.boards import BOARDS

    assert cfg.split_protocols == ("leave-models-out", "stratified-5-fold")
    assert cfg.official_protocol == "leave-models-out" and cfg.unrecorded_protocol == "stratified-5-fold"
    boards = [b for b in BOARDS if (b.dataset, b.config) == (LLM.name, cfg.name)]
    assert boards and all(b.protocol == "leave-models-out" for b in boards)


@pytest.mark.parametrize("cfg", CV_CONFIGS, ids=lambda c: c.name)
def test_no_model_in_train_and_test_of_a_committed_grouped_fold(cfg):
    parts = _committed(cfg, "leave-models-out")["parts"]
    assert list(parts) == list(PROTOCOLS["leave-models-out"]["parts"])
    models = {k: {_model_of(r) for r in ids} for k, ids in parts.items()}
    for k, test_models in models.items():
        train_models = set().union(*(m for j, m in models.items() if j != k))
        assert test_models and not test_models & train_models, k
    # case-insensitively too (the group is the normalised id)
    normalised = [{model_group(m) for m in ms} for ms in models.values()]
    assert sum(map(len, normalised)) == len(set().union(*normalised))


@pytest.mark.parametrize("cfg", CV_CONFIGS, ids=lambda c: c.name)
def test_grouped_folds_cover_every_row_once(cfg):
    grouped = _committed(cfg, "leave-models-out")["parts"]
    stratified = _committed(cfg, "stratified-5-fold")["parts"]  # the build's rows (a build must match it)
    ids = [r for part in grouped.values() for r in part]
    assert len(ids) == len(set(ids))  # no row in two folds
    assert set(ids) == {r for part in stratified.values() for r in part}  # and every row in one


@pytest.mark.parametrize("cfg", CV_CONFIGS, ids=lambda c: c.name)
def test_committed_stratified_files_are_the_originals(cfg):
    """The stratified folds keep their committed bytes (issue 18: StratifiedKFold cannot reproduce
    them, so they were not regenerated): sha256 of the files scored by the stratified records."""
    import hashlib

    expected = {"mlenergy": "48421ab1", "cpu-torch-fp32": "eefc1e49"}
    path = split_path(LLM.name, "stratified-5-fold", 0, _split_config(cfg))
    assert hashlib.sha256(path.read_bytes()).hexdigest()[:8] == expected[cfg.name]


def _table(row_ids, models):
    return pa.table({"row_id": row_ids, "model_id": models})


@pytest.mark.parametrize("cfg", CV_CONFIGS, ids=lambda c: c.name)
def test_the_generator_reproduces_the_committed_file_whatever_the_row_order(cfg):
    """The committed file is GroupKFold's output on the rows' models (here read from the ids),
    independent of row order: the same folds from the rows reversed and shuffled."""
    from perfgraphs.graph.zoo import resolve_hf_id

    committed = _committed(cfg, "leave-models-out")
    ids = sorted(r for part in committed["parts"].values() for r in part)
    # the config's model_id: ML.ENERGY's as its file names it, ours the shipped configuration's Hub id
    models = [_model_of(r) if r.startswith("models/") else resolve_hf_id(_model_of(r).removeprefix("hf:"))
              for r in ids]
    assert grouped_fold_parts(_table(ids, models)) == committed["parts"]
    order = np.random.default_rng(7).permutation(len(ids))
    for perm in (order, np.arange(len(ids))[::-1]):
        again = grouped_fold_parts(_table([ids[i] for i in perm], [models[i] for i in perm]))
        assert again == committed["parts"]


def test_a_model_spelled_with_other_case_or_whitespace_is_one_group():
    """Hugging Face ids resolve case-insensitively and hold no whitespace: ' qwen/QWEN3-8b\\t' is
    Qwen/Qwen3-8B, so its rows must share that model's fold (else the model is in train and test).
    A one-character difference is another model."""
    spellings = ["Qwen/Qwen3-8B", " qwen/QWEN3-8b", "Qwen/Qwen3-8B\t", "QWEN/qwen3-8b "]
    others = [f"org/model-{k}" for k in range(6)] + ["Qwen/Qwen3-8B-FP8"]
    models = [m for m in spellings for _ in range(3)] + [m for m in others for _ in range(4)]
    folds = grouped_folds(models)
    qwen = {folds[i] for i, m in enumerate(models) if m in spellings}
    assert len(qwen) == 1
    fp8 = {folds[i] for i, m in enumerate(models) if m == "Qwen/Qwen3-8B-FP8"}
    assert len(fp8) == 1
    # the grouping is what GroupKFold does with the normalised ids: 12 Qwen3-8B rows are one group,
    # the largest, so they fill a fold alone (4-row groups go elsewhere)
    assert sum(f in qwen for f in folds) == 12
    # raw, case-sensitive ids would have split the model: the normalisation is what prevents it
    from sklearn.model_selection import GroupKFold

    raw = np.empty(len(models), int)
    for k, (_, test) in enumerate(GroupKFold(5).split(np.zeros((len(models), 1)), groups=models)):
        raw[test] = k
    assert len({raw[i] for i, m in enumerate(models) if m in spellings}) > 1


def test_too_few_models_is_one_clear_error():
    from perfgraphs.errors import PerfgraphsError

    with pytest.raises(PerfgraphsError, match="needs at least 5 models, the rows have 4"):
        grouped_folds(["a/x", "A/X ", "b/y", "c/z", "d/w", "d/w"])


def test_a_row_the_committed_split_does_not_list_is_refused():
    cfg = next(c for c in CV_CONFIGS if _split_config(c))  # a config with files of its own: always committed
    ids = [r for part in _committed(cfg, "leave-models-out")["parts"].values() for r in part]
    folds = committed_test_fold(LLM.name, "leave-models-out", ids[:3], _split_config(cfg))
    assert folds.dtype.kind == "i" and len(folds) == 3
    with pytest.raises(UnknownSplitError, match=r"1 row\(s\) .* not in the committed leave-models-out split"):
        committed_test_fold(LLM.name, "leave-models-out", ids[:2] + ["hf:bert-base-uncased@seq7#b3"],
                            _split_config(cfg))
    with pytest.raises(UnknownSplitError, match="not a fold protocol"):
        committed_test_fold(LLM.name, "random-70-15-15", ids[:2])
    assert set(FOLD_PROTOCOLS) == {"stratified-5-fold", "leave-models-out"}


def test_legacy_llm_records_read_as_stratified_and_new_ones_as_recorded():
    from perfgraphs.leaderboard.records.results import RecordedBoards

    scoring_protocol = RecordedBoards().scoring_protocol
    cfg = CV_CONFIGS[0]
    assert scoring_protocol(LLM.name, cfg.name, "") == "stratified-5-fold"
    assert scoring_protocol(LLM.name, cfg.name, "leave-models-out") == "leave-models-out"
    graph = next(ds for ds in DATASETS.values() if ds.configs[0].kind == "graphs")
    assert scoring_protocol(graph.name, graph.configs[0].name, "") == graph.configs[0].split_protocols[0]


def test_each_llm_board_has_every_tabular_reference_on_leave_models_out():
    """The official llm boards rank leave-models-out entries only; the committed records hold a
    harness-scored entry (at least the CI-sized one) of every applicable reference baseline on each."""
    from perfgraphs.leaderboard.records.boards import BOARDS, applicable_baselines
    from perfgraphs.leaderboard.records.results import RESULTS_DIR, read_entries

    llm_boards = [b for b in BOARDS if b.dataset == LLM.name]
    assert llm_boards
    entries = read_entries(LLM.name, RESULTS_DIR)
    for board in llm_boards:
        grouped = [e for e in entries if (e.config, e.target, e.protocol) == (board.config, board.target,
                                                                              "leave-models-out")]
        assert {e.method.removesuffix(" (quick)") for e in grouped} >= set(applicable_baselines(board)), board.key


@pytest.mark.skipif(not os.environ.get("PERFGRAPHS_EXTERNAL_DIR"),
                    reason="the ML.ENERGY rows are imported from PERFGRAPHS_EXTERNAL_DIR (not in CI)")
def test_mlenergy_rows_regenerate_the_committed_grouped_file():
    from perfgraphs.data.tabular import mlenergy_rows

    cfg = next(c for c in CV_CONFIGS if c.recipe == "serving_runs")
    table = mlenergy_rows()
    assert grouped_fold_parts(table) == _committed(cfg, "leave-models-out")["parts"]
    # the ids' own model names agree with the rows' model_id column
    assert [_model_of(r) for r in table.column("row_id").to_pylist()] == table.column("model_id").to_pylist()


def test_split_file_says_how_it_was_made():
    for cfg in CV_CONFIGS:
        path = split_path(LLM.name, "leave-models-out", 0, _split_config(cfg))
        content = json.loads(path.read_text())
        assert "GroupKFold" in content["splitter"] and content["unit"] == "row_id"
