"""Reference predictors of the benchmark (SPEC §4), scikit-learn estimators (``BaseEstimator`` +
``RegressorMixin``): parameters are constructor keywords, fitted state ends in ``_``, so
``clone``, ``Pipeline``, ``cross_val_score`` and ``GridSearchCV`` work with them.

* static-feature models take ``(X (n, S), y)``: :class:`StaticMLP`, :class:`StaticXGBoost`
  (they pass ``sklearn.utils.estimator_checks.check_estimator``);
  :func:`static_arrays` extracts ``X``/``y`` from a PyG dataset;
* graph models take ``X`` = a sequence of PyG graphs (a dataset made by
  :func:`perfgraphs.data.load.to_pyg`, or the list :func:`graph_inputs` returns with its ``y``
  for scikit-learn's utilities): :class:`DIPPMSage`, :class:`NNLQPGNN`, :class:`TraPPM`;
* :class:`LayerwiseLinear` and :class:`LayerwiseBoost` take Hugging Face rows (they need the raw
  node facts); :class:`AdditiveResidualBoost` is the latter on its feature matrix
  (:func:`operator_mix_features`) and passes ``check_estimator``;
* LLM study: :class:`LLMXGBoost` (model + hardware features, :func:`perfgraphs.data.llm_features`),
  :class:`LLMGNN` (its GNN baseline) and :class:`GNNLM` (GNN + language model, three stages;
  needs the ``[llm]`` extra: ``peft`` and the packaged MiniLM-L6-v2);
* physics first (issue 27): :class:`ServingPrior` and :class:`ServingPriorBoost` on the LLM
  serving features (the decode-step prior, :mod:`perfgraphs.features.serving`); the transfer
  predictors of a new platform, :class:`RooflinePrior` and :class:`PriorResidualTransfer`, take a
  platform table (:mod:`perfgraphs.baselines.transfer_predictors` names every transfer predictor).

Every learned model trains positive targets in log space and predicts ``exp`` of its output, so
predictions are positive; ``quick=True`` swaps paper hyper-parameters for CI-sized ones, and a
``seed`` makes fitting reproducible without touching the caller's global RNG state.
"""

from perfgraphs.baselines.common import graph_inputs, static_arrays
from perfgraphs.baselines.dippm_sage import DIPPMSage
from perfgraphs.baselines.gnn_lm import GNNLM
from perfgraphs.baselines.layerwise_boost import AdditiveResidualBoost, LayerwiseBoost, operator_mix_features
from perfgraphs.baselines.layerwise_linear import LayerwiseLinear, layer_features
from perfgraphs.baselines.llm_gnn import LLMGNN
from perfgraphs.baselines.llm_xgboost import LLMXGBoost
from perfgraphs.baselines.nnlqp_gnn import NNLQPGNN
from perfgraphs.baselines.physics_transfer import PriorResidualTransfer, RooflinePrior
from perfgraphs.baselines.serving_prior import ServingPrior, ServingPriorBoost
from perfgraphs.baselines.static_mlp import StaticMLP
from perfgraphs.baselines.static_xgboost import StaticXGBoost
from perfgraphs.baselines.trappm import TraPPM

__all__ = ["AdditiveResidualBoost", "DIPPMSage", "GNNLM", "LLMGNN", "LLMXGBoost", "LayerwiseBoost", "LayerwiseLinear",
           "NNLQPGNN", "PriorResidualTransfer", "RooflinePrior", "ServingPrior", "ServingPriorBoost", "StaticMLP",
           "StaticXGBoost", "TraPPM", "graph_inputs", "layer_features",
           "operator_mix_features", "static_arrays"]
