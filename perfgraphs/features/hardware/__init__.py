"""Hardware descriptors: a platform's physics as numbers, one row per device in ``descriptors.csv``.

Each row is a device as its vendor's datasheet states it (the ``source`` column says which, and how
a derived figure was computed); where we measure, the hardware probe's figures (peak GFLOP/s and
memory bandwidth of the cores we pin, :mod:`perfgraphs.collect.hardware`) replace the datasheet's,
and a device we only probe needs no row at all. Adding a device is adding a row: nothing in the
code names one. A user adds rows in a table of their own, ``<perfgraphs home>/hardware/descriptors.csv``
(:func:`user_descriptors_csv`, the shipped table's columns), read over the shipped one: a device
named in both takes the user's row; the installed package is never edited.

Units follow the project's convention: ``_gflop_per_s``, ``_gb_per_s`` (10⁹ bytes), ``_mb``
(10⁶ bytes of cache), ``_gb`` (memory), ``_w``. An empty cell is a figure the source does not give;
it stays None, never a guess.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, fields, replace
from functools import lru_cache
from pathlib import Path

from perfgraphs.errors import PerfgraphsError

DESCRIPTORS_CSV = Path(__file__).with_name("descriptors.csv")
# precisions whose matrix products run on matrix units (tensor cores) where the device has them
HALF_PRECISIONS = frozenset({"amp", "fp16", "bf16"})


class UnknownHardwareError(PerfgraphsError):
    """A platform whose device has no descriptor row and no probe figures."""


class DescriptorTableError(PerfgraphsError):
    """A descriptor table that does not parse (a missing column, a non-number, a duplicate name)."""


@dataclass(frozen=True)
class HardwareDescriptor:
    device: str
    device_kind: str  # "gpu" | "cpu"
    source: str
    aliases: tuple[str, ...] = ()
    compute_units: int | None = None  # SMs of a GPU, cores of a CPU (the cores measured, for a probe)
    peak_fp32_gflop_per_s: float | None = None
    peak_matrix_fp16_gflop_per_s: float | None = None  # dense tensor-core FP16 with FP32 accumulate
    memory_bandwidth_gb_per_s: float | None = None
    last_level_cache_mb: float | None = None
    memory_gb: float | None = None
    tdp_w: float | None = None

    def peak_gflop_per_s(self, precision: str, matrix: bool) -> float:
        """The compute roof for one operator class: matrix products in half precision on the matrix
        units where the device has them, everything else at the FP32 vector peak (a device without
        a published FP32 figure: its matrix peak over 16, the tensor-to-vector ratio of Hopper)."""
        fp32 = self.peak_fp32_gflop_per_s
        half = self.peak_matrix_fp16_gflop_per_s
        if matrix and precision in HALF_PRECISIONS and half:
            return half
        if fp32:
            return fp32
        if half:
            return half / 16.0
        raise UnknownHardwareError(f"{self.device}: no compute peak in its descriptor ({self.source})")

    def ridge_flop_per_byte(self, precision: str = "fp32") -> float:
        """The roofline's ridge point (FLOP per byte) of matrix products."""
        return self.peak_gflop_per_s(precision, True) / self.memory_bandwidth_gb_per_s

    def as_features(self, precision: str) -> dict[str, float]:
        """Numbers a predictor takes instead of a platform id (log scale; NaN where unknown)."""
        def log(v):
            return math.log(v) if v else math.nan

        return {"hw_log_matrix_gflop_per_s": log(self.peak_gflop_per_s(precision, True)),
                "hw_log_vector_gflop_per_s": log(self.peak_gflop_per_s(precision, False)),
                "hw_log_bandwidth_gb_per_s": log(self.memory_bandwidth_gb_per_s),
                "hw_log_ridge_flop_per_byte": log(self.ridge_flop_per_byte(precision)),
                "hw_log_compute_units": log(self.compute_units),
                "hw_log_cache_mb": log(self.last_level_cache_mb),
                "hw_log_tdp_w": log(self.tdp_w),
                "hw_is_gpu": float(self.device_kind == "gpu")}


_NUMERIC = {f.name: f.type for f in fields(HardwareDescriptor)
            if f.name not in ("device", "device_kind", "source", "aliases")}


