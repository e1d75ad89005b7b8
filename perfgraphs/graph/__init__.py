"""Performance-graph IR, ONNX import, model zoo and variant derivation."""

from perfgraphs.graph.inputs import InputSpec, parse_image_shape
from perfgraphs.graph.ir import ATTRIBUTE_NAMES, SHAPE_RANK, NodeFacts, PerfGraph
from perfgraphs.graph.operators import ONNX_OPERATORS, OTHER
from perfgraphs.lazy import lazy_getattr

# imported on first use (perfgraphs.lazy): these import onnx, whose import costs half a second (its
# ml_dtypes extension), and the IR alone is what a reader of stored graphs needs (the static features
# every sandboxed ridge fit computes, perfgraphs.data.featurize)
__getattr__ = lazy_getattr(__name__, {"graph_template": "perfgraphs.graph.sources", "load_graph": "perfgraphs.graph.sources",
                                      "GraphTemplate": "perfgraphs.graph.template"}, globals())

__all__ = [
    "ATTRIBUTE_NAMES", "GraphTemplate", "InputSpec", "NodeFacts", "ONNX_OPERATORS", "OTHER",
    "PerfGraph", "SHAPE_RANK", "graph_template", "load_graph", "parse_image_shape",
]
