"""``perfgraphs collect``: run measurement plans, verify stores, probe hardware, measure noise.

    perfgraphs collect PLAN.yaml [--out DIR] [--limit N] [--dry-run] [--core N] [--core-wait S] [--retry-errors]
    perfgraphs collect PLAN.yaml --ray [ADDRESS] [--machine ID] [--ray-retries N] [--node-wait S]
    perfgraphs collect noise-floor PLAN.yaml [--probe N] [--core N] [--out DIR]
    perfgraphs collect verify DIR
    perfgraphs collect inventory DIR
    perfgraphs collect status DIR [--plan PLAN.yaml]
    perfgraphs collect hardware PLATFORM [--core N]
    perfgraphs collect node-resources [--platform NAME ...] [--core N ...]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfgraphs.collect.errors import CollectError
from perfgraphs.registry import CPU_TORCH_FP32

ACTIONS = ("noise-floor", "verify", "inventory", "status", "hardware", "node-resources")


def _number(kind, low: float, inclusive: bool):
    """An argparse type: a number of ``kind`` above ``low`` (or at it, if ``inclusive``); a value
    outside is refused while parsing, in one line, before anything runs (a zero timeout used to
    turn every configuration into an error row)."""
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a{'n integer' if kind is int else ' number'}: {text!r}") from None
        if not (value >= low if inclusive else value > low) or value != value:  # NaN too
            raise argparse.ArgumentTypeError(f"must be {'>=' if inclusive else '>'} {low:g}, got {text}")
        return value
    return parse


def register(subparsers) -> None:
    p = subparsers.add_parser("collect", help="measure latency/memory of plan configurations",
                              description=__doc__.splitlines()[0])
    p.add_argument("target", help=f"a plan YAML file, or one of: {', '.join(ACTIONS)}")
    p.add_argument("arg", nargs="?", help="plan (noise-floor), directory (verify, inventory), platform (hardware)")
    p.add_argument("--out", type=Path, help="output directory (default: this machine's store of the suite, "
                   "data/measurements/<suite>-<cpu>-<machine id> for CPU plans, data/measurements/<suite> "
                   "for GPU plans; noise-floor: data/measurements/noise-floor)")
    p.add_argument("--limit", type=_number(int, 0, True), help="measure at most N configurations this run")
    p.add_argument("--dry-run", action="store_true", help="print the plan and its time estimate only")
    p.add_argument("--core", type=_number(int, 0, True), action="append", dest="cores",
                   help="pin workers to this CPU core (default: the plan's, 1); node-resources: a "
                        "measuring core this node offers (repeatable)")
    p.add_argument("--core-wait", type=_number(float, 0, True), default=None, metavar="SECONDS",
                   help="wait at most this long for the measuring core to be free of other busy "
                        "processes (default 120)")
    p.add_argument("--quiet-wait", type=_number(float, 0, True), default=None, metavar="SECONDS",
                   help="CPU-time protocols: wait at most this long before each configuration for the "
                        "measuring core and the cores that slow it to be quiet (default 300)")
    p.add_argument("--timeout", type=_number(float, 0, False), help="override every configuration's timeout (s)")
    p.add_argument("--retry-errors", action="store_true", help="re-measure configurations that failed")
    p.add_argument("--platform", action="append", dest="platforms", metavar="NAME",
                   help="measure only this platform of the plan this run (repeatable; the rest stay to do)")
    p.add_argument("--graphs-from", action="append", type=Path, default=[], metavar="DIR",
                   help="reuse graph facts (structure hash, GMACs) of the same model and input from "
                        "another suite's store, e.g. data/measurements/dippm-cpu (repeatable)")
    p.add_argument("--flush-every", type=_number(int, 1, True), default=25, help="compact parts into a shard every N")
    p.add_argument("--spread-threshold", type=_number(float, 0, True), default=None,
                   help="re-measure once when MAD/median exceeds this (default 0.10)")
    p.add_argument("--ray", nargs="?", const="auto", default=None, metavar="ADDRESS",
                   help="measure on a Ray cluster (default address: $RAY_ADDRESS, else the local "
                        "cluster); needs the [ray] extra and nodes started with `ray start "
                        "--resources=\"$(perfgraphs collect node-resources)\"`")
    p.add_argument("--machine", metavar="ID",
                   help="--ray: the hardware to measure when the cluster has several kinds for a "
                        "platform (a machine id for CPU platforms, a GPU model slug for CUDA ones)")
    p.add_argument("--ray-retries", type=_number(int, 0, True), default=None, metavar="N",
                   help="--ray: submit a configuration whose task was lost at most N more times "
                        "(default 2), then store it as an error row")
    p.add_argument("--node-wait", type=_number(float, 0, True), default=None, metavar="SECONDS",
                   help="--ray: how long to wait for a node of a platform when none is alive (default 300)")
    p.add_argument("--plan", type=Path, help="status: the plan whose progress to show")
    p.add_argument("--probe", type=_number(int, 1, True), default=20,
                   help="noise-floor: number of probe configurations")
    p.add_argument("--probe-max-s", type=_number(float, 0, False), default=None,
                   help="noise-floor: probe only configurations estimated under this many seconds (default 4)")
    p.set_defaults(func=run)


def run(args) -> int:
    if args.target == "verify":
        return _verify(args)
    if args.target == "inventory":
        return _inventory(args)
    if args.target == "hardware":
        return _hardware(args)
    if args.target == "noise-floor":
        return _noise_floor(args)
    if args.target == "status":
        return _status(args)
    if args.target == "node-resources":
        return _node_resources(args)
    args.core = _one_core(args)
    return _campaign(args)


def _one_core(args) -> int | None:
    if not args.cores:
        return None
    if len(args.cores) > 1:
        raise CollectError("--core: one core for a campaign (several only for node-resources)")
    return args.cores[0]


def _fmt_s(seconds: float) -> str:
    seconds = int(seconds)
    h, rem = divmod(seconds, 3600)
    return f"{h}h{rem // 60:02d}m" if h else f"{rem // 60}m{rem % 60:02d}s"


def _bar_label(name: str, state) -> str:
    label = f"{name} (re-queued {state.requeued})" if state.requeued else name
    if state.nodes:  # the Ray route: each node's measured (and lost) count
        label += " [" + " ".join(f"{k}:{t.done}" + (f"!{t.lost}" if t.lost else "")
                                 for k, t in sorted(state.nodes.items())) + "]"
    return label


def default_store(plan) -> Path:
    """This machine's store of the plan's suite: a CPU suite's labels belong to one machine, so its
    folder names the CPU and the machine (``perfgraphs.collect.store.hardware_identity``)."""
    from perfgraphs.collect.environment import machine_tag
    from perfgraphs.collect.platforms import get_platform

    if all(get_platform(c.platform).is_cuda for c in plan.configs):
        return Path("data/measurements") / plan.suite
    return Path("data/measurements") / f"{plan.suite}-{machine_tag()}"


def _campaign(args) -> int:
    import signal

    from rich.console import Console

    from perfgraphs.collect.plan import load_plan, with_overrides
    from perfgraphs.collect.store import MeasurementStore

    # Ctrl-C / SIGINT stops a campaign cleanly (at most the configuration in flight is lost), also
    # one started in the background, where the shell hands it SIGINT ignored and Python keeps that
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if args.ray is not None and not args.dry_run:
        from perfgraphs.collect.raycluster import import_ray

        import_ray()  # without the extra: one line saying how to install it, before anything else
        if args.core is not None:
            raise CollectError("--core and --ray: on a cluster the measuring cores are the nodes' "
                               "(perfgraphs collect node-resources --core N, when a node joins)")
    plan = with_overrides(load_plan(args.target), timeout_s=args.timeout)
    out = args.out or default_store(plan)
    store = MeasurementStore(out)
    opts = _campaign_options(args, out)
    # A log file (nohup) gets one unwrapped line per configuration; a terminal gets the bar too.
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 240)
    if args.dry_run:
        return _dry_run(plan, opts, store, console)
    with store.lock():
        state = _prepare_locked(args, plan, opts, store, console)
        if not state.todo:
            return 0
        state, started = _measure(args, plan, opts, state, store, console)
    summary = ", ".join(f"{k}={v}" for k, v in sorted(state.statuses.items()))
    console.print(f"done: {state.done} measurements ({summary}; re-queued by the quiet gate "
                  f"{state.requeued}, recorded flagged {state.flagged}) in {_fmt_s(time.monotonic() - started)}")
    for label, tally in sorted(state.nodes.items()):
        console.print(f"  node {label}: {tally.done} measured "
                      f"({', '.join(f'{k}={v}' for k, v in sorted(tally.statuses.items())) or 'none'}), "
                      f"{tally.lost} lost")
    for warning in state.warnings:
        console.print(f"[yellow]{warning}[/]")
    return 0


def _campaign_options(args, out):
    from perfgraphs.collect.campaign import CampaignOptions

    opts = CampaignOptions(out=out, limit=args.limit, retry_errors=args.retry_errors,
                           flush_every=args.flush_every, core=args.core,
                           platforms=tuple(args.platforms) if args.platforms else None,
                           graph_sources=tuple(args.graphs_from))
    if args.spread_threshold is not None:
        opts.spread_threshold = args.spread_threshold
    if args.core_wait is not None:
        opts.core_wait_s = args.core_wait
    if args.quiet_wait is not None:
        opts.quiet_wait_s = args.quiet_wait
    return opts


def _dry_run(plan, opts, store, console) -> int:
    """What a campaign would measure, read-only: no lock (a running campaign may hold it; the
    store's reads tolerate its compactions), nothing created or removed."""
    from perfgraphs.collect.campaign import prepare_campaign

    state = prepare_campaign(plan, opts, store, dry_run=True)
    console.print(f"plan {plan.name}: {len(plan.configs)} configurations × {plan.rounds} round(s) in "
                  f"{len(plan.families)} families; {state.skipped_finished} already finished; "
                  f"{len(state.jobs)} measurements to make → {opts.out}")
    for name, reason in state.unavailable.items():
        console.print(f"[yellow]platform {name} is not available on this machine: {reason}[/]")
    for warning in state.warnings:
        print(f"perfgraphs: warning: {warning}", file=sys.stderr)
    console.print(f"estimated machine time: {_fmt_s(state.estimate_s)} "
                  f"(peak {state.peak_gflops or 'unmeasured'} GFLOP/s)")
    return 0


def _prepare_locked(args, plan, opts, store, console):
    """Under the store's lock: upgrade its record, clear leftovers, and plan what to measure now."""
    from perfgraphs.collect.campaign import prepare_campaign
    from perfgraphs.collect.metafile import FORMAT, META

    if store.upgrade() and store.shard_files():  # a store older than the shard record
        console.print(f"recorded the {len(store.shard_files())} shards of {opts.out} in its {META} "
                      f"(store format {FORMAT}; no data file rewritten)")
    removed = store.remove_leftovers()
    state = prepare_campaign(plan, opts, store, measured_here=args.ray is None)
    console.print(f"plan {plan.name}: {len(plan.configs)} configurations × {plan.rounds} round(s) in "
                  f"{len(plan.families)} families; {state.skipped_finished} already finished; "
                  f"{len(state.jobs)} measurements to make now → {opts.out}")
    for name, reason in state.unavailable.items():
        console.print(f"[yellow]skipping platform {name}: {reason}[/]")
    if removed:
        console.print(f"removed {removed} leftover temp file(s) of an interrupted write")
    console.print(f"estimated machine time: {_fmt_s(state.estimate_s)} "
                  f"(peak {state.peak_gflops or 'unmeasured'} GFLOP/s)")
    return state


@dataclass
class _ResultLine:
    """Called with each finished measurement: moves the bar (and its eta, weighted by the
    estimated seconds of what is done) on and prints one line for it."""

    plan_name: str
    progress: Any
    task: Any
    estimates: dict[str, float]
    total_est: float
    started: float
    done_est: float = 0.0

    def __call__(self, config, row, st) -> None:
        self.done_est += self.estimates[config.key]
        elapsed = time.monotonic() - self.started
        eta = elapsed / self.done_est * (self.total_est - self.done_est) if self.done_est else 0.0
        self.progress.update(self.task, advance=1, eta=_fmt_s(eta), description=_bar_label(self.plan_name, st))
        cpu = f" cpu {row['cpu_time_ms']:.2f} ms" if row.get("cpu_time_ms") is not None else ""
        where = f" @{row['node_ip']}/{row['node_id'][:8]}" if row.get("node_id") else ""
        value = (f"{row['latency_median_ms']:.2f} ms{cpu} n={row['n_timed_runs']} "
                 f"mem={row['peak_memory_mb']:.0f} MB" if row["status"] == "ok"
                 else (row.get("error") or "")[:120])
        flag = f" [gate flagged: {row['gate_reason']}]" if row.get("gate_flagged") else ""
        self.progress.console.print(f"[{st.done}/{len(st.jobs)}] {row['status']:5s} "
                                    f"{config.describe()} r{row['round']}{where}  {value}{flag}  (eta {_fmt_s(eta)})")


def _measure(args, plan, opts, state, store, console):
    """Measure what ``state`` has to do, here or on the Ray cluster, under a progress bar;
    returns the final state and the monotonic time measuring started."""
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                               TimeElapsedColumn)

    from perfgraphs.collect.campaign import run_campaign
    from perfgraphs.collect.plan import estimate_seconds

    cluster = None
    if args.ray is not None:
        from perfgraphs.collect.raycluster import RayCampaign

        cluster = RayCampaign(None if args.ray == "auto" else args.ray, notify=console.print)
        console.print(f"Ray cluster at {cluster.address}: "
                      f"{sum(1 for n in cluster.nodes(fresh=True) if n['Alive'])} alive node(s)")
    estimates = {c.key: estimate_seconds(c, state.peak_gflops) for c in state.todo}
    total_est = sum(estimates[c.key] for c, _ in state.jobs)
    started = time.monotonic()
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), TextColumn("eta {task.fields[eta]}"),
                        console=console, transient=False)
    with progress:
        task = progress.add_task(_bar_label(plan.name, state), total=len(state.jobs), eta="?")
        on_result = _ResultLine(plan.name, progress, task, estimates, total_est, started)
        if cluster is None:
            state = run_campaign(plan, opts, state, store, on_result, notify=progress.console.print)
        else:
            from perfgraphs.collect.raycluster import NODE_WAIT_S, RAY_RETRIES, run_campaign_on_ray

            try:
                state = run_campaign_on_ray(
                    plan, opts, state, store, cluster, on_result, notify=progress.console.print,
                    machine=args.machine, retries=RAY_RETRIES if args.ray_retries is None else args.ray_retries,
                    node_wait_s=NODE_WAIT_S if args.node_wait is None else args.node_wait)
            finally:
                cluster.shutdown()
    return state, started


