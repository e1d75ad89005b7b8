"""Standard splits: no graph in two parts (by structure hash), per-family proportions, determinism,
the few-shot platform split, and the committed split files."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from perfgraphs import paths
from perfgraphs.data import splits
from perfgraphs.data.splits import (PROTOCOLS, UnknownSplitError, few_shot_split, get_split, make_split, merge_groups,
                                    platform_order, save_split, split_file)
from perfgraphs.data.standard_splits import expand, leave_one_family_out, nnlqp_units

# few-shot-platform's committed seed order (the platforms themselves are discovered from the data)
ORDER = platform_order()
PLATFORM = ORDER[0]
OTHER_PLATFORM = ORDER[1]


def _rows():
    """Benchmark-like rows of real timm architectures: every architecture at two input sizes,
    labeled on two platforms (the first platform misses a few)."""
    import timm

    archs = [a for a in timm.list_models() if a.startswith(("resnet", "efficientnet_b", "vit_small", "mobilenetv3"))]
    rows = []
    for k, arch in enumerate(archs):
        for size in (224, 256):
            for platform in (PLATFORM, OTHER_PLATFORM):
                if platform == PLATFORM and k % 7 == 0:
                    continue
                rows.append({"arch": arch, "img_size": size, "platform": platform, "throughput_samples_per_s": 100.0 + k})
    return rows


def _hash_of(units):
    """A structure hash per structure id: the architecture's, except that a ViT id gets an
    EfficientNet's hash — two names, in two families, for one graph (as deit/vit are in timm)."""
    hashes = {sid: sid.split("@")[0] for sid in units}
    a = min(s for s in units if s.startswith("timm:efficientnet_b"))
    b = min(s for s in units if s.startswith("timm:vit_small"))
    hashes[b] = hashes[a]
    return hashes


@pytest.fixture(scope="module")
def units():
    rows = _rows()
    all_ids = {f"timm:{r['arch']}@{r['img_size']}" for r in rows}
    hashes = _hash_of(all_ids)
    groups, families, mixed, labeled = nnlqp_units(rows, hashes, failed={sorted(all_ids)[1]})
    return rows, hashes, groups, families, mixed, labeled


def _assert_disjoint_by_hash(parts, hashes):
    owner = {}
    for part, ids in parts.items():
        for sid in ids:
            assert owner.setdefault(hashes[sid], part) == part, f"{sid} ({hashes[sid]}) in {owner[hashes[sid]]} and {part}"


def test_groups_join_sizes_and_equal_hashes_and_drop_failures(units):
    rows, hashes, groups, families, _, _ = units
    members = [sid for g in groups.values() for sid in g]
    assert len(members) == len(set(members)) == len({f"timm:{r['arch']}@{r['img_size']}" for r in rows}) - 1
    group_of = {sid: key for key, g in groups.items() for sid in g}
    for sid in members:  # both sizes of an architecture, and every id of one hash, share a group
        assert group_of[sid] == group_of.get(sid.replace("@224", "@256"), group_of[sid])
        assert {group_of[s] for s in members if hashes[s] == hashes[sid]} == {group_of[sid]}
    assert len(groups) < len({hashes[s] for s in members}) + 1


def test_leave_one_family_out_is_disjoint_by_hash_and_holds_out_whole_families(units):
    _, hashes, groups, families, mixed, _ = units
    from perfgraphs.graph.zoo import timm_module_of

    family_of = lambda sid: timm_module_of(sid.split(":", 1)[1].rsplit("@", 1)[0])  # noqa: E731
    assert mixed  # the two names for one graph come from two timm modules
    for fold in range(len(set(families.values()))):
        parts, held, left_out = leave_one_family_out(groups, families, mixed, fold)
        _assert_disjoint_by_hash({**parts, "left_out": left_out}, hashes)
        assert {family_of(s) for s in parts["test"]} == {held}
        assert held not in {family_of(s) for s in parts["train"] + parts["validation"]}
        assert bool(left_out) == any(held in fams for fams in mixed.values())
        assert sum(len(v) for v in parts.values()) + len(left_out) == sum(len(g) for g in groups.values())


def test_few_shot_has_exactly_32_held_out_samples_and_is_disjoint(units):
    _, hashes, _, _, _, labeled = units
    shot = few_shot_split(labeled, 0)
    assert shot["held_out_platform"] == PLATFORM and PLATFORM not in shot["train_platforms"]
    assert shot["train_platforms"] == [OTHER_PLATFORM]
    assert len(shot["parts"]["few_shot"]) == 32
    _assert_disjoint_by_hash(shot["parts"], hashes)
    on_platform = {sid for ids in labeled[PLATFORM].values() for sid in ids}
    assert set(shot["parts"]["few_shot"]) | set(shot["parts"]["test"]) == on_platform
    assert few_shot_split(labeled, 0) == shot  # deterministic
    with pytest.raises(UnknownSplitError, match="needs more"):
        few_shot_split(labeled, 0, shots=len(on_platform))


def test_per_family_proportions_within_one_structure_of_70_30():
    groups = {f"{fam}-{i:03d}": fam for fam, n in (("a", 101), ("b", 17), ("c", 5), ("d", 1)) for i in range(n)}
    sizes = Counter(groups.values())
    trains = []
    for seed in PROTOCOLS["per-family-70-30"]["seeds"]:
        parts = make_split(groups, "per-family-70-30", seed)
        assert not set(parts["train"]) & set(parts["test"])
        assert sorted(parts["train"] + parts["test"]) == sorted(groups)
        for fam, n in sizes.items():
            train = sum(groups[h] == fam for h in parts["train"])
            assert abs(train - 0.7 * n) <= 0.5 + 1e-9, (seed, fam, train, n)
        trains.append(parts["train"])
    assert len({tuple(t) for t in trains}) == 5  # five different draws


