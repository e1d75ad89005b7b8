"""The benchmark protocol runner: dataset × split × baseline × seeds → Evaluator → MLflow.

``run_benchmark(RunSpec(...))`` trains a reference baseline on the protocol's training part (the
validation part only for model selection), predicts the test part, scores it with the official
:class:`perfgraphs.evaluate.Evaluator`, and logs parameters, per-seed metrics, the per-family
table and two plots to MLflow with the dataset's name, version and content hash, the git commit,
package versions and hardware. The run identity is the hash of its arguments.

Data loading (:mod:`perfgraphs.evaluation.protocol`), the baselines' predictor interface
(:mod:`perfgraphs.leaderboard.predictors`) and the MLflow logging
(:mod:`perfgraphs.evaluation.mlflow_log`) are shared with the leaderboard harness.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from perfgraphs.evaluation.scoring import PER_CONFIG_KEY, score_seed
from perfgraphs.evaluation.mlflow_log import RunLog, log_run, mean_std
from perfgraphs.baselines.catalog import BASELINES, STATIC, baseline
from perfgraphs.leaderboard.predictors import BaselinePredictor
from perfgraphs.leaderboard.records.tiers import REPRODUCED
from perfgraphs.evaluation.protocol import ProtocolData, capped, protocol_parts
from perfgraphs.registry import TABULAR_ROWS, Task, task


@dataclass(frozen=True)
class RunSpec:
    dataset: str
    config: str
    target: str
    baseline: str
    seeds: tuple[int, ...] = (0,)
    quick: bool = False
    protocol: str | None = None  # None: the config's standard split
    # About this many training graphs (and a quarter as many validation graphs), family-
    # stratified; None: the whole parts. The quickstart's time budget, not a benchmark setting.
    max_train_graphs: int | None = None

    @property
    def identity(self) -> str:
        # optional fields join the hash only when set, so earlier runs keep their identity
        optional = ("protocol", "max_train_graphs")
        fields = {k: v for k, v in asdict(self).items() if not (k in optional and v is None)}
        return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:16]


@dataclass
class RunResult:
    spec: RunSpec
    board: Task  # the spec's board, resolved
    content_hash: str  # of the build the run was scored on
    per_seed: list[dict[str, Any]] = field(default_factory=list)
    fit_seconds: list[float] = field(default_factory=list)
    predict_per_second: list[float] = field(default_factory=list)
    num_params: int | None = None
    y_true: list[float] = field(default_factory=list)  # the test part's labels, in its order (the record's pairs)

    def mean_std(self, metric: str) -> tuple[float, float]:
        """Mean and sample standard deviation over seeds (the leaderboard's convention)."""
        return mean_std([r[metric] for r in self.per_seed])


def _fit_predict(predictor: BaselinePredictor, data: ProtocolData) -> tuple[np.ndarray, float, float]:
    """Predictions on the test part, fit seconds, predictions per second (featurization included)."""
    t0 = time.perf_counter()
    predictor.fit(data.train, data.validation)
    fit_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    pred = predictor.predict(data.test)
    return pred, fit_s, len(data.test) / max(time.perf_counter() - t1, 1e-9)


def _protocol_parts(spec: RunSpec, board: Task, home: Path | None) -> tuple[list[ProtocolData], ProtocolData]:
    """The parts to fit/predict, and the data whose ``test`` the concatenated predictions score
    (:func:`perfgraphs.evaluation.protocol.protocol_parts`, shared with the leaderboard harness),
    after refusing a graph baseline on a tabular config."""
    cfg = board.config
    if cfg.kind == TABULAR_ROWS:
        from perfgraphs.evaluation.tabular_protocol import GRAPHLESS_REASON, NOT_GRAPH_ROWS, check_baseline

        tabular = [b.name for b in BASELINES.values() if b.inputs == STATIC]
        check_baseline(spec.baseline, baseline(spec.baseline).inputs, tabular,
                       NOT_GRAPH_ROWS if cfg.platform else GRAPHLESS_REASON)
    return protocol_parts(board, home, protocol=spec.protocol)


def resolved(spec: RunSpec, board: Task) -> RunSpec:
    """``spec`` naming its protocol where the config has several fold protocols to choose from (a
    cross-validated config: its official one by default), so a run's identity and record say which
    folds scored it; a graph config's standard split stays unnamed (its earlier runs keep their identity)."""
    from dataclasses import replace

    if spec.protocol is None and board.cross_validated:
        return replace(spec, protocol=board.config.official_protocol)
    return spec


def run_benchmark(spec: RunSpec, home: Path | None = None, log: bool = True) -> RunResult:
    from perfgraphs.evaluation.evaluator import Evaluator

    baseline(spec.baseline)  # an unknown name: one line, before any data is read
    board = task(spec.dataset, spec.config, spec.target)
    evaluator = Evaluator.for_task(board)
    spec = resolved(spec, board)
    parts, data = _protocol_parts(spec, board, home)
    if spec.max_train_graphs is not None:
        parts = [capped(part, spec.max_train_graphs) for part in parts]
    result = RunResult(spec, board, data.content_hash)
    y_true = np.asarray(data.test[spec.target], dtype=float)
    result.y_true = y_true.tolist()
    for seed in spec.seeds:
        pred, fit_s, pps = [], 0.0, 0.0
        for part in parts:  # one part, or one per cross-validation fold (pooled out-of-fold predictions)
            predictor = BaselinePredictor(spec.baseline, spec.target, seed=seed, quick=spec.quick)
            p, f, n_per_s = _fit_predict(predictor, part)
            pred, fit_s, pps = pred + [p], fit_s + f, pps + n_per_s / len(parts)
        pred = np.concatenate(pred)
        labels = {"family": data.test["family"]}
        if "platform" in data.test.column_names:
            labels["platform"] = data.test["platform"]
        result.per_seed.append(score_seed(evaluator, data.test["sample_id"], y_true, pred, labels, seed))
        result.fit_seconds.append(fit_s)
        result.predict_per_second.append(pps)
        result.num_params = predictor.n_params
    if log:
        log_run(RunLog(run_name=f"{spec.baseline}-{spec.identity}", identity=spec.identity, target=spec.target,
                       params={**asdict(spec), "seeds": ",".join(map(str, spec.seeds))},
                       per_seed=result.per_seed, y_true=y_true, fit_seconds=result.fit_seconds,
                       predictions_per_second=result.predict_per_second), data, home)
    return result


def to_entry(result: RunResult):
    """The leaderboard record of a reference run: reproduced (the code ran here on the public test
    set; ``verified`` is for hidden test sets, :mod:`perfgraphs.leaderboard.records.tiers`)."""
    from perfgraphs.data.manifest import source_commit
    from perfgraphs.leaderboard.records.results import Entry
    from perfgraphs.tracking import environment_tags

    spec, ds = result.spec, result.board.dataset
    keep = ("seed", "n", "mape_pct", "rmse", "acc_5_pct", "acc_10_pct", "acc_15_pct", "kendall_tau", "per_family",
            PER_CONFIG_KEY)
    notes = (["quick"] if spec.quick else []) + (
        [f"{spec.max_train_graphs} training graphs"] if spec.max_train_graphs is not None else [])
    return Entry(
        method=spec.baseline + (f" ({', '.join(notes)})" if notes else ""),
        dataset=ds.name, dataset_version=ds.version, dataset_content_hash=result.content_hash,
        config=spec.config, target=spec.target, tier=REPRODUCED, division="closed",
        code_commit=source_commit(),
        per_seed=[{k: v for k, v in s.items() if k in keep} for s in result.per_seed],
        fit_seconds=float(np.mean(result.fit_seconds)),
        predictions_per_second=float(np.mean(result.predict_per_second)),
        num_params=result.num_params, hardware=environment_tags()["cpu"], run_identity=spec.identity,
        protocol=spec.protocol or "",
        actual_vs_predicted=_first_seed_pairs(result),
    )


def _first_seed_pairs(result: RunResult) -> list[list[float]]:
    """The first seed's (label, prediction) pairs, 4 significant digits each, as `submit` writes them: a
    board places a record with per-configuration ratios on its test configurations by them
    (:func:`perfgraphs.leaderboard.records.ranks.labels_place_it`)."""
    pred = result.per_seed[0].get("y_pred") if result.per_seed else None
    if not result.y_true or pred is None or len(pred) != len(result.y_true):
        return []
    return [[float(f"{t:.4g}"), float(f"{p:.4g}")] for t, p in zip(result.y_true, pred)]
