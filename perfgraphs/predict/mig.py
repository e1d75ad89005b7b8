"""MIG recommendation from predicted peak memory: the smallest profile of each GPU's table
(``mig_profiles.json``, NVIDIA's MIG user guide) whose memory holds the prediction.

The research trained on the framework's *reserved* peak, an upper bound of what a model needs. Our
GPU labels are PyTorch's peak *allocated* memory (``torch.cuda.max_memory_allocated``), without the
CUDA context and the allocator's cached blocks, so a profile chosen from them can be too small by
those: the caveat says so. A prediction carries the predictor's error (the MAPE shown beside it),
which :func:`recommend_mig` adds as a margin.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

PROFILES_FILE = Path(__file__).resolve().parent / "mig_profiles.json"
CAVEAT = ("predicted peak memory is PyTorch's peak allocated memory (torch.cuda.max_memory_allocated: weights, "
          "activations, workspace), without the CUDA context (several hundred MB) and the allocator's cached blocks: "
          "leave room for them when choosing a profile; the margin covers the predictor's measured error only")


@dataclass(frozen=True)
class MigChoice:
    gpu: str
    profile: str | None  # None: no profile of this GPU holds the prediction
    memory_gb: float | None
    instances_per_gpu: int | None


@dataclass(frozen=True)
class MigRecommendation:
    peak_memory_mb: float  # the prediction the choice is made for
    margin_pct: float  # added to the prediction before choosing
    choices: tuple[MigChoice, ...]
    caveat: str
    source: str


@functools.lru_cache(maxsize=1)
def profile_table() -> dict:
    return json.loads(PROFILES_FILE.read_text())


def recommend_mig(peak_memory_mb: float, margin_pct: float = 0.0) -> MigRecommendation:
    """The smallest profile per GPU (ties: the one with more instances per GPU) holding
    ``peak_memory_mb × (1 + margin_pct / 100)``; memory sizes are decimal GB (1 GB = 1000 MB)."""
    table = profile_table()
    need_gb = peak_memory_mb * (1.0 + margin_pct / 100.0) / 1000.0
    choices = []
    for gpu, profiles in table["gpus"].items():
        fits = [p for p in profiles if p["memory_gb"] >= need_gb]
        best = min(fits, key=lambda p: (p["memory_gb"], -p["instances"]), default=None)
        choices.append(MigChoice(gpu, best and best["profile"], best and float(best["memory_gb"]),
                                 best and int(best["instances"])))
    return MigRecommendation(float(peak_memory_mb), float(margin_pct), tuple(choices), CAVEAT, table["source"])
