"""A campaign fanned out over a Ray cluster (``perfgraphs collect PLAN --ray [ADDRESS]``).

What stays as on the local path: each configuration is measured in its own isolated worker process
with its timeout (:func:`perfgraphs.collect.campaign.measure_with_second_look`, now inside a Ray
task on a node), and the driver, this process, is the only writer of the store
(:class:`perfgraphs.collect.campaign.RowSink`: parts, shards, checksums, the lock). What Ray does:
placing the tasks. The driver submits the configurations still to do; a task asks for what its
platform measures on, so Ray runs it only on a node that has it:

* every task: ``perfgraphs-platform:<platform>`` (a label: 0.001 of it) and the store's hardware,
  ``perfgraphs-machine:<machine id>`` on CPU platforms, ``perfgraphs-gpu:<GPU model>`` on CUDA ones;
* a CPU task: one ``perfgraphs-cpu-cores`` slot and one Ray CPU; on the node it takes the first
  free of the node's measuring cores (``perfgraphs-core:<n>``, a lock file per core) and pins its
  worker there, as ``--core`` does on the local path;
* a GPU task: ``num_gpus=1``; the GPU Ray gave it travels to the worker (CUDA_VISIBLE_DEVICES).

A node declares these resources when it joins, from its own hardware probe:
``ray start --address=HEAD --resources="$(perfgraphs collect node-resources)"``.

Faults. A task whose node dies (or whose Ray worker crashes) comes back as a Ray error: the driver
submits it again, up to ``ray_retries`` times, then stores an ``error`` row saying so (the campaign
moves on; ``--retry-errors`` measures it again). A configuration that hangs is stopped by its
worker's timeout, as locally; a task that does not come back long after that (a stuck node) is
cancelled and counted as a failure. A driver that is killed takes its tasks with it (Ray ends the
tasks of a dead owner, and each measuring worker dies with its task's process,
:mod:`perfgraphs.collect.lifeline`); rows already written stay, and a resumed driver measures what
the store's ``finished_rounds`` does not hold, nothing twice. Lost attempts are recorded per node
in ``campaign.json`` (this run's ``ray.lost``), which ``perfgraphs collect status`` shows.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import re
import socket
import tempfile
import time
from collections import deque
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from perfgraphs.collect.campaign import (CampaignOptions, CampaignState, NodeTally, RowSink, ensure_probe,
                                         known_graphs, measure_with_second_look, wait_quiet)
from perfgraphs.collect.corecheck import wait_for_core
from perfgraphs.collect.environment import cpu_model, environment_columns, machine_id, utc_now_iso
from perfgraphs.collect.errors import CollectError, PlatformUnavailableError
from perfgraphs.collect.isolation import Outcome
from perfgraphs.collect.plan import ConfigSpec, Plan
from perfgraphs.collect.platforms import DEFAULT_CPU_CORE, PLATFORMS, get_platform
from perfgraphs.collect.store import MeasurementStore, hardware_identity

INSTALL_HINT = "the --ray route needs Ray: pip install -e '.[ray]' (or pip install 'perfgraphs[ray]')"
PLATFORM_RESOURCE = "perfgraphs-platform:"
MACHINE_RESOURCE = "perfgraphs-machine:"
GPU_RESOURCE = "perfgraphs-gpu:"
CORE_RESOURCE = "perfgraphs-core:"
CPU_SLOTS = "perfgraphs-cpu-cores"
LABEL = 0.001  # how much of a label resource a task asks for: selects nodes, never limits them
RAY_RETRIES = 2  # submissions of a configuration after the first that a lost task may cost
NODE_WAIT_S = 300.0  # how long the driver waits for a node of a platform when none is alive
# a task that has not come back this long after its worker's own limits (timeout, second look,
# core and quiet waits) is taken for stuck (a node cut off, a wedged raylet) and cancelled
STUCK_SLACK_S = 300.0


class RayUnavailableError(CollectError):
    """Ray is not installed, or no Ray cluster answers at the address given."""


class ClusterMismatchError(CollectError):
    """The cluster has no node, or more than one kind of node, that can serve the plan's store."""


class NodeTaskError(CollectError):
    """A task that failed on its node before or around measuring (no free core, a busy core),
    naming the node, so that the driver can count the loss against it."""


