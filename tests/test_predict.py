"""perfgraphs.predict: the answer for a model on a platform, checked against the committed
measurements and leaderboard records (independent of the predictor's code), the artifacts' guards
against a wrong build or feature version, bad input on every surface, MIG and cost arithmetic, the
HTML report, and the web form in a headless browser."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import socket
import threading
import time
from dataclasses import FrozenInstanceError
from pathlib import Path

import numpy as np
import pytest

import perfgraphs
from perfgraphs.errors import InvalidInputSpecError, UnknownModelError
from perfgraphs.predict import (ArtifactMismatchError, ArtifactMissingError, Prediction, PriceTableError,
                                UnknownPlatformError)
from perfgraphs.predict.artifacts import ARTIFACTS_DIR, load_artifact, read_meta
from perfgraphs.predict.mig import profile_table, recommend_mig
from perfgraphs.predict.verdict import UNSEEN_SHARE_REFUSED
from perfgraphs.predict.platforms import all_platforms, find_platform
from perfgraphs.registry import DATASETS

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module", autouse=True)
def own_cache(tmp_path_factory):
    """A cache of this module's own: no local dataset build to compare artifacts with (CI has none
    either) and the graph exports of these tests kept apart from the user's."""
    old = os.environ.get("PERFGRAPHS_HOME")
    os.environ["PERFGRAPHS_HOME"] = str(tmp_path_factory.mktemp("home"))
    yield Path(os.environ["PERFGRAPHS_HOME"])
    if old is None:
        os.environ.pop("PERFGRAPHS_HOME", None)
    else:
        os.environ["PERFGRAPHS_HOME"] = old


@pytest.fixture(scope="module")
def resnet50(own_cache) -> Prediction:
    return perfgraphs.predict("timm:resnet50", batch=8, platform="cpu-torch-fp32")


def _leaderboard_mean(dataset: str, config: str, column: str, content_hash: str, metric: str) -> float:
    """The static-xgboost record's mean over seeds, read straight from the committed jsonl."""
    path = ROOT / "leaderboard" / "results" / f"{dataset.split('/')[-1]}.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    records = [r for r in records if r["config"] == config and r["target"] == column
               and r["method"].startswith("static-xgboost") and r["tier"] in ("verified", "reproduced") and r["test_set"] == "public"]
    same = [r for r in records if r["dataset_content_hash"] == content_hash]
    record = max(same or records, key=lambda r: r["date_utc"])
    return float(np.mean([s[metric] for s in record["per_seed"]]))


def _store_labels(suite: str, platform: str, model: str, batch: int, column: str) -> list[float]:
    """The measured labels of a configuration, read from the collector's committed store."""
    from perfgraphs.collect.store import load_measurements

    rows = load_measurements(ROOT / "data" / "measurements" / suite).to_pylist()
    hits = [float(r[column]) for r in rows if r["platform"] == platform and r["model"] == model
            and r["batch_size"] == batch and r["status"] == "ok"]
    assert hits, (model, batch)
    return hits


# -- platforms ----------------------------------------------------------------------------------
def test_every_config_with_labels_is_a_platform_with_trained_artifacts():
    expected = set()
    for ds in DATASETS.values():
        for cfg in ds.configs:
            if cfg.predict_mode:
                expected |= {(p, cfg.predict_mode) for p in (cfg.platforms or (cfg.platform,))}
    listed = {(p.name, p.mode): p for p in perfgraphs.platforms()}
    assert set(listed) == expected
    assert ("cpu-torch-fp32", "train") in listed and ("cuda-torch-fp32", "infer") in listed
    # every platform answers at least one target from a committed artifact, with its label count
    for key, info in listed.items():
        counts = [n for _, _, n, _ in info.targets if n is not None]
        assert counts and min(counts) >= 30, (key, info.targets)


def test_platform_errors_name_what_can_be_asked():
    with pytest.raises(UnknownPlatformError, match="cpu-torch-fp32 \\(infer\\)"):
        find_platform("cpu-torch-bf16")  # a collector platform without labels
    with pytest.raises(UnknownPlatformError, match="mode infer only"):
        find_platform("cuda-torch-fp32", "train")
    with pytest.raises(UnknownPlatformError, match="mode must be"):
        find_platform("cpu-torch-fp32", "serve")


