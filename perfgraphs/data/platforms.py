"""Platforms as data: where a label was measured, read from the sources that hold the labels.

A :class:`LabelPlatform` is a record of provenance (device, precision, layout, framework versions,
compile mode, source), discovered, never listed by hand:

* an imported result file names its platform (timm's ``benchmark-infer-<precision>-<layout>-
  pt<torch>-<cuda|cpu>-<device>[-dynamo].csv``): a newer file dropped into the external folder is a
  new platform;
* a store of our measurements (``data/measurements/<store>/<collector platform>/``) records it, with
  the hardware probe beside it (``hardware.json``: peak FLOP/s, memory bandwidth, versions).

The registry names *where* a config's platforms come from (``Config.platform_sources``); this
module reads them (:func:`discover_platforms`). A built config's manifest records the platforms
it holds, and for a built config those are the truth (:func:`config_platforms`). It installs
itself as the registry's :class:`~perfgraphs.registry.Discovery` (``Config.platforms``,
``get_dataset``), so the registry, at the bottom of the layers, imports none of this.

A measured store is also a config of its own: :func:`store_configs` turns each store of a
dataset's measurement protocol on the registry's device kind (``Dataset.store_configs``) into a
config named after its hardware (``h200-torch-fp32``), so a new ``dippm-<gpu>`` store becomes a
config without a registry edit; stores the registry names by hand keep their names.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, fields
from functools import lru_cache
from pathlib import Path

from perfgraphs.errors import PerfgraphsError
from perfgraphs import paths
from perfgraphs.registry import DATASETS, GRAPH_ROWS, HELDOUT_SUITES, Config, Dataset, Discovery, install_discovery


def _measurements_root() -> Path | None:
    """Where our stores are; None for an installed package with no data directory set (then it
    has no stores to discover, and the registry's configs are all there is)."""
    try:
        return paths.measurements_dir()
    except paths.DataDirNotFoundError:
        return None


TIMM_SOURCE = "timm-benchmark"  # the external source folder of timm's published results
CPU_STORES_SOURCE = "cpu-measurement-stores"  # our stores' CPU platforms
STORE_SOURCE = "measurement-store"  # LabelPlatform.source of a platform of our stores


@dataclass(frozen=True)
class LabelPlatform:
    """Where one label column was measured. Versions are as recorded (``None``: not recorded)."""

    name: str  # the column suffix: latency_per_sample_ms__<name>
    device: str  # "rtx4090", "i9_10940x", "AMD EPYC", "NVIDIA H200"
    device_kind: str  # "cpu" | "gpu"
    precision: str  # "amp", "fp32", "int8", ...
    layout: str | None  # "nchw" | "nhwc"; None where the source does not say
    framework: str  # "torch" | "onnxruntime"
    framework_version: str | None
    torch_version: str | None
    cuda_version: str | None
    compiled: bool  # torch.compile (dynamo)
    source: str  # TIMM_SOURCE (a timm result file) or STORE_SOURCE (our measurement stores)
    source_files: tuple[str, ...]  # the result file, or the stores holding the platform's rows
    sha256: str | None = None  # of the result file
    hardware: str | None = None  # our stores: perfgraphs.collect.store.hardware_identity
    peak_gflop_per_s: float | None = None  # our stores: the hardware probe's measured peak
    memory_bandwidth_gb_per_s: float | None = None  # our stores: the probe's measured bandwidth

    def as_record(self) -> dict:
        return asdict(self) | {"source_files": list(self.source_files)}

    @classmethod
    def from_record(cls, record: dict) -> "LabelPlatform":
        known = {f.name for f in fields(cls)}
        try:
            return cls(**{k: v for k, v in record.items() if k in known}
                       | {"source_files": tuple(record.get("source_files") or ())})
        except TypeError as exc:
            raise PerfgraphsError(f"a platform record this version cannot read: {exc}") from None


# -- imported result files -------------------------------------------------------------------------


def timm_platforms(local_dir: Path | str | None = None, *, download: bool = False) -> tuple[LabelPlatform, ...]:
    """One platform per timm result file of the source folder that parses (name-sorted).

    With nothing local (no ``local_dir``, ``$PERFGRAPHS_EXTERNAL_DIR`` or cached copy) and no
    ``download``, the pinned files' platforms: their names alone say what they are.
    """
    from perfgraphs.loaders.sources import SourceFileMissingError
    from perfgraphs.loaders.timm_benchmark import (TIMM_INFER_FILES, discover_timm_files, import_timm_benchmark,
                                                   parse_platform)

    pinned = [(parse_platform(f.name), f.sha256) for f in TIMM_INFER_FILES]
    try:
        if not discover_timm_files(local_dir, progress=False, download=download).paths:
            # nothing local: the pinned files stand for the source, and no table is built (an
            # Arrow table imports pandas, most of a cached ``perfgraphs predict``'s imports)
            return tuple(sorted((_from_timm(p, sha) for p, sha in pinned), key=lambda p: p.name))
        imported = import_timm_benchmark(local_dir, download=download, warn=False, progress=False)
    except SourceFileMissingError:
        # an external folder without timm's files (only another source's): what a build would
        # download. Other bytes under a pinned name are still refused (ChecksumMismatchError).
        return tuple(sorted((_from_timm(p, sha) for p, sha in pinned), key=lambda p: p.name))
    pairs = [(p, f.sha256) for p, f in zip(imported.platforms, imported.files)]
    if not imported.files and not imported.skipped:
        pairs = pinned
    return tuple(sorted((_from_timm(p, sha) for p, sha in pairs), key=lambda p: p.name))


def _from_timm(p, sha256: str) -> LabelPlatform:
    return LabelPlatform(name=p.name, device=p.device, device_kind=p.device_kind, precision=p.precision,
                    layout=p.layout, framework="torch", framework_version=p.torch_version,
                    torch_version=p.torch_version, cuda_version=p.cuda_version, compiled=p.compiled,
                    source=TIMM_SOURCE, source_files=(p.source_file,), sha256=sha256)


# -- our measurement stores ------------------------------------------------------------------------


def _stores(root: Path) -> list[Path]:
    """The measurement stores under ``root`` a dataset may read, name-sorted: folders with a
    campaign record, less the test sets of the registry's HELDOUT_SUITES."""
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")
                  and (p / "campaign.json").is_file() and _suite(p) not in HELDOUT_SUITES)


