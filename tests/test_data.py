"""Datasets: graph pool, build, manifest/verify, HF and PyG loading, splits."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from perfgraphs.data.build import build_graph_config
from perfgraphs.pool.graph_pool import CorruptFileError, GraphPool
from perfgraphs.data.load import load_dataset, to_pyg
from perfgraphs.data.manifest import read_manifest, verify
from perfgraphs.data.splits import make_split
from perfgraphs.pool.suites import BATCH_SIZES
from perfgraphs.registry import DIPPM_COUNTS, TRAPPM_UNLABELED_COUNTS
from perfgraphs.errors import PerfgraphsError
from perfgraphs.features import get_featurizer
from perfgraphs.registry import get_dataset
from perfgraphs.views.hf import from_hf_row

# Three mnasnet structures (resnet-sized graphs export in well under a second each) and one
# partial: 3 * 16 + 5 samples.
TINY = {"mnasnet": 3 * len(BATCH_SIZES) + 5}


@pytest.fixture(scope="module")
def pool(tmp_path_factory):
    p = GraphPool(tmp_path_factory.mktemp("pool"))
    p.build(TINY)
    return p


@pytest.fixture(scope="module")
def built(pool, tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    ds = get_dataset("dippm")
    folder = build_graph_config(ds, ds.config("graphs"), pool=pool, home=home, counts=TINY)
    return home, folder


def test_registry_counts_are_the_research_counts():
    assert sum(DIPPM_COUNTS.values()) == 10_508
    assert sum(TRAPPM_UNLABELED_COUNTS.values()) == 25_053
    assert get_dataset("dippm").family_counts == DIPPM_COUNTS
    with pytest.raises(PerfgraphsError, match="available"):
        get_dataset("imagenet")


def test_pool_selects_exact_counts(pool):
    selection = pool.select(TINY)
    assert sum(len(b) for _, _, b in selection) == TINY["mnasnet"]
    assert [len(b) for _, _, b in selection] == [16, 16, 16, 5]
    assert len({sid for _, sid, _ in selection}) == 4


def test_pool_compaction_is_deterministic(pool, tmp_path):
    copy = GraphPool(tmp_path / "copy")
    shutil.copytree(pool.root, copy.root)
    first = [p.read_bytes() for p in copy.compact()]
    second = [p.read_bytes() for p in GraphPool(copy.root).compact()]
    assert first == second and len(first) == 1
    assert set(GraphPool(copy.root).rows()) == set(pool.rows())


def test_rows_decode_to_the_exact_graphs(built, pool):
    home, _ = built
    dd = load_dataset("dippm", "graphs", home=home)
    assert sum(len(d) for d in dd.values()) == TINY["mnasnet"]
    for split in dd.values():
        for i in range(0, len(split), 7):
            row = split[i]
            assert from_hf_row(row) == pool.structure(row["structure_id"]).graph(row["batch_size"])


def test_plain_datasets_load_of_the_built_folder(built):
    import datasets

    home, folder = built
    plain = datasets.load_dataset(str(folder))
    ours = load_dataset("dippm", "graphs", home=home)
    assert {k: len(v) for k, v in plain.items()} == {k: len(v) for k, v in ours.items()}


def test_no_structure_in_two_parts(built):
    home, _ = built
    dd = load_dataset("dippm", "graphs", home=home)
    seen = {}
    for part, split in dd.items():
        for h in set(split["structure_hash"]):
            assert seen.setdefault(h, part) == part


def test_make_split_fractions_and_determinism():
    groups = {f"h{i:03d}": "fam" + str(i % 3) for i in range(200)}
    a = make_split(groups, "random-70-15-15", 0)
    assert [len(a[p]) for p in ("train", "validation", "test")] == [140, 30, 30]
    assert make_split(dict(reversed(list(groups.items()))), "random-70-15-15", 0) == a
    per_family = make_split(groups, "per-family-70-30", 1337)
    for fam in ("fam0", "fam1", "fam2"):
        members = {h for h, f in groups.items() if f == fam}
        assert abs(len(members & set(per_family["train"])) - 0.7 * len(members)) <= 1
    assert make_split(groups, "per-family-70-30", 1338) != per_family


def test_pyg_view_equals_per_graph_featurization(built):
    home, _ = built
    split = load_dataset("dippm", "graphs", split="train", home=home)
    feat = get_featurizer("dippm")
    pyg = to_pyg(split, "dippm")
    assert len(pyg) == len(split)
    for i in (0, len(split) // 2, len(split) - 1):
        g = from_hf_row(split[i])
        assert np.allclose(pyg[i].x.numpy(), feat.node_features(g))
        assert np.allclose(pyg[i].static.numpy()[0], feat.static_features(g))
        assert pyg[i].edge_index.tolist() == g.edge_index.tolist()


def test_rebuild_gives_identical_content_hash_and_resumes(built, pool, tmp_path):
    _, folder = built
    ds = get_dataset("dippm")
    again = build_graph_config(ds, ds.config("graphs"), pool=pool, home=tmp_path, counts=TINY)
    assert read_manifest(again)["content_hash"] == read_manifest(folder)["content_hash"]
    # an interrupted build: a shard and the manifest are gone; the rerun restores both exactly
    shard = sorted((again / "data").glob("*.parquet"))[0]
    shard.unlink()
    (again / "manifest.json").unlink()
    resumed = build_graph_config(ds, ds.config("graphs"), pool=pool, home=tmp_path, counts=TINY)
    assert read_manifest(resumed)["content_hash"] == read_manifest(folder)["content_hash"]


def test_flipped_byte_is_detected_and_named(built, tmp_path):
    home, folder = built
    copy_home = tmp_path / "home"
    shutil.copytree(home, copy_home)
    copy = copy_home / folder.relative_to(home)
    for victim in sorted((copy / "data").glob("*.parquet")):
        data = bytearray(victim.read_bytes())
        data[len(data) // 2] ^= 0x01
        victim.write_bytes(bytes(data))
        with pytest.raises(CorruptFileError, match=victim.name):
            verify(copy)
        with pytest.raises(CorruptFileError):
            load_dataset("dippm", "graphs", home=copy_home)
        data[len(data) // 2] ^= 0x01
        victim.write_bytes(bytes(data))
    verify(copy)


def test_unknown_version_and_split_are_clear_errors(built):
    home, _ = built
    with pytest.raises(PerfgraphsError, match="version"):
        load_dataset("dippm", "graphs", version="9.9.9", home=home)
    with pytest.raises(PerfgraphsError, match="split"):
        load_dataset("dippm", "graphs", split="dev", home=home)


def test_mlenergy_tabular_config(tmp_path):
    from perfgraphs.loaders.sources import ExternalSourceError

    try:
        ds = load_dataset("llm", "mlenergy", home=tmp_path)
    except ExternalSourceError as exc:
        pytest.skip(f"ML.ENERGY data not available offline: {exc}")
    rows = ds["train"]
    assert len(set(rows["row_id"])) == len(rows) > 500
    assert set(rows["fold"]) == {0, 1, 2, 3, 4}
    assert set(rows["modality"]) - {None} <= {"llm", "mllm"}
    # stratified: a model with >= 5 configurations lands in every fold
    by_model = {}
    for model, fold in zip(rows["model_id"], rows["fold"]):
        by_model.setdefault(model, set()).add(fold)
    counts = {m: rows["model_id"].count(m) for m in by_model}
    assert all(by_model[m] == {0, 1, 2, 3, 4} for m, c in counts.items() if c >= 5)
    target = get_dataset("llm").config("mlenergy").target("energy_per_token_joules")
    assert target.unit == "J/token"


def test_nnlqp_multiplatform_rows(tmp_path):
    from perfgraphs.data.platform_labels import build_nnlqp_config, timm_rows, wanted_structures
    from perfgraphs.loaders.sources import ExternalSourceError

    try:
        rows = timm_rows()
    except ExternalSourceError as exc:
        pytest.skip(f"timm results not available offline: {exc}")
    only = {"resnet18", "mobilenetv2_100", "vgg11"}
    pool = GraphPool(tmp_path / "pool")
    pool.ensure([w for w in wanted_structures(rows) if w[1].split(":")[1] in only])
    ds = get_dataset("nnlqp")
    folder = build_nnlqp_config(ds, ds.default_config, pool=pool, home=tmp_path, only=only)
    import datasets

    loaded = datasets.load_dataset(str(folder))
    table = [r for split in loaded.values() for r in split]
    platforms = (folder / "platforms.txt").read_text().split()
    assert len(platforms) >= 12
    # the config's platforms are exactly those the importer produces (one per result file) and our
    # stores' CPU platforms; the build records the ones it holds
    from perfgraphs.loaders.timm_benchmark import TIMM_INFER_FILES, parse_platform

    assert {r["platform"] for r in rows} == {parse_platform(f.name).name for f in TIMM_INFER_FILES}
    assert set(platforms) <= set(ds.default_config.platforms)
    recorded = read_manifest(folder)["platforms"]
    assert [p["name"] for p in recorded] == platforms
    assert {r["source"] for r in table} == {f"timm:{a}" for a in only}
    # the label is the published throughput converted to ms per sample: check one against the CSV
    timm_platform = next(p for p in platforms if p.startswith("timm-"))
    src = [r for r in rows if r["arch"] == "resnet18" and r["platform"] == timm_platform]
    row = next(r for r in table if r["source"] == "timm:resnet18" and r["img_size"] == src[0]["img_size"])
    assert row[f"latency_per_sample_ms__{timm_platform}"] == pytest.approx(1000 / src[0]["throughput_samples_per_s"])
    assert row["y"][0][platforms.index(timm_platform)] == pytest.approx(1000 / src[0]["throughput_samples_per_s"])


def test_nnlqp_joins_our_own_cpu_measurements(tmp_path):
    """A batch-1 measurement of a timm-benchmarked (architecture, input size) becomes that graph's
    cpu-torch-fp32 label, equal to the committed measurement's median."""
    from perfgraphs.data.platform_labels import build_nnlqp_config, own_platform_rows, timm_rows, wanted_structures
    from perfgraphs.loaders.sources import ExternalSourceError

    try:
        rows = timm_rows()
    except ExternalSourceError as exc:
        pytest.skip(f"timm results not available offline: {exc}")
    benchmarked = {(r["arch"], int(r["img_size"])) for r in rows}
    own = [r for r in own_platform_rows() if (r["arch"], r["img_size"]) in benchmarked]
    if not own:
        pytest.skip("no committed batch-1 measurement of a timm-benchmarked architecture yet")
    pick = min(own, key=lambda r: r["latency_ms"])  # the cheapest graph to export
    pool = GraphPool(tmp_path / "pool")
    pool.ensure([w for w in wanted_structures(rows) if w[1] == f"timm:{pick['arch']}" and w[2] == pick["img_size"]])
    ds = get_dataset("nnlqp")
    folder = build_nnlqp_config(ds, ds.default_config, pool=pool, home=tmp_path, only={pick["arch"]})
    import datasets

    table = [r for split in datasets.load_dataset(str(folder)).values() for r in split]
    row = next(r for r in table if r["img_size"] == pick["img_size"])
    assert row[f"latency_per_sample_ms__{pick['platform']}"] == pytest.approx(pick["latency_ms"])
    assert pick["platform"] in (folder / "platforms.txt").read_text().split()


