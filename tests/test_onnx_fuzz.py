"""Damaged ONNX files and out-of-range arguments: a typed perfgraphs error with one line and exit 2,
never an untyped exception ("internal error", exit 1). Issue 13, finding 5.

The committed reproducers (``tests/data/onnx_fuzz/*.onnx.bin``, written by ``make_reproducers.py``
there) each raised an untyped exception before the fix; the seeded fuzz run mutates two small
models exported in the test. The long run (>= 10,000 cases) is ``benchmarks/onnx_fuzz.py``.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from perfgraphs.benchmarks.onnx_fuzz import Failure, cases, run_case, seed_models
from perfgraphs.benchmarks.onnx_mutations import BYTE_MUTATIONS, STRUCTURED_MUTATIONS
from perfgraphs.cli import main
from perfgraphs.errors import InvalidInputSpecError, InvalidModelError, PerfgraphsError
from perfgraphs.graph import load_graph

REPRODUCERS = Path(__file__).parent / "data" / "onnx_fuzz"
# Each file's defect is refused as an invalid model, except a model whose only input is a scalar:
# it is valid, it merely has no batch axis (it crashed the batch lookup).
LOADS = {"IndexError-template-scalar-input"}


def _reproducers() -> list[Path]:
    files = sorted(REPRODUCERS.glob("*.onnx.bin"))
    assert len(files) >= 10, "the committed reproducers are missing"
    return files


@pytest.fixture(scope="module")
def seeds():
    return seed_models()


@pytest.mark.parametrize("path", _reproducers(), ids=lambda p: p.name.split(".")[0])
def test_reproducer_is_typed(path):
    name = path.name.removesuffix(".onnx.bin")
    if name in LOADS:
        graph = load_graph(path)
        assert graph.num_nodes == 1 and graph.to_json()
        return
    with pytest.raises(InvalidModelError) as info:
        load_graph(path).to_json()
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("path", _reproducers(), ids=lambda p: p.name.split(".")[0])
def test_cli_on_reproducer_is_one_line_exit_2(path, capsys):
    code = main(["graph", str(path), "--json"])
    err = capsys.readouterr().err
    if path.name.removesuffix(".onnx.bin") in LOADS:
        assert code == 0, err
        return
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("perfgraphs: error:"), err
    assert "internal error" not in err


def test_cli_process_on_the_findings_reproducer():
    """The finding's exact symptom, in a real process: "internal error: KeyError" and exit 1."""
    path = REPRODUCERS / "KeyError-input_dims.onnx.bin"
    result = subprocess.run([sys.executable, "-m", "perfgraphs", "graph", str(path)],
                            capture_output=True, text=True)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    assert "perfgraphs.data_inputs" in result.stderr and str(path) in result.stderr


def test_seeded_fuzz_has_no_untyped_exception(seeds):
    outcomes: Counter = Counter()
    applied: Counter = Counter()
    untyped: list[Failure] = []
    for case in cases(seeds, 500, seed=0):
        result = run_case(case)
        applied.update(case.mutation.split("+"))
        if isinstance(result, Failure):
            untyped.append(result)
        else:
            outcomes[result] += 1
    report = [f"case {f.case.index} ({f.case.model}, {f.case.mutation}): {type(f.error).__name__}: "
              f"{str(f.error)[:100]} at {f.where}" for f in untyped]
    assert not untyped, "\n".join(report)
    # The run must reach past parsing: some mutants still load, others fail in shape inference or
    # in the import; and every kind of mutation was drawn.
    assert outcomes["ok"] >= 50 and outcomes["InvalidInputSpecError"] >= 10, outcomes
    assert set(applied) >= set(BYTE_MUTATIONS) | set(STRUCTURED_MUTATIONS), applied


def test_seed_models_load_unmutated(seeds):
    """The fuzz is only meaningful if the seeds are good models."""
    cnn, encoder = (load_graph(s.data, **s.kwargs) for s in seeds)
    assert cnn.static_features()["num_conv"] == 2 and cnn.total_params > 0
    assert encoder.input_shapes == (("input_ids", (1, 6)), ("attention_mask", (1, 6)))


# -- argument ranges of the graph command -----------------------------------------------------

@pytest.mark.parametrize("kwargs, words", [
    ({"seq_len": 0}, "sequence length must be an integer in 1.."),
    ({"seq_len": -3}, "sequence length must be an integer in 1.."),
    ({"batch_size": 0}, "batch size must be an integer in 1.."),
    ({"batch_size": True}, "batch size must be an integer"),
])
def test_hf_ranges_refused_before_export(kwargs, words):
    with pytest.raises(InvalidInputSpecError, match=words):
        load_graph("hf:bert-base-uncased", **kwargs)


@pytest.mark.parametrize("shape", [(3, 0, 224), (3, 224, -1), (3, 224, 5000), (3,)])
def test_image_ranges_refused(shape):
    with pytest.raises(InvalidInputSpecError, match="image shape must be"):
        load_graph("timm:resnet18", image_shape=shape)


@pytest.mark.parametrize("args, words", [
    (["graph", "hf:bert-base-uncased", "--seq-len", "0"], "sequence length must be an integer in 1.."),
    (["graph", "hf:bert-base-uncased", "--seq-len", "-5"], "sequence length"),
    (["graph", "timm:resnet18", "--batch", "0"], "batch size"),
    (["graph", "timm:resnet18", "--input", "3,0,224"], "image shape"),
    (["graph", "timm:resnet18", "--input", "3,224,5000"], "image shape"),
])
def test_cli_ranges_are_one_line(args, words, capsys):
    code = main(args)
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1 and words in lines[0], err


def test_seq_len_on_onnx_files(tmp_path, seeds, capsys):
    """A file with a dynamic sequence axis takes --seq-len (the error message said so but the
    option was refused for every file); a file without one refuses it instead of ignoring it."""
    cnn, encoder = tmp_path / "cnn.onnx", tmp_path / "encoder.onnx"
    cnn.write_bytes(seeds[0].data)
    encoder.write_bytes(seeds[1].data)
    assert main(["graph", str(encoder), "--seq-len", "12", "--batch", "2", "--json"]) == 0
    assert '"input_shapes":[["input_ids",[2,12]],["attention_mask",[2,12]]]' in capsys.readouterr().out
    assert main(["graph", str(cnn), "--seq-len", "12"]) == 2
    assert "no dynamic sequence axis" in capsys.readouterr().err
    assert main(["graph", str(cnn), "--input", "3,8,8"]) == 2
    assert "fixes its input shape" in capsys.readouterr().err


def test_unreadable_paths_are_typed(tmp_path):
    with pytest.raises(PerfgraphsError):
        load_graph("a" * 5000 + ".onnx")  # longer than a file name may be: OSError before
    with pytest.raises(InvalidModelError, match="is not a file"):
        load_graph(tmp_path)


def test_export_metadata_names_only_inputs_the_graph_has():
    """The other way to the finding's KeyError in ``input_dims``: torch drops an input the module
    never reads, and the exporter recorded it as a data input anyway."""
    import torch

    from perfgraphs.graph.inputs import InputSpec

    class IgnoresMask(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed, self.proj = torch.nn.Embedding(10, 4), torch.nn.Linear(4, 4)

        def forward(self, input_ids, attention_mask):
            return self.proj(self.embed(input_ids))

    graph = load_graph(IgnoresMask(), input_spec=InputSpec(seq_len=8), batch_size=2)
    assert graph.input_shapes == (("input_ids", (2, 8)),)
    assert graph.total_params == 10 * 4 + 4 * 4 + 4
