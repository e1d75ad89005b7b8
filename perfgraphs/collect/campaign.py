"""Run a plan: skip finished configurations, measure the rest in isolated workers, store rows.

Nothing but a corrupt or unwritable store, a locked output directory, an unusable plan or a core
that stays busy stops a campaign: an exception, an out-of-memory kill or a timeout in one
configuration becomes that configuration's row (status ``oom`` or ``error`` with the message) and
the campaign moves on. Before measuring, a campaign waits (``core_wait_s`` at most) until no other
busy process occupies its measuring core (:mod:`perfgraphs.collect.corecheck`).

Drift calibration: the campaign's first reference measurement (taken by the hardware probe when the
output directory is new, and kept in ``campaign.json`` across resumes) is ``ref_baseline_ms``;
each row gets ``latency_calibrated_ms``: on CPU the median over runs of ``run_ms * ref_baseline_ms / probe_ms``
with a short reference probe after every timed run (see :func:`calibrate`); elsewhere the median
scaled by the reference measured before and after the configuration.
"""

from __future__ import annotations

import hashlib
import os
import statistics
import time
from collections import deque
import uuid
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from perfgraphs.collect import gate, worker
from perfgraphs.collect.corecheck import wait_for_core
from perfgraphs.collect.gate import core_busy_share
from perfgraphs.collect.rounds import schedule
from perfgraphs.collect.stats import calibrated_median
from perfgraphs.collect.environment import cpu_model, environment_columns, machine_id, utc_now_iso
from perfgraphs.collect.errors import (CollectError, CorruptStoreFileError, ForeignMachineError,
                                       PlatformUnavailableError, StoreError)
from perfgraphs.collect.isolation import run_isolated
from perfgraphs.collect.plan import ConfigSpec, Plan, estimate_seconds
from perfgraphs.collect.platforms import get_platform
from perfgraphs.collect.store import MeasurementStore, hardware_identity

# MAD/median above which a configuration is measured once more (the less noisy attempt is kept).
# 0.05 re-measured half of all configurations on a shared 2-vCPU VM, 0.10 about one in ten.
SPREAD_THRESHOLD = 0.10
PROBE_TIMEOUT_S = 300
# How long a campaign waits for its core to be free before giving up: a worker left by a campaign
# killed before workers died with theirs runs to the end of its configuration (minutes at most).
CORE_WAIT_S = 120.0
# The quiet gate (perfgraphs.collect.gate): before each configuration the campaign waits up to
# QUIET_WAIT_S for the measuring core to be under QUIET_BUSY_MAX busy; a configuration measured
# while the gate was open goes back REQUEUE_DISTANCE places in the queue, at most MAX_REQUEUES
# times, then is recorded with gate_flagged.
QUIET_WAIT_S = 300.0  # a background campaign should rather wait than re-queue
QUIET_BUSY_MAX = 0.10
REQUEUE_DISTANCE = 8
MAX_REQUEUES = 2


@dataclass
class CampaignOptions:
    out: Path
    limit: int | None = None
    retry_errors: bool = False
    flush_every: int = 25
    spread_threshold: float = SPREAD_THRESHOLD
    core: int | None = None
    platforms: tuple[str, ...] | None = None  # measure only these of the plan's platforms this run
    # other suites' stores whose graph facts (structure hash, GMACs) of the same (model, input)
    # are reused: a GPU machine lent for minutes should time models, not re-extract their graphs
    graph_sources: tuple[Path, ...] = ()
    core_wait_s: float = CORE_WAIT_S
    quiet_wait_s: float = QUIET_WAIT_S
    max_requeues: int = MAX_REQUEUES


@dataclass
class NodeTally:
    """One Ray node's part of a campaign run: rows it measured (by status), attempts lost on it."""

    done: int = 0
    lost: int = 0
    statuses: dict[str, int] = field(default_factory=dict)


@dataclass
class CampaignState:
    """What the progress display needs; updated after every configuration."""

    todo: list[ConfigSpec]  # the configurations with a round left to measure
    skipped_finished: int
    unavailable: dict[str, str]
    estimate_s: float
    peak_gflops: float | None
    done: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    # (configuration, round) in measuring order (perfgraphs.collect.rounds.schedule)
    jobs: list[tuple[ConfigSpec, int]] = field(default_factory=list)
    requeued: int = 0  # measurements the quiet gate sent back to the queue
    flagged: int = 0  # recorded although the gate was still open after MAX_REQUEUES
    nodes: dict[str, NodeTally] = field(default_factory=dict)  # the Ray route's, by "ip/node id"


