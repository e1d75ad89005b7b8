"""Extracted parameter and MAC counts against independently published numbers."""

from __future__ import annotations

import multiprocessing
import os
import statistics
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from perfgraphs.graph import load_graph
from perfgraphs.graph.ground_truth import (
    default_timm_results_dir,
    read_sample,
    timm_published,
    torchvision_published,
)

SAMPLE = read_sample(Path(__file__).parent / "data" / "ground_truth_sample.txt")
FAMILIES = ("convnext", "densenet", "efficientnet", "mnasnet", "mobilenet", "poolformer", "resnet",
            "swin", "vgg", "visformer", "vit", "squeezenet", "googlenet", "alexnet")


def rounded_rel_error(value: float, published: float, half_unit: float) -> float:
    """Relative error against a number published rounded to ``2 * half_unit``: zero anywhere
    inside the rounding interval (timm rounds GMACs and millions of params to 0.01)."""
    return max(0.0, abs(value - published) - half_unit) / published


def static_counts(item: tuple[str, int]) -> tuple[int, int]:
    """(parameters, MACs) of one sample's extracted graph (runs in a worker process)."""
    name, size = item
    s = load_graph(name, image_shape=(3, size, size)).static_features()
    return s["total_params"], s["total_macs"]


def test_sample_spans_every_family():
    assert len(SAMPLE) >= 60
    names = " ".join(name for name, _ in SAMPLE)
    for family in FAMILIES:
        assert family in names.replace("semnasnet", "mnasnet"), family


def test_params_and_macs_match_published_counts():
    results_dir = default_timm_results_dir()
    if results_dir is None:
        pytest.skip("timm results not found: set PERFGRAPHS_TIMM_RESULTS to timm's results/ folder")
    published = timm_published(results_dir)
    # 67 real exports: spread over the machine's cores in fresh interpreters (spawn: no torch
    # state forked from this one); each export is independent of the others.
    cores = max(1, min(4, len(os.sched_getaffinity(0))))
    with ProcessPoolExecutor(cores, mp_context=multiprocessing.get_context("spawn")) as pool:
        counts = list(pool.map(static_counts, SAMPLE, chunksize=2))
    rows = []
    for (name, size), (params, macs) in zip(SAMPLE, counts):
        zoo, arch = name.split(":", 1)
        if zoo == "torchvision":
            truth, half_params, half_gmacs = torchvision_published(arch), 0.5, 0.0005
        else:
            truth, half_params, half_gmacs = published[(arch, size)], 5e3, 0.005
        rows.append((
            name, size,
            rounded_rel_error(params, truth.params, half_params),
            rounded_rel_error(macs / 1e9, truth.gmacs, half_gmacs),
        ))
    report = "\n".join(f"{n:45s} {sz:4d} params {p:7.2%} macs {m:7.2%}" for n, sz, p, m in rows)
    print(report)
    params_ok = sum(p <= 0.01 for *_, p, _m in rows) / len(rows)
    macs_ok = sum(m <= 0.10 for *_, m in rows) / len(rows)
    macs_err = [m for *_, m in rows]
    print(f"params within 1%: {params_ok:.1%}; MACs within 10%: {macs_ok:.1%}; "
          f"MAC error median {statistics.median(macs_err):.2%}, max {max(macs_err):.2%}")
    assert params_ok >= 0.95, report
    assert macs_ok >= 0.90, report


# Parameter counts published on the Hugging Face model cards / in the papers, minus the pooler
# (768*768 + 768 = 590,592) that BertModel/RobertaModel carry but the encoder output never uses.
HF_PARAMS = {
    "hf:bert-base-uncased": 109_482_240 - 590_592,
    "hf:roberta-base": 124_645_632 - 590_592,
    "hf:distilbert-base-uncased": 66_362_880,
}


@pytest.mark.parametrize("name", sorted(HF_PARAMS))
def test_encoder_llm_params(name):
    graph = load_graph(name, seq_len=32)
    assert abs(graph.total_params - HF_PARAMS[name]) / HF_PARAMS[name] < 0.01


def test_distilbert_macs_follow_the_transformer_formula():
    """MACs of a 6-layer, d=768, ff=3072 encoder: per token 6*(4d^2 + 2*d*ff) in linear layers,
    2*L^2*d per layer in attention, 5 per element in each of the 13 LayerNorms."""
    d, ff, layers = 768, 3072, 6
    for batch, seq in [(1, 64), (3, 128)]:
        graph = load_graph("hf:distilbert-base-uncased", batch_size=batch, seq_len=seq)
        expected = batch * (seq * layers * (4 * d * d + 2 * d * ff)
                            + layers * 2 * seq * seq * d + 13 * 5 * seq * d)
        assert graph.static_features()["total_macs"] == expected


def test_building_a_graph_model_leaves_transformers_initialisation_intact():
    """The zoo skips random init while it builds a model. A process whose first transformers model
    is built that way must still initialise later models properly: a GPT-2 made from a config
    afterwards carries its configured ``initializer_range`` (0.02), not PyTorch's default std of 1
    (CI saw a tiny GPT-2's text loss at 21.6 instead of ln(vocab) ≈ 6 because of this)."""
    import subprocess
    import sys

    script = (
        "from perfgraphs.graph.zoo import build_model\n"
        "build_model('hf:distilbert-base-uncased', seq_len=8)\n"
        "from transformers import GPT2Config, GPT2LMHeadModel\n"
        "config = GPT2Config(vocab_size=400, n_embd=64, n_layer=1, n_head=2)\n"
        "model = GPT2LMHeadModel(config)\n"
        "print(config.initializer_range, float(model.transformer.wte.weight.std()))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    configured, measured = map(float, done.stdout.split()[-2:])
    assert measured == pytest.approx(configured, rel=0.05)
