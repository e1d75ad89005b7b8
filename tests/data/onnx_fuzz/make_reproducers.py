"""Write the committed ONNX reproducers of issue 13, finding 5 (``*.onnx.bin``: ``*.onnx`` is ignored).

Run:  python tests/data/onnx_fuzz/make_reproducers.py
Each file is a tiny model in the format ``perfgraphs.graph.export`` writes (weights as named graph
inputs, ``perfgraphs.*`` metadata) with one defect that reached an untyped exception before the
fix; the name says which exception and where. ``tests/test_onnx_fuzz.py`` loads every file.
"""

from __future__ import annotations

import json
from pathlib import Path

import onnx
from onnx import TensorProto, helper

HERE = Path(__file__).resolve().parent
PARAMS = json.dumps(["b", "w"])


def conv_model(w_dims=(2, 3, 1, 1), x_dims=("batch", 3, 4, 4), meta=None) -> onnx.ModelProto:
    """input → Conv(w, b) → Relu, as the exporter writes it."""
    graph = helper.make_graph(
        [helper.make_node("Conv", ["input", "w", "b"], ["c"], kernel_shape=[1, 1], strides=[1, 1],
                          pads=[0, 0, 0, 0], dilations=[1, 1], group=1),
         helper.make_node("Relu", ["c"], ["out"])],
        "repro",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, list(x_dims)),
         helper.make_tensor_value_info("w", TensorProto.FLOAT, list(w_dims)),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, ["batch", 2, 4, 4])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    if meta is None:
        meta = {"perfgraphs.parameter_names": PARAMS, "perfgraphs.data_inputs": '["input"]'}
    for key, value in meta.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = key, value
    return model


def fold_model() -> onnx.ModelProto:
    """Reshape(x, Shape(x) / c): shape inference cannot propagate Div, so the folding pass reads
    the Constant ``c``, whose dims [1] disagree with its two stored values (16 bytes of raw data:
    the ONNX checker counts typed values, not raw bytes)."""
    c = helper.make_tensor("c", TensorProto.INT64, [2], (1).to_bytes(8, "little") * 2, raw=True)
    c.dims[:] = [1]  # helper.make_tensor refuses the mismatch, a damaged file does not
    graph = helper.make_graph(
        [helper.make_node("Shape", ["x"], ["s"]), helper.make_node("Constant", [], ["c"], value=c),
         helper.make_node("Div", ["s", "c"], ["t"]), helper.make_node("Reshape", ["x", "t"], ["y"])],
        "repro", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def scalar_model() -> onnx.ModelProto:
    """A model whose only data input is a scalar: it has no batch axis."""
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "repro",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def invalid_utf8(model: onnx.ModelProto, text: str) -> bytes:
    """Serialize ``model`` with every occurrence of ``text`` made invalid UTF-8: its first letter's
    high bit set (a lone continuation or lead byte), the same flipped bit wherever it occurs."""
    old = text.encode()
    return model.SerializeToString().replace(old, bytes([old[0] | 0x80]) + old[1:])


def reproducers() -> dict[str, bytes]:
    return {
        # finding 5: json.loads on truncated metadata (onnx_import.data_input_names)
        "JSONDecodeError-data-inputs-metadata": conv_model(meta={
            "perfgraphs.parameter_names": PARAMS, "perfgraphs.data_inputs": '["inp'}).SerializeToString(),
        # finding 5: a flipped bit in the metadata; protobuf hands out bytes, json.loads decodes
        "UnicodeDecodeError-parameter-names-metadata": invalid_utf8(conv_model(), 'w"]'),
        # finding 5: metadata naming a data input that is not a graph input (onnx_import.input_dims)
        "KeyError-input_dims": conv_model(meta={
            "perfgraphs.parameter_names": PARAMS, "perfgraphs.data_inputs": '["ghost"]'}).SerializeToString(),
        # finding 5: a rank-1 Conv weight passes ONNX shape inference (onnx_import._attribute_row)
        "IndexError-_attribute_row-conv-weight-rank-1": conv_model(w_dims=(2,)).SerializeToString(),
        # found by the fuzzer beside them
        "TypeError-parameter-names-not-a-list": conv_model(meta={
            "perfgraphs.parameter_names": "null", "perfgraphs.data_inputs": '["input"]'}).SerializeToString(),
        "RecursionError-deeply-nested-metadata": conv_model(meta={
            "perfgraphs.parameter_names": "[" * 1200, "perfgraphs.data_inputs": '["input"]'}).SerializeToString(),
        "OverflowError-dims-beyond-int64": conv_model(x_dims=("batch", 3, 1 << 40, 1 << 40)).SerializeToString(),
        # a data-input name that is not UTF-8 in a file without metadata: bytes in the graph's
        # input_shapes, which its JSON cannot encode
        "TypeError-input-name-not-utf8": invalid_utf8(conv_model(meta={}), "input"),
        "ValueError-constant-data-disagrees-with-dims": fold_model().SerializeToString(),
        "IndexError-template-scalar-input": scalar_model().SerializeToString(),
    }


if __name__ == "__main__":
    for name, data in reproducers().items():
        (HERE / f"{name}.onnx.bin").write_bytes(data)
        print(f"{name}.onnx.bin  {len(data)} bytes")
