"""What ``perfgraphs.predict`` can be asked, derived from the registry: every config with a
``predict_mode`` and targets is a set of questions about its platform (a multi-platform config, one
per platform). A platform name is the registry's: a config's ``platform`` or one of its
``platforms``; with the mode it names every target measured there."""

from __future__ import annotations

from dataclasses import dataclass

from perfgraphs.predict.errors import UnknownPlatformError
from perfgraphs.registry import DATASETS, PLATFORM_SEPARATOR, PREDICT_MODES, TABULAR_ROWS, Config, Dataset


@dataclass(frozen=True)
class PlatformTarget:
    """One measured target of a platform: the registry config and the column that holds its labels."""

    dataset: str
    config: str
    column: str  # the label column (``<target>__<platform>`` on a multi-platform config)
    target: str  # the target's own name (unit-suffixed)
    unit: str
    description: str
    kind: str  # the config's row kind: GRAPH_ROWS or TABULAR_ROWS
    question: str = ""  # what it answers (registry Target.asks): targets with one question are alternatives
    roofline_per: str = ""  # registry Target.roofline_per

    @property
    def key(self) -> str:
        """File-name-safe identity of the predictor trained for it."""
        return f"{self.dataset.split('/')[-1]}--{self.config}--{self.column}"


@dataclass(frozen=True)
class PredictablePlatform:
    name: str
    mode: str  # "infer" or "train"
    hardware: str
    targets: tuple[PlatformTarget, ...]


def _hardware(ds: Dataset, cfg: Config, platform: str, multi: tuple[str, ...]) -> str:
    if not multi:
        return cfg.hardware or platform
    if platform.startswith("timm-"):
        # timm's result-file naming: device-precision-layout-pt<torch>[-cu<cuda>][-dynamo]
        parts = platform.removeprefix("timm-").split("-")
        device, precision, layout = parts[:3]
        software = "-".join(p for p in parts[3:] if p != "dynamo")  # as timm names them (pt240-cu124)
        compiled = ", torch.compile" if parts[-1] == "dynamo" else ""
        name = device.upper() if device.startswith("rtx") else device.replace("_", "-")
        return (f"{name} ({precision}, {layout}, {software}{compiled}; "
                f"timm's published benchmark, per sample)")
    return f"{platform}: our collector's platform ({ds.name.split('/')[-1]} per-sample labels)"


def all_platforms() -> tuple[PredictablePlatform, ...]:
    """Every (platform, mode) with labels, in registry order."""
    found: dict[tuple[str, str], list] = {}
    hardware: dict[tuple[str, str], str] = {}
    for ds in DATASETS.values():
        for cfg in ds.configs:
            if cfg.predict_mode is None or not cfg.targets:
                continue
            multi = cfg.platforms  # read once: a multi-platform config discovers its platforms on each read
            names = multi or ((cfg.platform,) if cfg.platform else ())
            for name in names:
                key = (name, cfg.predict_mode)
                hardware.setdefault(key, _hardware(ds, cfg, name, multi))
                for t in cfg.targets:
                    column = f"{t.name}{PLATFORM_SEPARATOR}{name}" if multi else t.name
                    found.setdefault(key, []).append(PlatformTarget(
                        ds.name, cfg.name, column, t.name, t.unit, t.description, cfg.kind, t.asks, t.roofline_per))
    return tuple(PredictablePlatform(n, m, hardware[(n, m)], tuple(ts)) for (n, m), ts in found.items())


def find_platform(name: str, mode: str = "infer") -> PredictablePlatform:
    if mode not in PREDICT_MODES:
        raise UnknownPlatformError(f"mode must be one of {', '.join(PREDICT_MODES)}, got {mode!r}")
    known = all_platforms()
    for p in known:
        if p.name == name and p.mode == mode:
            return p
    other_modes = [p.mode for p in known if p.name == name]
    if other_modes:
        raise UnknownPlatformError(f"platform {name!r} has labels for mode {', '.join(other_modes)} only, not {mode!r}")
    names = sorted({f"{p.name} ({p.mode})" for p in known})
    raise UnknownPlatformError(f"no labels for platform {name!r}: platforms with labels are {', '.join(names)}")


def served_targets(platform: PredictablePlatform, tabular: bool) -> list[PlatformTarget]:
    """One predictor per target: where the encoder rows answer the source (``tabular``), theirs;
    otherwise the first graph config of the platform with the target, in registry order (a
    platform's first-version labels before the ones measured again under another protocol)."""
    taken = {pt.target for pt in platform.targets if pt.kind == TABULAR_ROWS} if tabular else set()
    out = []
    for pt in platform.targets:
        if pt.kind == TABULAR_ROWS:
            if tabular:
                out.append(pt)
        elif pt.target not in taken:
            taken.add(pt.target)
            out.append(pt)
    return out


def trained_targets(platform: PredictablePlatform) -> list[PlatformTarget]:
    """Every target a predictor is trained for: the graph configs' served ones and the encoder rows'."""
    return served_targets(platform, tabular=False) + [t for t in platform.targets if t.kind == TABULAR_ROWS]
