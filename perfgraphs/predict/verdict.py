"""Whether a predictor may answer for a model, and why (not).

A tree ensemble cannot extrapolate: beyond the rows it was fitted on it returns the edge of what it
saw, with the confidence of a number. So a prediction is *refused* (no number, no interval, no
cost; the nearest measured rows instead) when

* the model's static features lie further from every fitted row than the artifact's threshold
  (the 99 % quantile of distances between fitted architectures);
* a feature lies outside the fitted rows' range (size, nodes, batch: the trees saturate there);
* operator types never seen in training carry a real share of the graph's work
  (:data:`UNSEEN_SHARE_REFUSED` of its FLOPs or of its bytes), or do work the graph cannot count
  (a ``Loop``/``If``/``Scan`` body, a custom operator: their share would read 0);
* a time would beat the roofline of the labels' machine by more than measured rows do (its FLOPs
  at the measured peak GFLOP/s, or its bytes at the measured bandwidth, take over twice the
  prediction: :data:`ROOFLINE_SLACK`).

Unseen operator types with a negligible share (position encodings' ``Sin``/``Cos``, a ``Resize``)
*flag* the answer instead: it stands, with the reason beside it.
"""

from __future__ import annotations

import numpy as np

from perfgraphs.graph.costs import work_is_counted
from perfgraphs.predict.result import Distribution

ANSWERED = "answered"
FLAGGED = "answered with a caveat"
REFUSED = "refused"
UNSEEN_SHARE_REFUSED = 0.05  # of the graph's FLOPs or bytes on operator types never seen in training
# a time is refused below this fraction of the roofline's bound, not below the bound itself: measured
# rows come close to it (every raw CPU label is at least 1.12x its bound, the drift-corrected
# latency_calibrated_ms reaches 0.73x, one H200 latency 0.94x, where the caches beat the DRAM
# bandwidth the bound assumes; 2026-11-28, every labeled row of every served time target)
ROOFLINE_SLACK = 0.5
# a feature counts as outside the fitted range once it passes an edge by this share of the range: a
# model 3 % larger than the largest fitted one (resnet50's training step at batch 8 on the CPU) is at
# the edge, not beyond it; batch 32 of that step (7x the bytes, 4x the MACs) is beyond it
RANGE_TOLERANCE = 0.025


def unseen_shares(graph, unseen: set[str]) -> tuple[float, float]:
    """The share of the graph's FLOPs and of its bytes read and written on operator types in ``unseen``."""
    if not unseen:
        return 0.0, 0.0
    mask = np.fromiter((op in unseen for op in graph.onnx_ops), dtype=bool, count=len(graph.onnx_ops))
    flops, bytes_ = np.asarray(graph.flops, dtype=np.float64), np.asarray(graph.memory_bytes, dtype=np.float64)
    share = lambda a: float(a[mask].sum() / a.sum()) if a.sum() > 0 else 0.0  # noqa: E731
    return share(flops), share(bytes_)


def out_of_range(art, x: np.ndarray) -> list[str]:
    """The features of ``x`` outside the fitted rows' range (by more than :data:`RANGE_TOLERANCE` of
    it), as '<name> <value> above/below <edge>'."""
    fitted = art.features[art.in_training]
    lo, hi = fitted.min(axis=0), fitted.max(axis=0)
    slack = RANGE_TOLERANCE * (hi - lo)
    names = art.meta["feature_names"]
    out = []
    for i, v in enumerate(np.asarray(x, dtype=np.float64).reshape(-1)):
        if v > hi[i] + slack[i]:
            out.append(f"{names[i]} {v:.4g} above the largest fitted {hi[i]:.4g}")
        elif v < lo[i] - slack[i]:
            out.append(f"{names[i]} {v:.4g} below the smallest fitted {lo[i]:.4g}")
    return out


def roofline_ms(graph, probe) -> float | None:
    """The least time the labels' machine needs for ``graph``: its FLOPs at the measured peak, or its
    bytes at the measured bandwidth, whichever is longer (None without a probe)."""
    if probe is None or probe.peak_gflops_measured <= 0 or probe.memory_bandwidth_gbps_measured <= 0:
        return None
    s = graph.static_features()
    return 1e3 * max(s["total_flops"] / (probe.peak_gflops_measured * 1e9),
                     s["total_memory_bytes"] / (probe.memory_bandwidth_gbps_measured * 1e9))


def judge(art, x: np.ndarray, graph, value: float, *, roofline: float | None = None) -> Distribution:
    """The verdict on one prediction ``value`` of artifact ``art`` for features ``x`` (``graph``:
    the :class:`PerfGraph` the features come from, None for a tabular row; ``roofline``: the least
    time the labels' machine can take for what ``value`` times, None where no bound applies)."""
    near = art.nearest(x, k=1)
    distance = near[0][1] if near else float("inf")
    nearest = art.names[near[0][0]] if near else "none"
    threshold = float(art.meta["distance_threshold"])
    seen = set(art.meta.get("seen_operators") or ())
    unseen = set(graph.onnx_ops) - seen if (graph is not None and seen) else set()
    flops_share, bytes_share = unseen_shares(graph, unseen) if unseen else (0.0, 0.0)
    refused, caveats = [], []
    if distance > threshold:
        refused.append(f"static features lie {distance:.2f} from the nearest fitted row ({nearest}), beyond "
                       f"{threshold:.2f} ({art.meta['distance_threshold_how']})")
    outside = out_of_range(art, x)
    if outside:
        refused.append("outside the fitted range, where the trees only repeat their edge: " + "; ".join(outside))
    uncounted = sorted(op for op in unseen if not work_is_counted(op))
    if uncounted:
        refused.append(f"operator types never seen in training whose work the graph cannot count (a subgraph or a "
                       f"custom operator): {', '.join(uncounted)}")
    if unseen and not uncounted:
        what = (f"operator types never seen in training ({', '.join(sorted(unseen))}) carry "
                f"{100 * flops_share:.1f} % of the FLOPs and {100 * bytes_share:.1f} % of the bytes")
        if max(flops_share, bytes_share) >= UNSEEN_SHARE_REFUSED:
            refused.append(what)
        else:
            caveats.append(what + ": predicted as if they cost nothing")
    low, high = art.meta.get("label_range") or (None, None)
    if low is not None and not (low <= value <= high):
        refused.append(f"the predictor's output {value:.4g} lies outside its fitted labels [{low:.4g}, {high:.4g}]")
    if roofline is not None and value < ROOFLINE_SLACK * roofline:
        refused.append(f"{value:.4g} ms is under {ROOFLINE_SLACK:g}x the roofline of the labels' machine "
                       f"({roofline:.4g} ms for the graph's FLOPs at the measured peak, or its bytes at the measured "
                       f"bandwidth)")
    if refused:
        verdict, reason = REFUSED, "; ".join(refused + caveats)
    elif caveats:
        verdict, reason = FLAGGED, "; ".join(caveats)
    else:
        verdict = ANSWERED
        reason = (f"nearest fitted row {nearest} at {distance:.2f} ≤ {threshold:.2f}; every feature inside the fitted "
                  f"range" + ("; every operator type seen in training" if graph is not None and seen else ""))
    return Distribution(verdict != REFUSED, reason, float(distance), threshold, tuple(sorted(unseen)), verdict,
                        100 * max(flops_share, bytes_share))
