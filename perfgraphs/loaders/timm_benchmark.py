"""Importer for timm's published inference benchmarks (``results/benchmark-infer-*.csv``).

The pytorch-image-models repository publishes, per platform, one CSV of every timm model measured
by timm's own ``benchmark.py``: ~20,000 real (model, platform) → latency rows over two GPU
generations and two CPUs. The platform is encoded only in the file name, the column order differs
between files and some batch sizes are written as floats ("1024.0"), so this module normalises all
of it into one typed ``pyarrow.Table``. No data is committed here.

The importer reads every ``benchmark-infer-*.csv`` of its source folder that parses (see
:func:`import_timm_benchmark`): a newer result file placed beside the others is a new platform, a
file that does not parse is skipped with one line saying why. The files of the pinned upstream
commit keep their committed sha256 (a pinned name with other bytes is refused), and the build
records the name and sha256 of every file it read, so a release stays reproducible.
"""

from __future__ import annotations

import csv
import re
import statistics
import warnings
from collections import defaultdict
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

import pyarrow as pa

from perfgraphs.loaders.sources import (DiscoveredFiles, ImportedFile, SkippedFile, SkippedSourceFileWarning,
                                        SourceFile, SourceFormatError, discover_source)

TIMM_COMMIT = "aa4b5850c1543fa488abf260f18390eda46cf85d"
TIMM_SUBDIR = "timm-benchmark"
TIMM_URL = ("https://raw.githubusercontent.com/huggingface/pytorch-image-models/"
            f"{TIMM_COMMIT}/results/{{name}}")

# sha256 of each upstream inference file at TIMM_COMMIT (hashes, not data).
_INFER_SHA256: dict[str, str] = {
    "benchmark-infer-amp-nchw-pt113-cu117-rtx3090.csv": "7f0b9cc6e9c4d31c7229f7feafb46a42fec447ac2a51fbe920ae9ebfef4df828",
    "benchmark-infer-amp-nchw-pt210-cu121-rtx3090.csv": "b4fd25732fc610388c92974c00f7de82cd002ea0049c0afb3259de865345ab07",
    "benchmark-infer-amp-nchw-pt240-cu124-rtx3090.csv": "229c10d809d5ef0cc28cc5d875f1170e5554c25ad5251bbcd8cfe1890380981d",
    "benchmark-infer-amp-nchw-pt240-cu124-rtx4090-dynamo.csv": "0a2d19507b039cd840b19c336dc139873b1a3b612a500859abceda5ea11317aa",
    "benchmark-infer-amp-nchw-pt240-cu124-rtx4090.csv": "3ead09bcdd508312cd52f69eeefca1e7edae714b2fd55e2daec5d32e2325f396",
    "benchmark-infer-amp-nchw-pt291-cu128-4090-dynamo.csv": "87ac4a07fefbbfe70aa7492a4167e2964b7699fae1d5968b15439599412988c5",
    "benchmark-infer-amp-nchw-pt291-cu128-4090.csv": "7ef180f30bfcf3271aed993ddff2114c88a83b58e6f7e56acbd76e702e6f3136",
    "benchmark-infer-amp-nhwc-pt113-cu117-rtx3090.csv": "3513c2a34084b9073e61b03f25038e8683e892ec4fb3e1ddd96c77a743d3b10f",
    "benchmark-infer-amp-nhwc-pt210-cu121-rtx3090.csv": "0a461ad05fc9b54430ff64ec0982b99f39f2c3df25c6c6a7606b9b7cbbf64431",
    "benchmark-infer-amp-nhwc-pt240-cu124-rtx3090.csv": "0ee56fb006cad780c5931d314422874777502d408f734273bcac4c74d5e3c67a",
    "benchmark-infer-amp-nhwc-pt240-cu124-rtx4090.csv": "3a7e2b69dc2a51992ac5abdbdb8a7579626dc565e3335a0836db2b84bf3516b2",
    "benchmark-infer-fp32-nchw-pt221-cpu-i9_10940x-dynamo.csv": "60008ad8d57f44303f0a6241fecf8acdba30bb91e533c20e657c53582f899f4b",
    "benchmark-infer-fp32-nchw-pt240-cpu-i7_12700h-dynamo.csv": "d0566bba4da7273d662b89ac8ff8705027c2921b3cb946967fa22ffa8713fd5b",
    "benchmark-infer-fp32-nchw-pt240-cpu-i9_10940x-dynamo.csv": "3491328c13aac76d638ca0bf94c7fcc8a7ba69a32e83612a7b6b3deb1da9c80e",
}

