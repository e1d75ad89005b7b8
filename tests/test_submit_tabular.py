"""The submission harness on a tabular config (``perfgraphs/llm`` ``mlenergy``): scored with the
benchmark runner's stratified 5-fold protocol, one sandboxed process per seed and fold, pooled
out-of-fold predictions of every row; the checker's rules (invariance probes, ids covering the
scored rows once) hold for the pooled folds.

Expected scores are recomputed here with numpy from the rows' own ``fold`` column and labels,
never taken from the harness. The ML.ENERGY rows are read from ``$PERFGRAPHS_EXTERNAL_DIR``
(conftest finds the shared copy); the tests that need them skip where it is absent.
"""

from __future__ import annotations

import hashlib
import textwrap
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from perfgraphs.cli import main
from perfgraphs.leaderboard.submit import SubmitOptions, evaluate_submission

REPO = Path(__file__).resolve().parents[1]
TARGET = "median_itl_ms"
# outcomes of a serving run besides the targets (loaders/mlenergy.py): never a predictor input
MLENERGY_OUTCOMES = ("avg_batch_size", "avg_output_len", "avg_power_watts", "energy_per_request_joules",
                     "p90_itl_ms", "p95_itl_ms", "p99_itl_ms")


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    from perfgraphs.data.load import load_dataset
    from perfgraphs.loaders.sources import ExternalSourceError

    home = tmp_path_factory.mktemp("home")
    try:
        load_dataset("llm", "mlenergy", home=home)
    except ExternalSourceError as exc:
        pytest.skip(f"ML.ENERGY data not available offline: {exc}")
    return home


@pytest.fixture(scope="module")
def rows(home):
    """The labeled rows as plain columns, as the loader gives them (not through the protocol code)."""
    from perfgraphs.data.load import load_dataset

    table = load_dataset("llm", "mlenergy", home=home)["train"].to_dict()
    keep = [i for i, v in enumerate(table[TARGET]) if v is not None]
    return {k: [v[i] for i in keep] for k, v in table.items()}


def opts(home, tmp_path, **kw) -> SubmitOptions:
    # these tests check the harness on the rows' own ``fold`` column: the stratified protocol (since
    # leave-models-out became the boards' default it is named; test_grouped_... covers the default)
    kw.setdefault("protocol", "stratified-5-fold")
    return SubmitOptions(dataset="llm", config="mlenergy", target=TARGET, quick=True, home=home,
                         results_root=tmp_path / "results", **kw)


def submission(folder: Path, method: str, source: str | None = None, **meta) -> Path:
    import yaml

    folder.mkdir(parents=True, exist_ok=True)
    base = {"method": method, "authors": ["test author"], "contact": "test@example.org",
            "code": {"url": "https://example.org/code", "commit": hashlib.sha1(method.encode()).hexdigest()},
            "paper": None, "external_data": False, "division": "closed",
            "hyperparameters": {"grid": {}, "chosen": {}}}
    if source is not None:
        (folder / "predictor.py").write_text(textwrap.dedent(source))
        base["entry_point"] = "predictor:Predictor"
    base.update(meta)
    (folder / "submission.yaml").write_text(yaml.safe_dump(base))
    return folder


def numpy_mape(y, pred) -> float:
    y, pred = np.asarray(y, dtype=float), np.asarray(pred, dtype=float)
    return float(np.mean(np.abs(y - pred) / y) * 100)


# -- the allow-list (no data needed) -----------------------------------------------------------

def test_input_columns_hold_every_feature_and_no_outcome():
    from perfgraphs.evaluation.tabular_protocol import input_columns
    from perfgraphs.data import llm_cpu, llm_features
    from perfgraphs.loaders.mlenergy import SCHEMA as MLENERGY_SCHEMA
    from perfgraphs.registry import get_dataset

    schemas = {"mlenergy": set(MLENERGY_SCHEMA.names), "cpu-torch-fp32": set(llm_cpu.SCHEMA.names)}
    features = {"mlenergy": {c for c, _ in llm_features.NUMERIC} | set(llm_features.CATEGORIES) | {"weight_precision"},
                "cpu-torch-fp32": {c for c, _ in llm_features.ENCODER_NUMERIC}}
    llm = get_dataset("llm")
    assert {c.name for c in llm.configs if c.input_columns} == set(schemas)
    for config, schema in schemas.items():
        columns = set(input_columns(llm, llm.config(config)))
        targets = {t.name for t in get_dataset("llm").config(config).targets}
        assert columns - {"sample_id", "family", "platform"} <= schema | {"row_id", "fold"}, config
        assert features[config] <= columns, config  # the reference predictors' features all cross
        assert not columns & targets, config
    assert not set(input_columns(llm, llm.config("mlenergy"))) & set(MLENERGY_OUTCOMES)
    cpu_measured = set(llm_cpu.MEASUREMENT_COLUMNS.values()) - {"structure_hash", "graph_gmacs_per_sample_batch1",
                                                                 "torch_version", "transformers_version",
                                                                 "python_version"}
    assert not set(input_columns(llm, llm.config("cpu-torch-fp32"))) & cpu_measured