def dataset_stores(root: Path | None = None) -> list[Path]:
    """:func:`_stores` of the data directory (or ``root``); [] for an installed package with none."""
    root = root or _measurements_root()
    return _stores(Path(root)) if root is not None else []


def _suite(store: Path) -> str | None:
    """The suite a store's campaign record names (a store folder is ``<suite>[-<machine tag>]``)."""
    try:
        record = json.loads((store / "campaign.json").read_text())
    except (OSError, json.JSONDecodeError):
        return None
    return record.get("suite") if isinstance(record, dict) else None


def _has_rows(platform_dir: Path) -> bool:
    return any(platform_dir.glob("shard-*.parquet")) or any(platform_dir.glob("parts/*.parquet"))


def _probe(platform_dir: Path) -> dict:
    try:
        probe = json.loads((platform_dir / "hardware.json").read_text())
    except (OSError, json.JSONDecodeError):
        return {}
    return probe if isinstance(probe, dict) else {}


def _from_store(collector, stores: list[Path], probe: dict) -> LabelPlatform:
    """A platform of our collectors (perfgraphs.collect.platforms) as measured in ``stores``."""
    software = probe.get("software") or {}
    framework = {"ort": "onnxruntime"}.get(collector.runtime, collector.runtime)
    gpu = probe.get("gpu") or {}
    if collector.is_cuda:
        device, hardware = gpu.get("name") or "cuda", f"gpu {gpu['name']}" if gpu.get("name") else None
    else:
        device = probe.get("cpu_model") or "cpu"
        hardware = f"cpu {device} (machine {probe['machine_id']})" if probe.get("machine_id") else None
    return LabelPlatform(name=collector.name, device=device, device_kind="gpu" if collector.is_cuda else "cpu",
                    precision=collector.precision, layout=None, framework=framework,
                    framework_version=software.get(f"{framework}_version"),
                    torch_version=software.get("torch_version"), cuda_version=software.get("cuda_version"),
                    compiled=False, source=STORE_SOURCE,
                    source_files=tuple(s.name for s in stores), hardware=hardware,
                    peak_gflop_per_s=probe.get("peak_gflops_measured"),
                    memory_bandwidth_gb_per_s=probe.get("memory_bandwidth_gbps_measured"))


