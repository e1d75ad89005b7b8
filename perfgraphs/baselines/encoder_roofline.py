"""Physics alone on the encoder rows (``perfgraphs/llm`` ``cpu-torch-fp32``): the roofline of a
forward from the model's size and the request's shape, its constants fitted to the labels.

The rows carry no graph, but what a forward does is in their columns (SPEC §3's model facts): its
matrix-product MACs at this batch and length, its parameters and their width, layers, hidden and
feed-forward sizes, heads. A forward of batch B and length S on L layers:

* computes ``2 x MACs`` FLOPs at the rate ``P``;
* moves the weights once (``parameters x bits / 8`` bytes) and its activations: per layer the
  token states of the hidden and feed-forward widths (``B S (H + I)``) and the attention scores
  (``B heads S^2``), ``a`` bytes per element (``a`` fitted: how often a layer reads and writes them),
  at the bandwidth ``W``;
* pays a fixed cost ``c`` per layer (its kernels' dispatch).

``time = max(FLOPs / P, bytes / W) + c L``; ``P``, ``W``, ``a`` and ``c`` are fitted to the training
rows by robust least squares on log errors, as :class:`~perfgraphs.baselines.roofline_fit.FittedRoofline`
fits a graph's kernels. The target picks what the time answers: the latency itself, or the
throughput ``1000 B / time``; a memory target is no time and is refused in one line.
"""

from __future__ import annotations

import numpy as np

from perfgraphs.baselines.common import BaselineInputError, BaselineRegressor, NotFittedError

CONSTANTS = ("flops_per_ms", "bytes_per_ms", "bytes_per_activation", "layer_ms")
# target -> how it follows from the forward's time (ms): the time itself or samples per second
TIMES = {"latency_ms": "time", "latency_calibrated_ms": "time", "throughput_samples_per_s": "rate"}
START_RIDGES = (1.0, 10.0, 100.0)  # FLOPs per byte at the start of a fit


def _workload(X: np.ndarray) -> dict[str, np.ndarray]:
    """Per row: batch, FLOPs, weight bytes, activation elements and layers, from the encoder features."""
    from perfgraphs.data.llm_features import encoder_feature_names

    names = encoder_feature_names()
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != len(names):
        raise BaselineInputError(f"the encoder roofline reads perfgraphs/llm cpu-torch-fp32 features "
                                 f"({len(names)} columns), not a matrix of shape {X.shape}")
    col = {n: X[:, i] for i, n in enumerate(names)}
    batch, seq = 2.0 ** col["log2_batch_size"], 2.0 ** col["log2_seq_len_tokens"]
    layers = col["num_hidden_layers"]
    activations = batch * seq * layers * (col["hidden_size"] + col["intermediate_size"])
    activations = activations + batch * layers * col["num_attention_heads"] * seq ** 2
    return {"batch": batch, "flops": 2e9 * np.exp(col["log_gmacs_per_forward"]),
            "weight_bytes": np.exp(col["log_total_params"]) * col["weight_bits"] / 8.0,
            "activations": activations, "layers": layers}


def _time_ms(theta: np.ndarray, w: dict[str, np.ndarray]) -> np.ndarray:
    rate, bandwidth, per_activation, per_layer = np.exp(theta)
    moved = w["weight_bytes"] + per_activation * w["activations"]
    return np.maximum(w["flops"] / rate, moved / bandwidth) + per_layer * w["layers"]


class EncoderRoofline(BaselineRegressor):
    """``fit(X, y)`` / ``predict(X)`` on encoder features (:func:`perfgraphs.data.llm_features.encoder_features`)
    for one ``target`` (a time or a throughput). ``coef_``: the log constants; ``hardware_``: the
    constants (FLOPs and bytes per millisecond, bytes per activation element, ms per layer)."""

    def __init__(self, target: str = "latency_ms", loss: str = "soft_l1", f_scale: float = 0.1):
        self.target = target
        self.loss = loss
        self.f_scale = f_scale

    def _to_target(self, time_ms: np.ndarray, w: dict[str, np.ndarray]) -> np.ndarray:
        return time_ms if TIMES[self.target] == "time" else 1000.0 * w["batch"] / time_ms

    def fit(self, X, y, X_val=None, y_val=None) -> "EncoderRoofline":
        from scipy.optimize import least_squares

        if self.target not in TIMES:
            raise BaselineInputError(f"no roofline for {self.target!r}: it times a forward "
                                     f"(targets: {', '.join(TIMES)})")
        w = _workload(X)
        y = np.asarray(y, dtype=np.float64).ravel()
        if len(y) != len(w["batch"]) or not np.isfinite(y).all() or (y <= 0).any():
            raise BaselineInputError("the encoder roofline fits one positive, finite target per row")
        log_y = np.log(y)

        def residuals(theta):
            return np.log(self._to_target(_time_ms(theta, w), w)) - log_y

        time_guess = np.median(y if TIMES[self.target] == "time" else 1000.0 * w["batch"] / y)
        rate = np.log(np.median(w["flops"]) / time_guess)
        starts = [np.array([rate, rate - np.log(r), 0.0, np.log(0.05 * time_guess / np.median(w["layers"]))])
                  for r in START_RIDGES]
        fits = [least_squares(residuals, s, loss=self.loss, f_scale=self.f_scale) for s in starts]
        self.coef_ = min(fits, key=lambda f: f.cost).x
        self.hardware_ = dict(zip(CONSTANTS, map(float, np.exp(self.coef_))))
        return self

    def predict(self, X) -> np.ndarray:
        if not hasattr(self, "coef_"):
            raise NotFittedError("EncoderRoofline.predict called before fit")
        w = _workload(X)
        return self._to_target(_time_ms(self.coef_, w), w)
