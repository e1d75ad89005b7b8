"""The 5-fold protocols of the tabular LLM configs (``perfgraphs/llm``: ``mlenergy``,
``cpu-torch-fp32``).

Every row is predicted once, by a model trained on the other four folds, and scores are computed
over the pooled out-of-fold predictions of all rows, so one run is one Evaluator call over the
whole config, with ``row_id`` as the sample id. Two fold protocols (registry ``split_protocols``):
``leave-models-out``, the boards' official one (folds grouped by model, read from the committed
split file: no test model is in its training rows), and the LLM study's ``stratified-5-fold``
(the ``fold`` column of the built config, stratified by model: every model in every training fold). Family and platform:
for ``mlenergy`` the model's organisation (``Qwen``, ``meta-llama``, ...) and the GPU model; for
``cpu-torch-fp32`` the rows' own ``family`` (bert / roberta / deberta) and ``platform`` columns.

Graph baselines do not apply: the ``mlenergy`` rows are ML.ENERGY serving runs of decoder LLMs
whose architectures this project cannot turn into graphs offline (:data:`GRAPHLESS_REASON`); the
``cpu-torch-fp32`` rows carry model + hardware features, not graphs (:data:`NOT_GRAPH_ROWS`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from perfgraphs.data.tabular import SERVING_CONFIG
from perfgraphs.errors import PerfgraphsError
from perfgraphs.registry import Config, Dataset, Task

GRAPHLESS_REASON = (
    "the perfgraphs/llm mlenergy rows are ML.ENERGY serving runs of decoder LLMs (Qwen3, Llama 3/4, "
    "DeepSeek, gpt-oss, Gemma 3, Nemotron) that cannot be graphed offline: the hf: source ships configs "
    "of the nine encoder LLMs of the research only")
NOT_GRAPH_ROWS = (
    "the perfgraphs/llm cpu-torch-fp32 rows are tabular (model + hardware features of each measured "
    "forward; the encoders' graphs are `perfgraphs graph hf:<id>` sources, joinable by structure_hash, "
    "not part of this config)")
# the fewest training rows a fold may leave: llm-xgboost selects its grid point on a held-out row
MIN_TRAIN_ROWS = 2
TABULAR_KINDS = ("static",)
# the configuration of a serving run; rows equal on all of these are repeated measurements
CONFIG_KEY = SERVING_CONFIG
# Besides these ids, what a predictor may see of a held-out fold's rows is the config's
# ``input_columns`` (registry: the leaderboard harness's allow-list).
ID_COLUMNS = ("row_id", "fold", "sample_id", "family", "platform")


class TabularProtocolError(PerfgraphsError):
    """A baseline or split the tabular protocol cannot run."""


@dataclass(frozen=True)
class Fold:
    index: int
    train: Any  # datasets.Dataset: every other fold
    test: Any  # datasets.Dataset: this fold


def input_columns(ds: Dataset, cfg: Config) -> tuple[str, ...]:
    """The columns of a tabular config's held-out rows that a submitted predictor may see."""
    if not cfg.input_columns:
        raise TabularProtocolError(f"{ds.name}/{cfg.name} has no input-column list for the leaderboard harness: add "
                                   "its input_columns to the registry")
    return ID_COLUMNS + cfg.input_columns


def with_eval_columns(rows):
    """``sample_id`` (= ``row_id``), ``family`` and ``platform`` columns, where the rows lack them:
    ML.ENERGY rows get the model's organisation and the GPU model."""
    extra = {
        "sample_id": lambda: list(rows["row_id"]),
        "family": lambda: [m.split("/", 1)[0] for m in rows["model_id"]],
        "platform": lambda: list(rows["gpu_model"]),
    }
    for name, values in extra.items():
        if name not in rows.column_names:
            rows = rows.add_column(name, values())
    return rows


def folds(rows, test_fold=None) -> list[Fold]:
    """One :class:`Fold` per fold, in order: the splits of scikit-learn's ``PredefinedSplit`` on
    ``test_fold`` (each row's fold; default the ``fold`` column,
    :func:`perfgraphs.evaluation.cv.official_cv`)."""
    from sklearn.model_selection import PredefinedSplit

    from perfgraphs.evaluation.cv import official_cv

    cv = official_cv(rows) if test_fold is None else PredefinedSplit(np.asarray(test_fold))
    values = np.unique(cv.test_fold).tolist()
    if len(values) < 2:
        raise TabularProtocolError(f"cross-validation needs at least two folds, the rows have {values}")
    out = []
    for k, (train, test) in zip(values, cv.split()):
        if len(train) < MIN_TRAIN_ROWS:
            raise TabularProtocolError(
                f"fold {k} leaves {len(train)} training row{'s' if len(train) != 1 else ''} of {len(cv.test_fold)}; "
                f"the tabular baselines need at least {MIN_TRAIN_ROWS}")
        out.append(Fold(k, rows.select(train), rows.select(test)))
    return out


def check_baseline(name: str, kind: str, tabular_baselines: list[str], reason: str = GRAPHLESS_REASON) -> None:
    if kind not in TABULAR_KINDS:
        raise TabularProtocolError(f"{name} needs computation graphs, but {reason}. "
                                   f"Tabular baselines: {', '.join(sorted(tabular_baselines))}")


