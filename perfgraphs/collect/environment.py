"""Provenance of a measurement: software versions, CPU, clock, temperature, a machine id, the date.

The machine id is a hash of hardware facts (CPU model, core count, RAM, cache sizes), not of the
hostname: it groups measurements by machine type without identifying a host.
"""

from __future__ import annotations

import hashlib
import os
import platform as pyplatform
import sys
from datetime import datetime, timezone
from functools import lru_cache
from importlib import metadata


def utc_now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def package_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


@lru_cache(maxsize=1)
def software_versions() -> dict[str, str | None]:
    return {
        "python_version": pyplatform.python_version(),
        "torch_version": package_version("torch"),
        "timm_version": package_version("timm"),
        "onnxruntime_version": package_version("onnxruntime"),
        "transformers_version": package_version("transformers"),
    }


@lru_cache(maxsize=1)
def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return pyplatform.processor() or pyplatform.machine()


def cpu_caches() -> dict[str, int]:
    """Cache sizes in KiB keyed l1d/l1i/l2/l3, from sysfs (empty when not exposed)."""
    caches: dict[str, int] = {}
    base = "/sys/devices/system/cpu/cpu0/cache"
    if not os.path.isdir(base):
        return caches
    for entry in sorted(os.listdir(base)):
        if not entry.startswith("index"):
            continue
        try:
            level = open(f"{base}/{entry}/level").read().strip()
            kind = open(f"{base}/{entry}/type").read().strip()
            size = open(f"{base}/{entry}/size").read().strip()
        except OSError:
            continue
        suffix = {"Data": "d", "Instruction": "i"}.get(kind, "")
        kib = int(size[:-1]) * (1024 if size.endswith("M") else 1) if size[-1] in "KM" else int(size) // 1024
        caches[f"l{level}{suffix}_cache_kib"] = kib
    return caches


@lru_cache(maxsize=1)
def machine_id() -> str:
    import psutil

    facts = [cpu_model(), str(os.cpu_count()), str(psutil.virtual_memory().total >> 30),
             repr(sorted(cpu_caches().items())), pyplatform.machine()]
    return hashlib.sha256("|".join(facts).encode()).hexdigest()[:16]


def machine_tag() -> str:
    """Short, path-safe name of this machine: the CPU model's words and the machine id's first 8
    hex digits, e.g. ``amd-epyc-23059b2f`` (store folders and dataset configs use it)."""
    import re

    words = re.sub(r"\(r\)|\(tm\)|cpu|processor|@.*$|\d+-core", " ", cpu_model().lower())
    slug = "-".join(re.findall(r"[a-z0-9]+", words)[:4]) or "cpu"
    return f"{slug}-{machine_id()[:8]}"


def cpu_freq_mhz() -> float | None:
    try:
        import psutil

        freq = psutil.cpu_freq()
        return float(freq.current) if freq and freq.current else None
    except Exception:  # psutil raises NotImplementedError / FileNotFoundError on some VMs
        return None


def cpu_temperature_c() -> float | None:
    """Highest readable CPU temperature, or None (VMs usually expose none)."""
    try:
        import psutil

        temps = psutil.sensors_temperatures() if hasattr(psutil, "sensors_temperatures") else {}
    except Exception:
        return None
    readings = [t.current for entries in temps.values() for t in entries if t.current]
    return max(readings) if readings else None


def environment_columns() -> dict:
    return {
        **software_versions(),
        "cpu_model": cpu_model(),
        "cpu_freq_mhz": cpu_freq_mhz(),
        "cpu_temperature_c": cpu_temperature_c(),
        "machine_id": machine_id(),
        "measured_at_utc": utc_now_iso(),
        "os": f"{pyplatform.system()} {pyplatform.release()}",
    }


# ---------------------------------------------------------------------------------------------
# Process memory (CPU platforms)


def _status_kib(field: str) -> int | None:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def rss_mb() -> float:
    kib = _status_kib("VmRSS")
    if kib is not None:
        return kib / 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def reset_peak_rss() -> bool:
    """Reset the kernel's peak-RSS counter (Linux >= 4.0: write 5 to /proc/self/clear_refs)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def peak_rss_mb() -> float:
    kib = _status_kib("VmHWM")
    if kib is not None:
        return kib / 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
