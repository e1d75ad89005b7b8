"""Recipe ``graph2text``: one (graph, question, summary) pair per graph of the config named by the
source ``config:<dataset>/<config>``, in that config's splits (no split files of its own)."""

from __future__ import annotations

from pathlib import Path

from perfgraphs.errors import PerfgraphsError

write_splits = None


def source_config(cfg) -> tuple[str, str]:
    """(dataset, config) of the graph set the pairs are made from."""
    named = cfg.source("config")
    if named is None or named.count("/") != 2:
        raise PerfgraphsError(f"graph2text config {cfg.name!r} needs a source 'config:<owner>/<dataset>/<config>'")
    dataset, config = named.rsplit("/", 1)
    return dataset, config


def build(ds, cfg, ctx) -> Path:
    from perfgraphs.data.graph_summaries import build_graph2text_config

    source = ctx.load(*source_config(cfg))  # built or refreshed first, so the inputs name that build
    return build_graph2text_config(ds, cfg, source, ctx.inputs(), home=ctx.home)


def inputs(ds, cfg, home: Path | None) -> list:
    return []  # the source config's build, added by the dispatcher for every "config:" source
