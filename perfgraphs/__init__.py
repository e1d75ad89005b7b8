"""perfgraphs: measured computation-graph datasets for deep-learning performance prediction."""

from perfgraphs.errors import PerfgraphsError
from perfgraphs.graph import GraphTemplate, InputSpec, PerfGraph, graph_template, load_graph

__version__ = "0.1.0"

__all__ = ["GraphTemplate", "InputSpec", "PerfGraph", "PerfgraphsError", "graph_template", "load_graph", "__version__"]
