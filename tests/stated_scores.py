"""Fixture help for tests that move a record's labels or ratios: the scores a record must state about
them (the readers tie each to its evidence, ``record_check``). A module of its own, importing no test
module, so the review tests that use it import no cycle."""

from __future__ import annotations

import numpy as np


def with_rmse_restated(record: dict) -> dict:
    """``record`` with each seed's RMSE its predictions' (its ratios × the first seed's labels, or those
    pairs where a seed keeps no ratios): what a fixture that moves labels or ratios states now."""
    labels = np.asarray([t for t, _ in record["actual_vs_predicted"]], dtype=float)

    def restated(seed: dict, i: int) -> dict:
        ratios = seed.get("pred_over_label")
        if ratios is None and i > 0:
            return seed
        pred = labels * np.asarray(ratios, dtype=float) if ratios is not None else \
            np.asarray([p for _, p in record["actual_vs_predicted"]], dtype=float)
        return {**seed, "rmse": float(np.sqrt(np.mean((labels - pred) ** 2)))}
    return {**record, "per_seed": [restated(s, i) for i, s in enumerate(record["per_seed"])]}