def calibrate(row: dict, baseline_ms: float) -> float | None:
    """Drift-calibrated latency: run by run when a probe followed every run, else by the
    reference measured before and after the configuration."""
    if row.get("ref_run_ms"):
        return calibrated_median(row["run_times_ms"], row["ref_run_ms"], baseline_ms)
    if row.get("ref_ms"):
        return row["latency_median_ms"] * baseline_ms / row["ref_ms"]
    return None


def cost_scale(store: MeasurementStore, plan: Plan, peak_gflops: float | None) -> float:
    """Ratio of actual to estimated time over finished configurations (1.0 when none)."""
    table = store.read()
    if table.num_rows == 0:
        return 1.0
    by_key = {c.key: c for c in plan.configs}
    actual = estimated = 0.0
    for key, wall in zip(table.column("key").to_pylist(), table.column("worker_wall_s").to_pylist()):
        if key in by_key and wall:
            actual += wall
            estimated += estimate_seconds(by_key[key], peak_gflops)
    return actual / estimated if estimated > 0 else 1.0


def prepare_campaign(plan: Plan, opts: CampaignOptions, store: MeasurementStore,
                     dry_run: bool = False, measured_here: bool = True) -> CampaignState:
    """What is left to measure, and its estimate. ``dry_run``: a platform this machine lacks is
    reported but its configurations are still counted (planning a GPU campaign from a laptop).
    ``measured_here`` False (the Ray route): the cluster's nodes measure, so this machine's
    platforms do not matter."""
    planned = {c.platform for c in plan.configs}
    if opts.platforms is not None and not set(opts.platforms) <= planned:
        raise CollectError(f"plan {plan.name} has no platform {', '.join(sorted(set(opts.platforms) - planned))} "
                           f"(its platforms: {', '.join(sorted(planned))})")
    for source in opts.graph_sources:
        if not MeasurementStore(source).files():
            raise CollectError(f"--graphs-from {source}: no measurement store there")
    finished = store.finished_rounds(retry_errors=opts.retry_errors)
    unavailable: dict[str, str] = {}
    for name in sorted(planned) if measured_here else ():
        try:
            get_platform(name).check_available()
        except PlatformUnavailableError as exc:
            unavailable[name] = str(exc)
    if unavailable and len(unavailable) == len(planned) and not dry_run:
        raise PlatformUnavailableError("; ".join(unavailable.values()))
    wanted = [c for c in plan.configs if (dry_run or c.platform not in unavailable)
              and (opts.platforms is None or c.platform in opts.platforms)]
    if opts.core is not None:
        wanted = [replace(c, core=opts.core) for c in wanted]
    order = schedule(wanted, plan.rounds, kind=plan.schedule, seed=plan.suite, key=lambda c: c.key)
    jobs = [(c, r) for c, r in order if (c.key, r) not in finished]
    if opts.limit is not None:
        jobs = jobs[: opts.limit]
    todo = list({c.key: c for c, _ in jobs}.values())
    warnings: list[str] = []
    peak = None
    for platform in sorted({c.platform for c in todo}):
        try:
            hw = store.hardware(platform)
        except CorruptStoreFileError as exc:
            if not dry_run:
                raise
            warnings.append(f"{exc}; estimating without its measured peak")  # a plan, not a measurement
            continue
        if hw:
            peak = hw.get("peak_gflops_measured")
            break
    scale = cost_scale(store, plan, peak)
    estimate = scale * sum(estimate_seconds(c, peak) for c, _ in jobs)
    return CampaignState(todo=todo, jobs=jobs, skipped_finished=len(
        [c for c in plan.configs if all((c.key, r) in finished for r in range(1, plan.rounds + 1))]),
        unavailable=unavailable, estimate_s=estimate, peak_gflops=peak, warnings=warnings)


def probe_here(platform: str, core: int | None):
    """The hardware probe in an isolated worker on this machine."""
    return run_isolated(worker.probe_main, (platform, core), PROBE_TIMEOUT_S)


