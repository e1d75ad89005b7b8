"""Leave-one-platform-out: a new platform from K labelled architectures (HELP, NNLQP's transfer).

A multi-platform config (one graph per architecture, a label per platform) becomes a
:class:`PlatformTable`: per architecture its static graph features and its label on every platform,
with each platform's provenance record (:class:`perfgraphs.data.platforms.LabelPlatform`, the
predictor's platform descriptor). :func:`transfer_task` masks that table for one held-out
platform, K, draw and variant (:data:`perfgraphs.data.splits.PROTOCOLS` ``leave-one-platform-out``):

* the held-out platform keeps only the K shots' labels;
* ``known-models``: every other platform keeps every label (the test architectures' too);
* ``unseen-models``: the test architectures (whole structure groups: every input size of an
  architecture and every name exporting to the same graph) lose their labels on every platform,
  so nothing of them is seen in training;
* ``known-models-other-devices``: as known-models, with the held-out device's other platforms
  (same card, other framework version, layout or compile mode) dropped as sources.

A transfer predictor is fitted on the masked table and predicts the test rows; :func:`score_task`
scores them with the registry's Evaluator (MAPE, Acc(10 %), Kendall τ on the original scale).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from perfgraphs.errors import PerfgraphsError
from perfgraphs.registry import PLATFORM_SEPARATOR, Task

PROTOCOL = "leave-one-platform-out"
# graph-level static features every row of a graph config carries (perfgraphs.data.build)
STATIC_COLUMNS = ("total_macs", "total_flops", "total_params", "total_memory_bytes", "num_nodes", "num_edges",
                  "num_conv", "num_dense", "num_relu", "num_attention", "num_other", "img_size")
# what a predictor may read of each row's graph (the edges: for a graph network, graph_transfer)
GRAPH_COLUMNS = ("node_feat", "onnx_ops", "num_nodes", "input_dims", "edge_index")
# the operator-count columns whose shares make a graph's operator mix
OP_MIX_COLUMNS = ("num_conv", "num_dense", "num_relu", "num_attention", "num_other")


class TransferProtocolError(PerfgraphsError):
    """A leave-one-platform-out request the data cannot serve (no such platform, variant, K)."""


@dataclass(frozen=True)
class PlatformTable:
    """Architectures × platforms. ``labels[i, j]``: row i's target on ``platforms[j]`` in the
    target's unit (NaN: unlabelled or hidden by the task); ``groups[i]``: the structure group
    (architecture and same-graph names) of row i, the unit the protocol splits."""

    target: str  # the base target, e.g. latency_per_sample_ms
    ids: tuple[str, ...]  # structure ids
    sample_ids: tuple[str, ...]  # the Evaluator's ids
    groups: tuple[str, ...]
    families: tuple[str, ...]
    static: np.ndarray  # n × len(STATIC_COLUMNS), raw values
    labels: np.ndarray  # n × P
    platforms: tuple  # LabelPlatform records, one per label column
    # n × P: the batch each label was measured at (NaN where unrecorded); a per-sample label of a
    # batch-1024 GPU run amortises weights and launches over 1024 samples
    batch_sizes: np.ndarray | None = None
    costs: object | None = None  # perfgraphs.features.roofline.NodeCosts of the n graphs, where loaded
    # the n graphs' Arrow columns (GRAPH_COLUMNS: node_feat, onnx_ops, num_nodes, input_dims, edge_index), where loaded: what a
    # predictor derives its own graph features from
    graphs: object | None = None

    def roofline(self, j: int, rows: np.ndarray | None = None, batch_of: int | None = None,
                 batch: float | None = None):
        """The analytical prior's terms (:func:`perfgraphs.features.roofline.roofline`) of ``rows``
        (all by default) on platform column ``j``, at the batch each was measured at there (batch 1
        where unrecorded; at column ``batch_of``'s batches where given: platform j's hardware asked
        about another platform's workload; at ``batch`` for every row where given). Computed for
        every row once per (costs, platform, batches): a masked
        copy of the table shares its costs and batches, so a whole protocol run computes each
        platform's prior once."""
        from perfgraphs.features.hardware import descriptor_of
        from perfgraphs.features.roofline import RooflineTerms, roofline

        if self.costs is None:
            raise TransferProtocolError("this platform table was loaded without its graphs' node costs")
        platform = self.platforms[j]
        if batch is not None:  # one batch for every row: the graph's physics apart from how it was measured
            batch = np.full(len(self.ids), float(batch))
        else:
            b = j if batch_of is None else batch_of
            batch = self.batch_sizes[:, b] if self.batch_sizes is not None else np.ones(len(self.ids))
        key = (platform.name, platform.device, platform.precision, batch.tobytes())
        terms = self.costs.memo.get(key)
        if terms is None:
            terms = self.costs.memo[key] = roofline(self.costs, descriptor_of(platform), platform.precision, batch)
        if rows is None:
            return terms
        rows = np.asarray(rows, dtype=int)
        return RooflineTerms(*(getattr(terms, f)[rows] for f in RooflineTerms.__dataclass_fields__))

    @property
    def platform_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.platforms)

    def column(self, platform: str) -> int:
        try:
            return self.platform_names.index(platform)
        except ValueError:
            raise TransferProtocolError(f"no platform {platform!r} (platforms: {', '.join(self.platform_names)})") from None

    def op_mix(self) -> np.ndarray:
        """Each row's operator shares (conv, dense, relu, attention, other)."""
        idx = [STATIC_COLUMNS.index(c) for c in OP_MIX_COLUMNS]
        counts = self.static[:, idx]
        return counts / np.maximum(counts.sum(axis=1, keepdims=True), 1.0)


