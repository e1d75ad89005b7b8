"""Recipe ``multiplatform``: one graph per benchmarked (architecture, input size), a per-sample
latency label per platform (timm's published results and our own batch-1 CPU platforms, both
discovered: :mod:`perfgraphs.data.platforms`). Owns its split files: leave-one-family-out and
few-shot-platform (seed k holds out the k-th platform of the committed order, new platforms
appended), over structure ids grouped by architecture and by identical graphs."""

from __future__ import annotations

from pathlib import Path


def build(ds, cfg, ctx) -> Path:
    from perfgraphs.data.platform_labels import build_nnlqp_config

    return build_nnlqp_config(ds, cfg, home=ctx.home)


def inputs(ds, cfg, home: Path | None) -> list:
    """timm's result files (each imported file's name and sha256), every measurement store, the pool."""
    from perfgraphs.data.platform_labels import nnlqp_inputs

    return nnlqp_inputs()


def write_splits(ds, cfg, ctx) -> None:
    from perfgraphs.data.platform_labels import own_platform_rows, timm_rows
    from perfgraphs.data.splits import (PROTOCOLS, UnknownSplitError, extended_platform_order, few_shot_split,
                                        save_platform_order)
    from perfgraphs.data.standard_splits import leave_one_family_out, nnlqp_units, pool_hashes
    from perfgraphs import paths

    rows = timm_rows(ctx.external_dir)
    benchmarked = {(r["arch"], int(r["img_size"])) for r in rows if r["img_size"]}
    rows += [r for r in own_platform_rows(ctx.measurements_root)
             if (r["arch"], r["img_size"]) in benchmarked]
    groups, families, mixed, labeled = nnlqp_units(rows, *pool_hashes(ctx.pool_root or paths.graph_pool_dir()))
    n_families = len(set(families.values()))
    for fold in PROTOCOLS["leave-one-family-out"]["seeds"][:n_families]:
        parts, held, left_out = leave_one_family_out(groups, families, mixed, fold)
        ctx.save("leave-one-family-out", fold, parts, unit="structure_id", held_out_family=held, left_out=left_out)
    # platforms found since the seed order was committed get the next seeds; the others keep theirs
    order = extended_platform_order(labeled, ds.name)
    ctx.written.append((save_platform_order(ds.name, order), f"{len(order)} platforms in seed order"))
    for seed in range(len(order)):
        try:
            shot = few_shot_split(labeled, seed, order=order)
        except UnknownSplitError as exc:
            ctx.skip(f"few-shot-platform seed {seed} skipped: {exc}")
            continue
        ctx.save("few-shot-platform", seed, shot.pop("parts"), unit="structure_id", **shot)
