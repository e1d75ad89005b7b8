"""``load_dataset``: registry name → built, verified folder → Hugging Face ``datasets`` objects;
``to_pyg``: a loaded split → a PyTorch Geometric in-memory dataset, featurized at load time."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from perfgraphs.data import arrow_cache
from perfgraphs.data import recipes
from perfgraphs.data.folders import dataset_folder
from perfgraphs.data.manifest import (check_file_set, check_split_layout, decode_shard, is_legacy, read_manifest,
                                      read_verified_shard)
from perfgraphs.errors import DatasetIntegrityError, DatasetNotBuiltError, PerfgraphsError, StaleDatasetError
from perfgraphs.registry import TRAPPM, Config, Dataset, get_dataset


def load_dataset(name: str, config: str | None = None, split: str | None = None, version: str | None = None,
                 *, home: Path | None = None, build: bool = True, data_dir: Path | str | None = None,
                 release_dir: Path | str | None = None):
    """A ``datasets.DatasetDict`` (or ``Dataset`` for one ``split``) of a registered dataset.

    ``version=None``: the current build of the sources in the data directory (``data_dir``, else
    ``$PERFGRAPHS_DATA_DIR``, else the checkout's ``data/``; :mod:`perfgraphs.paths`): built into
    the cache on first use, and again when the sources it was built from (measurements, graph
    pool, external files) changed; with ``build=False``, or for a config built from other sources
    than the registry's, a changed source is refused instead. With a release folder
    (``release_dir`` or ``$PERFGRAPHS_RELEASE_DIR``, written by ``perfgraphs datasets export``)
    that holds the config, its latest release there is served instead, never rebuilt.

    ``version="X.Y.Z"``: exactly that release (:mod:`perfgraphs.data.releases`): served from a
    release folder, the releases kept in the cache, or the working build when its rows are the
    release's; else rebuilt from the data directory, and served only if that gives exactly the
    release's rows; else one line says why not (what changed since).

    Every file is checked against the manifest, and the rows are served from an Arrow copy made
    from those verified bytes and checksummed (:mod:`perfgraphs.data.arrow_cache`), so a
    corrupted cache anywhere either fails loudly or is rebuilt, never served.
    """
    from perfgraphs import paths

    with paths.using(data_dir=data_dir, release_dir=release_dir):
        ds = get_dataset(name)
        return load_build(ds, ds.config(config), split, version, home=home, build=build).data


@dataclass(frozen=True)
class LoadedBuild:
    """What :func:`load_build` served: the rows and the manifest of the build they were read from
    (its content hash and generator versions identify the rows a score was computed on)."""

    data: object  # datasets.DatasetDict, or one split's datasets.Dataset
    manifest: dict


def load_build(ds: Dataset, cfg: Config, split: str | None = None, version: str | None = None, *,
               home: Path | None = None, build: bool = True) -> LoadedBuild:
    """:func:`load_dataset` of a config already resolved against the registry, with the manifest
    of the build it served (read once)."""
    folder, manifest = _release_or_current(ds, cfg, version, home, build)
    try:
        return LoadedBuild(_serve(ds, cfg, folder, manifest, split), manifest)
    except DatasetIntegrityError:
        # Another process may have swapped in a rebuild between reading the manifest and the
        # shards: then every file is checked again against the new manifest, once.
        if _manifest_sha256(folder) in (None, manifest["manifest_sha256"]):
            raise
        folder, manifest = _release_or_current(ds, cfg, version, home, build)
        return LoadedBuild(_serve(ds, cfg, folder, manifest, split), manifest)


def served_build(ds: Dataset, cfg: Config, home: Path | None = None, build: bool = True) -> tuple[Path, dict]:
    """The folder :func:`load_build` serves by default (the release folder's latest, or the current
    build) and its manifest, without loading the data."""
    return _release_or_current(ds, cfg, None, home, build)


def _release_or_current(ds: Dataset, cfg: Config, version: str | None, home: Path | None, build: bool
                        ) -> tuple[Path, dict]:
    """The folder to serve and its manifest: a release (named, or the release folder's latest)
    or the current build of the data directory's sources."""
    from perfgraphs.data import releases

    if version is None:
        version = releases.exported_version(ds, cfg)
        if version is None:
            return current_build(ds, cfg, home, build)
    elif not releases.is_released(ds, cfg) and version == ds.version:
        return current_build(ds, cfg, home, build)  # nothing released yet: the registry's version is the build
    if not build:
        found = releases.find_release(ds, cfg, version, home)
        if found is None:
            raise DatasetNotBuiltError(f"{ds.name}/{cfg.name} {version} is not here; `load_dataset(..., version="
                                       f"{version!r})` rebuilds it if the sources here give its rows")
        return found
    return reproduce(ds, cfg, version, home)


def reproduce(ds: Dataset, cfg: Config, version: str, home: Path | None = None) -> tuple[Path, dict]:
    """The release's folder and manifest: found here, or the current build of the data directory's
    sources when its rows are the release's (built if missing or stale: it is what ``version=None``
    serves anyway); else :class:`ReleaseNotReproducibleError` naming what changed since."""
    from perfgraphs import paths
    from perfgraphs.data.build_inputs import combined_digest
    from perfgraphs.data.recipes import registry_inputs
    from perfgraphs.data.releases import ReleaseNotReproducibleError, find_release, keep, kept_folder, release_of

    found = find_release(ds, cfg, version, home)
    if found is not None:
        return found
    record = release_of(ds, cfg, version)
    where = (f"load it from a release folder ({paths.ENV_RELEASE_DIR}, written by `perfgraphs datasets export`)"
             f" or from a checkout of commit {record.source_commit[:12]}")
    try:
        now = registry_inputs(ds, cfg, home)
        folder, manifest = current_build(ds, cfg, home)
    except PerfgraphsError as exc:
        raise ReleaseNotReproducibleError(f"{ds.name}/{cfg.name} {version} is not here and cannot be rebuilt "
                                          f"({exc}); {where}") from None
    if record.same_rows(manifest):  # e.g. the graph pool grew by structures this config does not use
        keep(folder, kept_folder(ds, cfg.name, version, home))
        return folder, manifest
    if combined_digest(now) != record.inputs_sha256:
        recorded = {(i.get("role"), i.get("kind")): i.get("digest") for i in record.inputs}
        changed = [i for i in now if recorded.get((i.role, i.kind)) != i.digest] or now
        why = f"its {', '.join(f'{i.role} ({i.location})' for i in changed)} changed since the release"
    else:
        generators = manifest.get("generators", {})
        differ = [f"{k} {v} then, {generators.get(k)} now" for k, v in sorted(record.generators.items())
                  if generators.get(k) != v]
        why = f"built from the release's sources, its rows differ ({'; '.join(differ) or 'same generator versions'})"
    raise ReleaseNotReproducibleError(f"{ds.name}/{cfg.name} {version} cannot be rebuilt here: {why} (content hash "
                                      f"{manifest['content_hash'][:12]} now, {record.content_hash[:12]} released); {where}")


def current_build(ds: Dataset, cfg: Config, home: Path | None = None, build: bool = True) -> tuple[Path, dict]:
    """The working build of the current sources (built or rebuilt here if allowed) and its manifest."""
    folder = dataset_folder(ds, cfg, home)
    return folder, _up_to_date_manifest(ds, cfg, folder, home, build)


def build_config(ds: Dataset, cfg: Config, home: Path | None = None, on_progress=None) -> Path:
    """Build one config into the cache with its recipe (a derived config loads its source here)."""
    return recipes.build(ds, cfg, home, on_progress, load=load_dataset)


def _manifest_sha256(folder: Path) -> str | None:
    try:
        manifest = read_manifest(folder)
    except PerfgraphsError:
        return None
    return None if manifest is None or is_legacy(manifest) else manifest["manifest_sha256"]


def _serve(ds: Dataset, cfg: Config, folder: Path, manifest: dict, split: str | None):
    """The verified splits of one build, as ``datasets`` objects."""
    check_file_set(folder, manifest)
    check_split_layout(folder, manifest)
    parts = sorted(manifest["splits"])
    if split is not None and split not in parts:
        raise PerfgraphsError(f"{ds.name}/{cfg.name} has no split {split!r} (splits: {', '.join(parts)})")
    from perfgraphs.data.pyg_cache import Origin, remember

    loaded = {}
    for part in [split] if split is not None else parts:
        loaded[part] = _serve_split(folder, manifest, part)
        # lets to_pyg reuse featurized tables of these exact rows
        remember(loaded[part], Origin(folder, manifest["content_hash"], part, manifest["row_counts"][part]))
    if split is not None:
        return loaded[split]
    import datasets

    return datasets.DatasetDict(loaded)


def _up_to_date_manifest(ds: Dataset, cfg: Config, folder: Path, home: Path | None, build: bool) -> dict:
    """The manifest of a build that is current with its sources: built or rebuilt here if allowed."""
    manifest = read_manifest(folder)
    if manifest is None or is_legacy(manifest):
        if not build:
            state = "is not built" if manifest is None else "was built by an older perfgraphs"
            raise DatasetNotBuiltError(f"{ds.name}/{cfg.name} {state}: run `perfgraphs datasets build {ds.name} "
                                       f"--config {cfg.name}`")
        build_config(ds, cfg, home=home)
        return _rebuilt_manifest(folder)
    changed = recipes.changed_inputs(manifest, ds, cfg, home)
    if not changed:
        return manifest
    what = ", ".join(f"{i.role} ({i.location})" for i in changed)
    if not manifest.get("registry_defaults"):
        raise StaleDatasetError(f"{ds.name}/{cfg.name} in {folder} was built from sources that changed since: "
                                f"{what}; rebuild it from them")
    if not build:
        raise StaleDatasetError(f"{ds.name}/{cfg.name}: its {what} changed since it was built; run "
                                f"`perfgraphs datasets build {ds.name} --config {cfg.name}`")
    build_config(ds, cfg, home=home)
    return _rebuilt_manifest(folder)


def _rebuilt_manifest(folder: Path) -> dict:
    manifest = read_manifest(folder)
    if manifest is None or is_legacy(manifest):
        raise DatasetIntegrityError(f"{folder} has no current manifest right after its build")
    return manifest


def _serve_split(folder: Path, manifest: dict, split: str):
    """One split as a ``datasets.Dataset``: its shards verified (sha256, read once), then the Arrow
    copy of exactly those shards, rewritten from the verified bytes when absent or damaged."""
    import datasets
    from datasets.table import InMemoryTable, MemoryMappedTable

    entry = manifest["splits"][split]
    key = arrow_cache.cache_key(manifest, split)
    cached = arrow_cache.read(folder, split, key, entry["rows"])
    tables = []
    for rel in entry["shards"]:
        data = read_verified_shard(folder, rel, manifest["files"][rel])
        if cached is None:
            tables.append(decode_shard(folder / rel, data))
    table = None
    if cached is None:
        try:
            cached = arrow_cache.write(folder, split, key, tables)
        except OSError as exc:  # a read-only or full cache: serve the verified rows from memory
            import sys

            print(f"warning: cannot write the Arrow cache of {folder} ({exc.strerror or exc}); "
                  "serving the verified rows from memory", file=sys.stderr)
            table = InMemoryTable(arrow_cache.unified(tables))
        except (pa.ArrowException, ValueError) as exc:  # shards whose columns cannot form one table
            raise DatasetIntegrityError(f"{folder}: the shards of split {split!r} do not share one schema "
                                        f"({type(exc).__name__}: {str(exc)[:160]})") from None
    try:
        table = table if table is not None else MemoryMappedTable.from_file(str(cached))
        served = datasets.Dataset(table, split=datasets.NamedSplit(split), fingerprint=key[:32])
    except Exception as exc:  # only a file changed between its check and its mapping gets here
        raise DatasetIntegrityError(f"cannot map the Arrow cache of {folder} split {split!r}: "
                                    f"{type(exc).__name__}: {str(exc)[:160]}") from None
    if len(served) != entry["rows"]:
        raise DatasetIntegrityError(f"{folder}: split {split!r} serves {len(served)} rows, its manifest says "
                                    f"{entry['rows']}")
    return served


def to_pyg(hf_dataset, featurizer: str = TRAPPM, targets: list[str] | None = None, cache: bool = True, *,
           y=None):
    """A PyG ``InMemoryDataset`` with ``x``, ``edge_index``, ``static`` and ``y`` per graph, from a
    loaded split; or, from one :class:`perfgraphs.PerfGraph`, its ``Data`` (``y``: its label values).

    Features are computed for all graphs at once from the Arrow columns (see
    :mod:`perfgraphs.data.featurize`); the result equals featurizing each graph on its own. For an
    unmodified split returned by :func:`load_dataset`, node features and edges are cached on disk
    (checksummed, see :mod:`perfgraphs.data.pyg_cache`) and mapped on the next load.
    """
    from perfgraphs.graph.ir import PerfGraph

    if isinstance(hf_dataset, PerfGraph):
        from perfgraphs.views.pyg import graph_data

        return graph_data(hf_dataset, featurizer, y)
    if y is not None:
        raise PerfgraphsError("y= labels one graph; a split's labels are its target columns: targets=[...]")
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


def static_features(hf_dataset, featurizer: str = TRAPPM) -> np.ndarray:
    """(num_graphs, static_dim) straight from the stored static-fact columns: what a static-feature
    model needs, without touching the node tables."""
    from perfgraphs.data import featurize

    return featurize.static_features(featurize.arrow_table(hf_dataset), featurizer)
