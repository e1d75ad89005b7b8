"""Which builder makes each registered config, and which sources it reads when built from the
registry (this checkout's measurements and graph pool, the pinned external files).

One table for both, so the sources ``load_dataset`` checks are exactly those the builder reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from perfgraphs.errors import PerfgraphsError
from perfgraphs.registry import Config, Dataset


@dataclass(frozen=True)
class Recipe:
    build: Callable[..., Path]  # (dataset, config, home, on_progress) -> folder
    inputs: Callable[..., list]  # (dataset, config, home) -> [BuildInput]


def recipe(ds: Dataset, cfg: Config) -> Recipe:
    from perfgraphs.data import build, graph2text, llm_cpu, multiplatform, tabular

    if cfg.kind == "tabular" and cfg.name == "mlenergy":
        return Recipe(lambda d, c, home, _: tabular.build_mlenergy_config(d, c, home=home),
                      lambda d, c, home: tabular.mlenergy_inputs())
    if ds.name == "perfgraphs/llm" and cfg.kind == "tabular" and cfg.platform is not None:
        return Recipe(lambda d, c, home, _: llm_cpu.build_encoder_config(d, c, home=home),
                      lambda d, c, home: llm_cpu.encoder_inputs(c.platform))
    if ds.name == "perfgraphs/graph2text":
        return Recipe(lambda d, c, home, _: graph2text.build_graph2text_config(d, c, home=home),
                      lambda d, c, home: graph2text.graph2text_inputs(c, home))
    if ds.name == "perfgraphs/nnlqp":
        return Recipe(lambda d, c, home, _: multiplatform.build_nnlqp_config(d, c, home=home),
                      lambda d, c, home: multiplatform.nnlqp_inputs())
    if cfg.kind == "graphs" and cfg.platform is None:
        return Recipe(lambda d, c, home, progress: build.build_graph_config(d, c, home=home, on_progress=progress),
                      lambda d, c, home: build.graph_inputs())
    if cfg.kind == "graphs":
        return Recipe(lambda d, c, home, progress: build.build_labeled_config(d, c, home=home, on_progress=progress),
                      lambda d, c, home: build.labeled_inputs(d, c))
    raise PerfgraphsError(f"{ds.name}/{cfg.name} cannot be built by this version")


def build_config(ds: Dataset, cfg: Config, home: Path | None = None, on_progress=None) -> Path:
    """Build one config into the cache with the builder its kind needs."""
    return recipe(ds, cfg).build(ds, cfg, home, on_progress)


def registry_inputs(ds: Dataset, cfg: Config, home: Path | None = None) -> list:
    """The sources a registry build of this config reads now, with their digests."""
    return recipe(ds, cfg).inputs(ds, cfg, home)
