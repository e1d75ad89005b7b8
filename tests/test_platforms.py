"""Platforms as data: a new timm result file or a new measured store is a platform (and a config)
with no code edit; importers read every file of their source that parses, say which they skipped
and why, keep refusing a pinned file with other bytes, and the build records what it imported.

Expected values come from the files themselves (csv / json / hashlib), never from the importer.
"""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
import warnings
from dataclasses import replace
from pathlib import Path

import pytest

from perfgraphs import paths
from perfgraphs.errors import PerfgraphsError
from perfgraphs.registry import UnknownDatasetError, get_dataset

EXTERNAL = next((p / "shared" / "external" for p in Path(__file__).resolve().parents
                 if (p / "shared" / "external" / "timm-benchmark").is_dir()), None)
needs_external = pytest.mark.skipif(EXTERNAL is None, reason="shared/external (timm, ML.ENERGY copies) not found")

RTX4090 = "benchmark-infer-amp-nchw-pt240-cu124-rtx4090.csv"
RTX5090 = "benchmark-infer-amp-nchw-pt240-cu124-rtx5090.csv"  # a renamed copy: "another device"
NEW_PLATFORM = "timm-rtx5090-amp-nchw-pt240-cu124"
NEW_TARGET = f"latency_per_sample_ms__{NEW_PLATFORM}"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _csv_rows(path: Path) -> list[dict]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture
def external(tmp_path, monkeypatch):
    """A private external folder holding the committed timm result files (and nothing of the
    user's cache): PERFGRAPHS_EXTERNAL_DIR points at it, PERFGRAPHS_HOME at an empty cache."""
    if EXTERNAL is None:
        pytest.skip("shared/external not found")
    root = tmp_path / "external"
    (root / "timm-benchmark").mkdir(parents=True)
    for src in (EXTERNAL / "timm-benchmark").glob("benchmark-infer-*.csv"):
        shutil.copyfile(src, root / "timm-benchmark" / src.name)
    monkeypatch.setenv("PERFGRAPHS_EXTERNAL_DIR", str(root))
    monkeypatch.setenv("PERFGRAPHS_HOME", str(tmp_path / "home"))
    return root / "timm-benchmark"


def _flip_one_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


# -- the acceptance test: a new timm result file ------------------------------------------------------


