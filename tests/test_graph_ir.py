"""Graph IR: determinism, true data-flow edges, variants, the `other` bucket, typed errors."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from perfgraphs.errors import (
    InvalidInputSpecError,
    InvalidModelError,
    SourceNotFoundError,
    UnknownModelError,
)
from perfgraphs.graph import PerfGraph, graph_template, load_graph
from perfgraphs.graph.export import export_module
from perfgraphs.graph.inputs import InputSpec


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "perfgraphs", *args], capture_output=True, text=True)


def test_extraction_is_byte_identical_across_processes():
    first = _cli("graph", "timm:resnet18", "--input", "3,64,64", "--batch", "3", "--json")
    second = _cli("graph", "timm:resnet18", "--input", "3,64,64", "--batch", "3", "--json")
    assert first.returncode == 0, first.stderr
    assert hashlib.sha256(first.stdout.encode()).hexdigest() == hashlib.sha256(second.stdout.encode()).hexdigest()
    graph = PerfGraph.from_json(first.stdout)
    assert graph.batch_size == 3 and graph.name == "timm:resnet18"


def test_edges_are_data_flow_not_a_chain(resnet18_template):
    g = resnet18_template.graph(1)
    indegree = np.bincount(g.edge_index[1], minlength=g.num_nodes)
    adds = [i for i, op in enumerate(g.onnx_ops) if op == "Add"]
    # ResNet-18 has 8 residual additions, each joining the block output and the shortcut.
    assert len(adds) == 8 and all(indegree[i] == 2 for i in adds)
    # A chain would have exactly n-1 edges; residual shortcuts add one edge per block.
    assert g.num_edges == g.num_nodes - 1 + 8
    assert np.all(g.edge_index[0] < g.edge_index[1])  # topological order


def test_batch_variants_equal_exact_inference(resnet18_template):
    for batch in (1, 2, 5, 17):
        derived = resnet18_template.graph(batch)
        exact = resnet18_template.exact(batch)
        assert derived == exact
        assert derived.static_features()["total_macs"] == batch * resnet18_template.graph(1).static_features()["total_macs"]


def test_sequence_variants_come_from_one_export():
    template = graph_template("hf:distilbert-base-uncased", seq_len=16)
    assert template.dynamic_sequence
    short, long = template.graph(2, 16), template.graph(2, 64)
    assert short.structure_hash == long.structure_hash
    assert long.input_shapes == (("input_ids", (2, 64)), ("attention_mask", (2, 64)))
    assert template.graph(2, 64) == template.exact(2, 64)


def test_image_size_is_a_new_export():
    small = load_graph("timm:vit_tiny_patch16_224", image_shape=(3, 112, 112))
    native = load_graph("timm:vit_tiny_patch16_224")
    # 7x7 + 1 tokens instead of 14x14 + 1: the position embedding shrinks with the model.
    assert native.total_params - small.total_params == (197 - 50) * 192


def test_unknown_operators_go_to_the_other_bucket():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8])
    nodes = [
        helper.make_node("Relu", ["x"], ["a"]),
        helper.make_node("Hardmax", ["a"], ["b"]),  # a real ONNX op outside the vocabulary
        helper.make_node("Relu", ["b"], ["y"]),
    ]
    model = helper.make_model(helper.make_graph(nodes, "g", [x], [y]),
                              opset_imports=[helper.make_opsetid("", 17)])
    g = load_graph(model.SerializeToString())
    assert g.onnx_ops == ("Relu", "Hardmax", "Relu")
    assert g.op_types == ("Relu", "other", "Relu")
    assert g.static_features()["num_other"] == 1
    assert g.edge_index.tolist() == [[0, 1], [1, 2]]


def test_module_source_with_input_spec():
    import torch

    module = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.Flatten(),
                                 torch.nn.Linear(8 * 16 * 16, 10))
    g = load_graph(module, input_spec=InputSpec(image_shape=(3, 16, 16)), batch_size=4)
    conv = 16 * 16 * 8 * 3 * 9
    assert g.static_features()["total_macs"] == 4 * (conv + 8 * 16 * 16 * 10)
    assert g.total_params == sum(p.numel() for p in module.parameters())


def test_onnx_file_round_trip(tmp_path, resnet18_template):
    path = tmp_path / "r18.onnx"
    onnx.save(resnet18_template.model, path)
    from_file = load_graph(path, batch_size=2)
    assert from_file.static_features()["total_macs"] == resnet18_template.graph(2).static_features()["total_macs"]


def test_onnx_with_initializers_counts_params_without_export_metadata(tmp_path):
    import torch

    module = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.ReLU()).eval()
    path = tmp_path / "plain.onnx"
    torch.onnx.export(module, (torch.zeros(1, 3, 8, 8),), str(path), dynamo=False,
                      training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False)
    g = load_graph(path)
    # BatchNorm running statistics are buffers, not parameters.
    assert g.total_params == sum(p.numel() for p in module.parameters())


# -- bad input: typed exceptions from the API, one line and exit 2 from the CLI -------------------

def _truncated_onnx(tmp_path, resnet18_template):
    data = resnet18_template.model.SerializeToString()
    path = tmp_path / "truncated.onnx"
    path.write_bytes(data[: len(data) // 2])
    return path


def test_api_raises_typed_errors(tmp_path, resnet18_template):
    with pytest.raises(SourceNotFoundError):
        load_graph(tmp_path / "missing.onnx")
    with pytest.raises(InvalidModelError):
        load_graph(b"definitely not a protobuf \xff\xfe")
    with pytest.raises(InvalidModelError):
        load_graph(_truncated_onnx(tmp_path, resnet18_template))
    with pytest.raises(UnknownModelError):
        load_graph("timm:no_such_arch")
    with pytest.raises(UnknownModelError):
        load_graph("keras:resnet50")
    with pytest.raises(InvalidInputSpecError):
        load_graph("timm:resnet18", batch_size=0)
    with pytest.raises(InvalidInputSpecError):
        load_graph("timm:resnet18", seq_len=12)
    with pytest.raises(InvalidInputSpecError):
        load_graph("hf:bert-base-uncased", seq_len=100_000)


@pytest.mark.parametrize("args", [
    ["graph", "missing.onnx"],
    ["graph", "timm:no_such_arch"],
    ["graph", "timm:resnet18", "--input", "3,abc"],
    ["graph", "timm:resnet18", "--batch", "-1"],
    ["graph", "hf:bert-base-uncased", "--input", "3,224,224"],
])
def test_cli_bad_input_is_one_line(args):
    result = _cli(*args)
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if line.strip() and "Warning" not in line and "warn" not in line]
    assert len(lines) == 1 and lines[0].startswith("perfgraphs: error:"), result.stderr
    assert "Traceback" not in result.stderr


def test_cli_bad_files_are_one_line(tmp_path, resnet18_template):
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(bytes(range(256)) * 4)
    for path in (junk, _truncated_onnx(tmp_path, resnet18_template)):
        result = _cli("graph", str(path))
        assert result.returncode == 2 and "Traceback" not in result.stderr
        assert str(path) in result.stderr


def test_cli_summary_lists_operators():
    result = _cli("graph", "torchvision:alexnet", "--batch", "2")
    assert result.returncode == 0, result.stderr
    assert "Conv" in result.stdout and "GMACs" in result.stdout
    assert "1.428" in result.stdout  # 2 x 0.714 GMACs
