"""``perfgraphs datasets list | info | build | verify | splits | build-pool | release | export | cards``."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("datasets", help="list, inspect, build and verify datasets")
    verbs = p.add_subparsers(dest="verb", required=True)
    verbs.add_parser("list", help="registered datasets and configs").set_defaults(func=_list)
    info = verbs.add_parser("info", help="one dataset: configs, targets, family counts, build state")
    info.add_argument("name")
    info.set_defaults(func=_info)
    for verb, func, helptext in (("build", _build, "build a config into the cache (a fresh folder, swapped in)"),
                                 ("verify", _verify, "check a built config's files and rows against its manifest "
                                                     "and that its sources have not changed")):
        q = verbs.add_parser(verb, help=helptext)
        q.add_argument("name")
        q.add_argument("--config", default=None)
        q.set_defaults(func=func)
    splits = verbs.add_parser("splits", help="write a dataset's committed split files (data/splits/<name>/)")
    splits.add_argument("name")
    splits.add_argument("--config", default=None,
                        help="only this config's split files (llm: mlenergy or cpu-torch-fp32; default: all)")
    splits.set_defaults(func=_splits)
    pool = verbs.add_parser("build-pool", help="export the timm graph structures the graph sets need")
    pool.add_argument("--only", nargs="*", default=None, help="families to build (default: all)")
    pool.add_argument("--measured", action="store_true",
                      help="instead: the structures of every configuration measured so far")
    pool.add_argument("--nnlqp", action="store_true",
                      help="instead: one structure per architecture in timm's benchmark results")
    pool.add_argument("--max-memory-gb", type=float, default=12.0,
                      help="address-space cap of the builder: a model too large to build fails (and is "
                           "recorded in failures.jsonl) instead of the kernel's OOM killer ending the build")
    pool.add_argument("--reverse", action="store_true",
                      help="walk the --nnlqp/--measured list backwards, so a second builder can run "
                           "beside a first and they meet in the middle")
    pool.set_defaults(func=_build_pool)
    rel = verbs.add_parser("release", help="record a new version of a dataset when its content changed "
                                           "(data/releases.json), building its configs from the data directory")
    rel.add_argument("name")
    rel.add_argument("--config", action="append", default=None,
                     help="release these configs (repeatable; default: every config already released, or all)")
    rel.set_defaults(func=_release)
    exp = verbs.add_parser("export", help="write a Hugging-Face-Hub-ready folder (Parquet + card) per released dataset")
    exp.add_argument("dir", type=Path)
    exp.add_argument("--dataset", action="append", default=None, help="only these datasets (repeatable)")
    exp.add_argument("--version", default=None, help="this version (default: each dataset's latest release)")
    exp.set_defaults(func=_export)
    cards = verbs.add_parser("cards", help="write the dataset cards (dataset_cards/) from the registry and releases")
    cards.add_argument("--check", action="store_true", help="only say which committed cards are stale (exit 1 if any)")
    cards.add_argument("--out", type=Path, default=None, help="folder to write them to (default dataset_cards/)")
    cards.set_defaults(func=_cards)


def _list(args) -> int:
    from rich.console import Console
    from rich.table import Table

    from perfgraphs.data.releases import current_version
    from perfgraphs.registry import DATASETS, get_dataset

    table = Table(title="perfgraphs datasets")
    for col in ("dataset", "version", "config", "kind", "targets", "description"):
        table.add_column(col)
    for ds in map(get_dataset, DATASETS):  # with the configs measured stores make
        for cfg in ds.configs:
            table.add_row(ds.name, current_version(ds), cfg.name, cfg.kind, ", ".join(t.name for t in cfg.targets) or "-", cfg.description)
    Console().print(table)
    return 0


def _info(args) -> int:
    from rich.console import Console

    from perfgraphs.data.build import build_state, dataset_folder
    from perfgraphs.registry import get_dataset

    from perfgraphs.data.releases import versions

    ds = get_dataset(args.name)
    console = Console()
    released = versions(ds.name)
    console.print(f"[bold]{ds.name}[/bold] {released[-1] if released else ds.version + ' (not released)'} — "
                  f"{ds.description}\nlicense: {ds.license}" + (f"\nreleases: {', '.join(released)}" if released else ""))
    if ds.family_counts:
        console.print(f"graphs per family ({sum(ds.family_counts.values()):,}): " +
                      ", ".join(f"{k} {v:,}" for k, v in sorted(ds.family_counts.items())))
    for cfg in ds.configs:
        folder = dataset_folder(ds, cfg)
        state = build_state(folder)
        console.print(f"  {cfg.name}: {cfg.description} [{state}: {folder}]")
    return 0


def _build(args) -> int:
    from rich.progress import Progress

    from perfgraphs.data.load import build_config
    from perfgraphs.registry import get_dataset

    ds = get_dataset(args.name)
    cfg = ds.config(args.config)
    with Progress() as progress:
        task = progress.add_task(f"building {ds.name}/{cfg.name}", total=None)
        folder = build_config(ds, cfg, on_progress=lambda done, total: progress.update(task, completed=done, total=total))
    print(folder)
    return 0


def _verify(args) -> int:
    from perfgraphs.data.build import dataset_folder
    from perfgraphs.data.recipes import changed_inputs
    from perfgraphs.data.manifest import verify
    from perfgraphs.errors import StaleDatasetError
    from perfgraphs.registry import get_dataset

    ds = get_dataset(args.name)
    cfg = ds.config(args.config)
    manifest = verify(dataset_folder(ds, cfg))
    changed = changed_inputs(manifest, ds, cfg, None)
    if changed:  # intact, but not what a build (or load_dataset) makes from the sources now
        raise StaleDatasetError(f"{ds.name}/{cfg.name} is intact but its "
                                f"{', '.join(f'{i.role} ({i.location})' for i in changed)} changed since it was "
                                f"built: run `perfgraphs datasets build {ds.name} --config {cfg.name}`")
    rows = ", ".join(f"{split} {n}" for split, n in manifest["row_counts"].items())
    print(f"ok: {len(manifest['files'])} files and their rows ({rows}) match manifest.json, sources unchanged "
          f"(content hash {manifest['content_hash'][:16]})")
    return 0


def _build_pool(args) -> int:
    from rich.progress import Progress

    from perfgraphs.paths import graph_pool_dir
    from perfgraphs.pool.graph_pool import GraphPool
    from perfgraphs.registry import DATASETS, get_dataset

    if args.max_memory_gb:
        import resource

        cap = int(args.max_memory_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (cap, resource.getrlimit(resource.RLIMIT_AS)[1]))
    pool_dir = graph_pool_dir()
    pool = GraphPool(pool_dir)
    if args.nnlqp:
        from perfgraphs.data.platform_labels import timm_rows, wanted_structures

        wanted = wanted_structures(timm_rows())
        print(f"added {pool.ensure(wanted[::-1] if args.reverse else wanted)} structures to {pool_dir}")
        return 0
    if args.measured:
        from perfgraphs.collect.store import load_measurements
        from perfgraphs.data.build import measurement_root

        items = set()
        for root in {measurement_root(d, c) for d in map(get_dataset, DATASETS) for c in d.configs if c.suite}:
            if root.exists():
                for r in load_measurements(root).to_pylist():
                    if r["status"] == "ok" and r["image_size"]:
                        items.add((r["family"], r["model"], int(r["image_size"])))
        print(f"added {pool.ensure(sorted(items, reverse=args.reverse))} structures to {pool_dir}")
        return 0
    # The quickstart's dataset's families first, so it is complete soonest; then the larger sets.
    from perfgraphs.registry import QUICKSTART_BOARD, get_dataset

    plans = [dict(sorted(get_dataset(QUICKSTART_BOARD[0]).family_counts.items()))]
    union: dict[str, int] = {}
    for ds in DATASETS.values():
        for family, count in ds.family_counts.items():
            union[family] = max(union.get(family, 0), count)
    plans.append(dict(sorted(union.items())))
    if args.only:
        plans = [{f: c for f, c in plan.items() if f in args.only} for plan in plans]
    added = 0
    with Progress() as progress:
        task = progress.add_task("exporting structures", total=None)
        for plan in plans:
            added += pool.build(plan, lambda sid, done, total: progress.update(task, completed=done, total=total))
    print(f"added {added} structures to {pool_dir}")
    return 0


def _splits(args) -> int:
    from perfgraphs.data.recipes import write_splits

    for path, summary in write_splits(args.name, config=args.config):
        print(f"{path}: {summary}" if path else summary)
    return 0


def _release(args) -> int:
    from perfgraphs.data.publish import release
    from perfgraphs.data.releases import is_released
    from perfgraphs.registry import get_dataset

    ds = get_dataset(args.name)
    if args.config:
        configs = [ds.config(c) for c in args.config]
    else:
        configs = [c for c in ds.configs if is_released(ds, c)] or list(ds.configs)
    version, records = release(ds, configs)
    hashes = ", ".join(f"{c} {r.content_hash[:12]}" for c, r in records.items())
    if version is None:
        print(f"nothing to release: {ds.name} has these contents already ({hashes})")
    else:
        print(f"released {ds.name} {version} ({hashes}); `perfgraphs datasets cards` updates the cards")
    return 0


def _export(args) -> int:
    from perfgraphs.data.publish import export_release
    from perfgraphs.data.releases import read_index
    from perfgraphs.errors import PerfgraphsError
    from perfgraphs.registry import get_dataset

    names = args.dataset or sorted(read_index())
    if not names:
        raise PerfgraphsError("no dataset is released yet: `perfgraphs datasets release NAME` makes one")
    for name in names:
        print(export_release(args.dir, get_dataset(name), args.version))
    return 0


def _cards(args) -> int:
    from perfgraphs.data.cards import stale_cards, write_cards

    if args.check:
        stale = stale_cards(args.out)
        for path in stale:
            print(f"stale: {path} (run `perfgraphs datasets cards`)")
        return 1 if stale else 0
    for path in write_cards(args.out):
        print(path)
    return 0