def store_platforms(root: Path | None = None, device: str = "cpu") -> tuple[LabelPlatform, ...]:
    """Our collector platforms on ``device`` ("cpu" / "cuda") that some store under ``root`` holds
    measurements of, name-sorted; each lists the stores holding it and the hardware probe of the
    first of them (where recorded)."""
    from perfgraphs.collect.platforms import PLATFORMS

    holders: dict[str, list[Path]] = {}
    root = root or _measurements_root()
    for store in _stores(Path(root)) if root is not None else []:
        for pdir in sorted(p for p in store.iterdir() if p.is_dir()):
            collector = PLATFORMS.get(pdir.name)
            if collector is not None and collector.device == device and _has_rows(pdir):
                holders.setdefault(pdir.name, []).append(store)
    return tuple(_from_store(PLATFORMS[name], stores, _probe(stores[0] / name))
                 for name, stores in sorted(holders.items()))


def cpu_store_platforms(root: Path | None = None) -> tuple[LabelPlatform, ...]:
    return store_platforms(root, "cpu")


# -- a config's platforms ----------------------------------------------------------------------------

# Config.platform_sources name these; each returns the platforms its source holds now.
SOURCES = {
    TIMM_SOURCE: lambda measurements_root=None, external_dir=None: timm_platforms(external_dir),
    CPU_STORES_SOURCE: lambda measurements_root=None, external_dir=None: cpu_store_platforms(measurements_root),
}


def discover_platforms(sources: tuple[str, ...], measurements_root: Path | None = None,
                       external_dir: Path | str | None = None) -> tuple[LabelPlatform, ...]:
    """The platforms ``sources`` hold now, source by source, each name-sorted."""
    out: list[LabelPlatform] = []
    for source in sources:
        if source not in SOURCES:
            raise PerfgraphsError(f"unknown platform source {source!r} (known: {', '.join(SOURCES)})")
        out += [p for p in SOURCES[source](measurements_root=measurements_root, external_dir=external_dir)
                if p.name not in {q.name for q in out}]
    return tuple(out)


def dataset_of(config: Config) -> Dataset | None:
    """The registered dataset holding this very config (None: a config made elsewhere)."""
    return next((ds for ds in DATASETS.values() if any(c is config for c in ds.configs)), None)


def built_platforms(config: Config, home: Path | None = None) -> tuple[LabelPlatform, ...] | None:
    """The platforms a built config's manifest records; None when it is not built (or was built by
    a version that did not record them)."""
    from perfgraphs.data.folders import dataset_folder
    from perfgraphs.data.manifest import read_manifest

    dataset = dataset_of(config)
    if dataset is None:
        return None
    try:
        manifest = read_manifest(dataset_folder(dataset, config, home))
    except PerfgraphsError:
        return None  # a damaged build: loading it says so; its platforms are the sources'
    records = (manifest or {}).get("platforms")
    if not isinstance(records, list):
        return None
    return tuple(LabelPlatform.from_record(r) for r in records if isinstance(r, dict))


def config_platforms(config: Config, home: Path | None = None) -> tuple[LabelPlatform, ...]:
    """A multi-platform config's platforms: those its build recorded, else its sources' now."""
    if not config.platform_sources:
        return ()
    built = built_platforms(config, home)
    return built if built is not None else discover_platforms(config.platform_sources)


