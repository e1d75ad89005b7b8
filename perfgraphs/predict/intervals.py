"""Prediction intervals that hold on architectures the predictor never saw.

How an artifact's intervals are made (:func:`fit_intervals`, at training time):

1. every labeled row is predicted out of fold, the folds grouped by architecture family
   (scikit-learn's ``GroupKFold``): a row is always predicted by a model that saw none of its
   family, as a user's new architecture is;
2. the residual of a row is ``log(label) - log(prediction)`` (time and memory errors are
   multiplicative: a 20 % miss is the same miss at 5 ms and at 5 s);
3. the rows are split into size bands by their predicted value (terciles of the out-of-fold
   prediction), and crepes' Mondrian ``ConformalPredictiveSystem`` turns each band's residuals into
   the band's conformal percentiles (split-conformal with the finite-sample correction; a band
   with too few rows gets infinite bounds, which :func:`interval_of` refuses to state).

The artifact stores, per band, the log offsets of each level's bounds, so ``predict`` needs no
conformal library at run time: the interval of a prediction ``p`` at level ``L`` is
``p * exp(lower_L), p * exp(upper_L)`` of the band ``p`` falls in. The offsets are signed
percentiles, so a predictor that under-predicts a band gets an interval shifted upwards.

Where architectures in no training set were measured after training on the labels' machine, an
artifact's intervals come from their residuals instead (:mod:`perfgraphs.predict.heldout`, the
same :func:`fit_intervals`); the out-of-fold ones stay in the artifact for the record.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

LEVELS = (0.8, 0.9)  # the stated coverages
N_BANDS = 3
N_FOLDS = 5
HOW = (f"split-conformal (crepes' Mondrian conformal predictive system) on out-of-fold log residuals, "
       f"{N_FOLDS} folds grouped by architecture family, {N_BANDS} size bands by predicted value")


@dataclass(frozen=True)
class Interval:
    """A prediction's interval at one stated coverage, from residuals on architectures the predictor never saw."""

    level: float  # stated coverage, 0.8 = 80 %
    low: float
    high: float
    band: int  # the size band the prediction fell in (0 = smallest predictions)
    band_rows: int  # held-out rows behind the band's percentiles
    band_families: int

    @property
    def half_width_pct(self) -> float:
        """Half the interval's width relative to its centre, in percent: one number to compare
        two intervals by."""
        mid = (self.high + self.low) / 2.0
        return 100.0 * (self.high - self.low) / 2.0 / mid if mid > 0 else math.inf


def grouped_out_of_fold(X: np.ndarray, y: np.ndarray, groups: np.ndarray, fit_predict, n_folds: int = N_FOLDS
                        ) -> np.ndarray:
    """Out-of-fold predictions of every row, the folds grouped by ``groups`` (no group in two folds);
    ``fit_predict(X_train, y_train, X_test)`` fits a fresh predictor and predicts."""
    from sklearn.model_selection import GroupKFold

    n_groups = len(set(groups.tolist()))
    if n_groups < 2:
        raise ValueError(f"held-out residuals need rows of at least 2 families, got {n_groups}")
    pred = np.empty(len(y), dtype=np.float64)
    for train, test in GroupKFold(n_splits=min(n_folds, n_groups)).split(X, y, groups):
        pred[test] = fit_predict(X[train], y[train], X[test])
    return pred


def band_edges(log_pred: np.ndarray, n_bands: int = N_BANDS) -> list[float]:
    """The inner edges of the size bands: quantiles of the predictions (log)."""
    return [float(q) for q in np.quantile(log_pred, [i / n_bands for i in range(1, n_bands)])]


def band_of(log_pred: np.ndarray | float, edges: list[float]) -> np.ndarray:
    return np.searchsorted(np.asarray(edges), np.asarray(log_pred, dtype=np.float64), side="right")


def fit_intervals(y: np.ndarray, pred: np.ndarray, groups: np.ndarray, levels=LEVELS, n_bands: int = N_BANDS,
                  how: str = HOW) -> dict:
    """Per size band, each level's log offsets of the conformal interval, from out-of-fold
    predictions ``pred`` of labels ``y`` (rows of families ``groups``); the artifact's ``intervals``."""
    from crepes import ConformalPredictiveSystem

    y = np.asarray(y, dtype=np.float64)
    pred = np.asarray(pred, dtype=np.float64)
    ok = (y > 0) & (pred > 0) & np.isfinite(y) & np.isfinite(pred)
    y, pred, groups = y[ok], pred[ok], np.asarray(groups)[ok]
    log_pred = np.log(pred)
    residuals = np.log(y) - log_pred
    edges = band_edges(log_pred, n_bands)
    bins = band_of(log_pred, edges)
    cps = ConformalPredictiveSystem().fit(residuals, bins=bins)
    lower = [100.0 * (1 - lv) / 2 for lv in levels]
    upper = [100.0 * (1 + lv) / 2 for lv in levels]
    bands = []
    for b in range(n_bands):
        inb = bins == b
        # the offsets are the band's residual percentiles: crepes adds them to a prediction of 0
        pct = np.asarray(cps.predict_percentiles(np.zeros(1), bins=np.array([b]), lower_percentiles=lower,
                                                 higher_percentiles=upper), dtype=np.float64).reshape(-1)
        offsets = {f"{lv:g}": [_finite(pct[i]), _finite(pct[len(levels) + i])] for i, lv in enumerate(levels)}
        bands.append({"rows": int(inb.sum()), "families": len(set(groups[inb].tolist())), "offsets": offsets,
                      "mape_pct": float(100 * np.mean(np.abs(pred[inb] - y[inb]) / y[inb])) if inb.any() else None})
    return {"how": how, "levels": [float(lv) for lv in levels], "edges_log": edges, "bands": bands,
            "n_rows": int(len(y)), "n_families": len(set(groups.tolist())),
            "heldout_mape_pct": float(100 * np.mean(np.abs(pred - y) / y))}


def _finite(v: float) -> float | None:
    """JSON has no infinity: an unbounded offset (too few rows in the band) is stored as None."""
    return float(v) if np.isfinite(v) else None


def interval_of(intervals: dict | None, value: float, level: float) -> Interval | None:
    """The interval of a prediction at ``level``, or None where the artifact states none there
    (no intervals, the level not calibrated, or too few held-out rows in the band)."""
    if not intervals or not value or value <= 0:
        return None
    b = int(band_of(math.log(value), intervals["edges_log"]))
    band = intervals["bands"][b]
    lo, hi = band["offsets"].get(f"{level:g}", (None, None))
    if lo is None or hi is None:
        return None
    # a band's percentiles can lie on one side of 0 (the predictor under-predicts the whole band);
    # the interval is widened to hold the stated value itself: wider keeps the coverage
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    return Interval(level, value * math.exp(lo), value * math.exp(hi), b, band["rows"], band["families"])


def coverage(y: np.ndarray, low: np.ndarray, high: np.ndarray) -> float:
    """The share of labels inside their intervals."""
    y = np.asarray(y, dtype=np.float64)
    return float(np.mean((y >= np.asarray(low)) & (y <= np.asarray(high))))
