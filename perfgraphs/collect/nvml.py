"""NVML read-outs (GPU memory, power, energy counter, MIG profile), imported lazily.

``pynvml`` comes from the ``nvidia-ml-py`` package; without it (or without a GPU) every function
returns None instead of failing, so CPU-only machines never need it.
"""

from __future__ import annotations


def _handle():
    try:
        import pynvml

        pynvml.nvmlInit()
        return pynvml, pynvml.nvmlDeviceGetHandleByIndex(0)
    except Exception:  # no package, no driver, no device
        return None, None


def energy_mj() -> float | None:
    """Total energy since driver load, in mJ (Volta and newer)."""
    nv, h = _handle()
    if h is None:
        return None
    try:
        return float(nv.nvmlDeviceGetTotalEnergyConsumption(h))
    except Exception:
        return None


def power_w() -> float | None:
    nv, h = _handle()
    if h is None:
        return None
    try:
        return nv.nvmlDeviceGetPowerUsage(h) / 1000.0
    except Exception:
        return None


def memory_used_mb() -> float | None:
    nv, h = _handle()
    if h is None:
        return None
    try:
        return nv.nvmlDeviceGetMemoryInfo(h).used / 2**20
    except Exception:
        return None


def mig_profile() -> str | None:
    """The MIG profile (e.g. '1g.10gb') of the first MIG device, or None when MIG is off."""
    nv, h = _handle()
    if h is None:
        return None
    try:
        current, _pending = nv.nvmlDeviceGetMigMode(h)
        if not current:
            return None
        mig = nv.nvmlDeviceGetMigDeviceHandleByIndex(h, 0)
        name = nv.nvmlDeviceGetName(mig)
        name = name.decode() if isinstance(name, bytes) else name
        return name.split("MIG", 1)[-1].strip() or name
    except Exception:
        return None


def driver_version() -> str | None:
    nv, h = _handle()
    if h is None:
        return None
    try:
        v = nv.nvmlSystemGetDriverVersion()
        return v.decode() if isinstance(v, bytes) else v
    except Exception:
        return None


def sm_clock_mhz() -> float | None:
    nv, h = _handle()
    if h is None:
        return None
    try:
        return float(nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM))
    except Exception:
        return None


def temperature_c() -> float | None:
    nv, h = _handle()
    if h is None:
        return None
    try:
        return float(nv.nvmlDeviceGetTemperature(h, nv.NVML_TEMPERATURE_GPU))
    except Exception:
        return None
