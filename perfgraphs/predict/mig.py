"""MIG recommendation from predicted peak memory: the smallest profile of each GPU's table
(``mig_profiles.json``, NVIDIA's MIG user guide) whose memory holds the prediction.

The research's caveat holds: its memory predictor is trained on the peak memory the framework
reserved, which is an *upper bound* of what the model needs (the caching allocator keeps freed
blocks), so a recommended profile errs on the large side; and a prediction carries the
predictor's error (the MAPE shown beside it), so :func:`recommend_mig` can add a margin.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

PROFILES_FILE = Path(__file__).resolve().parent / "mig_profiles.json"
CAVEAT = ("predicted peak memory is an upper bound (the framework's reserved peak, as in the research), so the "
          "profile errs on the large side; the margin covers the predictor's measured error")


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