# -- the answer -----------------------------------------------------------------------------------
def test_resnet50_on_the_cpu_against_measurements_and_the_leaderboard(resnet50):
    r = resnet50
    assert r.platform == "cpu-torch-fp32" and r.graph.batch_size == 8
    with pytest.raises(FrozenInstanceError):
        r.platform = "x"
    lat = r["latency_ms"]
    assert lat.unit == "ms" and lat.predictor == "static-xgboost" and lat.dataset == "perfgraphs/dippm"
    # the platform's error is the leaderboard's record of the same predictor, recomputed from the file
    want = _leaderboard_mean(lat.dataset, lat.config, lat.column, lat.dataset_content_hash, "mape_pct")
    assert lat.error.mape_pct == pytest.approx(want)
    assert lat.error.acc_10_pct == pytest.approx(
        _leaderboard_mean(lat.dataset, lat.config, lat.column, lat.dataset_content_hash, "acc_10_pct"))
    # resnet50 at 224, batch 8 was measured: the prediction is near the real label, the measured row is the
    # nearest neighbour with that very label, and the model is in distribution
    measured = _store_labels("dippm-cpu", "cpu-torch-fp32", "timm:resnet50", 8, "latency_median_ms")
    assert lat.neighbours[0].name == "timm:resnet50@224#b8"
    assert any(lat.neighbours[0].label == pytest.approx(m) for m in measured)
    assert abs(lat.value - lat.neighbours[0].label) / lat.neighbours[0].label < 0.35
    assert lat.distribution.in_distribution and lat.distribution.unseen_operators == ()
    mem = r["peak_memory_mb"]
    assert mem.unit == "MB" and mem.value > 0
    # the timm-style per-sample CPU label is asked at the batch its rows were measured with
    assert r["latency_per_sample_ms"].batch_size == 1
    # graph facts: the MAC shares add up, convolutions dominate a ResNet
    assert sum(m for _, m in r.graph.macs_by_operator) == r.graph.total_macs
    assert r.graph.macs_by_operator[0][0] == "Conv"
    assert r.mig is None and "not a GPU" in r.mig_note
    # the CPU-time labels answer too (the primary CPU label of the cputime store)
    assert r["cpu_time_ms"].unit == "ms" and r["cpu_time_ms"].config != lat.config
    # share of predicted time per operator category, from the layerwise model of the same labels
    shares = dict(r.time_by_operator)
    assert sum(shares.values()) == pytest.approx(1.0) and max(shares, key=shares.get) == "conv"
    assert "layerwise-linear" in r.time_by_operator_note
    # one answer per question: of the forward-time targets exactly one is recommended, the one with
    # the narrowest 80 % interval; the others are secondary figures with their own intervals
    forward = [t for t in r.targets if t.question == lat.question]
    assert {t.target for t in forward} >= {"latency_ms", "cpu_time_ms"}
    best = [t for t in forward if t.recommended]
    assert len(best) == 1 and best[0] is r.answer(lat.question) and "narrowest" in best[0].why
    assert all(best[0].interval(0.8).half_width_pct <= t.interval(0.8).half_width_pct for t in forward)
    assert all("secondary" in t.why and t.interval(0.8) is not None for t in forward if not t.recommended)
    # every answer has its 80 % and 90 % intervals, the 90 % one around the 80 % one around the value
    for t in r.targets:
        i80, i90 = t.interval(0.8), t.interval(0.9)
        assert i90.low <= i80.low <= t.value <= i80.high <= i90.high, t.target
    # cost: N inferences at the recommended time per batch and the committed price, with its range
    c = r.cost
    priced = r[c.time_target]
    assert priced is best[0]
    assert c.seconds == pytest.approx(priced.value / 8 * 1_000_000 / 1000)
    assert c.usd == pytest.approx(c.seconds / 3600 * c.price.usd_per_hour)
    assert c.usd_low == pytest.approx(c.usd * priced.low / priced.value)
    assert c.usd_high == pytest.approx(c.usd * priced.high / priced.value)
    json.dumps(r.to_dict(), default=str)


def test_onnx_bytes_and_files_answer_as_the_zoo_name(resnet50, tmp_path):
    from perfgraphs.predict.sources import template_of

    data = template_of("timm:resnet50").model.SerializeToString()  # the export, without weights
    from_bytes = perfgraphs.predict(data, batch=8)
    assert from_bytes.source == "onnx-bytes"
    assert from_bytes["latency_ms"].value == pytest.approx(resnet50["latency_ms"].value, rel=1e-12)
    path = tmp_path / "resnet50.onnx"
    path.write_bytes(data)
    from_file = perfgraphs.predict(str(path), batch=8)
    assert from_file["peak_memory_mb"].value == pytest.approx(resnet50["peak_memory_mb"].value, rel=1e-12)
    with pytest.raises(InvalidInputSpecError, match="fixes its input shape"):
        perfgraphs.predict(str(path), batch=8, input="3,160,160")


def test_every_platform_answers(resnet50):
    for p in all_platforms():
        r = perfgraphs.predict("timm:resnet50", batch=8, platform=p.name, mode=p.mode)
        assert r.targets and all(t.value > 0 and math.isfinite(t.value) for t in r.targets), p.name
        assert all(t.error.n > 0 and 0 <= t.error.acc_10_pct <= 100 for t in r.targets)


