"""Does a store hold exactly the files its campaigns wrote? The checks shared by the reader and
``collect verify``, on files already read and verified one by one (:func:`store.read_verified`).

Per-file checksums cannot see a file that is gone together with its sidecar, or one that was
added; these checks compare what is there with what ``campaign.json`` records (shards) and with
what a crash can leave between the steps of a write (sidecars whose file never appeared, a shard
compacted but not yet recorded). What a crash leaves is a note; anything else is a problem.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from perfgraphs.collect.errors import CorruptShardError, IncompleteStoreError, StoreError
from perfgraphs.collect.metafile import META, PARTS, Inventory


def inventory_problems(root: Path, inventory: Inventory, shards: dict[str, tuple[pa.Table, str]],
                       part_ids: set[str]) -> tuple[list[StoreError], list[str]]:
    """Shards on disk (``"<platform>/<file>" -> (table, sha256)``) against what campaign.json records.

    A shard that is not recorded is a leftover of an interrupted compaction when every one of its
    rows is still in a pending part (the crash came between writing it and recording it); any other
    unrecorded shard was not written by this store's campaigns."""
    problems: list[StoreError] = []
    notes: list[str] = []
    for name, rec in sorted(inventory.shards.items()):
        path = root / name
        if name not in shards:
            problems.append(IncompleteStoreError(
                f"{path}: recorded in {root / META} ({rec['rows']} rows) but missing"))
            continue
        table, digest = shards[name]
        if table.num_rows != rec["rows"]:
            problems.append(IncompleteStoreError(
                f"{path} has {table.num_rows} rows; {root / META} records {rec['rows']}"))
        elif digest != rec["sha256"]:
            problems.append(CorruptShardError(path, f"not the shard {META} records (sha256 {digest[:12]}… "
                                                    f"instead of {rec['sha256'][:12]}…)"))
    for name in sorted(set(shards) - set(inventory.shards)):
        ids = set(shards[name][0].column("measurement_id").to_pylist())
        if ids <= part_ids:
            notes.append(f"{root / name}: leftover of an interrupted compaction (its rows are still in parts)")
        else:
            problems.append(IncompleteStoreError(
                f"{root / name}: not recorded in {root / META} (not written by this store's campaigns)"))
    return problems, notes


def orphan_problems(root: Path, inventory: Inventory | None, tables: dict[str, pa.Table]
                    ) -> tuple[list[StoreError], list[str]]:
    """Sidecars whose file is gone (``tables``: every file read, ``"<platform>/..." -> table``).

    Explained, hence notes: the temp file of the interrupted write is still there; a part's row
    is in another file (compaction deletes a part, then its sidecar); an unrecorded shard's (its
    compaction was never recorded, so its rows are still in parts). A recorded shard's missing
    file is :func:`inventory_problems`'s to report. Anything else means a deleted file."""
    problems: list[StoreError] = []
    notes: list[str] = []
    recorded = set(inventory.shards) if inventory is not None else set()
    for d in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")) if root.is_dir() else []:
        for sidecar in sorted(d.glob("*.parquet.sha256")) + sorted((d / PARTS).glob("*.parquet.sha256")):
            path = sidecar.with_name(sidecar.name[: -len(".sha256")])
            name = path.relative_to(root).as_posix()
            if path.exists() or name in recorded:
                continue
            key, _, mid = path.stem.rpartition("-")  # a part is <key>-<measurement_id[:8]>
            if any(sidecar.parent.glob(f".{path.name}.tmp-*")):
                notes.append(f"{sidecar}: sidecar of an interrupted write (its temp file is still there)")
            elif d / PARTS == sidecar.parent and any(
                    r["key"] == key and r["measurement_id"].startswith(mid)
                    for t in tables.values() for r in t.select(["key", "measurement_id"]).to_pylist()):
                notes.append(f"{sidecar}: sidecar left by an interrupted compaction (its row is in a shard)")
            elif d == sidecar.parent and inventory is not None:
                notes.append(f"{sidecar}: sidecar of a shard whose compaction was never recorded")
            else:
                problems.append(IncompleteStoreError(
                    f"{sidecar}: sidecar without its file ({path.name} was deleted, or lost with a crash)"))
    return problems, notes


def consistency(root: Path, inventory: Inventory | None, shards: dict[str, tuple[pa.Table, str]],
                parts: dict[str, pa.Table]) -> tuple[list[StoreError], list[str]]:
    """Whether the files read are all the store should hold: every recorded shard, no file gone."""
    problems: list[StoreError] = []
    notes: list[str] = []
    if inventory is None and shards and not (root / META).exists():
        problems.append(IncompleteStoreError(f"{root}: holds shards but no {META} (deleted?)"))
    if inventory is not None:
        part_ids = {i for t in parts.values() for i in t.column("measurement_id").to_pylist()}
        found, more = inventory_problems(root, inventory, shards, part_ids)
        problems += found
        notes += more
    found, more = orphan_problems(root, inventory, {k: t for k, (t, _) in shards.items()} | parts)
    return problems + found, notes + more
