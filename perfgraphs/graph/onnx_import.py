"""ONNX → :class:`PerfGraph`: validation, concrete shape inference, node facts and edges.

Constant nodes are treated like initializers and Identity nodes are elided (their consumers are
rewired to the producer): neither does work at run time. Every other node is kept; operators
outside the vocabulary are kept too and counted in the ``other`` bucket.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import onnx
from onnx import helper

from perfgraphs.errors import InvalidInputSpecError, InvalidModelError, SourceNotFoundError
from perfgraphs.graph.costs import node_flops, node_macs, numel
from perfgraphs.graph.export import META_SOURCE
from perfgraphs.graph.ir import ATTRIBUTE_INDEX, ATTRIBUTE_NAMES, SHAPE_RANK, PerfGraph
from perfgraphs.graph.onnx_checks import check_readable, declared_data_inputs, declared_parameters
from perfgraphs.graph.operators import ELIDED_OPERATORS
from perfgraphs.graph.shape_folding import fold_shapes

_FLOAT_TYPES = {onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16, onnx.TensorProto.BFLOAT16,
                onnx.TensorProto.DOUBLE}


def read_onnx(source: bytes | bytearray | str | Path) -> onnx.ModelProto:
    """Parse and check an ONNX model from bytes or a path; typed errors for anything else."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data, origin = bytes(source), "the given bytes"
    else:
        path = Path(source)
        shown = str(path) if len(str(path)) <= 300 else f"{str(path)[:300]}…"
        try:
            if not path.exists():
                raise SourceNotFoundError(f"no such file: {shown}")
            if not path.is_file():
                raise InvalidModelError(f"{shown} is not a file")
            data, origin = path.read_bytes(), shown
        except OSError as exc:  # a name too long, permission denied, an I/O error
            raise InvalidModelError(f"cannot read {shown}: {exc.strerror or type(exc).__name__}") from None
    if not data:
        raise InvalidModelError(f"{origin} is empty, not an ONNX model")
    try:
        model = onnx.load_from_string(data)
    except Exception as exc:  # protobuf raises DecodeError and friends
        raise InvalidModelError(f"{origin} is not an ONNX model ({type(exc).__name__})") from None
    if not model.graph.node:
        raise InvalidModelError(f"{origin} is not an ONNX model: it has no graph nodes (truncated?)")
    try:
        onnx.checker.check_model(model)
    except Exception as exc:
        first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        raise InvalidModelError(f"{origin} is not a valid ONNX model (truncated?): {first}") from None
    try:
        check_readable(model)
    except InvalidModelError as exc:
        raise InvalidModelError(f"{origin} is not a valid ONNX model: {exc}") from None
    return model


def _metadata(model: onnx.ModelProto) -> dict[str, str]:
    return {p.key: p.value for p in model.metadata_props}


def data_input_names(model: onnx.ModelProto) -> list[str]:
    declared = declared_data_inputs(model)
    if declared is not None:
        return declared
    initializers = {t.name for t in model.graph.initializer}
    return [i.name for i in model.graph.input if i.name not in initializers]


def input_dims(model: onnx.ModelProto) -> dict[str, list[int | str]]:
    """Declared dims of the data inputs: ints, or the symbol name of a dynamic dim."""
    by_name = {i.name: i for i in model.graph.input}
    dims: dict[str, list[int | str]] = {}
    for name in data_input_names(model):
        shape = by_name[name].type.tensor_type.shape
        dims[name] = [d.dim_value if d.HasField("dim_value") else (d.dim_param or "?") for d in shape.dim]
    return dims


