"""GPU energy meters for the measurement window (:func:`perfgraphs.collect.backends.energy_window`).

Two ways to read one GPU's energy over a window, recorded per row as ``energy_meter``:

* ``zeus`` — the ML.ENERGY project's ``ZeusMonitor`` (PyPI ``zeus``, in the ``gpu`` extra): the
  library the imported ML.ENERGY labels were measured with, so our labels and theirs come from
  the same window logic (and it keeps up with counter quirks of new GPU generations);
* ``nvml`` — NVML's total-energy counter read at both ends of the window
  (:func:`perfgraphs.collect.nvml.energy_mj`): the fallback where Zeus is not installed or
  cannot open the GPU.

:func:`gpu_energy_meter` picks Zeus where it works, unless ``PERFGRAPHS_ENERGY_METER`` names one
(``zeus`` / ``nvml``: the comparison run of ``plans/compare-energy-meters.py`` measures with each).
"""

from __future__ import annotations

import os
from typing import Callable

from perfgraphs.collect.errors import CollectError

METERS = ("zeus", "nvml")
ENV = "PERFGRAPHS_ENERGY_METER"


class EnergyMeterError(CollectError):
    """An energy meter that was asked for by name and cannot run here."""


class NvmlMeter:
    """Energy over a window from a cumulative counter in mJ (NVML's total energy consumption)."""

    name = "nvml"

    def __init__(self, energy_mj: Callable[[], float | None] | None = None):
        if energy_mj is None:
            from perfgraphs.collect.nvml import energy_mj
        self._read = energy_mj
        self._start: float | None = None

    def begin(self) -> bool:
        self._start = self._read()
        return self._start is not None

    def end(self) -> float | None:
        """Joules since :meth:`begin`; None when the counter is unreadable or did not advance."""
        start, self._start = self._start, None
        stop = self._read()
        if start is None or stop is None or stop <= start:
            return None
        return (stop - start) / 1e3


class ZeusMeter:
    """Energy over a window from a ``ZeusMonitor`` (``begin_window`` / ``end_window``) of one GPU.

    The caller synchronises the device around the window (as the NVML path does), so Zeus is told
    not to (``sync_execution=False``): both meters then see exactly the same iterations."""

    name = "zeus"
    WINDOW = "perfgraphs-energy-window"

    def __init__(self, monitor, gpu_index: int = 0):
        self._monitor, self._gpu = monitor, gpu_index
        self._open = False

    def begin(self) -> bool:
        self._monitor.begin_window(self.WINDOW, sync_execution=False)
        self._open = True
        return True

    def end(self) -> float | None:
        if not self._open:
            return None
        self._open = False
        joules = self._monitor.end_window(self.WINDOW, sync_execution=False).gpu_energy.get(self._gpu)
        return float(joules) if joules is not None and joules > 0 else None


def zeus_monitor(gpu_index: int = 0):
    """A ``ZeusMonitor`` of one GPU (no CPU/RAPL readings: they need root and are not a GPU label)."""
    from zeus.monitor import ZeusMonitor

    return ZeusMonitor(gpu_indices=[gpu_index], cpu_indices=[])


def gpu_energy_meter(gpu_index: int = 0, choice: str | None = None,
                     make_zeus: Callable[[int], object] = zeus_monitor,
                     nvml_energy_mj: Callable[[], float | None] | None = None):
    """The meter for this machine: ``choice`` (default ``$PERFGRAPHS_ENERGY_METER``, else ``auto``)
    is ``zeus``, ``nvml`` or ``auto`` (Zeus where it imports and opens the GPU, else NVML).
    A meter asked for by name that cannot run raises :class:`EnergyMeterError`."""
    choice = (choice or os.environ.get(ENV) or "auto").strip().lower()
    if choice not in (*METERS, "auto"):
        raise EnergyMeterError(f"{ENV}={choice!r}: choose zeus, nvml or auto")
    if choice != "nvml":
        try:
            return ZeusMeter(make_zeus(gpu_index), gpu_index)
        except Exception as exc:  # not installed, or it cannot open this GPU (no driver, no device)
            if choice == "zeus":
                raise EnergyMeterError(f"the zeus energy meter cannot run here: {type(exc).__name__}: {exc}") from exc
    return NvmlMeter(nvml_energy_mj)
