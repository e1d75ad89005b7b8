"""The encoder roofline (issue 34 item 4) against a machine that runs encoders operator by operator.

Ground truth: encoder forwards (BERT-like sizes, batches 1-32, lengths 8-512) timed here one
operator at a time — every projection, attention product, feed-forward matmul and elementwise op its
own ``max(FLOPs / P, bytes / W)`` plus a dispatch cost — on a machine with known constants: a finer
model than the one the baseline fits (one max per forward), so the fit is an approximation that
must still land close, with the machine's compute rate. Controls: shuffled labels, and a memory
target, which no roofline times.
"""

from __future__ import annotations

import numpy as np
import pytest

from perfgraphs.baselines.catalog import ENCODER_ROOFLINE
from perfgraphs.baselines.common import BaselineInputError, NotFittedError
from perfgraphs.baselines.encoder_roofline import EncoderRoofline
from perfgraphs.data.llm_features import encoder_features
from perfgraphs.evaluation.evaluator import mape_pct

RATE, BANDWIDTH, DISPATCH = 60e6, 10e6, 0.02  # FLOPs and bytes per ms, ms per operator
SIZES = {"tiny": (4, 256, 1024, 4), "small": (6, 512, 2048, 8), "base": (12, 768, 3072, 12), "large": (24, 1024, 4096, 16)}


def _op(flops: float, moved: float) -> float:
    return max(flops / RATE, moved / BANDWIDTH) + DISPATCH


def forward_ms(layers: int, h: int, i: int, heads: int, b: int, s: int) -> float:
    """One forward, operator by operator (fp32: 4 bytes an element)."""
    t = 0.0
    for _ in range(layers):
        for _ in range(4):  # Q, K, V, output projections
            t += _op(2.0 * b * s * h * h, 4.0 * (h * h + 2 * b * s * h))
        for _ in range(2):  # scores and their product with V
            t += _op(2.0 * b * s * s * h, 4.0 * (b * heads * s * s + 2 * b * s * h))
        t += _op(5.0 * b * heads * s * s, 8.0 * b * heads * s * s)  # softmax
        t += _op(2.0 * b * s * h * i, 4.0 * (h * i + b * s * (h + i)))  # feed-forward in
        t += _op(8.0 * b * s * i, 8.0 * b * s * i)  # GELU
        t += _op(2.0 * b * s * h * i, 4.0 * (h * i + b * s * (h + i)))  # feed-forward out
        for _ in range(2):  # layer norms and residual adds
            t += _op(8.0 * b * s * h, 12.0 * b * s * h)
    return t


def encoder_rows(n: int, seed: int) -> tuple[dict, np.ndarray]:
    rng = np.random.default_rng(seed)
    cols: dict[str, list] = {k: [] for k in (
        "batch_size", "seq_len_tokens", "gmacs_per_forward", "gmacs_per_sequence", "total_params", "num_hidden_layers",
        "hidden_size", "num_attention_heads", "intermediate_size", "vocab_size", "max_position_embeddings",
        "type_vocab_size", "weight_bits", "peak_gflops_measured", "memory_bandwidth_gbps_measured", "cpu_freq_mhz",
        "ram_mb", "l1d_cache_kib", "l1i_cache_kib", "l2_cache_kib", "l3_cache_kib", "cores_used")}
    y = []
    for _ in range(n):
        layers, h, i, heads = SIZES[rng.choice(list(SIZES))]
        b, s = int(2 ** rng.integers(0, 6)), int(2 ** rng.integers(3, 10))
        macs = layers * (4 * b * s * h * h + 2 * b * s * s * h + 2 * b * s * h * i)
        values = {"batch_size": b, "seq_len_tokens": s, "gmacs_per_forward": macs / 1e9, "gmacs_per_sequence": macs / 1e9 / b,
                  "total_params": layers * (4 * h * h + 2 * h * i) + 30522 * h, "num_hidden_layers": layers,
                  "hidden_size": h, "num_attention_heads": heads, "intermediate_size": i, "vocab_size": 30522,
                  "max_position_embeddings": 512, "type_vocab_size": 2, "weight_bits": 32, "peak_gflops_measured": 76.0,
                  "memory_bandwidth_gbps_measured": 12.0, "cpu_freq_mhz": 2450.0, "ram_mb": 24000.0,
                  "l1d_cache_kib": 32, "l1i_cache_kib": 32, "l2_cache_kib": 512, "l3_cache_kib": 32768, "cores_used": 1}
        for k, v in values.items():
            cols[k].append(v)
        y.append(forward_ms(layers, h, i, heads, b, s))
    return cols, np.array(y)


@pytest.fixture(scope="module")
def forwards():
    rows, y = encoder_rows(240, 0)
    return encoder_features(rows), y, np.asarray(rows["batch_size"], dtype=np.float64)


def test_the_fit_lands_on_the_machine(forwards):
    X, y, _ = forwards
    train, test = np.arange(160), np.arange(160, 240)
    model = EncoderRoofline().fit(X[train], y[train])
    assert mape_pct(y[test], model.predict(X[test])) < 5.0
    assert model.hardware_["flops_per_ms"] == pytest.approx(RATE, rel=0.1)
    # control: the same rows with their labels shuffled are no machine
    shuffled = np.random.default_rng(1).permutation(y)
    assert mape_pct(shuffled[test], EncoderRoofline().fit(X[train], shuffled[train]).predict(X[test])) > 40.0


def test_a_throughput_is_the_same_machine(forwards):
    X, y, batch = forwards
    latency = EncoderRoofline().fit(X, y)
    throughput = EncoderRoofline(target="throughput_samples_per_s").fit(X, 1000.0 * batch / y)
    assert np.allclose(1000.0 * batch / latency.predict(X), throughput.predict(X), rtol=0.02)


def test_what_it_cannot_answer_is_one_typed_line(forwards):
    X, y, _ = forwards
    with pytest.raises(BaselineInputError, match="no roofline for 'peak_memory_mb'"):
        EncoderRoofline(target="peak_memory_mb").fit(X, y)
    with pytest.raises(BaselineInputError, match="cpu-torch-fp32 features"):
        EncoderRoofline().fit(X[:, :5], y)
    with pytest.raises(NotFittedError):
        EncoderRoofline().predict(X)
    assert isinstance(ENCODER_ROOFLINE.make(target="latency_ms"), EncoderRoofline)
