"""``perfgraphs leaderboard build``: the static site from the results records;
``perfgraphs leaderboard commit-hidden``: publish the sha256 of a hidden test set."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("leaderboard", help="build the static leaderboard site, commit hidden test sets")
    verbs = p.add_subparsers(dest="verb", required=True)
    b = verbs.add_parser("build", help="write leaderboard/site/ from leaderboard/results/*.jsonl")
    b.add_argument("--results", type=Path, default=None)
    b.add_argument("--out", type=Path, default=None)
    b.set_defaults(func=_build)
    h = verbs.add_parser("commit-hidden", help="write leaderboard/hidden/<dataset>-<config>.sha256 for the hidden "
                         "test set DIR/<dataset>-<config>.parquet (commit that file before scoring)")
    h.add_argument("labels_dir", type=Path)
    h.add_argument("--dataset", required=True)
    h.add_argument("--config", required=True)
    h.add_argument("--commitments", type=Path, default=None, help="default leaderboard/hidden")
    h.set_defaults(func=_commit_hidden)


def _build(args) -> int:
    from perfgraphs.leaderboard.site import build_site

    print(build_site(args.out, args.results))
    return 0


def _commit_hidden(args) -> int:
    from perfgraphs.leaderboard.hidden import commit_hidden
    from perfgraphs.registry import get_dataset

    ds = get_dataset(args.dataset)
    ds.config(args.config)  # unknown configs fail here, with the list of known ones
    path = commit_hidden(args.labels_dir, ds.name, args.config, args.commitments)
    print(f"{path}: {path.read_text().split()[0]} (commit this file; score with --hidden-labels {args.labels_dir})")
    return 0