def test_gpu_platform_sizes_a_mig_profile_and_prices_the_h200(resnet50):
    r = perfgraphs.predict("timm:resnet50", batch=8, platform="cuda-torch-fp32")
    assert {"latency_ms", "peak_memory_mb", "energy_j"} <= {t.target for t in r.targets}
    assert r.probe is not None and r.probe.device == "NVIDIA H200"
    mem = r["peak_memory_mb"]
    # the margin is the 90 % interval's upper end
    margin = 100 * (mem.interval(0.9).high / mem.value - 1)
    assert r.mig.peak_memory_mb == mem.value and r.mig.margin_pct == pytest.approx(margin)
    assert "allocated" in r.mig.caveat and "CUDA context" in r.mig.caveat  # what the labels are, not an upper bound
    need_gb = mem.value * (1 + margin / 100) / 1000
    for choice in r.mig.choices:
        sizes = [p["memory_gb"] for p in profile_table()["gpus"][choice.gpu]]
        assert choice.memory_gb >= need_gb and choice.memory_gb == min(s for s in sizes if s >= need_gb)


def test_training_mode_predicts_a_training_step():
    r = perfgraphs.predict("timm:resnet50", batch=8, platform="cpu-torch-fp32", mode="train")
    assert {t.target for t in r.targets} == {"step_time_ms", "peak_memory_mb"}
    assert r["step_time_ms"].dataset == "perfgraphs/trappm"
    assert r.cost.unit == "training step" and r.cost.units == 10_000


