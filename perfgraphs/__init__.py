"""perfgraphs: measured computation-graph datasets for deep-learning performance prediction."""

from perfgraphs.errors import PerfgraphsError

__version__ = "0.1.0"

# The public names, each imported on first use (PEP 562): `import perfgraphs` and every
# `python -m perfgraphs.<module>` (the CLI, each sandboxed predictor process of the harness) pay only
# for what they touch, not for pyarrow, onnx and the graph layers (about 0.8 s a process).
_LAZY = {
    "load_dataset": "perfgraphs.data.load", "to_pyg": "perfgraphs.data.load", "get_split": "perfgraphs.data.splits",
    "GraphTemplate": "perfgraphs.graph", "InputSpec": "perfgraphs.graph", "PerfGraph": "perfgraphs.graph",
    "graph_template": "perfgraphs.graph", "load_graph": "perfgraphs.graph",
}

__all__ = ["GraphTemplate", "InputSpec", "PerfGraph", "PerfgraphsError", "get_split", "graph_template", "load_dataset",
           "load_graph", "platforms", "predict", "to_pyg", "__version__"]


def __getattr__(name: str):
    import importlib

    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value  # once: later lookups do not come here
        return value
    # predict sits on top of the layers (leaderboard records, baselines' XGBoost)
    if name in ("predict", "platforms"):
        package = importlib.import_module("perfgraphs.predict")  # a callable module: perfgraphs.predict(...)
        return package if name == "predict" else package.platforms
    raise AttributeError(f"module 'perfgraphs' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