@needs_external
def test_a_new_timm_result_file_is_a_platform_with_labels_and_eligible_targets(external):
    from perfgraphs.pool.graph_pool import GraphPool
    from perfgraphs.data.manifest import read_manifest
    from perfgraphs.data.platform_labels import build_nnlqp_config
    from perfgraphs.evaluation.evaluator import Evaluator
    from perfgraphs.loaders.timm_benchmark import import_timm_benchmark
    from perfgraphs.data.platforms import TIMM_SOURCE, timm_platforms

    cfg = get_dataset("nnlqp").default_config
    pinned_platforms = set(cfg.platforms)
    assert NEW_PLATFORM not in pinned_platforms
    with pytest.raises(UnknownDatasetError, match=f"no platform '{NEW_PLATFORM}'"):
        cfg.target(NEW_TARGET)

    shutil.copyfile(external / RTX4090, external / RTX5090)  # no code edit from here on

    # a platform, as a typed record of its provenance
    assert set(cfg.platforms) == pinned_platforms | {NEW_PLATFORM}
    new = next(p for p in timm_platforms() if p.name == NEW_PLATFORM)
    assert (new.device, new.device_kind, new.precision, new.layout) == ("rtx5090", "gpu", "amp", "nchw")
    assert (new.framework, new.torch_version, new.cuda_version, new.compiled) == ("torch", "2.4.0", "12.4", False)
    assert (new.source, new.source_files, new.sha256) == (TIMM_SOURCE, (RTX5090,), _sha256(external / RTX5090))

    # its labels: every CSV row of the file, under the new platform
    imported = import_timm_benchmark(progress=False)
    rows = [r for r in imported.table.to_pylist() if r["platform"] == NEW_PLATFORM]
    expected = _csv_rows(external / RTX5090)
    assert len(rows) == len(expected)
    assert [r["model_name"] for r in rows] == [e["model"] for e in expected]
    assert [r["throughput_samples_per_s"] for r in rows] == [
        float(e["infer_samples_per_sec"]) if e["infer_samples_per_sec"] else None for e in expected]
    assert all(r["source_commit"] is None for r in rows)  # not the pinned commit's bytes
    assert (RTX5090, _sha256(external / RTX5090)) in {(f.name, f.sha256) for f in imported.files}

    # a scorable target: the registry and the Evaluator accept it, and it is one of the config's per-platform targets
    target = cfg.target(NEW_TARGET)
    assert (target.unit, target.positive) == ("ms", True)
    result = Evaluator("nnlqp", NEW_TARGET).eval({"y_true": [2.0, 4.0], "y_pred": [2.2, 4.0]})
    assert (result["config"], result["target"]) == ("timm-platforms", NEW_TARGET)
    assert result["mape_pct"] == pytest.approx(5.0)
    assert NEW_TARGET in [pt for t in cfg.targets for pt in cfg.platform_targets(t.name)]

    # a build labels the graphs with it, and its manifest records the platform and every file read
    ds = get_dataset("nnlqp")
    folder = build_nnlqp_config(ds, ds.default_config, pool=GraphPool(paths.graph_pool_dir()), only={"resnet18"})
    import datasets

    table = [r for split in datasets.load_dataset(str(folder)).values() for r in split]
    checked = 0
    for row in table:
        in_file = [e for e in expected
                   if e["model"].split(".")[0] == "resnet18" and int(float(e["infer_img_size"])) == row["img_size"]]
        if not in_file:  # an input size only other platforms measured
            assert row[NEW_TARGET] is None
            continue
        # the file's last row of an (architecture, input size) is its label (re-runs are appended)
        assert row[NEW_TARGET] == pytest.approx(1000.0 / float(in_file[-1]["infer_samples_per_sec"]))
        checked += 1
    assert checked >= 1
    manifest = read_manifest(folder)
    recorded = {p["name"]: p for p in manifest["platforms"]}
    assert recorded[NEW_PLATFORM]["sha256"] == _sha256(external / RTX5090)
    timm_input = next(i for i in manifest["inputs"] if i["kind"] == "external")
    assert sorted(map(tuple, timm_input["files"])) == sorted(
        (p.name, _sha256(p)) for p in external.glob("benchmark-infer-*.csv"))
    # for a built config, its manifest is the truth: the platforms of its columns
    assert set(cfg.platforms) == set(recorded) and NEW_PLATFORM in recorded


# -- what the importer skips, and what it refuses --------------------------------------------------------