def test_an_operator_never_seen_in_training_is_out_of_distribution():
    import torch

    class Recurrent(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = torch.nn.GRU(48, 32, batch_first=True)

        def forward(self, x):  # (N, 3, 16, 16) → rows of the image as a sequence
            out, _ = self.rnn(x.permute(0, 2, 1, 3).reshape(x.shape[0], 16, 48))
            return out

    r = perfgraphs.predict(Recurrent(), batch=2, input="3,16,16", platform="cpu-torch-fp32")
    lat = r["latency_ms"]
    assert not lat.distribution.in_distribution
    assert "GRU" in lat.distribution.unseen_operators and "GRU" in lat.distribution.reason
    # the GRU carries the graph's work: refused, so no number, no interval, no price; the measured
    # rows nearest to it instead
    assert lat.distribution.verdict == "refused" and lat.value is None and lat.intervals == ()
    assert lat.distribution.unseen_share_pct > 100 * UNSEEN_SHARE_REFUSED and len(lat.neighbours) == 3
    assert r.cost is None and "not priced" in r.cost_note


def test_the_encoder_rows_answer_an_encoder_llm():
    r = perfgraphs.predict("hf:bert-base-uncased", batch=2, seq_len=128, platform="cpu-torch-fp32")
    lat = r["latency_ms"]
    assert lat.dataset == "perfgraphs/llm" and "throughput_samples_per_s" in {t.target for t in r.targets}
    # one predictor per target: the graph set's latency_ms is not answered beside the encoder rows'
    assert [t.target for t in r.targets].count("latency_ms") == 1


# -- artifacts ------------------------------------------------------------------------------------
def test_a_stored_booster_reproduces_its_recorded_held_out_score():
    from perfgraphs.evaluation.evaluator import compute_metrics

    pt = next(t for t in find_platform("cpu-torch-fp32").targets if t.column == "latency_ms" and t.kind == "graphs")
    art = load_artifact(pt)
    held = ~art.in_training
    got = compute_metrics(art.labels[held], art.predict(art.features[held]))
    assert got.n == art.meta["heldout"]["n"] == held.sum() > 100
    assert got.mape_pct == pytest.approx(art.meta["heldout"]["mape_pct"], rel=1e-9)
    meta = read_meta(pt.key)
    assert meta["dataset_content_hash"] and meta["code_commit"] and meta["feature_version"] == "trappm-v1"
    assert not list(ARTIFACTS_DIR.glob("*.pkl")) and not list(ARTIFACTS_DIR.glob("*.pickle"))
    assert sum(f.stat().st_size for f in ARTIFACTS_DIR.iterdir()) < 8 * 2**20


def _copy_artifacts(tmp_path) -> Path:
    out = tmp_path / "artifacts"
    shutil.copytree(ARTIFACTS_DIR, out)
    return out


def _edit(path: Path, **changes) -> None:
    meta = json.loads(path.read_text())
    meta.update(changes)
    path.write_text(json.dumps(meta))


def test_a_mismatched_feature_version_is_refused(tmp_path):
    arts = _copy_artifacts(tmp_path)
    _edit(arts / "dippm--cpu-torch-fp32--latency_ms.artifact.json", feature_version="trappm-v0")
    with pytest.raises(ArtifactMismatchError, match="trappm-v0.*trappm-v1"):
        perfgraphs.predict("timm:resnet50", batch=8, artifacts=arts)


def test_a_mismatched_dataset_build_is_refused(tmp_path):
    from perfgraphs.data.folders import dataset_folder
    from perfgraphs.data.manifest import FORMAT, MANIFEST, _self_hash

    # a local build of the config whose content differs from the artifact's
    ds = DATASETS["perfgraphs/dippm"]
    folder = dataset_folder(ds, ds.config("cpu-torch-fp32"), tmp_path)
    folder.mkdir(parents=True)
    manifest = {"format": FORMAT, "content_hash": "f" * 64}
    manifest["manifest_sha256"] = _self_hash(manifest)
    (folder / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(ArtifactMismatchError, match="local build is ffffffffffff"):
        perfgraphs.predict("timm:resnet50", batch=8, home=tmp_path)


def test_a_missing_or_tampered_artifact_is_refused(tmp_path):
    empty = tmp_path / "none"
    empty.mkdir()
    with pytest.raises(ArtifactMissingError, match="perfgraphs predict train"):
        perfgraphs.predict("timm:resnet50", batch=8, artifacts=empty)
    arts = _copy_artifacts(tmp_path)
    booster = arts / "dippm--cpu-torch-fp32--peak_memory_mb.booster.json"
    booster.write_text(booster.read_text().replace('"num_trees"', '"num_trees" ', 1))
    with pytest.raises(ArtifactMismatchError, match="sha256"):
        perfgraphs.predict("timm:resnet50", batch=8, artifacts=arts)


def _numbers(tree) -> list[float]:
    """The numeric leaves of a JSON tree, in order (None as NaN is not needed: offsets are finite here)."""
    if isinstance(tree, dict):
        return [v for k in sorted(tree) for v in _numbers(tree[k])]
    if isinstance(tree, list):
        return [v for item in tree for v in _numbers(item)]
    return [float(tree)] if isinstance(tree, (int, float)) and not isinstance(tree, bool) else []


def test_predict_train_reproduces_the_shipped_artifacts(tmp_path, capsys):
    # the smallest platform (H200, 581 labeled rows since the second 2026-11-28 loan): `perfgraphs predict train` on this checkout's build
    # gives the shipped artifacts' build, hyper-parameters and held-out scores
    pytest.importorskip("xgboost")
    rc, out, err = _cli(["predict", "train", "--platform", "cuda-torch-fp32", "--artifacts", str(tmp_path)], capsys)
    if rc != 0 and "perfgraphs: error:" in err:  # the config cannot be built in this checkout
        pytest.skip(err.strip())
    assert rc == 0, err
    assert "3 artifacts" in out
    for pt in find_platform("cuda-torch-fp32").targets:
        fresh, shipped = read_meta(pt.key, tmp_path), read_meta(pt.key)
        art = load_artifact(pt, tmp_path)
        assert art.meta == fresh and set(fresh["files"]) | {f"{pt.key}.artifact.json"} == {
            f.name for f in tmp_path.iterdir() if f.name.startswith(pt.key)}
        for key in ("dataset_content_hash", "hyperparameters", "n_labeled", "feature_version", "seen_operators"):
            assert fresh[key] == shipped[key], key
        assert fresh["heldout"]["mape_pct"] == pytest.approx(shipped["heldout"]["mape_pct"], rel=1e-9)
        # the intervals too: the same folds, the same refits, the same percentiles
        assert _numbers(fresh["intervals"]) == pytest.approx(_numbers(shipped["intervals"]), rel=1e-9)
        assert fresh["label_range"] == shipped["label_range"]


def test_every_shipped_onnx_booster_predicts_what_xgboost_predicts():
    # predict runs the boosters' ONNX form (onnxruntime); XGBoost, reading the trained JSON, is
    # the ground truth, on the real features of every labeled row of every shipped artifact
    xgb = pytest.importorskip("xgboost")
    targets = {pt.key: pt for p in all_platforms() for pt in p.targets}
    keys = sorted(p.name.removesuffix(".artifact.json") for p in ARTIFACTS_DIR.glob("*.artifact.json"))
    assert keys and set(keys) <= set(targets)
    for key in keys:
        art = load_artifact(targets[key])
        booster = xgb.Booster()
        booster.load_model(str(ARTIFACTS_DIR / f"{key}.booster.json"))
        t = art.meta["target_transform"]
        z = booster.predict(xgb.DMatrix(art.features)).astype(np.float64) * t["scale"] + t["mean"]
        want = np.exp(z) if t["log"] else z
        got = art.predict(art.features)
        assert len(got) == len(art.labels) > 0
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=0, err_msg=key)
        assert art.meta["booster_onnx"]["rows_checked"] == len(art.labels)


def test_a_tampered_onnx_booster_or_a_format_1_artifact_is_refused_and_convert_restores_it(tmp_path, capsys):
    pytest.importorskip("onnxmltools")
    key = "dippm--cpu-torch-fp32--latency_ms"
    arts = _copy_artifacts(tmp_path)
    onnx_file = arts / f"{key}.booster.onnx"
    data = bytearray(onnx_file.read_bytes())
    data[-1] ^= 1
    onnx_file.write_bytes(bytes(data))
    with pytest.raises(ArtifactMismatchError, match="sha256"):
        perfgraphs.predict("timm:resnet50", batch=8, artifacts=arts)
    # an artifact as trained before the ONNX form was part of it: refused in one line, then converted
    meta_path = arts / f"{key}.artifact.json"
    meta = json.loads(meta_path.read_text())
    meta.pop("booster_onnx")
    meta["files"].pop(onnx_file.name)
    meta["format_version"] = 1
    meta_path.write_text(json.dumps(meta))
    onnx_file.unlink()
    with pytest.raises(ArtifactMismatchError, match="format 1.*perfgraphs predict convert"):
        perfgraphs.predict("timm:resnet50", batch=8, artifacts=arts)
    rc, out, err = _cli(["predict", "convert", "--artifacts", str(arts)], capsys)
    assert rc == 0, err
    assert f"{len(list(ARTIFACTS_DIR.glob('*.artifact.json')))} artifacts" in out
    assert read_meta(key, arts) == read_meta(key)  # the conversion is deterministic: the shipped metadata again
    assert onnx_file.read_bytes() == (ARTIFACTS_DIR / onnx_file.name).read_bytes()
    shipped = perfgraphs.predict("timm:resnet50", batch=8)
    again = perfgraphs.predict("timm:resnet50", batch=8, artifacts=arts)
    assert again["latency_ms"].value == shipped["latency_ms"].value


_HEAVY = ("torch", "timm", "torchvision", "transformers", "xgboost", "sklearn", "scipy", "pandas")


@pytest.mark.parametrize("call", [
    "import perfgraphs; perfgraphs.predict('timm:resnet50', batch=8, platform='cpu-torch-fp32')",
    "from perfgraphs.cli import main; assert main(['predict', 'timm:resnet50', '--batch', '8', '--platform', "
    "'cpu-torch-fp32']) == 0",
])
def test_a_cached_graph_predict_in_a_fresh_interpreter_imports_no_framework(call, resnet50, own_cache):
    # the resnet50 fixture has exported and cached the graph in this module's cache; a new process
    # answering from it needs neither the exporters (torch, timm) nor XGBoost and scikit-learn
    import subprocess
    import sys

    code = f"import json, sys\n{call}\nprint(json.dumps(sorted(m for m in {_HEAVY!r} if m in sys.modules)))"
    env = {**os.environ, "PERFGRAPHS_HOME": str(own_cache)}
    env.pop("PERFGRAPHS_EXTERNAL_DIR", None)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_a_cached_encoder_predict_in_a_fresh_interpreter_builds_no_model(tmp_path):
    # an hf: call needs the encoder's facts and GMACs besides the graph: cached too, so a second
    # process imports neither transformers nor torch (it rebuilt the model on the meta device: 7 s)
    import subprocess
    import sys

    # the smallest encoder of the zoo (6 layers): the cache, not the model, is under test
    call = "import perfgraphs; r = perfgraphs.predict('hf:distilbert-base-uncased', batch=4, seq_len=128)"
    code = (f"import json, sys\n{call}\nprint(json.dumps([sorted(m for m in {_HEAVY!r} if m in sys.modules), "
            "[(t.target, t.value) for t in r.targets]]))")
    env = {**os.environ, "PERFGRAPHS_HOME": str(tmp_path / "home")}
    runs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    (first_heavy, first), (cached_heavy, cached) = runs
    assert "transformers" in first_heavy  # the control: the first call did build the model
    assert not {"torch", "transformers", "timm", "torchvision"} & set(cached_heavy), cached_heavy
    assert cached == first  # the same answer from the cache


def test_an_encoder_sequence_beyond_its_positions_is_refused_before_any_import():
    import subprocess
    import sys

    code = ("import sys, perfgraphs\ntry:\n    perfgraphs.predict('hf:roberta-base', seq_len=513)\n"
            "except perfgraphs.errors.PerfgraphsError as e:\n    print(e)\n"
            f"print(sorted(m for m in {_HEAVY!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    out = done.stdout.strip().splitlines()
    assert out[0] == "hf:roberta-base accepts at most 512 tokens, got seq_len=513", out
    assert "transformers" not in out[1] and "torch" not in out[1], out


# -- bad input ----------------------------------------------------------------------------------
def _bad_onnx(path: Path) -> Path:
    from onnx import TensorProto, helper, numpy_helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 5])
    w = numpy_helper.from_array(np.zeros((4, 5), np.float32), "w")  # 3 ≠ 4: shape inference fails
    graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "bad", [x], [y], [w])
    path.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
    return path


