"""Reference predictors of the benchmark (SPEC §4), scikit-learn style: configure with constructor
kwargs, ``fit(...)``, ``predict(...)``.

* static-feature models take ``(X (n, S), y)``: :class:`StaticMLP`, :class:`StaticXGBoost`;
  :func:`static_arrays` extracts ``X``/``y`` from a PyG dataset;
* graph models take PyG datasets made by :func:`perfgraphs.data.load.to_pyg`:
  :class:`DIPPMSage`, :class:`NNLQPGNN`, :class:`TraPPM`;
* :class:`LayerwiseLinear` takes Hugging Face rows (it needs the raw node facts);
* LLM study: :class:`LLMXGBoost` (model + hardware features, :func:`perfgraphs.data.llm_features`),
  :class:`LLMGNN` (its GNN baseline) and :class:`GNNLM` (GNN + language model, three stages;
  needs the ``[llm]`` extra: ``peft`` and the packaged MiniLM-L6-v2).

Every learned model trains positive targets in log space and predicts ``exp`` of its output, so
predictions are positive; ``quick=True`` swaps paper hyper-parameters for CI-sized ones, and a
``seed`` makes fitting reproducible without touching the caller's global RNG state.
"""

from perfgraphs.baselines.common import static_arrays
from perfgraphs.baselines.dippm_sage import DIPPMSage
from perfgraphs.baselines.gnn_lm import GNNLM
from perfgraphs.baselines.layerwise_linear import LayerwiseLinear, layer_features
from perfgraphs.baselines.llm_gnn import LLMGNN
from perfgraphs.baselines.llm_xgboost import LLMXGBoost
from perfgraphs.baselines.nnlqp_gnn import NNLQPGNN
from perfgraphs.baselines.static_mlp import StaticMLP
from perfgraphs.baselines.static_xgboost import StaticXGBoost
from perfgraphs.baselines.trappm import TraPPM

__all__ = ["DIPPMSage", "GNNLM", "LLMGNN", "LLMXGBoost", "LayerwiseLinear", "NNLQPGNN", "StaticMLP",
           "StaticXGBoost", "TraPPM", "layer_features", "static_arrays"]