def with_concrete_inputs(model: onnx.ModelProto, dims: dict[str, list[int]]) -> onnx.ModelProto:
    """A copy of ``model`` whose data inputs have the given concrete dims, shapes re-inferred."""
    fixed = onnx.ModelProto()
    fixed.CopyFrom(model)
    del fixed.graph.value_info[:]
    for out in fixed.graph.output:
        out.type.tensor_type.ClearField("shape")
    for inp in fixed.graph.input:
        if inp.name in dims:
            shape = inp.type.tensor_type.shape
            if len(shape.dim) != len(dims[inp.name]):
                raise InvalidInputSpecError(
                    f"input {inp.name!r} has rank {len(shape.dim)}, got dims {dims[inp.name]}"
                )
            for dim, value in zip(shape.dim, dims[inp.name]):
                dim.Clear()
                dim.dim_value = int(value)
    def infer(m: onnx.ModelProto) -> onnx.ModelProto:
        try:
            return onnx.shape_inference.infer_shapes(m, check_type=False, strict_mode=True, data_prop=True)
        except Exception as exc:
            first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
            raise InvalidInputSpecError(f"the model does not accept inputs {dims}: {first}") from None

    inferred = infer(fixed)
    if _has_unknown_shapes(inferred):
        # Shapes computed at run time (e.g. Swin's window padding): fold them in one pass and
        # take every tensor's type from there.
        types = fold_shapes(fixed)
        inferred.graph.ClearField("value_info")
        inferred.graph.value_info.extend(
            helper.make_value_info(name, t) for name, t in sorted(types.items()) if name not in dims)
        for out in inferred.graph.output:
            if out.name in types:
                out.type.CopyFrom(types[out.name])
    return inferred


@lru_cache(maxsize=64)
def _itemsize(elem_type: int) -> int:
    try:
        return np.dtype(helper.tensor_dtype_to_np_dtype(elem_type)).itemsize
    except Exception:
        return 4


def _tensor_table(model: onnx.ModelProto) -> dict[str, tuple[tuple[int, ...], int]]:
    """name → (dims with -1 for unknown, ONNX element type) for every typed tensor."""
    table: dict[str, tuple[tuple[int, ...], int]] = {}
    for init in model.graph.initializer:
        table[init.name] = (tuple(init.dims), init.data_type)
    for value in [*model.graph.input, *model.graph.value_info, *model.graph.output]:
        tt = value.type.tensor_type
        if not tt.HasField("shape"):
            continue
        dims = tuple(d.dim_value if d.HasField("dim_value") else -1 for d in tt.shape.dim)
        table[value.name] = (dims, tt.elem_type)
    for node in model.graph.node:
        if node.op_type == "Constant" and node.output[0] not in table:
            for attr in node.attribute:
                if attr.name == "value":
                    table[node.output[0]] = (tuple(attr.t.dims), attr.t.data_type)
    return table


def _has_unknown_shapes(model: onnx.ModelProto) -> bool:
    table = _tensor_table(model)
    for node in model.graph.node:
        for out in node.output:
            if out and (out not in table or any(d < 0 for d in table[out][0])):
                return True
    return False


def _parameter_names(model: onnx.ModelProto, table, weight_names: set[str]) -> set[str]:
    declared = declared_parameters(model)
    if declared is not None:
        return set(declared)
    # Without export metadata: float weights, except BatchNorm running statistics (buffers).
    buffers = {n.input[i] for n in model.graph.node if n.op_type == "BatchNormalization"
               for i in (3, 4) if len(n.input) > i}
    constants = {o for n in model.graph.node if n.op_type == "Constant" for o in n.output}
    return {name for name in weight_names
            if name not in buffers and name not in constants
            and table.get(name, ((), 0))[1] in _FLOAT_TYPES}


def _padded(shape: tuple[int, ...] | None) -> list[int]:
    dims = list(shape or ())[:SHAPE_RANK]
    return dims + [0] * (SHAPE_RANK - len(dims))


def _attr_dict(node: onnx.NodeProto) -> dict:
    out = {}
    for attr in node.attribute:
        value = helper.get_attribute_value(attr)
        if isinstance(value, bytes):
            value = value.decode(errors="replace")
        out[attr.name] = value
    return out


