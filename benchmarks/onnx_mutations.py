"""Mutations of a serialized ONNX model, for fuzzing the import (``benchmarks/onnx_fuzz.py``).

A mutation is either a byte-level edit (bit flips, truncation, inserted or overwritten bytes) —
what a damaged download looks like, mostly refused by the parser or the ONNX checker — or a
structured edit through the protobuf API (a deleted initializer, dim, attribute or node, corrupt
metadata JSON, a name that is not UTF-8, …): those survive parsing and the checker and so reach
the code behind them.
"""

from __future__ import annotations

import json
import random
from typing import Callable

import onnx

from perfgraphs.graph.export import META_DATA_INPUTS, META_PARAMETERS, META_SOURCE


# -- byte-level mutations ----------------------------------------------------------------------

def flip_bits(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.choice((1, 1, 2, 4, 8))):
        out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
    return bytes(out)


def truncate(rng: random.Random, data: bytes) -> bytes:
    return data[: rng.randrange(len(data))]


def insert_bytes(rng: random.Random, data: bytes) -> bytes:
    at = rng.randrange(len(data) + 1)
    return data[:at] + rng.randbytes(rng.choice((1, 2, 4, 16))) + data[at:]


def overwrite_bytes(rng: random.Random, data: bytes) -> bytes:
    at, n = rng.randrange(len(data)), rng.choice((1, 2, 4, 16))
    return data[:at] + rng.randbytes(n) + data[at + n:]


BYTE_MUTATIONS: dict[str, Callable[[random.Random, bytes], bytes]] = {
    "flip_bits": flip_bits, "truncate": truncate, "insert_bytes": insert_bytes,
    "overwrite_bytes": overwrite_bytes,
}


# -- structured mutations (edit the ModelProto in place; False when not applicable) ------------

def _value_infos(model: onnx.ModelProto) -> list:
    g = model.graph
    return [*g.input, *g.output, *g.value_info]


def delete_initializer(rng, model) -> bool:
    inits = model.graph.initializer
    if not inits:
        return False
    del inits[rng.randrange(len(inits))]
    return True


def delete_graph_input(rng, model) -> bool:
    inputs = model.graph.input
    if not inputs:
        return False
    del inputs[rng.randrange(len(inputs))]
    return True


def delete_dim(rng, model) -> bool:
    candidates = [v for v in _value_infos(model) if v.type.tensor_type.shape.dim]
    candidates += [t for t in model.graph.initializer if t.dims]
    if not candidates:
        return False
    target = rng.choice(candidates)
    dims = target.dims if isinstance(target, onnx.TensorProto) else target.type.tensor_type.shape.dim
    for _ in range(rng.choice((1, 1, 2, len(dims)))):  # down to a rank-1 or rank-0 weight
        if dims:
            del dims[rng.randrange(len(dims))]
    return True


def set_initializer_dims(rng, model) -> bool:
    """Dims that disagree with the stored data (or overflow when multiplied)."""
    inits = model.graph.initializer
    if not inits:
        return False
    dims = inits[rng.randrange(len(inits))].dims
    if dims and rng.random() < 0.7:
        dims[rng.randrange(len(dims))] = rng.choice(_ODD_DIMS)
    else:
        dims.append(rng.choice(_ODD_DIMS))
    return True


_ODD_DIMS = (0, 1, 2, 3, 7, 1 << 20, 1 << 31, (1 << 62) + 1, (1 << 63) - 1, -1, -5)


def set_dim(rng, model) -> bool:
    candidates = [v for v in _value_infos(model) if v.type.tensor_type.shape.dim]
    if not candidates:
        return False
    dims = rng.choice(candidates).type.tensor_type.shape.dim
    dim = dims[rng.randrange(len(dims))]
    if rng.random() < 0.2:
        dim.Clear()  # neither a value nor a symbol
    elif rng.random() < 0.2:
        dim.dim_param = rng.choice(("", "batch", "sequence", "N"))
    else:
        dim.dim_value = rng.choice(_ODD_DIMS)
    return True


def clear_shape(rng, model) -> bool:
    candidates = [v for v in _value_infos(model) if v.type.HasField("tensor_type")]
    if not candidates:
        return False
    rng.choice(candidates).type.tensor_type.ClearField("shape")
    return True


def set_elem_type(rng, model) -> bool:
    candidates = [v for v in _value_infos(model) if v.type.HasField("tensor_type")]
    if not candidates:
        return False
    rng.choice(candidates).type.tensor_type.elem_type = rng.choice((0, 1, 2, 6, 7, 8, 9, 10, 16, 99))
    return True