TIMM_INFER_FILES: tuple[SourceFile, ...] = tuple(
    SourceFile(name, TIMM_URL.format(name=name), sha) for name, sha in _INFER_SHA256.items()
)
# The files of the source folder the importer reads (train results and metadata are not latency
# labels of an inference platform).
TIMM_PATTERNS = ("benchmark-infer-*.csv",)

# Upstream column -> (our column, parser). Units: step time is ms per batch; param_count is in
# millions; gmacs is GMACs per sample; macts is millions of activations per sample.
_REQUIRED = ("model", "infer_img_size", "infer_samples_per_sec", "infer_step_time",
             "infer_batch_size")

SCHEMA = pa.schema([
    ("arch", pa.string()),
    ("model_name", pa.string()),
    ("pretrained_tag", pa.string()),
    ("img_size", pa.int32()),
    ("batch_size", pa.int32()),
    ("platform", pa.string()),
    ("device", pa.string()),
    ("precision", pa.string()),
    ("layout", pa.string()),
    ("torch_version", pa.string()),
    ("cuda_version", pa.string()),
    ("compiled", pa.bool_()),
    ("latency_ms", pa.float64()),
    ("throughput_samples_per_s", pa.float64()),
    ("param_count_millions", pa.float64()),
    ("gmacs_per_sample", pa.float64()),
    ("activations_millions", pa.float64()),
    ("source_file", pa.string()),
    ("source_commit", pa.string()),
])


@dataclass(frozen=True)
class TimmPlatform:
    """What a timm result file name says about where it was measured."""

    name: str  # e.g. "timm-rtx4090-amp-nchw-pt291-cu128-dynamo"
    device: str  # rtx3090 | rtx4090 | i9_10940x | i7_12700h
    device_kind: str  # "gpu" | "cpu"
    precision: str  # amp | fp32 (upstream also has amp_bf16 / bf16 files not yet pinned)
    layout: str  # nchw | nhwc
    torch_version: str  # "1.13", "2.4.0"
    cuda_version: str | None  # "12.4"; None on CPU
    compiled: bool  # torch.compile (dynamo)
    source_file: str


_FILE_RE = re.compile(
    r"^benchmark-infer-(?P<precision>amp|amp_bf16|bf16|fp16|fp32)-(?P<layout>nchw|nhwc)-pt(?P<torch>\d+)"
    r"-(?P<accel>cu\d+|cpu)-(?P<device>[a-z0-9_]+?)(?P<dynamo>-dynamo)?\.csv$"
)


def parse_platform(file_name: str) -> TimmPlatform:
    """Parse ``benchmark-infer-amp-nchw-pt240-cu124-rtx4090-dynamo.csv`` into a platform.

    The newest files write the GPU as bare ``4090``; it is normalised to ``rtx4090`` so the same
    card has one name across PyTorch versions (needed for cross-version comparisons).
    """
    m = _FILE_RE.match(Path(file_name).name)
    if m is None:
        raise SourceFormatError(f"not a timm inference benchmark file name: {file_name}")
    device = m["device"]
    if re.fullmatch(r"\d{4}", device):
        device = f"rtx{device}"
    torch_tag, accel = m["torch"], m["accel"]
    cuda = _cuda_version(accel[2:]) if accel.startswith("cu") else None
    compiled = m["dynamo"] is not None
    parts = ["timm", device, m["precision"], m["layout"], f"pt{torch_tag}"]
    if accel != "cpu":
        parts.append(accel)
    name = "-".join(parts) + ("-dynamo" if compiled else "")
    return TimmPlatform(name=name, device=device, device_kind="gpu" if cuda else "cpu",
                        precision=m["precision"], layout=m["layout"],
                        torch_version=_torch_version(torch_tag), cuda_version=cuda,
                        compiled=compiled, source_file=Path(file_name).name)


