"""Standard splits, assigned per *structure group* so no graph appears in two parts.

Samples that share a ``structure_hash`` (batch and input-size variants of one architecture, or
two architecture names that export to the same graph) always land in the same part. Splits are
committed as lists of structure hashes per part under ``data/splits/``; ``make_split`` is the
deterministic function that generated them (seeded, independent of machine and row order).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from perfgraphs.errors import PerfgraphsError

SPLITS_DIR = Path(__file__).resolve().parents[2] / "data" / "splits"

PROTOCOLS = {
    "random-70-15-15": {"parts": ("train", "validation", "test"), "fractions": (0.70, 0.15, 0.15), "seeds": (0,)},
    "per-family-70-30": {"parts": ("train", "test"), "fractions": (0.70, 0.30), "seeds": (1337, 1338, 1339, 1340, 1341)},
    # NNLQP's "unseen structure": fold k holds out the k-th largest family (ties by name) as the
    # test part; 15 % of the other families' structures validate. Ten folds, as NNLQP's ten families.
    "leave-one-family-out": {"parts": ("train", "validation", "test"), "fractions": (0.85, 0.15),
                             "seeds": tuple(range(10))},
}


class UnknownSplitError(PerfgraphsError):
    """A split protocol or seed that is not defined."""


def _rank(key: str, seed: int) -> int:
    return int.from_bytes(hashlib.sha256(f"{seed}:{key}".encode()).digest()[:8], "big")


def make_split(groups: dict[str, str], protocol: str, seed: int) -> dict[str, list[str]]:
    """Assign structure hashes (``groups``: hash → family) to the protocol's parts.

    Order within each family (or globally) is by a seeded hash of the structure hash, so the
    result depends only on the set of groups, the protocol and the seed.
    """
    spec = PROTOCOLS.get(protocol)
    if spec is None:
        raise UnknownSplitError(f"unknown split protocol {protocol!r} (available: {', '.join(PROTOCOLS)})")
    if seed not in spec["seeds"]:
        raise UnknownSplitError(f"protocol {protocol} is defined for seeds {list(spec['seeds'])}, not {seed}")
    if protocol == "leave-one-family-out":
        return _hold_out_family(groups, seed, spec["fractions"][1])
    per_family = protocol.startswith("per-family")
    buckets: dict[str, list[str]] = {}
    for h, family in groups.items():
        buckets.setdefault(family if per_family else "*", []).append(h)
    parts: dict[str, list[str]] = {p: [] for p in spec["parts"]}
    for _, hashes in sorted(buckets.items()):
        ordered = sorted(hashes, key=lambda h: _rank(h, seed))
        bounds = np.round(np.cumsum(spec["fractions"]) * len(ordered)).astype(int)
        start = 0
        for part, end in zip(spec["parts"], bounds):
            parts[part].extend(ordered[start:end])
            start = end
    return {p: sorted(v) for p, v in parts.items()}


def held_out_family(groups: dict[str, str], fold: int) -> str:
    """The family fold ``fold`` of leave-one-family-out tests on: the fold-th largest."""
    sizes: dict[str, int] = {}
    for family in groups.values():
        sizes[family] = sizes.get(family, 0) + 1
    ranked = sorted(sizes, key=lambda f: (-sizes[f], f))
    if fold >= len(ranked):
        raise UnknownSplitError(f"fold {fold} needs {fold + 1} families, the data has {len(ranked)}")
    return ranked[fold]


def _hold_out_family(groups: dict[str, str], fold: int, validation_fraction: float) -> dict[str, list[str]]:
    family = held_out_family(groups, fold)
    rest = sorted((h for h, f in groups.items() if f != family), key=lambda h: _rank(h, fold))
    n_val = int(round(validation_fraction * len(rest)))
    return {"train": sorted(rest[n_val:]), "validation": sorted(rest[:n_val]),
            "test": sorted(h for h, f in groups.items() if f == family)}


def split_path(dataset: str, protocol: str, seed: int) -> Path:
    return SPLITS_DIR / dataset.replace("perfgraphs/", "") / f"{protocol}-seed{seed}.json"


def save_split(dataset: str, protocol: str, seed: int, parts: dict[str, list[str]], **about) -> Path:
    """Write one split file; ``about`` adds descriptive fields (e.g. ``held_out_family``)."""
    path = split_path(dataset, protocol, seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"protocol": protocol, "seed": seed, "unit": "structure_hash", "parts": parts, **about},
                               indent=0, sort_keys=True) + "\n")
    return path


def get_split(dataset: str, protocol: str, seed: int | None = None) -> dict[str, list[str]]:
    """The committed split: part name → structure hashes."""
    spec = PROTOCOLS.get(protocol)
    if spec is None:
        raise UnknownSplitError(f"unknown split protocol {protocol!r} (available: {', '.join(PROTOCOLS)})")
    seed = spec["seeds"][0] if seed is None else seed
    path = split_path(dataset, protocol, seed)
    if not path.exists():
        raise UnknownSplitError(f"no committed split {protocol} seed {seed} for {dataset} ({path})")
    return json.loads(path.read_text())["parts"]