BAD_INPUTS = [
    ({"source": "timm:not_a_model_at_all"}, UnknownModelError, "not_a_model_at_all"),
    ({"source": "timm:resnet50", "input": "3,abc,224"}, InvalidInputSpecError, "3,224,224"),
    ({"source": "timm:resnet50", "batch": 0}, InvalidInputSpecError, "batch"),
    ({"source": "BAD_ONNX"}, InvalidInputSpecError, "ShapeInferenceError"),
    ({"source": "timm:resnet50", "platform": "cpu-torch-bf16"}, UnknownPlatformError, "no labels"),
]


@pytest.mark.parametrize("kwargs,error,text", BAD_INPUTS)
def test_bad_input_is_a_typed_error(kwargs, error, text, tmp_path):
    kwargs = dict(kwargs)
    if kwargs["source"] == "BAD_ONNX":
        kwargs["source"] = str(_bad_onnx(tmp_path / "bad.onnx"))
    with pytest.raises(error, match=re.escape(text)):
        perfgraphs.predict(**kwargs)


def _cli(args, capsys) -> tuple[int, str, str]:
    from perfgraphs.cli import main

    rc = main(args)
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.mark.parametrize("args,text", [
    (["timm:not_a_model_at_all"], "not_a_model_at_all"),
    (["timm:resnet50", "--input", "3,abc"], "3,224,224"),
    (["BAD_ONNX"], "ShapeInferenceError"),
    (["timm:resnet50", "--platform", "cpu-torch-bf16"], "no labels"),
    (["timm:resnet50", "--artifacts", "EMPTY"], "no predictor artifact"),
    (["timm:resnet50", "--prices", "MISSING"], "price table"),
])
def test_bad_input_is_one_line_from_the_cli(args, text, tmp_path, capsys):
    args = [str(_bad_onnx(tmp_path / "bad.onnx")) if a == "BAD_ONNX" else a for a in args]
    if "EMPTY" in args:
        (tmp_path / "empty").mkdir()
        args[args.index("EMPTY")] = str(tmp_path / "empty")
    if "MISSING" in args:
        args[args.index("MISSING")] = str(tmp_path / "missing.json")
    rc, out, err = _cli(["predict", *args], capsys)
    assert rc == 2 and err.startswith("perfgraphs: error:") and len(err.strip().splitlines()) == 1, err
    assert text in err and "Traceback" not in err + out