def import_ray():
    try:
        import ray
    except ImportError:
        raise RayUnavailableError(INSTALL_HINT) from None
    return ray


def gpu_slug(name: str) -> str:
    """``NVIDIA H200`` -> ``nvidia-h200``: a GPU model as a resource name."""
    return "-".join(re.findall(r"[a-z0-9]+", name.lower()))


# -- what a node declares ------------------------------------------------------------------------

def node_resources(platforms: list[str] | None = None, cores: list[int] | None = None) -> dict[str, float]:
    """The custom resources this machine offers a campaign, from its hardware probe: the platforms
    it can run (``check_available``), its machine id, its GPU model, its measuring cores."""
    names = platforms or list(PLATFORMS)
    available = []
    for name in names:
        try:
            get_platform(name).check_available()
            available.append(name)
        except PlatformUnavailableError:
            if platforms:
                raise
    resources: dict[str, float] = {f"{PLATFORM_RESOURCE}{p}": 1.0 for p in available}
    resources[f"{MACHINE_RESOURCE}{machine_id()}"] = 1.0
    if any(not get_platform(p).is_cuda for p in available):
        allowed = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else [DEFAULT_CPU_CORE]
        chosen = cores or [DEFAULT_CPU_CORE if DEFAULT_CPU_CORE in allowed else allowed[0]]
        bad = sorted(set(chosen) - set(allowed))
        if bad:
            raise CollectError(f"cores {bad} are not usable here (usable: {allowed})")
        resources[CPU_SLOTS] = float(len(chosen))
        resources.update({f"{CORE_RESOURCE}{c}": 1.0 for c in chosen})
    if any(get_platform(p).is_cuda for p in available):
        import torch

        for i in range(torch.cuda.device_count()):
            key = f"{GPU_RESOURCE}{gpu_slug(torch.cuda.get_device_name(i))}"
            resources[key] = resources.get(key, 0.0) + 1.0
    return resources


# -- what runs on a node --------------------------------------------------------------------------

def node_provenance() -> dict:
    import ray

    return {"node_id": ray.get_runtime_context().get_node_id(), "node_ip": ray.util.get_node_ip_address()}


def node_cores() -> list[int]:
    """This node's measuring cores, as it declared them (``perfgraphs-core:<n>`` resources)."""
    import ray

    here = ray.get_runtime_context().get_node_id()
    for node in ray.nodes():
        if node["NodeID"] == here:
            return sorted(int(k[len(CORE_RESOURCE):]) for k in node["Resources"] if k.startswith(CORE_RESOURCE))
    return []