@needs_external
def test_files_that_do_not_parse_are_skipped_with_one_line_each(external):
    from perfgraphs.loaders.sources import SkippedSourceFileWarning
    from perfgraphs.loaders.timm_benchmark import import_timm_benchmark

    before = import_timm_benchmark(progress=False)
    bad = {
        "benchmark-infer-amp-nchw-pt240-cu124-broken.csv": ("a,b\n1,2\n", "missing columns"),
        "benchmark-infer-amp-nchw-ptXYZ-cu124-rtx4090.csv": ((external / RTX4090).read_text(), "not a timm inference"),
        "benchmark-infer-amp-nchw-pt240-cu124-halfbatch.csv": (
            "model,infer_img_size,infer_samples_per_sec,infer_step_time,infer_batch_size\nresnet18,224,10,5,2.5\n",
            "expected an integer"),
        # the same platform as a pinned file under another name: the pinned file's rows stay
        "benchmark-infer-amp-nchw-pt240-cu124-4090.csv": ("", "already imported from " + RTX4090),
    }
    for name, (text, _) in bad.items():
        (external / name).write_text(text or (external / RTX4090).read_text()[:2000].rsplit("\n", 1)[0] + "\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        after = import_timm_benchmark(progress=False)
    lines = [str(w.message) for w in caught if issubclass(w.category, SkippedSourceFileWarning)]
    assert len(lines) == len(bad)
    for name, (_, why) in bad.items():
        line = next(m for m in lines if name in m)
        assert why in line and "\n" not in line
    assert {s.name for s in after.skipped} == set(bad)
    assert after.table.equals(before.table) and after.files == before.files


@needs_external
def test_a_pinned_file_with_other_bytes_is_refused_even_beside_new_files(external):
    from perfgraphs.loaders.sources import ChecksumMismatchError
    from perfgraphs.loaders.timm_benchmark import import_timm_benchmark

    shutil.copyfile(external / RTX4090, external / RTX5090)
    _flip_one_byte(external / RTX4090)
    with pytest.raises(ChecksumMismatchError) as exc:
        import_timm_benchmark(progress=False)
    assert RTX4090 in str(exc.value) and "\n" not in str(exc.value)
    assert isinstance(exc.value, PerfgraphsError)
    # the config's platforms cannot be read from tampered sources either: the same one-line error
    with pytest.raises(ChecksumMismatchError):
        get_dataset("nnlqp").default_config.target(NEW_TARGET)


@needs_external
def test_mlenergy_folder_with_a_new_model_file_and_no_index(tmp_path, monkeypatch):
    from perfgraphs.loaders.mlenergy import MLENERGY_COMMIT, import_mlenergy
    from perfgraphs.loaders.sources import SkippedSourceFileWarning

    monkeypatch.delenv("PERFGRAPHS_EXTERNAL_DIR", raising=False)
    monkeypatch.setenv("PERFGRAPHS_HOME", str(tmp_path / "home"))
    folder = tmp_path / "mlenergy" / "models"
    folder.mkdir(parents=True)
    for src in (EXTERNAL / "mlenergy-leaderboard" / "models").glob("*.json"):
        shutil.copyfile(src, folder / src.name)
    new = "models/Qwen__Qwen3-8B-rerun__gpqa.json"
    shutil.copyfile(folder / "Qwen__Qwen3-8B__gpqa.json", tmp_path / "mlenergy" / new)
    (folder / "broken__model__gpqa.json").write_text('{"model_id": "x", "task": "gpqa"')
    with pytest.warns(SkippedSourceFileWarning) as caught:
        result = import_mlenergy(tmp_path / "mlenergy", progress=False)
    lines = [str(w.message) for w in caught]
    assert any("index.json" in m and "absent" in m for m in lines)
    assert any("broken__model__gpqa.json" in m and "not valid JSON" in m for m in lines)
    assert all("\n" not in m for m in lines)
    per_file = {f"models/{p.name}": len(json.loads(p.read_text())["configurations"])
                for p in folder.glob("*.json") if not p.name.startswith("broken")}
    assert result.table.num_rows == sum(per_file.values())
    assert {f.name: f.sha256 for f in result.files} == {n: _sha256(tmp_path / "mlenergy" / n) for n in per_file}
    by_file = result.table.group_by("source_file").aggregate([([], "count_all")]).to_pylist()
    assert {r["source_file"]: r["count_all"] for r in by_file} == per_file
    rows = result.table.to_pylist()
    assert all(r["modality"] is None for r in rows)  # the task grouping lives in index.json only
    assert {r["source_commit"] for r in rows if r["source_file"] == new} == {None}
    assert {r["source_commit"] for r in rows if r["source_file"] != new} == {MLENERGY_COMMIT}


# -- the build's record of its sources, and the few-shot seed order ----------------------------------------


@needs_external
def test_external_input_records_every_imported_file(external, monkeypatch):
    from perfgraphs.data.build_inputs import external_input
    from perfgraphs.loaders.timm_benchmark import TIMM_INFER_FILES

    pinned = external_input("timm-benchmark")
    assert pinned.files == tuple(sorted((f.name, f.sha256) for f in TIMM_INFER_FILES))
    shutil.copyfile(external / RTX4090, external / RTX5090)
    grown = external_input("timm-benchmark")
    assert (RTX5090, _sha256(external / RTX5090)) in grown.files and grown.digest != pinned.digest
    # an explicit folder is recorded as the build's source
    assert external_input("timm-benchmark", external).folder == str(external)
    # with no local copy (no folder set, an empty cache), the pinned list is what a build would
    # download and read
    monkeypatch.delenv("PERFGRAPHS_EXTERNAL_DIR")
    assert external_input("timm-benchmark").digest == pinned.digest


def test_new_platforms_are_appended_to_the_committed_seed_order():
    from perfgraphs.data.splits import extended_platform_order, platform_order

    order = platform_order()
    assert len(order) == 17 and order[0] == "timm-i7_12700h-fp32-nchw-pt240-dynamo" and order[-1] == "cpu-ort-int8"
    grown = extended_platform_order([*reversed(order), "zz-new", NEW_PLATFORM])
    assert grown == order + sorted(["zz-new", NEW_PLATFORM])


# -- a measured store is a config -------------------------------------------------------------------------


def _copy_store(src: Path, dst: Path) -> None:
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".*"))


