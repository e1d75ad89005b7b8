"""Per-node cost model: MACs and FLOPs from operator type and tensor shapes.

MACs follow fvcore's conventions, which timm uses for its published ``infer_gmacs``:
convolutions, Gemm/MatMul/Einsum count multiply-accumulates; BatchNormalization counts 2 per
element, Layer/Group/InstanceNormalization 5 per element, GlobalAveragePool 1 per input element,
Resize 1 (nearest) or 4 (linear/cubic) per output element; everything else 0 MACs.
FLOPs count 2 per multiply-accumulate and 1 per element for element-wise work (pools: one per
window element), 0 for pure data movement.
"""

from __future__ import annotations

import math
from typing import Sequence

Shape = Sequence[int]

MAC_OPS = frozenset({"Conv", "ConvTranspose", "Gemm", "MatMul", "Einsum"})
_NORM5 = frozenset({"LayerNormalization", "GroupNormalization", "InstanceNormalization"})
_ELEMENTWISE = frozenset({
    "Add", "Sub", "Mul", "Div", "Pow", "Sqrt", "Reciprocal", "Neg", "Exp", "Log", "Abs", "Max",
    "Min", "Mean", "Sum", "Relu", "Clip", "LeakyRelu", "PRelu", "Sigmoid", "HardSigmoid",
    "HardSwish", "Gelu", "Erf", "Tanh", "Softplus", "Softsign", "Mish", "Elu", "Selu", "Celu",
    "Floor", "Ceil", "Round", "Sign", "Sin", "Cos", "Where", "Equal", "Less", "Greater",
    "LessOrEqual", "GreaterOrEqual", "And", "Or", "Not", "Mod",
})
_REDUCE = frozenset({"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL2"})
# operators whose work lives in a subgraph (a loop body, a branch): their FLOPs and bytes here are
# those of the node's own inputs and outputs, never of what the body does
SUBGRAPH_OPS = frozenset({"Loop", "If", "Scan", "SequenceMap"})


def work_is_counted(op: str) -> bool:
    """Whether the FLOPs and bytes this module gives a node of ``op`` bound its work: False for
    operators with a subgraph and for any operator outside ONNX's default domain (a custom op)."""
    if op in SUBGRAPH_OPS:
        return False
    import onnx.defs

    return onnx.defs.has(op)


def numel(shape: Shape | None) -> int:
    """Element count; unknown (negative) dims count as 0 so a cost is never invented."""
    if shape is None:
        return 0
    return math.prod(d if d > 0 else 0 for d in shape) if len(shape) else 1


def _einsum_macs(equation: str, shapes: list[Shape | None]) -> int:
    lhs = equation.replace(" ", "").split("->")[0]
    sizes: dict[str, int] = {}
    for term, shape in zip(lhs.split(","), shapes):
        if shape is None or "." in term:
            return 0
        for letter, dim in zip(term, shape):
            sizes[letter] = max(sizes.get(letter, 0), dim)
    return math.prod(sizes.values()) if sizes else 0


def node_macs(
    op: str,
    inputs: list[Shape | None],
    outputs: list[Shape | None],
    attrs: dict,
) -> int:
    out = outputs[0] if outputs else None
    first = inputs[0] if inputs else None
    if op == "Conv" and len(inputs) > 1 and inputs[1] is not None:
        weight = inputs[1]  # (Cout, Cin/groups, k...)
        return numel(out) * numel(weight[1:])
    if op == "ConvTranspose" and len(inputs) > 1 and inputs[1] is not None:
        weight = inputs[1]  # (Cin, Cout/groups, k...)
        return numel(first) * numel(weight[1:])
    if op == "Gemm" and first is not None and len(first) == 2:
        k = first[0] if attrs.get("transA", 0) else first[1]
        return numel(out) * max(k, 0)
    if op == "MatMul" and first is not None and len(first) >= 1:
        return numel(out) * max(first[-1], 0)
    if op == "Einsum":
        return _einsum_macs(str(attrs.get("equation", "")), inputs)
    if op == "BatchNormalization":
        return 2 * numel(first)
    if op in _NORM5:
        return 5 * numel(first)
    if op == "GlobalAveragePool":
        return numel(first)
    if op == "Resize":
        return (1 if attrs.get("mode", "nearest") == "nearest" else 4) * numel(out)
    return 0


def node_flops(op: str, macs: int, inputs: list[Shape | None], outputs: list[Shape | None], attrs: dict) -> int:
    out = outputs[0] if outputs else None
    if op in MAC_OPS:
        return 2 * macs
    if op == "BatchNormalization" or op in _NORM5 or op == "Resize":
        return macs
    if op in _ELEMENTWISE:
        return numel(out)
    if op in ("Softmax", "LogSoftmax"):
        return 3 * numel(out)  # exp, sum, divide
    if op in ("MaxPool", "AveragePool", "LpPool"):
        return numel(out) * math.prod(attrs.get("kernel_shape", [1]))
    if op in ("GlobalAveragePool", "GlobalMaxPool") or op in _REDUCE:
        return numel(inputs[0] if inputs else None)
    return 0
