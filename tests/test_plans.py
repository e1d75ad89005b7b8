"""The committed campaign plans: they parse, reach the issue's sizes, have no duplicate keys, say
their size in their header, recognise the finished DIPPM measurements; the generators are
deterministic and fail with one line on bad input."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from perfgraphs.collect.plan import load_plan
from perfgraphs.collect.plangen import evenly, generate, main
from perfgraphs.collect.plangen_ort import spread

PLANS = Path(__file__).resolve().parents[1] / "plans"
MEASUREMENTS = Path(__file__).resolve().parents[1] / "data" / "measurements"
TRAPPM_FAMILIES = {"densenet", "efficientnet", "mnasnet", "mobilenet", "poolformer", "resnet", "swin",
                   "vgg", "visformer", "convnext", "vit"}
LLM_MODELS = {"hf:bert-base-uncased", "hf:bert-large-uncased", "hf:distilbert-base-uncased",
              "hf:roberta-base", "hf:roberta-large", "hf:xlm-roberta-base", "hf:deberta-v3-small",
              "hf:deberta-v3-base", "hf:deberta-v3-large"}


@pytest.fixture(scope="module")
def plans():
    return {name: load_plan(PLANS / f"{name}.yaml")
            for name in ("dippm-cpu", "trappm-cpu", "llm-cpu", "ort-cpu", "dippm-cuda")}


@pytest.mark.parametrize("name", ["dippm-cpu", "trappm-cpu", "llm-cpu", "ort-cpu", "dippm-cuda"])
def test_plan_has_unique_keys_and_states_its_size(plans, name):
    plan = plans[name]
    keys = [c.key for c in plan.configs]
    assert len(set(keys)) == len(keys)
    assert plan.suite == name
    header = "".join(line for line in (PLANS / f"{name}.yaml").read_text().splitlines(True)
                     if line.startswith("#"))
    size = re.search(r"Size: ([\d,]+) configurations", header.replace("\n# ", " "))
    assert size and int(size.group(1).replace(",", "")) == len(plan.configs)
    # every header states its measurement rule: a CPU plan its time budget, the GPU plan that it has none
    assert "Estimated machine time" in header and ("Time-budget rule" in header or "no time budget" in header)


def test_ort_plan_has_500_architectures_on_both_onnx_platforms(plans):
    configs = plans["ort-cpu"].configs
    assert {c.batch_size for c in configs} == {1} and {c.mode for c in configs} == {"inference"}
    per_platform = {p: {c.model for c in configs if c.platform == p}
                    for p in ("cpu-ort-fp32", "cpu-ort-int8", "cpu-torch-fp32")}
    both = per_platform["cpu-ort-fp32"] & per_platform["cpu-ort-int8"]
    assert len(both) >= 500
    assert per_platform["cpu-torch-fp32"] == both  # nnlqp gets our torch platform on the same graphs
    assert len({c.family for c in configs}) >= 60  # spread over timm's families, not a few


def test_ort_plan_joins_timm_benchmark_on_arch_and_size(plans):
    from perfgraphs.errors import PerfgraphsError
    from perfgraphs.loaders import load_timm_benchmark

    try:
        rows = load_timm_benchmark(progress=False).to_pylist()
    except PerfgraphsError as exc:  # no local copy and no network (a clean clone offline)
        pytest.skip(f"timm benchmark results not available: {exc}")
    benchmarked = {(f"timm:{r['arch']}", r["img_size"]) for r in rows}
    pairs = {(c.model, c.image_size) for c in plans["ort-cpu"].configs}
    assert len(pairs & benchmarked) >= 500


def test_trappm_plan_covers_all_families(plans):
    configs = plans["trappm-cpu"].configs
    assert len(configs) >= 400
    assert set(plans["trappm-cpu"].families) == TRAPPM_FAMILIES
    assert {c.mode for c in configs} == {"train"} and min(c.batch_size for c in configs) >= 2
    per_family = {f: sum(c.family == f for c in configs) for f in TRAPPM_FAMILIES}
    assert min(per_family.values()) >= 15, per_family


def test_llm_plan_covers_nine_encoders(plans):
    configs = plans["llm-cpu"].configs
    assert len(configs) >= 300
    assert {c.model for c in configs} == LLM_MODELS
    assert {c.mode for c in configs} == {"llm"} and all(c.seq_len for c in configs)
    for model in LLM_MODELS:  # a grid per model, not one point
        mine = [c for c in configs if c.model == model]
        assert len({c.seq_len for c in mine}) >= 5 and len({c.batch_size for c in mine}) >= 2


def test_dippm_plan_recognises_finished_measurements(plans):
    from perfgraphs.collect.store import MeasurementStore

    store = MeasurementStore(MEASUREMENTS / "dippm-cpu")
    finished = store.finished_keys() if store.files() else set()
    if not finished:
        pytest.skip("no committed DIPPM measurements in this checkout")
    assert finished <= {c.key for c in plans["dippm-cpu"].configs}
    assert len(plans["dippm-cpu"].configs) >= 2000 and len(plans["dippm-cpu"].families) == 10


def test_even_spread_helpers():
    assert evenly(list(range(10)), 3) == [1, 5, 8]
    assert evenly([1, 2], 5) == [1, 2]
    by_family = {"big": list(range(20)), "mid": list(range(5)), "one": [0]}
    chosen = spread(by_family, 12)
    # equal quota 5 fills "mid" and "one"; the remainder goes to the largest family
    assert {f: len(v) for f, v in chosen.items()} == {"big": 6, "mid": 5, "one": 1}
    assert spread(by_family, 100) == by_family


def test_generator_is_deterministic_on_a_small_family(monkeypatch):
    from perfgraphs.collect import plangen_trappm

    # one family at two sizes keeps the meta-device counts (seconds each) few; the selection,
    # batch rule and rendering run unchanged
    include, exclude, _, batches, limit = plangen_trappm.FAMILIES["visformer"]
    monkeypatch.setitem(plangen_trappm.FAMILIES, "visformer", (include, exclude, [96, 160], batches, limit))
    first = generate("trappm-cpu", families=["visformer"])
    assert first == generate("trappm-cpu", families=["visformer"])
    assert "family: visformer" in first and "timm:visformer_tiny" in first
    assert "input_sizes: [96" in first and "Size: " in first


@pytest.mark.parametrize("argv, message", [
    (["nosuch-cpu"], "unknown suite 'nosuch-cpu'"),
    (["trappm-cpu", "--families", "nosuch"], "unknown families nosuch"),
])
def test_generator_cli_errors_are_one_line(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
