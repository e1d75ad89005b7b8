"""Noise floor: measure a fixed probe set of plan configurations twice and compare the rounds.

MAPE between two rounds of the *same* configurations on the *same* machine is the floor below
which no predictor's error is meaningful. Reported raw (median latency) and drift-calibrated
(each round's latencies scaled by baseline/ref, the baseline being round 1's first reference
measurement), which shows how much of the round-to-round difference the reference workload
explains (per run, when a reference probe followed every timed run). Rounds are measured one after the other (not interleaved per config), so slow drift
between them is included, as it would be between two campaign runs.
"""

from __future__ import annotations

import json
import statistics
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from perfgraphs.collect.campaign import calibrate, measure_config
from perfgraphs.collect.environment import utc_now_iso
from perfgraphs.collect.errors import CollectError
from perfgraphs.collect.plan import estimate_seconds, load_plan

MAX_PROBE_CONFIG_S = 4.0  # keep the probe cheap: configurations estimated under this


@dataclass
class NoiseReport:
    plan: str
    core: int | None
    probe: list[dict] = field(default_factory=list)  # per config: both rounds
    mape_raw_pct: float | None = None
    mape_calibrated_pct: float | None = None
    mape_min_pct: float | None = None  # on latency_min_ms: contention only ever adds time
    median_ape_raw_pct: float | None = None
    max_ape_raw_pct: float | None = None
    measured_at_utc: str = ""  # when round 1 started

    def summary(self) -> dict:
        d = asdict(self)
        d["n_probe"] = len(self.probe)
        d.pop("probe")
        return d


def select_probe(configs, n: int, peak_gflops: float | None = None, max_config_s: float = MAX_PROBE_CONFIG_S):
    """Every k-th cheap configuration of the (family-interleaved) plan order."""
    cheap = [c for c in configs if estimate_seconds(c, peak_gflops) <= max_config_s]
    if not cheap:
        raise CollectError(f"no configuration in the plan is estimated under {max_config_s:g} s, the noise probe's "
                           "limit per configuration: raise it with --probe-max-s")
    step = max(1, len(cheap) // n)
    return cheap[::step][:n]


def _ape(a: float, b: float) -> float:
    return abs(b - a) / a * 100


def noise_floor(plan_path: str, probe: int = 20, core: int | None = None,
                out: str | Path | None = None, max_config_s: float = MAX_PROBE_CONFIG_S) -> NoiseReport:
    plan = load_plan(plan_path)
    configs = select_probe(plan.configs, probe, max_config_s=max_config_s)
    if core is not None:
        configs = [replace(c, core=core) for c in configs]
    started = utc_now_iso()
    rounds = []
    for _ in range(2):
        rounds.append([measure_config(c, {"structure_hash": None}) for c in configs])
    ok = [(a, b) for a, b in zip(*rounds) if a["status"] == b["status"] == "ok"]
    if not ok:
        raise CollectError("no probe configuration was measured successfully in both rounds")
    baseline = ok[0][0]["ref_ms"]
    raw = [_ape(a["latency_median_ms"], b["latency_median_ms"]) for a, b in ok]

    def cal(r):
        return calibrate(r, baseline)

    calibrated = [_ape(cal(a), cal(b)) for a, b in ok]
    report = NoiseReport(
        plan=plan.name, core=configs[0].core,
        probe=[{"model": a["model"], "input": a["input"], "batch_size": a["batch_size"],
                "round1_ms": a["latency_median_ms"], "round2_ms": b["latency_median_ms"],
                "round1_ref_ms": a["ref_ms"], "round2_ref_ms": b["ref_ms"]} for a, b in ok],
        mape_raw_pct=statistics.fmean(raw), mape_calibrated_pct=statistics.fmean(calibrated),
        mape_min_pct=statistics.fmean(_ape(a["latency_min_ms"], b["latency_min_ms"]) for a, b in ok),
        median_ape_raw_pct=statistics.median(raw), max_ape_raw_pct=max(raw), measured_at_utc=started)
    if out is not None:
        path = Path(out)
        path.mkdir(parents=True, exist_ok=True)
        (path / f"noise-floor-{plan.name}.json").write_text(json.dumps(asdict(report), indent=2) + "\n")
    return report