def _check_conv_weight(op: str, inputs: list, first_rank: int, where: str) -> None:
    """A Conv weight is (M, C/group, k1, …), of the input's rank. ONNX's shape inference lets a
    rank-1 or rank-2 weight through (with ``kernel_shape`` given); :func:`_attribute_row` reads
    channels from its first two dims."""
    weight = inputs[1] if op in ("Conv", "ConvTranspose") and len(inputs) > 1 else None
    if weight and (len(weight) < 3 or first_rank not in (0, len(weight))):
        raise InvalidModelError(f"{where}: its weight has shape {list(weight)}, the rank must be the input's "
                                f"({first_rank or 'at least 3'})")


def _attribute_row(op: str, attrs: dict, inputs: list, first_rank: int, second_is_weight: bool) -> list[int]:
    row = [0] * len(ATTRIBUTE_NAMES)
    row[ATTRIBUTE_INDEX["axis"]] = -1

    def spatial(values, names):  # right-aligned: (…, d, h, w)
        for name, value in zip(names, reversed(list(values))):
            row[ATTRIBUTE_INDEX[name]] = int(value)

    # Channels come from a weight's shape; an activation×activation MatMul has none.
    weight = inputs[1] if len(inputs) > 1 and (second_is_weight or op.startswith("Conv")) else None
    if op in ("Conv", "ConvTranspose", "MaxPool", "AveragePool", "LpPool"):
        kernel = attrs.get("kernel_shape") or (list(weight[2:]) if weight else [])
        spatial(kernel, ("kernel_w", "kernel_h", "kernel_d"))
        spatial(attrs.get("strides", [1] * len(kernel)), ("stride_w", "stride_h", "stride_d"))
        spatial(attrs.get("dilations", [1] * len(kernel))[-2:], ("dilation_w", "dilation_h"))
        pads = list(attrs.get("pads", [0] * (2 * len(kernel))))
        r = len(pads) // 2
        begins, ends = pads[:r], pads[r:]
        spatial(begins[-2:], ("pad_left", "pad_top"))
        spatial(ends[-2:], ("pad_right", "pad_bottom"))
        row[ATTRIBUTE_INDEX["groups"]] = int(attrs.get("group", 1)) if op.startswith("Conv") else 0
    if op == "Conv" and weight:
        row[ATTRIBUTE_INDEX["channels_out"]] = weight[0]
        row[ATTRIBUTE_INDEX["channels_in"]] = weight[1] * int(attrs.get("group", 1))
    elif op == "ConvTranspose" and weight:
        row[ATTRIBUTE_INDEX["channels_in"]] = weight[0]
        row[ATTRIBUTE_INDEX["channels_out"]] = weight[1] * int(attrs.get("group", 1))
    elif op == "Gemm" and weight and len(weight) == 2:
        k, n = (weight[1], weight[0]) if attrs.get("transB", 0) else (weight[0], weight[1])
        row[ATTRIBUTE_INDEX["channels_in"]], row[ATTRIBUTE_INDEX["channels_out"]] = k, n
    elif op == "MatMul" and weight and len(weight) >= 2:
        row[ATTRIBUTE_INDEX["channels_in"]], row[ATTRIBUTE_INDEX["channels_out"]] = weight[-2], weight[-1]
    elif op in ("BatchNormalization", "LayerNormalization", "GroupNormalization",
                "InstanceNormalization") and weight:
        row[ATTRIBUTE_INDEX["channels_in"]] = row[ATTRIBUTE_INDEX["channels_out"]] = numel(weight)
    if "axis" in attrs and isinstance(attrs["axis"], int):
        axis = attrs["axis"]
        row[ATTRIBUTE_INDEX["axis"]] = axis + first_rank if axis < 0 and first_rank else axis
    return row


