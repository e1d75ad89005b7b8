"""Tabular configs: the ML.ENERGY LLM serving runs, imported into the cache.

Rows come from the pinned, checksummed ML.ENERGY files (read from a local copy or downloaded);
none of their values is committed. Each row gets a stable ``row_id`` (source file and position in
it) and a ``fold`` of the stratified 5-fold protocol (stratum = model; a configuration measured
twice stays in one fold), so every model appears in every fold's training part when it has at
least five configurations. The folds are committed as ``row_id`` lists
(``data/splits/llm/stratified-5-fold-seed0.json``) and a build must agree with them.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from perfgraphs.data.build import dataset_folder
from perfgraphs.data.staging import StagedBuild
from perfgraphs.errors import PerfgraphsError
from perfgraphs.registry import MLENERGY, Config, Dataset

N_FOLDS = 5


# A serving configuration: rows equal on all of these are repeated measurements of one
# configuration, which must not be split between folds.
SERVING_CONFIG = ("model_id", "task", "gpu_model", "num_gpus", "max_num_seqs", "tensor_parallel",
                  "data_parallel", "expert_parallel")


def stratified_folds(ids: list[str], strata: list[str], n_folds: int = N_FOLDS,
                     groups: list | None = None, across_strata: bool = False) -> list[int]:
    """Fold per row: within each stratum, rows ordered by a hash of their id, dealt round-robin.

    Each stratum's deal starts at fold 0, or, with ``across_strata``, where the previous
    stratum's (strata in name order) stopped: then the folds' sizes differ by at most one even
    when strata are smaller than ``n_folds`` (a campaign's first rows). Rows with equal
    ``groups`` entries (repeated measurements of one configuration) then take the fold of the
    group's first row in that order, so a configuration is never in two folds.

    Why not scikit-learn's ``StratifiedKFold``: this deal *is* the committed protocol (the files in
    ``data/splits/llm/`` and the results scored on them). ``StratifiedKFold`` gives the same
    per-stratum fold sizes as ``across_strata`` (tests/test_sklearn_api.py checks it) but deals
    each stratum in contiguous blocks of the input order, i.e. other rows, and has no group
    rule; consumers read the committed folds through ``PredefinedSplit``
    (:func:`perfgraphs.evaluation.cv.official_cv`)."""
    folds = [0] * len(ids)
    by_stratum: dict[str, list[int]] = {}
    for i, s in enumerate(strata):
        by_stratum.setdefault(s, []).append(i)
    order = []
    for _, rows in sorted(by_stratum.items()):
        rows.sort(key=lambda i: hashlib.sha256(ids[i].encode()).hexdigest())
        start = len(order) if across_strata else 0
        for k, i in enumerate(rows):
            folds[i] = (start + k) % n_folds
        order += rows
    if groups is not None:
        first: dict = {}
        for i in order:
            folds[i] = folds[first.setdefault(groups[i], i)]
    return folds


def model_group(model_id: str) -> str:
    """The leave-models-out group of a row's ``model_id``: a Hugging Face repository id, which the
    Hub resolves case-insensitively and which cannot hold whitespace, so ``Qwen/Qwen3-8B`` and
    `` qwen/QWEN3-8b `` name one model. The rows keep their ids as published; only the grouping
    folds them."""
    return model_id.strip().casefold()


def grouped_folds(model_ids: list[str], n_folds: int = N_FOLDS) -> list[int]:
    """Fold per row of the leave-models-out protocol: scikit-learn's ``GroupKFold(n_folds)`` over
    :func:`model_group`, fold k being the k-th split's test part. ``GroupKFold`` without shuffling
    takes the groups in sorted order and deals the largest first to the smallest fold, so the
    folds depend only on the multiset of (group, row count), not on row order or a seed; no model
    is in two folds, and a serving configuration measured twice (one model) stays in one."""
    import numpy as np
    from sklearn.model_selection import GroupKFold

    groups = np.asarray([model_group(m) for m in model_ids])
    n_models = len(set(groups.tolist()))
    if n_models < n_folds:
        raise PerfgraphsError(f"leave-models-out with {n_folds} folds needs at least {n_folds} models, "
                              f"the rows have {n_models}")
    folds = np.empty(len(groups), dtype=int)
    for k, (_, test) in enumerate(GroupKFold(n_splits=n_folds).split(np.zeros((len(groups), 1)), groups=groups)):
        folds[test] = k
    return folds.tolist()


def grouped_fold_parts(table: pa.Table) -> dict[str, list[str]]:
    """fold<k> → row ids of the leave-models-out protocol (:func:`grouped_folds` of ``model_id``)."""
    parts: dict[str, list[str]] = {f"fold{k}": [] for k in range(N_FOLDS)}
    for row_id, fold in zip(table.column("row_id").to_pylist(), grouped_folds(table.column("model_id").to_pylist())):
        parts[f"fold{fold}"].append(row_id)
    return {p: sorted(v) for p, v in parts.items()}


def serving_configs(table: pa.Table) -> list[tuple]:
    columns = [table.column(k).to_pylist() for k in SERVING_CONFIG]
    return list(zip(*columns))


def mlenergy_rows(external_dir: Path | None = None) -> pa.Table:
    """The ML.ENERGY LLM / multimodal-LLM rows with their stable ``row_id`` and ``fold``."""
    from perfgraphs.loaders import load_mlenergy

    table = load_mlenergy(external_dir)
    table = table.filter(pc.field("modality") != "diffusion")
    position: dict[str, int] = {}
    ids = []
    for source in table.column("source_file").to_pylist():
        position[source] = position.get(source, -1) + 1
        ids.append(f"{source}#{position[source]}")
    folds = stratified_folds(ids, table.column("model_id").to_pylist(), groups=serving_configs(table))
    return table.append_column("row_id", pa.array(ids)).append_column("fold", pa.array(folds, pa.int32()))


def build_mlenergy_config(dataset: Dataset, config: Config, home: Path | None = None,
                          external_dir: Path | None = None) -> Path:
    from perfgraphs.data.splits import split_path
    from perfgraphs.data.splits import fold_parts

    table = mlenergy_rows(external_dir)
    path = split_path(dataset.name, "stratified-5-fold", 0)
    if path.exists():  # the committed id lists are the protocol: the build must agree with them
        from perfgraphs.data.splits import get_split

        if get_split(dataset.name, "stratified-5-fold", 0) != fold_parts(table):
            # new or changed upstream files change the rows; the split is regenerated on purpose,
            # never silently by a build, so say which command does it
            name = dataset.name.replace("perfgraphs/", "")
            raise PerfgraphsError(
                f"the ML.ENERGY rows no longer match the committed split {path} (the ML.ENERGY files "
                f"changed): `perfgraphs datasets splits {name} --config {config.name}` writes new split "
                f"files from them (commit them with the new files), then build again")
    with StagedBuild(dataset_folder(dataset, config, home)) as stage:
        stage.write_shard("train", 0, 1, table)
        # another external folder is another source: the files it holds make the build
        return stage.commit(dataset.name, dataset.version, config.name, mlenergy_inputs(external_dir),
                            registry_defaults=external_dir is None)


def mlenergy_inputs(external_dir: Path | None = None) -> list:
    """The ML.ENERGY files the importer reads (each file's name and sha256)."""
    from perfgraphs.data.build_inputs import external_input

    return [external_input(MLENERGY, external_dir)]
