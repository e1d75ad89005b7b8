"""The units the graph datasets' standard splits are made of (the recipes write the committed split
files from them: :func:`perfgraphs.data.recipes.write_splits`, ``perfgraphs datasets splits <name>``).

* dippm / trappm: the structure hashes of the graph set's structures, from the graph pool (which
  must hold every structure the set selects).
* nnlqp: one unit per benchmarked (architecture, input size) — its ``structure_id`` — taken from
  the timm benchmark rows (and our own batch-1 platforms), so the split exists before every graph
  is exported. The input sizes of one architecture form one group, merged with any group whose
  exported graph has the same structure hash (two names for one graph); the group's smallest id
  decides its part. Hashes are known only for exported structures, so regenerate once the pool
  holds them all. The family is the timm module defining the architecture, as in the built config.
  few-shot-platform seed k holds out the k-th platform of the committed platform order
  (``few-shot-platform-order.txt``); a platform discovered since is appended, so committed seeds keep theirs.
* llm: the ``row_id`` of every ML.ENERGY row (config ``mlenergy``), in folds stratified by model;
  and, in a file of its own, every row of our encoder measurements (config ``cpu-torch-fp32``,
  ``perfgraphs.data.llm_cpu``), stratified by model.
"""

from __future__ import annotations

import json
from pathlib import Path

from perfgraphs import paths
from perfgraphs.data.splits import held_out_family, make_split, merge_groups
from perfgraphs.registry import Dataset


def pool_groups(dataset: Dataset, pool=None) -> dict[str, str]:
    """Structure hash → family of every structure of a graph set (the pool must be complete)."""
    from perfgraphs.pool.graph_pool import GraphPool, iter_samples

    pool = pool or GraphPool(paths.graph_pool_dir())
    return {pool.structure(sid).one.structure_hash: family for family, sid, _ in iter_samples(pool, dataset.family_counts)}


def pool_hashes(pool_root: Path) -> tuple[dict[str, str], set[str]]:
    """Structure id → hash of every exported structure, and the ids whose export failed; reads
    only those columns (the pool may be growing while this runs)."""
    import pyarrow.parquet as pq

    from perfgraphs.pool.graph_pool import read_parquet

    hashes: dict[str, str] = {}
    for path in sorted(Path(pool_root).glob("*.parquet")):
        try:
            table = pq.read_table(path, columns=["structure_id", "structure_hash"])
        except Exception:
            read_parquet(path)  # raises the pool's one-line CorruptFileError
            raise
        hashes.update(zip(table.column(0).to_pylist(), table.column(1).to_pylist()))
    failures = Path(pool_root) / "failures.jsonl"
    failed = set()
    if failures.exists():
        failed = {json.loads(line)["structure_id"] for line in failures.read_text().splitlines() if line.strip()}
    return hashes, failed


def nnlqp_units(rows: list[dict], hashes: dict[str, str], failed: set[str]):
    """From benchmark rows (arch, img_size, platform, throughput_samples_per_s): the groups
    (key → structure ids), each group's family (its key's), the families of groups whose members
    come from several (one graph under two modules' names, e.g. deit_small_patch16_224 and
    vit_small_patch16_224) and, per platform, the groups labeled on it (key → its ids labeled
    there)."""
    import timm

    from perfgraphs.graph.zoo import timm_module_of
    from perfgraphs.pool.structures import structure_id

    family: dict[str, str] = {}
    arch: dict[str, str] = {}
    labeled_ids: dict[str, set[str]] = {}
    for r in rows:
        if not r.get("throughput_samples_per_s") or not r.get("img_size") or not timm.is_model(r["arch"]):
            continue
        sid = structure_id(f"timm:{r['arch']}", int(r["img_size"]))
        if sid in failed:
            continue  # cannot be exported: not in the built config either
        family[sid] = timm_module_of(r["arch"])
        arch[sid] = r["arch"]
        labeled_ids.setdefault(r["platform"], set()).add(sid)
    # all input sizes of an architecture together; and names that export to one graph
    groups = merge_groups({sid: [("arch", arch[sid]), ("hash", hashes[sid]) if sid in hashes else None]
                           for sid in family})
    key_of = {sid: key for key, members in groups.items() for sid in members}
    labeled: dict[str, dict[str, list[str]]] = {}
    for platform, ids in labeled_ids.items():
        for sid in sorted(ids):
            labeled.setdefault(platform, {}).setdefault(key_of[sid], []).append(sid)
    mixed = {key: sorted({family[s] for s in members}) for key, members in groups.items()
             if len({family[s] for s in members}) > 1}
    return groups, {key: family[key] for key in groups}, mixed, labeled


def leave_one_family_out(groups: dict[str, list[str]], families: dict[str, str], mixed: dict[str, list[str]],
                         fold: int) -> tuple[dict[str, list[str]], str, list[str]]:
    """Parts (structure ids), the held-out family and the ids left out of this fold: a group
    that is also a member of the held-out family under another name would put the held-out
    structure in training (or another family in test), so it sits the fold out."""
    held = held_out_family(families, fold)
    drop = {key for key, fams in mixed.items() if held in fams}
    parts = {p: [k for k in keys if k not in drop] for p, keys in make_split(families, "leave-one-family-out", fold).items()}
    return expand(parts, groups), held, sorted(s for key in drop for s in groups[key])


def expand(parts: dict[str, list[str]], groups: dict[str, list[str]]) -> dict[str, list[str]]:
    return {p: sorted(s for key in keys for s in groups[key]) for p, keys in parts.items()}
