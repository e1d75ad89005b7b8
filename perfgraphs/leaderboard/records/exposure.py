"""Where a hidden test set's architectures appear in public data.

A hidden set is hidden only while no public file carries its architectures: a public measurement
of the same model on the same machine is its label, and even another platform's latency, or the
model sitting in a training split, is a signal no predictor of a "hidden" architecture should
have. :func:`public_mentions` lists, per architecture, every committed place that names it — the
committed measurement stores (``data/measurements``, a held-out suite's too: no dataset reads it,
but its labels are public), the committed plans (``plans/``: a held-out suite's, such as
predict's second held-out set of structure variants, names what its store will label), the split files (``data/splits``) and the
predict artifacts (``perfgraphs/predict/artifacts``, whose
``*.rows.npz`` name their rows). ``tests/test_leaderboard_trust.py`` compares it with what each
hidden set's definition declares compromised (``leaderboard/hidden/<dataset>-<config>.json``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

_SEPARATORS = re.compile(r"[\s,;|@#/]+")


def _bare(name: str) -> str:
    """``timm:resnet18`` and ``resnet18`` are the same architecture; ``resnet18d`` is not."""
    return name.split(":", 1)[1] if ":" in name else name


def _named(strings, wanted: dict[str, str]) -> set[str]:
    found = set()
    for s in strings:
        for token in _SEPARATORS.split(str(s)):
            if _bare(token) in wanted:
                found.add(wanted[_bare(token)])
    return found


def _json_strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from _json_strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _json_strings(v)


def _store_names(store: Path) -> list[str]:
    import pyarrow.parquet as pq

    names = []
    for path in sorted(store.rglob("*.parquet")):
        schema = pq.read_schema(path)
        if "model" in schema.names:
            names += pq.read_table(path, columns=["model"]).column("model").to_pylist()
    return names


def public_mentions(architectures: list[str], repo: Path, own_plan: str | None = None) -> dict[str, list[str]]:
    """architecture → sorted public places (repository-relative) that name it; absent when none.
    ``own_plan``: the set's own plan (repository-relative), which names it without exposing it.
    A structure variant is matched under any spelling of its structure
    (:func:`perfgraphs.collect.variants.structure_key`), not only the one written."""
    import numpy as np

    from perfgraphs.collect.plan import parse_plan, plan_files
    from perfgraphs.collect.variants import structure_key

    wanted = {_bare(a): a for a in architectures}
    keys = {k: a for a in architectures if (k := structure_key(a)) is not None}
    places: dict[str, set[str]] = {}

    def note(found: set[str], place: str) -> None:
        for a in found:
            places.setdefault(a, set()).add(place)

    def variants(names) -> set[str]:
        return {keys[k] for k in map(structure_key, set(names)) if k in keys} if keys else set()

    # every committed store, a held-out suite's too: no dataset reads it, but its labels are public
    for store in sorted(p for p in (repo / "data" / "measurements").iterdir() if p.is_dir()):
        names = _store_names(store)
        note(_named(names, wanted) | variants(names), f"data/measurements/{store.name}")
    for split in sorted((repo / "data").glob("splits/**/*")):
        if split.is_file() and split.suffix in (".json", ".txt"):
            text = split.read_text(errors="replace")
            strings = _json_strings(json.loads(text)) if split.suffix == ".json" else [text]
            note(_named(strings, wanted), str(split.parent.relative_to(repo)))
    for plan in plan_files(repo / "plans"):
        place = str(plan.relative_to(repo))
        if place != own_plan:  # every string of the file, and every model the collector's parser reads in it
            data = yaml.safe_load(plan.read_text())
            found = _named(_json_strings(data), wanted)
            parsed = parse_plan(data, name=plan.stem, path=str(plan))
            note(found | variants(c.model for c in parsed.configs), place)
    for artifact in sorted((repo / "perfgraphs" / "predict" / "artifacts").glob("*.rows.npz")):
        with np.load(artifact, allow_pickle=False) as rows:
            names = rows["names"].tolist() if "names" in rows.files else []
        note(_named(names, wanted), f"perfgraphs/predict/artifacts/{artifact.name.split('--')[0]}--*.rows.npz")
    return {a: sorted(p) for a, p in sorted(places.items())}