@dataclass(frozen=True)
class TransferTask:
    """One held-out platform, K, draw and variant: the masked table a predictor is fitted on, and
    the rows it is scored on (their true labels stay outside the table)."""

    platform: str
    shots: int
    draw: int
    variant: str
    table: PlatformTable  # masked
    shot_rows: np.ndarray
    test_rows: np.ndarray
    y_test: np.ndarray  # the held-out platform's labels of the test rows


def _group_keys(ids: list[str], hashes: list[str]) -> list[str]:
    """Structure ids grouped by architecture (all its input sizes) and by identical graphs."""
    from perfgraphs.data.splits import merge_groups

    links = {sid: [("arch", sid.rsplit("@", 1)[0]), ("hash", h) if h else None] for sid, h in zip(ids, hashes)}
    key_of = {sid: key for key, members in merge_groups(links).items() for sid in members}
    return [key_of[sid] for sid in ids]


def table_from_rows(rows: dict, target: str, platforms: tuple, costs=None, graphs=None) -> PlatformTable:
    """A table from column → values (``structure_id``, ``sample_id``, ``structure_hash``,
    ``family``, :data:`STATIC_COLUMNS` and ``<target>__<platform>`` for every platform; the
    ``batch_size__<platform>`` columns where present) and the graphs' node costs, if any."""
    ids = [str(s) for s in rows["structure_id"]]
    if len(set(ids)) != len(ids):
        raise PerfgraphsError("a platform table needs one row per structure")
    labels = np.column_stack([np.asarray([np.nan if v is None else v for v in
                                          rows[f"{target}{PLATFORM_SEPARATOR}{p.name}"]], dtype=float)
                              for p in platforms])
    static = np.column_stack([np.asarray(rows[c], dtype=float) for c in STATIC_COLUMNS])
    batch = None
    if all(f"batch_size{PLATFORM_SEPARATOR}{p.name}" in rows for p in platforms):
        batch = np.column_stack([np.asarray([np.nan if v is None else v for v in
                                             rows[f"batch_size{PLATFORM_SEPARATOR}{p.name}"]], dtype=float)
                                 for p in platforms])
    return PlatformTable(target=target, ids=tuple(ids), sample_ids=tuple(map(str, rows["sample_id"])),
                         groups=tuple(_group_keys(ids, list(rows["structure_hash"]))),
                         families=tuple(map(str, rows["family"])), static=static, labels=labels,
                         platforms=tuple(platforms), batch_sizes=batch, costs=costs, graphs=graphs)


def node_costs_of(data) -> object:
    """The node costs (:class:`perfgraphs.features.roofline.NodeCosts`) of a built graph
    config's rows, read from the Arrow columns without a Python object per node."""
    from perfgraphs.features.roofline import NodeCosts
    from perfgraphs.views.hf import RAW_NODE_FEATURES

    table = data.data.table if hasattr(data, "data") else data
    feat = table.column("node_feat").combine_chunks()  # one Array (offsets of a slice respected)
    lengths = feat.value_lengths().to_numpy(zero_copy_only=False)
    width = len(RAW_NODE_FEATURES)
    matrix = feat.flatten().flatten().to_numpy(zero_copy_only=False).reshape(-1, width)
    ops = table.column("onnx_ops").combine_chunks().flatten().to_pylist()
    col = {name: i for i, name in enumerate(RAW_NODE_FEATURES)}
    return NodeCosts.from_columns(lengths, ops, matrix[:, col["flops"]], matrix[:, col["params"]],
                                  matrix[:, col["memory_bytes"]])


