"""Summary statistics of per-run times.

The median and the MAD are the robust pair used for decisions (re-measurement, calibration);
mean and std are kept because the DIPPM protocol reports the arithmetic mean.
"""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class RunStats:
    n: int
    median_ms: float
    mean_ms: float
    std_ms: float
    min_ms: float
    max_ms: float
    mad_ms: float

    @property
    def spread(self) -> float:
        """MAD relative to the median: the noise measure that decides a re-measurement."""
        return self.mad_ms / self.median_ms if self.median_ms > 0 else float("inf")

    def as_columns(self, prefix: str = "latency") -> dict[str, float | int]:
        return {("n_timed_runs" if k == "n" else f"{prefix}_{k}"): v for k, v in asdict(self).items()}


def run_stats(times_ms: list[float]) -> RunStats:
    if not times_ms:
        raise ValueError("no timed runs")
    median = statistics.median(times_ms)
    return RunStats(
        n=len(times_ms),
        median_ms=median,
        mean_ms=statistics.fmean(times_ms),
        std_ms=statistics.pstdev(times_ms) if len(times_ms) > 1 else 0.0,
        min_ms=min(times_ms),
        max_ms=max(times_ms),
        mad_ms=statistics.median(abs(t - median) for t in times_ms),
    )


def calibrated_median(times_ms: list[float], refs_ms: list[float], baseline_ms: float) -> float:
    """Median of per-run latencies each scaled by ``baseline / ref`` of the reference probe run
    right after it: a contention burst slows both, so the ratio removes it run by run."""
    if len(times_ms) != len(refs_ms) or not times_ms:
        raise ValueError("one reference probe per timed run is needed")
    return statistics.median(t * baseline_ms / r for t, r in zip(times_ms, refs_ms))