def ensure_probe(store: MeasurementStore, meta: dict, platform: str, core: int | None,
                 run_probe: Callable[[str, int | None], object] = probe_here) -> None:
    """Hardware probe + baseline reference (wall and, on CPU, CPU time), once per platform and
    output directory. ``run_probe`` returns an isolation Outcome (the Ray route probes on a node of
    the platform, :mod:`perfgraphs.collect.raycluster`)."""
    device = get_platform(platform).device
    baselines = meta.setdefault("ref_baseline_ms", {})
    cpu_baselines = meta.setdefault("ref_baseline_cpu_ms", {})
    if store.hardware(platform) is not None and device in baselines:
        return  # a missing CPU-time baseline is set by the first row's probe (see judge)
    out = run_probe(platform, core)
    if out.status != "ok" or not out.value.get("ok"):
        raise CollectError(f"hardware probe for {platform} failed: "
                           f"{out.message or out.value.get('error')}")
    probe = out.value["probe"]
    store.save_hardware(platform, probe)
    baselines.setdefault(device, probe["ref_ms"])
    if probe.get("ref_cpu_ms"):
        cpu_baselines.setdefault(device, probe["ref_cpu_ms"])
    store.save_metadata(meta)


def measure_config(config: ConfigSpec, graph: dict | None, env: dict[str, str] | None = None) -> dict:
    """One isolated attempt; a dead or hung worker becomes an error/oom row."""
    started = time.perf_counter()
    out = run_isolated(worker.child_main, (config, graph), config.timeout_s, env=env)
    if out.status == "ok":
        return out.value
    row = worker.base_row(config)
    row.update(environment_columns())
    row.update(status="oom" if out.status == "killed" else "error", error=out.message,
               worker_wall_s=time.perf_counter() - started)
    if graph:
        row.update(graph)
    return row


def measuring_cores(todo: list[ConfigSpec]) -> list[int]:
    """The cores the workers will pin themselves to (as ``platforms.pin_process`` chooses them)."""
    allowed = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    cores = {c.core for c in todo if c.core is not None and not get_platform(c.platform).is_cuda}
    return sorted({core if core in allowed or not allowed else allowed[0] for core in cores})


def measure_with_second_look(config: ConfigSpec, graph: dict | None, spread_threshold: float,
                             env: dict[str, str] | None = None) -> dict:
    """One configuration: measured once, and once more (the less noisy attempt kept) when its
    spread is above ``spread_threshold``."""
    row = measure_config(config, graph, env)
    row["attempts"], row["remeasured"] = 1, False
    if row["status"] == "ok" and _spread_of(row) > spread_threshold:
        second = measure_config(config, _graph_of(row), env)
        if second["status"] == "ok" and _spread_of(second) < _spread_of(row):
            row = second
        row["attempts"], row["remeasured"] = 2, True
    return row


def this_machine() -> str:
    """The hardware identity CPU rows measured here will carry (see store.hardware_identity)."""
    return hardware_identity({"device": "cpu", "machine_id": machine_id(), "cpu_model": cpu_model()})


def claim_store(store: MeasurementStore, meta: dict, jobs: list[tuple[ConfigSpec, int]],
                here: str | None = None) -> None:
    """A suite's rows come from one machine: refuse to add this machine's CPU rows to another's
    store (before anything is measured), and record the identity of a store that has none yet.
    ``here``: the identity of the machine that measures (default this one; on Ray, the nodes')."""
    if not any(not get_platform(c.platform).is_cuda for c, _ in jobs):
        return  # a GPU store is claimed by its first row (the GPU model is known once measured)
    here, owner = here or this_machine(), store.machine()
    if owner and owner != here:
        raise ForeignMachineError(
            f"{store.root} holds the measurements of {owner}, and this is {here}: a suite's labels come "
            f"from one machine; measure into this machine's own store (the default --out does)")
    meta.setdefault("hardware_identity", here)


