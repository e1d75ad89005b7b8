"""``perfgraphs datasets export DIR``: one Hugging-Face-Hub-ready folder per released dataset.

``DIR/<short name>/`` holds, for one released version, every config of it as the build wrote it
(``<config>/data/<split>-NNNNN-of-NNNNN.parquet`` and ``<config>/manifest.json``, so the copy is
verified like a build), ``releases.json`` (the release's records) and ``README.md``, the dataset
card whose YAML ``configs`` list exactly these files: ``datasets.load_dataset(DIR/<short name>,
<config>)`` reads it as it is, and uploading the folder makes a Hub dataset repository.
``perfgraphs.load_dataset(..., release_dir=DIR)`` (or ``PERFGRAPHS_RELEASE_DIR=DIR``) serves it
without a checkout or a data directory.
"""

from __future__ import annotations

from pathlib import Path

from perfgraphs.data.cards import render, short_name
from perfgraphs.data.releases import (RELEASE_INDEX, exported_folder, keep, latest_version, read_index, reproduce,
                                      write_index)
from perfgraphs.errors import PerfgraphsError
from perfgraphs.registry import Dataset


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