def _verify(args) -> int:
    from perfgraphs.collect.verify import verify_store

    if not args.arg:
        raise CollectError("usage: perfgraphs collect verify DIR")
    report = verify_store(args.arg)  # raises a one-line StoreError naming the file
    print(report.summary())
    for note in report.notes:
        print(f"note: {note}")
    for line in rounds_summary(Path(args.arg)):
        print(line)
    return 0


def _inventory(args) -> int:
    from perfgraphs.collect.inventory import record_inventory

    if not args.arg:
        raise CollectError("usage: perfgraphs collect inventory DIR")
    written, report = record_inventory(args.arg)
    if written:
        print(f"recorded the {report.shards} shards of {args.arg} in its campaign.json (rows and sha256; "
              f"no data file rewritten)")
    else:
        print(f"{args.arg} already records its shards in its campaign.json")
    print(report.summary())
    return 0


def rounds_summary(root: Path) -> list[str]:
    """Which machine the rows belong to (one, or the store is refused), how many configurations
    have how many ok rounds, per family, the floor between rounds and the split-half agreement."""
    from perfgraphs.collect.errors import ForeignMachineError
    from perfgraphs.collect.floor import round_levels, split_half_of, store_floor
    from perfgraphs.collect.rounds import round_of
    from perfgraphs.collect.store import MeasurementStore, hardware_identity

    store = MeasurementStore(root)
    rows = store.round_rows()
    machines = sorted({m for r in rows if (m := hardware_identity(r))})
    if len(machines) > 1:
        raise ForeignMachineError(f"{root} mixes rows of {len(machines)} machines: {'; '.join(machines)}")
    out = [f"machine: {machines[0]}"] if machines else []
    ok_rounds: dict[str, set[int]] = {}
    family: dict[str, str] = {}
    for r in rows:
        family[r["key"]] = r["family"]
        if r["status"] == "ok" and not r.get("gate_flagged"):
            ok_rounds.setdefault(r["key"], set()).add(round_of(r))
    if not any(len(v) > 1 for v in ok_rounds.values()):
        return out
    per_family: dict[str, int] = {}
    for key, rounds in ok_rounds.items():
        if len(rounds) > 1:
            per_family[family[key]] = per_family.get(family[key], 0) + 1
    out.append(f"configurations with two or more ok rounds: {sum(per_family.values())} "
               f"({', '.join(f'{f} {n}' for f, n in sorted(per_family.items()))})")
    # the drift-calibrated latency too: within one store every row shares the campaign's reference
    # baseline, so its rounds compare like the raw ones (and repeat better on a host whose speed moves)
    targets = ("cpu_time_ms", "latency_ms", "latency_calibrated_ms", "peak_memory_mb")
    for target, floor in store_floor(root, targets).items():
        out.append(f"noise floor {target}: {floor.mape_pct:.2f} % MAPE between rounds "
                   f"(median {floor.median_ape_pct:.2f} %, p95 {floor.p95_ape_pct:.2f} %, n={floor.n_configs})")
    for half in filter(None, (split_half_of(rows, t) for t in targets)):
        out.append(f"split-half agreement {half.target}: median {half.median_pct:.2f} %, mean {half.mean_pct:.2f} % "
                   f"between the labels (each the mean of its rounds) of the odd and the even rounds (n={half.n_configs})")
    # a round that is one pass over every configuration (a visits campaign) shares its host state
    # with the whole pass: the same halves with that offset taken out
    for target in targets:
        levels = round_levels(rows, target)
        half = split_half_of(rows, target, levels) if len(levels) > 1 else None
        if half is not None:
            out.append(f"split-half agreement {target}, each round on one level (divided by its median ratio to the "
                       f"configurations' means, {min(levels.values()):.3f}-{max(levels.values()):.3f}): median "
                       f"{half.median_pct:.2f} %, mean {half.mean_pct:.2f} % (n={half.n_configs})")
    return out


