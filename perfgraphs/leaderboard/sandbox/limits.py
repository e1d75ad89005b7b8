"""The sandboxed harness's limits per seed (:mod:`perfgraphs.leaderboard.sandbox.harness`), in a module of
their own: the command line shows their defaults in ``perfgraphs submit --help``, and building the
parser must not import the harness (and the collector it runs on) for every ``perfgraphs`` command."""

from __future__ import annotations

import math
from dataclasses import dataclass

from perfgraphs.errors import PerfgraphsError

# The largest limits a seed is given: the child turns them into setrlimit values (CPU seconds,
# address space in bytes), which are C longs. `--time-limit-s nan` or `inf` stopped `check` with
# "internal error" there, and `--memory-mb 1e20` made the child fail as if the predictor had
# exited (thirty-sixth pass): a week of one seed and 16 TiB are beyond any leaderboard run.
MAX_SECONDS = 7 * 24 * 3600.0
MAX_MEMORY_MB = 1 << 24


@dataclass(frozen=True)
class Limits:
    time_limit_s: float = 1800.0  # fit + predict of one seed (the submission's import counts)
    memory_mb: int = 8192  # resident set of the predictor's process tree
    startup_s: float = 600.0  # interpreter start and data loading, before the clock starts

    def __post_init__(self) -> None:
        for name, value, most in (("time-limit-s", self.time_limit_s, MAX_SECONDS),
                                  ("memory-mb", self.memory_mb, MAX_MEMORY_MB),
                                  ("startup-s", self.startup_s, MAX_SECONDS)):
            if not _within(value, most):
                raise PerfgraphsError(f"--{name} {_shown(value)}: give a positive number of at most {most:.0f}")
        if not isinstance(self.memory_mb, int):
            raise PerfgraphsError(f"--memory-mb {self.memory_mb}: give a whole number of MB")


def _within(value, most: float) -> bool:
    """A number in (0, most]. An integer is compared as it is: ``math.isfinite`` converts it to a
    float first, and ``--memory-mb`` of 400 digits (argparse reads any integer) stopped `check` with
    "internal error: OverflowError" (thirty-eighth pass); Python compares an int with a float exactly."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return (isinstance(value, int) or math.isfinite(value)) and 0 < value <= most


def _shown(value) -> str:
    """The refused value, shortened: ``str`` of an integer past 4,300 digits raises ValueError."""
    try:
        return str(value)[:40]
    except ValueError:
        return "(an integer of thousands of digits)"