def _nodes_with_attributes(model):
    return [n for n in model.graph.node if n.attribute]


def delete_attribute(rng, model) -> bool:
    nodes = _nodes_with_attributes(model)
    if not nodes:
        return False
    attrs = rng.choice(nodes).attribute
    del attrs[rng.randrange(len(attrs))]
    return True


def corrupt_attribute(rng, model) -> bool:
    """Shorter, longer, empty or oddly valued int lists and ints (kernel_shape, pads, axis, …)."""
    nodes = _nodes_with_attributes(model)
    if not nodes:
        return False
    attr = rng.choice(rng.choice(nodes).attribute)
    if attr.type == onnx.AttributeProto.INTS:
        values = list(attr.ints)
        choice = rng.randrange(4)
        if choice == 0 and values:
            del attr.ints[rng.randrange(len(values))]
        elif choice == 1:
            attr.ints.append(rng.choice(_ODD_DIMS))
        elif choice == 2:
            del attr.ints[:]
        elif values:
            attr.ints[rng.randrange(len(values))] = rng.choice(_ODD_DIMS)
    elif attr.type == onnx.AttributeProto.INT:
        attr.i = rng.choice(_ODD_DIMS)
    elif attr.type == onnx.AttributeProto.FLOAT:
        attr.f = rng.choice((0.0, -1.0, float("nan"), float("inf"), 1e30))
    elif attr.type == onnx.AttributeProto.TENSOR:
        t = attr.t
        if t.dims:
            del t.dims[rng.randrange(len(t.dims))]
        else:
            t.dims.append(rng.choice((0, 2, 5)))
    else:
        kinds = onnx.AttributeProto
        attr.type = rng.choice((kinds.INT, kinds.INTS, kinds.STRING))
    return True


def retype_attribute(rng, model) -> bool:
    """An attribute that claims another type than the value it carries."""
    nodes = _nodes_with_attributes(model)
    if not nodes:
        return False
    attr = rng.choice(rng.choice(nodes).attribute)
    attr.type = rng.choice([t for t in range(1, 15) if t != attr.type])
    return True


def delete_node(rng, model) -> bool:
    nodes = model.graph.node
    if not nodes:
        return False
    del nodes[rng.randrange(len(nodes))]
    return True


_OPS = ("Conv", "ConvTranspose", "MaxPool", "AveragePool", "LpPool", "Gemm", "MatMul", "Einsum",
        "BatchNormalization", "LayerNormalization", "Relu", "Softmax", "Resize", "Reshape", "Transpose",
        "Identity", "Constant", "Gather", "Concat", "NoSuchOp")


def change_op_type(rng, model) -> bool:
    nodes = model.graph.node
    if not nodes:
        return False
    node = nodes[rng.randrange(len(nodes))]
    node.op_type = rng.choice(_OPS)
    if rng.random() < 0.1:
        node.domain = rng.choice(("com.microsoft", "ai.onnx.ml", "x"))
    return True


def rewire_node(rng, model) -> bool:
    """A node input or output renamed to another tensor, an unknown one or the empty string."""
    nodes = [n for n in model.graph.node if n.input or n.output]
    if not nodes:
        return False
    node = rng.choice(nodes)
    names = [t for n in model.graph.node for t in (*n.input, *n.output)] + [i.name for i in model.graph.input]
    slots = node.input if node.input and (not node.output or rng.random() < 0.7) else node.output
    k = rng.randrange(len(slots))
    roll = rng.random()
    if roll < 0.2:
        del slots[k]
    else:
        slots[k] = rng.choice(("", "ghost", *names))
    return True


def swap_nodes(rng, model) -> bool:
    nodes = model.graph.node
    if len(nodes) < 2:
        return False
    i, j = rng.sample(range(len(nodes)), 2)
    a, b = onnx.NodeProto(), onnx.NodeProto()
    a.CopyFrom(nodes[i])
    b.CopyFrom(nodes[j])
    nodes[i].CopyFrom(b)
    nodes[j].CopyFrom(a)
    return True


def set_opset(rng, model) -> bool:
    for opset in model.opset_import:
        if opset.domain in ("", "ai.onnx"):
            opset.version = rng.choice((0, 1, 7, 11, 13, 18, 21, 99, -1))
            return True
    return False


