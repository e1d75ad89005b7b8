"""Operator vocabulary and categories.

The vocabulary is versioned: featurizers one-hot encode over it, so changing it changes every
feature vector. Operators outside it map to the explicit ``other`` bucket and are counted.
"""

from __future__ import annotations

OTHER = "other"

# 97 ONNX operator types seen in exports of timm / torchvision / transformers models, plus OTHER:
# the 98-way operator one-hot of TraPPM. Sorted, so an index never depends on insertion order.
ONNX_OPERATORS: tuple[str, ...] = tuple(
    sorted(
        [
            "Abs", "Add", "And", "ArgMax", "AveragePool", "BatchNormalization", "Cast", "Ceil",
            "Celu", "Clip", "Concat", "ConstantOfShape", "Conv", "ConvTranspose", "Cos", "CumSum",
            "DepthToSpace", "Div", "Dropout", "Einsum", "Elu", "Equal", "Erf", "Exp", "Expand",
            "Flatten", "Floor", "Gather", "GatherElements", "GatherND", "Gelu", "Gemm",
            "GlobalAveragePool", "GlobalMaxPool", "Greater", "GreaterOrEqual", "GroupNormalization",
            "HardSigmoid", "HardSwish", "InstanceNormalization",
            "LayerNormalization", "LeakyRelu", "Less", "LessOrEqual", "Log", "LogSoftmax", "LRN",
            "MatMul", "Max", "MaxPool", "Mean", "Min", "Mish", "Mod", "Mul", "Neg", "NonZero",
            "Not", "OneHot", "Or", "Pad", "Pow", "PRelu", "Range", "Reciprocal", "ReduceL2",
            "ReduceMax", "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSum", "Relu", "Reshape",
            "Resize", "Round", "ScatterElements", "ScatterND", "Selu", "Shape", "Sigmoid", "Sign",
            "Sin", "Slice", "Softmax", "Softplus", "Softsign", "SpaceToDepth", "Split", "Sqrt",
            "Squeeze", "Sub", "Tanh", "Tile", "TopK",
            "Transpose", "Unsqueeze", "Where",
        ]
    )
) + (OTHER,)

OPERATOR_INDEX: dict[str, int] = {op: i for i, op in enumerate(ONNX_OPERATORS)}

# Ops that carry no runtime cost and are removed while importing: their consumers are rewired
# to their producers (Identity) or their value is treated like an initializer (Constant).
ELIDED_OPERATORS = frozenset({"Identity", "Constant"})

CONV_OPS = frozenset({"Conv", "ConvTranspose"})
DENSE_OPS = frozenset({"Gemm", "MatMul", "Einsum"})
RELU_OPS = frozenset({"Relu", "Clip", "LeakyRelu", "PRelu"})


def canonical_operator(onnx_op: str) -> str:
    """The vocabulary entry for an ONNX op type (``other`` when it is not in the vocabulary)."""
    return onnx_op if onnx_op in OPERATOR_INDEX else OTHER


# Coarse categories of the DIPPM featurizer (16-way one-hot).
DIPPM_CATEGORIES: tuple[str, ...] = (
    "conv", "dense", "attention_matmul", "relu", "activation", "batchnorm", "norm", "softmax",
    "add", "elementwise", "pool_max", "pool_avg", "concat", "layout", "shape", OTHER,
)

_CATEGORY_OF: dict[str, str] = {}
for _cat, _ops in {
    "conv": CONV_OPS,
    "dense": {"Gemm", "Einsum"},
    "relu": {"Relu", "Clip", "LeakyRelu", "PRelu"},
    "activation": {"Sigmoid", "HardSigmoid", "HardSwish", "Gelu", "Erf", "Tanh", "Softplus",
                   "Softsign", "Mish", "Elu", "Selu", "Celu"},
    "batchnorm": {"BatchNormalization"},
    "norm": {"LayerNormalization", "GroupNormalization", "InstanceNormalization", "LRN",
             "ReduceL2"},
    "softmax": {"Softmax", "LogSoftmax"},
    "add": {"Add", "Sum"},
    "elementwise": {"Mul", "Sub", "Div", "Pow", "Sqrt", "Reciprocal", "Neg", "Exp", "Log",
                    "Abs", "Max", "Min", "Mean", "Floor", "Ceil", "Round", "Sign", "Sin", "Cos",
                    "Mod"},
    "pool_max": {"MaxPool", "GlobalMaxPool", "ReduceMax"},
    "pool_avg": {"AveragePool", "GlobalAveragePool", "ReduceMean", "ReduceSum"},
    "concat": {"Concat", "Split"},
    "layout": {"Reshape", "Transpose", "Flatten", "Squeeze", "Unsqueeze", "Slice", "Gather",
               "GatherElements", "GatherND", "Expand", "Pad", "Resize", "Tile", "DepthToSpace",
               "SpaceToDepth", "ScatterND", "ScatterElements", "Where"},
    "shape": {"Shape", "Cast", "ConstantOfShape", "Range", "Equal", "Less", "LessOrEqual",
              "Greater", "GreaterOrEqual", "Not", "And", "Or", "CumSum", "NonZero", "Dropout"},
}.items():
    for _op in _ops:
        _CATEGORY_OF[_op] = _cat


# operator → DIPPM category for every operator that has one (MatMul: dense unless attention-like)
DIPPM_CATEGORY_OF: dict[str, str] = {**_CATEGORY_OF, "MatMul": "dense"}


def dippm_category(onnx_op: str, is_attention_matmul: bool = False) -> str:
    """The DIPPM category of a node. MatMul is ``dense`` against a weight, else attention-like."""
    if onnx_op == "MatMul":
        return "attention_matmul" if is_attention_matmul else "dense"
    return _CATEGORY_OF.get(onnx_op, OTHER)
