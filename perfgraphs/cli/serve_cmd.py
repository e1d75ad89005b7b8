"""``perfgraphs serve``: the predict web form on a local port (``pip install -e '.[serve]'``)."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="serve the predict web form locally (needs the serve extra)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=7860, help="port (default 7860)")
    p.add_argument("--artifacts", type=Path, default=None, help="predictor artifacts folder (default: the package's)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from perfgraphs.predict.serve import serve

    print(f"perfgraphs predict form on http://{args.host}:{args.port}/ (Ctrl-C stops it)", flush=True)
    serve(args.host, args.port, args.artifacts)
    return 0