def test_same_seed_writes_identical_files(tmp_path, monkeypatch, units):
    monkeypatch.setattr(paths, "splits_dir", lambda: tmp_path)
    _, _, groups, families, _, labeled = units
    written = []
    for _ in range(2):
        parts = expand(make_split(families, "leave-one-family-out", 1), groups)
        shot = few_shot_split(labeled, 0, order=ORDER)  # the splits folder is a tmp folder here
        a = save_split("perfgraphs/nnlqp", "leave-one-family-out", 1, parts, unit="structure_id").read_bytes()
        b = save_split("perfgraphs/nnlqp", "few-shot-platform", 0, shot.pop("parts"), unit="structure_id", **shot).read_bytes()
        written.append((a, b))
    assert written[0] == written[1]
    assert split_file("perfgraphs/nnlqp", "few-shot-platform", 0)["unit"] == "structure_id"
    # the same groups in another order give the same split
    reordered = dict(reversed(list(families.items())))
    assert make_split(reordered, "leave-one-family-out", 1) == make_split(families, "leave-one-family-out", 1)


def test_merge_groups_is_transitive_and_order_free():
    links = {"x": ["k1"], "y": ["k2"], "z": ["k1", "k2"], "w": [None]}
    assert merge_groups(links) == {"w": ["w"], "x": ["x", "y", "z"]}
    assert merge_groups(dict(reversed(list(links.items())))) == merge_groups(links)


def test_group_protocol_guard():
    with pytest.raises(UnknownSplitError, match="not made from structure groups"):
        make_split({"h": "f"}, "few-shot-platform", 0)


def test_llm_folds_stratified_and_configurations_kept_together():
    from perfgraphs.data.splits import fold_parts
    from perfgraphs.data.tabular import mlenergy_rows, serving_configs
    from perfgraphs.loaders.sources import ExternalSourceError

    try:
        table = mlenergy_rows()
    except ExternalSourceError as exc:
        pytest.skip(f"ML.ENERGY data not available offline: {exc}")
    parts = fold_parts(table)
    ids = table.column("row_id").to_pylist()
    assert sorted(i for p in parts.values() for i in p) == sorted(ids) and len(set(ids)) == len(ids)
    fold_of = {i: p for p, v in parts.items() for i in v}
    by_config: dict = {}
    for i, config in zip(ids, serving_configs(table)):
        by_config.setdefault(config, set()).add(fold_of[i])
    assert all(len(f) == 1 for f in by_config.values())
    models = Counter(table.column("model_id").to_pylist())
    for model, n in models.items():
        folds = {fold_of[i] for i, m in zip(ids, table.column("model_id").to_pylist()) if m == model}
        assert len(folds) == min(n, 5) or n < 5
    if splits.split_path("perfgraphs/llm", "stratified-5-fold", 0).exists():
        assert get_split("perfgraphs/llm", "stratified-5-fold", 0) == parts


# -- the committed files --------------------------------------------------------------------------

def _committed(dataset, protocol):
    folder = paths.splits_dir() / dataset
    return sorted(folder.glob(f"{protocol}-seed*.json")) if folder.exists() else []


def test_committed_split_files_are_disjoint():
    files = [p for p in paths.splits_dir().rglob("*.json")]
    if not files:
        pytest.skip("no committed split files")
    for path in files:
        content = json.loads(path.read_text())
        seen = Counter(i for ids in content["parts"].values() for i in ids)
        assert max(seen.values()) == 1, f"{path}: an id in two parts"
        assert content["unit"] in ("structure_hash", "structure_id", "row_id")


def test_committed_trappm_splits_cover_the_same_structures_per_seed():
    files = _committed("trappm", "per-family-70-30")
    if not files:
        pytest.skip("trappm splits not generated yet (the graph pool is being exported)")
    assert [json.loads(p.read_text())["seed"] for p in files] == list(PROTOCOLS["per-family-70-30"]["seeds"])
    contents = [json.loads(p.read_text())["parts"] for p in files]
    universe = {h for c in contents for h in c["train"] + c["test"]}
    for c in contents:
        assert set(c["train"]) | set(c["test"]) == universe
        assert abs(len(c["train"]) / len(universe) - 0.7) < 0.02


def test_committed_nnlqp_splits():
    import timm  # noqa: F401  (the family of an id is the timm module of its architecture)

    from perfgraphs.graph.zoo import timm_module_of

    lofo = _committed("nnlqp", "leave-one-family-out")
    shots = _committed("nnlqp", "few-shot-platform")
    if not lofo and not shots:
        pytest.skip("nnlqp splits not committed")
    arch = lambda sid: sid.split(":", 1)[1].rsplit("@", 1)[0]  # noqa: E731
    for path in lofo:
        c = json.loads(path.read_text())
        assert {timm_module_of(arch(s)) for s in c["parts"]["test"]} == {c["held_out_family"]}
        assert c["held_out_family"] not in {timm_module_of(arch(s)) for s in c["parts"]["train"] + c["parts"]["validation"]}
        by_arch = {}
        for part, ids in c["parts"].items():  # every input size of an architecture in one part
            for s in ids:
                assert by_arch.setdefault(arch(s), part) == part
    for path in shots:
        c = json.loads(path.read_text())
        assert len(c["parts"]["few_shot"]) == c["shots"] == 32
        assert c["held_out_platform"] == ORDER[c["seed"]] not in c["train_platforms"]
