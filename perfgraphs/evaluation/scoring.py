"""One seed's predictions scored: the per-seed entry of a results record, the same for a
reference baseline run by the runner and for a submission scored by the harness."""

from __future__ import annotations

import numpy as np


def score_seed(evaluator, ids: list[str], y_true, pred, groups: dict, seed: int) -> dict:
    """The :class:`perfgraphs.evaluate.Evaluator`'s scores of ``pred`` (in ``ids`` order, which
    must be the test part's), with the seed and the predictions themselves."""
    scores = evaluator.eval({"sample_id": ids, "y_true": y_true, "y_pred": pred, **groups}, expected_ids=ids)
    scores["seed"] = seed
    scores["y_pred"] = np.asarray(pred).tolist()
    return scores