@dataclass
class _Tensors:
    """What the import knows about each tensor while it walks the nodes: its type, whether it is
    a weight (and which parameters it derives from), and the Identity aliases elided so far."""

    table: dict[str, tuple[tuple[int, ...], int]]
    weights: set[str]
    origin: dict[str, frozenset[str]]
    alias: dict[str, str] = field(default_factory=dict)

    def resolve(self, tensor: str) -> str:
        while tensor in self.alias:
            tensor = self.alias[tensor]
        return tensor

    def shape_of(self, tensor: str):
        entry = self.table.get(tensor)
        return entry[0] if entry else None

    def bytes_of(self, tensor: str) -> int:
        entry = self.table.get(tensor)
        return numel(entry[0]) * _itemsize(entry[1]) if entry else 0


@dataclass
class _Columns:
    """The per-node columns of the :class:`PerfGraph`, filled one kept node at a time."""

    seen_tensors: set[str]
    ops: list[str] = field(default_factory=list)
    attributes: list[list[int]] = field(default_factory=list)
    in_shapes: list[list[int]] = field(default_factory=list)
    out_shapes: list[list[int]] = field(default_factory=list)
    macs: list[int] = field(default_factory=list)
    flops: list[int] = field(default_factory=list)
    params: list[int] = field(default_factory=list)
    memory: list[int] = field(default_factory=list)
    act_mm: list[bool] = field(default_factory=list)
    edges: set[tuple[int, int]] = field(default_factory=set)
    producer: dict[str, int] = field(default_factory=dict)
    used_params: set[str] = field(default_factory=set)
    unknown: int = 0


def _tensors_of(model: onnx.ModelProto, data_inputs: list[str]) -> _Tensors:
    table = _tensor_table(model)
    graph_inputs = {i.name for i in model.graph.input}
    initializers = {t.name for t in model.graph.initializer}
    constants = {o for n in model.graph.node if n.op_type == "Constant" for o in n.output}
    weights = initializers | (graph_inputs - set(data_inputs)) | constants
    parameters = _parameter_names(model, table, weights)
    # Tensors that derive only from weights (e.g. the Transpose the exporter puts on a Linear
    # weight when weights are graph inputs) are weights too: runtimes fold them ahead of time.
    # ``origin`` maps each such tensor to the parameters it derives from.
    origin: dict[str, frozenset[str]] = {p: frozenset({p}) for p in parameters}
    return _Tensors(table=table, weights=weights, origin=origin)


def _add_node(columns: _Columns, tensors: _Tensors, node: onnx.NodeProto, name: str) -> None:
    """Append one kept node's row to every column, and its edges from the nodes feeding it."""
    shape_of, weights = tensors.shape_of, tensors.weights
    index = len(columns.ops)
    op = node.op_type if node.domain in ("", "ai.onnx") else f"{node.domain}.{node.op_type}"
    inputs = [tensors.resolve(t) for t in node.input]
    present = [t for t in inputs if t]
    data = [t for t in present if t not in weights]
    in_dims = [shape_of(t) for t in inputs]
    out_dims = [shape_of(t) for t in node.output]
    attrs = _attr_dict(node)
    node_mac = node_macs(op, in_dims, out_dims, attrs)
    first = shape_of(data[0]) if data else (shape_of(present[0]) if present else None)
    out = out_dims[0] if out_dims else None
    if out is None or any(d < 0 for d in out):
        columns.unknown += 1
    columns.ops.append(op)
    _check_conv_weight(op, in_dims, len(first or ()), f"{name}: {op} node {node.name or index}")
    columns.attributes.append(_attribute_row(op, attrs, in_dims, len(first or ()),
                                             len(inputs) > 1 and inputs[1] in weights))
    columns.in_shapes.append(_padded(first))
    columns.out_shapes.append(_padded(out))
    columns.macs.append(node_mac)
    columns.flops.append(node_flops(op, node_mac, in_dims, out_dims, attrs))
    node_params = {p for t in present if t in weights for p in tensors.origin.get(t, ())}
    columns.used_params.update(node_params)
    columns.params.append(sum(numel(shape_of(p)) for p in node_params))
    columns.memory.append(sum(tensors.bytes_of(t) for t in present)
                          + sum(tensors.bytes_of(t) for t in node.output if t))
    columns.act_mm.append(op == "MatMul" and len(present) == 2 and all(t not in weights for t in present))
    columns.seen_tensors.update(present)
    columns.seen_tensors.update(t for t in node.output if t)
    for tensor in present:
        if tensor in columns.producer:
            columns.edges.add((columns.producer[tensor], index))
    for tensor in node.output:
        if tensor:
            columns.producer[tensor] = index


