"""``perfgraphs graph <source>``: extract a model's performance graph and summarise it."""

from __future__ import annotations

import argparse
import json
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "graph",
        help="extract and summarise a model's computation graph",
        description="Source: an ONNX file, timm:<arch>, torchvision:<arch> or hf:<id>.",
    )
    p.add_argument("source", help="ONNX path or model name (timm:resnet50, hf:bert-base-uncased)")
    p.add_argument("--batch", type=int, default=1, help="batch size (default 1)")
    p.add_argument("--input", default=None, help="per-sample image shape C,H,W (e.g. 3,224,224)")
    p.add_argument("--seq-len", type=int, default=None, help="sequence length for hf: models")
    p.add_argument("--json", action="store_true", help="print the whole graph as canonical JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from perfgraphs.graph import load_graph, parse_image_shape

    image_shape = parse_image_shape(args.input) if args.input else None
    graph = load_graph(args.source, batch_size=args.batch, image_shape=image_shape, seq_len=args.seq_len)
    if args.json:
        sys.stdout.write(graph.to_json().decode() + "\n")
        return 0
    _print_summary(graph)
    return 0


def _print_summary(graph) -> None:
    from rich.console import Console
    from rich.table import Table

    s = graph.static_features()
    console = Console()
    inputs = ", ".join(f"{n}{list(shape)}" for n, shape in graph.input_shapes)
    summary = Table(title=f"{graph.name}  (batch {graph.batch_size}; {inputs})", show_header=False)
    summary.add_column("fact", style="bold")
    summary.add_column("value", justify="right")
    rows = [
        ("nodes", f"{s['num_nodes']:,}"),
        ("edges", f"{s['num_edges']:,}"),
        ("GMACs", f"{s['total_macs'] / 1e9:,.3f}"),
        ("GFLOPs", f"{s['total_flops'] / 1e9:,.3f}"),
        ("parameters", f"{s['total_params']:,} ({s['total_params'] / 1e6:,.2f} M)"),
        ("memory (all tensors)", f"{s['total_memory_bytes'] / 2**20:,.1f} MiB"),
        ("conv / dense / relu / attention", f"{s['num_conv']} / {s['num_dense']} / {s['num_relu']} / {s['num_attention']}"),
        ("operators outside vocabulary (other)", f"{s['num_other']}"),
        ("structure hash", graph.structure_hash[:16]),
    ]
    for row in rows:
        summary.add_row(*row)
    console.print(summary)
    hist = Table(title="operator histogram")
    hist.add_column("operator")
    hist.add_column("count", justify="right")
    for op, count in graph.operator_histogram().items():
        hist.add_row(op, str(count))
    console.print(hist)
