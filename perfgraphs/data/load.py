"""``load_dataset``: registry name → built, verified folder → Hugging Face ``datasets`` objects;
``to_pyg``: a loaded split → a PyTorch Geometric in-memory dataset, featurized at load time."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from perfgraphs.data.build import STATIC_COLUMNS, build_graph_config, build_labeled_config, dataset_folder, is_built
from perfgraphs.registry import Config, Dataset
from perfgraphs.data.graph_pool import CorruptFileError
from perfgraphs.data.manifest import verify
from perfgraphs.errors import PerfgraphsError
from perfgraphs.registry import get_dataset


def build_config(ds: Dataset, cfg: Config, home: Path | None = None, on_progress=None) -> Path:
    """Build one config into the cache with the builder its kind needs."""
    if cfg.kind == "tabular" and cfg.name == "mlenergy":
        from perfgraphs.data.tabular import build_mlenergy_config

        return build_mlenergy_config(ds, cfg, home=home)
    if ds.name == "perfgraphs/graph2text":
        from perfgraphs.data.graph2text import build_graph2text_config

        return build_graph2text_config(ds, cfg, home=home)
    if ds.name == "perfgraphs/nnlqp":
        from perfgraphs.data.multiplatform import build_nnlqp_config

        return build_nnlqp_config(ds, cfg, home=home)
    if cfg.kind == "graphs" and cfg.platform is None:
        return build_graph_config(ds, cfg, home=home, on_progress=on_progress)
    if cfg.kind == "graphs":
        return build_labeled_config(ds, cfg, home=home, on_progress=on_progress)
    raise PerfgraphsError(f"{ds.name}/{cfg.name} cannot be built by this version")


def load_dataset(name: str, config: str | None = None, split: str | None = None, version: str | None = None,
                 *, home: Path | None = None, build: bool = True):
    """A ``datasets.DatasetDict`` (or ``Dataset`` for one ``split``) of a registered dataset.

    Builds the config into the cache on first use (resumable), then checks every file against the
    manifest before loading, so a corrupted cache fails loudly instead of serving wrong data.
    """
    import datasets

    ds = get_dataset(name)
    if version is not None and version != ds.version:
        raise PerfgraphsError(f"{ds.name} version {version} is not available (this release provides {ds.version})")
    cfg = ds.config(config)
    folder = dataset_folder(ds, cfg, home)
    if not is_built(folder):
        if not build:
            raise PerfgraphsError(f"{ds.name}/{cfg.name} is not built: run `perfgraphs datasets build {ds.name}`")
        build_config(ds, cfg, home=home)
    manifest = verify(folder)
    parts = sorted(manifest["row_counts"])
    if split is not None and split not in parts:
        raise PerfgraphsError(f"{ds.name}/{cfg.name} has no split {split!r} (splits: {', '.join(parts)})")
    files = {p: sorted(str(f) for f in (folder / "data").glob(f"{p}-*.parquet")) for p in parts}
    try:
        loaded = datasets.load_dataset("parquet", data_files=files, cache_dir=str(folder.parent / ".hf-cache"))
    except Exception as exc:
        raise CorruptFileError(f"cannot load {folder}: {type(exc).__name__}: {str(exc)[:200]}") from None
    return loaded[split] if split is not None else loaded


def to_pyg(hf_dataset, featurizer: str = "trappm", targets: list[str] | None = None):
    """A PyG ``InMemoryDataset`` with ``x``, ``edge_index``, ``static`` and ``y`` per graph.

    Node features are computed for all graphs at once: every featurizer is per-node, so one call
    over the concatenated node table equals per-graph calls (and is ~100x faster).
    """
    import pyarrow as pa
    import torch
    from torch_geometric.data import Data, InMemoryDataset

    from perfgraphs.features import get_featurizer
    from perfgraphs.views.hf import RAW_NODE_FEATURES, graph_from_columns

    feat = get_featurizer(featurizer)
    table = hf_dataset.data.table if hasattr(hf_dataset, "data") else hf_dataset
    num_nodes = table.column("num_nodes").to_numpy()
    width = len(RAW_NODE_FEATURES)
    raw = pa.concat_arrays([c.flatten().flatten() for c in table.column("node_feat").chunks]).to_numpy().reshape(-1, width)
    ops = [op for chunk in table.column("onnx_ops").chunks for op in chunk.flatten().to_pylist()]
    whole = graph_from_columns(
        {"name": "all", "batch_size": 1, "input_names": [], "input_dims": [], "onnx_ops": ops,
         "total_params": 0, "total_memory_bytes": 0, "metadata_keys": [], "metadata_values": []},
        raw, np.zeros((2, 0), dtype=np.int64))
    x = torch.from_numpy(feat.node_features(whole))
    edges_flat = pa.concat_arrays([c.flatten().flatten() for c in table.column("edge_index").chunks]).to_numpy()
    num_edges = table.column("num_edges").to_numpy()
    # Per row the edge list is [sources..., targets...]; regroup into (2, E) blocks.
    offsets = np.concatenate([[0], np.cumsum(2 * num_edges)])
    src = np.concatenate([edges_flat[o:o + e] for o, e in zip(offsets[:-1], num_edges)]) if len(num_edges) else np.zeros(0, np.int64)
    dst = np.concatenate([edges_flat[o + e:o + 2 * e] for o, e in zip(offsets[:-1], num_edges)]) if len(num_edges) else np.zeros(0, np.int64)
    static = feat.static_features_table({k: table.column(k).to_numpy() for k in STATIC_COLUMNS})
    node_off = np.concatenate([[0], np.cumsum(num_nodes)])
    edge_off = np.concatenate([[0], np.cumsum(num_edges)])
    data = Data(x=x, edge_index=torch.from_numpy(np.stack([src, dst]).astype(np.int64)),
                static=torch.from_numpy(static))
    slices = {"x": torch.from_numpy(node_off), "edge_index": torch.from_numpy(edge_off),
              "static": torch.arange(len(num_nodes) + 1)}
    if targets:
        y = np.stack([table.column(t).to_numpy(zero_copy_only=False).astype(np.float32) for t in targets], axis=1)
        data.y = torch.from_numpy(y)
        slices["y"] = torch.arange(len(num_nodes) + 1)

    class PerfgraphsPyG(InMemoryDataset):
        def __init__(self):
            super().__init__(root=None)
            self.data, self.slices = data, slices

    return PerfgraphsPyG()



def static_features(hf_dataset, featurizer: str = "trappm") -> np.ndarray:
    """(num_graphs, static_dim) straight from the stored static-fact columns: what a static-feature
    model needs, without touching the node tables."""
    from perfgraphs.features import get_featurizer

    table = hf_dataset.data.table if hasattr(hf_dataset, "data") else hf_dataset
    return get_featurizer(featurizer).static_features_table({k: table.column(k).to_numpy() for k in STATIC_COLUMNS})
