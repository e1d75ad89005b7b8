"""The units each dataset's standard splits are made of, and writing the committed split files
(``perfgraphs datasets splits <name>``).

* dippm / trappm: the structure hashes of the graph set's structures, from the graph pool (which
  must hold every structure the set selects).
* nnlqp: one unit per benchmarked (architecture, input size) — its ``structure_id`` — taken from
  the timm benchmark rows (and our own batch-1 platforms), so the split exists before every graph
  is exported. The input sizes of one architecture form one group, merged with any group whose
  exported graph has the same structure hash (two names for one graph); the group's smallest id
  decides its part. Hashes are known only for exported structures, so regenerate once the pool
  holds them all. The family is the timm module defining the architecture, as in the built config.
* llm: the ``row_id`` of every ML.ENERGY row (config ``mlenergy``), in folds stratified by model;
  and, in a file of its own, every row of our encoder measurements (config ``cpu-torch-fp32``,
  ``perfgraphs.data.llm_cpu``), stratified by model.
"""

from __future__ import annotations

import json
from pathlib import Path

from perfgraphs.data.splits import (PROTOCOLS, UnknownSplitError, few_shot_split, held_out_family, make_split,
                                    merge_groups, save_split)
from perfgraphs.errors import PerfgraphsError
from perfgraphs.registry import Dataset, get_dataset


def pool_groups(dataset: Dataset, pool=None) -> dict[str, str]:
    """Structure hash → family of every structure of a graph set (the pool must be complete)."""
    from perfgraphs.data.build import default_pool
    from perfgraphs.data.graph_pool import GraphPool, iter_samples

    pool = pool or GraphPool(default_pool())
    return {pool.structure(sid).one.structure_hash: family for family, sid, _ in iter_samples(pool, dataset.family_counts)}


def pool_hashes(pool_root: Path) -> tuple[dict[str, str], set[str]]:
    """Structure id → hash of every exported structure, and the ids whose export failed; reads
    only those columns (the pool may be growing while this runs)."""
    import pyarrow.parquet as pq

    from perfgraphs.data.graph_pool import read_parquet

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

    from perfgraphs.data.multiplatform import timm_module_of
    from perfgraphs.data.structures import structure_id

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


def llm_parts(table) -> dict[str, list[str]]:
    """fold<k> → row ids, from the rows' ``fold`` column."""
    parts: dict[str, list[str]] = {p: [] for p in PROTOCOLS["stratified-5-fold"]["parts"]}
    for row_id, fold in zip(table.column("row_id").to_pylist(), table.column("fold").to_pylist()):
        parts[f"fold{fold}"].append(row_id)
    return {p: sorted(v) for p, v in parts.items()}


def write_splits(name: str, pool_root: Path | None = None, external_dir: Path | None = None,
                 measurements_root: Path | None = None, config: str | None = None) -> list[tuple[Path, str]]:
    """Write every committed split file of a dataset (``config``: only that config's, where the
    dataset's configs have split files of their own); returns (path, one-line summary) each."""
    ds = get_dataset(name)
    if config is not None:
        ds.config(config)  # unknown names fail here, in one line
    written = []

    def save(protocol, seed, parts, unit="structure_hash", **about):
        path = save_split(ds.name, protocol, seed, parts, unit=unit, **about)
        written.append((path, ", ".join(f"{p} {len(v)}" for p, v in parts.items()) +
                        "".join(f"; {k} {v}" for k, v in about.items() if isinstance(v, str))))

    if ds.name in ("perfgraphs/dippm", "perfgraphs/trappm"):
        from perfgraphs.data.graph_pool import GraphPool

        groups = pool_groups(ds, GraphPool(pool_root) if pool_root else None)
        protocol = ds.default_config.split_protocols[0]
        for seed in PROTOCOLS[protocol]["seeds"]:
            save(protocol, seed, make_split(groups, protocol, seed))
    elif ds.name == "perfgraphs/nnlqp":
        from perfgraphs.data.build import default_pool
        from perfgraphs.data.multiplatform import own_platform_rows, timm_rows

        rows = timm_rows(external_dir)
        benchmarked = {(r["arch"], int(r["img_size"])) for r in rows if r["img_size"]}
        rows += [r for r in own_platform_rows(measurements_root)
                 if (r["arch"], r["img_size"]) in benchmarked]
        groups, families, mixed, labeled = nnlqp_units(rows, *pool_hashes(pool_root or default_pool()))
        n_families = len(set(families.values()))
        for fold in PROTOCOLS["leave-one-family-out"]["seeds"][:n_families]:
            parts, held, left_out = leave_one_family_out(groups, families, mixed, fold)
            save("leave-one-family-out", fold, parts, unit="structure_id", held_out_family=held,
                 left_out=left_out)
        for seed in PROTOCOLS["few-shot-platform"]["seeds"]:
            try:
                shot = few_shot_split(labeled, seed)
            except UnknownSplitError as exc:
                written.append((None, f"few-shot-platform seed {seed} skipped: {exc}"))
                continue
            save("few-shot-platform", seed, shot.pop("parts"), unit="structure_id", **shot)
    elif ds.name == "perfgraphs/llm":
        from perfgraphs.loaders.sources import ExternalSourceError

        if config in (None, "mlenergy"):
            from perfgraphs.data.tabular import mlenergy_rows

            try:
                save("stratified-5-fold", 0, llm_parts(mlenergy_rows(external_dir)), unit="row_id",
                     stratum="model_id", group="serving configuration (repeated measurements stay in one fold)")
            except ExternalSourceError as exc:
                if config is not None:
                    raise
                written.append((None, f"mlenergy skipped: {exc}"))
        if config in (None, "cpu-torch-fp32"):
            from perfgraphs.data.llm_cpu import encoder_rows

            table, _ = encoder_rows(measurements_root, ds.config("cpu-torch-fp32").platform)
            save("stratified-5-fold", 0, llm_parts(table), unit="row_id", config="cpu-torch-fp32",
                 stratum="model_id", deal="round-robin continued across strata (models in name order)",
                 rows=table.num_rows)
    else:
        raise PerfgraphsError(f"{ds.name} has no committed splits of its own (its rows follow the split of their source)")
    return written
