"""Recipe ``serving_runs``: imported tabular serving runs (the ML.ENERGY leaderboard), one row per
measured serving configuration, in model-stratified folds (the ``fold`` column) and in folds
grouped by model (leave-models-out, the boards' protocol). Owns the dataset-level fold files."""

from __future__ import annotations

from pathlib import Path

# the config's split files are the dataset's (data/splits/llm/<protocol>-seed0.json)
SPLITS_PER_CONFIG = False


def build(ds, cfg, ctx) -> Path:
    from perfgraphs.data.tabular import build_mlenergy_config

    return build_mlenergy_config(ds, cfg, home=ctx.home)


def inputs(ds, cfg, home: Path | None) -> list:
    from perfgraphs.data.tabular import mlenergy_inputs

    return mlenergy_inputs()


def write_splits(ds, cfg, ctx) -> None:
    from perfgraphs.data.splits import fold_parts
    from perfgraphs.data.tabular import grouped_fold_parts, mlenergy_rows
    from perfgraphs.loaders.sources import ExternalSourceError

    try:
        table = mlenergy_rows(ctx.external_dir)
    except ExternalSourceError as exc:
        if ctx.only_config:
            raise
        ctx.skip(f"{cfg.name} skipped: {exc}")
        return
    ctx.save("stratified-5-fold", 0, fold_parts(table), unit="row_id", stratum="model_id",
             group="serving configuration (repeated measurements stay in one fold)")
    ctx.save("leave-models-out", 0, grouped_fold_parts(table), unit="row_id", **GROUPED_ABOUT)


# what a leave-models-out file says of itself (both tabular recipes write one)
GROUPED_ABOUT = {"group": "model_id, case and surrounding whitespace ignored (no model in two folds)",
                 "splitter": "sklearn.model_selection.GroupKFold(n_splits=5), groups in sorted order, no shuffle"}
