"""The standard protocol's data: one registered dataset config, loaded into its train / validation /
test parts with the version and content hash that identify it.

Shared by the benchmark runner and the leaderboard harness, so a reference baseline and a
submitted predictor are trained and scored on exactly the same parts: :func:`protocol_parts`
is the one place that decides what "the protocol" of a config is (the standard split of a graph
config, the stratified folds of a tabular one).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from perfgraphs.errors import PerfgraphsError
from perfgraphs.evaluation.parts import ProtocolData, labeled_parts  # noqa: F401  (public here)
from perfgraphs.registry import Config, Dataset, Target, Task


def load_protocol(dataset: str, config: str, home: Path | None = None, target: str | None = None) -> ProtocolData:
    """Load (building on first use) a config and split it into the protocol's parts; with
    ``target``, only the rows labeled with it."""
    from perfgraphs.registry import get_dataset

    ds = get_dataset(dataset)
    cfg = ds.config(config)
    return protocol_data(ds, cfg, home, None if target is None else cfg.target(target))


def protocol_data(ds: Dataset, cfg: Config, home: Path | None = None, target: Target | None = None) -> ProtocolData:
    """:func:`load_protocol` of a config already resolved against the registry: the parts, and the
    version, content hash and generators of the build they were read from."""
    from perfgraphs.data.load import load_build

    loaded = load_build(ds, cfg, home=home)
    data = loaded.data if target is None else labeled_parts(loaded.data, target.name)
    if "train" not in data or "test" not in data:
        raise PerfgraphsError(f"{ds.name}/{cfg.name} has no train/test parts yet")
    return ProtocolData(
        dataset=ds.name, config=cfg.name, version=ds.version, content_hash=loaded.manifest.get("content_hash", ""),
        train=data["train"], validation=data["validation"] if "validation" in data else None, test=data["test"],
        generators=dict(loaded.manifest.get("generators", {})))


def _regroup(data, parts: dict[str, list[str]], unit: str = "structure_hash") -> dict:
    """Rows of every loaded part, re-assigned to ``parts`` (ids in the ``unit`` column, e.g.
    structure hashes); rows whose structure the split does not list are left out."""
    import datasets

    pooled = datasets.concatenate_datasets(list(data.values()))
    part_of = {h: name for name, hashes in parts.items() for h in hashes}
    rows: dict[str, list[int]] = {name: [] for name in parts}
    for i, h in enumerate(pooled[unit]):
        if h in part_of:
            rows[part_of[h]].append(i)
    return {name: pooled.select(idx) for name, idx in rows.items() if idx}


def held_out_family_folds(task: Task, home: Path | None = None) -> tuple[list[ProtocolData], ProtocolData]:
    """Leave-one-family-out ("unseen structure"): one ProtocolData per committed fold, and the
    pooled data whose ``test`` is every fold's test part in fold order (the folds' test families
    are disjoint, so each structure is scored once, by the model that never saw its family)."""
    import datasets

    from perfgraphs.data.splits import PROTOCOLS, split_file

    base = protocol_data(task.dataset, task.config, home, task.target)
    loaded = {k: v for k, v in (("train", base.train), ("validation", base.validation), ("test", base.test))
              if v is not None}
    n_families = len({f for part in loaded.values() for f in part["family"]})
    folds = []
    for fold in PROTOCOLS["leave-one-family-out"]["seeds"][:n_families]:
        committed = split_file(task.dataset.name, "leave-one-family-out", fold)
        parts = _regroup(loaded, committed["parts"], committed["unit"])
        if "train" not in parts or "test" not in parts:
            continue  # the target has no labels in this fold's family
        folds.append(ProtocolData(dataset=base.dataset, config=base.config, version=base.version,
                                  content_hash=base.content_hash, train=parts["train"],
                                  validation=parts.get("validation"), test=parts["test"]))
    if not folds:
        raise PerfgraphsError(f"{base.dataset}/{base.config} has no leave-one-family-out fold with "
                              f"{task.target.name} labels")
    pooled_test = datasets.concatenate_datasets([f.test for f in folds])
    return folds, ProtocolData(dataset=base.dataset, config=base.config, version=base.version,
                               content_hash=base.content_hash, train=base.train, validation=base.validation,
                               test=pooled_test)


def stratified_subset(part, limit: int):
    """About ``limit`` rows of a Hugging Face dataset part (a part no larger is returned as is),
    each family keeping its share, rounded, and at least one row: evenly spaced positions in
    ``sample_id`` order, so the same rows whatever order the part was stored in."""
    if limit < 1:
        raise PerfgraphsError(f"a training cap must be at least 1 graph, got {limit}")
    if part is None or len(part) <= limit:
        return part
    ids, families = part["sample_id"], part["family"]
    by_family: dict[str, list[int]] = {}
    for i in sorted(range(len(ids)), key=lambda i: str(ids[i])):
        by_family.setdefault(families[i], []).append(i)
    keep = []
    for rows in by_family.values():
        share = max(1, round(limit * len(rows) / len(ids)))
        keep += [rows[j] for j in np.linspace(0, len(rows) - 1, min(share, len(rows))).round().astype(int)]
    return part.select(sorted(keep))


def capped(data: ProtocolData, max_train_graphs: int) -> ProtocolData:
    """``data`` with about ``max_train_graphs`` training and a quarter as many validation graphs
    (family-stratified); the test part is untouched, so scores stay comparable in what they score."""
    return replace(data, train=stratified_subset(data.train, max_train_graphs),
                   validation=stratified_subset(data.validation, max(1, max_train_graphs // 4)))


def protocol_parts(task: Task, home: Path | None = None,
                   protocol: str | None = None) -> tuple[list[ProtocolData], ProtocolData]:
    """``(parts, whole)``: the parts a predictor is fitted on and predicts, one after the other,
    and the data whose ``test`` part their concatenated predictions are scored against.

    Graph configs: the standard split (one part, ``whole`` is that part) or, with ``protocol``,
    ``leave-one-family-out``. Tabular configs: 5-fold cross-validation under ``protocol`` (default
    the official ``leave-models-out``; ``stratified-5-fold``), one part per fold (train = the other
    folds' rows, test = the fold's rows), ``whole.test`` every row in fold order (pooled
    out-of-fold predictions)."""
    cfg = task.config
    if task.cross_validated:
        from perfgraphs.evaluation.tabular_protocol import fold_protocols

        return fold_protocols(task, home, protocol=protocol)
    if protocol == "leave-one-family-out":
        return held_out_family_folds(task, home)
    if protocol not in (None, *cfg.split_protocols[:1]):
        raise PerfgraphsError(f"protocol {protocol!r} is not runnable for {task.dataset.name}/{cfg.name} "
                              f"(runnable: {cfg.split_protocols[0]}, leave-one-family-out)")
    data = protocol_data(task.dataset, cfg, home, task.target)
    return [data], data