def test_nnlqp_reads_only_wall_clock_stores_and_never_a_held_out_set(tmp_path):
    """nnlqp's latency columns take our rows measured under a wall-clock protocol only: a CPU-time
    suite (another protocol and label, a store that grows while its campaign runs) and the predict
    held-out test set (registry.HELDOUT_SUITES) add nothing, and the held-out store is no platform's
    source. The committed stores are the ground truth: each row's own ``protocol`` column."""
    import pyarrow.parquet as pq

    from perfgraphs.data.platform_labels import own_platform_rows
    from perfgraphs.data.platforms import cpu_store_platforms
    from perfgraphs.registry import EPYC_VM_TAG

    measurements = Path(__file__).resolve().parents[1] / "data" / "measurements"
    names = ["dippm-cpu", f"dippm-cputime-{EPYC_VM_TAG}", f"predict-heldout-{EPYC_VM_TAG}"]
    for name in names:
        shutil.copytree(measurements / name, tmp_path / name)
    protocols = {name: {p for f in (tmp_path / name).glob("*/shard-*.parquet")
                        for p in pq.read_table(f, columns=["protocol"]).column("protocol").to_pylist()}
                 for name in names}
    assert protocols == {names[0]: {"dippm-cpu"}, names[1]: {"dippm-cputime"}, names[2]: {"dippm-cputime"}}
    rows = own_platform_rows(tmp_path)
    assert rows and {r["store"] for r in rows} == {"dippm-cpu"}
    shutil.rmtree(tmp_path / names[0])
    assert own_platform_rows(tmp_path) == []
    sources = {f for p in cpu_store_platforms(tmp_path) for f in p.source_files}
    assert sources == {names[1]}  # the CPU-time store is a platform's source (dippm's config), the held-out one never
    from perfgraphs.registry import DATASETS, HELDOUT_SUITES

    named = [s for ds in DATASETS.values() for c in ds.configs for s in (c.suite or "", *c.sources)]
    assert not [s for s in named for h in HELDOUT_SUITES if s.removeprefix("suite:").startswith(h)]