def wait_quiet(core: int, watch: tuple[int, ...], timeout_s: float, notify: Callable[[str], None]) -> bool:
    """Between configurations: wait (bounded) until nobody uses the measuring core, its SMT
    siblings or the ``watch`` cores; True if quiet. A core that stays busy is measured anyway:
    the gate judges the measurement."""
    deadline = time.monotonic() + timeout_s
    announced = False
    while (share := core_busy_share(core, watch)) > QUIET_BUSY_MAX:
        if time.monotonic() >= deadline:
            notify(f"core {core} still {share:.0%} busy after {timeout_s:g} s; measuring (the gate judges)")
            return False
        if not announced:
            notify(f"core {core} (or a core that slows it: {list(watch)}) is {share:.0%} busy: "
                   f"waiting up to {timeout_s:g} s for quiet")
            announced = True
        time.sleep(1.0)
    return True


def judge(row: dict, meta: dict, device: str) -> str | None:
    """Complete a CPU row's gate columns with the probe drift; return why the gate was open.

    The drift is against the fastest the probe has run in this store (``ref_baseline_cpu_ms``,
    lowered whenever a configuration's probe median is below it): contention only ever slows a CPU-
    time probe, so the minimum is the quiet core, even if the hardware probe ran on a busy one."""
    if row["status"] != "ok" or not row.get("ref_run_cpu_ms"):
        return None
    probe = statistics.median(row["ref_run_cpu_ms"])
    baselines = meta.setdefault("ref_baseline_cpu_ms", {})
    if not baselines.get(device) or probe < baselines[device]:
        baselines[device] = probe
    row["ref_baseline_cpu_ms"] = baselines[device]
    row["gate_probe_drift_pct"] = 100 * (probe / baselines[device] - 1)
    reason = gate.verdict(row)
    row["gate_open"], row["gate_reason"] = reason is not None, reason
    return reason


def _spread_of(row: dict) -> float:
    """The within-configuration spread that decides a second attempt: of CPU time where measured."""
    if row.get("cpu_time_ms"):
        return (row.get("cpu_time_mad_ms") or 0.0) / row["cpu_time_ms"]
    return row["latency_spread"]


class RowSink:
    """The driver's side of a campaign, shared by the local and the Ray route: it opens the
    campaign's record in ``campaign.json``, completes each measured row (drift calibration, the
    quiet gate's verdict) and is the only writer of the store."""

    def __init__(self, plan: Plan, opts: CampaignOptions, state: CampaignState, store: MeasurementStore,
                 on_result: Callable[[ConfigSpec, dict, CampaignState], None] | None = None,
                 here: str | None = None, run_extra: dict | None = None):
        self.plan, self.opts, self.state, self.store, self.on_result = plan, opts, state, store, on_result
        self.campaign_id = uuid.uuid4().hex[:12]
        self.meta = store.metadata()
        claim_store(store, self.meta, state.jobs, here)
        if self.meta.get("suite") not in (None, plan.suite):  # its rows would not belong (collect.belonging)
            raise StoreError(f"{store.root} holds the suite {self.meta['suite']!r}, and plan {plan.name} measures "
                             f"{plan.suite!r}: measure into that suite's own store (--out DIR)")
        self.meta.setdefault("suite", plan.suite)
        self.meta.setdefault("created_at_utc", utc_now_iso())
        self.run = {
            "campaign_id": self.campaign_id, "plan": plan.path, "started_at_utc": utc_now_iso(),
            "plan_sha256": hashlib.sha256(Path(plan.path).read_bytes()).hexdigest() if plan.path else None,
            "todo": len(state.jobs), "rounds": plan.rounds, "spread_threshold": opts.spread_threshold,
            **(run_extra or {})}
        self.meta.setdefault("runs", []).append(self.run)
        store.save_metadata(self.meta)
        self.graphs: dict[tuple[str, str], dict] = {}
        self.since_flush = 0

    def probe(self, run_probe: Callable[[str, int | None], object] = probe_here) -> None:
        for platform in sorted({c.platform for c in self.state.todo}):
            ensure_probe(self.store, self.meta, platform,
                         next(c.core for c in self.state.todo if c.platform == platform), run_probe)
        self.graphs = known_graphs(self.store, self.opts.graph_sources)

    def watched(self, platform: str) -> tuple[int, ...]:
        return tuple((self.store.hardware(platform) or {}).get("interfering_cores") or ())

    def judge(self, config: ConfigSpec, row: dict) -> str | None:
        """Calibrate a measured row; the reason the quiet gate was open while it was measured."""
        if _graph_of(row).get("structure_hash"):
            self.graphs[(config.model, config.input_label)] = _graph_of(row)
        device = get_platform(config.platform).device
        baseline = self.meta["ref_baseline_ms"].get(device)
        row["ref_baseline_ms"] = baseline
        if row["status"] == "ok" and baseline:
            row["latency_calibrated_ms"] = calibrate(row, baseline)
        return judge(row, self.meta, device)

    def write(self, config: ConfigSpec, row: dict, rnd: int, requeues: int, reason: str | None) -> None:
        gated = config.protocol.quiet_gate
        row.update(campaign_id=self.campaign_id, plan_name=self.plan.name, round=rnd, gate_requeues=requeues,
                   gate_flagged=bool(reason) and gated)
        state, store, meta = self.state, self.store, self.meta
        state.flagged += row["gate_flagged"]
        store.append(row)
        if row.get("gate_probe_drift_pct") == 0.0:
            store.save_metadata(meta)  # this row's probe lowered the store's baseline
        if not meta.get("hardware_identity") and hardware_identity(row):
            meta["hardware_identity"] = hardware_identity(row)  # a GPU store: claimed by its first row
            store.save_metadata(meta)
        state.done += 1
        state.statuses[row["status"]] = state.statuses.get(row["status"], 0) + 1
        self.since_flush += 1
        if self.since_flush >= self.opts.flush_every:
            self.flush()
        if self.on_result:
            self.on_result(config, row, state)

    def flush(self) -> None:
        self.store.compact()
        self.since_flush = 0

    def save_meta(self) -> None:
        self.store.save_metadata(self.meta)


