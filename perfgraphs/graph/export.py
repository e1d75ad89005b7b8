"""Export a torch module to an ONNX graph without weights, with dynamic batch (and sequence) axes.

Weights are left out (``export_params=False``): they become named graph inputs, so the graph keeps
every parameter's shape at a few kilobytes of ONNX. The names of true parameters (as opposed to
buffers such as BatchNorm running statistics) are recorded in the model's metadata so that the
importer counts parameters exactly as ``sum(p.numel() for p in model.parameters())``.
"""

from __future__ import annotations

import io
import json
import warnings

import onnx

from perfgraphs.errors import ExportError
from perfgraphs.graph.inputs import InputSpec

OPSET = 17
META_PARAMETERS = "perfgraphs.parameter_names"
META_DATA_INPUTS = "perfgraphs.data_inputs"
META_SOURCE = "perfgraphs.source"


def dynamic_axes_for(spec: InputSpec, names: list[str]) -> dict[str, dict[int, str]]:
    if spec.kind == "text":
        return {n: {0: "batch", 1: "sequence"} for n in names}
    return {n: {0: "batch"} for n in names}


def export_module(module, spec: InputSpec, source: str = "torch.nn.Module") -> onnx.ModelProto:
    """Trace ``module`` at ``spec`` and return the ONNX model (no weights, dynamic batch)."""
    import torch

    from perfgraphs.graph.zoo import example_inputs

    inputs = example_inputs(spec)
    names = list(inputs)
    buffer = io.BytesIO()
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                module,
                tuple(inputs.values()),
                buffer,
                dynamo=False,
                export_params=False,
                input_names=names,
                dynamic_axes=dynamic_axes_for(spec, names),
                opset_version=OPSET,
                # No exporter-side folding: it renames weights it folds (Transpose(W) becomes a
                # new anonymous input), which would lose the parameter accounting.
                do_constant_folding=False,
                # PRESERVE (the module is in eval mode) keeps BatchNormalization nodes: EVAL
                # would fold them into the preceding Conv and rename its weights.
                training=torch.onnx.TrainingMode.PRESERVE,
                # Keeping weights as inputs also disables the pass that merges equal-valued
                # initializers, which would merge distinct (zero-filled) parameters.
                keep_initializers_as_inputs=True,
            )
    except Exception as exc:  # the exporter raises many unrelated types
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise ExportError(
            f"could not export {source} to ONNX: {type(exc).__name__}: {first_line[:200]}"
        ) from None
    model = onnx.load_from_string(buffer.getvalue())
    graph_inputs = {i.name for i in model.graph.input}
    parameters = sorted(n for n, _ in module.named_parameters() if n in graph_inputs)
    # The exporter drops an input the module never reads (an encoder that ignores its attention
    # mask): the metadata names the data inputs the graph has, which the importer checks.
    data_inputs = [n for n in names if n in graph_inputs]
    if not data_inputs:
        raise ExportError(f"could not export {source} to ONNX: the graph reads none of its inputs {names}")
    for key, value in (
        (META_PARAMETERS, json.dumps(parameters)),
        (META_DATA_INPUTS, json.dumps(data_inputs)),
        (META_SOURCE, source),
    ):
        entry = model.metadata_props.add()
        entry.key, entry.value = key, value
    return model
