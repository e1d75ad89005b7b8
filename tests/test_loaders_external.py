"""Importers of public measurement data, checked against the local copies in shared/external.

Expected values are read from the source files themselves with the csv / json stdlib modules, so
the tests pin parsing behaviour without committing any of the data. Nothing here uses the network:
the download path is exercised with file:// URLs.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from perfgraphs.errors import PerfgraphsError
from perfgraphs.loaders.mlenergy import MLENERGY_COMMIT, MLENERGY_FILES, load_mlenergy
from perfgraphs.loaders.sources import (ChecksumMismatchError, DownloadError,
                                        SourceFile, SourceFileMissingError, resolve_source,
                                        sha256_file)
from perfgraphs.loaders.timm_benchmark import (SCHEMA, TIMM_COMMIT, TIMM_INFER_FILES,
                                               cross_version_noise_floor,
                                               cross_version_noise_floor_details, dedupe_latest,
                                               load_timm_benchmark, parse_platform, platforms)


def _find_external() -> Path | None:
    env = os.environ.get("PERFGRAPHS_EXTERNAL_DIR")
    if env:
        return Path(env)
    for parent in Path(__file__).resolve().parents:
        cand = parent / "shared" / "external"
        if cand.is_dir():
            return cand
    return None


EXTERNAL = _find_external()
TIMM_DIR = EXTERNAL / "timm-benchmark" if EXTERNAL else None
MLE_DIR = EXTERNAL / "mlenergy-leaderboard" if EXTERNAL else None

needs_timm = pytest.mark.skipif(
    TIMM_DIR is None or not TIMM_DIR.is_dir(),
    reason="local copy of timm results not found (set PERFGRAPHS_EXTERNAL_DIR to shared/external)")
needs_mlenergy = pytest.mark.skipif(
    MLE_DIR is None or not MLE_DIR.is_dir(),
    reason="local copy of ML.ENERGY data not found (set PERFGRAPHS_EXTERNAL_DIR to shared/external)")


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch, tmp_path):
    """No test may fall back to the user's cache or a directory set in the caller's shell."""
    monkeypatch.delenv("PERFGRAPHS_EXTERNAL_DIR", raising=False)
    monkeypatch.setenv("PERFGRAPHS_HOME", str(tmp_path / "home"))


@pytest.fixture(scope="module")
def timm_table() -> pa.Table:
    if TIMM_DIR is None or not TIMM_DIR.is_dir():
        pytest.skip("local copy of timm results not found")
    return load_timm_benchmark(TIMM_DIR, progress=False)


@pytest.fixture(scope="module")
def mle_table() -> pa.Table:
    if MLE_DIR is None or not MLE_DIR.is_dir():
        pytest.skip("local copy of ML.ENERGY data not found")
    return load_mlenergy(MLE_DIR, progress=False)


def _csv_rows(path: Path) -> list[dict]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def _rows_of(table: pa.Table, source_file: str) -> pa.Table:
    return table.filter(pc.equal(table["source_file"], source_file))


# --- timm ------------------------------------------------------------------------------------


@needs_timm
def test_pinned_list_matches_local_copy():
    local = {p.name for p in TIMM_DIR.glob("benchmark-infer-*.csv")}
    assert local == {f.name for f in TIMM_INFER_FILES}
    for f in TIMM_INFER_FILES:
        assert f.url.endswith(f"/{TIMM_COMMIT}/results/{f.name}")
        assert sha256_file(TIMM_DIR / f.name) == f.sha256


@needs_timm
def test_timm_row_counts_equal_csv_rows(timm_table):
    total = 0
    for f in TIMM_INFER_FILES:
        n = len(_csv_rows(TIMM_DIR / f.name))
        assert _rows_of(timm_table, f.name).num_rows == n, f.name
        total += n
    assert timm_table.num_rows == total
    assert timm_table.schema == SCHEMA
    assert set(timm_table["source_commit"].to_pylist()) == {TIMM_COMMIT}


def _expected_row(path: Path, model: str, img: int) -> dict:
    (row,) = [r for r in _csv_rows(path) if r["model"] == model and int(r["infer_img_size"]) == img]
    return row


@needs_timm
@pytest.mark.parametrize("file_name", [
    "benchmark-infer-amp-nchw-pt240-cu124-rtx4090.csv",  # img_size second
    "benchmark-infer-amp-nchw-pt113-cu117-rtx3090.csv",  # img_size fifth, param_count last
    "benchmark-infer-amp-nhwc-pt210-cu121-rtx3090.csv",  # batch size written "256.0"
])
def test_known_row_resnet50_224(timm_table, file_name):
    exp = _expected_row(TIMM_DIR / file_name, "resnet50", 224)
    rows = _rows_of(timm_table, file_name)
    (got,) = [r for r in rows.to_pylist() if r["arch"] == "resnet50" and r["img_size"] == 224]
    assert got["model_name"] == "resnet50" and got["pretrained_tag"] is None
    assert got["batch_size"] == int(float(exp["infer_batch_size"]))
    assert isinstance(got["batch_size"], int)
    assert got["latency_ms"] == pytest.approx(float(exp["infer_step_time"]))
    assert got["throughput_samples_per_s"] == pytest.approx(float(exp["infer_samples_per_sec"]))
    assert got["param_count_millions"] == pytest.approx(float(exp["param_count"]))
    assert got["gmacs_per_sample"] == pytest.approx(float(exp["infer_gmacs"]))
    assert got["activations_millions"] == pytest.approx(float(exp["infer_macts"]))
    plat = parse_platform(file_name)
    assert got["platform"] == plat.name and got["device"] == plat.device
    assert got["torch_version"] == plat.torch_version and got["cuda_version"] == plat.cuda_version
    # step time is ms per batch: throughput * step time / 1000 = batch size (up to rounding)
    assert got["throughput_samples_per_s"] * got["latency_ms"] / 1000 == pytest.approx(
        got["batch_size"], rel=0.01)


@needs_timm
def test_every_csv_row_round_trips(timm_table):
    """Whatever the column order, each cell lands in the right column (nulls where empty)."""
    def num(s):
        return float(s) if s not in ("", None) else None

    for f in TIMM_INFER_FILES:
        got = _rows_of(timm_table, f.name).to_pylist()
        for exp, row in zip(_csv_rows(TIMM_DIR / f.name), got, strict=True):
            assert row["model_name"] == exp["model"]
            assert row["img_size"] == int(float(exp["infer_img_size"]))
            assert row["latency_ms"] == num(exp["infer_step_time"])
            assert row["throughput_samples_per_s"] == num(exp["infer_samples_per_sec"])
            bs = num(exp["infer_batch_size"])
            assert row["batch_size"] == (int(bs) if bs is not None else None)
            assert row["gmacs_per_sample"] == num(exp.get("infer_gmacs"))
            assert row["activations_millions"] == num(exp.get("infer_macts"))


@needs_timm
def test_failed_measurements_are_null_not_invented(timm_table):
    name = "benchmark-infer-amp-nchw-pt210-cu121-rtx3090.csv"
    failed = [r for r in _csv_rows(TIMM_DIR / name) if not r["infer_step_time"]]
    assert failed, "expected the upstream file to contain failed (empty) rows"
    rows = {r["model_name"]: r for r in _rows_of(timm_table, name).to_pylist()}
    for r in failed:
        got = rows[r["model"]]
        assert got["latency_ms"] is None and got["batch_size"] is None
        assert got["param_count_millions"] == pytest.approx(float(r["param_count"]))


EXPECTED_PLATFORMS = {
    "benchmark-infer-amp-nchw-pt113-cu117-rtx3090.csv":
        ("timm-rtx3090-amp-nchw-pt113-cu117", "rtx3090", "amp", "nchw", "1.13", "11.7", False),
    "benchmark-infer-amp-nchw-pt210-cu121-rtx3090.csv":
        ("timm-rtx3090-amp-nchw-pt210-cu121", "rtx3090", "amp", "nchw", "2.1.0", "12.1", False),
    "benchmark-infer-amp-nchw-pt240-cu124-rtx3090.csv":
        ("timm-rtx3090-amp-nchw-pt240-cu124", "rtx3090", "amp", "nchw", "2.4.0", "12.4", False),
    "benchmark-infer-amp-nchw-pt240-cu124-rtx4090-dynamo.csv":
        ("timm-rtx4090-amp-nchw-pt240-cu124-dynamo", "rtx4090", "amp", "nchw", "2.4.0", "12.4", True),
    "benchmark-infer-amp-nchw-pt240-cu124-rtx4090.csv":
        ("timm-rtx4090-amp-nchw-pt240-cu124", "rtx4090", "amp", "nchw", "2.4.0", "12.4", False),
    "benchmark-infer-amp-nchw-pt291-cu128-4090-dynamo.csv":
        ("timm-rtx4090-amp-nchw-pt291-cu128-dynamo", "rtx4090", "amp", "nchw", "2.9.1", "12.8", True),
    "benchmark-infer-amp-nchw-pt291-cu128-4090.csv":
        ("timm-rtx4090-amp-nchw-pt291-cu128", "rtx4090", "amp", "nchw", "2.9.1", "12.8", False),
    "benchmark-infer-amp-nhwc-pt113-cu117-rtx3090.csv":
        ("timm-rtx3090-amp-nhwc-pt113-cu117", "rtx3090", "amp", "nhwc", "1.13", "11.7", False),
    "benchmark-infer-amp-nhwc-pt210-cu121-rtx3090.csv":
        ("timm-rtx3090-amp-nhwc-pt210-cu121", "rtx3090", "amp", "nhwc", "2.1.0", "12.1", False),
    "benchmark-infer-amp-nhwc-pt240-cu124-rtx3090.csv":
        ("timm-rtx3090-amp-nhwc-pt240-cu124", "rtx3090", "amp", "nhwc", "2.4.0", "12.4", False),
    "benchmark-infer-amp-nhwc-pt240-cu124-rtx4090.csv":
        ("timm-rtx4090-amp-nhwc-pt240-cu124", "rtx4090", "amp", "nhwc", "2.4.0", "12.4", False),
    "benchmark-infer-fp32-nchw-pt221-cpu-i9_10940x-dynamo.csv":
        ("timm-i9_10940x-fp32-nchw-pt221-dynamo", "i9_10940x", "fp32", "nchw", "2.2.1", None, True),
    "benchmark-infer-fp32-nchw-pt240-cpu-i7_12700h-dynamo.csv":
        ("timm-i7_12700h-fp32-nchw-pt240-dynamo", "i7_12700h", "fp32", "nchw", "2.4.0", None, True),
    "benchmark-infer-fp32-nchw-pt240-cpu-i9_10940x-dynamo.csv":
        ("timm-i9_10940x-fp32-nchw-pt240-dynamo", "i9_10940x", "fp32", "nchw", "2.4.0", None, True),
}


@pytest.mark.parametrize("file_name", sorted(EXPECTED_PLATFORMS))
def test_platform_parsing_of_every_file_name(file_name):
    p = parse_platform(file_name)
    assert (p.name, p.device, p.precision, p.layout, p.torch_version, p.cuda_version,
            p.compiled) == EXPECTED_PLATFORMS[file_name]
    assert p.device_kind == ("cpu" if p.cuda_version is None else "gpu")


def test_expected_platforms_cover_pinned_files():
    assert set(EXPECTED_PLATFORMS) == {f.name for f in TIMM_INFER_FILES}


def test_bad_file_name_is_a_typed_error():
    with pytest.raises(PerfgraphsError, match="benchmark-train"):
        parse_platform("benchmark-train-amp-nchw-pt112-cu113-rtx3090.csv")


@needs_timm
def test_timm_coverage(timm_table):
    plats = platforms(timm_table)
    archs = set(timm_table["arch"].to_pylist())
    print(f"\ntimm table: {timm_table.num_rows} rows, {len(plats)} platforms, "
          f"{len(archs)} architectures")
    assert len(plats) >= 12
    assert len(archs) >= 1300
    assert sum(p["rows"] for p in plats) == timm_table.num_rows
    assert len({p["name"] for p in plats}) == len(plats)


def test_dedupe_latest_keeps_last_row_per_arch_and_size():
    base = {f.name: None for f in SCHEMA}
    rows = [
        base | {"arch": "resnet50", "model_name": "resnet50.a1_in1k", "pretrained_tag": "a1_in1k",
                "img_size": 224, "source_file": "f1", "latency_ms": 1.0},
        base | {"arch": "resnet50", "model_name": "resnet50.tv_in1k", "pretrained_tag": "tv_in1k",
                "img_size": 224, "source_file": "f1", "latency_ms": 2.0},
        base | {"arch": "resnet50", "model_name": "resnet50", "img_size": 288, "source_file": "f1",
                "latency_ms": 3.0},
        base | {"arch": "resnet50", "model_name": "resnet50", "img_size": 224, "source_file": "f2",
                "latency_ms": 4.0},
    ]
    out = dedupe_latest(pa.Table.from_pylist(rows, schema=SCHEMA))
    assert out["latency_ms"].to_pylist() == [2.0, 3.0, 4.0]
    assert out["pretrained_tag"].to_pylist() == ["tv_in1k", None, None]


@needs_timm
def test_dedupe_latest_on_real_table(timm_table):
    out = dedupe_latest(timm_table)
    keys = list(zip(out["source_file"].to_pylist(), out["arch"].to_pylist(),
                    out["img_size"].to_pylist()))
    assert len(keys) == len(set(keys)) and out.num_rows <= timm_table.num_rows


@needs_timm
def test_cross_version_noise_floor_is_plausible(timm_table):
    details = cross_version_noise_floor_details(timm_table)
    print("\ncross-PyTorch-version noise floor (MAPE %, median APE %, configs, versions):")
    for nf in details:
        print(f"  {nf.group:28s} {nf.mape_percent:6.2f} {nf.median_ape_percent:6.2f} "
              f"{nf.n_configs:5d}  {', '.join(nf.torch_versions)}")
    floor = cross_version_noise_floor(timm_table)
    assert {"rtx3090/amp/nchw", "rtx3090/amp/nhwc", "rtx4090/amp/nchw"} <= set(floor)
    for group, mape in floor.items():
        if group.startswith("rtx"):
            assert 0.5 < mape < 20.0, (group, mape)
    # i7_12700h was measured under one PyTorch version only: nothing to compare.
    assert not any(g.startswith("i7_12700h") for g in floor)


# --- sources: verification, errors, download ---------------------------------------------------


def _flip_one_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


def _files_under(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file()] if root.exists() else []


@needs_timm
def test_checksum_mismatch_in_local_dir_names_file_and_writes_nothing(tmp_path):
    local = tmp_path / "timm"
    local.mkdir()
    for f in TIMM_INFER_FILES:
        shutil.copyfile(TIMM_DIR / f.name, local / f.name)
    bad = TIMM_INFER_FILES[3].name
    _flip_one_byte(local / bad)
    cache = tmp_path / "cache"
    with pytest.raises(ChecksumMismatchError) as exc:
        load_timm_benchmark(local, cache, progress=False)
    assert bad in str(exc.value) and "\n" not in str(exc.value)
    assert "PERFGRAPHS_EXTERNAL_DIR" in str(exc.value)
    assert isinstance(exc.value, PerfgraphsError)
    assert _files_under(cache) == [] and _files_under(tmp_path / "home") == []


@needs_timm
def test_checksum_mismatch_on_download_leaves_cache_empty(tmp_path):
    name = TIMM_INFER_FILES[0].name
    upstream = tmp_path / "upstream" / name
    upstream.parent.mkdir()
    shutil.copyfile(TIMM_DIR / name, upstream)
    _flip_one_byte(upstream)
    cache = tmp_path / "cache"
    src = SourceFile(f"sub/{name}", upstream.as_uri(), TIMM_INFER_FILES[0].sha256)
    with pytest.raises(ChecksumMismatchError, match=name):
        resolve_source([src], cache_dir=cache, progress=False)
    assert _files_under(cache) == []
    assert not (cache / "sub").exists()  # no empty directories left behind either


def test_missing_local_file_says_how_to_fix(tmp_path):
    src = SourceFile("index.json", "https://example.invalid/index.json", "0" * 64)
    with pytest.raises(SourceFileMissingError) as exc:
        resolve_source([src], local_dir=tmp_path)
    msg = str(exc.value)
    assert "index.json" in msg and "PERFGRAPHS_EXTERNAL_DIR" in msg and "--external-dir" in msg
    assert "\n" not in msg


def test_unreachable_url_is_a_typed_error(tmp_path):
    src = SourceFile("gone.csv", (tmp_path / "nope.csv").as_uri(), "0" * 64)
    with pytest.raises(DownloadError, match="gone.csv"):
        resolve_source([src], cache_dir=tmp_path / "cache", progress=False)
    assert _files_under(tmp_path / "cache") == []


def test_file_url_download_into_cache_and_reverify(tmp_path):
    upstream = tmp_path / "upstream" / "data.json"
    upstream.parent.mkdir()
    payload = json.dumps({"x": list(range(50_000))}).encode()
    upstream.write_bytes(payload)
    src = SourceFile("models/data.json", upstream.as_uri(), sha256_file(upstream))
    cache = tmp_path / "cache"

    paths = resolve_source([src], cache_dir=cache, progress=True)
    dest = paths["models/data.json"]
    assert dest == cache / "models" / "data.json" and dest.read_bytes() == payload
    assert _files_under(cache) == [dest]  # no temp files left

    # Second call: served from the cache (upstream gone), after re-verifying the hash.
    upstream.rename(upstream.with_suffix(".moved"))
    assert resolve_source([src], cache_dir=cache, progress=False) == paths

    # A corrupted cached copy is detected: with upstream unreachable it is an error...
    _flip_one_byte(dest)
    with pytest.raises(DownloadError):
        resolve_source([src], cache_dir=cache, progress=False)
    # ...and with upstream back it is replaced by verified bytes.
    upstream.with_suffix(".moved").rename(upstream)
    assert resolve_source([src], cache_dir=cache, progress=False) == paths
    assert dest.read_bytes() == payload


def test_env_dirs_are_honoured(tmp_path, monkeypatch):
    upstream = tmp_path / "upstream.csv"
    upstream.write_text("a,b\n1,2\n")
    src = SourceFile("t.csv", upstream.as_uri(), sha256_file(upstream))
    # Default cache: $PERFGRAPHS_HOME/external/<subdir>
    got = resolve_source([src], subdir="demo", progress=False)["t.csv"]
    assert got == tmp_path / "home" / "external" / "demo" / "t.csv"
    # $PERFGRAPHS_EXTERNAL_DIR/<subdir> wins over the cache and is read in place.
    ext = tmp_path / "ext" / "demo"
    ext.mkdir(parents=True)
    shutil.copyfile(upstream, ext / "t.csv")
    monkeypatch.setenv("PERFGRAPHS_EXTERNAL_DIR", str(tmp_path / "ext"))
    assert resolve_source([src], subdir="demo", progress=False)["t.csv"] == ext / "t.csv"


# --- ML.ENERGY -------------------------------------------------------------------------------

MLE_COLUMNS = [
    "model_id", "task", "architecture", "weight_precision", "total_params_billions",
    "activated_params_billions", "gpu_model", "num_gpus", "max_num_seqs", "avg_batch_size",
    "output_throughput_tokens_per_sec", "energy_per_token_joules", "energy_per_request_joules",
    "avg_power_watts", "median_itl_ms", "p90_itl_ms", "avg_output_len", "source_file",
    "source_commit",
]


@needs_mlenergy
def test_mlenergy_pinned_list_matches_local_copy():
    local = {"index.json"} | {f"models/{p.name}" for p in (MLE_DIR / "models").glob("*.json")}
    assert local == {f.name for f in MLENERGY_FILES}


@needs_mlenergy
def test_mlenergy_row_counts_equal_configurations(mle_table):
    assert set(MLE_COLUMNS) <= set(mle_table.column_names)
    total = 0
    for p in sorted((MLE_DIR / "models").glob("*.json")):
        n = len(json.loads(p.read_text())["configurations"])
        assert _rows_of(mle_table, f"models/{p.name}").num_rows == n, p.name
        total += n
    assert mle_table.num_rows == total
    assert set(mle_table["source_commit"].to_pylist()) == {MLENERGY_COMMIT}
    print(f"\nML.ENERGY table: {mle_table.num_rows} configurations, "
          f"{len(set(mle_table['model_id'].to_pylist()))} models")


@needs_mlenergy
def test_mlenergy_values_match_json_and_absent_fields_are_null(mle_table):
    index = json.loads((MLE_DIR / "index.json").read_text())["models"]
    renamed = {"image_height_px": "image_height", "image_width_px": "image_width",
               "video_height_px": "video_height", "video_width_px": "video_width"}
    config_cols = [c for c in mle_table.column_names
                   if c not in ("model_id", "nickname", "task", "modality", "architecture",
                                "weight_precision", "total_params_billions",
                                "activated_params_billions", "tensor_parallel", "data_parallel",
                                "expert_parallel", "ring_degree", "ulysses_degree",
                                "parallelization_notes", "source_file", "source_commit")]
    for p in sorted((MLE_DIR / "models").glob("*.json")):
        doc = json.loads(p.read_text())
        rows = _rows_of(mle_table, f"models/{p.name}").to_pylist()
        for cfg, row in zip(doc["configurations"], rows, strict=True):
            assert row["model_id"] == doc["model_id"] and row["task"] == doc["task"]
            meta = index[doc["model_id"]]
            assert row["architecture"] == doc.get("architecture", meta.get("architecture"))
            assert row["total_params_billions"] == meta["total_params_billions"]
            assert row["activated_params_billions"] == meta["activated_params_billions"]
            assert row["weight_precision"] == meta["weight_precision"]
            for col in config_cols:
                assert row[col] == cfg.get(renamed.get(col, col)), (p.name, col)
            for k in ("tensor_parallel", "data_parallel", "expert_parallel", "ring_degree",
                      "ulysses_degree"):
                assert row[k] == cfg["parallelization"].get(k)


@needs_mlenergy
def test_mlenergy_known_llm_row(mle_table):
    cfg = json.loads((MLE_DIR / "models" / "Qwen__Qwen3-14B__gpqa.json").read_text())[
        "configurations"][0]
    row = _rows_of(mle_table, "models/Qwen__Qwen3-14B__gpqa.json").to_pylist()[0]
    assert row["modality"] == "llm" and row["architecture"] == "Dense Transformer"
    for k in ("gpu_model", "num_gpus", "max_num_seqs", "avg_batch_size",
              "output_throughput_tokens_per_sec", "energy_per_token_joules",
              "energy_per_request_joules", "avg_power_watts", "median_itl_ms", "p90_itl_ms",
              "avg_output_len"):
        assert row[k] == cfg[k], k
    assert row["batch_latency_s"] is None and row["energy_per_image_joules"] is None
    multi = mle_table.filter(pc.greater(mle_table["num_gpus"], 1))
    assert multi.num_rows > 0  # the reason this source is imported: multi-GPU serving rows
