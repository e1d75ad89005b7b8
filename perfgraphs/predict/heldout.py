"""Intervals calibrated on architectures measured after the predictor was trained (issue 33).

The out-of-fold intervals of :mod:`perfgraphs.predict.intervals` hold each architecture family out
of the training folds, but every residual they see is against labels of the same campaign the
predictor was trained on. Two things a user's new architecture meets were never in them, measured:

* the labels' campaign-to-campaign shift on the same machine: the dippm ``cpu-torch-fp32`` test
  configurations measured again two days later read a median 9 % lower, the reference workload
  12 % (the host's load moves over days, not only over seconds);
* structures inside the known families that no named architecture has (depths, widths, stage
  layouts): predict over-predicted the second held-out set's variants by a median 1.17-1.46x per
  family, while the out-of-fold residuals were centred.

So where held-out configurations were measured on the platform's own machine, with the collector,
after training (the ``predict-heldout`` suites of :data:`perfgraphs.registry.HELDOUT_SUITES`,
never in a dataset), an artifact's intervals are split-conformal on *their* residuals instead:
textbook split conformal, the predictor fixed and the calibration rows disjoint from its training
rows. The out-of-fold intervals stay in the artifact beside them for the record. A target no held-out
store measures keeps its out-of-fold intervals.

Every measured configuration calibrates, whether ``predict`` answers it or refuses it (refused
rows are the ones farthest from the training data, so keeping them errs wide). The sets were
measured in two host states; a third state moves a whole fresh set's coverage (benchmarks README,
"Intervals calibrated on the first two sets").
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from perfgraphs.registry import EPYC_VM_TAG, PREDICT_INTERVAL_SUITES

# predict's target → the store column holding the same label (wall-clock latency, CPU time, memory)
STORE_COLUMNS = {"latency_ms": "latency_median_ms", "cpu_time_ms": "cpu_time_ms", "peak_memory_mb": "peak_memory_mb"}
MIN_ROUNDS = 2  # a configuration measured in fewer rounds is not a label yet
PLAN_MODES = {"inference": "infer", "training": "train"}  # a store's mode → predict's


@dataclass(frozen=True)
class HeldoutConfig:
    """One measured held-out configuration, its labels as the store merges the rounds (the median
    of the rounds' medians), exactly as a dataset build reads them."""

    model: str
    input: str
    batch_size: int
    n_rounds: int
    platform: str
    mode: str  # predict's: "infer" or "train"
    labels: dict  # predict target → label, None where the protocol does not measure it

    @property
    def image_shape(self) -> tuple[int, ...]:
        return tuple(int(v) for v in self.input.split(","))


def heldout_configs(store: Path, min_rounds: int = MIN_ROUNDS) -> list[HeldoutConfig]:
    """Every configuration of a held-out store measured in ``min_rounds`` rounds and not flagged
    by the quiet gate, sorted by (model, input, batch)."""
    from perfgraphs.collect.store import load_measurements

    rows = [r for r in load_measurements(store).to_pylist() if r["status"] == "ok" and not r.get("gate_flagged")
            and (r.get("n_rounds") or 1) >= min_rounds]
    return [HeldoutConfig(r["model"], r["input"], int(r["batch_size"]), int(r.get("n_rounds") or 1), r["platform"],
                          PLAN_MODES.get(r["mode"], r["mode"]),
                          {t: None if r.get(c) is None else float(r[c]) for t, c in STORE_COLUMNS.items()})
            for r in sorted(rows, key=lambda r: (r["model"], r["input"], r["batch_size"]))]


def calibration_stores(root: Path | None = None) -> list[Path]:
    """The committed stores of the calibration suites measured on the labels' machine."""
    from perfgraphs.paths import measurements_dir

    base = root or measurements_dir()
    return [p for p in (base / f"{suite}-{EPYC_VM_TAG}" for suite in PREDICT_INTERVAL_SUITES) if p.is_dir()]


def calibration_rows(pt, stores: list[Path]) -> list[HeldoutConfig]:
    """The held-out configurations that calibrate ``pt``: those measured on a platform whose graph
    predictor of ``pt.target`` is ``pt`` (the artifact predict answers a zoo architecture with; an
    encoder-row predictor answers other sources), with a label of it."""
    from perfgraphs.predict.errors import UnknownPlatformError
    from perfgraphs.predict.platforms import find_platform, served_targets

    out, served = [], {}
    for store in stores:
        for c in heldout_configs(store):
            key = (c.platform, c.mode)
            if key not in served:
                try:
                    served[key] = {t.key for t in served_targets(find_platform(*key), tabular=False)}
                except UnknownPlatformError:  # a platform predict has no labels for: nothing to calibrate
                    served[key] = set()
            if pt.key in served[key] and c.labels.get(pt.target) is not None:
                out.append(c)
    return out


def heldout_features(configs: list[HeldoutConfig]) -> np.ndarray:
    """(n, d) graph features of each configuration, computed exactly as ``predict`` computes them
    (the same export, cached on disk, and featurizer)."""
    from perfgraphs.predict.features import graph_features
    from perfgraphs.predict.sources import graph_of, template_of

    return np.vstack([graph_features(graph_of(template_of(c.model, image_shape=c.image_shape), c.batch_size, None))
                      for c in configs])


def heldout_intervals(pt, predict_fn, stores: list[Path] | None = None) -> dict | None:
    """Split-conformal intervals of ``pt`` from its predictor ``predict_fn`` (features → values) on
    the held-out configurations that calibrate it; None where no store measures it."""
    from perfgraphs.predict.intervals import fit_intervals

    stores = calibration_stores() if stores is None else stores
    configs = calibration_rows(pt, stores)
    if not configs:
        return None
    y = np.array([c.labels[pt.target] for c in configs], dtype=np.float64)
    pred = np.asarray(predict_fn(heldout_features(configs)), dtype=np.float64).reshape(-1)
    groups = np.array([c.model for c in configs])
    how = (f"split-conformal (crepes' Mondrian conformal predictive system) on the log residuals of "
           f"{len(configs)} held-out configurations of {len(set(groups.tolist()))} architectures in no training "
           f"set, measured after training on the labels' machine ({', '.join(p.name for p in stores)})")
    return {**fit_intervals(y, pred, groups, how=how), "calibration": "held-out architectures",
            "stores": [p.name for p in stores]}
