"""Recipe ``measured_graphs``: the graphs of every measured configuration of one store
(``cfg.suite``) with their labels. Rows follow the split of the dataset's graph set (by structure
hash), so the recipe owns no split files."""

from __future__ import annotations

from pathlib import Path

write_splits = None


def build(ds, cfg, ctx) -> Path:
    from perfgraphs.data.build import build_labeled_config

    return build_labeled_config(ds, cfg, home=ctx.home, on_progress=ctx.on_progress)


def inputs(ds, cfg, home: Path | None) -> list:
    from perfgraphs.data.build import labeled_inputs

    return labeled_inputs(ds, cfg)
