"""``perfgraphs predict calibrate``: scale a platform's time predictions to the machine at hand.

The predictors answer for the machine their labels were measured on. Calibration measures a few
*reference* configurations here — architectures the platform's store labels, under the store's own
protocol (the collector's campaign: isolated worker, pinned core, quiet gate) — and takes the
ratio of each time here to its label there:

* the **factor** is the geometric median of the ratios (one slow reference does not move it);
* its **spread** is their geometric standard deviation, minimum and maximum;
* the **calibration's own error** is the largest leave-one-out miss: each reference's ratio
  against the factor of the others. With ``n`` exchangeable references, a new architecture's
  miss is within the largest of ``n`` misses with probability at least ``n / (n + 1)`` (10
  references: 91 %), so that is the coverage stated.

A calibrated prediction is the platform's prediction times the factor; its interval is the
predictor's interval times the factor, widened by the calibration's error on both sides (the two
errors add in log space: conservative). :func:`check_configs` are other labeled configurations,
never used by calibration, that ``benchmarks/calibrate_check.py`` measures here to check the
stated error.

The references and the check set are chosen from the store, deterministically: its configurations
measured in every round, one per architecture (its smallest batch), whose label lies within
:data:`LABEL_RANGE_MS` (so the whole calibration takes about a minute on one core), spaced evenly
in log time; every other one is a reference, the rest the check set.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from perfgraphs.predict.errors import CalibrationError
from perfgraphs.registry import CPU_TORCH_FP32

N_REFERENCES = 10
N_CHECK = 10
LABEL_RANGE_MS = (5.0, 400.0)
PLAN_MODES = {"infer": "inference", "train": "train"}  # predict's mode → a campaign plan's
SUITE = "predict-calibration"  # a held-out suite (perfgraphs.registry.HELDOUT_SUITES): no dataset reads it


@dataclass(frozen=True)
class LabelSource:
    """Where a platform's calibration labels come from: a store measured in several rounds."""

    platform: str
    mode: str
    dataset: str
    config: str
    store: Path
    protocol: str
    label: str  # the store column the protocol labels (cpu_time_ms for the CPU-time protocols)
    min_rounds: int
    hardware: str
    rows: tuple = field(default=(), repr=False, compare=False)  # the store's rows, read once


def label_source(platform: str, mode: str = "infer") -> LabelSource:
    """The platform's configuration with a measurement store and the most rounds per label."""
    from perfgraphs.collect.protocols import get_protocol
    from perfgraphs.collect.store import load_measurements
    from perfgraphs.paths import measurement_store
    from perfgraphs.registry import DATASETS

    # a store of the platform, in several rounds, in a dataset whose labels answer the mode (the
    # CPU-time store of dippm is an inference store though its config is not the one predict serves)
    candidates = [(ds, cfg) for ds in DATASETS.values() for cfg in ds.configs
                  if cfg.platform == platform and cfg.suite and cfg.min_rounds > 1
                  and any(c.predict_mode == mode for c in ds.configs)]
    if not candidates:
        raise CalibrationError(f"no store of {platform} ({mode}) measured in several rounds to calibrate against")
    ds, cfg = max(candidates, key=lambda dc: dc[1].min_rounds)
    store = measurement_store(cfg.suite)
    rows = load_measurements(store).to_pylist()
    protocol = next((r["protocol"] for r in rows if r.get("status") == "ok"), None)
    if protocol is None:
        raise CalibrationError(f"{store} has no measured row")
    return LabelSource(platform, mode, ds.name, cfg.name, store, protocol, get_protocol(protocol).label,
                       cfg.min_rounds, cfg.hardware or platform, tuple(rows))


def _candidates(source: LabelSource) -> list[dict]:
    rows = [r for r in source.rows
            if r["status"] == "ok" and not r.get("gate_flagged") and (r.get("n_rounds") or 1) >= source.min_rounds
            and r.get(source.label) and LABEL_RANGE_MS[0] <= r[source.label] <= LABEL_RANGE_MS[1]]
    smallest: dict[str, dict] = {}
    for r in sorted(rows, key=lambda r: (r["model"], r["batch_size"], r["input"])):
        smallest.setdefault(r["model"], r)
    return sorted(smallest.values(), key=lambda r: (r[source.label], r["model"]))