# -- code submissions --------------------------------------------------------------------------

FOLD_MEAN = f"""
    import numpy as np

    HIDDEN = {("energy_per_token_joules", "median_itl_ms", "output_throughput_tokens_per_sec") + MLENERGY_OUTCOMES!r}


    class Predictor:
        def __init__(self, target, seed=0, quick=False):
            self.target = target

        def fit(self, train, val):
            assert val is None, "a fold has no validation part"
            self.train_folds = set(train["fold"])
            self.value = float(np.exp(np.mean(np.log(np.asarray(train[self.target], dtype=float)))))

        def predict(self, graphs):
            leaked = [c for c in HIDDEN if c in graphs.column_names]
            assert not leaked, f"outcome columns {{leaked}} in the test inputs"
            folds = set(graphs["fold"])
            assert len(folds) == 1 and not folds & self.train_folds, f"test {{folds}}, train {{self.train_folds}}"
            return np.full(len(graphs), self.value)
"""


@pytest.fixture(scope="module")
def stratified_fold_mean(home, tmp_path_factory):
    """FOLD_MEAN scored once on the stratified folds (two seeds, a check: 10 sandboxed fold
    processes), read by the two tests below: (verdict, the folder its results would go to)."""
    tmp = tmp_path_factory.mktemp("stratified")
    return evaluate_submission(submission(tmp / "fold-mean", "fold-mean", FOLD_MEAN), opts(home, tmp, seeds=(0, 1))), tmp


def test_code_submission_is_scored_on_pooled_out_of_fold_predictions(rows, stratified_fold_mean):
    """Each fold's process trains on the other folds' rows only and sees no outcome column; the
    score is the MAPE of every row predicted by the geometric mean of the other folds' labels."""
    verdict, tmp_path = stratified_fold_mean
    assert verdict.ok, verdict.problems
    y, fold = np.asarray(rows[TARGET], dtype=float), np.asarray(rows["fold"])
    pred = np.empty_like(y)
    for k in set(fold.tolist()):
        pred[fold == k] = np.exp(np.mean(np.log(y[fold != k])))
    expected = numpy_mape(y, pred)
    entry = verdict.entry
    assert [s["seed"] for s in entry.per_seed] == [0, 1]
    assert all(s["n"] == len(y) for s in entry.per_seed)  # every labeled row scored, once
    assert all(s["mape_pct"] == pytest.approx(expected, rel=1e-12) for s in entry.per_seed)
    assert entry.tier == "reproduced" and entry.fit_seconds is not None and entry.peak_memory_mb > 0
    # the harness's CPU seconds of the fit (every fold's) and the CPU set it ran on, beside wall time
    import os

    from test_sandbox_escape import cpu_seconds_within

    from perfgraphs.leaderboard.sandbox.confine import seccomp_program

    pinned = len(os.sched_getaffinity(0)) if seccomp_program() is not None else None  # none stated it could widen
    assert entry.cores == pinned and cpu_seconds_within(entry.fit_cpu_seconds, 0)
    assert all(s["cores"] == entry.cores and cpu_seconds_within(s["fit_cpu_seconds"], 0)
               and cpu_seconds_within(s["predict_cpu_seconds"], 0) for s in entry.per_seed)
    assert len(entry.actual_vs_predicted) == len(y)
    assert not (tmp_path / "results").exists()  # check writes nothing


def test_grouped_submission_is_scored_on_the_committed_leave_models_out_folds(home, rows, tmp_path,
                                                                             stratified_fold_mean):
    """The default protocol of the llm boards: each fold's process trains on the rows of the
    models outside its fold (the committed file, read here as plain JSON), and the entry says so."""
    import json

    from perfgraphs.data.splits import split_path

    verdict = evaluate_submission(submission(tmp_path / "fold-mean", "fold-mean", FOLD_MEAN),
                                  opts(home, tmp_path, protocol=None, seeds=(0,)))
    assert verdict.ok, verdict.problems
    committed = json.loads(split_path("perfgraphs/llm", "leave-models-out", 0).read_text())["parts"]
    fold_of = {rid: int(k.removeprefix("fold")) for k, ids in committed.items() for rid in ids}
    y, fold = np.asarray(rows[TARGET], dtype=float), np.asarray([fold_of[r] for r in rows["row_id"]])
    assert not set(np.asarray(rows["model_id"])[fold == 0]) & set(np.asarray(rows["model_id"])[fold != 0])
    pred = np.empty_like(y)
    for k in set(fold.tolist()):
        pred[fold == k] = np.exp(np.mean(np.log(y[fold != k])))
    entry = verdict.entry
    assert entry.protocol == "leave-models-out" and entry.per_seed[0]["n"] == len(y)
    assert entry.per_seed[0]["mape_pct"] == pytest.approx(numpy_mape(y, pred), rel=1e-12)
    stratified, _ = stratified_fold_mean  # the same submission on the stratified folds
    assert stratified.entry.protocol == "stratified-5-fold"
    assert stratified.entry.run_identity != entry.run_identity


