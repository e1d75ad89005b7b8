"""The noise floor of a store's labels, from the rounds of every configuration.

Round 1 plays the truth and each later round a prediction of it: the MAPE a perfect predictor would
still show, because the labels themselves move between two measurements of the same configuration
on the same machine. Computed from the store on demand — the one place the cards, the benchmark
tables, the quickstart and the leaderboard site read it from (through
:func:`perfgraphs.evaluation.label_noise.noise_floor_note`), so it cannot go stale.

With more rounds, :func:`split_half_of` asks how firmly a label of several rounds stands: the label
of the odd rounds against the label of the even ones (``perfgraphs collect verify`` prints both).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path

from perfgraphs.collect.rounds import round_label, round_of

# label (dataset target) -> the measurement column its rounds are compared on
TARGET_COLUMNS = {"cpu_time_ms": "cpu_time_ms", "latency_ms": "latency_median_ms",
                  "step_time_ms": "latency_median_ms", "latency_calibrated_ms": "latency_calibrated_ms",
                  "peak_memory_mb": "peak_memory_mb",
                  "throughput_samples_per_s": "throughput_samples_per_s"}


@dataclass(frozen=True)
class RoundFloor:
    target: str
    n_configs: int  # configurations with at least two ok rounds
    mape_pct: float
    median_ape_pct: float
    p95_ape_pct: float

    def sentence(self) -> str:
        return (f"**{self.mape_pct:.1f} % MAPE** between measurement rounds (median {self.median_ape_pct:.1f} %, "
                f"95th percentile {self.p95_ape_pct:.1f} %, over all {self.n_configs} configurations measured twice)")


def round_pairs(rows: list[dict], column: str) -> list[tuple[float, float]]:
    """(round 1, round k) value pairs of every configuration with ok rounds (``rows``: one per
    configuration and round, as :meth:`MeasurementStore.round_rows` returns them)."""
    by_key: dict[str, dict[int, float]] = {}
    for r in rows:
        if r["status"] == "ok" and r.get(column) is not None and not r.get("gate_flagged"):
            by_key.setdefault(r["key"], {})[round_of(r)] = r[column]
    pairs = []
    for rounds in by_key.values():
        if 1 in rounds and rounds[1] > 0:
            pairs.extend((rounds[1], v) for k, v in sorted(rounds.items()) if k > 1)
    return pairs


def floor_of(rows: list[dict], target: str) -> RoundFloor | None:
    """The floor of one target, or None when no configuration has two ok rounds of it."""
    column = TARGET_COLUMNS.get(target, target)
    apes = sorted(abs(b - a) / a * 100 for a, b in round_pairs(rows, column))
    if not apes:
        return None
    p95 = apes[min(len(apes) - 1, int(round(0.95 * (len(apes) - 1))))]
    return RoundFloor(target, len(apes), statistics.fmean(apes), statistics.median(apes), p95)


def store_floor(root: str | Path, targets: tuple[str, ...] = ("cpu_time_ms", "latency_ms")) -> dict[str, RoundFloor]:
    """Every target's floor over a store's configurations (those with two rounds)."""
    from perfgraphs.collect.store import MeasurementStore

    rows = MeasurementStore(root).round_rows()
    return {t: f for t in targets if (f := floor_of(rows, t)) is not None}


@dataclass(frozen=True)
class SplitHalf:
    """How far the labels of two disjoint halves of the rounds (odd, even) lie apart."""

    target: str
    n_configs: int  # configurations with an ok round in each half
    median_pct: float
    mean_pct: float


def round_levels(rows: list[dict], target: str) -> dict[int, float]:
    """Each round's level: the median over configurations (those with two or more ok rounds) of the
    round's value / the configuration's mean over its rounds. A round of a visits campaign is one
    pass over every configuration in one state of the host (the dippm test part's six passes sat
    0.88-1.00 of the labels' level), so its level is an offset shared by the whole pass."""
    column = TARGET_COLUMNS.get(target, target)
    by_key: dict[str, dict[int, float]] = {}
    for r in rows:
        if r["status"] == "ok" and r.get(column) is not None and not r.get("gate_flagged"):
            by_key.setdefault(r["key"], {})[round_of(r)] = float(r[column])
    ratios: dict[int, list[float]] = {}
    for rounds in by_key.values():
        mean = statistics.fmean(rounds.values()) if len(rounds) > 1 else 0.0
        if mean > 0:
            for n, v in rounds.items():
                ratios.setdefault(n, []).append(v / mean)
    return {n: statistics.median(v) for n, v in ratios.items()}


def split_half_of(rows: list[dict], target: str, levels: dict[int, float] | None = None) -> SplitHalf | None:
    """Per configuration, the label of its odd rounds (1, 3, ...) plays the truth and the label of
    its even rounds (2, 4, ...) the prediction (each the label :func:`~perfgraphs.collect.rounds.fold`
    makes of rounds: their mean): the absolute percentage difference between the two
    labels, summarised over configurations (``rows`` as for :func:`round_pairs`; a configuration
    needs an ok round in each half). With two rounds this is the floor between rounds 1 and 2; with
    four, each half is a label of two rounds, as a label of all four is of four. ``levels``: each
    round's value first divided by its round's level (:func:`round_levels`). None when no
    configuration has both halves."""
    column = TARGET_COLUMNS.get(target, target)
    halves: dict[str, tuple[list[float], list[float]]] = {}
    for r in rows:
        if r["status"] == "ok" and r.get(column) is not None and not r.get("gate_flagged"):
            level = (levels or {}).get(round_of(r), 1.0)
            halves.setdefault(r["key"], ([], []))[round_of(r) % 2 == 0].append(r[column] / level)
    diffs = sorted(abs(round_label(even) / round_label(odd) - 1) * 100
                   for odd, even in halves.values() if odd and even and round_label(odd) > 0)
    if not diffs:
        return None
    return SplitHalf(target, len(diffs), statistics.median(diffs), statistics.fmean(diffs))
