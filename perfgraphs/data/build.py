"""Build a dataset config into the cache as Parquet in the graphs-datasets convention.

Output: ``<PERFGRAPHS_HOME>/datasets/<name>/<version>/<config>/data/<split>-NNNNN-of-NNNNN.parquet``
plus ``manifest.json``. The folder loads with ``datasets.load_dataset(<folder>)``. Every build
writes a fresh folder and swaps it in atomically (:mod:`perfgraphs.data.staging`), recording the
digests of the measurements and graph pool it read (:mod:`perfgraphs.data.build_inputs`); the
content hash depends only on the graphs, the split and the labels, so two builds on the same
versions agree.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np
import pyarrow as pa

from perfgraphs import paths
from perfgraphs.data.build_inputs import BuildInput, tree_input
from perfgraphs.pool.graph_pool import GraphPool, iter_samples
from perfgraphs.data.manifest import read_manifest
from perfgraphs.data.splits import PROTOCOLS, get_split, make_split, split_path
from perfgraphs.data.staging import StagedBuild
from perfgraphs.errors import PerfgraphsError
from perfgraphs.registry import Config, Dataset
from perfgraphs.views.hf import raw_node_matrix

SHARD_SAMPLES = 1024
# Measurement statistics and provenance carried beside the targets of a labeled config.
LABEL_COLUMNS = ("latency_ms", "latency_calibrated_ms", "peak_memory_mb", "latency_mean_ms", "latency_std_ms",
                 "latency_min_ms", "latency_mad_ms", "n_timed_runs", "run_times_ms", "energy_j",
                 "measurement_id", "platform", "protocol", "measured_at_utc", "cpu_model", "torch_version")
# GPU rows' energy window and provenance (CPU configs keep the columns above only: no energy counter)
GPU_LABEL_COLUMNS = ("energy_per_sample_j", "power_w", "energy_window_s", "energy_window_runs", "gpu_name",
                     "gpu_driver_version", "cuda_version", "cudnn_version", "tf32_cudnn")
# CPU-time configs' rounds, per-run CPU times and the machine (perfgraphs.collect.rounds)
CPU_TIME_LABEL_COLUMNS = ("cpu_time_ms", "run_cpu_times_ms", "n_rounds", "round_cpu_time_ms", "round_latency_ms",
                          "cpu_time_round_spread", "latency_round_spread", "machine_id")
# PerfGraph.static_features() keys, stored as columns so featurizers need no graph rebuild
from perfgraphs.data.folders import STATIC_COLUMNS, dataset_folder  # noqa: F401  (public here)
from perfgraphs.paths import perfgraphs_home  # noqa: F401  (public here)

REPO_ROOT = paths.PACKAGE_DIR.parent  # where the package runs from; data locations: perfgraphs.paths


def _list_of_lists(flat: np.ndarray, inner: int, outer_lengths: np.ndarray) -> pa.Array:
    values = pa.array(flat.ravel())
    inner_offsets = pa.array(np.arange(0, flat.size + 1, inner, dtype=np.int32))
    inner_lists = pa.ListArray.from_arrays(inner_offsets, values)
    outer_offsets = pa.array(np.concatenate([[0], np.cumsum(outer_lengths)]).astype(np.int32))
    return pa.ListArray.from_arrays(outer_offsets, inner_lists)


def _shard_table(samples: list[tuple[str, str, int]], pool: GraphPool, split: str,
                 labels: dict[str, dict] | None = None, targets: tuple[str, ...] = ()) -> pa.Table:
    cols: dict[str, list] = {k: [] for k in (
        "sample_id", "split", "family", "source", "img_size", "structure_id", "structure_hash",
        *STATIC_COLUMNS, "onnx_ops", "input_names", "input_dims", "metadata_keys", "metadata_values", "name")}
    raws, edges, sizes = [], [], []
    for family, sid, batch in samples:
        structure = pool.structure(sid)
        g = structure.graph(batch)
        s = g.static_features()
        for key, value in (
            ("sample_id", f"{sid}#b{batch}"), ("split", split), ("family", family), ("source", g.name),
            ("img_size", structure.img_size), ("structure_id", sid),
            ("structure_hash", g.structure_hash), *((k, s[k]) for k in STATIC_COLUMNS), ("onnx_ops", list(g.onnx_ops)),
            ("input_names", [n for n, _ in g.input_shapes]), ("input_dims", [list(d) for _, d in g.input_shapes]),
            ("metadata_keys", [k for k, _ in g.metadata]), ("metadata_values", [v for _, v in g.metadata]),
            ("name", g.name),
        ):
            cols[key].append(value)
        raws.append(raw_node_matrix(g))
        edges.append(g.edge_index)
        sizes.append(g.num_nodes)
    raw = np.vstack(raws)
    table = pa.table(cols)
    node_feat = _list_of_lists(raw, raw.shape[1], np.array(sizes))
    edge_flat = np.concatenate([e.ravel() for e in edges])
    edge_lens = np.array([e.shape[1] for e in edges])
    # edge_index per row: [[sources...], [targets...]] → list of 2 lists of length E_i
    inner_lengths = np.repeat(edge_lens, 2)
    inner_offsets = pa.array(np.concatenate([[0], np.cumsum(inner_lengths)]).astype(np.int32))
    edge_lists = pa.ListArray.from_arrays(inner_offsets, pa.array(edge_flat))
    edge_index = pa.ListArray.from_arrays(pa.array(np.arange(0, 2 * len(edges) + 1, 2, dtype=np.int32)), edge_lists)
    ids = cols["sample_id"]
    y = pa.array([[[labels[i][t] for t in targets]] if labels else [[]] for i in ids],
                 type=pa.list_(pa.list_(pa.float64())))
    table = table.append_column("node_feat", node_feat).append_column("edge_index", edge_index).append_column("y", y)
    if labels:
        # the targets as named columns too (a training config's step_time_ms is not a statistic column)
        gpu = any(labels[i].get("device") == "cuda" for i in ids)
        cpu_time = "cpu_time_ms" in targets
        carried = (*LABEL_COLUMNS, *(GPU_LABEL_COLUMNS if gpu else ()), *(CPU_TIME_LABEL_COLUMNS if cpu_time else ()))
        for column in (*carried, *(t for t in targets if t not in carried)):
            table = table.append_column(column, pa.array([labels[i].get(column) for i in ids]))
    return table


def _write_config(folder: Path, dataset: Dataset, config: Config, pool: GraphPool,
                  samples: list[tuple[str, str, int]], parts: dict[str, list[str]],
                  labels: dict[str, dict] | None, on_progress: Callable[[int, int], None] | None,
                  inputs: list[BuildInput] | None = None, registry_defaults: bool = False,
                  extra: dict | None = None) -> Path:
    """Shards per split part into a fresh folder, its manifest, and the swap into ``folder``.
    ``inputs``: what the samples were read from (default: the pool, digested now)."""
    inputs = inputs if inputs is not None else graph_inputs(pool.root)
    targets = tuple(t.name for t in config.targets)
    part_of = {h: p for p, hashes in parts.items() for h in hashes}
    by_part: dict[str, list] = {p: [] for p in parts}
    for sample in samples:
        by_part[part_of[pool.structure(sample[1]).one.structure_hash]].append(sample)
    total, done = len(samples), 0
    with StagedBuild(folder) as stage:
        for part, rows in by_part.items():
            if not rows:
                continue  # tiny configs may leave a part empty; Parquet readers reject empty files
            n_shards = max(1, -(-len(rows) // SHARD_SAMPLES))
            for k in range(n_shards):
                chunk = rows[k * SHARD_SAMPLES:(k + 1) * SHARD_SAMPLES]
                stage.write_shard(part, k, n_shards, _shard_table(chunk, pool, part, labels, targets))
                done += len(chunk)
                if on_progress:
                    on_progress(done, total)
        return stage.commit(dataset.name, dataset.version, config.name, inputs, registry_defaults, extra)


def graph_inputs(pool_root: Path | None = None) -> list[BuildInput]:
    """What an unlabeled graph config reads: the graph pool (its structures and failures)."""
    return [tree_input("graph pool", Path(pool_root or paths.graph_pool_dir()).absolute())]


def labeled_inputs(dataset: Dataset, config: Config, measurements: Path | None = None,
                   pool_root: Path | None = None) -> list[BuildInput]:
    """What a labeled config reads: its measurement store and the graph pool."""
    store = Path(measurements or measurement_root(dataset, config)).absolute()
    return [tree_input("measurements", store), *graph_inputs(pool_root)]


def build_graph_config(
    dataset: Dataset,
    config: Config,
    pool: GraphPool | None = None,
    home: Path | None = None,
    counts: dict[str, int] | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> Path:
    """Build an unlabeled graph config (into a fresh folder, swapped in); returns its folder."""
    registry_defaults = pool is None and counts is None
    pool = pool or GraphPool(paths.graph_pool_dir())
    inputs = graph_inputs(pool.root)  # digested before the pool is read
    counts = counts or dataset.family_counts
    folder = dataset_folder(dataset, config, home)
    protocol = config.split_protocols[0]
    seed = PROTOCOLS[protocol]["seeds"][0]
    samples = list(iter_samples(pool, counts))
    groups = {pool.structure(sid).one.structure_hash: family for family, sid, _ in samples}
    parts = make_split(groups, protocol, seed)
    if split_path(dataset.name, protocol, seed).exists() and counts == dataset.family_counts:
        committed = get_split(dataset.name, protocol, seed)
        if committed != parts:
            raise PerfgraphsError(f"graph pool no longer matches the committed split {protocol} seed {seed}")
    return _write_config(folder, dataset, config, pool, samples, parts, None, on_progress, inputs, registry_defaults)


def measurement_root(dataset: Dataset, config: Config) -> Path:
    if config.suite is None:
        raise PerfgraphsError(f"{dataset.name}/{config.name} is not labeled by one of our measurement suites")
    return paths.measurement_store(config.suite)


def build_labeled_config(
    dataset: Dataset,
    config: Config,
    pool: GraphPool | None = None,
    home: Path | None = None,
    measurements: Path | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> Path:
    """A labeled config: every successful measurement on the config's platform, with its graph.

    Labels are the measured statistics themselves (median latency, drift-calibrated latency,
    peak memory; per-run times and provenance alongside); the structure of every measured
    (architecture, input size) must be in the pool (``perfgraphs datasets build-pool --measured``).
    """
    from perfgraphs.collect.store import load_measurements
    from perfgraphs.pool.structures import structure_id

    registry_defaults = pool is None and measurements is None
    pool = pool or GraphPool(paths.graph_pool_dir())
    inputs = labeled_inputs(dataset, config, measurements, pool.root)  # digested before they are read
    table = load_measurements(measurements or measurement_root(dataset, config))
    rows = [r for r in table.to_pylist() if r["status"] == "ok" and r["platform"] == config.platform]
    # a configuration enters once it has its rounds; a row the quiet gate flagged does not
    few_rounds = sum((r.get("n_rounds") or 1) < config.min_rounds for r in rows)
    flagged = sum(bool(r.get("gate_flagged")) for r in rows)
    rows = [r for r in rows if (r.get("n_rounds") or 1) >= config.min_rounds and not r.get("gate_flagged")]
    labels: dict[str, dict] = {}
    samples = []
    missing = set()
    for r in sorted(rows, key=lambda r: (r["model"], r["image_size"] or 0, r["batch_size"])):
        sid = structure_id(r["model"], r["image_size"], r["seq_len"])
        if sid not in pool.rows():
            missing.add(sid)
            continue
        sample_id = f"{sid}#b{r['batch_size']}"
        if sample_id in labels:
            continue
        labels[sample_id] = {**r, "latency_ms": r["latency_median_ms"]}
        if r.get("mode") == "train":  # the timed region of a training-mode row is one whole step
            labels[sample_id]["step_time_ms"] = r["latency_median_ms"]
        absent = [t.name for t in config.targets if t.name not in labels[sample_id]]
        if absent:
            raise PerfgraphsError(f"{r['model']} ({r.get('mode')} mode) has no {', '.join(absent)} for "
                                  f"{dataset.name}/{config.name}: is {measurements or measurement_root(dataset, config)} "
                                  f"this dataset's campaign?")
        samples.append((r["family"], sid, int(r["batch_size"])))
    if not samples:
        raise PerfgraphsError(
            f"no successful {config.platform} measurement of {dataset.name} has its graph in the pool "
            f"({len(missing)} structures missing): run `perfgraphs datasets build-pool --measured`")
    if missing:
        # Measurements newer than the committed pool (a campaign in progress), or graphs that
        # cannot be exported: left out of this build, counted in the manifest.
        import sys

        print(f"note: {len(missing)} measured structures have no graph in the pool yet; "
              f"their measurements are not in this build", file=sys.stderr)
    protocol = config.split_protocols[0]
    groups = {pool.structure(sid).one.structure_hash: family for family, sid, _ in samples}
    parts = make_split(groups, protocol, PROTOCOLS[protocol]["seeds"][0])
    folder = dataset_folder(dataset, config, home)
    extra = {"measurements_without_graph": len(missing)}
    if config.min_rounds > 1:
        extra.update(measurements_with_too_few_rounds=few_rounds, measurements_flagged_by_gate=flagged)
    return _write_config(folder, dataset, config, pool, samples, parts, labels, on_progress, inputs,
                         registry_defaults, extra=extra)


def build_state(folder: Path) -> str:
    """The folder's state from its manifest alone (``perfgraphs datasets verify`` checks the files):
    ``built``, ``not built``, ``built by an older perfgraphs`` or ``unusable: <why>``."""
    from perfgraphs.data.manifest import is_legacy

    try:
        manifest = read_manifest(folder)
    except PerfgraphsError as exc:
        return f"unusable: {exc}"
    if manifest is None:
        return "not built"
    return "built by an older perfgraphs" if is_legacy(manifest) else "built"
