"""``perfgraphs leaderboard build``: the static site from the results records."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("leaderboard", help="build the static leaderboard site")
    verbs = p.add_subparsers(dest="verb", required=True)
    b = verbs.add_parser("build", help="write leaderboard/site/ from leaderboard/results/*.jsonl")
    b.add_argument("--results", type=Path, default=None)
    b.add_argument("--out", type=Path, default=None)
    b.set_defaults(func=_build)


def _build(args) -> int:
    from perfgraphs.leaderboard.site import build_site

    print(build_site(args.out, args.results))
    return 0
