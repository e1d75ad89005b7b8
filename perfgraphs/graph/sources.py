"""Resolve any graph source to a :class:`GraphTemplate` or a concrete :class:`PerfGraph`.

Sources: an ONNX file path or ONNX bytes; a ``torch.nn.Module`` with an :class:`InputSpec`; a zoo
name ``timm:<arch>``, ``torchvision:<arch>`` or ``hf:<id>``.
"""

from __future__ import annotations

import re
from pathlib import Path

from perfgraphs.errors import InvalidInputSpecError
from perfgraphs.graph.export import export_module
from perfgraphs.graph.inputs import InputSpec, check_ranges
from perfgraphs.graph.ir import PerfGraph
from perfgraphs.graph.onnx_import import read_onnx
from perfgraphs.graph.template import GraphTemplate
from perfgraphs.graph.zoo import build_model, is_model_name, parse_model_name


def _looks_like_model_name(text: str) -> bool:
    """``zoo:arch`` rather than a path (a Windows drive letter is one character)."""
    return bool(re.match(r"^[A-Za-z][\w.-]+:[^/\\]", text))


def _exists(text: str) -> bool:
    try:
        return Path(text).exists()
    except OSError:  # e.g. a name longer than the file system allows: not a file we can read
        return False


def _onnx_template(model_bytes_or_path, name: str, image_shape) -> GraphTemplate:
    if image_shape is not None:
        raise InvalidInputSpecError(
            "an ONNX file fixes its input shape; only --batch (and --seq-len on a dynamic sequence axis) apply"
        )
    return GraphTemplate(read_onnx(model_bytes_or_path), name=name)


def graph_template(
    source,
    *,
    image_shape: tuple[int, ...] | None = None,
    seq_len: int | None = None,
    input_spec: InputSpec | None = None,
) -> GraphTemplate:
    """Export (or read) ``source`` once; derive batch/sequence variants from the result."""
    check_ranges(seq_len=seq_len, image_shape=image_shape)  # before any export
    if isinstance(source, (bytes, bytearray, memoryview)):
        return _onnx_template(source, "onnx-bytes", image_shape)
    if isinstance(source, str) and not _exists(source) and _looks_like_model_name(source):
        parse_model_name(source)  # raises UnknownModelError naming the zoos we know
    if isinstance(source, (str, Path)) and not (isinstance(source, str) and is_model_name(source)):
        path = Path(source)
        return _onnx_template(path, path.stem, image_shape)
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
    check_ranges(batch_size=batch_size, seq_len=seq_len, image_shape=image_shape)  # before any export
    template = graph_template(source, image_shape=image_shape, seq_len=seq_len, input_spec=input_spec)
    if seq_len is not None:
        # Given explicitly it always reaches the template, which refuses it on a model without a
        # dynamic sequence axis instead of ignoring it.
        return template.graph(batch_size, seq_len)
    text_seq = template.spec.seq_len if template.spec else None
    return template.graph(batch_size, text_seq if template.dynamic_sequence else None)
