"""An analytical prior of LLM serving (decode): one step of a batch of sequences on tensor-parallel GPUs.

A decode step reads the weights the step touches once for the whole batch and does two FLOPs per
activated parameter per sequence. On ``g`` GPUs of one replica (tensor parallelism splits both),
its time is ``max(weight bytes / (g x bandwidth), FLOPs / (g x matrix peak))``. A mixture of experts
touches ``min(total, activated x batch)`` parameters per step (every sequence routes to its own
experts, and there are only so many). The batch is the server's limit (``max_num_seqs``): the
realised batch is an outcome of the run, so it is not an input. What this leaves out (KV-cache
reads, which need each model's layer shapes, not in the rows; the all-reduce of tensor
parallelism; scheduling) is what a predictor learns on top, as log(label / prior).

From the step:

* inter-token latency = the step;
* output throughput = replicas x batch / step (tokens per second over the deployment);
* energy per token = GPUs x TDP x step / (replicas x batch): every GPU at its rated power, the
  descriptor's TDP; the learned residual is the utilisation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ServingTerms:
    """Per row: the decode step and the three targets it implies."""

    step_ms: np.ndarray
    weight_ms: np.ndarray  # the step if bandwidth-bound
    compute_ms: np.ndarray  # the step if compute-bound
    median_itl_ms: np.ndarray
    output_throughput_tokens_per_sec: np.ndarray
    energy_per_token_joules: np.ndarray


def decode_step(total_params: np.ndarray, activated_params: np.ndarray, weight_bits: np.ndarray,
                batch: np.ndarray, num_gpus: np.ndarray, replicas: np.ndarray, descriptors) -> ServingTerms:
    """Vectorised over rows; ``descriptors``: one :class:`~perfgraphs.features.hardware.HardwareDescriptor`
    per row. Parameters are counts (not billions), ``weight_bits`` the stored element width."""
    total, active = np.asarray(total_params, float), np.asarray(activated_params, float)
    batch, gpus, replicas = np.asarray(batch, float), np.asarray(num_gpus, float), np.asarray(replicas, float)
    per_replica = gpus / replicas
    bandwidth = np.array([d.memory_bandwidth_gb_per_s for d in descriptors], float) * 1e9
    peak = np.array([d.peak_gflop_per_s("bf16", True) for d in descriptors], float) * 1e9
    tdp = np.array([d.tdp_w or np.nan for d in descriptors], float)
    weight_bytes = np.minimum(total, active * batch) * np.asarray(weight_bits, float) / 8.0
    weight_s = weight_bytes / (per_replica * bandwidth)
    compute_s = 2.0 * active * batch / (per_replica * peak)
    step_s = np.maximum(weight_s, compute_s)
    tokens_per_s = replicas * batch / step_s
    return ServingTerms(step_ms=step_s * 1e3, weight_ms=weight_s * 1e3, compute_ms=compute_s * 1e3,
                        median_itl_ms=step_s * 1e3, output_throughput_tokens_per_sec=tokens_per_s,
                        energy_per_token_joules=gpus * tdp / tokens_per_s)
