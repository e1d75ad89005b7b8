"""The NNLQP-style multi-platform config: one graph per (architecture, input size), one latency
label per platform, from timm's published benchmark results (imported, never committed).

Platforms measure at different batch sizes (GPUs at large batches, CPUs at batch 1), so the
comparable label is the per-sample latency ``1000 / infer_samples_per_sec`` — a unit conversion
of the measured throughput, not an estimate; the measured batch latency and batch size are kept
beside it. Graphs are stored at batch 1.
"""

from __future__ import annotations

import math
import warnings
from functools import lru_cache
from pathlib import Path

import numpy as np
import pyarrow as pa

from perfgraphs import paths
from perfgraphs.data.build import _shard_table, dataset_folder, default_pool
from perfgraphs.data.graph_pool import GraphPool
from perfgraphs.data.staging import StagedBuild
from perfgraphs.data.splits import make_split
from perfgraphs.data.structures import structure_id
from perfgraphs.errors import PerfgraphsError
from perfgraphs.registry import OWN_NNLQP_PLATFORMS, Config, Dataset



def __getattr__(name: str):  # MEASUREMENTS_ROOT follows the data setting (perfgraphs.paths)
    if name == "MEASUREMENTS_ROOT":
        return paths.measurements_dir()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@lru_cache(maxsize=None)
def timm_module_of(arch: str) -> str:
    """The timm module that defines an architecture: its structural family."""
    from timm.models import _registry

    return _registry._model_to_module.get(arch, "unknown")


def timm_rows(external_dir: Path | None = None) -> list[dict]:
    from perfgraphs.loaders import load_timm_benchmark

    return load_timm_benchmark(external_dir).to_pylist()


def wanted_structures(rows: list[dict]) -> list[tuple[str, str, int]]:
    """(family, timm source, image size) of every buildable benchmarked architecture."""
    import timm

    items = {(timm_module_of(r["arch"]), f"timm:{r['arch']}", int(r["img_size"]))
             for r in rows if r["img_size"] and timm.is_model(r["arch"])}
    return sorted(items)


def own_platform_rows(root: Path | None = None) -> list[dict]:
    """Our batch-1 inference measurements on the nnlqp platforms, from every committed suite
    (a suite folder holds one sub-folder per platform). The label is the median of the timed
    runs, as for every latency target; ``latency_per_sample_ms`` equals it at batch 1."""
    from perfgraphs.collect.store import load_measurements

    out = []
    root = Path(root or paths.measurements_dir())
    for suite in sorted(p for p in root.iterdir() if p.is_dir()) if root.exists() else []:
        if not any((suite / platform).is_dir() for platform in OWN_NNLQP_PLATFORMS):
            continue
        for r in load_measurements(suite).to_pylist():
            if (r["status"] == "ok" and r["platform"] in OWN_NNLQP_PLATFORMS and r["batch_size"] == 1
                    and r.get("mode", "inference") == "inference" and r["image_size"]
                    and str(r["model"]).startswith("timm:")):
                out.append({"arch": r["model"].split(":", 1)[1], "img_size": int(r["image_size"]),
                            "platform": r["platform"], "batch_size": 1, "latency_ms": r["latency_median_ms"],
                            "throughput_samples_per_s": 1000.0 / r["latency_median_ms"]})
    return out


def nnlqp_inputs(measurements_root: Path | None = None, pool_root: Path | None = None) -> list:
    """What the config reads: timm's pinned results, every committed measurement suite (ours
    label the nnlqp platforms) and the graph pool."""
    from perfgraphs.data.build_inputs import external_input, tree_input

    return [external_input("timm-benchmark"),
            tree_input("measurements", Path(measurements_root or paths.measurements_dir()).absolute()),
            tree_input("graph pool", Path(pool_root or default_pool()).absolute())]


