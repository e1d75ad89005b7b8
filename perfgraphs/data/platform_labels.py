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
from pathlib import Path

import pyarrow as pa

from perfgraphs import paths
from perfgraphs.data.build import _shard_table, dataset_folder
from perfgraphs.pool.graph_pool import GraphPool
from perfgraphs.data.staging import StagedBuild
from perfgraphs.data.splits import make_split
from perfgraphs.pool.structures import structure_id
from perfgraphs.errors import PerfgraphsError
from perfgraphs.graph.zoo import timm_module_of
from perfgraphs.registry import Config, Dataset


def timm_rows(external_dir: Path | None = None) -> list[dict]:
    """The rows of every timm result file of the external folder that parses."""
    from perfgraphs.loaders import load_timm_benchmark

    return load_timm_benchmark(external_dir).to_pylist()


def wanted_structures(rows: list[dict]) -> list[tuple[str, str, int]]:
    """(family, timm source, image size) of every buildable benchmarked architecture."""
    import timm

    items = {(timm_module_of(r["arch"]), f"timm:{r['arch']}", int(r["img_size"]))
             for r in rows if r["img_size"] and timm.is_model(r["arch"])}
    return sorted(items)


def own_platform_rows(root: Path | None = None) -> list[dict]:
    """Our batch-1 inference measurements on our CPU platforms (those the stores hold:
    :func:`perfgraphs.data.platforms.cpu_store_platforms`), from every store a dataset may read
    (:func:`perfgraphs.data.platforms.dataset_stores`: not the held-out test sets) whose rows were
    measured under a wall-clock protocol (``Protocol.label``): the CPU-time suites' rows are another
    protocol (fewer, budgeted runs, a quiet gate) with another label, and their stores grow while a
    campaign runs, which would change this config's build under its pinned boards. ``store`` names
    the suite of each row. The label is the median of the timed runs, as for every latency target;
    ``latency_per_sample_ms`` equals it at batch 1."""
    from perfgraphs.collect.protocols import PROTOCOLS
    from perfgraphs.collect.store import load_measurements
    from perfgraphs.data.platforms import cpu_store_platforms, dataset_stores

    own = {p.name for p in cpu_store_platforms(root)}
    wall_clock = {name for name, p in PROTOCOLS.items() if p.label == "latency_median_ms"}
    out = []
    for suite in dataset_stores(Path(root) if root else None):
        if not any((suite / platform).is_dir() for platform in own):
            continue
        for r in load_measurements(suite).to_pylist():
            if (r["status"] == "ok" and r["platform"] in own and r["batch_size"] == 1
                    and r.get("protocol") in wall_clock
                    and r.get("mode", "inference") == "inference" and r["image_size"]
                    and str(r["model"]).startswith("timm:")):
                out.append({"arch": r["model"].split(":", 1)[1], "img_size": int(r["image_size"]),
                            "platform": r["platform"], "batch_size": 1, "latency_ms": r["latency_median_ms"],
                            "throughput_samples_per_s": 1000.0 / r["latency_median_ms"], "store": suite.name})
    return out


def built_platform_records(rows: list[dict], timm: tuple, root: Path) -> list[dict]:
    """The provenance of every platform the rows label (perfgraphs.data.platforms.LabelPlatform records, by
    name): a timm platform from its result file, one of ours from the stores its rows came from."""
    from dataclasses import replace

    from perfgraphs.data.platforms import cpu_store_platforms

    labeled = {r["platform"] for r in rows}
    stores: dict[str, set[str]] = {}
    for r in rows:
        if "store" in r:
            stores.setdefault(r["platform"], set()).add(r["store"])
    own = [replace(p, source_files=tuple(sorted(stores.get(p.name, ())))) for p in cpu_store_platforms(root)]
    return [p.as_record() for p in sorted((*timm, *own), key=lambda p: p.name) if p.name in labeled]


def nnlqp_inputs(measurements_root: Path | None = None, pool_root: Path | None = None,
                 external_dir: Path | None = None) -> list:
    """What the config reads: timm's result files (each file's name and sha256), every committed
    measurement suite (ours label our CPU platforms) and the graph pool."""
    from perfgraphs.data.build_inputs import external_input, tree_input

    return [external_input("timm-benchmark", external_dir),
            tree_input("measurements", Path(measurements_root or paths.measurements_dir()).absolute()),
            tree_input("graph pool", Path(pool_root or paths.graph_pool_dir()).absolute())]


def build_nnlqp_config(dataset: Dataset, config: Config, pool: GraphPool | None = None, home: Path | None = None,
                       external_dir: Path | None = None, only: set[str] | None = None,
                       measurements_root: Path | None = None) -> Path:
    from perfgraphs.loaders.timm_benchmark import import_timm_benchmark
    from perfgraphs.data.platforms import timm_platforms

    # another external folder is another source: its files, not the pinned ones, make the build
    registry_defaults = pool is None and only is None and measurements_root is None and external_dir is None
    pool = pool or GraphPool(paths.graph_pool_dir())
    measurements_root = measurements_root or paths.measurements_dir()
    inputs = nnlqp_inputs(measurements_root, pool.root, external_dir)  # digested before they are read
    rows = [r for r in import_timm_benchmark(external_dir).table.to_pylist() if r["throughput_samples_per_s"]]
    if only is not None:
        rows = [r for r in rows if r["arch"] in only]
    # our own platforms label the same (architecture, input size) graphs timm benchmarked
    benchmarked = {(r["arch"], int(r["img_size"])) for r in rows}
    rows += [r for r in own_platform_rows(measurements_root) if (r["arch"], r["img_size"]) in benchmarked]
    platforms = sorted({r["platform"] for r in rows})
    records = built_platform_records(rows, timm_platforms(external_dir), measurements_root)
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
                            {"left_out": {"not_exported_yet": not_exported, "export_failed": export_failed},
                             "platforms": records})