# -- MIG and cost -------------------------------------------------------------------------------
def test_mig_picks_the_smallest_profile_that_holds_the_prediction():
    # NVIDIA's MIG user guide: A100-40GB 1g.5gb, 1g.10gb, 2g.10gb, 3g.20gb, 4g.20gb, 7g.40gb
    by_gpu = lambda rec: {c.gpu: c.profile for c in rec.choices}  # noqa: E731
    assert by_gpu(recommend_mig(3_000)) == {"A100-40GB": "1g.5gb", "A100-80GB": "1g.10gb", "H100-80GB": "1g.10gb",
                                            "H200-141GB": "1g.18gb"}
    assert by_gpu(recommend_mig(6_000))["A100-40GB"] == "1g.10gb"  # 1g.10gb: same memory, 4 per GPU vs 3
    assert by_gpu(recommend_mig(15_000, margin_pct=50))["A100-40GB"] == "7g.40gb"  # 22.5 GB
    assert by_gpu(recommend_mig(45_000)) == {"A100-40GB": None, "A100-80GB": "7g.80gb", "H100-80GB": "7g.80gb",
                                             "H200-141GB": "3g.71gb"}
    assert "docs.nvidia.com" in profile_table()["source"]


def test_a_price_file_overrides_the_committed_table(tmp_path, resnet50):
    table = json.loads((ROOT / "perfgraphs" / "predict" / "prices.json").read_text())
    table["platforms"]["cpu-torch-fp32"]["usd_per_hour"] = 3.6
    path = tmp_path / "prices.json"
    path.write_text(json.dumps(table))
    r = perfgraphs.predict("timm:resnet50", batch=8, platform="cpu-torch-fp32", prices=path, inferences=1000)
    per_sample_s = r[r.cost.time_target].value / 8 / 1000
    assert r.cost.usd == pytest.approx(per_sample_s * 1000 * 3.6 / 3600)
    table["platforms"]["cpu-torch-fp32"]["usd_per_hour"] = -1
    path.write_text(json.dumps(table))
    with pytest.raises(PriceTableError, match="positive"):
        perfgraphs.predict("timm:resnet50", batch=8, prices=path)
    table["platforms"]["cpu-torch-fp32"]["usd_per_hour"] = float("inf")  # json writes Infinity: "$inf" before
    path.write_text(json.dumps(table))
    with pytest.raises(PriceTableError, match="positive finite"):
        perfgraphs.predict("timm:resnet50", batch=8, prices=path)
    committed = json.loads((ROOT / "perfgraphs" / "predict" / "prices.json").read_text())
    assert committed["as_of"] and all(p["source_url"].startswith("https://") for p in committed["platforms"].values())


