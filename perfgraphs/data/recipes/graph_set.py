"""Recipe ``graph_set``: the graphs of a family-count selection from the committed graph pool, no
labels (dippm ``graphs``, trappm ``unlabeled``). Owns the dataset's split files: the units are the
structure hashes of the set's structures, grouped by family."""

from __future__ import annotations

from pathlib import Path


def build(ds, cfg, ctx) -> Path:
    from perfgraphs.data.build import build_graph_config

    return build_graph_config(ds, cfg, home=ctx.home, on_progress=ctx.on_progress)


def inputs(ds, cfg, home: Path | None) -> list:
    from perfgraphs.data.build import graph_inputs

    return graph_inputs()


def write_splits(ds, cfg, ctx) -> None:
    from perfgraphs.data.splits import PROTOCOLS, make_split
    from perfgraphs.data.standard_splits import pool_groups
    from perfgraphs.pool.graph_pool import GraphPool

    groups = pool_groups(ds, GraphPool(ctx.pool_root) if ctx.pool_root else None)
    protocol = cfg.split_protocols[0]
    for seed in PROTOCOLS[protocol]["seeds"]:
        ctx.save(protocol, seed, make_split(groups, protocol, seed))
