"""Kendall's τ-b without SciPy, for the record reader: every board's reader recomputes each record's τ
from its evidence (``record_check.stated_scores_problem``), and ``perfgraphs.predict`` reads the boards
in a process that must not import SciPy (about half a second, and a framework a cached prediction does
not need). The Evaluator scores with ``scipy.stats.kendalltau``; this agrees with it (tests compare the
two on ties, constants and random data)."""

from __future__ import annotations

import math

import numpy as np


def _tied_pairs(values: np.ndarray) -> int:
    """Pairs of equal entries (rows, for a 2-D array)."""
    _, counts = np.unique(values, axis=0, return_counts=True)
    return int(np.sum(counts * (counts - 1) // 2))


def _inversions(ranks: np.ndarray) -> int:
    """Pairs i < j with ranks[i] > ranks[j] (non-negative integers), by a bottom-up merge sort whose levels
    are whole-array NumPy operations: O(n log² n)."""
    a, n = ranks.astype(np.int64), len(ranks)
    span = int(a.max()) + 1 if n else 1
    idx = np.arange(n, dtype=np.int64)
    count, width = 0, 1
    while width < n:
        block = idx // (2 * width)
        right = (idx // width) % 2 == 1
        key = block * span + a  # each block's left half is sorted, so the left keys are sorted overall
        left = key[~right]
        above = np.searchsorted(left, (block[right] + 1) * span, "left") - np.searchsorted(left, key[right], "right")
        count += int(above.sum())
        a = np.sort(key) - block * span  # each block merged: its keys sorted keep the blocks in order
        width *= 2
    return count


def kendall_tau_b(x, y) -> float:
    """Kendall's τ-b of ``x`` and ``y`` (equal lengths); NaN when either is constant or has fewer than two
    values, as ``scipy.stats.kendalltau``."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = len(x)
    if n < 2 or len(y) != n:
        return math.nan
    order = np.lexsort((y, x))  # by x, then y: a pair tied in x is never counted discordant
    xs, ys = x[order], y[order]
    pairs = n * (n - 1) // 2
    x_ties, y_ties, both = _tied_pairs(xs), _tied_pairs(ys), _tied_pairs(np.stack([xs, ys], axis=1))
    discordant = _inversions(np.unique(ys, return_inverse=True)[1].reshape(-1))
    denominator = (pairs - x_ties) * (pairs - y_ties)
    if denominator <= 0:
        return math.nan
    return float(pairs - x_ties - y_ties + both - 2 * discordant) / math.sqrt(denominator)