def test_a_users_price_table_is_read_over_the_shipped_one(tmp_path, monkeypatch):
    from perfgraphs.predict.cost import PRICES_FILE, price_of, user_prices_json, where_to_add_a_price

    monkeypatch.setenv("PERFGRAPHS_HOME", str(tmp_path))
    shipped = json.loads(PRICES_FILE.read_text())["platforms"]
    # control: no user table, the shipped prices; a platform it lacks has none, and the note names the user's file
    assert price_of("cpu-torch-fp32").usd_per_hour == shipped["cpu-torch-fp32"]["usd_per_hour"]
    assert price_of("my-rented-l4") is None
    assert str(tmp_path / "hardware" / "prices.json") in where_to_add_a_price()
    mine = {"as_of": "2026-11-28", "platforms": {
        "my-rented-l4": {"offer": "one L4", "usd_per_hour": 0.8, "source_url": "https://example.org/l4"},
        "cpu-torch-fp32": {"offer": "my own VM", "usd_per_hour": 0.05, "source_url": "https://example.org/vm"}}}
    user_prices_json().parent.mkdir(parents=True)
    user_prices_json().write_text(json.dumps(mine))
    assert price_of("my-rented-l4").usd_per_hour == 0.8 and price_of("my-rented-l4").table == str(user_prices_json())
    assert price_of("cpu-torch-fp32").usd_per_hour == 0.05  # the user's row replaces the shipped one
    assert price_of("cuda-torch-fp32").usd_per_hour == shipped["cuda-torch-fp32"]["usd_per_hour"]  # the rest stay
    # an explicit file is read alone: the user's table does not leak into it
    assert price_of("my-rented-l4", PRICES_FILE) is None
    user_prices_json().write_text("{not json")
    with pytest.raises(PriceTableError, match=str(user_prices_json())):
        price_of("cpu-torch-fp32")


def test_the_held_out_scorer_reads_the_store_as_the_builds_do(tmp_path):
    # mechanics only, on a committed CPU-time store of the same protocol (its rows are training
    # rows, so the numbers are not a held-out result): labels as stored, MAPE as recomputed here
    from perfgraphs.benchmarks.predict_heldout import score
    from perfgraphs.collect.store import load_measurements

    store = next((ROOT / "data" / "measurements").glob("dippm-cputime-*"))
    result = score(store, tmp_path / "out.json", limit=2)
    rows = {(r["model"], r["input"], r["batch_size"]): r for r in load_measurements(store).to_pylist()}
    for c in result["configs"]:
        stored = rows[(c["model"], c["input"], c["batch_size"])]
        assert c["latency_ms"] == stored["latency_median_ms"] and c["cpu_time_ms"] == stored["cpu_time_ms"]
        assert stored["n_rounds"] >= 2 and not stored["gate_flagged"]
    lat = [(c["latency_ms"], c["predicted_latency_ms"]) for c in result["configs"]]
    assert result["targets"]["latency_ms"]["mape_pct"] == pytest.approx(
        100 * np.mean([abs(p - y) / y for y, p in lat]))
    assert json.loads((tmp_path / "out.json").read_text())["targets"].keys() == result["targets"].keys()


# -- report, CLI, README ------------------------------------------------------------------------
def test_the_html_report_is_self_contained(tmp_path, resnet50, capsys):
    out = tmp_path / "report.html"
    rc, stdout, err = _cli(["predict", "timm:resnet50", "--batch", "8", "--platform", "cuda-torch-fp32",
                            "--html", str(out)], capsys)
    assert rc == 0, err
    assert "latency_ms" in stdout and "MIG" in stdout
    page = out.read_text()
    assert "<script" not in page and " src=" not in page and "<link" not in page
    assert page.count("<svg") >= 5 and "roofline" in page and "arithmetic intensity" in page
    assert "Conv" in page and "Nearest measured models" in page and "@224#b8" in page and "CUDA context" in page


def test_the_cli_json_answers_the_api(capsys, resnet50):
    rc, out, err = _cli(["predict", "timm:resnet50", "--batch", "8", "--json"], capsys)
    assert rc == 0, err
    data = json.loads(out)
    values = {t["target"]: t["value"] for t in data["targets"]}
    assert values["latency_ms"] == pytest.approx(resnet50["latency_ms"].value)