# -- measured stores as configs ----------------------------------------------------------------------


def hardware_tag(gpu_name: str) -> str:
    """``NVIDIA H200`` -> ``h200``, ``NVIDIA GeForce RTX 4090`` -> ``geforce-rtx-4090``."""
    name = re.sub(r"^nvidia\s+", "", gpu_name.strip(), flags=re.IGNORECASE)
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def _rows_protocol(platform_dir: Path) -> tuple[str | None, str | None]:
    """(protocol, mode) of a store's rows, from one of its files (a store holds one plan's rows)."""
    import pyarrow.parquet as pq

    files = sorted(platform_dir.glob("shard-*.parquet")) or sorted(platform_dir.glob("parts/*.parquet"))
    for path in files:
        try:
            # ParquetFile, not read_table: read_table goes through pyarrow.dataset, which imports
            # pandas, and this runs in every process that resolves a dataset (predict's cached call too)
            table = pq.ParquetFile(path).read(columns=["protocol", "mode"])
        except Exception:  # noqa: BLE001 (a damaged file is the store's verifier's to report)
            continue
        if table.num_rows:
            return table.column("protocol")[0].as_py(), table.column("mode")[0].as_py()
    return None, None


def store_configs(dataset: Dataset, root: Path | None = None) -> tuple[Config, ...]:
    """The configs of ``dataset`` that measured stores under ``root`` make, beyond those the
    registry names (a store is named by a config's ``suite``): one per store and collector platform
    on the dataset's store device whose rows follow the dataset's measurement protocol."""
    spec = dataset.store_configs
    if spec is None:
        return ()
    root = root or _measurements_root()
    if root is None:
        return ()
    root = Path(root)
    return _store_configs(dataset.name, spec, tuple(c.suite for c in dataset.configs if c.suite),
                          tuple(c.name for c in dataset.configs), root, _signature(root))


def _signature(root: Path) -> tuple:
    """What store discovery depends on: the stores' platform folders and their probes."""
    out = []
    for store in _stores(root):
        for pdir in sorted(p for p in store.iterdir() if p.is_dir()):
            hw = pdir / "hardware.json"
            out.append((store.name, pdir.name, hw.stat().st_mtime_ns if hw.exists() else 0,
                        pdir.stat().st_mtime_ns))
    return tuple(out)


@lru_cache(maxsize=32)
def _store_configs(dataset: str, spec, registered: tuple[str, ...], names: tuple[str, ...], root: Path,
                   signature: tuple) -> tuple[Config, ...]:
    from perfgraphs.collect.platforms import PLATFORMS

    found: list[Config] = []
    taken = set(names)
    for store in _stores(root):
        if store.name in registered:
            continue
        for pdir in sorted(p for p in store.iterdir() if p.is_dir()):
            collector = PLATFORMS.get(pdir.name)
            if collector is None or collector.device != spec.device or not _has_rows(pdir):
                continue
            if _rows_protocol(pdir) != (spec.protocol, spec.mode):
                continue
            platform = _from_store(collector, [store], _probe(pdir))
            if platform.hardware is None:
                continue  # a store that does not say which hardware measured it names no config
            name = f"{hardware_tag(platform.device)}-{collector.runtime}-{collector.precision}"
            if name in taken:
                name = f"{store.name}-{collector.runtime}-{collector.precision}"
            if name in taken:
                continue
            taken.add(name)
            found.append(Config(
                name, spec.description.format(device=platform.device, store=store.name,
                                              platform=collector.name),
                GRAPH_ROWS, spec.targets, platform=collector.name, suite=store.name,
                split_protocols=spec.split_protocols, hardware=platform.device, recipe=spec.recipe,
                sources=(*spec.sources, f"suite:{store.name}")))
    return tuple(found)


install_discovery(Discovery(config_platforms=lambda config: tuple(p.name for p in config_platforms(config)),
                            store_configs=lambda dataset: store_configs(dataset)))
