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
  platform table; on one platform's graph rows (issue 34), :class:`FittedRoofline` (the roofline
  with its four hardware constants fitted to the labels), :class:`RooflineBoost` (XGBoost on
  the log ratio to it) and :class:`RooflineSage` (DIPPM's network on that ratio) take Hugging Face
  rows; :class:`EncoderRoofline` is that physics on the
  encoder rows' model facts.

:mod:`perfgraphs.baselines.catalog` is the one table of baselines (names, estimators, what each
applies to); the estimators are imported on first use, so reading the catalog costs no framework
import.

Every learned model trains positive targets in log space and predicts ``exp`` of its output, so
predictions are positive; ``quick=True`` swaps paper hyper-parameters for CI-sized ones, and a
``seed`` makes fitting reproducible without touching the caller's global RNG state.
"""

import importlib

# the estimators load on first use (PEP 562): the catalog and the transfer predictors import this
# package, and reading a table must not import scikit-learn, XGBoost or torch
_HOMES = {  # public name -> its module, relative to this package
    "graph_inputs": ".common", "static_arrays": ".common", "DIPPMSage": ".dippm_sage", "GNNLM": ".gnn_lm",
    "AdditiveResidualBoost": ".layerwise_boost", "LayerwiseBoost": ".layerwise_boost",
    "operator_mix_features": ".layerwise_boost", "LayerwiseLinear": ".layerwise_linear",
    "layer_features": ".layerwise_linear", "LLMGNN": ".llm_gnn", "LLMXGBoost": ".llm_xgboost", "NNLQPGNN": ".nnlqp_gnn",
    "PriorResidualTransfer": ".physics_transfer", "RooflinePrior": ".physics_transfer",
    "FittedRoofline": ".roofline_fit", "RooflineBoost": ".roofline_fit", "RooflineSage": ".roofline_sage", "EncoderRoofline": ".encoder_roofline",
    "ServingPrior": ".serving_prior", "ServingPriorBoost": ".serving_prior", "StaticMLP": ".static_mlp", "StaticXGBoost": ".static_xgboost",
    "TraPPM": ".trappm",
}
__all__ = sorted(_HOMES)


def __getattr__(name: str):
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_HOMES[name], __name__), name)
