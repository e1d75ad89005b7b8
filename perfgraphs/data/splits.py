"""Standard splits, assigned per *structure group* so no graph appears in two parts.

Samples that share a ``structure_hash`` (batch and input-size variants of one architecture, or
two architecture names that export to the same graph) always land in the same part. Splits are
committed as id lists per part under ``data/splits/`` (the file's ``unit`` names the id column:
``structure_hash``; ``structure_id`` for nnlqp, whose graphs need not be exported to be split;
``row_id`` for tabular rows); ``make_split``, ``few_shot_split`` and
``perfgraphs.data.tabular.stratified_folds`` are the deterministic functions that generated them (seeded, independent of machine and row order).
``perfgraphs.data.standard_splits`` feeds them each dataset's units.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from perfgraphs import paths
from perfgraphs.atomic import atomic_write_bytes, os_errors
from perfgraphs.errors import PerfgraphsError
from perfgraphs.registry import DATASETS

# few-shot-platform's seed -> platform, committed beside the dataset's split files: seed k holds
# out the k-th platform. Platforms are discovered from the data; this order only numbers them,
# and a platform found later is appended (sorted), so every committed seed keeps its platform.
PLATFORM_ORDER = "few-shot-platform-order.txt"
_ORDER_HEADER = ("# few-shot-platform seed k holds out the platform on line k (0-based, comments aside); platforms\n"
                 "# found later are appended in name order, so a committed seed keeps its platform\n")


def _few_shot_dataset() -> str | None:
    """The dataset whose configs are split by few-shot-platform (the registry says which)."""
    return next((ds.name for ds in DATASETS.values() for c in ds.configs
                 if "few-shot-platform" in c.split_protocols), None)


def _order_path(dataset: str) -> Path:
    return paths.splits_dir() / dataset.replace("perfgraphs/", "") / PLATFORM_ORDER


def platform_order(dataset: str | None = None) -> list[str]:
    """The committed seed order of few-shot-platform's held-out platforms (empty: none committed)."""
    dataset = dataset or _few_shot_dataset()
    if dataset is None or not _order_path(dataset).exists():
        return []
    order = [line.strip() for line in _order_path(dataset).read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    if len(set(order)) != len(order):
        raise PerfgraphsError(f"{_order_path(dataset)} names a platform twice")
    return order


def extended_platform_order(platforms, dataset: str | None = None) -> list[str]:
    """The committed order with ``platforms`` it lacks appended in name order."""
    order = platform_order(dataset)
    return order + sorted(set(platforms) - set(order))


def save_platform_order(dataset: str, order: list[str]) -> Path:
    path = _order_path(dataset)
    _write_committed(path, _ORDER_HEADER + "".join(f"{p}\n" for p in order))
    return path


def _write_committed(path: Path, text: str) -> None:
    """Write a committed split file whole or not at all: a read-only or full data directory is one
    line naming the file (it was an "internal error"), and the file already there stays intact."""
    with os_errors(f"write the split file {path}"):
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, text.encode())


PROTOCOLS = {
    "random-70-15-15": {"parts": ("train", "validation", "test"), "fractions": (0.70, 0.15, 0.15), "seeds": (0,)},
    "per-family-70-30": {"parts": ("train", "test"), "fractions": (0.70, 0.30), "seeds": (1337, 1338, 1339, 1340, 1341)},
    # NNLQP's "unseen structure": fold k holds out the k-th largest family (ties by name) as the
    # test part; 15 % of the other families' structures validate. Ten folds, as NNLQP's ten families.
    "leave-one-family-out": {"parts": ("train", "validation", "test"), "fractions": (0.85, 0.15),
                             "seeds": tuple(range(10))},
    # NNLQP's transfer to a new platform: seed k holds out platform k of the committed platform
    # order (platform_order); train on every label of the other platforms plus `shots` structures of it.
    "few-shot-platform": {"parts": ("few_shot", "test"), "shots": 32, "seeds": tuple(range(len(platform_order())))},
    # A new platform from K labelled architectures (HELP, NNLQP's transfer, LitePred): every platform of
    # the committed platform order is held out in turn; per K, draw d (its seed) picks the K shots
    # (platform_transfer_shots), the rest of the platform tests. Variants say what the predictor sees
    # of the other platforms: every label ("known-models"), none of the test architectures'
    # ("unseen-models", HELP's setting), or every label but the same device's other files
    # ("known-models-other-devices": no near-duplicate of the held-out card is a source).
    "leave-one-platform-out": {"parts": ("few_shot", "test"), "shots": (8, 16, 32, 64, 128),
                               "variants": ("known-models", "unseen-models", "known-models-other-devices"),
                               "seeds": tuple(range(5))},
    # The LLM study's stratified 5-fold cross-validation (stratum = model) over tabular rows.
    "stratified-5-fold": {"parts": tuple(f"fold{k}" for k in range(5)), "seeds": (0,)},
    # Unseen models: 5 folds grouped by model (scikit-learn's GroupKFold over the normalised
    # model_id, perfgraphs.data.tabular.grouped_folds), so no fold's test model is in its training
    # rows. The perfgraphs/llm boards' official protocol; its files are read at evaluation time.
    "leave-models-out": {"parts": tuple(f"fold{k}" for k in range(5)), "seeds": (0,)},
}
# protocols whose parts are folds of tabular rows (row_id lists), each row in exactly one fold
FOLD_PROTOCOLS = ("stratified-5-fold", "leave-models-out")
GROUP_PROTOCOLS = ("random-70-15-15", "per-family-70-30", "leave-one-family-out")


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
    if protocol not in GROUP_PROTOCOLS:
        raise UnknownSplitError(f"protocol {protocol} is not made from structure groups (see few_shot_split, tabular.stratified_folds)")
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


