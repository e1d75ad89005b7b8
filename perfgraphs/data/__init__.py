"""Datasets: the graph pool, registry-driven builds, manifests, splits and loading."""

from perfgraphs.lazy import lazy_getattr

# each name imported on first use (perfgraphs.lazy): a process that needs one module of this package
# (a manifest, a split file) does not load pyarrow's datasets layer with it
_LAZY = {"load_dataset": "perfgraphs.data.load", "to_pyg": "perfgraphs.data.load", "get_split": "perfgraphs.data.splits"}

__all__ = ["get_split", "load_dataset", "to_pyg"]

__getattr__ = lazy_getattr(__name__, _LAZY, globals())
