"""perfgraphs: measured computation-graph datasets for deep-learning performance prediction."""

from perfgraphs.errors import PerfgraphsError
from perfgraphs.lazy import lazy_getattr

__version__ = "0.1.0"

# the public names, each imported on first use (perfgraphs.lazy)
_LAZY = {
    "load_dataset": "perfgraphs.data.load", "to_pyg": "perfgraphs.data.load", "get_split": "perfgraphs.data.splits",
    "GraphTemplate": "perfgraphs.graph", "InputSpec": "perfgraphs.graph", "PerfGraph": "perfgraphs.graph",
    "graph_template": "perfgraphs.graph", "load_graph": "perfgraphs.graph",
    "load_repetitions": "perfgraphs.data.repeats",
}

__all__ = ["GraphTemplate", "InputSpec", "PerfGraph", "PerfgraphsError", "get_split", "graph_template", "load_dataset",
           "load_graph", "load_repetitions", "platforms", "predict", "to_pyg", "__version__"]


_imported = lazy_getattr(__name__, _LAZY, globals())


def __getattr__(name: str):
    # predict sits on top of the layers (leaderboard records, baselines' XGBoost)
    if name in ("predict", "platforms"):
        import importlib

        package = importlib.import_module("perfgraphs.predict")  # a callable module: perfgraphs.predict(...)
        return package if name == "predict" else package.platforms
    return _imported(name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