def _json_garbage(rng: random.Random, model: onnx.ModelProto, current: str) -> str:
    names = [i.name for i in model.graph.input]
    return rng.choice((
        current[: rng.randrange(len(current) + 1)],                 # truncated JSON
        "", "null", "42", '"input"', "{}", '{"a": 1}', "[1, 2]", "[null]", "[[]]", '[{"x": 1}]',
        json.dumps(["ghost"]), json.dumps(names[::-1]), json.dumps([]), json.dumps(names * 2),
        "[" * 5000,                                                  # deeply nested: RecursionError?
        "\ufffd\u0000" + current,
    ))


def corrupt_metadata(rng, model) -> bool:
    """Replace (or add) one ``perfgraphs.*`` metadata value with malformed or wrong JSON."""
    key = rng.choice((META_DATA_INPUTS, META_PARAMETERS, META_SOURCE))
    entry = next((p for p in model.metadata_props if p.key == key), None)
    if entry is None:
        entry = model.metadata_props.add()
        entry.key = key
    entry.value = _json_garbage(rng, model, entry.value)
    return True


def delete_metadata(rng, model) -> bool:
    props = model.metadata_props
    if not props:
        return False
    del props[rng.randrange(len(props))]
    return True


# protobuf strings must be UTF-8 and the Python API refuses to write anything else: a marker is
# written and replaced by invalid bytes (of the same length) in the serialized message.
_MARKER = "\u00a7fuzz\u00a7"
_INVALID_UTF8 = b"\xff\xfe\xc3(\x80\x80\xed\xa0"
assert len(_INVALID_UTF8) == len(_MARKER.encode())


def _rename_tensor(model: onnx.ModelProto, old: str, new: str) -> None:
    g = model.graph
    for node in g.node:
        node.input[:] = [new if t == old else t for t in node.input]
        node.output[:] = [new if t == old else t for t in node.output]
    for value in [*g.input, *g.output, *g.value_info, *g.initializer]:
        if value.name == old:
            value.name = new


def invalid_utf8_string(rng, model) -> bool:
    """A name, operator type, metadata entry or tensor name (renamed consistently, so the file
    still passes the checker) that is not valid UTF-8."""
    if not model.graph.node:
        return False
    node = model.graph.node[rng.randrange(len(model.graph.node))]
    target = rng.choice(("node_name", "op_type", "tensor", "tensor", "meta_key", "meta_value", "graph_name",
                         "source"))
    if target == "node_name":
        node.name = _MARKER
    elif target == "op_type":
        node.op_type = _MARKER
    elif target == "tensor" and node.input:
        _rename_tensor(model, rng.choice(list(node.input)), _MARKER)
    elif target == "graph_name":
        model.graph.name = _MARKER
    else:
        entry = model.metadata_props.add()
        entry.key, entry.value = {"meta_key": (_MARKER, "x"), "meta_value": ("note", _MARKER),
                                  "source": (META_SOURCE, _MARKER)}.get(target, ("note", _MARKER))
    return True


STRUCTURED_MUTATIONS: dict[str, Callable[[random.Random, onnx.ModelProto], bool]] = {
    f.__name__: f for f in (
        delete_initializer, delete_graph_input, delete_dim, set_initializer_dims, set_dim, clear_shape,
        set_elem_type, delete_attribute, corrupt_attribute, retype_attribute, delete_node, change_op_type,
        rewire_node, swap_nodes, set_opset, corrupt_metadata, delete_metadata, invalid_utf8_string,
    )
}


def mutate(rng: random.Random, data: bytes) -> tuple[str, bytes]:
    """One mutation of ``data``: ``(mutation names joined by +, mutated bytes)``; 40 % byte-level,
    the rest one to three structured edits."""
    if rng.random() < 0.4:
        name = rng.choice(sorted(BYTE_MUTATIONS))
        return name, BYTE_MUTATIONS[name](rng, data)
    model = onnx.load_from_string(data)
    names = sorted(STRUCTURED_MUTATIONS)
    steps: list[str] = []
    wanted = rng.choice((1, 1, 1, 2, 3))
    for _ in range(20):  # a mutation that does not apply (no initializer to delete) is redrawn
        if len(steps) == wanted:
            break
        name = rng.choice(names)
        if STRUCTURED_MUTATIONS[name](rng, model):
            steps.append(name)
    out = model.SerializeToString()
    out = out.replace(_MARKER.encode(), _INVALID_UTF8)
    return "+".join(steps) or "none", out
