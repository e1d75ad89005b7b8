"""Tabular configs: the ML.ENERGY LLM serving runs, imported into the cache.

Rows come from the pinned, checksummed ML.ENERGY files (read from a local copy or downloaded);
nothing of them is committed. Each row gets a stable ``row_id`` (source file and position in it)
and a ``fold`` of the stratified 5-fold protocol (stratum = model), so every model appears in
every fold's training part when it has at least five configurations.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from perfgraphs.data.build import dataset_folder
from perfgraphs.data.manifest import write_manifest
from perfgraphs.registry import Config, Dataset

N_FOLDS = 5


def stratified_folds(ids: list[str], strata: list[str], n_folds: int = N_FOLDS) -> list[int]:
    """Fold per row: within each stratum, rows ordered by a hash of their id, dealt round-robin."""
    folds = [0] * len(ids)
    by_stratum: dict[str, list[int]] = {}
    for i, s in enumerate(strata):
        by_stratum.setdefault(s, []).append(i)
    for _, rows in sorted(by_stratum.items()):
        rows.sort(key=lambda i: hashlib.sha256(ids[i].encode()).hexdigest())
        for k, i in enumerate(rows):
            folds[i] = k % n_folds
    return folds


def build_mlenergy_config(dataset: Dataset, config: Config, home: Path | None = None,
                          external_dir: Path | None = None) -> Path:
    from perfgraphs.loaders import load_mlenergy

    table = load_mlenergy(external_dir)
    table = table.filter(pc.field("modality") != "diffusion")
    position: dict[str, int] = {}
    ids = []
    for source in table.column("source_file").to_pylist():
        position[source] = position.get(source, -1) + 1
        ids.append(f"{source}#{position[source]}")
    folds = stratified_folds(ids, table.column("model_id").to_pylist())
    table = table.append_column("row_id", pa.array(ids)).append_column("fold", pa.array(folds, pa.int32()))
    folder = dataset_folder(dataset, config, home)
    (folder / "data").mkdir(parents=True, exist_ok=True)
    path = folder / "data" / "train-00000-of-00001.parquet"
    tmp = path.with_suffix(".parquet.tmp")
    pq.write_table(table, tmp, compression="zstd")
    os.replace(tmp, path)
    write_manifest(folder, dataset.name, dataset.version, config.name, {"train": table.num_rows})
    return folder
