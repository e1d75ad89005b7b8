"""Making releases (``perfgraphs datasets release NAME``) and exporting them (``perfgraphs datasets
export DIR``): one Hugging-Face-Hub-ready folder per released dataset.

A release builds the configs from the data directory (or reuses their current build) and records
a new version in the release index when their content changed (:mod:`perfgraphs.data.releases`).

``DIR/<short name>/`` holds, for one released version, every config of it as the build wrote it
(``<config>/data/<split>-NNNNN-of-NNNNN.parquet`` and ``<config>/manifest.json``, so the copy is
verified like a build), ``releases.json`` (the release's records) and ``README.md``, the dataset
card whose YAML ``configs`` list exactly these files: ``datasets.load_dataset(DIR/<short name>,
<config>)`` reads it as it is, and uploading the folder makes a Hub dataset repository.
``perfgraphs.load_dataset(..., release_dir=DIR)`` (or ``PERFGRAPHS_RELEASE_DIR=DIR``) serves it
without a checkout or a data directory.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from perfgraphs.data.cards import render, short_name
from perfgraphs.data.load import current_build, reproduce
from perfgraphs.data.releases import (RELEASE_INDEX, ConfigRelease, build_columns, exported_folder, keep, kept_folder,
                                      latest_version, next_version, read_index, write_index)
from perfgraphs.errors import PerfgraphsError
from perfgraphs.registry import Config, Dataset


def release(ds: Dataset, configs: list[Config], home: Path | None = None, index_path: Path | None = None
            ) -> tuple[str | None, dict[str, ConfigRelease]]:
    """Build (or reuse the current build of) ``configs`` and record a new version if any content
    changed since the latest release; returns (new version or None, the records of this run)."""
    index = read_index(index_path)
    latest = latest_version(ds.name, index)
    previous = ({c: ConfigRelease.from_record(r) for c, r in index[ds.name][latest].items()} if latest else None)
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    new: dict[str, ConfigRelease] = {}
    folders: dict[str, Path] = {}
    for cfg in configs:
        folder, manifest = current_build(ds, cfg, home)
        if not manifest.get("registry_defaults"):
            raise PerfgraphsError(f"{folder} was built from other sources than the registry's; a release is "
                                  f"built from them: `perfgraphs datasets build {ds.name} --config {cfg.name}`")
        record = ConfigRelease.from_manifest(manifest, build_columns(folder, manifest), now)
        if previous and cfg.name in previous and previous[cfg.name].content_hash == record.content_hash:
            record = previous[cfg.name]  # unchanged: the record (and its date) stays as released
        new[cfg.name] = record
        folders[cfg.name] = folder
    version = next_version(previous, latest, new, ds.version)
    if version is None:
        return None, new
    records = {**(previous or {}), **new}
    index.setdefault(ds.name, {})[version] = {c: r.to_record() for c, r in records.items()}
    for name, folder in folders.items():
        keep(folder, kept_folder(ds, name, version, home))
    write_index(index, index_path)
    return version, new


def export_release(root: Path, ds: Dataset, version: str | None = None, home: Path | None = None) -> Path:
    """Write ``root/<short name>/`` for ``version`` (default: the latest release); returns the folder."""
    index = read_index()
    version = version or latest_version(ds.name, index)
    if version is None:
        raise PerfgraphsError(f"{ds.name} has no release yet: `perfgraphs datasets release {ds.name}` makes one")
    configs = index.get(ds.name, {}).get(version)
    if configs is None:
        raise PerfgraphsError(f"{ds.name} has no released version {version} (released: "
                              f"{', '.join(sorted(index.get(ds.name, {}))) or 'none'})")
    target = Path(root) / short_name(ds)
    for name in configs:
        folder, _ = reproduce(ds, ds.config(name), version, home)
        keep(folder, exported_folder(root, ds, name))
    write_index({ds.name: {version: configs}}, target / RELEASE_INDEX)
    (target / "README.md").write_text(render(ds, version, index, only=list(configs)))
    return target
