"""Recipe ``encoder_measurements``: our measurements of the encoder LLMs' forward (batch ×
sequence length) on one platform, tabular (model + hardware features), in model-stratified folds
(the ``fold`` column) and folds grouped by model (leave-models-out, the boards' protocol), written
to split files of the config's own."""

from __future__ import annotations

from pathlib import Path

# the config's split files are its own (data/splits/llm/<config>/<protocol>-seed0.json)
SPLITS_PER_CONFIG = True


def build(ds, cfg, ctx) -> Path:
    from perfgraphs.data.llm_cpu import build_encoder_config

    return build_encoder_config(ds, cfg, home=ctx.home)


def inputs(ds, cfg, home: Path | None) -> list:
    from perfgraphs.data.llm_cpu import encoder_inputs

    return encoder_inputs(cfg.platform)


def write_splits(ds, cfg, ctx) -> None:
    from perfgraphs.data.llm_cpu import encoder_rows
    from perfgraphs.data.recipes.serving_runs import GROUPED_ABOUT
    from perfgraphs.data.splits import fold_parts
    from perfgraphs.data.tabular import grouped_fold_parts

    from perfgraphs.data.folders import dataset_folder

    # the MAC counts the build keeps in the cache (a count takes 0.4-2 s per row)
    cache = dataset_folder(ds, cfg).parent / f".gmacs-{cfg.name}.json"
    table, _ = encoder_rows(ctx.measurements_root, cfg.platform, gmacs_cache=cache)
    ctx.save("stratified-5-fold", 0, fold_parts(table), unit="row_id", config=cfg.name, stratum="model_id",
             deal="round-robin continued across strata (models in name order)", rows=table.num_rows)
    ctx.save("leave-models-out", 0, grouped_fold_parts(table), unit="row_id", config=cfg.name, rows=table.num_rows,
             **GROUPED_ABOUT)
