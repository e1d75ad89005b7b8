"""Entry ``roofline-boost`` (the fitted roofline times a boosted correction of its log ratio) as a
leaderboard submission: :class:`perfgraphs.baselines.roofline_fit.RooflineBoost` behind the
predictor interface, the same code path as ``perfgraphs benchmark --baseline roofline-boost``."""

from perfgraphs.baselines.catalog import ROOFLINE_BOOST
from perfgraphs.leaderboard.predictors import BaselinePredictor


class Predictor(BaselinePredictor):
    def __init__(self, target: str, seed: int = 0, quick: bool = False):
        super().__init__(ROOFLINE_BOOST.name, target, seed=seed, quick=quick)