def repeated_measurements(rows, target: str) -> list[list[float]]:
    """Values of ``target`` for every serving configuration measured more than once."""
    groups: dict[tuple, list[float]] = {}
    # [:] reads a whole column at once: a Hugging Face Dataset's column indexed row by row is an
    # Arrow select per value (12 s for the llm build, paid on every page showing its floor)
    columns = {k: rows[k][:] for k in CONFIG_KEY}
    for i, value in enumerate(rows[target][:]):
        if value is not None:
            groups.setdefault(tuple(columns[k][i] for k in CONFIG_KEY), []).append(float(value))
    return [v for v in groups.values() if len(v) > 1]


def noise_floor_sentence(rows, target: str) -> str:
    """The labels' noise floor as far as the data show it: the MAPE between repeated measurements
    of one configuration (each measurement taken in turn as the truth for the others)."""
    repeats = repeated_measurements(rows, target)
    if not repeats:
        return ("Noise floor: ML.ENERGY publishes one measurement per serving configuration, so none is "
                "measurable from these rows.")
    errors = [abs(a - b) / a for values in repeats for i, a in enumerate(values)
              for j, b in enumerate(values) if i != j]
    n = len(repeats)
    few = " — a single pair, an indication rather than a floor" if n == 1 else ""
    return (f"Noise floor of the labels: {n} serving configuration{'s' if n > 1 else ''} measured more than once "
            f"in the data disagree{'s' if n == 1 else ''} by **{100 * float(np.mean(errors)):.1f} % MAPE**{few}.")


def protocol_test_fold(task: Task, protocol: str, rows):
    """Each row's fold under ``protocol``: None for the stratified protocol (the rows' ``fold``
    column), the committed file's folds (by ``row_id``) for leave-models-out."""
    from perfgraphs.data.recipes import split_config
    from perfgraphs.data.splits import committed_test_fold

    cfg = task.config
    if protocol not in cfg.split_protocols:
        raise TabularProtocolError(f"{task.dataset.name}/{cfg.name} has no protocol {protocol!r} "
                                   f"(protocols: {', '.join(cfg.split_protocols)})")
    if protocol == "stratified-5-fold":
        return None
    return committed_test_fold(task.dataset.name, protocol, list(rows["row_id"]), split_config(cfg))


# The folds of each (build, target, fold assignment) once per process: a board's ranks, its noise
# floor and its page each ask for them, and cutting a build into folds costs about a second.
# The parts are Hugging Face datasets, which no caller changes in place.
_FOLDS: dict[tuple, tuple] = {}
_FOLDS_LIMIT = 16


def _remember(key: tuple, split: tuple) -> None:
    if len(_FOLDS) >= _FOLDS_LIMIT:
        _FOLDS.pop(next(iter(_FOLDS)))  # the oldest
    _FOLDS[key] = split


def fold_protocols(task: Task, home=None, protocol: str | None = None):
    """``(folds, whole)``: one :class:`perfgraphs.evaluation.protocol.ProtocolData` per fold
    (train = the other folds, no validation part: selection happens inside the training rows),
    and one whose ``test`` is every row in fold order (what the pooled predictions are scored
    against), of the rows labeled with the task's target; ``protocol``: one of the config's
    ``split_protocols`` (default its official one)."""
    import datasets

    from perfgraphs.evaluation.parts import ProtocolData, labeled_parts
    from perfgraphs.data.load import load_build

    ds, cfg, target = task.dataset, task.config, task.target.name
    loaded = load_build(ds, cfg, home=home)
    data = labeled_parts(loaded.data, target)
    if "train" not in data:
        raise TabularProtocolError(f"{ds.name}/{cfg.name} has no rows labeled with {target}")
    rows = with_eval_columns(data["train"])
    common = dict(dataset=ds.name, config=cfg.name, version=ds.version,
                  content_hash=loaded.manifest.get("content_hash", ""))
    protocol = protocol or cfg.official_protocol
    try:
        test_fold = protocol_test_fold(task, protocol, rows)
        if test_fold is not None:
            # the rows a predictor sees carry the protocol's folds, not the stratified ones the
            # dataset stores: a submission that splits its training rows by ``fold`` (an inner
            # cross-validation) then keeps every model within one of its folds too
            rows = rows.remove_columns("fold").add_column("fold", [int(k) for k in test_fold])
        # the parts follow from the build's rows (its manifest), the target and each row's fold
        # (the fold column: the protocol's where it has its own, set just above)
        fold = np.asarray(rows["fold"][:] if "fold" in rows.column_names else [], dtype=np.int64)
        key = (loaded.manifest.get("manifest_sha256"), ds.name, cfg.name, target, hashlib.sha256(fold.tobytes()).hexdigest())
        split = _FOLDS.get(key) if key[0] else None
        if split is None:
            parts = folds(rows, test_fold)
            split = parts, datasets.concatenate_datasets([p.test for p in parts])
            if key[0]:
                _remember(key, split)
        parts, whole = split
    except TabularProtocolError as exc:
        raise TabularProtocolError(f"{ds.name}/{cfg.name}: {exc} (its measurement campaign may still be filling it)"
                                   if cfg.platform else f"{ds.name}/{cfg.name}: {exc}") from None
    return ([ProtocolData(**common, train=p.train, validation=None, test=p.test) for p in parts],
            ProtocolData(**common, train=None, validation=None, test=whole))
