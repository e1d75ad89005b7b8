"""Datasets: the graph pool, registry-driven builds, manifests, splits and loading."""

from perfgraphs.data import platforms  # noqa: F401  (installs the registry's platform discovery)
from perfgraphs.data.load import load_dataset, to_pyg
from perfgraphs.data.splits import get_split

__all__ = ["get_split", "load_dataset", "to_pyg"]
