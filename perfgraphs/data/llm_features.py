"""Model + hardware feature matrices of the tabular LLM configs (``perfgraphs/llm``): ``mlenergy``
(:func:`llm_features`) and our encoder measurements ``cpu-torch-fp32`` (:func:`encoder_features`);
:func:`tabular_features` picks by the rows' columns.

``mlenergy``:

SPEC §3 lists the LLM tree model's features. What an ML.ENERGY row can give of them, known
*before* the run (nothing measured by the run itself enters):

* model: total and activated parameters, architecture (dense / MoE / hybrid), weight precision
  (one-hot and its element width in bits: the "quantization type"), modality and task;
* serving configuration: max batch (``max_num_seqs``, vLLM's batch limit = SPEC's batch size),
  number of GPUs and tensor / data / expert parallel degrees;
* hardware: the GPU model (one-hot).

Not available and not invented: the per-architecture config facts (#layers, heads, hidden and
vocab size, #nodes/#edges/MACs of a graph) need each model's Hugging Face config, which is not
shipped offline; the measured hardware vector of SPEC §3 (peak GFLOPS, HBM bandwidth, SM count,
caches, ...) would be constant per GPU model, so with two GPU models it carries exactly the
information of the GPU one-hot for every predictor that sees these rows. ``avg_batch_size``
and ``avg_output_len`` are outcomes of the run (vLLM's realised batch, the generated length)
and are excluded: using them would let a model read the answer off the measurement.

Category vocabularies are fixed here, not learned from the rows, so every fold has the same
columns; an unseen category sets the group's ``other`` column.
"""

from __future__ import annotations

import numpy as np

from perfgraphs.errors import PerfgraphsError

CATEGORIES: dict[str, tuple[str, ...]] = {
    "gpu_model": ("H100", "B200"),
    "architecture": ("Dense Transformer", "MoE", "Mamba-Transformer Hybrid"),
    "weight_precision": ("bfloat16", "fp8", "mxfp4"),
    "modality": ("llm", "mllm"),
    "task": ("gpqa", "lm-arena-chat", "sourcegraph-fim", "image-chat", "video-chat"),
}
# element width of the stored weights (mxfp4's shared block scales are not counted)
WEIGHT_BITS: dict[str, float] = {"bfloat16": 16.0, "float16": 16.0, "fp8": 8.0, "mxfp4": 4.0}

# numeric column → transform; log scales because parameters and batch limits span 3 orders of
# magnitude (trees are invariant to it, the MLP is not)
NUMERIC: tuple[tuple[str, str], ...] = (
    ("total_params_billions", "log"),
    ("activated_params_billions", "log"),
    ("max_num_seqs", "log2"),
    ("num_gpus", "log2"),
    ("tensor_parallel", "log2"),
    ("data_parallel", "log2"),
    ("expert_parallel", "log2"),
)


class LLMFeatureError(PerfgraphsError):
    """Rows that lack a column the LLM features need, or hold unusable values."""


def feature_names() -> list[str]:
    names = [f"{t}_{c}" for c, t in NUMERIC]
    names.append("weight_bits")
    for col, vocab in CATEGORIES.items():
        names += [f"{col}={v}" for v in vocab] + [f"{col}=other"]
    return names


def _column(rows, name: str) -> list:
    try:
        return list(rows[name])
    except (KeyError, ValueError):
        raise LLMFeatureError(f"LLM rows have no column {name!r} (is this perfgraphs/llm mlenergy?)") from None


