"""Declarative campaign plans (YAML) and their expansion into configurations.

A plan lists groups (one model family each) of models × input sizes (or sequence lengths) ×
batch sizes, measured on platforms in a mode under a protocol. Expansion is deterministic, and
each configuration has a key = hash of (model, input, batch, platform, mode, protocol): the
identity a resumed campaign uses to skip finished work, independent of plan order or file name.

Order: families are interleaved in proportion to their size, and each family's configurations
are shuffled with a fixed seed. A campaign stopped at any point therefore holds a roughly uniform
sample of the plan over all families, instead of "all of ResNet, none of ViT". The shuffled unit
is one measured input (model, input, batch, mode): its configurations on several platforms stay
adjacent, in plan order of the platforms, so a worker can reuse the previous worker's ONNX export
(see ``perfgraphs.collect.backends``); with one platform every unit is one configuration.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

import yaml

from perfgraphs.collect.backends import ENERGY_WINDOW_S
from perfgraphs.collect.errors import PlanError
from perfgraphs.collect.plankeys import GROUP_KEYS, MODEL_KEYS, TOP_KEYS, check_keys, check_suite
from perfgraphs.collect.platforms import DEFAULT_CPU_CORE, get_platform
from perfgraphs.collect.protocols import PROTOCOLS, Protocol, get_protocol
from perfgraphs.collect.rounds import SCHEDULES
from perfgraphs.errors import PerfgraphsError
from perfgraphs.registry import CPU_TORCH_FP32
from perfgraphs.yamlio import read_yaml

MODES = ("inference", "train", "llm")
ORDER_SEED = 20240601


@dataclass(frozen=True)
class ConfigSpec:
    """One measurement to make. Picklable: it is sent to the worker process."""

    suite: str
    family: str
    model: str
    image_size: int | None
    seq_len: int | None
    batch_size: int
    platform: str
    mode: str
    protocol: Protocol
    timeout_s: float
    core: int | None = DEFAULT_CPU_CORE
    gmacs_per_sample: float | None = None  # cost-model hint (GMACs of one sample at this input)
    # cores whose load slows the measuring core (SMT siblings, hidden ones of a VM): the quiet gate
    # watches them; set by the campaign from the hardware probe, not part of the key
    watch_cores: tuple[int, ...] = ()

    @property
    def input_label(self) -> str:
        return f"3,{self.image_size},{self.image_size}" if self.image_size else f"seq={self.seq_len}"

    @property
    def key(self) -> str:
        ident = {"model": self.model, "image_size": self.image_size, "seq_len": self.seq_len,
                 "batch_size": self.batch_size, "platform": self.platform, "mode": self.mode,
                 "protocol": self.protocol.name}
        return hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:20]

    def describe(self) -> str:
        return f"{self.model} {self.input_label} b={self.batch_size} {self.platform} {self.mode}"


@dataclass
class Plan:
    name: str
    suite: str
    path: str | None
    configs: list[ConfigSpec] = field(default_factory=list)
    description: str = ""
    # each configuration is measured this many times, in separate workers apart in time
    # (perfgraphs.collect.rounds); the label is the mean of the rounds
    rounds: int = 1
    # how the rounds are ordered (perfgraphs.collect.rounds.SCHEDULES): "blocks" of configurations
    # round after round, or "visits": round r is one shuffled pass over all the configurations
    schedule: str = SCHEDULES[0]

    @property
    def families(self) -> list[str]:
        return sorted({c.family for c in self.configs})


def _as_list(value, what: str, group: str) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        value = [value]
    return value


def _positive_ints(values, what: str, where: str) -> list[int]:
    out = []
    for v in values:
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise PlanError(f"{where}: {what} must be positive integers, got {v!r}")
        out.append(v)
    return out


def _protocol(value, where: str) -> Protocol:
    if isinstance(value, str):
        return get_protocol(value)
    if isinstance(value, dict):
        check_keys(value, frozenset(f.name for f in fields(Protocol)), f"{where}: protocol")
        try:
            return Protocol(**value)
        except TypeError as exc:
            raise PlanError(f"{where}: invalid protocol mapping: {exc}") from None
    raise PlanError(f"{where}: protocol must be a name ({', '.join(PROTOCOLS)}) or a mapping")


def parse_plan(data: dict, name: str = "plan", path: str | None = None) -> Plan:
    if not isinstance(data, dict):
        raise PlanError(f"{name}: a plan is a YAML mapping")
    check_keys(data, TOP_KEYS, name)
    suite = check_suite(data.get("suite") or name, name)
    groups = data.get("groups")
    if not isinstance(groups, list) or not groups:
        raise PlanError(f"{name}: needs a non-empty 'groups' list")
    configs: list[ConfigSpec] = []
    for gi, group in enumerate(groups):
        where = f"{name}: groups[{gi}]"
        if not isinstance(group, dict):
            raise PlanError(f"{where} must be a mapping")
        check_keys(group, GROUP_KEYS, where)
        merged = {k: v for k, v in data.items() if k not in ("groups", "rounds", "schedule")} | group
        configs.extend(_expand_group(suite, merged, where))
    seen: dict[str, ConfigSpec] = {}
    for c in configs:
        if c.key in seen:
            raise PlanError(f"{name}: configuration listed twice: {c.describe()}")
        seen[c.key] = c
    rounds = data.get("rounds", 1)
    if not isinstance(rounds, int) or isinstance(rounds, bool) or not 1 <= rounds <= 10:
        raise PlanError(f"{name}: rounds must be an integer from 1 to 10, got {rounds!r}")
    kind = data.get("schedule", SCHEDULES[0])
    if kind not in SCHEDULES:
        raise PlanError(f"{name}: schedule must be one of {', '.join(SCHEDULES)}, got {kind!r}")
    return Plan(name=name, suite=suite, path=path, configs=order_configs(configs),
                description=str(data.get("description", "")), rounds=rounds, schedule=kind)


def _expand_group(suite: str, g: dict, where: str) -> list[ConfigSpec]:
    family = str(g.get("family") or "default")
    mode = g.get("mode", "inference")
    if mode not in MODES:
        raise PlanError(f"{where}: mode must be one of {', '.join(MODES)}, got {mode!r}")
    protocol = _protocol(g.get("protocol", "dippm-cpu"), where)
    platforms = _as_list(g.get("platforms", [CPU_TORCH_FP32]), "platforms", where)
    for p in platforms:
        try:
            get_platform(p)
        except PerfgraphsError as exc:
            raise PlanError(f"{where}: {exc}") from None
    timeout_s = g.get("timeout_s", 900)
    core = g.get("core", DEFAULT_CPU_CORE)
    models = _as_list(g.get("models"), "models", where)
    if not models:
        raise PlanError(f"{where}: needs a non-empty 'models' list")
    out = []
    for m in models:
        spec = {"name": m} if isinstance(m, str) else dict(m) if isinstance(m, dict) else None
        if spec is None or not isinstance(spec.get("name"), str):
            raise PlanError(f"{where}: each model is a name or a mapping with 'name', got {m!r}")
        check_keys(spec, MODEL_KEYS, f"{where}: model {spec['name']}")
        opts = g | spec
        text = spec["name"].startswith("hf:")
        sizes_key = "seq_lens" if text else "input_sizes"
        sizes = _positive_ints(_as_list(opts.get(sizes_key), sizes_key, where), sizes_key, where)
        if not sizes:
            raise PlanError(f"{where}: {spec['name']} needs {sizes_key}")
        batches = _positive_ints(_as_list(opts.get("batch_sizes", [1]), "batch_sizes", where),
                                 "batch_sizes", where)
        config_timeout = _positive_seconds(opts.get("timeout_s", timeout_s), where)
        gmacs, gmacs_at = opts.get("gmacs"), opts.get("gmacs_at", 128 if text else 224)
        for size in sizes:
            scale = (size / gmacs_at) if text else (size / gmacs_at) ** 2
            for b in batches:
                for p in platforms:
                    out.append(ConfigSpec(
                        suite=suite, family=family, model=spec["name"],
                        image_size=None if text else size, seq_len=size if text else None,
                        batch_size=b, platform=p, mode=mode, protocol=protocol,
                        timeout_s=config_timeout, core=core,
                        gmacs_per_sample=None if gmacs is None else float(gmacs) * scale))
    return out


def _positive_seconds(value, where: str) -> float:
    """A timeout of zero or less would turn every configuration into an error row: refuse it."""
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise PlanError(f"{where}: timeout_s must be a number of seconds, got {value!r}") from None
    if not seconds > 0:
        raise PlanError(f"{where}: timeout_s must be > 0, got {value!r}")
    return seconds


def order_configs(configs: list[ConfigSpec]) -> list[ConfigSpec]:
    """Proportional interleave of families, seeded shuffle within each (see module docstring)."""
    platform_rank = {p: i for i, p in enumerate(dict.fromkeys(c.platform for c in configs))}
    by_family: dict[str, dict[tuple, list[ConfigSpec]]] = {}
    for c in configs:
        unit = (c.model, c.input_label, c.batch_size, c.mode)
        by_family.setdefault(c.family, {}).setdefault(unit, []).append(c)
    ranked = []
    for family, units in sorted(by_family.items()):
        rng = random.Random(f"{ORDER_SEED}:{family}")
        items = sorted((sorted(u, key=lambda c: platform_rank[c.platform]) for u in units.values()),
                       key=lambda u: min(c.key for c in u))
        rng.shuffle(items)
        n = len(items)
        ranked.extend(((i + 0.5) / n, family, u) for i, u in enumerate(items))
    ranked.sort(key=lambda t: (t[0], t[1]))
    return [c for _, _, unit in ranked for c in unit]


def plan_files(folder: str | Path) -> list[Path]:
    """Every plan file under ``folder`` (``*.yaml`` and ``*.yml``, in subfolders too), sorted."""
    folder = Path(folder)
    return sorted([*folder.rglob("*.yaml"), *folder.rglob("*.yml")])


def load_plan(path: str | Path) -> Plan:
    path = Path(path)
    if not path.is_file():
        raise PlanError(f"plan file not found: {path}")
    try:
        data = read_yaml(path.read_text())
    except yaml.YAMLError as exc:
        raise PlanError(f"{path}: not valid YAML: {str(exc).splitlines()[0]}") from None
    return parse_plan(data, name=path.stem, path=str(path))


def with_overrides(plan: Plan, core: int | None = None, timeout_s: float | None = None) -> Plan:
    configs = plan.configs
    if core is not None:
        configs = [replace(c, core=core) for c in configs]
    if timeout_s is not None:
        timeout_s = _positive_seconds(timeout_s, plan.name)
        configs = [replace(c, timeout_s=timeout_s) for c in configs]
    return replace(plan, configs=configs)


# ---------------------------------------------------------------------------------------------
# Cost model


DEFAULT_GFLOPS = 50.0  # one modern server core, fp32, when no hardware probe exists yet
DEFAULT_GPU_GFLOPS = 20000.0  # a data-centre GPU's fp32 (non-TF32) matmul rate, likewise
# a GPU worker also creates a CUDA context (~1 s) and runs the energy window
GPU_EXTRA_SETUP_S = 1.0 + ENERGY_WINDOW_S
CONV_EFFICIENCY = 0.4  # achieved / peak matmul FLOP/s for whole networks on one core
SETUP_S = 2.5  # fork, build, re-init, reference loops, result hand-off
# Time per iteration relative to PyTorch fp32 eager, and setup, by (runtime, precision). The ORT
# values are medians of the ort-cpu campaign's first 210 architectures on this machine's
# one-thread core (2026-11-26): ONNX Runtime fp32 ran 2.06x faster than eager PyTorch, dynamic
# int8 3.8x slower than ORT fp32 (ConvInteger/MatMulInteger without VNNI); the worker spent 4.3 s
# beyond its timed loops on an fp32 configuration (build + export) and 1.4 s on int8 (the fp32
# export is shared, quantisation is not), against 0.55 s for eager PyTorch.
RUNTIME_FACTOR = {("torch", "bf16"): 2.0, ("ort", "fp32"): 0.5, ("ort", "int8"): 1.85}
SETUP_BY_RUNTIME_S = {("ort", "fp32"): SETUP_S + 4.3 - 0.55, ("ort", "int8"): SETUP_S + 1.4 - 0.55}


def _runs(target: int, minimum: int | None, budget: float | None, t: float) -> int:
    if budget is None or minimum is None:
        return target
    return min(target, max(minimum, math.ceil(budget / max(t, 1e-6))))


def estimate_seconds(c: ConfigSpec, peak_gflops: float | None = None) -> float:
    """Machine time one configuration should take: setup + (warm-up + timed) × iteration time."""
    gmacs = c.gmacs_per_sample if c.gmacs_per_sample is not None else 1.0
    platform = get_platform(c.platform)
    kind = (platform.runtime, platform.precision)
    factor = {"train": 3.0}.get(c.mode, 1.0) * RUNTIME_FACTOR.get(kind, 1.0)
    default_peak = DEFAULT_GPU_GFLOPS if platform.is_cuda else DEFAULT_GFLOPS
    t = 2 * gmacs * c.batch_size * factor / ((peak_gflops or default_peak) * CONV_EFFICIENCY)
    p = c.protocol
    runs = _runs(p.warmup_runs, p.min_warmup_runs, p.warmup_budget_s, t) + _runs(
        p.timed_runs, p.min_timed_runs, p.timed_budget_s, t)
    setup = SETUP_BY_RUNTIME_S.get(kind, SETUP_S) + (GPU_EXTRA_SETUP_S if platform.is_cuda else 0.0)
    return setup + p.cooldown_s + runs * t
