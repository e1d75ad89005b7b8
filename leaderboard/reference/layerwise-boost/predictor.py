"""Reference baseline ``layerwise-boost`` (per-kernel-kind additive costs with a boosted log-ratio
correction) as a leaderboard submission: :class:`perfgraphs.baselines.LayerwiseBoost` behind the
predictor interface, the same code path as ``perfgraphs benchmark --baseline layerwise-boost``."""

from perfgraphs.baselines.catalog import LAYERWISE_BOOST
from perfgraphs.leaderboard.predictors import BaselinePredictor


class Predictor(BaselinePredictor):
    def __init__(self, target: str, seed: int = 0, quick: bool = False):
        super().__init__(LAYERWISE_BOOST.name, target, seed=seed, quick=quick)
