"""perfgraphs: measured computation-graph datasets for deep-learning performance prediction."""

from perfgraphs.errors import PerfgraphsError
from perfgraphs.data import get_split, load_dataset, to_pyg
from perfgraphs.graph import GraphTemplate, InputSpec, PerfGraph, graph_template, load_graph

__version__ = "0.1.0"

__all__ = ["GraphTemplate", "InputSpec", "PerfGraph", "PerfgraphsError", "get_split", "graph_template", "load_dataset",
           "load_graph", "platforms", "predict", "to_pyg", "__version__"]


def __getattr__(name: str):
    # predict sits on top of the layers (leaderboard records, baselines' XGBoost): imported on first
    # use, so `import perfgraphs` stays as light as it was
    if name in ("predict", "platforms"):
        import importlib

        package = importlib.import_module("perfgraphs.predict")  # a callable module: perfgraphs.predict(...)
        return package if name == "predict" else package.platforms
    raise AttributeError(f"module 'perfgraphs' has no attribute {name!r}")
