"""Where a config's build lives in the cache, and the graph-level columns every graph build has.

The bottom of the data layer: the builders, the loaders and the featurizer all read these, and
nothing here reads them back."""

from __future__ import annotations

from pathlib import Path

from perfgraphs import paths
from perfgraphs.registry import Config, Dataset

STATIC_COLUMNS = ("batch_size", "num_nodes", "num_edges", "total_macs", "total_flops", "total_params",
                  "total_memory_bytes", "num_conv", "num_dense", "num_relu", "num_attention", "num_other")


def dataset_folder(dataset: Dataset, config: Config, home: Path | None = None) -> Path:
    short = dataset.name.split("/", 1)[1]
    return paths.datasets_cache(home) / short / dataset.version / config.name