def run_campaign(plan: Plan, opts: CampaignOptions, state: CampaignState, store: MeasurementStore,
                 on_result: Callable[[ConfigSpec, dict, CampaignState], None] | None = None,
                 notify: Callable[[str], None] = print) -> CampaignState:
    for core in measuring_cores(state.todo):  # before anything is measured, the probe included
        wait_for_core(core, opts.core_wait_s, notify)
    sink = RowSink(plan, opts, state, store, on_result)
    sink.probe()
    watched = {p: sink.watched(p) for p in {c.platform for c in state.todo}}
    queue = deque((config, rnd, 0) for config, rnd in state.jobs)
    while queue:
        config, rnd, requeues = queue.popleft()
        plat = get_platform(config.platform)
        gated = config.protocol.quiet_gate
        if not plat.is_cuda:
            config = replace(config, watch_cores=watched[config.platform])
            for core in measuring_cores([config]) if gated else ():
                wait_quiet(core, config.watch_cores, opts.quiet_wait_s, notify)
        graph = sink.graphs.get((config.model, config.input_label))
        row = measure_with_second_look(config, graph, opts.spread_threshold)
        reason = sink.judge(config, row)
        if reason and gated and requeues < opts.max_requeues:
            # measured while the machine was not quiet: measure it again later, in a new worker
            state.requeued += 1
            queue.insert(min(len(queue), REQUEUE_DISTANCE), (config, rnd, requeues + 1))
            notify(f"gate open ({reason}): {config.describe()} round {rnd} re-queued "
                   f"({requeues + 1}/{opts.max_requeues})")
            continue
        sink.write(config, row, rnd, requeues, reason)
    sink.flush()
    return state


def _graph_of(row: dict) -> dict:
    return {k: row.get(k) for k in ("structure_hash", "graph_gmacs_per_sample", "graph_error")
            if row.get(k) is not None}


def known_graphs(store: MeasurementStore, sources: tuple[Path, ...] = ()) -> dict[tuple[str, str], dict]:
    """Graph facts by (model, input) from the sources' stores, then the campaign's own (which win)."""
    graphs: dict[tuple[str, str], dict] = {}
    for source in (*sources, store.root):
        graphs.update(_known_graphs(MeasurementStore(source)))
    return graphs


def _known_graphs(store: MeasurementStore) -> dict[tuple[str, str], dict]:
    table = store.read(latest=False)
    out = {}
    for r in table.select(["model", "input", "structure_hash", "graph_gmacs_per_sample"]).to_pylist():
        if r["structure_hash"]:
            out[(r["model"], r["input"])] = {"structure_hash": r["structure_hash"],
                                             "graph_gmacs_per_sample": r["graph_gmacs_per_sample"]}
    return out
