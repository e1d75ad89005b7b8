"""Predict for your model: latency, memory, energy, MIG profile and cost on a measured platform, from
the datasets' trained predictors (:mod:`perfgraphs.predict.artifacts`)."""

from perfgraphs.predict.api import platforms, predict, predict_many
from perfgraphs.predict.errors import (ArtifactMismatchError, ArtifactMissingError, PriceTableError,
                                       UnknownPlatformError)
from perfgraphs.predict.result import (Comparison, Distribution, GraphFacts, HardwareProbe, MeasuredError,
                                       Neighbour, PlatformInfo, Prediction, TargetPrediction)

__all__ = ["ArtifactMismatchError", "ArtifactMissingError", "Comparison", "Distribution", "GraphFacts",
           "HardwareProbe", "MeasuredError", "Neighbour", "PlatformInfo", "Prediction", "PriceTableError",
           "TargetPrediction", "UnknownPlatformError", "platforms", "predict", "predict_many"]


class _CallableModule(type(__import__("sys"))):
    """``perfgraphs.predict`` is both this package and the function: importing a subpackage binds
    its module to the parent's attribute of the same name, so the package itself answers a call."""

    def __call__(self, *args, **kwargs):
        return predict(*args, **kwargs)


__import__("sys").modules[__name__].__class__ = _CallableModule