def _torch_version(tag: str) -> str:
    """``113`` -> "1.13", ``240`` -> "2.4.0", ``291`` -> "2.9.1".

    PyTorch 1.x reached minor 13, so its tags are major + two-digit minor (patch not encoded);
    2.x tags are major, minor, patch digits.
    """
    if tag.startswith("1") and len(tag) == 3:
        return f"1.{int(tag[1:])}"
    if tag.startswith("2") and len(tag) == 3:
        return f"2.{tag[1]}.{tag[2]}"
    raise SourceFormatError(f"unrecognised PyTorch version tag pt{tag}")


def _cuda_version(digits: str) -> str:
    """``117`` -> "11.7", ``128`` -> "12.8": the last digit is the minor version."""
    return f"{int(digits[:-1])}.{digits[-1]}"


@dataclass(frozen=True)
class TimmImport:
    """What one import read: the rows, the files they came from, and the files skipped."""

    table: pa.Table
    files: tuple[ImportedFile, ...]
    skipped: tuple[SkippedFile, ...]
    platforms: tuple[TimmPlatform, ...]  # one per imported file, in the order of ``files``


def discover_timm_files(local_dir: Path | str | None = None, cache_dir: Path | str | None = None, *,
                        progress: bool = True, download: bool = True) -> DiscoveredFiles:
    """The candidate result files of the source folder (see :func:`sources.discover_source`)."""
    return discover_source(TIMM_INFER_FILES, TIMM_PATTERNS, local_dir, cache_dir, subdir=TIMM_SUBDIR,
                           progress=progress, download=download)


def import_timm_benchmark(local_dir: Path | str | None = None, cache_dir: Path | str | None = None, *,
                          progress: bool = True, download: bool = True, warn: bool = True) -> TimmImport:
    """Every inference result file of the source folder that parses, one row per (file, CSV row).

    A file is skipped, with one :class:`SkippedSourceFileWarning` line naming it and the reason,
    when its name encodes no platform, its columns or values do not parse, or its platform is
    already imported from another file (two files for one platform would make its labels
    ambiguous; a pinned file's is kept, else the first in name order). A pinned file with other bytes than pinned is
    refused (:class:`ChecksumMismatchError`), never skipped. ``download=False`` reads only what is
    local (the user's folder or the cache) and imports nothing when there is none.
    """
    found = discover_timm_files(local_dir, cache_dir, progress=progress, download=download)
    tables, files, skipped, plats, owner = [], [], [], [], {}
    # the pinned files first: a copy under another name never displaces the file of the pinned commit
    for name in sorted(found.paths, key=lambda n: (n not in _INFER_SHA256, n)):
        path = found.paths[name]
        try:
            plat, table = _parsed_file(str(path), found.sha256[name])
        except (SourceFormatError, UnicodeDecodeError, csv.Error, OSError) as exc:
            skipped.append(SkippedFile(name, _one_line(exc)))
            continue
        if plat.name in owner:
            skipped.append(SkippedFile(name, f"platform {plat.name} is already imported from {owner[plat.name]}"))
            continue
        owner[plat.name] = name
        tables.append(table)
        files.append(ImportedFile(name, found.sha256[name]))
        plats.append(plat)
    if warn:
        for s in skipped:
            warnings.warn(f"{TIMM_SUBDIR}: skipped {s.name}: {s.reason}", SkippedSourceFileWarning, stacklevel=2)
    table = pa.concat_tables(tables) if tables else SCHEMA.empty_table()
    return TimmImport(table, tuple(files), tuple(skipped), tuple(plats))