ROW_ID_LOOKUP = """
    import hashlib

    import numpy as np


    class Predictor:
        def __init__(self, target, seed=0, quick=False):
            pass

        def fit(self, train, val):
            pass

        def predict(self, graphs):  # a per-row value read off the row's id
            return np.array([1 + int(hashlib.sha1(r.encode()).hexdigest(), 16) % 97 for r in graphs["row_id"]], float)
"""


def test_predictions_from_the_row_id_fail_the_relabelling_probe(home, tmp_path):
    verdict = evaluate_submission(submission(tmp_path / "ids", "row-id", ROW_ID_LOOKUP), opts(home, tmp_path))
    assert len(verdict.problems) == 1 and verdict.entry is None
    assert verdict.problems[0].startswith("seed 0, fold 0: predictions change when the test inputs are "
                                          "shuffled and their sample_ids re-labelled")


def test_reference_predictor_in_the_sandbox_predicts_what_the_runner_predicts(home, tmp_path):
    """The harness's path (Parquet round trip, allow-listed inputs, a fresh process) gives the
    benchmark runner's in-process predictions on a fold, to the last bit of a float64."""
    from perfgraphs.leaderboard.predictors import BaselinePredictor
    from perfgraphs.evaluation.protocol import protocol_parts
    from perfgraphs.evaluation.tabular_protocol import input_columns
    from perfgraphs.leaderboard.sandbox.harness import Limits, prepare_job, run_seed
    from perfgraphs.registry import task

    board = task("llm", "mlenergy", TARGET)
    parts, _ = protocol_parts(board, home)
    fold = parts[2]
    job = prepare_job(tmp_path / "job", REPO / "leaderboard" / "reference" / "llm-xgboost", "predictor:Predictor",
                      TARGET, True, fold.train, fold.validation, fold.test, Limits(),
                      input_columns=input_columns(board.dataset, board.config), label_columns=(TARGET,))
    out = run_seed(job, 3, Limits())
    ref = BaselinePredictor("llm-xgboost", TARGET, seed=3, quick=True).fit(fold.train, fold.validation)
    np.testing.assert_array_equal(out.pred, ref.predict(fold.test))


# -- predictions files and refusals ------------------------------------------------------------

def files_submission(folder: Path, home, rows, edit=None) -> Path:
    from perfgraphs.evaluation.protocol import protocol_parts
    from perfgraphs.registry import task

    _, whole = protocol_parts(task("llm", "mlenergy", TARGET), home, protocol="stratified-5-fold")
    (folder / "predictions").mkdir(parents=True, exist_ok=True)
    ids, y = list(rows["row_id"]), np.asarray(rows[TARGET], dtype=float)
    for seed in range(5):
        # 20 % off every row: at exactly 10 % (y * 1.1) float rounding put half the rows inside Acc(10%) for
        # the Evaluator and none for the record's check of its ratios, a record `submit` would refuse
        # (and `check` does since the twenty-seventh pass)
        table = pa.table({"sample_id": ids, "target": [TARGET] * len(ids), "value": y * 1.2})
        pq.write_table(edit(table) if edit and seed == 2 else table, folder / "predictions" / f"seed-{seed}.parquet")
    return submission(folder, "files", predictions="predictions",
                      dataset={"name": "perfgraphs/llm", "config": "mlenergy", "target": TARGET,
                               "version": whole.version, "content_hash": whole.content_hash},
                      reported={"mape_pct": {"mean": 20.0, "std": 0.0}})


def test_predictions_files_must_cover_every_row_once(home, rows, tmp_path):
    good = evaluate_submission(files_submission(tmp_path / "good", home, rows), opts(home, tmp_path))
    assert good.ok, good.problems
    assert good.entry.tier == "self-reported"
    assert [s["mape_pct"] for s in good.entry.per_seed] == pytest.approx([20.0] * 5, rel=1e-9)
    assert good.entry.per_seed[0]["n"] == len(rows["row_id"])

    for name, edit in (("missing", lambda t: t.slice(1)), ("duplicate", lambda t: pa.concat_tables([t, t.slice(0, 1)]))):
        bad = evaluate_submission(files_submission(tmp_path / name, home, rows, edit), opts(home, tmp_path))
        assert len(bad.problems) == 1 and bad.problems[0].startswith("seed-2.parquet: "), bad.problems
        assert bad.problems[0].endswith("give exactly one prediction per test sample_id")


def test_hidden_labels_are_refused_on_a_tabular_config_in_one_line(home, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PERFGRAPHS_HOME", str(home))
    monkeypatch.setenv("PERFGRAPHS_HIDDEN_DIR", str(tmp_path))
    sub = submission(tmp_path / "fold-mean", "fold-mean", FOLD_MEAN)
    rc = main(["check", str(sub), "--dataset", "llm", "--config", "mlenergy", "--target", TARGET, "--quick",
               "--hidden-labels"])
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert rc == 1 and len(err) == 1
    assert "tabular config, scored by 5-fold cross-validation" in err[0]