def test_the_readme_snippet_runs():
    text = (ROOT / "README.md").read_text()
    section = text.split("## Predict for your model", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    exec(compile(code, "README.md", "exec"), {})


# -- web form -----------------------------------------------------------------------------------
def _serve(app):
    uvicorn = pytest.importorskip("uvicorn", reason="the serve extra is not installed (pip install -e '.[serve]')")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(200):
        if server.started:
            break
        time.sleep(0.05)
    return server, thread, f"http://127.0.0.1:{port}/"


def test_the_web_form_in_a_headless_browser(resnet50, tmp_path):
    pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install -e '.[serve]')")
    pytest.importorskip("multipart", reason="the serve extra is not installed (pip install -e '.[serve]')")
    from test_leaderboard import BROWSER_ARGS, _chromium

    chromium, playwright = _chromium()
    from perfgraphs.predict.serve import create_app

    server, thread, url = _serve(create_app())
    try:
        with playwright.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=BROWSER_ARGS)
            page = browser.new_page()
            page.goto(url)
            page.fill("#model", "timm:resnet50")
            page.fill("#batch", "8")
            page.select_option("#platform", "cpu-torch-fp32")
            page.click("#submit")
            page.wait_for_selector("#predictions", timeout=120_000)
            row = page.locator("tr.prediction[data-target='latency_ms'] .value").first.inner_text()
            assert float(row.split()[0].replace(",", "")) == pytest.approx(resnet50["latency_ms"].value, rel=1e-3)
            # bad input: a visible one-line message, the form still there
            page.fill("#model", "timm:not_a_model_at_all")
            page.click("#submit")
            page.wait_for_selector("#error", timeout=60_000)
            assert "not_a_model_at_all" in page.locator("#error").inner_text()
            assert page.locator("#predict-form").is_visible()
            for field, value, message in (("#batch", "x", "batch must be an integer"),
                                          ("#input", "3,abc", "3,224,224")):
                page.goto(url)
                page.fill("#model", "timm:resnet50")
                page.fill(field, value)
                page.click("#submit")
                page.wait_for_selector("#error")
                assert message in page.locator("#error").inner_text()
            # an uploaded ONNX file: the same graph as the zoo name, the same answer
            from perfgraphs.predict.sources import template_of

            good = tmp_path / "resnet50.onnx"
            good.write_bytes(template_of("timm:resnet50").model.SerializeToString())
            page.goto(url)
            page.set_input_files("#onnx", str(good))
            page.fill("#batch", "8")
            page.click("#submit")
            page.wait_for_selector("#predictions", timeout=120_000)
            row = page.locator("tr.prediction[data-target='latency_ms'] .value").first.inner_text()
            assert float(row.split()[0].replace(",", "")) == pytest.approx(resnet50["latency_ms"].value, rel=1e-3)
            # an uploaded ONNX file that fails shape inference
            page.goto(url)
            page.set_input_files("#onnx", str(_bad_onnx(tmp_path / "bad.onnx")))
            page.click("#submit")
            page.wait_for_selector("#error")
            assert "ShapeInferenceError" in page.locator("#error").inner_text()
            # a platform without labels (not in the form's list: posted as a client could)
            answer = page.request.post(url + "predict", multipart={"model": "timm:resnet50", "batch": "1",
                                                                   "platform": "cpu-torch-bf16", "mode": "infer"})
            assert answer.status == 400 and "no labels for platform" in answer.text()
            browser.close()
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_the_web_form_says_when_an_artifact_is_missing(tmp_path):
    pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install -e '.[serve]')")
    pytest.importorskip("multipart", reason="the serve extra is not installed (pip install -e '.[serve]')")
    from test_leaderboard import BROWSER_ARGS, _chromium

    chromium, playwright = _chromium()
    from perfgraphs.predict.serve import create_app

    (tmp_path / "empty").mkdir()
    server, thread, url = _serve(create_app(artifacts=tmp_path / "empty"))
    try:
        with playwright.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=BROWSER_ARGS)
            page = browser.new_page()
            page.goto(url)
            page.fill("#model", "timm:resnet50")
            page.click("#submit")
            page.wait_for_selector("#error", timeout=120_000)
            assert "no predictor artifact" in page.locator("#error").inner_text()
            browser.close()
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_perfgraphs_serve_answers_on_its_port(tmp_path):
    pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install -e '.[serve]')")
    pytest.importorskip("uvicorn", reason="the serve extra is not installed (pip install -e '.[serve]')")
    import subprocess
    import sys
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "perfgraphs", "serve", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        page = None
        for _ in range(240):
            try:
                page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).read().decode()
                break
            except OSError:
                if proc.poll() is not None:
                    break
                time.sleep(0.5)
        assert page is not None, proc.stdout.read() if proc.poll() is not None else "no answer"
        assert "id='predict-form'" in page and "cuda-torch-fp32" in page
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_each_command_word_has_its_own_help(capsys):
    # `perfgraphs predict train --help` printed the predict help (train is a positional word)
    from perfgraphs.cli import main

    for word, expected in (("train", "usage: perfgraphs predict train"), ("platforms", "usage: perfgraphs predict platforms"),
                           ("convert", "usage: perfgraphs predict convert")):
        with pytest.raises(SystemExit) as info:
            main(["predict", word, "--help"])
        assert info.value.code == 0
        out = capsys.readouterr().out
        assert out.startswith(expected) and "--inferences" not in out, out
    with pytest.raises(SystemExit):
        main(["predict", "timm:resnet50", "--help"])
    assert "--inferences" in capsys.readouterr().out