def read_descriptors(path: Path | str = DESCRIPTORS_CSV) -> tuple[HardwareDescriptor, ...]:
    path = Path(path)
    try:
        with path.open(newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as exc:
        raise DescriptorTableError(f"cannot read the descriptor table {path}: {exc.strerror}") from None
    out, seen = [], set()
    for n, row in enumerate(rows, start=2):
        missing = [k for k in ("device", "device_kind", "source") if not (row.get(k) or "").strip()]
        if missing:
            raise DescriptorTableError(f"{path.name} line {n}: empty {', '.join(missing)}")
        if row["device_kind"] not in ("gpu", "cpu"):
            raise DescriptorTableError(f"{path.name} line {n}: device_kind {row['device_kind']!r} is not gpu or cpu")
        values = {}
        for name, kind in _NUMERIC.items():
            cell = (row.get(name) or "").strip()
            if not cell:
                values[name] = None
                continue
            try:
                value = int(cell) if "int" in str(kind) else float(cell)
            except ValueError:
                raise DescriptorTableError(f"{path.name} line {n}: {name} {cell!r} is not a number") from None
            if not value > 0:
                raise DescriptorTableError(f"{path.name} line {n}: {name} must be positive, not {cell}")
            values[name] = value
        # a row that cannot give a roofline is refused here, not as a failure deep in a prediction
        if values["memory_bandwidth_gb_per_s"] is None or not (values["peak_fp32_gflop_per_s"]
                                                                or values["peak_matrix_fp16_gflop_per_s"]):
            raise DescriptorTableError(f"{path.name} line {n}: a device needs its memory bandwidth and a compute peak")
        aliases = tuple(a.strip() for a in (row.get("aliases") or "").split(";") if a.strip())
        names = {row["device"].strip().lower(), *(a.lower() for a in aliases)}
        if names & seen:
            raise DescriptorTableError(f"{path.name} line {n}: {', '.join(sorted(names & seen))} named twice")
        seen |= names
        out.append(HardwareDescriptor(device=row["device"].strip(), device_kind=row["device_kind"],
                                      source=row["source"].strip(), aliases=aliases, **values))
    return tuple(out)


def user_descriptors_csv() -> Path:
    """The user's own descriptor table, read over the shipped one (it need not exist)."""
    from perfgraphs.paths import user_hardware_dir

    return user_hardware_dir() / "descriptors.csv"


@lru_cache(maxsize=8)
def _table(path: str, stamp: tuple) -> dict[str, HardwareDescriptor]:
    return {name.lower(): d for d in read_descriptors(path) for name in (d.device, *d.aliases)}


def _stamped(path: Path) -> dict[str, HardwareDescriptor]:
    try:  # read again when the file changes: a row added is seen at once
        st = path.stat()
        stamp = (st.st_mtime_ns, st.st_size)
    except OSError:
        stamp = ()
    return _table(str(path), stamp)


def find_descriptor(device: str, path: Path | str | None = None) -> HardwareDescriptor | None:
    """The row of ``device`` (a name or alias, any case): from ``path`` alone when given, else from
    the user's table (:func:`user_descriptors_csv`) and then the shipped one."""
    name = str(device).strip().lower()
    if path is not None:
        return _stamped(Path(path)).get(name)
    user = user_descriptors_csv()
    shipped = _stamped(DESCRIPTORS_CSV)
    if not user.is_file():
        return shipped.get(name)
    mine = _stamped(user)
    # a user's row replaces the shipped row it names, under every name of that row
    replaced = {id(shipped[n]): mine[n] for n in mine if n in shipped}
    found = mine.get(name) or shipped.get(name)
    return replaced.get(id(found), found)


def where_to_add() -> str:
    """What a refusal says: the user's table to add a row to, and the shipped one as its template."""
    return (f"add a row to your descriptor table {user_descriptors_csv()} (the columns of {DESCRIPTORS_CSV}, "
            "with the figures' source)")


def descriptor_of(platform, path: Path | str | None = None) -> HardwareDescriptor:
    """A platform's descriptor: its device's row, with the probe's measured peak and bandwidth in
    place of the datasheet's where the platform record carries them (our stores). ``platform`` is
    anything with ``device``, ``device_kind`` and optionally ``peak_gflop_per_s`` and
    ``memory_bandwidth_gb_per_s`` (a :class:`perfgraphs.data.platforms.LabelPlatform`)."""
    row = find_descriptor(platform.device, path)
    peak = getattr(platform, "peak_gflop_per_s", None)
    bandwidth = getattr(platform, "memory_bandwidth_gb_per_s", None)
    if peak and bandwidth:
        probed = dict(peak_fp32_gflop_per_s=float(peak), memory_bandwidth_gb_per_s=float(bandwidth))
        if row is None:
            return HardwareDescriptor(device=platform.device, device_kind=platform.device_kind,
                                      source="hardware probe of our store (the pinned cores)", **probed)
        # the probe measured the cores we pin, not the whole device: its figures win
        return replace(row, source=f"{row.source}; peak and bandwidth from our hardware probe", **probed)
    if row is None:
        raise UnknownHardwareError(f"no hardware descriptor for device {platform.device!r}: {where_to_add()}, "
                                   "or measure it with the probe")
    return row