def llm_features(rows) -> np.ndarray:
    """(n, len(feature_names())) float64 matrix of a Hugging Face split (or a dict of columns)."""
    blocks = []
    for col, transform in NUMERIC:
        values = np.array([np.nan if v is None else v for v in _column(rows, col)], dtype=np.float64)
        if not (np.isfinite(values).all() and (values > 0).all()):
            raise LLMFeatureError(f"column {col!r} has missing or non-positive values")
        blocks.append((np.log(values) if transform == "log" else np.log2(values))[:, None])
    precision = _column(rows, "weight_precision")
    bits = [WEIGHT_BITS.get(p) for p in precision]
    if any(b is None for b in bits):
        unknown = sorted({p for p, b in zip(precision, bits) if b is None}, key=str)
        raise LLMFeatureError(f"unknown weight precision(s) {unknown} (known: {', '.join(WEIGHT_BITS)})")
    blocks.append(np.array(bits, dtype=np.float64)[:, None])
    for col, vocab in CATEGORIES.items():
        values = _column(rows, col)
        onehot = np.zeros((len(values), len(vocab) + 1))
        for i, v in enumerate(values):
            onehot[i, vocab.index(v) if v in vocab else len(vocab)] = 1.0
        blocks.append(onehot)
    return np.concatenate(blocks, axis=1)


# -- our encoder measurements (perfgraphs/llm cpu-torch-fp32) ----------------------------------
# SPEC §3 (Table 6.3) as far as these rows have it: model — batch size, sequence length,
# quantization (weight bits), total MACs and parameters, max position embeddings, #hidden
# layers, #attention heads, hidden size, vocab size, type vocab size (+ the feed-forward width);
# hardware — measured peak GFLOP/s and memory bandwidth, CPU clock, RAM, L1/L2/L3 caches, cores.
# The GPU-only facts do not exist on a CPU; #nodes / #edges / total memory of the graph are not
# in the rows (see dataset_cards/llm.md). Every input is known before the run.
ENCODER_NUMERIC: tuple[tuple[str, str], ...] = (
    ("batch_size", "log2"), ("seq_len_tokens", "log2"), ("gmacs_per_forward", "log"),
    ("gmacs_per_sequence", "log"), ("total_params", "log"), ("num_hidden_layers", "id"), ("hidden_size", "id"),
    ("num_attention_heads", "id"), ("intermediate_size", "id"), ("vocab_size", "log"),
    ("max_position_embeddings", "id"), ("type_vocab_size", "id"), ("weight_bits", "id"),
    ("peak_gflops_measured", "id"), ("memory_bandwidth_gbps_measured", "id"), ("cpu_freq_mhz", "id"),
    ("ram_mb", "log"), ("l1d_cache_kib", "id"), ("l1i_cache_kib", "id"), ("l2_cache_kib", "id"),
    ("l3_cache_kib", "id"), ("cores_used", "id"),
)
_TRANSFORMS = {"log": np.log, "log2": np.log2, "id": lambda v: v}


def encoder_feature_names() -> list[str]:
    return [name if t == "id" else f"{t}_{name}" for name, t in ENCODER_NUMERIC]


def encoder_features(rows) -> np.ndarray:
    """(n, len(encoder_feature_names())) float64 matrix of ``cpu-torch-fp32`` rows."""
    blocks = []
    for col, transform in ENCODER_NUMERIC:
        try:
            raw = list(rows[col])
        except (KeyError, ValueError):
            raise LLMFeatureError(f"encoder rows have no column {col!r} (is this perfgraphs/llm cpu-torch-fp32?)") from None
        values = np.array([np.nan if v is None else v for v in raw], dtype=np.float64)
        if not np.isfinite(values).all() or (transform != "id" and (values <= 0).any()):
            raise LLMFeatureError(f"column {col!r} has missing or non-positive values")
        blocks.append(_TRANSFORMS[transform](values)[:, None])
    return np.concatenate(blocks, axis=1)


def tabular_features(rows) -> np.ndarray:
    """The feature matrix of a ``perfgraphs/llm`` config's rows, whichever config they are from."""
    columns = set(rows.column_names if hasattr(rows, "column_names") else rows)
    if "gpu_model" in columns:
        return llm_features(rows)
    if "seq_len_tokens" in columns:
        return encoder_features(rows)
    raise LLMFeatureError("rows are neither perfgraphs/llm mlenergy (gpu_model, ...) nor cpu-torch-fp32 "
                          "(seq_len_tokens, ...) rows")
