"""One seed's predictions scored: the per-seed entry of a results record, the same for a
reference baseline run by the runner and for a submission scored by the harness."""

from __future__ import annotations

import numpy as np


def score_seed(evaluator, ids: list[str], y_true, pred, groups: dict, seed: int) -> dict:
    """The :class:`perfgraphs.evaluation.evaluator.Evaluator`'s scores of ``pred`` (in ``ids`` order, which
    must be the test part's), with the seed, the predictions themselves and each one's ratio to
    its label (:data:`PER_CONFIG_KEY`)."""
    scores = evaluator.eval({"sample_id": ids, "y_true": y_true, "y_pred": pred, **groups}, expected_ids=ids)
    scores["seed"] = seed
    scores["y_pred"] = np.asarray(pred).tolist()
    scores[PER_CONFIG_KEY] = pred_over_label(y_true, pred)
    return scores


# Every test configuration's prediction / label, in the test part's order: what a board's paired
# ranking compares (perfgraphs.evaluation.ranking); 6 significant digits keep MAPE exact to 1e-4.
PER_CONFIG_KEY = "pred_over_label"


def pred_over_label(y_true, pred) -> list[float]:
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.asarray(pred, dtype=float) / np.asarray(y_true, dtype=float)
    return [float(f"{r:.6g}") for r in ratio]
