"""Reference baseline ``layerwise-linear`` (per-operator-category linear model (Gianniti et al.)) as a leaderboard submission:
:class:`perfgraphs.baselines.LayerwiseLinear` behind the predictor interface, the same code path as
``perfgraphs benchmark --baseline layerwise-linear``."""

from perfgraphs.baselines.catalog import LAYERWISE_LINEAR
from perfgraphs.leaderboard.predictors import BaselinePredictor


class Predictor(BaselinePredictor):
    def __init__(self, target: str, seed: int = 0, quick: bool = False):
        super().__init__(LAYERWISE_LINEAR.name, target, seed=seed, quick=quick)
