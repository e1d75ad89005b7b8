"""Hardware probe: static facts plus *measured* peak compute and memory bandwidth.

Datasheet peaks are not what one pinned thread achieves; the hardware features used by the
multi-platform predictors (SPEC §3, Table 6.3) are the measured ones, taken with the same thread
count and core as the platform's measurements.
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass, field

from perfgraphs.collect.environment import (cpu_caches, cpu_freq_mhz, cpu_model, machine_id,
                                            software_versions, utc_now_iso)


@dataclass
class HardwareProbe:
    platform: str
    machine_id: str
    cpu_model: str
    cpu_arch: str
    logical_cores: int
    physical_cores: int | None
    ram_mb: float
    cpu_freq_mhz: float | None
    caches_kib: dict[str, int]
    threads: int
    core: int | None
    peak_gflops_measured: float
    memory_bandwidth_gbps_measured: float
    gpu: dict | None = None
    software: dict = field(default_factory=dict)
    probed_at_utc: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


def _best_seconds(fn, repeats: int) -> float:
    fn()
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def measure_peak_gflops(cuda: bool = False, dtype=None) -> float:
    import torch

    dtype = dtype or torch.float32
    device = "cuda" if cuda else "cpu"
    n = 8192 if cuda else 1024
    a = torch.randn(n, n, device=device).to(dtype)
    b = torch.randn(n, n, device=device).to(dtype)
    out = torch.empty(n, n, device=device, dtype=dtype)
    reps = 10 if cuda else 4

    def run():
        for _ in range(reps):
            torch.mm(a, b, out=out)
        if cuda:
            torch.cuda.synchronize()

    return 2 * n**3 * reps / _best_seconds(run, 3) / 1e9


def measure_bandwidth_gbps(cuda: bool = False) -> float:
    """Large copy (read + write counted), far beyond the last-level cache."""
    import torch

    device = "cuda" if cuda else "cpu"
    numel = (1 << 28 if cuda else 1 << 26)  # 1 GiB / 256 MiB of float32
    src = torch.ones(numel, device=device)
    dst = torch.empty_like(src)

    def run():
        dst.copy_(src)
        if cuda:
            torch.cuda.synchronize()

    return 2 * numel * 4 / _best_seconds(run, 5) / 1e9


def gpu_properties() -> dict | None:
    import torch

    if not torch.cuda.is_available():
        return None
    p = torch.cuda.get_device_properties(0)
    keys = ["name", "major", "minor", "total_memory", "multi_processor_count", "max_threads_per_multi_processor",
            "max_threads_per_block", "regs_per_multiprocessor", "regs_per_block", "warp_size",
            "shared_memory_per_block", "shared_memory_per_multiprocessor", "shared_memory_per_block_optin",
            "L2_cache_size"]
    props = {k: getattr(p, k) for k in keys if hasattr(p, k)}
    from perfgraphs.collect.nvml import mig_profile

    props["mig_profile"] = mig_profile()
    return props


def probe(platform_name: str, core: int | None = None) -> HardwareProbe:
    """Run in a worker pinned like the platform's measurements (see worker.probe_in_worker)."""
    import platform as pyplatform

    import psutil
    import torch

    from perfgraphs.collect.platforms import get_platform, pin_process

    plat = get_platform(platform_name)
    plat.check_available()
    used_core = None if plat.is_cuda else pin_process(plat, core)
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(plat.precision, torch.float32)
    return HardwareProbe(
        platform=platform_name,
        machine_id=machine_id(),
        cpu_model=cpu_model(),
        cpu_arch=pyplatform.machine(),
        logical_cores=os.cpu_count() or 1,
        physical_cores=psutil.cpu_count(logical=False),
        ram_mb=psutil.virtual_memory().total / 2**20,
        cpu_freq_mhz=cpu_freq_mhz(),
        caches_kib=cpu_caches(),
        threads=plat.threads,
        core=used_core,
        peak_gflops_measured=round(measure_peak_gflops(plat.is_cuda, dtype), 2),
        memory_bandwidth_gbps_measured=round(measure_bandwidth_gbps(plat.is_cuda), 2),
        gpu=gpu_properties() if plat.is_cuda else None,
        software=software_versions(),
        probed_at_utc=utc_now_iso(),
    )
