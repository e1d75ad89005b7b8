"""Datasets: the graph pool, registry-driven builds, manifests, splits and loading."""

# Imported on first use (as in perfgraphs/__init__.py): a process that needs one module of this
# package (a manifest, a split file) does not load pyarrow's datasets layer with it.
_LAZY = {"load_dataset": "perfgraphs.data.load", "to_pyg": "perfgraphs.data.load", "get_split": "perfgraphs.data.splits"}

__all__ = ["get_split", "load_dataset", "to_pyg"]


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'perfgraphs.data' has no attribute {name!r}")