def _spaced(rows: list[dict], label: str, n: int) -> list[dict]:
    """``n`` rows evenly spaced in log label (the nearest to each target, each row at most once)."""
    if len(rows) < n:
        raise CalibrationError(f"only {len(rows)} labeled configurations to calibrate with, {n} needed")
    logs = np.log([r[label] for r in rows])
    chosen: list[int] = []
    for target in np.linspace(logs[0], logs[-1], n):
        order = np.argsort(np.abs(logs - target), kind="stable")
        chosen.append(int(next(i for i in order if i not in chosen)))
    return [rows[i] for i in sorted(chosen)]


def reference_configs(source: LabelSource) -> list[dict]:
    return _spaced(_candidates(source), source.label, N_REFERENCES + N_CHECK)[0::2]


def check_configs(source: LabelSource) -> list[dict]:
    return _spaced(_candidates(source), source.label, N_REFERENCES + N_CHECK)[1::2]


def plan_of(rows: list[dict], source: LabelSource, core: int, suite: str = SUITE) -> dict:
    """A one-round campaign plan measuring ``rows``' configurations under the store's protocol."""
    models: dict[str, dict] = {}
    for r in rows:
        m = models.setdefault(r["model"], {"name": r["model"], "input_sizes": [], "batch_sizes": []})
        size = int(r["input"].split(",")[-1])
        m["input_sizes"] = sorted(set(m["input_sizes"]) | {size})
        m["batch_sizes"] = sorted(set(m["batch_sizes"]) | {int(r["batch_size"])})
    return {"suite": suite, "description": f"perfgraphs predict calibrate: {len(rows)} configurations of the "
            f"{source.dataset} {source.config} store, measured here", "protocol": source.protocol,
            "platforms": [source.platform], "core": core, "mode": PLAN_MODES[source.mode], "timeout_s": 600, "rounds": 1,
            "groups": [{"family": "calibration", "models": list(models.values())}]}


def measure_here(rows: list[dict], source: LabelSource, store: Path, core: int, notify=print) -> dict[str, float]:
    """Measure ``rows``' configurations on this machine with the collector; returns label by key
    (model, input, batch) of every configuration measured (resumable: a finished one is kept)."""
    from perfgraphs.collect.campaign import CampaignOptions, prepare_campaign, run_campaign
    from perfgraphs.collect.plan import parse_plan
    from perfgraphs.collect.store import MeasurementStore, load_measurements

    plan = parse_plan(plan_of(rows, source, core), name=SUITE)
    wanted = {(r["model"], r["input"], int(r["batch_size"])) for r in rows}
    # the plan crosses each model's sizes and batches: keep only the configurations asked for
    plan = replace(plan, configs=[c for c in plan.configs if (c.model, c.input_label, c.batch_size) in wanted])
    ms = MeasurementStore(store)
    opts = CampaignOptions(out=store, core=core)
    with ms.lock():
        ms.remove_leftovers()
        state = prepare_campaign(plan, opts, ms)
        if state.todo:
            notify(f"measuring {len(state.jobs)} configurations on core {core} under {source.protocol} "
                   f"(about {state.estimate_s:.0f} s)")
            run_campaign(plan, opts, state, ms,
                         lambda c, row, st: notify(f"  {c.describe()}: {row.get(source.label) or row['status']}"),
                         notify=notify)
    got = {}
    for r in load_measurements(store).to_pylist():
        if r["status"] == "ok" and r.get(source.label) and not r.get("gate_flagged"):
            got[(r["model"], r["input"], int(r["batch_size"]))] = float(r[source.label])
    return got


