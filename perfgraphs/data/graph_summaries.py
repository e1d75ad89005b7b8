"""Graph summaries and the graph-to-text pairs built from them: (graph, "Summarise the graph",
summary), as in the GNN+LLM work (the recipe that builds the pairs' config:
:mod:`perfgraphs.data.recipes.graph2text`; the GNN+LM baseline reads the summaries too).

The summary states facts computed from the graph itself — node and edge counts, batch size,
GFLOPs, GMACs, parameters, memory and per-operator statistics — in a fixed template, so the pairs
are reproducible and every number in them can be checked against the graph.
"""

from __future__ import annotations

from perfgraphs.graph.ir import PerfGraph

QUESTION = "Summarise the graph"


def summarize(graph: PerfGraph, top_ops: int = 8) -> str:
    s = graph.static_features()
    per_op: dict[str, list[int]] = {}
    for op, macs, params in zip(graph.onnx_ops, graph.macs.tolist(), graph.params.tolist()):
        entry = per_op.setdefault(op, [0, 0, 0])
        entry[0] += 1
        entry[1] += macs
        entry[2] += params
    ranked = sorted(per_op.items(), key=lambda kv: (-kv[1][0], kv[0]))[:top_ops]
    lines = [
        f"The graph has {s['num_nodes']} nodes and {s['num_edges']} edges at batch size {s['batch_size']}.",
        f"It performs {s['total_flops'] / 1e9:.3f} GFLOPs ({s['total_macs'] / 1e9:.3f} GMACs) and has "
        f"{s['total_params']:,} parameters; its tensors occupy {s['total_memory_bytes'] / 2**20:.1f} MiB.",
        f"It contains {s['num_conv']} convolutions, {s['num_dense']} dense layers, {s['num_relu']} ReLU-type "
        f"activations and {s['num_attention']} attention matrix products.",
        "Operators by count: " + "; ".join(
            f"{op} x{n} ({macs / 1e9:.3f} GMACs, {params:,} parameters)" for op, (n, macs, params) in ranked) + ".",
    ]
    return " ".join(lines)


def build_graph2text_config(dataset, config, source, inputs, home=None):
    """Pairs for every graph of ``source`` (the loaded splits of the source graph set), keeping
    its splits; ``inputs``: what the build read (the source's build)."""
    import pyarrow as pa

    from perfgraphs.data.featurize import arrow_table
    from perfgraphs.data.folders import dataset_folder
    from perfgraphs.data.staging import StagedBuild
    from perfgraphs.views.hf import from_hf_row

    with StagedBuild(dataset_folder(dataset, config, home)) as stage:
        for part, split in source.items():
            answers = [summarize(from_hf_row(row)) for row in split]
            table = arrow_table(split).append_column("question", pa.array([QUESTION] * len(answers))) \
                .append_column("answer", pa.array(answers))
            stage.write_shard(part, 0, 1, table)
        return stage.commit(dataset.name, dataset.version, config.name, inputs, registry_defaults=True)
