"""A machine's speed on the day of a measurement, against the day of its public labels (issue 32).

A CPU VM's speed moves from day to day, not only over seconds: the hidden round of 2026-12-05
ran public configurations at 0.62x their public labels' latency, and every reference then
over-predicted that round's labels by about 1.5x, so its latency board scored the machine's drift
more than the predictors. A hidden round of a CPU config therefore measures, before its own
configurations, a fixed probe of public ones again and compares them with their public labels; a
day outside the accepted band is refused before an hour of measuring, and the ratio goes into
the round's definition either way (the board prints it beside the noise floor).

The probe is judged per target: a day's drift is a matter of the host's speed, which moves latency
and leaves peak memory where it was (the probe of 2026-12-05 11:14 UTC: latency at 0.68x, peak
memory at 0.99x). A round may be measured when at least one target of its config lies within the
band, and scores only those (:func:`in_band`; ``load_hidden`` refuses the others, naming the drift).

The probe is the same every time (a fixed seed), so probes of successive rounds compare: up to
``PROBE_CONFIGURATIONS`` configurations of the public store that the source plan lists, measured
ok, of moderate latency, taken round-robin over the families:

    python -m perfgraphs.collect.host_speed plan --source plans/dippm-cpu.yaml \\
        --public data/measurements/dippm-cpu --out "$ROUND/probe-plan.yaml"
    perfgraphs collect "$ROUND/probe-plan.yaml" --out "$ROUND/probe-before" --core 1
    python -m perfgraphs.collect.host_speed ratio "$ROUND/probe-before" \\
        --public data/measurements/dippm-cpu --out "$ROUND/host-speed.json" --within 0.9 1.1
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import yaml

from perfgraphs.collect.errors import PlanError
from perfgraphs.collect.floor import TARGET_COLUMNS
from perfgraphs.collect.plan import load_plan, parse_plan
from perfgraphs.collect.store import MeasurementStore
from perfgraphs.yamlio import read_yaml

PROBE_CONFIGURATIONS = 40
PROBE_VISITS = 2
# moderate latencies only: a fast configuration's label is mostly timer and scheduling noise, a
# slow one makes the probe long; the band holds most of the dippm-cpu store
PROBE_LATENCY_MS = (20.0, 800.0)
PROBE_SEED = 0
# the day a round may be measured on: its machine within 10 % of its public labels' speed
DEFAULT_WITHIN = (0.9, 1.1)


@dataclass(frozen=True)
class HostSpeed:
    """The probe's labels over their public labels, one ratio per configuration measured in both."""
    target: str
    configurations: int
    median_ratio: float
    q1_ratio: float
    q3_ratio: float
    measured_from_utc: str
    measured_to_utc: str


def _labels(rows: list[dict], column: str) -> dict[str, float]:
    """key -> the median of its ok rows' ``column`` (a store's label of each configuration)."""
    values: dict[str, list[float]] = {}
    for r in rows:
        v = r.get(column)
        if r.get("status") == "ok" and isinstance(v, (int, float)) and v > 0:
            values.setdefault(r["key"], []).append(float(v))
    return {k: statistics.median(v) for k, v in values.items()}


def probe_plan(source: Path, public: Path, configurations: int = PROBE_CONFIGURATIONS,
               visits: int = PROBE_VISITS, target: str = "latency_ms") -> dict:
    """A plan (YAML mapping) re-measuring up to ``configurations`` of the source plan's configurations
    that ``public`` holds a label of, in ``visits`` shuffled passes, with the source's protocol."""
    plan = load_plan(source)
    raw = read_yaml(Path(source).read_text())
    labels = _labels(MeasurementStore(public).round_rows(), TARGET_COLUMNS[target])
    low, high = PROBE_LATENCY_MS
    by_family: dict[str, list] = {}
    for c in plan.configs:
        if c.key in labels and low <= labels[c.key] <= high:
            by_family.setdefault(c.family, []).append(c)
    if not by_family:
        raise PlanError(f"{public} holds no label of {source}'s configurations between {low:g} and {high:g} ms")
    rng = random.Random(PROBE_SEED)
    for family in by_family.values():
        family.sort(key=lambda c: c.key)
        rng.shuffle(family)
    chosen = []
    while len(chosen) < configurations and any(by_family.values()):
        for family in sorted(by_family):
            if by_family[family] and len(chosen) < configurations:
                chosen.append(by_family[family].pop())
    groups: dict[str, list[dict]] = {}
    for c in chosen:  # one entry per configuration: the plan lists sizes x batches per entry
        groups.setdefault(c.family, []).append({"name": c.model, "input_sizes": [c.image_size],
                                                "batch_sizes": [c.batch_size]})
    out = {"suite": f"{raw['suite']}-host-speed", "description": f"host speed probe: {len(chosen)} configurations "
           f"of {raw['suite']} measured again (perfgraphs.collect.host_speed)", "mode": raw.get("mode", "inference"),
           "protocol": raw["protocol"], "platforms": raw["platforms"], "timeout_s": raw.get("timeout_s", 300),
           "rounds": visits, "schedule": "visits",
           "groups": [{"family": f, "models": m} for f, m in sorted(groups.items())]}
    if "core" in raw:
        out["core"] = raw["core"]
    parse_plan(out, name=out["suite"])  # the collector's own check
    return out