def test_a_measured_gpu_store_is_a_config_like_the_hand_registered_one(tmp_path):
    from perfgraphs.data.platforms import store_configs

    dippm = get_dataset("dippm")
    registered = dippm.config("h200-torch-fp32")
    store = paths.measurement_store(registered.suite)
    if not store.is_dir():
        pytest.skip("no committed GPU store")
    _copy_store(store, tmp_path / registered.suite)
    _copy_store(paths.measurement_store("dippm-cpu"), tmp_path / "dippm-cpu")  # a CPU store: registered by hand only
    # without its registry entry, the store alone makes the same config
    unregistered = replace(dippm, configs=tuple(c for c in dippm.configs if c is not registered))
    (found,) = store_configs(unregistered, tmp_path)
    assert (found.name, found.platform, found.suite, found.kind) == (
        registered.name, registered.platform, registered.suite, registered.kind)
    assert (found.targets, found.split_protocols) == (registered.targets, registered.split_protocols)
    assert (found.recipe, found.sources) == (registered.recipe, registered.sources)  # built the same way
    assert found.hardware == "NVIDIA H200"
    # registered, it keeps its hand-written name and description: no second config
    assert store_configs(dippm, tmp_path) == ()
    assert [c for c in get_dataset("dippm").configs if c.suite == registered.suite] == [registered]


def test_a_new_gpu_store_is_a_config_the_evaluator_accepts(tmp_path, monkeypatch):
    from perfgraphs.evaluation.evaluator import Evaluator

    store = paths.measurement_store("dippm-h200")
    if not store.is_dir():
        pytest.skip("no committed GPU store")
    root = tmp_path / "measurements"
    _copy_store(store, root / "dippm-h200-node2")  # the same GPU in a second store: named after the store
    monkeypatch.setattr(paths, "measurements_dir", lambda: root)
    names = [c.name for c in get_dataset("dippm").configs]
    assert "dippm-h200-node2-torch-fp32" in names and names.count("h200-torch-fp32") == 1
    ev = Evaluator("dippm", "energy_j", config="dippm-h200-node2-torch-fp32")
    assert ev.config.suite == "dippm-h200-node2" and ev.target.unit == "J"
    # a store whose hardware probe does not say which GPU measured it names no config
    (root / "dippm-h200-node2" / "cuda-torch-fp32" / "hardware.json").unlink()
    assert "dippm-h200-node2-torch-fp32" not in [c.name for c in get_dataset("dippm").configs]


def test_an_unregistered_gpu_store_builds_the_same_dataset_as_its_registry_entry(tmp_path):
    """The config the dippm-h200 store makes on its own is built, from the same store and pool,
    into the same content (hash) as the hand-registered h200-torch-fp32."""
    from perfgraphs.data.manifest import read_manifest
    from perfgraphs.data.platforms import store_configs
    from perfgraphs.data.recipes import build

    dippm = get_dataset("dippm")
    registered = dippm.config("h200-torch-fp32")
    if not paths.measurement_store(registered.suite).is_dir():
        pytest.skip("no committed GPU store")
    unregistered = replace(dippm, configs=tuple(c for c in dippm.configs if c is not registered))
    (found,) = store_configs(unregistered)
    hashes = [read_manifest(build(ds, cfg, home=tmp_path / name))["content_hash"]
              for name, ds, cfg in (("found", unregistered, found), ("registered", dippm, registered))]
    assert hashes[0] == hashes[1]
