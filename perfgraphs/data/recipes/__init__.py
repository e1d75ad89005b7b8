"""Recipes: how each registered config is built, what it reads, when a build is stale and which
split files it owns — chosen by the config's ``recipe`` attribute, never by its name.

A recipe is a module of this package with one signature:

* ``build(ds, cfg, ctx: BuildContext) -> Path``: build the config into the cache;
* ``inputs(ds, cfg, home) -> list[BuildInput]``: the sources a registry build reads now, with
  their digests (what makes a build stale); every ``config:`` source of the registry entry is
  added to them here (another config's build, and whether it is itself up to date);
* ``write_splits(ds, cfg, ctx)`` or ``None``: write the committed split files the config owns
  (``None``: its rows follow the split of their source).

Adding a dataset is a registry entry naming one of these recipes, or a new module here and one
line in :data:`RECIPES`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Callable

from perfgraphs.data.build_inputs import ABSENT, BuildInput, combined_digest, external_input, tree_input
from perfgraphs.data.recipes import (encoder_measurements, graph2text, graph_set, measured_graphs, multiplatform,
                                     serving_runs)
from perfgraphs.errors import DatasetIntegrityError, PerfgraphsError
from perfgraphs.registry import Config, Dataset, get_dataset

RECIPES: dict[str, ModuleType] = {
    "graph_set": graph_set,  # graphs of the pool, no labels
    "measured_graphs": measured_graphs,  # graphs of the pool joined with one measurement store
    "multiplatform": multiplatform,  # one graph per architecture, a label per platform
    "graph2text": graph2text,  # (graph, question, summary) pairs of another config's graphs
    "serving_runs": serving_runs,  # imported tabular serving runs (ML.ENERGY)
    "encoder_measurements": encoder_measurements,  # our encoder-LLM measurements, tabular
}


def split_config(cfg: Config) -> str | None:
    """The ``config`` argument of :func:`perfgraphs.data.splits.split_file` for this config's own
    split files: its name when its recipe writes them per config (``SPLITS_PER_CONFIG``), else
    None (the dataset's files)."""
    return cfg.name if getattr(recipe(cfg), "SPLITS_PER_CONFIG", False) else None


def recipe(cfg: Config) -> ModuleType:
    try:
        return RECIPES[cfg.recipe]
    except KeyError:
        raise PerfgraphsError(f"config {cfg.name!r} names recipe {cfg.recipe!r}, which this version does not have "
                              f"(recipes: {', '.join(RECIPES)})") from None


@dataclass(frozen=True)
class BuildContext:
    """What a recipe's ``build`` gets besides the registry entry."""
    ds: Dataset
    cfg: Config
    home: Path | None
    on_progress: Callable | None
    # (dataset, config) -> the loaded splits of another config, built or refreshed first
    # (:func:`perfgraphs.data.load.load_dataset`: it lives above the recipes)
    load_dataset: Callable | None

    def load(self, dataset: str, config: str):
        if self.load_dataset is None:
            raise PerfgraphsError(f"{self.ds.name}/{self.cfg.name} is built from another config: build it through "
                                  "perfgraphs.data.load.build_config")
        return self.load_dataset(dataset, config, home=self.home)

    def inputs(self) -> list[BuildInput]:
        return registry_inputs(self.ds, self.cfg, self.home)


def build(ds: Dataset, cfg: Config, home: Path | None = None, on_progress=None, load: Callable | None = None) -> Path:
    """Build one config into the cache with its recipe (``load``: how a recipe loads another config)."""
    return recipe(cfg).build(ds, cfg, BuildContext(ds, cfg, home, on_progress, load))


def registry_inputs(ds: Dataset, cfg: Config, home: Path | None = None) -> list[BuildInput]:
    """The sources a registry build of this config reads now, with their digests."""
    derived = [dataset_input(*_config_source(s), home) for s in cfg.sources if s.startswith("config:")]
    return recipe(cfg).inputs(ds, cfg, home) + derived


def _config_source(source: str) -> tuple[str, str]:
    dataset, _, config = source.split(":", 1)[1].rpartition("/")
    return dataset, config


# --- staleness: what a build read, then and now -------------------------------------------------

def dataset_input(dataset: str, config: str, home: Path | None) -> BuildInput:
    """Another config's build as an input (graph2text is derived from dippm): its content hash, and
    whether its own inputs are still those it was built from (staleness is transitive)."""
    from perfgraphs.data.folders import dataset_folder

    ds = get_dataset(dataset)
    folder = dataset_folder(ds, ds.config(config), home)
    return BuildInput("dataset", "dataset", str(folder), dataset_digest(folder, home), ds.name, config)


def dataset_digest(folder: Path, home: Path | None) -> str:
    """The source config's content hash, marked stale when its own inputs changed since its build."""
    from perfgraphs.data.manifest import is_legacy, read_manifest

    manifest = read_manifest(folder)
    if manifest is None or is_legacy(manifest):
        return ABSENT
    ds = get_dataset(manifest["dataset"])
    fresh = not changed_inputs(manifest, ds, ds.config(manifest["config"]), home)
    return hashlib.sha256(f"{manifest['content_hash']}\0{'fresh' if fresh else 'stale'}".encode()).hexdigest()


def _recomputed(record: dict, home: Path | None) -> BuildInput:
    """The input a manifest records, with its digest taken again now."""
    try:
        kind, location = record["kind"], record["location"]
        if kind == "tree":
            return tree_input(record["role"], Path(location))
        if kind == "external":
            return external_input(location, record.get("folder") or None)
        if kind == "dataset":
            return dataset_input(record["dataset"], record["config"], home)
    except (KeyError, TypeError):
        pass
    raise DatasetIntegrityError(f"manifest records an input this version cannot read: {str(record)[:120]}")


def current_inputs(manifest: dict, ds: Dataset, cfg: Config, home: Path | None) -> list[BuildInput]:
    """What the build would read now: the registry's sources for a registry build (this checkout's
    measurements and pool, whatever checkout built it), else the very folders it was built from."""
    if manifest.get("registry_defaults"):
        return registry_inputs(ds, cfg, home)
    return [_recomputed(r, home) for r in manifest.get("inputs", [])]


def changed_inputs(manifest: dict, ds: Dataset, cfg: Config, home: Path | None) -> list[BuildInput]:
    """The inputs whose content differs from what the build recorded (empty: up to date)."""
    now = current_inputs(manifest, ds, cfg, home)
    if combined_digest(now) == manifest.get("inputs_sha256"):
        return []
    recorded = {(r.get("role"), r.get("kind")): r.get("digest") for r in manifest.get("inputs", [])}
    changed = [i for i in now if recorded.get((i.role, i.kind)) != i.digest]
    return changed or now  # inputs added or removed: all of them count as changed


# --- committed split files ----------------------------------------------------------------------

@dataclass
class SplitContext:
    """Where a recipe's ``write_splits`` reads its units from, and how it saves a split file."""
    dataset: Dataset
    pool_root: Path | None = None
    external_dir: Path | None = None
    measurements_root: Path | None = None
    only_config: bool = False  # one config was asked for: a source that cannot be read is an error
    written: list = field(default_factory=list)

    def save(self, protocol: str, seed: int, parts: dict[str, list[str]], unit: str = "structure_hash", **about):
        from perfgraphs.data.splits import save_split

        path = save_split(self.dataset.name, protocol, seed, parts, unit=unit, **about)
        self.written.append((path, ", ".join(f"{p} {len(v)}" for p, v in parts.items()) +
                             "".join(f"; {k} {v}" for k, v in about.items() if isinstance(v, str))))

    def skip(self, why: str) -> None:
        self.written.append((None, why))


def write_splits(name: str, pool_root: Path | None = None, external_dir: Path | None = None,
                 measurements_root: Path | None = None, config: str | None = None) -> list[tuple[Path | None, str]]:
    """Write every committed split file of a dataset (``config``: only that config's, where the
    dataset's configs have split files of their own); returns (path or None, one-line summary) each."""
    ds = get_dataset(name)
    configs = [ds.config(config)] if config is not None else list(ds.configs)
    ctx = SplitContext(ds, pool_root, external_dir, measurements_root, only_config=config is not None)
    owners = [cfg for cfg in configs if recipe(cfg).write_splits is not None]
    if not owners:
        raise PerfgraphsError(f"{ds.name}" + (f"/{config}" if config else "") +
                              " has no committed splits of its own (its rows follow the split of their source)")
    for cfg in owners:
        recipe(cfg).write_splits(ds, cfg, ctx)
    return ctx.written
