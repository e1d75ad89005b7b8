"""NVML read-outs (GPU memory, power, energy counter, clocks, MIG profile), imported lazily.

``pynvml`` comes from the ``nvidia-ml-py`` package; without it (or without a GPU) every function
returns None instead of failing, so CPU-only machines never need it.
"""

from __future__ import annotations

from typing import Any, Callable


def _handle():
    try:
        import pynvml

        pynvml.nvmlInit()
        return pynvml, pynvml.nvmlDeviceGetHandleByIndex(0)
    except Exception:  # no package, no driver, no device
        return None, None


def _query(read: Callable[[Any, Any], Any]):
    """``read(pynvml, device handle)``, or None when NVML, the device or that reading is missing."""
    nv, h = _handle()
    if h is None:
        return None
    try:
        return read(nv, h)
    except Exception:  # a reading this GPU or driver does not support
        return None


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else value


def energy_mj() -> float | None:
    """Total energy since driver load, in mJ (Volta and newer)."""
    return _query(lambda nv, h: float(nv.nvmlDeviceGetTotalEnergyConsumption(h)))


def power_w() -> float | None:
    return _query(lambda nv, h: nv.nvmlDeviceGetPowerUsage(h) / 1000.0)


def memory_used_mb() -> float | None:
    return _query(lambda nv, h: nv.nvmlDeviceGetMemoryInfo(h).used / 2**20)


def driver_version() -> str | None:
    return _query(lambda nv, h: _text(nv.nvmlSystemGetDriverVersion()))


def sm_clock_mhz() -> float | None:
    return _query(lambda nv, h: float(nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM)))


def temperature_c() -> float | None:
    return _query(lambda nv, h: float(nv.nvmlDeviceGetTemperature(h, nv.NVML_TEMPERATURE_GPU)))


def mig_profile() -> str | None:
    """The MIG profile (e.g. '1g.10gb') of the first MIG device, or None when MIG is off."""

    def read(nv, h):
        current, _pending = nv.nvmlDeviceGetMigMode(h)
        if not current:
            return None
        name = _text(nv.nvmlDeviceGetName(nv.nvmlDeviceGetMigDeviceHandleByIndex(h, 0)))
        return name.split("MIG", 1)[-1].strip() or name

    return _query(read)
