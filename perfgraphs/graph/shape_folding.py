"""Resolve shapes that ONNX shape inference leaves unknown by folding shape computations.

Models such as Swin compute paddings and reshape targets from ``x.shape`` at run time. With a
dynamic batch axis those computations stay in the graph (Shape → Gather → Mod → Pad …) and ONNX's
data propagation stops at the first operator it cannot evaluate. Once the inputs are concrete,
every such value is a small integer tensor: this module evaluates them with numpy, replaces them
by initializers in a scratch copy of the model, and re-runs inference until nothing changes.
Only the shapes of the scratch copy are used; the original graph keeps all of its nodes.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import helper, numpy_helper

_MAX_FOLD_ELEMENTS = 1 << 16  # shape tensors are tiny; never evaluate real activations


def _shape_known(value_type) -> tuple[int, ...] | None:
    tt = value_type.tensor_type
    if not tt.HasField("shape"):
        return None
    dims = []
    for d in tt.shape.dim:
        if not d.HasField("dim_value"):
            return None
        dims.append(d.dim_value)
    return tuple(dims)


def _reference_eval(node: onnx.NodeProto, values: list[np.ndarray], opset: int) -> list[np.ndarray]:
    from onnx.reference import ReferenceEvaluator

    names = [f"i{k}" for k in range(len(values))]
    inner = helper.make_node(node.op_type, names, [f"o{k}" for k in range(len(node.output))],
                             domain=node.domain)
    inner.attribute.extend(node.attribute)
    graph = helper.make_graph(
        [inner], "fold",
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
         for n, v in zip(names, values)],
        [helper.make_tensor_value_info(f"o{k}", onnx.TensorProto.UNDEFINED, None)
         for k in range(len(node.output))],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    return list(ReferenceEvaluator(model).run(None, dict(zip(names, values))))


def _unknown_count(model: onnx.ModelProto) -> int:
    return sum(_shape_known(v.type) is None for v in model.graph.value_info) + \
        sum(_shape_known(v.type) is None for v in model.graph.output)


def fold_shapes(model: onnx.ModelProto, infer, max_rounds: int = 64) -> onnx.ModelProto:
    """Return an inferred copy of ``model`` where shape computations were evaluated.

    ``infer`` runs ONNX shape inference on a model. The result is for reading shapes only.
    """
    opset = max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), default=17)
    known: dict[str, np.ndarray] = {}
    for init in model.graph.initializer:
        if init.data_type != onnx.TensorProto.FLOAT and np.prod(init.dims) <= _MAX_FOLD_ELEMENTS:
            known[init.name] = numpy_helper.to_array(init)
    current = infer(model)
    for _ in range(max_rounds):
        if _unknown_count(current) == 0:
            break
        shapes = {v.name: _shape_known(v.type) for v in
                  [*current.graph.input, *current.graph.value_info, *current.graph.output]}
        changed = False
        for node in model.graph.node:
            if not node.output or node.output[0] in known or node.domain not in ("", "ai.onnx"):
                continue
            if node.op_type == "Constant":
                attr = next((a for a in node.attribute if a.name == "value"), None)
                if attr is not None:
                    known[node.output[0]] = numpy_helper.to_array(attr.t)
                    changed = True
                continue
            if node.op_type == "Shape":
                source = node.input[0]
                shape = tuple(known[source].shape) if source in known else shapes.get(source)
                if shape is not None:
                    attrs = {a.name: a.i for a in node.attribute}
                    start, end = attrs.get("start", 0), attrs.get("end", len(shape))
                    known[node.output[0]] = np.array(shape[start:end], dtype=np.int64)
                    changed = True
                continue
            inputs = [t for t in node.input]
            if not inputs or any(t and t not in known for t in inputs):
                continue
            values = [known[t] for t in inputs if t]
            if sum(v.size for v in values) > _MAX_FOLD_ELEMENTS:
                continue
            try:
                outputs = _reference_eval(node, values, opset) if len(values) == len(inputs) else None
            except Exception:
                outputs = None
            if outputs is None:
                continue
            for name, value in zip(node.output, outputs):
                arr = np.asarray(value)
                if arr.size <= _MAX_FOLD_ELEMENTS:
                    known[name] = arr
                    changed = True
        if not changed:
            break
        current = infer(_with_constants(model, known))
    return current


def _with_constants(model: onnx.ModelProto, known: dict[str, np.ndarray]) -> onnx.ModelProto:
    scratch = onnx.ModelProto()
    scratch.CopyFrom(model)
    produced = set()
    keep = []
    for node in scratch.graph.node:
        if node.output and all(o in known or not o for o in node.output):
            produced.update(o for o in node.output if o)
            continue
        keep.append(node)
    del scratch.graph.node[:]
    scratch.graph.node.extend(keep)
    existing = {i.name for i in scratch.graph.initializer}
    scratch.graph.initializer.extend(
        numpy_helper.from_array(known[name], name) for name in sorted(produced) if name not in existing
    )
    return scratch