def load_timm_benchmark(local_dir: Path | str | None = None, cache_dir: Path | str | None = None,
                        *, progress: bool = True) -> pa.Table:
    """All inference rows of the source folder's result files (:func:`import_timm_benchmark`).

    Rows whose measurement failed upstream (empty throughput / step time / batch size) are kept
    with nulls, so the row count equals the CSV row count; filter on ``latency_ms`` to drop them.
    Repeated (arch, img_size) rows within one file (an architecture benchmarked under several
    pretrained tags) are kept too; see :func:`dedupe_latest`.
    """
    return import_timm_benchmark(local_dir, cache_dir, progress=progress).table


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


@lru_cache(maxsize=128)
def _parsed_file(path: str, sha256: str) -> tuple[TimmPlatform, pa.Table]:
    """One file's platform and rows; cached by content (the sha256 was just taken from the bytes)."""
    name = Path(path).name
    plat = parse_platform(name)
    columns: dict[str, list] = {f.name: [] for f in SCHEMA}
    # the pinned commit is the provenance of the pinned bytes only; another file's is its sha256
    commit = TIMM_COMMIT if _INFER_SHA256.get(name) == sha256 else None
    _read_file(Path(path), plat, columns, commit)
    if not columns["model_name"]:
        raise SourceFormatError(f"{name}: no rows")
    return plat, pa.table(columns, schema=SCHEMA)


def _read_file(path: Path, plat: TimmPlatform, out: dict[str, list], commit: str | None) -> None:
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in _REQUIRED if c not in (reader.fieldnames or [])]
        if missing:
            raise SourceFormatError(f"{plat.source_file}: missing columns {missing}")
        for lineno, row in enumerate(reader, start=2):
            name = (row["model"] or "").strip()
            if not name:
                raise SourceFormatError(f"{plat.source_file}:{lineno}: empty model name")
            arch, _, tag = name.partition(".")
            try:
                values = {
                    "arch": arch,
                    "model_name": name,
                    "pretrained_tag": tag or None,
                    "img_size": _int(row["infer_img_size"]),
                    "batch_size": _int(row["infer_batch_size"]),
                    "latency_ms": _float(row["infer_step_time"]),
                    "throughput_samples_per_s": _float(row["infer_samples_per_sec"]),
                    "param_count_millions": _float(row.get("param_count")),
                    "gmacs_per_sample": _float(row.get("infer_gmacs")),
                    "activations_millions": _float(row.get("infer_macts")),
                }
            except ValueError as e:
                raise SourceFormatError(f"{plat.source_file}:{lineno}: {e}") from None
            values.update(platform=plat.name, device=plat.device, precision=plat.precision,
                          layout=plat.layout, torch_version=plat.torch_version,
                          cuda_version=plat.cuda_version, compiled=plat.compiled,
                          source_file=plat.source_file, source_commit=commit)
            for k, v in values.items():
                out[k].append(v)


def _float(text: str | None) -> float | None:
    text = (text or "").strip()
    return float(text) if text else None


def _int(text: str | None) -> int | None:
    """Integers that some files write as floats ("1024.0"); a fractional value is an error."""
    x = _float(text)
    if x is None:
        return None
    if not x.is_integer():
        raise ValueError(f"expected an integer, got {text!r}")
    return int(x)


def dedupe_latest(table: pa.Table) -> pa.Table:
    """One row per (source_file, arch, img_size): the last one in file order.

    timm lists an architecture once per pretrained tag (``resnet50.a1_in1k``, ``resnet50.tv_in1k``)
    although the graph, and so the latency, is the same; a dataset keyed by architecture wants one
    row. The last row is kept because benchmark scripts append re-runs.
    """
    last: dict[tuple, int] = {}
    keys = zip(table["source_file"].to_pylist(), table["arch"].to_pylist(),
               table["img_size"].to_pylist())
    for i, key in enumerate(keys):
        last[key] = i
    return table.take(sorted(last.values()))


def platforms(table: pa.Table) -> list[dict]:
    """The distinct platforms of a table (as dicts, ordered by name), with their row counts."""
    counts: dict[str, int] = defaultdict(int)
    for name in table["platform"].to_pylist():
        counts[name] += 1
    by_name = {}
    for src in set(table["source_file"].to_pylist()):
        p = parse_platform(src)
        by_name[p.name] = asdict(p) | {"rows": counts[p.name]}
    return [by_name[n] for n in sorted(by_name)]