def _hardware(args) -> int:
    from perfgraphs.collect import worker
    from perfgraphs.collect.isolation import run_isolated
    from perfgraphs.collect.platforms import get_platform

    name = args.arg or CPU_TORCH_FP32
    get_platform(name).check_available()
    core = _one_core(args)
    out = run_isolated(worker.probe_main, (name, 1 if core is None else core), 300)
    if out.status != "ok" or not out.value.get("ok"):
        raise CollectError(f"hardware probe failed: {out.message or out.value.get('error')}")
    json.dump(out.value["probe"], sys.stdout, indent=2)
    print()
    return 0


def _noise_floor(args) -> int:
    from perfgraphs.collect.noise import noise_floor

    if not args.arg:
        raise CollectError("usage: perfgraphs collect noise-floor PLAN.yaml [--probe N]")
    # saved by default: the cards and every results table read the floor from this folder
    out = args.out or Path("data/measurements") / "noise-floor"
    from perfgraphs.collect.noise import MAX_PROBE_CONFIG_S

    report = noise_floor(args.arg, probe=args.probe, core=_one_core(args), out=out,
                         max_config_s=args.probe_max_s or MAX_PROBE_CONFIG_S)
    print(json.dumps(report.summary(), indent=2))
    print(f"saved {out / f'noise-floor-{report.plan}.json'}")
    return 0


def _node_resources(args) -> int:
    from perfgraphs.collect.raycluster import node_resources

    print(json.dumps(node_resources(args.platforms, args.cores), sort_keys=True))
    return 0


def _status(args) -> int:
    """Per node (Ray) or per machine (local): rows by status, attempts lost; with --plan, what is
    left. Read-only: a running campaign may hold the lock."""
    from perfgraphs.collect.status import store_status

    if not args.arg:
        raise CollectError("usage: perfgraphs collect status DIR [--plan PLAN.yaml]")
    for line in store_status(Path(args.arg), args.plan):
        print(line)
    return 0
