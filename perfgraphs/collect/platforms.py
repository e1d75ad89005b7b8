"""Platforms: one name = one (runtime, device, precision, threads, core pinning) combination.

Thread count and core pinning are part of a CPU platform's definition because latency on one
pinned core and latency on "whatever cores the OS gives" are different quantities; a measurement
is only comparable with others of the same platform name.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from perfgraphs.collect.errors import PlatformUnavailableError, UnknownPlatformError
from perfgraphs.registry import CPU_TORCH_FP32

DEFAULT_CPU_CORE = 1  # core 0 is left to the OS and to the campaign's bookkeeping


@dataclass(frozen=True)
class CollectorPlatform:
    name: str
    runtime: str  # "torch" | "ort"
    device: str  # "cpu" | "cuda"
    precision: str  # "fp32" | "bf16" | "fp16" | "int8"
    threads: int = 1

    @property
    def is_cuda(self) -> bool:
        return self.device == "cuda"

    def check_available(self) -> None:
        """Raise PlatformUnavailableError with a reason when this machine cannot run it."""
        if self.runtime == "ort":
            try:
                import onnxruntime  # noqa: F401
            except ImportError:
                raise PlatformUnavailableError(f"{self.name}: onnxruntime is not installed") from None
        if self.is_cuda:
            import torch

            if not torch.cuda.is_available():
                raise PlatformUnavailableError(
                    f"{self.name}: no CUDA device on this machine (torch.cuda.is_available() is False)"
                )


PLATFORMS: dict[str, CollectorPlatform] = {
    p.name: p
    for p in (
        CollectorPlatform(CPU_TORCH_FP32, "torch", "cpu", "fp32"),
        CollectorPlatform("cpu-torch-bf16", "torch", "cpu", "bf16"),
        CollectorPlatform("cpu-ort-fp32", "ort", "cpu", "fp32"),
        CollectorPlatform("cpu-ort-int8", "ort", "cpu", "int8"),
        CollectorPlatform("cuda-torch-fp32", "torch", "cuda", "fp32"),
        CollectorPlatform("cuda-torch-fp16", "torch", "cuda", "fp16"),
    )
}


def get_platform(name: str) -> CollectorPlatform:
    try:
        return PLATFORMS[name]
    except KeyError:
        raise UnknownPlatformError(
            f"unknown platform {name!r} (known: {', '.join(PLATFORMS)})"
        ) from None


def pin_process(platform: CollectorPlatform, core: int | None) -> int | None:
    """Pin this process to one core and fix the intra-op thread count; returns the core used.

    A core that this process may not run on (e.g. core 1 on a 1-core container) falls back to
    the first allowed core rather than failing: the core actually used is recorded.
    """
    import torch

    torch.set_num_threads(platform.threads)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:  # already set in this process
        pass
    if core is None or not hasattr(os, "sched_setaffinity"):
        return None
    allowed = sorted(os.sched_getaffinity(0))
    chosen = core if core in allowed else allowed[0]
    os.sched_setaffinity(0, {chosen})
    return chosen