@dataclass(frozen=True)
class NoiseFloor:
    """Cross-PyTorch-version disagreement for one device group."""

    group: str  # "rtx3090/amp/nchw", "rtx4090/amp/nchw/dynamo"
    mape_percent: float
    median_ape_percent: float  # the errors are heavy-tailed: a few models moved a lot
    n_comparisons: int  # ordered (version A predicts version B) pairs averaged
    n_configs: int  # configurations measured under >= 2 versions
    torch_versions: tuple[str, ...]


def cross_version_noise_floor_details(table: pa.Table) -> list[NoiseFloor]:
    """How much the *same* configuration's latency moves between PyTorch versions.

    A configuration is (arch, img_size, batch_size, device, precision, layout, compiled); eager and
    torch.compile runs are different programs, so they are never compared with each other. For
    every configuration with rows under several PyTorch versions, each version's latency is used
    as the prediction of every other version's: the error a perfect predictor of one software
    stack makes on another. MAPE = mean(|a - b| / b) over all ordered pairs (a != b versions).
    Duplicate rows of one configuration within a file are averaged first.
    """
    # imported here: pyarrow.compute builds ~300 wrappers on import (0.3 s), which discovering the
    # platforms (every `perfgraphs predict`) does not need
    import pyarrow.compute as pc

    t = table.filter(pc.is_valid(table["latency_ms"]))
    cols = [t[c].to_pylist() for c in ("arch", "img_size", "batch_size", "device", "precision",
                                        "layout", "compiled", "torch_version", "latency_ms")]
    per_version: dict[tuple, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for arch, img, bs, dev, prec, lay, comp, ver, lat in zip(*cols):
        per_version[(arch, img, bs, dev, prec, lay, comp)][ver].append(lat)
    errors: dict[str, list[float]] = defaultdict(list)
    n_configs: dict[str, int] = defaultdict(int)
    versions: dict[str, set] = defaultdict(set)
    for (_, _, _, dev, prec, lay, comp), by_ver in per_version.items():
        if len(by_ver) < 2:
            continue
        group = f"{dev}/{prec}/{lay}" + ("/dynamo" if comp else "")
        n_configs[group] += 1
        versions[group].update(by_ver)
        lat = {v: sum(xs) / len(xs) for v, xs in by_ver.items()}
        for va, a in lat.items():
            for vb, b in lat.items():
                if va != vb and b > 0:
                    errors[group].append(abs(a - b) / b)
    return [NoiseFloor(g, 100.0 * statistics.fmean(e), 100.0 * statistics.median(e), len(e),
                       n_configs[g], tuple(sorted(versions[g], key=_version_key)))
            for g, e in sorted(errors.items())]


def imported_noise_floors(imported: TimmImport) -> dict[str, NoiseFloor]:
    """:func:`cross_version_noise_floor_details` of an import, by device group; cached by the
    imported files' content (their sha256s), because a transfer board's page asks once per
    platform and each computation walks every row (0.2 s)."""
    key = imported.files
    if key not in _FLOORS_BY_CONTENT:
        if len(_FLOORS_BY_CONTENT) >= 8:  # bounded: a long process that re-imports grown sources
            _FLOORS_BY_CONTENT.clear()
        _FLOORS_BY_CONTENT[key] = {nf.group: nf for nf in cross_version_noise_floor_details(imported.table)}
    return _FLOORS_BY_CONTENT[key]


_FLOORS_BY_CONTENT: dict[tuple[ImportedFile, ...], dict[str, NoiseFloor]] = {}


def cross_version_noise_floor(table: pa.Table) -> dict[str, float]:
    """``{"rtx3090/amp/nchw": MAPE %, ...}``; see :func:`cross_version_noise_floor_details`."""
    return {nf.group: nf.mape_percent for nf in cross_version_noise_floor_details(table)}


def _version_key(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.split("."))
