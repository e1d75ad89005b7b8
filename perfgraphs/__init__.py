"""perfgraphs: measured computation-graph datasets for deep-learning performance prediction."""

from perfgraphs.errors import PerfgraphsError
from perfgraphs.data import get_split, load_dataset, to_pyg
from perfgraphs.graph import GraphTemplate, InputSpec, PerfGraph, graph_template, load_graph

__version__ = "0.1.0"

__all__ = ["GraphTemplate", "InputSpec", "PerfGraph", "PerfgraphsError", "get_split", "graph_template", "load_dataset",
           "load_graph", "to_pyg", "__version__"]
