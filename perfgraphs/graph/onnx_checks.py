"""What the importer relies on in a parsed ONNX model that ``onnx.checker`` does not check.

* Text fields are UTF-8. Protobuf requires it, but the Python runtime (upb) parses a proto2 string
  that is not UTF-8 anyway and hands it out as ``bytes`` instead of ``str``: a flipped bit in a
  name or in the metadata would surface much later as a ``TypeError`` or ``UnicodeDecodeError``.
* The ``perfgraphs.*`` metadata written by :func:`perfgraphs.graph.export.export_module` is JSON: a
  list of the data-input names (each one a graph input) and a list of the parameter names.

Every failure is an :class:`InvalidModelError` with one line.
"""

from __future__ import annotations

import json

import onnx
from google.protobuf.message import Message as _Message

from perfgraphs.errors import InvalidModelError
from perfgraphs.graph.export import META_DATA_INPUTS, META_PARAMETERS


def first_non_utf8_field(model: onnx.ModelProto) -> str | None:
    """``Message.field`` of the first text field that is not valid UTF-8, or ``None``.

    Visits set fields only (``ListFields``: 27 ms for BERT-base's 1,143 nodes, against 51 ms for a
    walk over every declared field; weights stored in the file are copied once on the way);
    iterative, so nested subgraphs cannot exhaust the stack.
    """
    stack = [model]
    while stack:
        message = stack.pop()
        for field, value in message.ListFields():
            if field.type == field.TYPE_STRING:
                if isinstance(value, bytes) or (not isinstance(value, str)
                                                and any(isinstance(v, bytes) for v in value)):
                    return f"{message.DESCRIPTOR.name}.{field.name}"
            elif field.type == field.TYPE_MESSAGE:
                if isinstance(value, _Message):  # a singular field; else a repeated container
                    stack.append(value)
                else:
                    stack.extend(value)
    return None


def _json_names(model: onnx.ModelProto, key: str) -> list[str] | None:
    """The JSON list of names stored under metadata ``key``; ``None`` when the key is absent."""
    value = {p.key: p.value for p in model.metadata_props}.get(key)
    if value is None:
        return None
    try:
        names = json.loads(value)
    except (ValueError, RecursionError):  # JSONDecodeError is a ValueError; "[[[[…" recurses
        raise InvalidModelError(f"its metadata {key} is not valid JSON") from None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise InvalidModelError(f"its metadata {key} is not a JSON list of names")
    return names


def declared_data_inputs(model: onnx.ModelProto) -> list[str] | None:
    """Data-input names from the export metadata (``None`` without it), checked against the graph."""
    names = _json_names(model, META_DATA_INPUTS)
    if names is None:
        return None
    graph_inputs = {i.name for i in model.graph.input}
    missing = [n for n in names if n not in graph_inputs]
    if missing:
        raise InvalidModelError(
            f"its metadata {META_DATA_INPUTS} names {missing[0][:80]!r}, which is not a graph input")
    if not names or len(set(names)) != len(names):
        raise InvalidModelError(f"its metadata {META_DATA_INPUTS} must name each data input once")
    return names


def declared_parameters(model: onnx.ModelProto) -> list[str] | None:
    """Parameter names from the export metadata (``None`` without it). Names the graph does not
    use are harmless: only the tensors a node reads are counted."""
    return _json_names(model, META_PARAMETERS)


def check_readable(model: onnx.ModelProto) -> None:
    """Raise :class:`InvalidModelError` unless the importer can read every field it uses."""
    field = first_non_utf8_field(model)
    if field is not None:
        raise InvalidModelError(f"a text field ({field}) is not valid UTF-8")
    declared_data_inputs(model)
    declared_parameters(model)
