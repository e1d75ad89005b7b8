"""Measurement protocols: how many warm-up and timed iterations a configuration gets.

The GPU protocols are the research's (DIPPM 5+30, TraPPM 55 with 5 warm-up, LLM 100+300). One CPU
core is one to two orders of magnitude slower, so the CPU protocols add a time budget: timing stops
once ``timed_runs`` runs are done OR ``timed_budget_s`` seconds of timed work have accumulated,
but never before ``min_timed_runs`` runs. Warm-up follows the same rule. The number of runs actually
made is stored with every measurement (``n_timed_runs``, ``n_warmup_runs``), so a dataset can filter
on it.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfgraphs.collect.errors import PlanError
from perfgraphs.registry import DIPPM, TRAPPM


@dataclass(frozen=True)
class Protocol:
    name: str
    warmup_runs: int
    timed_runs: int
    min_warmup_runs: int | None = None  # None: exactly warmup_runs (no budget)
    warmup_budget_s: float | None = None
    min_timed_runs: int | None = None
    timed_budget_s: float | None = None
    cooldown_s: float = 0.0  # pause before a config (GPU protocols: let clocks settle)
    # the campaign waits for quiet before each configuration and re-queues one measured while the
    # quiet gate was open (perfgraphs.collect.gate); every CPU row records the gate either way
    quiet_gate: bool = False
    # the reference probe after every timed run (per-run drift calibration of wall time), or only
    # PROBE_SAMPLES times before and after the timed runs: a probe between runs evicts the model's
    # data from the core's caches, which made mobilenetv3_small_100 (128 px) 17 % slower in CPU time
    probe_each_run: bool = True
    # the row column that is this protocol's label: the median wall time of the timed runs, or (the
    # CPU-time protocols) their thread CPU time. A dataset whose target is wall-clock latency takes
    # rows of the first kind only: the other's timed runs are fewer and budgeted differently.
    label: str = "latency_median_ms"

    def keep_warming(self, count: int, elapsed_s: float) -> bool:
        return _keep(count, elapsed_s, self.warmup_runs, self.min_warmup_runs, self.warmup_budget_s)

    def keep_timing(self, count: int, elapsed_s: float) -> bool:
        return _keep(count, elapsed_s, self.timed_runs, self.min_timed_runs, self.timed_budget_s)


def _keep(count: int, elapsed_s: float, target: int, minimum: int | None, budget: float | None) -> bool:
    if count >= target:
        return False
    if budget is None or minimum is None:
        return True
    return count < minimum or elapsed_s < budget


PROTOCOLS: dict[str, Protocol] = {
    p.name: p
    for p in (
        # The research protocols, unchanged (GPU platforms).
        Protocol(DIPPM, warmup_runs=5, timed_runs=30),
        Protocol(TRAPPM, warmup_runs=5, timed_runs=50),  # 55 iterations, first 5 warm-up
        Protocol("llm", warmup_runs=100, timed_runs=300, cooldown_s=5.0),
        # CPU variants: same targets, bounded by a time budget (see module docstring).
        Protocol("dippm-cpu", 5, 30, min_warmup_runs=2, warmup_budget_s=2.0,
                 min_timed_runs=5, timed_budget_s=3.0),
        Protocol("trappm-cpu", 5, 50, min_warmup_runs=2, warmup_budget_s=2.0,
                 min_timed_runs=5, timed_budget_s=4.0),
        Protocol("llm-cpu", 10, 30, min_warmup_runs=2, warmup_budget_s=2.0,
                 min_timed_runs=5, timed_budget_s=4.0),
        # CPU-time protocols (cpu_time_ms is the label): a thread's CPU time varies far less from
        # run to run than its wall time, so fewer runs do; every configuration is measured in
        # several rounds instead (the plan's ``rounds``), which is what the noise floor needs.
        # Measured on this project's 2-vCPU EPYC VM with the other vCPU quiet: two rounds of one
        # configuration agreed within 0.1-1 % (efficientnet_b0 160 px b1: 48.84 / 48.90 ms), so
        # 3 timed runs or 1 s suffice; the time goes into the second round instead.
        Protocol("dippm-cputime", 3, 10, min_warmup_runs=1, warmup_budget_s=0.5,
                 min_timed_runs=3, timed_budget_s=1.0, quiet_gate=True,
                 probe_each_run=False, label="cpu_time_ms"),
        Protocol("trappm-cputime", 3, 10, min_warmup_runs=1, warmup_budget_s=0.5,
                 min_timed_runs=3, timed_budget_s=1.0, quiet_gate=True,
                 probe_each_run=False, label="cpu_time_ms"),
        Protocol("llm-cputime", 5, 10, min_warmup_runs=1, warmup_budget_s=0.5,
                 min_timed_runs=3, timed_budget_s=1.0, quiet_gate=True,
                 probe_each_run=False, label="cpu_time_ms"),
        # For tests and smoke runs: a handful of iterations, no budget so n is exact.
        Protocol("tiny", warmup_runs=1, timed_runs=3),
    )
}


def get_protocol(name: str) -> Protocol:
    try:
        return PROTOCOLS[name]
    except KeyError:
        raise PlanError(f"unknown protocol {name!r} (known: {', '.join(PROTOCOLS)})") from None
