"""Views of a PerfGraph for other libraries (PyG, Hugging Face datasets)."""

from perfgraphs.views.hf import from_hf_row, to_hf_row
from perfgraphs.views.pyg import graph_data

__all__ = ["from_hf_row", "graph_data", "to_hf_row"]