def build_nnlqp_config(dataset: Dataset, config: Config, pool: GraphPool | None = None, home: Path | None = None,
                       external_dir: Path | None = None, only: set[str] | None = None,
                       measurements_root: Path | None = None) -> Path:
    # external_dir is not an override: the importer accepts only the pinned bytes
    registry_defaults = pool is None and only is None and measurements_root is None
    pool = pool or GraphPool(default_pool())
    measurements_root = measurements_root or paths.measurements_dir()
    inputs = nnlqp_inputs(measurements_root, pool.root)  # digested before they are read
    rows = [r for r in timm_rows(external_dir) if r["throughput_samples_per_s"]]
    if only is not None:
        rows = [r for r in rows if r["arch"] in only]
    # our own platforms label the same (architecture, input size) graphs timm benchmarked
    benchmarked = {(r["arch"], int(r["img_size"])) for r in rows}
    rows += [r for r in own_platform_rows(measurements_root) if (r["arch"], r["img_size"]) in benchmarked]
    platforms = sorted({r["platform"] for r in rows})
    labels: dict[str, dict] = {}
    families: dict[str, str] = {}
    for r in rows:
        sid = structure_id(f"timm:{r['arch']}", int(r["img_size"]))
        entry = labels.setdefault(f"{sid}#b1", {})
        entry[f"latency_per_sample_ms__{r['platform']}"] = 1000.0 / r["throughput_samples_per_s"]
        entry[f"batch_latency_ms__{r['platform']}"] = r["latency_ms"]
        entry[f"batch_size__{r['platform']}"] = r["batch_size"]
        families[sid] = timm_module_of(r["arch"])
    # The set is what the pool holds: an architecture whose export failed (failures.jsonl) or has
    # not run yet is left out and listed in the manifest, so a partial pool still gives a
    # consistent, documented dataset rather than none.
    in_pool = set(pool.rows())
    failed = set(pool.failures())
    not_exported = sorted(sid for sid in families if sid not in in_pool and sid not in failed)
    export_failed = sorted(sid for sid in families if sid not in in_pool and sid in failed)
    if not any(sid in in_pool for sid in families):
        raise PerfgraphsError(f"none of the {len(families)} benchmarked structures is in the graph pool: "
                              "run `perfgraphs datasets build-pool --nnlqp`")
    if not_exported:
        warnings.warn(f"{len(not_exported)} benchmarked structures are not in the graph pool yet (e.g. "
                      f"{not_exported[0]}) and are left out; `perfgraphs datasets build-pool --nnlqp` adds them",
                      stacklevel=2)
    samples = [(families[sid], sid, 1) for sid in sorted(families) if sid in in_pool]
    labels = {k: v for k, v in labels.items() if k.split("#", 1)[0] in in_pool}
    for sample_id, entry in labels.items():
        entry["y"] = [entry.get(f"latency_per_sample_ms__{p}", math.nan) for p in platforms]
    groups = {pool.structure(sid).one.structure_hash: fam for fam, sid, _ in samples}
    parts = make_split(groups, "random-70-15-15", 0)
    part_of = {h: p for p, hs in parts.items() for h in hs}
    with StagedBuild(dataset_folder(dataset, config, home)) as stage:
        for part in parts:
            chunk = [s for s in samples if part_of[pool.structure(s[1]).one.structure_hash] == part]
            if not chunk:
                continue
            table = _shard_table(chunk, pool, part)
            ids = table.column("sample_id").to_pylist()
            table = table.set_column(table.schema.get_field_index("y"), "y",
                                     pa.array([[labels[i]["y"]] for i in ids], pa.list_(pa.list_(pa.float64()))))
            for p in platforms:
                for prefix in ("latency_per_sample_ms__", "batch_latency_ms__", "batch_size__"):
                    table = table.append_column(prefix + p, pa.array([labels[i].get(prefix + p) for i in ids]))
            stage.write_shard(part, 0, 1, table)
        stage.write_file("platforms.txt", ("\n".join(platforms) + "\n").encode())
        return stage.commit(dataset.name, dataset.version, config.name, inputs, registry_defaults,
                            {"left_out": {"not_exported_yet": not_exported, "export_failed": export_failed}})


def leave_one_family_out(families: dict[str, str], held_out: str) -> dict[str, list[str]]:
    """Structure hash → family; the held-out family is the test part ("unseen structure")."""
    if held_out not in set(families.values()):
        raise PerfgraphsError(f"no family {held_out!r} to hold out")
    return {"train": sorted(h for h, f in families.items() if f != held_out),
            "test": sorted(h for h, f in families.items() if f == held_out)}


def few_shot_platform(labeled: dict[str, list[str]], platform: str, shots: int = 32, seed: int = 0) -> dict:
    """Platform → structure hashes labeled on it. Train on every other platform plus ``shots``
    structures of ``platform``; test on the rest of ``platform``."""
    if platform not in labeled:
        raise PerfgraphsError(f"unknown platform {platform!r}")
    rng = np.random.default_rng(seed)
    target = sorted(labeled[platform])
    chosen = sorted(rng.choice(target, size=min(shots, len(target)), replace=False).tolist())
    return {"held_out_platform": platform, "few_shot": chosen,
            "test": sorted(set(target) - set(chosen)),
            "train_platforms": sorted(p for p in labeled if p != platform)}
