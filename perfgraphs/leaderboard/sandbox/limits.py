"""The sandboxed harness's limits per seed (:mod:`perfgraphs.leaderboard.sandbox.harness`), in a module of
their own: the command line shows their defaults in ``perfgraphs submit --help``, and building the
parser must not import the harness (and the collector it runs on) for every ``perfgraphs`` command."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    time_limit_s: float = 1800.0  # fit + predict of one seed (the submission's import counts)
    memory_mb: int = 8192  # resident set of the predictor's process tree
    startup_s: float = 600.0  # interpreter start and data loading, before the clock starts
