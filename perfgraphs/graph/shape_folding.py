"""Resolve shapes that ONNX shape inference leaves unknown, in one pass with constant folding.

Models such as Swin or TF-"same"-padded EfficientNets compute paddings and reshape targets from
``x.shape`` at run time. With a dynamic batch axis these computations stay in the graph
(Shape → Gather → Div → Pad …) and ONNX's data propagation stops at the first operator it cannot
evaluate. Once the inputs are concrete every such value is a small integer tensor, so this pass
walks the graph once in topological order: it infers each node's output types with the node's
ONNX schema, giving it the constant values of its inputs, and evaluates nodes whose inputs are
all constant (small tensors only) with ONNX's reference runtime.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import onnx
from onnx import helper, numpy_helper
from onnx.external_data_helper import uses_external_data

from perfgraphs.errors import InvalidModelError

_MAX_FOLD_ELEMENTS = 1 << 16  # shape tensors are tiny; never evaluate real activations


@lru_cache(maxsize=4096)
def _evaluator(op_type: str, domain: str, attributes: bytes, signature: tuple, n_out: int, opset: int):
    from onnx.reference import ReferenceEvaluator

    slots = [f"i{k}" if sig is not None else "" for k, sig in enumerate(signature)]
    node = helper.make_node(op_type, slots, [f"o{k}" for k in range(n_out)], domain=domain)
    holder = onnx.NodeProto.FromString(attributes)
    node.attribute.extend(holder.attribute)
    graph = helper.make_graph(
        [node], "fold",
        [helper.make_tensor_value_info(name, sig[0], [None] * sig[1])
         for name, sig in zip(slots, signature) if sig is not None],
        [helper.make_tensor_value_info(f"o{k}", onnx.TensorProto.UNDEFINED, None) for k in range(n_out)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid(domain or "", opset)])
    return ReferenceEvaluator(model), [s for s in slots if s]


def _evaluate(node: onnx.NodeProto, values: list[np.ndarray | None], opset: int) -> list[np.ndarray]:
    """Evaluate one node; ``None`` marks an omitted optional input (kept in position)."""
    holder = onnx.NodeProto()
    holder.attribute.extend(node.attribute)
    signature = tuple(
        None if v is None else (helper.np_dtype_to_tensor_dtype(v.dtype), v.ndim) for v in values
    )
    evaluator, names = _evaluator(node.op_type, node.domain, holder.SerializeToString(), signature,
                                  len(node.output), opset)
    return list(evaluator.run(None, dict(zip(names, [v for v in values if v is not None]))))


def _known_dims(type_proto: onnx.TypeProto) -> tuple[int, ...] | None:
    tt = type_proto.tensor_type
    if not tt.HasField("shape") or any(not d.HasField("dim_value") for d in tt.shape.dim):
        return None
    return tuple(d.dim_value for d in tt.shape.dim)


def _stored_value(tensor: onnx.TensorProto, name: str) -> np.ndarray:
    """The value of a stored tensor (initializer or Constant) whose data and dims must agree."""
    try:
        return numpy_helper.to_array(tensor)
    except (ValueError, TypeError, KeyError):  # reshape / unknown or undefined element type
        raise InvalidModelError(f"tensor {name!r}: its stored data does not match its type and dims") from None


def _foldable(initializer: onnx.TensorProto) -> bool:
    # Small non-float initializers only (shape arithmetic), and never one whose data lives in an
    # external file: models are read from bytes, the location would resolve against the cwd.
    return (initializer.data_type != onnx.TensorProto.FLOAT and not uses_external_data(initializer)
            and all(d >= 0 for d in initializer.dims) and math.prod(initializer.dims) <= _MAX_FOLD_ELEMENTS)


def _type_of(array: np.ndarray) -> onnx.TypeProto:
    return helper.make_tensor_type_proto(helper.np_dtype_to_tensor_dtype(array.dtype), array.shape)


def fold_shapes(model: onnx.ModelProto) -> dict[str, onnx.TypeProto]:
    """Output type of every tensor of ``model`` (whose inputs must have concrete dims)."""
    opset = max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), default=17)
    types: dict[str, onnx.TypeProto] = {}
    values: dict[str, np.ndarray] = {}
    for inp in model.graph.input:
        types[inp.name] = inp.type
    for init in model.graph.initializer:
        types[init.name] = helper.make_tensor_type_proto(init.data_type, list(init.dims))
        if _foldable(init):
            values[init.name] = _stored_value(init, init.name)

    for node in model.graph.node:
        if node.domain not in ("", "ai.onnx"):
            continue
        if node.op_type == "Constant":
            attr = next((a for a in node.attribute if a.name == "value"), None)
            if attr is not None and not uses_external_data(attr.t):
                values[node.output[0]] = _stored_value(attr.t, node.output[0])
                types[node.output[0]] = _type_of(values[node.output[0]])
            continue
        inputs = list(node.input)
        if all(not t or t in values for t in inputs) and inputs and \
                sum(values[t].size for t in inputs if t) <= _MAX_FOLD_ELEMENTS:
            try:
                outputs = _evaluate(node, [values[t] if t else None for t in inputs], opset)
            except Exception:  # an op the reference runtime cannot evaluate: infer types only
                outputs = None
            if outputs is not None:
                for name, value in zip(node.output, outputs):
                    if name:
                        values[name] = np.asarray(value)
                        types[name] = _type_of(values[name])
                continue
        try:
            schema = onnx.defs.get_schema(node.op_type, opset, node.domain)
            data = {t: numpy_helper.from_array(values[t]) for t in inputs if t in values}
            inferred = onnx.shape_inference.infer_node_outputs(
                schema, node, {t: types[t] for t in inputs if t and t in types}, data
            )
        except Exception:
            continue
        types.update(inferred)
        if node.op_type == "Shape":
            dims = _known_dims(types.get(inputs[0], onnx.TypeProto()))
            if dims is not None:
                attrs = {a.name: a.i for a in node.attribute}
                start, end = attrs.get("start", 0), attrs.get("end", len(dims))
                values[node.output[0]] = np.array(dims[start:end], dtype=np.int64)
    return types
