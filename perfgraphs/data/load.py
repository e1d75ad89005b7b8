"""``load_dataset``: registry name → built, verified folder → Hugging Face ``datasets`` objects;
``to_pyg``: a loaded split → a PyTorch Geometric in-memory dataset, featurized at load time."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from perfgraphs.data.build import build_graph_config, build_labeled_config, dataset_folder, is_built
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
    if ds.name == "perfgraphs/llm" and cfg.kind == "tabular" and cfg.platform is not None:
        from perfgraphs.data.llm_cpu import build_encoder_config

        return build_encoder_config(ds, cfg, home=home)
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
    if not is_built(folder) or (build and _stale(ds, cfg, folder)):
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
    from perfgraphs.data.pyg_cache import Origin, remember

    for part, rows in loaded.items():  # lets to_pyg reuse featurized tables of these exact rows
        remember(rows, Origin(folder, manifest["content_hash"], part, manifest["row_counts"][part]))
    return loaded[split] if split is not None else loaded


def _stale(ds: Dataset, cfg: Config, folder: Path) -> bool:
    """A built config whose sources changed since: our encoder measurements grow while their
    campaign runs, and a load must serve the rows the checkout holds."""
    if ds.name == "perfgraphs/llm" and cfg.kind == "tabular" and cfg.platform is not None:
        from perfgraphs.data.llm_cpu import is_stale
        from perfgraphs.data.manifest import read_manifest

        return is_stale(read_manifest(folder), cfg.platform)
    return False


def to_pyg(hf_dataset, featurizer: str = "trappm", targets: list[str] | None = None, cache: bool = True):
    """A PyG ``InMemoryDataset`` with ``x``, ``edge_index``, ``static`` and ``y`` per graph.

    Features are computed for all graphs at once from the Arrow columns (see
    :mod:`perfgraphs.data.featurize`); the result equals featurizing each graph on its own. For an
    unmodified split returned by :func:`load_dataset`, node features and edges are cached on disk
    (checksummed, see :mod:`perfgraphs.data.pyg_cache`) and mapped on the next load.
    """
    import torch
    from torch_geometric.data import Data, InMemoryDataset

    from perfgraphs.data import featurize, pyg_cache
    from perfgraphs.features import FEATURIZERS, get_featurizer

    feat = get_featurizer(featurizer)
    table = featurize.arrow_table(hf_dataset)
    num_nodes, num_edges = featurize.counts(table, "num_nodes"), featurize.counts(table, "num_edges")
    fills = {"x": ((int(num_nodes.sum()), feat.node_dim), np.float32, lambda out: featurize.node_features(table, feat, out)),
             "edge_index": ((2, int(num_edges.sum())), np.int64, lambda out: featurize.edge_index(table, out))}
    # only registered featurizers: a custom one may reuse a registered name and version
    origin = pyg_cache.origin_of(hf_dataset) if cache and pyg_cache.enabled() and FEATURIZERS.get(feat.name) is feat else None
    arrays = pyg_cache.read(origin, feat.id) if origin else None
    if arrays is None and origin is not None:
        try:
            arrays = pyg_cache.write(origin, feat.id, fills)
        except OSError as exc:
            import sys

            print(f"warning: cannot write the featurized cache ({exc}); features are not cached", file=sys.stderr)
    if arrays is None:
        arrays = {"x": featurize.node_features(table, feat), "edge_index": featurize.edge_index(table)}
    data = Data(x=torch.from_numpy(arrays["x"]), edge_index=torch.from_numpy(arrays["edge_index"]),
                static=torch.from_numpy(featurize.static_features(table, feat)))
    slices = {"x": torch.from_numpy(np.concatenate([[0], np.cumsum(num_nodes)])),
              "edge_index": torch.from_numpy(np.concatenate([[0], np.cumsum(num_edges)])),
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
    from perfgraphs.data import featurize

    return featurize.static_features(featurize.arrow_table(hf_dataset), featurizer)