def fit_calibration(pairs: list[tuple[str, float, float]]) -> dict:
    """From (configuration, time here, label there) of the references: the factor, its spread and
    the calibration's leave-one-out error (see the module docstring)."""
    if len(pairs) < 3:
        raise CalibrationError(f"{len(pairs)} references measured here: calibration needs at least 3")
    logs = np.log([here / there for _, here, there in pairs])
    loo = np.array([logs[i] - np.median(np.delete(logs, i)) for i in range(len(logs))])
    error = float(np.max(np.abs(loo)))
    n = len(pairs)
    return {"factor": float(math.exp(np.median(logs))), "n_references": n,
            "spread": {"geometric_sd": float(math.exp(np.std(logs, ddof=1))), "min_ratio": float(math.exp(logs.min())),
                       "max_ratio": float(math.exp(logs.max()))},
            "error_log": error, "error_pct": 100.0 * (math.exp(error) - 1.0), "coverage": n / (n + 1),
            "error_how": f"the largest leave-one-out miss of {n} references (covers a new architecture with "
                         f"probability at least {n}/{n + 1})",
            "references": [{"config": c, "here_ms": h, "there_ms": t, "ratio": h / t} for c, h, t in pairs]}


def calibration_path(platform: str, mode: str, home: Path | None = None) -> Path:
    from perfgraphs.paths import perfgraphs_home

    return (home or perfgraphs_home()) / "predict" / "calibration" / f"{platform}--{mode}.json"


def calibrate(platform: str = CPU_TORCH_FP32, mode: str = "infer", *, core: int | None = None,
              store: Path | None = None, home: Path | None = None, notify=print) -> dict:
    """Measure the references here, fit the calibration and write it where ``predict`` reads it."""
    import os

    from perfgraphs.atomic import atomic_write_bytes
    from perfgraphs.collect.environment import cpu_model, machine_tag, utc_now_iso

    source = label_source(platform, mode)
    refs = reference_configs(source)
    core = (os.cpu_count() or 1) - 1 if core is None else core
    path = calibration_path(platform, mode, home)
    store = store or path.parent / f"{SUITE}-{machine_tag()}"
    here = measure_here(refs, source, store, core, notify)
    pairs = [(f"{r['model']}@{r['input']}#b{r['batch_size']}", here[k], float(r[source.label]))
             for r in refs if (k := (r["model"], r["input"], int(r["batch_size"]))) in here]
    result = {"platform": platform, "mode": mode, "machine": machine_tag(), "cpu_model": cpu_model(),
              "measured_at_utc": utc_now_iso(), "protocol": source.protocol, "label": source.label,
              "labels_from": f"{source.dataset} {source.config} ({source.store.name}, {source.hardware})",
              "store": str(store), **fit_calibration(pairs)}
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, (json.dumps(result, indent=1) + "\n").encode())
    result["path"] = str(path)
    return result


def _check_calibration(data: dict) -> None:
    """Every field ``predict`` reads, of its type and range: a factor that is a finite positive
    number, an error that is finite and not negative (a damaged file must not scale a time to 0,
    below 0 or to NaN, nor turn an interval inside out)."""
    def number(v, what: str, low: float, strict: bool) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
                or (v <= low if strict else v < low):
            raise ValueError(f"{what} must be a finite number {'>' if strict else '>='} {low:g}, got {v!r}")
        return float(v)

    number(data["factor"], "factor", 0.0, True)
    number(data["error_log"], "error_log", 0.0, False)
    number(data["error_pct"], "error_pct", 0.0, False)
    number(data["n_references"], "n_references", 0.0, True)
    for k in ("min_ratio", "max_ratio", "geometric_sd"):
        number(data["spread"][k], f"spread.{k}", 0.0, True)
    for k in ("machine", "cpu_model", "measured_at_utc", "error_how"):
        if not isinstance(data[k], str):
            raise ValueError(f"{k} must be a string")


def read_calibration(platform: str, mode: str, home: Path | None = None) -> dict:
    path = calibration_path(platform, mode, home)
    try:
        data = json.loads(path.read_text())
        _check_calibration(data)
    except FileNotFoundError:
        raise CalibrationError(f"no calibration of {platform} ({mode}) on this machine: run `perfgraphs predict "
                               f"calibrate --platform {platform}` first") from None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise CalibrationError(f"{path} is not a readable calibration ({type(exc).__name__}: {exc}): run "
                               f"`perfgraphs predict calibrate` again") from None
    from perfgraphs.collect.environment import machine_tag

    if data.get("machine") != machine_tag():
        raise CalibrationError(f"{path} calibrates machine {data.get('machine')}, this is {machine_tag()}: run "
                               f"`perfgraphs predict calibrate` here")
    return data