def load_platform_table(board: Task, home: Path | None = None) -> tuple[PlatformTable, dict]:
    """Every built row of a multi-platform config (all parts: the protocol splits them itself), labelled
    with the board's base target on each platform, and the build's manifest."""
    import datasets

    from perfgraphs.data.load import load_build
    from perfgraphs.data.platforms import config_platforms

    ds, cfg, target = board.dataset, board.config, board.target.name
    if not cfg.platform_sources:
        raise TransferProtocolError(f"{ds.name}/{cfg.name} is not a multi-platform config: "
                                    f"{PROTOCOL} needs a label per platform")
    if target not in {t.name for t in cfg.targets}:
        raise TransferProtocolError(f"{PROTOCOL} scores a base target of {ds.name}/{cfg.name} "
                                    f"({', '.join(t.name for t in cfg.targets)}), not {target!r}")
    loaded = load_build(ds, cfg, home=home)
    data = loaded.data
    platforms = config_platforms(cfg, home)
    batch_columns = [f"batch_size{PLATFORM_SEPARATOR}{p.name}" for p in platforms]
    keep = ["structure_id", "sample_id", "structure_hash", "family", *STATIC_COLUMNS,
            *(f"{target}{PLATFORM_SEPARATOR}{p.name}" for p in platforms),
            *(c for c in batch_columns if c in data[sorted(data)[0]].column_names)]
    pooled = datasets.concatenate_datasets([data[k].select_columns(keep) for k in sorted(data)])
    graph_columns = [c for c in GRAPH_COLUMNS if c in data[sorted(data)[0]].column_names]
    graphs = datasets.concatenate_datasets([data[k].select_columns(graph_columns) for k in sorted(data)])
    return table_from_rows(pooled.to_dict(), target, platforms, costs=node_costs_of(graphs),
                           graphs=graphs.data.table), loaded.manifest


def check_request(variant: str, shots: int) -> None:
    from perfgraphs.data.splits import PROTOCOLS

    spec = PROTOCOLS[PROTOCOL]
    if variant not in spec["variants"]:
        raise TransferProtocolError(f"unknown variant {variant!r} of {PROTOCOL} (variants: {', '.join(spec['variants'])})")
    if shots not in spec["shots"]:
        raise TransferProtocolError(f"{PROTOCOL} is defined for K in {list(spec['shots'])}, not {shots}")


def check_draw(draw: int) -> None:
    from perfgraphs.data.splits import PROTOCOLS

    if draw not in PROTOCOLS[PROTOCOL]["seeds"]:
        raise TransferProtocolError(f"{PROTOCOL} is defined for draws {list(PROTOCOLS[PROTOCOL]['seeds'])}, not {draw}")


def platform_groups(table: PlatformTable, platform: str) -> dict[str, list[str]]:
    """Group key → the group's ids labelled on ``platform`` (groups with none are left out)."""
    col = table.labels[:, table.column(platform)]
    out: dict[str, list[str]] = {}
    for sid, key, y in zip(table.ids, table.groups, col):
        if np.isfinite(y):
            out.setdefault(key, []).append(sid)
    return out


def transfer_task(table: PlatformTable, platform: str, shots: int, draw: int, variant: str) -> TransferTask:
    from perfgraphs.data.splits import platform_transfer_shots

    check_request(variant, shots)
    p = table.column(platform)
    parts = platform_transfer_shots(platform_groups(table, platform), platform, shots, draw)
    row_of = {sid: i for i, sid in enumerate(table.ids)}
    shot_rows = np.array(sorted(row_of[s] for s in parts["few_shot"]), dtype=int)
    test_rows = np.array(sorted(row_of[s] for s in parts["test"]), dtype=int)
    labels = table.labels.copy()
    y_test = labels[test_rows, p].copy()
    keep = np.zeros(len(labels), dtype=bool)
    keep[shot_rows] = True
    labels[~keep, p] = np.nan
    if variant == "unseen-models":
        test_groups = {table.groups[i] for i in test_rows}
        hidden = np.array([g in test_groups for g in table.groups])
        labels[hidden, :] = np.nan  # the held-out column of these rows is already empty
    elif variant == "known-models-other-devices":
        device = table.platforms[p].device
        for j, other in enumerate(table.platforms):
            if j != p and other.device == device:
                labels[:, j] = np.nan
    return TransferTask(platform, shots, draw, variant, replace(table, labels=labels), shot_rows, test_rows, y_test)


def score_task(task: TransferTask, pred: np.ndarray, board: Task) -> dict:
    """The Evaluator's scores of a task's test predictions (on the board's config, the held-out
    platform's column of its base target), with the task's coordinates."""
    from perfgraphs.evaluation.evaluator import Evaluator

    column = board.config.target(f"{task.table.target}{PLATFORM_SEPARATOR}{task.platform}")
    ids = [task.table.sample_ids[i] for i in task.test_rows]
    scores = Evaluator.for_task(replace(board, target=column)).eval(
        {"sample_id": ids, "y_true": task.y_test, "y_pred": pred}, expected_ids=ids)
    keep = ("n", "mape_pct", "rmse", "acc_5_pct", "acc_10_pct", "acc_15_pct", "kendall_tau")
    return {"platform": task.platform, "shots": task.shots, "draw": task.draw, "variant": task.variant,
            **{k: scores[k] for k in keep}}


def interval95(values) -> tuple[float, float, float]:
    """Mean and the half-width of its 95 % interval over draws (1.96 standard errors, the
    leaderboard's convention: :func:`perfgraphs.leaderboard.records.results.Entry.interval95`)."""
    v = np.asarray([x for x in values if x is not None and np.isfinite(x)], dtype=float)
    if len(v) == 0:
        return float("nan"), float("nan"), 0
    half = 1.96 * v.std(ddof=1) / np.sqrt(len(v)) if len(v) > 1 else 0.0
    return float(v.mean()), float(half), len(v)