def _walk_nodes(model: onnx.ModelProto, tensors: _Tensors, data_inputs: list[str], name: str) -> _Columns:
    """Elide Constant/Identity nodes, fold nodes computed from weights alone into the weights,
    and add every other node to the columns."""
    columns = _Columns(seen_tensors=set(data_inputs))
    for node in model.graph.node:
        if node.op_type in ELIDED_OPERATORS and node.domain in ("", "ai.onnx"):
            if node.op_type == "Identity":
                tensors.alias[node.output[0]] = tensors.resolve(node.input[0])
            continue
        sources = [tensors.resolve(t) for t in node.input if t]
        if sources and all(t in tensors.weights for t in sources):
            derived = frozenset().union(*(tensors.origin.get(t, frozenset()) for t in sources))
            for out in node.output:
                if out:
                    tensors.weights.add(out)
                    if derived:
                        tensors.origin[out] = derived
            continue
        _add_node(columns, tensors, node, name)
    if not columns.ops:
        raise InvalidModelError(f"{name}: the graph has no operators after removing Constant/Identity nodes")
    return columns


def _int64(values, what: str, name: str) -> np.ndarray:
    # Each ONNX dim fits in int64, but the counts multiplied from them need not.
    try:
        return np.array(values, dtype=np.int64)
    except OverflowError:
        raise InvalidModelError(f"{name}: its {what} do not fit in 64-bit integers "
                                f"(tensor dims too large?)") from None


def import_graph(model: onnx.ModelProto, name: str | None = None, batch_size: int | None = None) -> PerfGraph:
    """Build the IR from a model whose shapes have been inferred (see :func:`with_concrete_inputs`)."""
    meta = _metadata(model)
    name = name or meta.get(META_SOURCE) or model.graph.name or "onnx"
    data_inputs = data_input_names(model)
    tensors = _tensors_of(model, data_inputs)
    columns = _walk_nodes(model, tensors, data_inputs, name)
    edge_index = np.array(sorted(columns.edges), dtype=np.int64).T.reshape(2, -1)
    dims = {n: tensors.shape_of(n) or () for n in data_inputs}
    if batch_size is None:
        first_dims = next(iter(dims.values()), ())
        batch_size = int(first_dims[0]) if first_dims and first_dims[0] > 0 else 1
    totals = _int64([sum(numel(tensors.shape_of(t)) for t in columns.used_params),
                     sum(tensors.bytes_of(t) for t in columns.seen_tensors)],
                    "parameter and memory totals", name)
    opset = max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), default=0)
    return PerfGraph(
        name=name,
        batch_size=batch_size,
        input_shapes=tuple((n, tuple(int(d) for d in s)) for n, s in dims.items()),
        onnx_ops=tuple(columns.ops),
        attributes=_int64(columns.attributes, "attributes", name),
        node_input_shape=np.array(columns.in_shapes, dtype=np.int64),
        node_output_shape=np.array(columns.out_shapes, dtype=np.int64),
        macs=_int64(columns.macs, "MACs", name),
        flops=_int64(columns.flops, "FLOPs", name),
        params=_int64(columns.params, "parameter counts", name),
        memory_bytes=_int64(columns.memory, "memory sizes", name),
        activation_matmul=np.array(columns.act_mm, dtype=np.bool_),
        edge_index=edge_index,
        total_params=int(totals[0]),
        total_memory_bytes=int(totals[1]),
        metadata=(("opset", str(opset)), ("unknown_shape_nodes", str(columns.unknown))),
    )