def host_speed(probe: list[dict], public: list[dict], target: str = "latency_ms") -> HostSpeed | None:
    """The probe's rows against the public store's, per configuration in both; None when none is."""
    column = TARGET_COLUMNS[target]
    now, then = _labels(probe, column), _labels(public, column)
    shared = sorted(set(now) & set(then))
    if not shared:
        return None
    ratios = np.array([now[k] / then[k] for k in shared])
    times = sorted(r["measured_at_utc"] for r in probe if r.get("status") == "ok" and r["key"] in then)
    q1, median, q3 = (round(float(v), 3) for v in np.percentile(ratios, [25, 50, 75]))
    return HostSpeed(target=target, configurations=len(shared), median_ratio=median, q1_ratio=q1, q3_ratio=q3,
                     measured_from_utc=times[0], measured_to_utc=times[-1])


def definition_block(speed: HostSpeed, public: str, protocol: str) -> dict:
    """``measured.host_speed`` of a hidden round's definition (what the board prints)."""
    return {"about": f"the machine's speed on the day of these labels against its public labels': "
                     f"{speed.configurations} public configurations measured again ({protocol}), each the median "
                     f"of its visits over its label in {public} (perfgraphs.collect.host_speed)",
            "measured": f"{speed.measured_from_utc} to {speed.measured_to_utc}",
            speed.target: {"configurations": speed.configurations, "median_ratio": speed.median_ratio,
                           "q1_ratio": speed.q1_ratio, "q3_ratio": speed.q3_ratio}}


def in_band(block: dict, target: str, within: tuple[float, float] | None = None) -> bool | None:
    """Whether a round's ``host_speed`` block puts ``target`` within its band (the band the block
    records, else ``within``, else the default): None when the block states no finite ratio for it
    (a GPU round, or a round probed before per-target probes)."""
    speed = block.get(target) if isinstance(block, dict) else None
    ratio = speed.get("median_ratio") if isinstance(speed, dict) else None
    if not isinstance(ratio, (int, float)) or isinstance(ratio, bool) or not np.isfinite(ratio):
        return None
    band = block.get("within")
    if not (isinstance(band, list) and len(band) == 2
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and np.isfinite(v) for v in band)):
        band = within or DEFAULT_WITHIN
    return bool(band[0] <= ratio <= band[1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m perfgraphs.collect.host_speed",
                                     description="Measure a machine's speed against its public labels' day.")
    sub = parser.add_subparsers(dest="step", required=True)
    p = sub.add_parser("plan", help="write the probe plan")
    p.add_argument("--source", required=True, help="the public plan")
    p.add_argument("--public", required=True, help="the public store of its labels")
    p.add_argument("--configurations", type=int, default=PROBE_CONFIGURATIONS)
    p.add_argument("--out", required=True)
    r = sub.add_parser("ratio", help="the probe's store against the public labels")
    r.add_argument("probe", help="the probe's measurement store")
    r.add_argument("--public", required=True)
    r.add_argument("--target", nargs="+", default=["latency_ms"], choices=sorted(TARGET_COLUMNS),
                   help="the targets to judge (each the config's board), default latency_ms")
    r.add_argument("--out", required=True, help="a JSON file for the round's definition")
    r.add_argument("--within", type=float, nargs=2, default=DEFAULT_WITHIN, metavar=("LOW", "HIGH"),
                   help="exit 3 when the median ratio lies outside (default 0.9 1.1)")
    args = parser.parse_args(argv)
    try:
        if args.step == "plan":
            plan = probe_plan(Path(args.source), Path(args.public), args.configurations)
            Path(args.out).write_text(yaml.safe_dump(plan, sort_keys=False))
            n = sum(len(g["models"]) for g in plan["groups"])
            print(f"{args.out}: {n} public configurations, {plan['rounds']} visits")
            return 0
        probe_rows, public_rows = MeasurementStore(args.probe).round_rows(), MeasurementStore(args.public).round_rows()
        speeds = [host_speed(probe_rows, public_rows, target) for target in dict.fromkeys(args.target)]
    except (PlanError, OSError, ValueError) as exc:
        print(f"perfgraphs: {exc}", file=sys.stderr)
        return 1
    if any(speed is None for speed in speeds):
        print(f"perfgraphs: {args.probe} measured none of {args.public}'s configurations", file=sys.stderr)
        return 1
    protocol = next((r.get("protocol") for r in probe_rows), "?")
    low, high = args.within
    block = definition_block(speeds[0], args.public, protocol)
    for speed in speeds[1:]:
        block[speed.target] = definition_block(speed, args.public, protocol)[speed.target]
    block["within"] = [low, high]
    Path(args.out).write_text(json.dumps({"probe": {s.target: asdict(s) for s in speeds},
                                          "host_speed": block}, indent=2) + "\n")
    for speed in speeds:
        print(f"{args.out}: {speed.configurations} configurations at {speed.median_ratio:.2f}x their public labels' "
              f"{speed.target} (quartiles {speed.q1_ratio:.2f}-{speed.q3_ratio:.2f})")
    outside = [s for s in speeds if not in_band(block, s.target)]
    if len(outside) == len(speeds):
        print(f"perfgraphs: the machine runs at {', '.join(f'{s.median_ratio:.2f}x' for s in outside)} its public "
              f"labels' {', '.join(s.target for s in outside)} today, outside {low:g}-{high:g}: a round measured now "
              f"would score that drift (wait for another day, or another machine of the config)", file=sys.stderr)
        return 3
    if outside:
        print(f"note: {', '.join(f'{s.target} at {s.median_ratio:.2f}x' for s in outside)} lies outside "
              f"{low:g}-{high:g} today: a round measured now scores only "
              f"{', '.join(s.target for s in speeds if s not in outside)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