def merge_groups(links: dict[str, list]) -> dict[str, list[str]]:
    """Units (id → link keys, e.g. its structure hash and architecture; None entries ignored)
    grouped so that ids sharing any key, directly or through others, form one group, keyed by its
    smallest id."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    owner: dict = {}
    for unit in sorted(links):
        for key in links[unit]:
            if key is None:
                continue
            other = owner.setdefault(key, unit)
            a, b = root(unit), root(other)
            if a != b:
                parent[max(a, b)] = min(a, b)
    groups: dict[str, list[str]] = {}
    for unit in sorted(links):
        groups.setdefault(root(unit), []).append(unit)
    return groups


def few_shot_split(labeled: dict[str, dict[str, list[str]]], seed: int, shots: int | None = None,
                   order: list[str] | None = None) -> dict:
    """``labeled``: platform → {group key: ids of the group labeled on that platform}. Seed k
    holds out ``order[k]`` (default: the committed :func:`platform_order`): whole groups of it, in
    seeded-hash order, train until exactly ``shots`` of its ids do (a group that would overshoot
    is passed over); its other groups test. Training also uses every label of ``train_platforms``."""
    spec = PROTOCOLS["few-shot-platform"]
    order = platform_order() if order is None else order
    if seed not in range(len(order)):
        raise UnknownSplitError(f"protocol few-shot-platform is defined for seeds {list(range(len(order)))}, not {seed}")
    shots = spec["shots"] if shots is None else shots
    platform = order[seed]
    groups = labeled.get(platform, {})
    n_ids = sum(len(ids) for ids in groups.values())
    if n_ids <= shots:
        raise UnknownSplitError(f"platform {platform} has {n_ids} labeled structures; a {shots}-shot split needs more")
    few, test = [], []
    for key in sorted(groups, key=lambda k: (_rank(k, seed), k)):
        (few if len(few) + len(groups[key]) <= shots else test).extend(groups[key])
    if len(few) != shots:
        raise UnknownSplitError(f"platform {platform}: no {shots} ids fill whole structure groups")
    return {"parts": {"few_shot": sorted(few), "test": sorted(test)}, "held_out_platform": platform, "shots": shots,
            "train_platforms": sorted(p for p, g in labeled.items() if p != platform and g)}


def platform_transfer_shots(groups: dict[str, list[str]], platform: str, shots: int, draw: int) -> dict[str, list[str]]:
    """leave-one-platform-out's parts for one held-out platform: ``groups`` (group key → its ids
    labeled on ``platform``) in an order seeded by (platform, draw), whole groups becoming shots
    until exactly ``shots`` ids are (a group that would overshoot is passed over); the other groups
    test. The order depends only on the keys, the platform and the draw, so the parts are the
    same on any machine and for any row order, and a draw's shots for a larger K extend its
    shots for a smaller one whenever no group was passed over."""
    spec = PROTOCOLS["leave-one-platform-out"]
    if draw not in spec["seeds"]:
        raise UnknownSplitError(f"protocol leave-one-platform-out is defined for draws {list(spec['seeds'])}, not {draw}")
    if shots < 1:
        raise UnknownSplitError(f"a few-shot split needs at least 1 shot, got {shots}")
    n_ids = sum(len(ids) for ids in groups.values())
    if n_ids <= shots:
        raise UnknownSplitError(f"platform {platform} has {n_ids} labeled structures; a {shots}-shot split needs more")
    few, test = [], []
    for key in sorted(groups, key=lambda k: (_rank(f"{platform}|{k}", draw), k)):
        (few if len(few) + len(groups[key]) <= shots else test).extend(groups[key])
    if len(few) != shots:
        raise UnknownSplitError(f"platform {platform}: no {shots} ids fill whole structure groups")
    return {"few_shot": sorted(few), "test": sorted(test)}


def split_path(dataset: str, protocol: str, seed: int, config: str | None = None) -> Path:
    """``data/splits/<dataset>/[<config>/]<protocol>-seed<seed>.json``: a dataset's configs share
    its splits (same units), except a config whose rows are its own (``config``, e.g. llm's
    cpu-torch-fp32 beside the imported mlenergy rows)."""
    folder = paths.splits_dir() / dataset.replace("perfgraphs/", "")
    return (folder / config if config else folder) / f"{protocol}-seed{seed}.json"


def save_split(dataset: str, protocol: str, seed: int, parts: dict[str, list[str]], unit: str = "structure_hash",
               config: str | None = None, **about) -> Path:
    """Write one split file; ``about`` adds descriptive fields (e.g. ``held_out_family``)."""
    path = split_path(dataset, protocol, seed, config)
    _write_committed(path, json.dumps({"protocol": protocol, "seed": seed, "unit": unit, "parts": parts, **about},
                                      indent=0, sort_keys=True) + "\n")
    return path


def split_file(dataset: str, protocol: str, seed: int | None = None, config: str | None = None) -> dict:
    """The committed split file: ``parts`` (part → ids), ``unit`` (the id column) and any
    descriptive fields."""
    spec = PROTOCOLS.get(protocol)
    if spec is None:
        raise UnknownSplitError(f"unknown split protocol {protocol!r} (available: {', '.join(PROTOCOLS)})")
    seed = spec["seeds"][0] if seed is None else seed
    path = split_path(dataset, protocol, seed, config)
    if not path.exists():
        of = f"{dataset}/{config}" if config else dataset
        raise UnknownSplitError(f"no committed split {protocol} seed {seed} for {of} ({path})")
    try:
        content = json.loads(path.read_text())
        content["parts"]
    except (json.JSONDecodeError, KeyError, TypeError):
        raise UnknownSplitError(f"{path} is not a valid split file") from None
    content.setdefault("unit", "structure_hash")
    return content


def get_split(dataset: str, protocol: str, seed: int | None = None, config: str | None = None) -> dict[str, list[str]]:
    """The committed split: part name → ids (structure hashes unless the file names another unit);
    ``config`` for a config with splits of its own (``perfgraphs/llm`` ``cpu-torch-fp32``)."""
    return split_file(dataset, protocol, seed, config)["parts"]


def committed_test_fold(dataset: str, protocol: str, row_ids: list[str], config: str | None = None):
    """The fold index of each row id in a committed fold protocol's file (``config``: a config with
    split files of its own), as an int array for scikit-learn's ``PredefinedSplit``. A row the
    file does not list is refused: the build holds rows the split was not made for."""
    if protocol not in FOLD_PROTOCOLS:
        raise UnknownSplitError(f"{protocol} is not a fold protocol (fold protocols: {', '.join(FOLD_PROTOCOLS)})")
    committed = split_file(dataset, protocol, 0, config)
    fold_of = {rid: int(part.removeprefix("fold")) for part, ids in committed["parts"].items() for rid in ids}
    missing = [rid for rid in row_ids if rid not in fold_of]
    if missing:
        raise UnknownSplitError(
            f"{len(missing)} row(s) of {dataset}{'/' + config if config else ''} are not in the committed {protocol} "
            f"split (first: {missing[0]}): regenerate it (`perfgraphs datasets splits {dataset.split('/')[-1]}"
            f"{' --config ' + config if config else ''}`) and commit it with the rows")
    return np.asarray([fold_of[rid] for rid in row_ids], dtype=int)


def fold_parts(table) -> dict[str, list[str]]:
    """fold<k> → row ids, from the rows' ``fold`` column (the stratified k-fold protocol's parts)."""
    parts: dict[str, list[str]] = {p: [] for p in PROTOCOLS["stratified-5-fold"]["parts"]}
    for row_id, fold in zip(table.column("row_id").to_pylist(), table.column("fold").to_pylist()):
        parts[f"fold{fold}"].append(row_id)
    return {p: sorted(v) for p, v in parts.items()}
