"""Model + hardware feature matrix of the tabular LLM config (``perfgraphs/llm`` / ``mlenergy``).

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
