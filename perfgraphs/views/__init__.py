"""Views of a PerfGraph for other libraries (PyG, Hugging Face datasets)."""

from perfgraphs.views.hf import from_hf_row, to_hf_row
from perfgraphs.views.pyg import to_pyg

__all__ = ["from_hf_row", "to_hf_row", "to_pyg"]
