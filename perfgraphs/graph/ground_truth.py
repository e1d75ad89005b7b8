"""Independent published numbers to check extraction against (used by tests and benchmarks).

timm publishes, for each architecture and image size, ``param_count`` (millions) and
``infer_gmacs`` (fvcore MACs per sample) in the CSV files of its ``results/`` folder;
torchvision publishes ``num_params`` and ``_ops`` (GMACs, which it calls GFLOPS) with its weight
enums. Nothing here is copied: the timm files are read from a directory the caller names.
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class PublishedCounts:
    params: float  # parameters
    gmacs: float  # GMACs per sample
    source: str


def default_timm_results_dir() -> Path | None:
    env = os.environ.get("PERFGRAPHS_TIMM_RESULTS")
    candidates = [Path(env)] if env else []
    from perfgraphs.paths import external_dir, shared_external_dir

    candidates += [d / "timm-benchmark" for d in (external_dir(), shared_external_dir()) if d is not None]
    return next((c for c in candidates if c.is_dir() and any(c.glob("benchmark-infer-*.csv"))), None)


def timm_published(results_dir: Path) -> dict[tuple[str, int], PublishedCounts]:
    """(arch, image size) → counts, from every inference CSV that has ``infer_gmacs``.

    Newer files win (sorted by name, which encodes the PyTorch version)."""
    table: dict[tuple[str, int], PublishedCounts] = {}
    for path in sorted(results_dir.glob("benchmark-infer-*.csv")):
        with path.open(newline="") as f:
            for row in csv.DictReader(f):
                if not row.get("infer_gmacs") or not row.get("param_count"):
                    continue
                key = (row["model"].split(".")[0], int(float(row["infer_img_size"])))
                table[key] = PublishedCounts(
                    params=float(row["param_count"]) * 1e6, gmacs=float(row["infer_gmacs"]), source=path.name
                )
    return table


def torchvision_published(arch: str) -> PublishedCounts:
    import torchvision

    weights = torchvision.models.get_model_weights(arch)
    meta = next(iter(weights)).meta
    return PublishedCounts(params=float(meta["num_params"]), gmacs=float(meta["_ops"]), source="torchvision")


def read_sample(path: Path) -> list[tuple[str, int]]:
    out = []
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, size = line.split()
            out.append((name, int(size)))
    return out
