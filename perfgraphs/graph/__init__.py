"""Performance-graph IR, ONNX import, model zoo and variant derivation."""

from perfgraphs.graph.inputs import InputSpec, parse_image_shape
from perfgraphs.graph.ir import ATTRIBUTE_NAMES, SHAPE_RANK, NodeFacts, PerfGraph
from perfgraphs.graph.operators import ONNX_OPERATORS, OTHER
from perfgraphs.graph.sources import graph_template, load_graph
from perfgraphs.graph.template import GraphTemplate

__all__ = [
    "ATTRIBUTE_NAMES", "GraphTemplate", "InputSpec", "NodeFacts", "ONNX_OPERATORS", "OTHER",
    "PerfGraph", "SHAPE_RANK", "graph_template", "load_graph", "parse_image_shape",
]