@contextlib.contextmanager
def claimed_core(cores: list[int], wait_s: float = 60.0):
    """The first of ``cores`` no other task of this host measures on (a lock file per core: Ray
    counts the node's measuring slots, the lock says which core a task has)."""
    if not cores:
        raise CollectError("this node declares no measuring core (perfgraphs-core:<n>)")
    deadline = time.monotonic() + wait_s
    while True:
        for core in cores:
            fd = os.open(os.path.join(tempfile.gettempdir(), f"perfgraphs-core-{core}.lock"),
                         os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            try:
                yield core
            finally:
                os.close(fd)
            return
        if time.monotonic() > deadline:
            raise CollectError(f"all measuring cores {cores} of this node stayed taken for {wait_s:g} s")
        time.sleep(0.2)


def measure_on_node(config: ConfigSpec, graph: dict | None, spread_threshold: float,
                    core_wait_s: float, quiet_wait_s: float) -> dict:
    """The body of a Ray task: one configuration in an isolated worker on this node."""
    import ray

    node = node_provenance()
    try:
        if get_platform(config.platform).is_cuda:
            gpus = ray.get_gpu_ids()
            env = {"CUDA_VISIBLE_DEVICES": ",".join(str(g) for g in gpus)} if gpus else None
            row = measure_with_second_look(config, graph, spread_threshold, env)
        else:
            with claimed_core(node_cores()) as core:
                config = replace(config, core=core)
                wait_for_core(core, core_wait_s, notify=lambda _: None)
                if config.protocol.quiet_gate:
                    wait_quiet(core, config.watch_cores, quiet_wait_s, notify=lambda _: None)
                row = measure_with_second_look(config, graph, spread_threshold)
    except Exception as exc:  # the node's fault, not the configuration's: the driver retries it
        raise NodeTaskError(f"on node {node['node_id']} ({node['node_ip']}): {type(exc).__name__}: {exc}") from None
    row.update(node)
    return row


def probe_on_node(platform: str) -> Outcome:
    """The hardware probe on this node, in an isolated worker, pinned like its measurements."""
    from perfgraphs.collect import worker
    from perfgraphs.collect.campaign import PROBE_TIMEOUT_S
    from perfgraphs.collect.isolation import run_isolated

    import ray

    if get_platform(platform).is_cuda:
        gpus = ray.get_gpu_ids()
        env = {"CUDA_VISIBLE_DEVICES": ",".join(str(g) for g in gpus)} if gpus else None
        return run_isolated(worker.probe_main, (platform, None), PROBE_TIMEOUT_S, env=env)
    with claimed_core(node_cores()) as core:
        return run_isolated(worker.probe_main, (platform, core), PROBE_TIMEOUT_S)


def facts_of_node() -> dict:
    """Who a node is: its machine identity as the store records it."""
    return {"machine_id": machine_id(), "cpu_model": cpu_model(), **node_provenance(),
            "identity": hardware_identity({"device": "cpu", "machine_id": machine_id(), "cpu_model": cpu_model()})}


# -- the driver -----------------------------------------------------------------------------------

@dataclass
class Target:
    """Where one platform's tasks may run: the resources they ask for."""

    platform: str
    resources: dict[str, float]
    num_cpus: float
    num_gpus: float
    slot_key: str  # the resource that counts how many of its tasks a node runs at once
    hardware_key: str

    def capacity(self, nodes: list[dict]) -> int:
        """Tasks the alive nodes can run at once."""
        total = 0.0
        for n in nodes:
            r = n["Resources"]
            if n["Alive"] and all(k in r for k in self.resources):
                total += r.get(self.slot_key, 0.0)
        return int(total)


def node_label(node_ip: str | None, node_id: str | None) -> str:
    return f"{node_ip or '?'}/{(node_id or '?')[:8]}"


class RayCampaign:
    def __init__(self, address: str | None, notify: Callable[[str], None] = print):
        self.ray = import_ray()
        self.address = address or os.environ.get("RAY_ADDRESS") or "auto"
        self.notify = notify
        self._check_reachable()
        try:
            self.ray.init(address=self.address, log_to_driver=False, logging_level=logging.ERROR,
                          configure_logging=True, include_dashboard=False)
        except Exception as exc:  # ConnectionError, ValueError, RuntimeError: one line for the operator
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
            raise RayUnavailableError(
                f"no Ray cluster at {self.address} ({first}); start one with `ray start --head "
                f"--resources=\"$(perfgraphs collect node-resources)\"` or give its address") from None
        remote = self.ray.remote
        self._measure = remote(max_retries=0)(measure_on_node)
        self._probe = remote(max_retries=0)(probe_on_node)
        self._facts = remote(max_retries=0, num_cpus=0)(facts_of_node)
        self._nodes_at = 0.0
        self._nodes: list[dict] = []

    def _check_reachable(self, timeout_s: float = 5.0) -> None:
        """A GCS that does not answer: one line now. ray.init retries an unreachable address for
        many minutes (20 tries of ~40 s) before it gives up."""
        address = self.address
        if address == "auto":  # what ray.init("auto") reads: the last cluster started on this machine
            recorded = Path(tempfile.gettempdir()) / "ray" / "ray_current_cluster"
            address = recorded.read_text().strip() if recorded.exists() else ""
        host, _, port = address.rpartition(":")
        if address.startswith("ray://") or not host or not port.isdigit():
            return  # Ray client addresses and anything else: ray.init says what is wrong
        hosts = [host]
        if host in ("127.0.0.1", "localhost", "::1"):  # Ray connects to this machine's address instead
            hosts.append(self.ray.util.get_node_ip_address())
        for candidate in hosts:
            try:
                socket.create_connection((candidate, int(port)), timeout=timeout_s).close()
                return
            except OSError:
                continue
        raise RayUnavailableError(
            f"no Ray cluster answers at {address} (nothing accepts connections there); start one with "
            f"`ray start --head --resources=\"$(perfgraphs collect node-resources)\"` or give its address")

    def nodes(self, fresh: bool = False) -> list[dict]:
        if fresh or time.monotonic() - self._nodes_at > 1.0:
            self._nodes = self.ray.nodes()
            self._nodes_at = time.monotonic()
        return self._nodes

    def shutdown(self) -> None:
        self.ray.shutdown()

    # -- where each platform runs --------------------------------------------------------------
    def targets(self, platforms: list[str], store: MeasurementStore, machine: str | None) -> dict[str, Target]:
        nodes = [n for n in self.nodes(fresh=True) if n["Alive"]]
        owner = store.machine()
        out = {}
        for name in platforms:
            plat = get_platform(name)
            offering = [n for n in nodes if f"{PLATFORM_RESOURCE}{name}" in n["Resources"]]
            prefix = GPU_RESOURCE if plat.is_cuda else MACHINE_RESOURCE
            kinds = sorted({k[len(prefix):] for n in offering for k in n["Resources"] if k.startswith(prefix)})
            if owner and (owner.startswith("gpu ") == plat.is_cuda):
                wanted = gpu_slug(owner[4:]) if plat.is_cuda else re.search(r"\(machine ([^)]+)\)", owner).group(1)
                why = f"the store {store.root} holds measurements of {owner}"
            elif machine:
                wanted, why = machine, "--machine"
            elif len(kinds) == 1:
                wanted, why = kinds[0], ""
            elif not kinds:
                raise ClusterMismatchError(
                    f"no alive node of the Ray cluster offers platform {name}: start nodes with "
                    f"`ray start --address=... --resources=\"$(perfgraphs collect node-resources)\"`")
            else:
                raise ClusterMismatchError(
                    f"the cluster's nodes for {name} are {len(kinds)} kinds of hardware ({', '.join(kinds)}) "
                    f"and a store holds one: choose with --machine ID (and one --out per kind)")
            if wanted not in kinds and offering:
                raise ClusterMismatchError(
                    f"no alive node for {name} is {wanted} ({why or 'requested'}); the cluster offers "
                    f"{', '.join(kinds) or 'none'}")
            hardware_key = f"{prefix}{wanted}"
            resources = {f"{PLATFORM_RESOURCE}{name}": LABEL, hardware_key: LABEL}
            if plat.is_cuda:
                out[name] = Target(name, resources, 0, 1, "GPU", hardware_key)
            else:
                out[name] = Target(name, {**resources, CPU_SLOTS: 1.0}, 1, 0, CPU_SLOTS, hardware_key)
        return out

    def identity(self, target: Target) -> str:
        """The hardware identity (store.hardware_identity) of the nodes a CPU target runs on,
        as a node itself reports it, and checked against the machine id it declared."""
        facts = self.ray.get(self._facts.options(resources={target.hardware_key: LABEL}).remote(), timeout=120)
        declared = target.hardware_key[len(MACHINE_RESOURCE):]
        if facts["machine_id"] != declared:
            raise ClusterMismatchError(
                f"node {node_label(facts['node_ip'], facts['node_id'])} declares machine {declared} but "
                f"probes as {facts['machine_id']}: restart it with --resources=\"$(perfgraphs collect node-resources)\"")
        return facts["identity"]

    def probe(self, target: Target) -> Callable[[str, int | None], Outcome]:
        def run(platform: str, core: int | None) -> Outcome:
            ref = self._probe.options(resources=target.resources, num_cpus=target.num_cpus,
                                      num_gpus=target.num_gpus).remote(platform)
            try:
                return self.ray.get(ref, timeout=600)
            except Exception as exc:
                return Outcome(None, "crashed", f"probe task on the Ray cluster failed: {_first_line(exc)}")
        return run

    def submit(self, target: Target, config: ConfigSpec, graph: dict | None, opts: CampaignOptions):
        return self._measure.options(resources=target.resources, num_cpus=target.num_cpus,
                                     num_gpus=target.num_gpus).remote(
            config, graph, opts.spread_threshold, opts.core_wait_s, opts.quiet_wait_s)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    lines = [ln for ln in text.splitlines() if ln.strip()]
    # a RayTaskError's text starts with a header line; its last line names the actual exception
    line = lines[-1] if lines and type(exc).__name__.startswith("RayTaskError") else (lines[0] if lines else "")
    return f"{type(exc).__name__}: {line.strip()}"[:300]


def _node_of(exc: BaseException) -> str | None:
    """The node id a Ray error names (a node's death does), if any."""
    found = re.search(r"\b([0-9a-f]{56})\b", str(exc))
    return found.group(1) if found else None


@dataclass
class Job:
    config: ConfigSpec
    rnd: int
    requeues: int = 0
    failures: list[str] = field(default_factory=list)
    submitted: float = 0.0


@dataclass
class _RayDispatch:
    """The driver's loop on the Ray route: the jobs queued, the tasks in flight, the platforms
    waiting for a node (or given up on), and where each result or lost attempt goes."""

    cluster: RayCampaign
    targets: dict[str, Target]
    sink: RowSink
    opts: CampaignOptions
    state: CampaignState
    queue: deque[Job]
    watched: dict[str, tuple[int, ...]]
    stuck_after: dict[str, float]
    lost_log: list[dict]
    notify: Callable[[str], None]
    retries: int
    node_wait_s: float
    in_flight: dict[object, Job] = field(default_factory=dict)
    starved_since: dict[str, float] = field(default_factory=dict)
    given_up: set[str] = field(default_factory=set)

    def lose(self, job: Job, why: str, node_id: str | None) -> None:
        label = node_label(_ip_of(self.cluster, node_id), node_id) if node_id else "?"
        self.state.nodes.setdefault(label, NodeTally()).lost += 1
        job.failures.append(why)
        self.lost_log.append({"key": job.config.key, "round": job.rnd, "node": label, "reason": why,
                              "at_utc": utc_now_iso()})
        self.sink.save_meta()
        if len(job.failures) <= self.retries:
            self.notify(f"lost on node {label}: {job.config.describe()} round {job.rnd} ({why}); "
                        f"submitting again ({len(job.failures)}/{self.retries})")
            self.queue.appendleft(job)
            return
        self.notify(f"lost {len(job.failures)} times: {job.config.describe()} round {job.rnd}; stored as error")
        row = _lost_row(job)
        self.sink.judge(job.config, row)
        self.sink.write(job.config, row, job.rnd, job.requeues, None)

    def top_up(self, nodes: list[dict]) -> None:
        """Each platform gets as many tasks as its alive nodes run at once, plus one waiting in
        Ray's queue so a node never idles between two configurations."""
        for platform, target in self.targets.items():
            if platform in self.given_up:
                continue
            capacity = target.capacity(nodes)
            if capacity == 0 and any(j.config.platform == platform for j in self.queue):
                self._wait_for_node(platform)
                continue
            self.starved_since.pop(platform, None)
            running = sum(1 for j in self.in_flight.values() if j.config.platform == platform)
            for job in [j for j in self.queue if j.config.platform == platform][: max(0, capacity + 1 - running)]:
                self.queue.remove(job)
                config = job.config
                if not get_platform(platform).is_cuda:
                    config = replace(config, watch_cores=self.watched[platform])
                job.submitted = time.monotonic()
                ref = self.cluster.submit(target, config, self.sink.graphs.get((config.model, config.input_label)),
                                          self.opts)
                self.in_flight[ref] = job

    def _wait_for_node(self, platform: str) -> None:
        """No alive node offers ``platform``: wait up to ``node_wait_s``, then drop its jobs with a warning."""
        if platform not in self.starved_since:
            self.notify(f"no alive node offers {platform}: waiting up to {self.node_wait_s:g} s for one")
        since = self.starved_since.setdefault(platform, time.monotonic())
        if time.monotonic() - since > self.node_wait_s:
            left = [j for j in self.queue if j.config.platform == platform]
            for j in left:
                self.queue.remove(j)
            self.given_up.add(platform)
            self.state.warnings.append(f"{platform}: no alive node for {self.node_wait_s:g} s; "
                                       f"{len(left)} measurements left to do (run the plan again)")
            self.notify(self.state.warnings[-1])

    def collect(self, ready: list) -> None:
        """Store the rows of the finished tasks (or re-queue those the quiet gate flags)."""
        for ref in ready:
            job = self.in_flight.pop(ref)
            try:
                row = self.cluster.ray.get(ref)
            except Exception as exc:  # a lost node or worker, a cancelled or failed task
                self.lose(job, _first_line(exc), _node_of(exc))
                continue
            label = node_label(row.get("node_ip"), row.get("node_id"))
            reason = self.sink.judge(job.config, row)
            if reason and job.config.protocol.quiet_gate and job.requeues < self.opts.max_requeues:
                self.state.requeued += 1
                job.requeues += 1
                self.queue.append(job)
                self.notify(f"gate open on {label} ({reason}): {job.config.describe()} round {job.rnd} "
                            f"re-queued ({job.requeues}/{self.opts.max_requeues})")
                continue
            tally = self.state.nodes.setdefault(label, NodeTally())
            tally.done += 1
            tally.statuses[row["status"]] = tally.statuses.get(row["status"], 0) + 1
            self.sink.write(job.config, row, job.rnd, job.requeues, reason)

    def cancel_stuck(self) -> None:
        now = time.monotonic()
        for ref, job in list(self.in_flight.items()):
            if now - job.submitted > self.stuck_after[job.config.key]:
                self.cluster.ray.cancel(ref, force=True)
                self.in_flight.pop(ref)
                self.lose(job, f"no result {now - job.submitted:.0f} s after submission: cancelled", None)

    def close(self) -> None:
        for ref in self.in_flight:  # Ctrl-C: nothing of this run keeps measuring
            with contextlib.suppress(Exception):
                self.cluster.ray.cancel(ref, force=True)
        self.sink.run["ray"]["nodes"] = {k: {"done": v.done, "lost": v.lost, "statuses": v.statuses}
                                         for k, v in self.state.nodes.items()}
        self.sink.save_meta()
        self.sink.flush()


def run_campaign_on_ray(plan: Plan, opts: CampaignOptions, state: CampaignState, store: MeasurementStore,
                        cluster: RayCampaign, on_result: Callable[[ConfigSpec, dict, CampaignState], None] | None = None,
                        notify: Callable[[str], None] = print, machine: str | None = None,
                        retries: int = RAY_RETRIES, node_wait_s: float = NODE_WAIT_S) -> CampaignState:
    """The Ray route of :func:`perfgraphs.collect.campaign.run_campaign`: same rows, same store."""
    platforms = sorted({c.platform for c in state.todo})
    targets = cluster.targets(platforms, store, machine)
    cpu_targets = [t for t in targets.values() if not get_platform(t.platform).is_cuda]
    here = cluster.identity(cpu_targets[0]) if cpu_targets else None
    lost_log: list[dict] = []
    sink = RowSink(plan, opts, state, store, on_result, here=here,
                   run_extra={"ray": {"address": cluster.address, "lost": lost_log,
                                      "resources": {p: t.resources for p, t in targets.items()}}})
    # the probe of each platform runs on a node of that platform
    for platform, target in targets.items():
        ensure_probe(store, sink.meta, platform, None, cluster.probe(target))
    sink.graphs = known_graphs(store, opts.graph_sources)
    dispatch = _RayDispatch(
        cluster=cluster, targets=targets, sink=sink, opts=opts, state=state,
        queue=deque(Job(c, r) for c, r in state.jobs),
        watched={p: sink.watched(p) for p in platforms},
        stuck_after={c.key: 2 * c.timeout_s + opts.core_wait_s + opts.quiet_wait_s + STUCK_SLACK_S
                     for c in state.todo},
        lost_log=lost_log, notify=notify, retries=retries, node_wait_s=node_wait_s)
    try:
        while dispatch.queue or dispatch.in_flight:
            dispatch.top_up(cluster.nodes())
            if not dispatch.in_flight:
                if dispatch.queue:
                    time.sleep(1.0)
                continue
            ready, _ = cluster.ray.wait(list(dispatch.in_flight), num_returns=1, timeout=1.0)
            dispatch.collect(ready)
            dispatch.cancel_stuck()
    finally:
        dispatch.close()
    return state


def _ip_of(cluster: RayCampaign, node_id: str | None) -> str | None:
    for n in cluster.nodes():
        if n["NodeID"] == node_id:
            return n.get("NodeManagerAddress")
    return None


def _lost_row(job: Job) -> dict:
    """The row of a configuration whose task was lost ``len(job.failures)`` times."""
    from perfgraphs.collect import worker

    row = worker.base_row(job.config)
    row.update(environment_columns())  # the driver's: no node measured it
    row.update(status="error", attempts=len(job.failures), remeasured=False,
               error=f"ray: task lost {len(job.failures)} times; last: {job.failures[-1]}"[:500],
               machine_id=None, cpu_model=None)
    return row
