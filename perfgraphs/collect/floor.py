"""The noise floor of a store's labels, from the rounds of every configuration.

Round 1 plays the truth and each later round a prediction of it: the MAPE a perfect predictor would
still show, because the labels themselves move between two measurements of the same configuration
on the same machine. Computed from the store on demand — the one place the cards, the benchmark
tables, the quickstart and the leaderboard site read it from (through
:func:`perfgraphs.evaluation.label_noise.noise_floor_note`), so it cannot go stale.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path

from perfgraphs.collect.rounds import round_of

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
