"""Recipe ``encoder_measurements``: our measurements of the encoder LLMs' forward (batch ×
sequence length) on one platform, tabular (model + hardware features), in model-stratified folds
written to a split file of the config's own."""

from __future__ import annotations

from pathlib import Path


def build(ds, cfg, ctx) -> Path:
    from perfgraphs.data.llm_cpu import build_encoder_config

    return build_encoder_config(ds, cfg, home=ctx.home)


def inputs(ds, cfg, home: Path | None) -> list:
    from perfgraphs.data.llm_cpu import encoder_inputs

    return encoder_inputs(cfg.platform)


def write_splits(ds, cfg, ctx) -> None:
    from perfgraphs.data.llm_cpu import encoder_rows
    from perfgraphs.data.splits import fold_parts

    table, _ = encoder_rows(ctx.measurements_root, cfg.platform)
    ctx.save(cfg.split_protocols[0], 0, fold_parts(table), unit="row_id", config=cfg.name, stratum="model_id",
             deal="round-robin continued across strata (models in name order)", rows=table.num_rows)
