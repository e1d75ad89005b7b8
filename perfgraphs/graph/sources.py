"""Resolve any graph source to a :class:`GraphTemplate` or a concrete :class:`PerfGraph`.

Sources: an ONNX file path or ONNX bytes; a ``torch.nn.Module`` with an :class:`InputSpec`; a zoo
name ``timm:<arch>``, ``torchvision:<arch>`` or ``hf:<id>``.
"""

from __future__ import annotations

import re
from pathlib import Path

from perfgraphs.errors import InvalidInputSpecError
from perfgraphs.graph.export import export_module
from perfgraphs.graph.inputs import InputSpec
from perfgraphs.graph.ir import PerfGraph
from perfgraphs.graph.onnx_import import read_onnx
from perfgraphs.graph.template import GraphTemplate
from perfgraphs.graph.zoo import build_model, is_model_name, parse_model_name


def _looks_like_model_name(text: str) -> bool:
    """``zoo:arch`` rather than a path (a Windows drive letter is one character)."""
    return bool(re.match(r"^[A-Za-z][\w.-]+:[^/\\]", text))

def graph_template(
    source,
    *,
    image_shape: tuple[int, ...] | None = None,
    seq_len: int | None = None,
    input_spec: InputSpec | None = None,
) -> GraphTemplate:
    """Export (or read) ``source`` once; derive batch/sequence variants from the result."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return GraphTemplate(read_onnx(source), name="onnx-bytes")
    if isinstance(source, str) and not Path(source).exists() and _looks_like_model_name(source):
        parse_model_name(source)  # raises UnknownModelError naming the zoos we know
    if isinstance(source, (str, Path)) and not (isinstance(source, str) and is_model_name(source)):
        path = Path(source)
        if image_shape is not None or seq_len is not None:
            raise InvalidInputSpecError(
                "an ONNX file fixes its input shape; only --batch (and a dynamic sequence) apply"
            )
        return GraphTemplate(read_onnx(path), name=path.stem)
    if isinstance(source, str):
        module, spec = build_model(source, image_shape=image_shape, seq_len=seq_len)
        name = source
    else:
        import torch

        if not isinstance(source, torch.nn.Module):
            raise InvalidInputSpecError(
                f"a graph source is a path, ONNX bytes, a zoo name or a torch.nn.Module, "
                f"got {type(source).__name__}"
            )
        if input_spec is None:
            raise InvalidInputSpecError("a torch.nn.Module source needs input_spec=InputSpec(...)")
        module, spec, name = source.eval(), input_spec.with_batch(1), type(source).__name__
    return GraphTemplate(export_module(module, spec.with_batch(1), source=name), name=name, spec=spec)


def load_graph(
    source,
    *,
    batch_size: int = 1,
    image_shape: tuple[int, ...] | None = None,
    seq_len: int | None = None,
    input_spec: InputSpec | None = None,
) -> PerfGraph:
    """The :class:`PerfGraph` of ``source`` at one configuration.

    >>> g = load_graph("torchvision:alexnet", batch_size=2)
    >>> g.batch_size, g.static_features()["num_conv"]
    (2, 5)
    """
    template = graph_template(source, image_shape=image_shape, seq_len=seq_len, input_spec=input_spec)
    text_seq = seq_len if seq_len is not None else (template.spec.seq_len if template.spec else None)
    return template.graph(batch_size, text_seq if template.dynamic_sequence else None)
