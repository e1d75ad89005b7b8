"""Recipe ``serving_runs``: imported tabular serving runs (the ML.ENERGY leaderboard), one row per
measured serving configuration, in model-stratified folds. Owns the dataset-level fold file."""

from __future__ import annotations

from pathlib import Path


def build(ds, cfg, ctx) -> Path:
    from perfgraphs.data.tabular import build_mlenergy_config

    return build_mlenergy_config(ds, cfg, home=ctx.home)


def inputs(ds, cfg, home: Path | None) -> list:
    from perfgraphs.data.tabular import mlenergy_inputs

    return mlenergy_inputs()


def write_splits(ds, cfg, ctx) -> None:
    from perfgraphs.data.splits import fold_parts
    from perfgraphs.data.tabular import mlenergy_rows
    from perfgraphs.loaders.sources import ExternalSourceError

    try:
        parts = fold_parts(mlenergy_rows(ctx.external_dir))
    except ExternalSourceError as exc:
        if ctx.only_config:
            raise
        ctx.skip(f"{cfg.name} skipped: {exc}")
        return
    ctx.save(cfg.split_protocols[0], 0, parts, unit="row_id", stratum="model_id",
             group="serving configuration (repeated measurements stay in one fold)")
